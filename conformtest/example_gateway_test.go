package conformtest_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/conform-dev/conform/conformtest"
)

// gateway is a tiny reverse proxy, the kind of Go service conformtest is for. With buggy set
// it rewrites "relation":"eq" to "relation":"gte" in every answer, a subtle bug of totals.
func gateway(backend string, buggy bool) http.Handler {
	u, err := url.Parse(backend)
	if err != nil {
		panic(err)
	}
	p := httputil.NewSingleHostReverseProxy(u)
	if buggy {
		p.ModifyResponse = func(r *http.Response) error {
			b, err := io.ReadAll(r.Body)
			if err != nil {
				return err
			}
			r.Body.Close()
			b = bytes.ReplaceAll(b, []byte(`"relation":"eq"`), []byte(`"relation":"gte"`))
			r.Body = io.NopCloser(bytes.NewReader(b))
			r.ContentLength = int64(len(b))
			r.Header.Del("Content-Length")
			return nil
		}
	}
	return p
}

// The gateway's own test: the embedded engine stands in for its Elasticsearch, and the
// whole strict suite runs through the gateway, one subtest per case.
func TestGatewayConforms(t *testing.T) {
	backend := conformtest.NewServer(t)
	gw := httptest.NewServer(gateway(backend.URL, false))
	defer gw.Close()
	conformtest.Run(t, gw.URL)
}

// TestBuggyGatewayChild is the same test over the buggy gateway; it only runs inside the
// child process TestBuggyGatewayFails starts, where it is meant to fail.
func TestBuggyGatewayChild(t *testing.T) {
	if os.Getenv("CONFORMTEST_BUGGY_CHILD") != "1" {
		t.Skip("runs in TestBuggyGatewayFails's child process")
	}
	backend := conformtest.NewServer(t)
	gw := httptest.NewServer(gateway(backend.URL, true))
	defer gw.Close()
	conformtest.Run(t, gw.URL, conformtest.Ops("page"))
}

// The bug must fail the test, naming the case, the class and the JSON path.
func TestBuggyGatewayFails(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestBuggyGatewayChild$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), "CONFORMTEST_BUGGY_CHILD=1")
	out, err := cmd.CombinedOutput()
	text := string(out)
	if err == nil {
		t.Fatalf("the buggy gateway's test passed:\n%s", text)
	}
	for _, want := range []string{
		"--- FAIL: TestBuggyGatewayChild/page/000",
		"[totals]",
		"hits.total.relation",
		`want "eq"`,
		"Reproduce: curl",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the child's output lacks %q:\n%s", want, text)
		}
	}
}

// Check is the same suite without a testing.T: here against the embedded engine itself.
func ExampleCheck() {
	srv := httptest.NewServer(must(conformtest.Handler()))
	defer srv.Close()
	run, err := conformtest.Check(context.Background(), srv.URL, conformtest.Ops("get"))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d get cases, %d failed\n", len(run.Cases), run.Failed)
	// Output: 256 get cases, 0 failed
}

// A gateway that breaks totals fails on the class and path of the difference.
func ExampleCheck_buggyGateway() {
	backend := httptest.NewServer(must(conformtest.Handler()))
	defer backend.Close()
	gw := httptest.NewServer(gateway(backend.URL, true))
	defer gw.Close()
	run, err := conformtest.Check(context.Background(), gw.URL, conformtest.Ops("page"))
	if err != nil {
		fmt.Println(err)
		return
	}
	o := run.Failing()[0]
	d, _ := o.FirstFailing()
	fmt.Println(o.Case.Name, d.Class, d.Path, d.Want, d.Got)
	// Output: page/000 totals hits.total.relation "eq" "gte"
}

func must(h http.Handler, err error) http.Handler {
	if err != nil {
		panic(err)
	}
	return h
}

package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/conform-dev/conform/fixtures"
	"github.com/conform-dev/conform/oracle/engine"
)

func TestFuzzHelp(t *testing.T) {
	code, out, _ := runCLI(t, nil, "fuzz", "--help")
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	golden(t, "fuzz-help.txt", out)
}

// Out of the box: the embedded engine against the embedded oracle agrees.
func TestFuzzEmbeddedDefault(t *testing.T) {
	code, out, errOut := runCLI(t, nil, "fuzz", "--n", "300", "--seed", "3")
	if code != exitOK {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	if !strings.Contains(out, "seed 3, 300 requests") || !strings.Contains(out, "0 disagreements") || strings.Contains(out, "warning") {
		t.Fatalf("stdout %s", out)
	}
}

// A broken target: exit 1, each group printed with a curl, and --save leaves fixtures that
// check runs: they fail on the broken target and pass on the embedded engine.
func TestFuzzBrokenTargetSavesRegressionCases(t *testing.T) {
	srv := httptest.NewServer(&corrupting{next: loadedEngine(t), every: 1})
	defer srv.Close()
	dir := filepath.Join(t.TempDir(), "regressions")
	code, out, errOut := runCLI(t, nil, "fuzz", "--target", "broken="+srv.URL, "--n", "40", "--save", dir)
	if code != exitFail {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	for _, want := range []string{"== group 1: fuzz/", "first failing difference: totals at hits.total.relation", "shape: POST /{index}/_search {", "shrunk from", "Reproduce:\n  curl -sS -X 'POST'", "Expected (embedded)", "Got (broken", "Differences:", "Saved "} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	saved, err := fixtures.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range saved.Workload.Cases {
		if !strings.HasPrefix(c.Name, "fuzz/") || !strings.Contains(out, "== group 1: "+saved.Workload.Cases[0].Name+",") {
			t.Errorf("saved case %q is not named as the report's groups are", c.Name)
		}
	}
	if code, out, _ := runCLI(t, nil, "check", "--fixtures", dir, "--target", "broken="+srv.URL); code != exitFail {
		t.Errorf("check of the saved cases on the broken target: exit %d\n%s", code, out)
	}
	if code, out, _ := runCLI(t, nil, "check", "--fixtures", dir); code != exitOK {
		t.Errorf("check of the saved cases on the embedded engine: exit %d\n%s", code, out)
	}
}

func TestFuzzBadInput(t *testing.T) {
	// A target holding other documents than the corpus.
	f := fixtures.Default()
	other := engine.New()
	if err := other.Load(f.Workload.Index, f.Mapping, f.Docs[:100]); err != nil {
		t.Fatal(err)
	}
	wrong := httptest.NewServer(other)
	defer wrong.Close()
	down := httptest.NewServer(http.NotFoundHandler())
	downURL := down.URL
	down.Close()
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--target", "down=" + downURL}, exitUsage, "target down (" + downURL + ") is not ready"},
		{[]string{"--target", "wrong=" + wrong.URL}, exitUsage, "is not the fixtures' corpus"},
		{[]string{"--oracle", "golden:x.json"}, exitUsage, "a golden file answers only the workload"},
		{[]string{"--n", "5", "--duration", "1s"}, exitUsage, "not both"},
		{[]string{"--weights", "nope=3"}, exitUsage, `unknown weight "nope"`},
		{[]string{"--invariants", "--oracle", "live:http://127.0.0.1:9"}, exitUsage, "needs no oracle"},
		{[]string{"--target", "a=http://127.0.0.1:9", "--target", "b=http://127.0.0.1:9"}, exitUsage, "one --target"},
	} {
		code, out, errOut := runCLI(t, nil, append([]string{"fuzz"}, c.args...)...)
		if code != c.code || !strings.Contains(errOut, c.msg) {
			t.Errorf("fuzz %v: exit %d, stderr %q, stdout %q; want %d and %q", c.args, code, errOut, out, c.code, c.msg)
		}
	}
}

// Ctrl-C: the run stops, prints what it found (unshrunk) and saves it; exit 2.
func TestFuzzInterruptedSavesFindings(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := &corrupting{next: loadedEngine(t), every: 1}
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/_search") {
			if n.Add(1) == 30 {
				cancel()
			}
		}
		c.ServeHTTP(w, r)
	}))
	defer srv.Close()
	dir := filepath.Join(t.TempDir(), "found")
	var stdout, stderr strings.Builder
	e := &env{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
	code := conform(ctx, e, []string{"fuzz", "--target", "t=" + srv.URL, "--n", "100000", "--workers", "1", "--save", dir})
	if code != exitUsage || !strings.Contains(stderr.String(), "interrupted") || !strings.Contains(stdout.String(), "not shrunk") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, stdout.String(), stderr.String())
	}
	if _, err := os.Stat(filepath.Join(dir, fixtures.WorkloadFile)); err != nil {
		t.Fatalf("nothing saved: %v", err)
	}
}

func TestFuzzInvariantsEmbedded(t *testing.T) {
	code, out, errOut := runCLI(t, nil, "fuzz", "--invariants", "--n", "50")
	if code != exitOK || !strings.Contains(out, "0 broken invariants") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
}

// A live oracle is reached like a target and must hold the corpus too.
func TestFuzzLiveOracle(t *testing.T) {
	live := httptest.NewServer(loadedEngine(t))
	defer live.Close()
	code, out, errOut := runCLI(t, nil, "fuzz", "--oracle", "live:"+live.URL, "--n", "100")
	if code != exitOK || !strings.Contains(out, "against oracle live:"+live.URL) || !strings.Contains(out, "0 disagreements") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	empty := httptest.NewServer(engine.New())
	defer empty.Close()
	if code, _, errOut := runCLI(t, nil, "fuzz", "--oracle", "live:"+empty.URL, "--n", "10"); code != exitUsage || !strings.Contains(errOut, "oracle "+empty.URL+" is not ready") {
		t.Fatalf("an oracle without the corpus: exit %d, %s", code, errOut)
	}
}

func TestFuzzDuration(t *testing.T) {
	code, out, errOut := runCLI(t, nil, "fuzz", "--duration", "300ms", "--weights", "get=0,aggs=0,after=0,search=0")
	if code != exitOK || !strings.Contains(out, "0 disagreements") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
}

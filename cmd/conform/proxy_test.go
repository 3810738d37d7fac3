package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/conform-dev/conform/conformance/suite"
	"github.com/conform-dev/conform/fixtures"
)

// lockedBuffer is a buffer the command writes to while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

var listening = regexp.MustCompile(`listening on (http://127\.0\.0\.1:\d+)`)

// startProxyCLI runs a capture or shadow command line in process on a free port and returns
// its URL and a stop function that interrupts it as Ctrl-C does and returns its exit status
// and outputs.
func startProxyCLI(t *testing.T, args ...string) (string, func() (int, string, string)) {
	t.Helper()
	var stdout, stderr lockedBuffer
	e := &env{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
	ctx, cancel := context.WithCancelCause(context.Background())
	done := make(chan int, 1)
	go func() { done <- conform(ctx, e, append(args, "--listen", "127.0.0.1:0")) }()
	deadline := time.Now().Add(20 * time.Second)
	var url string
	for url == "" {
		if m := listening.FindStringSubmatch(stderr.String()); m != nil {
			url = m[1]
			break
		}
		select {
		case code := <-done:
			t.Fatalf("%s exited %d before listening:\n%s", args[0], code, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never listened:\n%s", args[0], stderr.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	return url, func() (int, string, string) {
		cancel(errors.New("interrupted (Ctrl-C)"))
		select {
		case code := <-done:
			return code, stdout.String(), stderr.String()
		case <-time.After(30 * time.Second):
			t.Fatalf("%s did not end after Ctrl-C:\n%s", args[0], stderr.String())
			return 0, "", ""
		}
	}
}

func embeddedEngine(t *testing.T) *httptest.Server {
	f, err := fixtures.Generate(fixtures.Options{Seed: 3, Documents: 200, Cases: fixtures.CaseCounts{Get: 1}})
	if err != nil {
		t.Fatal(err)
	}
	eng, err := suite.Engine(f)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(eng)
	t.Cleanup(srv.Close)
	return srv
}

func post(t *testing.T, url, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestCaptureCommand: conform capture records a session's reads, counts its writes, and on
// Ctrl-C writes everything and prints the summary, exit 0.
func TestCaptureCommand(t *testing.T) {
	eng := embeddedEngine(t)
	out := t.TempDir()
	url, stop := startProxyCLI(t, "capture", "--upstream", eng.URL, "--out", out)
	post(t, url+"/catalogue/_search", `{"query":{"term":{"brand":"acme"}},"size":3}`)
	post(t, url+"/catalogue/_search", `{"query":{"term":{"brand":"acme"}},"size":3}`)
	post(t, url+"/catalogue/_count", `{"query":{"range":{"views":{"gte":5}}}}`)
	post(t, url+"/catalogue/_doc/x1", `{"a":1}`)
	code, stdout, stderr := stop()
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"capture: 4 requests", "recorded 3 as 2 distinct cases", "writes: 1 passed through, not recorded (doc 1): a snapshot taken before them is stale"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "interrupted (Ctrl-C): finishing the requests in flight") {
		t.Errorf("stderr:\n%s", stderr)
	}
	if _, err := fixtures.Load(out); err != nil {
		t.Errorf("captured workload: %v", err)
	}
}

// TestShadowCommand: with a primary that answers and a candidate that hangs, the client is
// answered, the candidate's reads fail as timeout, and shadow exits 1 with the report; with
// a primary that is not there, the client gets a 502 that says so and nothing is checked.
func TestShadowCommand(t *testing.T) {
	eng := embeddedEngine(t)
	release := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" { // it says what it is at once, and hangs on every read
			w.Write([]byte(`{"version":{"number":"8.15.0","build_flavor":"default"},"tagline":"You Know, for Search"}`))
			return
		}
		io.Copy(io.Discard, r.Body) // then the server notices the client leaving
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer hang.Close()
	defer close(release)
	out := t.TempDir()
	url, stop := startProxyCLI(t, "shadow", "--primary", eng.URL, "--candidate", hang.URL, "--out", out,
		"--candidate-timeout", "200ms", "--progress", "50ms")
	if st, body := post(t, url+"/catalogue/_search", `{"size":2}`); st != 200 || !strings.Contains(body, `"hits"`) {
		t.Fatalf("client got %d %s", st, body)
	}
	time.Sleep(400 * time.Millisecond) // past the candidate timeout, and a progress line
	code, stdout, stderr := stop()
	if code != exitFail {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"1 checked: 0 passed, 1 failed (timeout 1)", "Latency (ms)", "candidate", "conform check --fixtures " + out} {
		if !strings.Contains(stdout, want) {
			t.Errorf("report lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "shadow: 1 requests, 1 reads") {
		t.Errorf("no running summary on stderr:\n%s", stderr)
	}
	if b, err := os.ReadFile(filepath.Join(out, "report.md")); err != nil || !strings.Contains(string(b), "timeout") {
		t.Errorf("report.md: %v\n%s", err, b)
	}

	dead := httptest.NewServer(nil)
	dead.Close()
	url, stop = startProxyCLI(t, "shadow", "--primary", dead.URL, "--candidate", eng.URL, "--out", t.TempDir(), "--progress", "0")
	st, body := post(t, url+"/catalogue/_search", `{"size":2}`)
	if st != 502 || !strings.Contains(body, "conform_proxy_exception") || !strings.Contains(body, "did not answer") {
		t.Errorf("client got %d %s", st, body)
	}
	code, stdout, _ = stop()
	if code != exitOK || !strings.Contains(stdout, "not checked: primary failed 1") || !strings.Contains(stdout, "1 answered 502") {
		t.Errorf("exit %d:\n%s", code, stdout)
	}
}

func TestProxyUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"capture", "--out", "x"}, "--upstream URL is required"},
		{[]string{"capture", "--upstream", "http://127.0.0.1:1"}, "--out DIR is required"},
		{[]string{"capture", "--upstream", "ftp://x", "--out", "x"}, "want an http or https URL"},
		{[]string{"shadow", "--primary", "http://127.0.0.1:1", "--out", "x"}, "--candidate URL is required"},
		{[]string{"shadow", "--primary", "http://a:1", "--candidate", "http://b:1", "--out", "x", "--sample", "0"}, "--sample must be in (0, 1]"},
		{[]string{"shadow", "--primary", "http://a:1", "--candidate", "http://b:1", "--out", "x", "--relax", "nope"}, "unknown relaxation"},
	} {
		code, _, stderr := runCLI(t, nil, c.args...)
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

package main

// Fault servers against run, check and experiment: a target that hangs mid-run (it answers
// readiness and part of the work, then reads and never answers), a silent one (it accepts
// connections and says nothing), and Ctrl-C. Every timeout the answered requests must beat
// is long enough for a busy machine (or -race); the stalls take twice it.

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/conform-dev/conform/conformance/report"
	"github.com/conform-dev/conform/conformance/target/targettest"
	"github.com/conform-dev/conform/fixtures"
)

// casesServer serves the loaded engine; once the check has sent its first n cases of op (the
// readiness probe's requests are not counted), the next one calls then (a Ctrl-C, say) and
// is never answered. It is recognised by method, path and body, as brokenServer's breakages.
func casesServer(t *testing.T, op string, n int, then func()) *httptest.Server {
	t.Helper()
	f := fixtures.Default()
	keys := map[string]bool{}
	for _, c := range f.Workload.Cases {
		if c.Op != op || c.After != "" {
			continue
		}
		req, err := c.Request(f.Workload.Index, "true", nil)
		if err != nil {
			t.Fatal(err)
		}
		keys[requestKey(req.Method, req.Path, req.Body)] = true
	}
	engine := loadedEngine(t)
	var mu sync.Mutex
	seen := 0
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if keys[requestKey(r.Method, r.URL.RequestURI(), body)] {
			mu.Lock()
			seen++
			hang := seen > n
			mu.Unlock()
			if hang {
				then()
				select {
				case <-r.Context().Done():
				case <-release:
				}
				panic(http.ErrAbortHandler)
			}
		}
		engine.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	return srv
}

// Ctrl-C during a check interrupts the exchange in flight rather than waiting for the target,
// and the summary, JUnit and JSON hold the cases checked before it, marked incomplete.
func TestCheckInterruptedWritesTheCasesDone(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	srv := casesServer(t, "counts", 5, func() { cancel(errors.New("interrupted (Ctrl-C)")) })
	dir := t.TempDir()
	jsonPath, junitPath := filepath.Join(dir, "check.json"), filepath.Join(dir, "junit.xml")
	var stdout, stderr bytes.Buffer
	e := &env{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
	code := conform(ctx, e, []string{"check", "--target", "gw=" + srv.URL, "--ops", "counts", "--timeout", "1m", "--json", jsonPath, "--junit", junitPath})
	want := "gw: index catalogue: mapping: the designed mapping, as the fixtures\n" +
		"conform: interrupted (Ctrl-C), after 5 of 32 cases; the cases checked are in " + junitPath + " and " + jsonPath + ", marked incomplete\n"
	if code != exitUsage || stderr.String() != want {
		t.Errorf("exit %d, stderr %q\nwant %q", code, stderr.String(), want)
	}
	if !strings.Contains(stdout.String(), ": 5 of 32 cases, strict") || !strings.Contains(stdout.String(), "INCOMPLETE: interrupted (Ctrl-C), after 5 of 32 cases") ||
		!strings.Contains(stdout.String(), "Every case checked passed") {
		t.Errorf("summary:\n%s", stdout.String())
	}
	r := readCheckJSON(t, jsonPath)
	if r.Complete || r.Incomplete != "interrupted (Ctrl-C), after 5 of 32 cases" || r.Planned != 32 || r.Cases != 5 || r.Passed != 5 {
		t.Errorf("JSON %+v", r)
	}
	j := readJUnit(t, junitPath)
	if j.Tests != 6 || j.Errors != 1 || j.Failures != 0 {
		t.Errorf("JUnit: %d tests, %d errors, %d failures; want the 5 cases and the incomplete error", j.Tests, j.Errors, j.Failures)
	}
}

// A target that stops answering mid-check (it answered readiness and 5 cases) stops the check
// after twice --timeout without a response, not after every case left has timed out; the
// files hold the cases checked. A silent target fails readiness within one timeout.
func TestCheckStopsWhenTheTargetStopsAnswering(t *testing.T) {
	srv := casesServer(t, "counts", 5, func() {})
	dir := t.TempDir()
	jsonPath := filepath.Join(dir, "check.json")
	// The timeout is long enough for the readiness probe on a busy machine (or under -race);
	// the stall takes twice it.
	code, out, errOut := runCLI(t, nil, "check", "--target", "gw="+srv.URL, "--ops", "counts", "--timeout", "2s", "--json", jsonPath)
	if code != exitUsage || !strings.Contains(errOut, "conform: target gw stopped answering: no response for 4s, twice the 2s timeout; the last at ") ||
		!strings.Contains(errOut, " of 32 cases; the cases checked are in "+jsonPath+", marked incomplete") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	r := readCheckJSON(t, jsonPath)
	// The 5 answered pass; the case that timed out, and the one after it if the watch was
	// late, are the only others (without the watch, all 27 would have timed out).
	if r.Complete || r.Passed != 5 || r.Cases < 6 || r.Cases > 8 || r.FailuresByClass["timeout"] != r.Cases-5 {
		t.Errorf("JSON %+v\n%s", r, out)
	}

	silent, err := targettest.NewSilentServer("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	code, _, errOut = runCLI(t, nil, "check", "--target", "s="+silent.URL, "--timeout", "100ms")
	if code != exitUsage || !strings.Contains(errOut, "conform: target s is not ready: ") || !strings.Contains(errOut, "none of the 448 cases was checked") {
		t.Errorf("silent target: exit %d, stderr %q", code, errOut)
	}
}

// A target that stops answering mid-trial (it answered readiness and 9 cases: 2 warmup, 7
// measured) stops the run twice --timeout after its last response, not after the trial's
// remaining requests and another trial have timed out one by one: results.json keeps the trial
// cut short, and the error says which target, since when and where. A silent target fails
// readiness in one timeout.
func TestRunStopsWhenTheTargetStopsAnswering(t *testing.T) {
	srv := casesServer(t, "counts", 10, func() {})
	dir := t.TempDir()
	code, _, errOut := runCLI(t, nil, "run", "--target", "gw="+srv.URL, "--out", dir, "--ops", "counts", "--clients", "1",
		"--requests", "40", "--warmup", "2", "--trials", "3", "--timeout", "2s", "--no-progress")
	if code != exitUsage || !strings.Contains(errOut, "conform: target gw stopped answering: no response for 4s, twice the 2s timeout; the last at ") ||
		!strings.Contains(errOut, "(in trial 1 of counts at 1 client, cut short after ") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	r := readResults(t, dir)
	if r.Complete || !strings.Contains(r.Incomplete, "target gw stopped answering") {
		t.Errorf("complete %v, incomplete %q", r.Complete, r.Incomplete)
	}
	c := r.Cell("gw", "counts", 1)
	if c == nil || len(c.Trials) != 1 {
		t.Fatalf("cell %+v, want the one trial cut short", c)
	}
	tr := c.Trials[0]
	// Without the watch the trial would have counted all 40 requests, 33 of them timeouts.
	if !tr.Incomplete || tr.Passed != 7 || tr.Passed+tr.Failed >= 40 || tr.Failed != tr.FailuresByClass["timeout"] {
		t.Errorf("trial: incomplete %v, passed %d, failed %d %v", tr.Incomplete, tr.Passed, tr.Failed, tr.FailuresByClass)
	}
	md, err := os.ReadFile(filepath.Join(dir, report.MarkdownFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "trial 1 of counts at 1 client on gw, cut short") {
		t.Errorf("report.md does not name the trial cut short:\n%.600s", md)
	}

	silent, err := targettest.NewSilentServer("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	code, _, errOut = runCLI(t, nil, "run", "--target", "s="+silent.URL, "--out", t.TempDir(), "--timeout", "100ms", "--no-progress")
	if code != exitUsage || !strings.Contains(errOut, "conform: target s is not ready: ") {
		t.Errorf("silent target: exit %d, stderr %q", code, errOut)
	}
}

// Ctrl-C is named as what happened wherever it lands: while the expected responses are
// computed, and while a target's readiness is asked.
func TestRunInterruptedSaysWhatHappened(t *testing.T) {
	ctrlC := errors.New("interrupted (Ctrl-C)")
	run := func(ctx context.Context, url string) (int, string) {
		var stdout, stderr bytes.Buffer
		e := &env{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
		code := conform(ctx, e, []string{"run", "--target", "gw=" + url, "--out", t.TempDir(), "--ops", "get", "--no-progress"})
		return code, stderr.String()
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(ctrlC)
	if code, errOut := run(ctx, "http://127.0.0.1:1"); code != exitUsage || !strings.Contains(errOut, "conform: interrupted (Ctrl-C) while computing the expected responses") {
		t.Errorf("before the expected responses: exit %d, stderr %q", code, errOut)
	}

	ctx, cancel = context.WithCancelCause(context.Background())
	defer cancel(nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cancel(ctrlC)
		<-r.Context().Done()
	}))
	defer srv.Close()
	if code, errOut := run(ctx, srv.URL); code != exitUsage || !strings.Contains(errOut, "conform: interrupted (Ctrl-C) while asking whether target gw is ready") {
		t.Errorf("during readiness: exit %d, stderr %q", code, errOut)
	}
}

// A candidate that stops answering mid-round stops the experiment twice --timeout after its
// last response, with the rounds it finished and the one cut short; the error names the round,
// the target and since when. (What verdict such an experiment gets is not this test's.)
func TestExperimentStopsWhenTheCandidateStopsAnswering(t *testing.T) {
	base := httptest.NewServer(loadedEngine(t))
	defer base.Close()
	// The candidate answers its first round's readiness case, 1 warmup and 5 measured counts
	// cases, then hangs. No warm-up to a steady state before round 1 (--warm-max 0): its
	// passes would meet the hang first.
	cand := casesServer(t, "counts", 7, func() {})
	dir := t.TempDir()
	code, out, errOut := runCLI(t, map[string]string{"REQUESTS": "20", "TRIALS": "1", "WARMUP": "1"}, "experiment",
		"--baseline", "a="+base.URL, "--candidate", "b="+cand.URL, "--ops", "counts", "--clients", "1", "--timeout", "2s",
		"--out", dir, "--no-progress", "--warm-max", "0")
	if code != exitUsage || !strings.Contains(errOut, "round 2 (b): target b stopped answering: no response for 4s, twice the 2s timeout; the last at ") ||
		!strings.Contains(errOut, "(in trial 1 of counts at 1 client, cut short after ") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	r := readResults(t, filepath.Join(dir, "rounds", "round-2"))
	if r.Complete || !strings.Contains(r.Incomplete, "target b stopped answering") {
		t.Errorf("round 2's results: complete %v, incomplete %q", r.Complete, r.Incomplete)
	}
	if c := r.Cell("b", "counts", 1); c == nil || len(c.Trials) != 1 || c.Trials[0].Passed != 5 || !c.Trials[0].Incomplete {
		t.Errorf("round 2's candidate cell: %+v", c)
	}
}

// The same candidate met by the warm-up before round 1 stops the experiment there, twice
// --timeout after its last response, naming the warm-up pass and the target.
func TestExperimentStopsWhenTheCandidateHangsInTheWarmUp(t *testing.T) {
	base := httptest.NewServer(loadedEngine(t))
	defer base.Close()
	cand := casesServer(t, "counts", 7, func() {})
	code, out, errOut := runCLI(t, map[string]string{"REQUESTS": "20", "TRIALS": "1", "WARMUP": "1"}, "experiment",
		"--baseline", "a="+base.URL, "--candidate", "b="+cand.URL, "--ops", "counts", "--clients", "1", "--timeout", "2s",
		"--out", t.TempDir(), "--no-progress")
	if code != exitUsage || !strings.Contains(errOut, "before round 1: warm-up pass 1: target b stopped answering: no response for 4s, twice the 2s timeout") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/conform-dev/conform/conformance/report"
	"github.com/conform-dev/conform/conformance/runner"
	"github.com/conform-dev/conform/fixtures"
	"github.com/conform-dev/conform/load/loadtest"
	"github.com/conform-dev/conform/oracle/engine"
)

// smallRun keeps CLI run tests quick: few requests, two trials.
var smallRun = map[string]string{"REQUESTS": "40", "TRIALS": "2", "WARMUP": "4"}

func readResults(t *testing.T, dir string) *report.Results {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, report.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	var r report.Results
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatalf("results.json is not valid JSON: %v", err)
	}
	return &r
}

// loadedEngine is the embedded engine with the default fixtures, as a handler.
func loadedEngine(t *testing.T) http.Handler {
	t.Helper()
	f := fixtures.Default()
	eng := engine.New()
	if err := eng.Load(f.Workload.Index, f.Mapping, f.Docs); err != nil {
		t.Fatal(err)
	}
	return eng
}

// The embedded default: every output written, every response passing, exit 0.
func TestRunEmbeddedDefault(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runCLI(t, smallRun, "run", "--out", dir, "--ops", "get,after,counts", "--clients", "1,2")
	if code != exitOK {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	for _, f := range []string{report.ResultsFile, report.MarkdownFile, report.HTMLFile, report.ManifestFile, report.BenchstatFile} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s missing or empty", f)
		}
	}
	r := readResults(t, dir)
	if !r.Complete || len(r.Cells) != 3*2 || r.TotalFailed() != 0 {
		t.Fatalf("complete %v, %d cells, %d failed", r.Complete, len(r.Cells), r.TotalFailed())
	}
	for _, c := range r.Cells {
		if len(c.Trials) != 2 || c.Passed != 80 || c.MedianP50Ms == nil || *c.MedianP50Ms <= 0 || c.Histogram == nil {
			t.Errorf("cell %s/%s/%d: %d trials, %d passed, p50 %v", c.Target, c.Op, c.Clients, len(c.Trials), c.Passed, c.MedianP50Ms)
		}
		// What measuring cost, per response, where the OS's accounting is read.
		if _, _, ok := runner.ProcessCPU(); ok {
			for _, tr := range c.Trials {
				if cpu := tr.ClientCPU; cpu == nil || cpu.UserUs < 0 || cpu.SysUs < 0 || cpu.UserUs+cpu.SysUs <= 0 || cpu.UserUs+cpu.SysUs > 1e6 {
					t.Errorf("cell %s/%s/%d trial %d: client CPU %+v", c.Target, c.Op, c.Clients, tr.Trial, cpu)
				}
			}
		}
	}
	if r.Settings.Requests != 40 || r.Settings.Trials != 2 || r.Settings.Warmup != 4 {
		t.Errorf("environment defaults not applied: %+v", r.Settings)
	}
	if p := r.Targets[0].Probes["corpus"]; p == nil {
		t.Error("the corpus probe is not recorded")
	}
	if !strings.Contains(out, "Read one document") || !strings.Contains(out, "Results in "+dir) {
		t.Errorf("summary: %s", out)
	}
	// Flags win over the environment.
	dir2 := t.TempDir()
	if code, _, errOut := runCLI(t, smallRun, "run", "--out", dir2, "--ops", "get", "--clients", "1", "--requests", "10", "--trials", "1"); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if r := readResults(t, dir2); r.Settings.Requests != 10 || r.Cells[0].Passed != 10 || r.Settings.Layer != "lean" {
		t.Errorf("--requests did not win, or the lean layer is not recorded: %+v", r.Settings)
	}
}

// --layer times through go-elasticsearch's transport over the lean connection instead; the
// layer is recorded, and compare refuses to combine it with a lean run.
func TestRunOnAnotherLayer(t *testing.T) {
	lean, et := t.TempDir(), t.TempDir()
	for _, run := range []struct{ dir, layer string }{{lean, "lean"}, {et, "lean+elastictransport"}} {
		code, _, errOut := runCLI(t, smallRun, "run", "--out", run.dir, "--ops", "page", "--clients", "1,2", "--layer", run.layer)
		if code != exitOK {
			t.Fatalf("--layer %s: exit %d: %s", run.layer, code, errOut)
		}
		r := readResults(t, run.dir)
		if r.Settings.Layer != run.layer || r.TotalFailed() != 0 || r.Cells[0].Passed != 80 {
			t.Errorf("--layer %s: recorded %q, %d failed", run.layer, r.Settings.Layer, r.TotalFailed())
		}
	}
	code, _, errOut := runCLI(t, nil, "compare", filepath.Join(lean, report.ResultsFile), filepath.Join(et, report.ResultsFile))
	if code != exitUsage || !strings.Contains(errOut, "settings.layer: ") {
		t.Errorf("compare across layers: exit %d, %s", code, errOut)
	}
}

// corrupting wraps a handler and breaks every nth _search response (its hits.total relation),
// the way a faulty gateway would.
type corrupting struct {
	next  http.Handler
	every int64
	n     atomic.Int64
}

func (c *corrupting) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !strings.HasSuffix(r.URL.Path, "/_search") {
		c.next.ServeHTTP(w, r)
		return
	}
	rec := httptest.NewRecorder()
	c.next.ServeHTTP(rec, r)
	body := rec.Body.Bytes()
	if c.n.Add(1)%c.every == 0 {
		body = bytes.Replace(body, []byte(`"relation":"eq"`), []byte(`"relation":"gte"`), 1)
	}
	for k, v := range rec.Header() {
		if k != "Content-Length" {
			w.Header()[k] = v
		}
	}
	w.WriteHeader(rec.Code)
	w.Write(body)
}

// A target that fails every 10th response: the failures are counted by class, kept with their
// differences, never timed, and the run exits 1.
func TestRunCountsFailuresAndKeepsThemOutOfLatency(t *testing.T) {
	srv := httptest.NewServer(&corrupting{next: loadedEngine(t), every: 10})
	defer srv.Close()
	dir := t.TempDir()
	code, out, errOut := runCLI(t, smallRun, "run", "--target", "gw="+srv.URL, "--out", dir, "--ops", "page,counts", "--clients", "1,2")
	if code != exitFail {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	r := readResults(t, dir)
	if !r.Complete {
		t.Fatalf("incomplete: %s", r.Incomplete)
	}
	total := 0
	for _, c := range r.Cells {
		for _, tr := range c.Trials {
			if tr.Passed+tr.Failed != 40 {
				t.Errorf("%s/%d trial %d: %d passed + %d failed != 40 requests", c.Op, c.Clients, tr.Trial, tr.Passed, tr.Failed)
			}
			if tr.Failed > 0 && tr.FailuresByClass["totals"] != tr.Failed {
				t.Errorf("failures not classed as totals: %v", tr.FailuresByClass)
			}
		}
		total += c.Failed
	}
	// Warmup and readiness requests shift the counter, so about a tenth of the measured
	// responses fail: 320 measured, 32 of every 320 _search answers broken.
	if total < 25 || total > 40 {
		t.Errorf("%d failures, want about a tenth of 320", total)
	}
	if len(r.Failures) == 0 || r.Failures[0].Class != "totals" || len(r.Failures[0].Diffs) == 0 {
		t.Fatalf("no failure kept whole with its differences: %+v", r.Failures)
	}
	if !strings.Contains(r.Failures[0].Diffs[0].Path, "hits.total.relation") {
		t.Errorf("kept failure's difference: %+v", r.Failures[0].Diffs[0])
	}
	md, _ := os.ReadFile(filepath.Join(dir, report.MarkdownFile))
	if !strings.Contains(string(md), "hits.total.relation") {
		t.Error("report.md does not show the kept failure")
	}
}

// stopping serves until stop is closed, then closes every connection it gets.
type stopping struct {
	next    http.Handler
	stopped atomic.Bool
	after   int64
	n       atomic.Int64
}

func (s *stopping) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasSuffix(r.URL.Path, "/_search") && s.n.Add(1) > s.after {
		s.stopped.Store(true)
	}
	if s.stopped.Load() {
		hj, ok := w.(http.Hijacker)
		if ok {
			if c, _, err := hj.Hijack(); err == nil {
				c.Close()
				return
			}
		}
		w.WriteHeader(503)
		return
	}
	s.next.ServeHTTP(w, r)
}

// A target that stops mid-run: its failures are classified, the run ends with a clear error
// and exit 2, and results.json holds the finished trials, marked incomplete.
func TestRunTargetThatDies(t *testing.T) {
	h := &stopping{next: loadedEngine(t), after: 150}
	srv := httptest.NewServer(h)
	defer srv.Close()
	dir := t.TempDir()
	code, out, errOut := runCLI(t, smallRun, "run", "--target", "gw="+srv.URL, "--out", dir, "--ops", "page", "--clients", "1", "--trials", "6", "--timeout", "2s")
	if code != exitUsage {
		t.Fatalf("exit %d, want 2\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "partial results in "+dir) {
		t.Errorf("stderr does not point at the partial results: %s", errOut)
	}
	r := readResults(t, dir)
	if r.Complete || r.Incomplete == "" {
		t.Fatalf("results not marked incomplete: %+v", r.Incomplete)
	}
	c := r.Cell("gw", "page", 1)
	if c == nil || len(c.Trials) == 0 || c.Passed == 0 {
		t.Fatalf("the trials before the target died are not kept: %+v", c)
	}
	if c.FailuresByClass["transport"] == 0 {
		t.Errorf("the dying target's failures are not classed transport: %v", c.FailuresByClass)
	}
}

// Cancelling a run (Ctrl-C) leaves a valid results.json marked incomplete and exits non-zero.
func TestRunInterrupted(t *testing.T) {
	srv := httptest.NewServer(loadedEngine(t))
	defer srv.Close()
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	var once sync.Once
	// Cancel as soon as the first trial's results are written.
	go func() {
		for ctx.Err() == nil {
			if _, err := os.Stat(filepath.Join(dir, report.ResultsFile)); err == nil {
				once.Do(cancel)
				return
			}
			time.Sleep(2 * time.Millisecond)
		}
	}()
	var stdout, stderr bytes.Buffer
	e := &env{stdout: &stdout, stderr: &stderr, getenv: func(k string) string { return map[string]string{"REQUESTS": "400", "TRIALS": "5", "WARMUP": "2"}[k] }}
	code := conform(ctx, e, []string{"run", "--target", "gw=" + srv.URL, "--out", dir, "--ops", "page,after", "--clients", "1,2"})
	cancel()
	if code == exitOK {
		t.Fatalf("an interrupted run exited 0: %s", stderr.String())
	}
	r := readResults(t, dir)
	if r.Complete || !strings.Contains(r.Incomplete, "interrupted") {
		t.Fatalf("results.json not marked interrupted: complete %v, %q", r.Complete, r.Incomplete)
	}
	if len(r.Cells[0].Trials) == 0 {
		t.Error("the trial finished before the interruption is not in results.json")
	}
}

func TestRunUsageErrors(t *testing.T) {
	tests := []struct {
		env  map[string]string
		args []string
		want string
	}{
		{nil, []string{"run", "--ops", "mget"}, `--ops: the workload has no "mget" cases (its operations: get, page, after, terms, counts)`},
		{nil, []string{"run", "--clients", "0"}, `"0" is not a positive integer`},
		{nil, []string{"run", "--track-total-hits", "maybe"}, "track_total_hits must be"},
		{map[string]string{"REQUESTS": "lots"}, []string{"run"}, `$REQUESTS="lots" is not a non-negative integer`},
		{nil, []string{"run", "--requests", "4", "--clients", "8"}, "8 clients cannot share 4 requests"},
		{nil, []string{"run", "--relax", "everything"}, `unknown relaxation "everything"`},
		{nil, []string{"run", "--target", "gw=ftp://x"}, "--target"},
		{nil, []string{"run", "--collection", "c"}, "--collection needs --qdrant"},
		{nil, []string{"run", "--layer", "curl"}, `--layer: unknown layer "curl"`},
	}
	for _, tc := range tests {
		code, _, errOut := runCLI(t, tc.env, tc.args...)
		if code != exitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
}

// --qdrant: before timing, the gateway's backend must be healthy and hold the corpus; its probe
// (version, status, exact count, fingerprint) is recorded with the target. A collection that
// is not green is a finding: the run goes on, records it and exits 1; --require-ready refuses
// it. A backend that lost points keeps the run from starting.
func TestRunProbesQdrantBackend(t *testing.T) {
	dir, _ := smallFixturesDir(t)
	fq := loadtest.NewFakeQdrant()
	addr, err := fq.Start(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer fq.Close()
	if code, out, errOut := runConform(t, nil, "load", "--fixtures", dir, "--qdrant", addr, "--collection", "catalogue"); code != exitOK {
		t.Fatalf("loading the fake Qdrant: exit %d\n%s\n%s", code, out, errOut)
	}
	out := t.TempDir()
	env := map[string]string{"REQUESTS": "10", "TRIALS": "1", "WARMUP": "1"}
	code, stdout, stderr := runCLI(t, env, "run", "--fixtures", dir, "--qdrant", addr, "--collection", "catalogue",
		"--ops", "get", "--clients", "1", "--out", out)
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	r := readResults(t, out)
	q, ok := r.Targets[0].Probes["qdrant"].(map[string]any)
	if !ok || q["status"] != "green" || q["count"] != float64(300) {
		t.Fatalf("the Qdrant probe is not recorded: %#v", r.Targets[0].Probes["qdrant"])
	}
	man, _ := os.ReadFile(filepath.Join(out, report.ManifestFile))
	if !strings.Contains(string(man), `"version": "1.17.0"`) {
		t.Errorf("the manifest does not record Qdrant's version")
	}

	fq.DropPoints = 0
	fq.StatusOverride = 3 // red
	red := t.TempDir()
	code, stdout, stderr = runCLI(t, env, "run", "--fixtures", dir, "--qdrant", addr, "--collection", "catalogue", "--ops", "get", "--clients", "1", "--out", red)
	const finding = "qdrant collection catalogue is red, not green: an optimisation is running or pending"
	if code != exitFail || !strings.Contains(stderr, "embedded: FINDING "+finding) || !strings.Contains(stdout, "READINESS FINDINGS (1; the run went on; each finding fails it):") ||
		!strings.Contains(stderr, "conform: readiness made 1 finding (qdrant); every measured response passed") {
		t.Errorf("a red collection: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if r := readResults(t, red); len(r.Findings) != 1 || r.Findings[0].Summary != finding || r.TotalPassed() != 10 {
		t.Errorf("results.json: findings %+v, %d passed", r.Findings, r.TotalPassed())
	}
	for file, want := range map[string]string{
		report.MarkdownFile: "## Readiness findings\n\n1 finding: the run went on, and each fails it.\n\n- **embedded** qdrant: " + finding,
		report.HTMLFile:     "<h2>Readiness findings</h2>",
		report.ManifestFile: `"summary": "` + finding + `"`,
	} {
		if b, _ := os.ReadFile(filepath.Join(red, file)); !strings.Contains(string(b), want) {
			t.Errorf("%s does not hold the finding (%q)", file, want)
		}
	}
	code, _, stderr = runCLI(t, env, "run", "--fixtures", dir, "--qdrant", addr, "--collection", "catalogue", "--ops", "get", "--clients", "1", "--out", t.TempDir(), "--require-ready")
	if code != exitUsage || !strings.Contains(stderr, "target embedded is not ready: 1 finding refused at readiness (--require-ready): "+finding) {
		t.Errorf("a red collection, --require-ready: exit %d, %q", code, stderr)
	}
	fq.StatusOverride = 0
	fq.DropPoints = 1
	if code, out, errOut := runConform(t, nil, "load", "--fixtures", dir, "--qdrant", addr, "--collection", "catalogue", "--recreate"); code != exitFail {
		t.Fatalf("reloading the fake Qdrant one point short: exit %d\n%s\n%s", code, out, errOut)
	}
	code, _, stderr = runCLI(t, env, "run", "--fixtures", dir, "--qdrant", addr, "--collection", "catalogue", "--ops", "get", "--clients", "1", "--out", t.TempDir())
	if code != exitUsage || !strings.Contains(stderr, "qdrant collection catalogue does not hold the corpus: 299 points, the corpus 300 documents") {
		t.Errorf("a collection that lost a point: exit %d, %q", code, stderr)
	}
}

// A target that does not hold the corpus is refused before anything is timed, and the out
// directory still says why: results.json marked incomplete with the reason, and the reports.
func TestRunRefusesATargetWithoutTheCorpus(t *testing.T) {
	f := fixtures.Default()
	eng := engine.New()
	if err := eng.Load(f.Workload.Index, f.Mapping, f.Docs); err != nil {
		t.Fatal(err)
	}
	del := fmt.Sprintf("{\"delete\":{\"_index\":%q,\"_id\":%q}}\n", f.Workload.Index, f.Docs[0].ID)
	if st, b := eng.Do("POST", "/_bulk?refresh=true", []byte(del)); st != 200 {
		t.Fatalf("deleting a document: %d %s", st, b)
	}
	srv := httptest.NewServer(eng)
	defer srv.Close()
	dir := t.TempDir()
	code, _, errOut := runCLI(t, smallRun, "run", "--target", "gw="+srv.URL, "--out", dir, "--ops", "get", "--clients", "1")
	if code != exitUsage || !strings.Contains(errOut, "target gw is not ready") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	r := readResults(t, dir)
	if r.Complete || !strings.Contains(r.Incomplete, "index catalogue holds 9999 documents, the corpus 10000") || r.TotalPassed() != 0 {
		t.Errorf("results: complete %v, incomplete %q, %d passed", r.Complete, r.Incomplete, r.TotalPassed())
	}
	if md, _ := os.ReadFile(filepath.Join(dir, report.MarkdownFile)); !strings.Contains(string(md), "Nothing was measured.") {
		t.Errorf("report.md does not say nothing was measured:\n%s", md)
	}
}

// corruptingProxy is a reverse proxy in front of next that corrupts every search's answer:
// hits.total.value one more than the engine's and, with ids, every hit's _id too. It is the
// shape of a gateway bug that fails every search response, one class or two at once.
func corruptingProxy(t *testing.T, next http.Handler, ids bool) *httptest.Server {
	t.Helper()
	upstream := httptest.NewServer(next)
	t.Cleanup(upstream.Close)
	u, err := url.Parse(upstream.URL)
	if err != nil {
		t.Fatal(err)
	}
	total := regexp.MustCompile(`"total":\{"value":(\d+)`)
	id := regexp.MustCompile(`"_id":"[^"]*"`)
	p := httputil.NewSingleHostReverseProxy(u)
	p.ModifyResponse = func(r *http.Response) error {
		if !strings.HasSuffix(r.Request.URL.Path, "/_search") {
			return nil
		}
		body, err := io.ReadAll(r.Body)
		r.Body.Close()
		if err != nil {
			return err
		}
		body = total.ReplaceAllFunc(body, func(m []byte) []byte {
			n, _ := strconv.Atoi(string(total.FindSubmatch(m)[1]))
			return []byte(`"total":{"value":` + strconv.Itoa(n+1))
		})
		if ids {
			body = id.ReplaceAll(body, []byte(`"_id":"corrupt"`))
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		r.Header.Set("Content-Length", strconv.Itoa(len(body)))
		return nil
	}
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	return srv
}

// A proxy that corrupts every search's hits.total (and its hits' _id): every search response
// fails. The counts are of responses, one number everywhere (stdout, stderr, report.md,
// report.html, results.json), a response failing ids and totals counted once among the
// failed and once under each class; the cells with no passing response have no latency (null,
// "– (80 failed)", no dot in the chart); and compare never calls them no-change.
func TestRunEverySearchFails(t *testing.T) {
	srv := corruptingProxy(t, loadedEngine(t), true)
	dir := t.TempDir()
	code, out, errOut := runCLI(t, smallRun, "run", "--target", "gw="+srv.URL, "--out", dir, "--ops", "get,page,counts", "--clients", "1,2")
	if code != exitFail {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	r := readResults(t, dir)
	for _, c := range r.Cells {
		if c.Op == "get" {
			if c.Passed != 80 || c.Failed != 0 || !c.HasLatency() {
				t.Errorf("get/%d: %d passed, %d failed, p50 %v; reads pass through the proxy untouched", c.Clients, c.Passed, c.Failed, c.MedianP50Ms)
			}
			continue
		}
		want := map[string]int{"ids": 80, "totals": 80}
		if c.Op == "counts" {
			want = map[string]int{"totals": 80} // size 0: no hits to carry an _id
		}
		if c.Passed != 0 || c.Failed != 80 || !maps.Equal(c.FailuresByClass, want) {
			t.Errorf("%s/%d: %d passed, %d failed %v; want 0 passed, 80 failed %v", c.Op, c.Clients, c.Passed, c.Failed, c.FailuresByClass, want)
		}
		if c.HasLatency() || c.MedianP95Ms != nil || c.P50RangeMs != nil {
			t.Errorf("%s/%d: a cell with no passing response has latencies %v %v %v", c.Op, c.Clients, c.MedianP50Ms, c.MedianP95Ms, c.P50RangeMs)
		}
		for _, tr := range c.Trials {
			if tr.P50Ms != nil || tr.Passed+tr.Failed != 40 {
				t.Errorf("%s/%d trial %d: p50 %v, %d passed + %d failed", c.Op, c.Clients, tr.Trial, tr.P50Ms, tr.Passed, tr.Failed)
			}
		}
	}
	raw, _ := os.ReadFile(filepath.Join(dir, report.ResultsFile))
	if n := strings.Count(string(raw), `"median_p50_ms": null`); n != 4 {
		t.Errorf("results.json has %d null median_p50_ms, want 4 (page and counts at 1 and 2 clients)", n)
	}

	// One sentence of counts, the same on stdout, on stderr and in both reports: 480
	// measured, 160 passed (the reads), 320 failed; the classes beside sum to more.
	counts := "480 measured responses: 160 passed and were timed, 320 failed the check (by class, a response once under each class it failed: ids 160, totals 320)"
	md, _ := os.ReadFile(filepath.Join(dir, report.MarkdownFile))
	html, _ := os.ReadFile(filepath.Join(dir, report.HTMLFile))
	for where, text := range map[string]string{"stdout": out, "stderr": errOut, "report.md": string(md), "report.html": string(html)} {
		if !strings.Contains(text, counts) {
			t.Errorf("%s does not say %q:\n%s", where, counts, text)
		}
	}
	if !strings.Contains(out, "Filtered, sorted page     – (80 failed) / – (80 failed)") || strings.Contains(out, "0.000") {
		t.Errorf("stdout's table does not show the failed cells as – (80 failed):\n%s", out)
	}
	if !strings.Contains(string(md), "| Two filter counts | – (80 failed) / – (80 failed) |") ||
		!strings.Contains(string(md), "| Two filter counts | 80 (totals 80) / 80 (totals 80) |") {
		t.Errorf("report.md does not show the failed cells:\n%s", md)
	}
	if n := strings.Count(string(html), "no passing response (80 failed)"); n != 4 {
		t.Errorf("report.html marks %d failed cells in its chart, want 4", n)
	}
	if strings.Contains(string(html), ">trial 1: 0.000 ms<") {
		t.Error("report.html draws a trial with no passing response at 0")
	}

	// A clean run of the same settings against it: every search cell is classed failures.
	clean := t.TempDir()
	if code, out, errOut := runCLI(t, smallRun, "run", "--target", "gw="+httptest.NewServer(loadedEngine(t)).URL, "--out", clean, "--ops", "get,page,counts", "--clients", "1,2"); code != exitOK {
		t.Fatalf("clean run: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = runCLI(t, nil, "compare", filepath.Join(clean, report.ResultsFile), filepath.Join(dir, report.ResultsFile))
	if code != exitFail || strings.Count(out, "✗ failures") != 4 || !strings.Contains(errOut, "4 cells had responses that failed the check") {
		t.Errorf("compare of a clean run with this one: exit %d, want 1 with the 4 search cells classed failures\n%s\n%s", code, out, errOut)
	}
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/conform-dev/conform/conformance/report"
)

// fakeRun writes a results.json with one target whose trial p50s in every cell are p50s.
func fakeRun(t *testing.T, dir, name string, p50s []float64, mutate func(*report.Results)) string {
	t.Helper()
	r := &report.Results{Format: report.ResultsFormat, Complete: true, Methodology: "conform-closed-loop/1",
		Settings: report.Settings{Ops: []string{"get", "page"}, Clients: []int{1, 8}, Requests: 200, Trials: len(p50s), Warmup: 40,
			TrackTotalHits: "true", Timeout: "10s", Index: "catalogue", Check: []string{"strict"}},
		Fixtures: report.Fixtures{CorpusSHA256: "c", MappingSHA256: "m", WorkloadSHA256: "w"},
		Oracle:   report.Oracle{Source: "embedded", SHA256: "o"},
		Targets:  []report.Target{{Name: name}}}
	for _, op := range r.Settings.Ops {
		for _, n := range r.Settings.Clients {
			c := report.Cell{Target: name, Op: op, Clients: n}
			for i, p := range p50s {
				c.Trials = append(c.Trials, report.Trial{Trial: i + 1, P50Ms: report.Millis(p * float64(n)), Passed: 200})
			}
			r.Cells = append(r.Cells, c)
		}
	}
	if mutate != nil {
		mutate(r)
	}
	path := filepath.Join(dir, name+".json")
	data, _ := report.MarshalJSON(r)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCompare(t *testing.T) {
	dir := t.TempDir()
	a := fakeRun(t, dir, "gw", []float64{0.30, 0.31, 0.29, 0.30, 0.305, 0.295}, nil)
	same := fakeRun(t, dir, "gw2", []float64{0.30, 0.302, 0.298, 0.301, 0.299, 0.30}, nil)
	slower := fakeRun(t, dir, "gw3", []float64{0.45, 0.46, 0.44, 0.455, 0.445, 0.45}, nil)

	code, out, errOut := runCLI(t, nil, "compare", a, same)
	if code != exitOK || !strings.Contains(out, "Read one document") {
		t.Fatalf("same runs: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, _ = runCLI(t, nil, "compare", a, slower)
	if code != exitFail || !strings.Contains(out, "regressed") || !strings.Contains(out, "1.500") {
		t.Fatalf("a 50%% slower run: exit %d\n%s", code, out)
	}
	if !strings.Contains(out, "warning:") {
		t.Error("compare does not state that the trials are the only replication")
	}
}

func TestCompareRefusesDifferentRuns(t *testing.T) {
	dir := t.TempDir()
	a := fakeRun(t, dir, "a", []float64{0.3, 0.3, 0.3}, nil)
	tests := []struct {
		name   string
		mutate func(*report.Results)
		field  string
	}{
		{"m1", func(r *report.Results) { r.Methodology = "other/2" }, "methodology"},
		{"m2", func(r *report.Results) { r.Fixtures.CorpusSHA256 = "x" }, "fixtures.corpus_sha256"},
		{"m3", func(r *report.Results) { r.Fixtures.WorkloadSHA256 = "x" }, "fixtures.workload_sha256"},
		{"m4", func(r *report.Results) { r.Oracle.SHA256 = "x" }, "oracle.sha256"},
		{"m5", func(r *report.Results) { r.Settings.TrackTotalHits = "false" }, "settings.track_total_hits"},
		{"m6", func(r *report.Results) { r.Settings.Requests = 100 }, "settings.requests"},
		{"m7", func(r *report.Results) { r.Settings.Check = []string{"pedantic"} }, "settings.check"},
	}
	for _, tc := range tests {
		b := fakeRun(t, dir, tc.name, []float64{0.3, 0.3, 0.3}, tc.mutate)
		code, _, errOut := runCLI(t, nil, "compare", a, b)
		if code != exitUsage || !strings.Contains(errOut, tc.field) {
			t.Errorf("%s: exit %d, %q; want a refusal naming %s", tc.name, code, errOut, tc.field)
		}
		if code, _, errOut := runCLI(t, nil, "compare", a, b, "--force"); code == exitUsage || !strings.Contains(errOut, "warning: runs differ: "+tc.field) {
			t.Errorf("%s --force: exit %d, %q", tc.name, code, errOut)
		}
	}
	if code, _, errOut := runCLI(t, nil, "compare", a, filepath.Join(dir, "missing.json")); code != exitUsage || !strings.Contains(errOut, "missing.json") {
		t.Errorf("missing file: exit %d %q", code, errOut)
	}
}

// A run in which responses failed the check is never compared as no-change: every cell with
// a failed response (measured, warmup or the readiness case) is classed failures, and compare
// exits 1.
func TestCompareFlagsFailures(t *testing.T) {
	dir := t.TempDir()
	p50s := []float64{0.30, 0.31, 0.29, 0.30, 0.305, 0.295}
	clean := fakeRun(t, dir, "gw", p50s, nil)
	allFailed := fakeRun(t, dir, "gw-broken", p50s, func(r *report.Results) {
		for i := range r.Cells {
			c := &r.Cells[i]
			c.Failed, c.FailuresByClass = 200*len(c.Trials), map[string]int{"totals": 200 * len(c.Trials)}
			for j := range c.Trials {
				c.Trials[j].P50Ms, c.Trials[j].Passed, c.Trials[j].Failed = nil, 0, 200
			}
		}
	})
	code, out, errOut := runCLI(t, nil, "compare", clean, allFailed)
	if code != exitFail || strings.Contains(out, "no-change") || strings.Count(out, "✗ failures") != 4 {
		t.Fatalf("a clean run against one where every response failed: exit %d, want 1 with 4 cells classed failures and none no-change\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(out, "measured, warmup and readiness: 0 in A, 1200 in B") || !strings.Contains(errOut, "4 cells had responses that failed the check") {
		t.Errorf("the failure counts are not said:\n%s\n%s", out, errOut)
	}

	// One cell's warmup failures and another's readiness case are failures too; the other
	// cells compare as usual.
	someFailed := fakeRun(t, dir, "gw-some", p50s, func(r *report.Results) {
		r.Cells[0].Trials[0].WarmupFailed = 1
		r.Failures = append(r.Failures, report.Failure{Target: "gw-some", Op: "page", Clients: 8, Phase: report.PhaseReadiness, Class: "ids"})
	})
	code, out, errOut = runCLI(t, nil, "compare", clean, someFailed)
	if code != exitFail || strings.Count(out, "✗ failures") != 2 || strings.Count(out, "? undecided") != 2 || !strings.Contains(errOut, "2 cells had") {
		t.Fatalf("warmup and readiness failures: exit %d, want 1 with 2 cells classed failures and 2 undecided (3 trials a side cannot show a cell within 2%%)\n%s\n%s", code, out, errOut)
	}
}

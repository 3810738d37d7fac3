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

package main

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/conform-dev/conform/conformance/report"
)

// smallExperiment runs a four-round experiment on three embedded engines (baseline,
// candidate, native es) with extra flags; native may replace the native's handler.
func smallExperiment(t *testing.T, native http.Handler, extra ...string) (code int, dir, out, errOut string) {
	t.Helper()
	base := httptest.NewServer(loadedEngine(t))
	defer base.Close()
	cand := httptest.NewServer(loadedEngine(t))
	defer cand.Close()
	if native == nil {
		native = loadedEngine(t)
	}
	nat := httptest.NewServer(native)
	defer nat.Close()
	dir = t.TempDir()
	args := append([]string{"experiment", "--baseline", "a=" + base.URL, "--candidate", "b=" + cand.URL,
		"--native", "es=" + nat.URL, "--ops", "get,counts", "--clients", "1", "--out", dir, "--no-progress"}, extra...)
	code, out, errOut = runCLI(t, experimentEnv, args...)
	return code, dir, out, errOut
}

func readManifest(t *testing.T, dir string) report.Manifest {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, report.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	var m report.Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// The warm-up's rule is on the measurements, so the test sets tolerances that decide it
// whatever the timing: an impossible agreement within two passes reaches the cap, an
// agreement any positive p50s meet is steady at the fourth pass.
func TestExperimentWarmUp(t *testing.T) {
	code, dir, out, errOut := smallExperiment(t, nil, "--warm-max", "2")
	if code == exitUsage {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	m := readManifest(t, dir)
	if len(m.WarmUps) != 1 || m.WarmUps[0].BeforeRound != 1 || len(m.WarmUps[0].Targets) != 3 {
		t.Fatalf("manifest warm-ups %+v, want one before round 1 over a, b and es", m.WarmUps)
	}
	for _, wt := range m.WarmUps[0].Targets {
		if !wt.CapReached || wt.Steady || len(wt.P50Ms) != 2 || len(wt.Cells) != 2 || len(wt.Cells[0].P50Ms) != 2 {
			t.Errorf("%s: %+v, want the cap reached after 2 passes with a curve per cell", wt.Name, wt)
		}
	}
	if !strings.Contains(errOut, "warm-up pass 2 of at most 2") || !strings.Contains(errOut, "the cap of 2 passes was reached with a, b, es not steady") {
		t.Errorf("stderr does not tell the warm-up:\n%s", errOut)
	}
	html, _ := os.ReadFile(filepath.Join(dir, report.HTMLFile))
	if !strings.Contains(string(html), "Warm-up before round 1") || !strings.Contains(string(html), "<polyline") {
		t.Errorf("report.html does not draw the warm-up curve")
	}
	md, _ := os.ReadFile(filepath.Join(dir, report.MarkdownFile))
	if !strings.Contains(string(md), "was not steady after the cap of 2 passes") || !strings.Contains(string(md), "## Natives' drift across rounds") {
		t.Errorf("report.md does not warn about the unsteady warm-up or show the natives' drift:\n%s", md)
	}

	code, dir, out, errOut = smallExperiment(t, nil, "--warm-max", "10", "--warm-tolerance", "100")
	if code == exitUsage {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, wt := range readManifest(t, dir).WarmUps[0].Targets {
		if !wt.Steady || wt.SteadyAt != 4 || wt.CapReached || len(wt.P50Ms) != 4 {
			t.Errorf("%s: %+v, want steady at pass 4", wt.Name, wt)
		}
	}
}

// A native that dies in the second round leaves an incomplete experiment: verdict
// "incomplete" in the terminal, report.md's title and verdict.json, the measured count
// below the planned one, exit 2.
func TestExperimentIncompleteWhenANativeDies(t *testing.T) {
	eng := loadedEngine(t)
	var served atomic.Int64
	// Each round sends the native 2 cells x 3 trials x (60 + 5 warmup) requests plus the
	// readiness checks; die after a round and a half.
	dying := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if served.Add(1) > 600 {
			panic(http.ErrAbortHandler)
		}
		eng.ServeHTTP(w, r)
	})
	code, dir, out, errOut := smallExperiment(t, dying, "--warm-max", "0")
	if code != exitUsage {
		t.Fatalf("exit %d, want 2\n%s\n%s", code, out, errOut)
	}
	v := readVerdict(t, dir)
	if v.Verdict != "incomplete" || v.Complete || v.MeasuredResponses >= v.PlannedResponses || v.MeasuredResponses == 0 {
		t.Errorf("verdict %s complete %v, measured %d of %d planned; want incomplete with the measured count", v.Verdict, v.Complete, v.MeasuredResponses, v.PlannedResponses)
	}
	if !strings.Contains(out, "verdict: incomplete") || strings.Contains(out, "NaN") {
		t.Errorf("terminal output does not say incomplete, or prints NaN:\n%s", out)
	}
	md, _ := os.ReadFile(filepath.Join(dir, report.MarkdownFile))
	if !strings.HasPrefix(string(md), "# INCOMPLETE: 2 of 12 rounds finished, nothing decided: round 2 (b): target es") {
		t.Errorf("report.md title: %.80s", md)
	}
}

// Waiting for readiness says what it waits for, at once, rather than being silent until
// --ready-timeout.
func TestExperimentSaysWhatItWaitsFor(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	code, _, _, errOut := smallExperiment(t, nil, "--native", "gone=http://"+closed, "--ready-timeout", "1s", "--warm-max", "0")
	if code != exitUsage {
		t.Errorf("exit %d, want 2", code)
	}
	if !strings.Contains(errOut, "waiting up to 1s for a, es, gone to be ready") || !strings.Contains(errOut, "target gone not ready") {
		t.Errorf("stderr does not say what it waits for:\n%s", errOut)
	}
}

// A sequential experiment looks after every ABBA block, says so, and states its looks and
// alpha in the method line; it runs at most --max-rounds.
func TestExperimentSequential(t *testing.T) {
	code, dir, out, errOut := smallExperiment(t, nil, "--sequential", "--max-rounds", "8", "--warm-max", "0")
	if code == exitUsage {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "look 1 of at most 2 (alpha 0.0") {
		t.Errorf("stderr does not tell the first look:\n%s", errOut)
	}
	v := readVerdict(t, dir)
	if n := len(v.Rounds); n != 4 && n != 8 {
		t.Errorf("%d rounds, want 4 or 8", n)
	}
	if !strings.Contains(v.Method, "sequential: looks after every ABBA block up to 8 rounds") || v.PlannedResponses != 8*2*2*1*1*60 {
		t.Errorf("method %q, planned %d", v.Method, v.PlannedResponses)
	}
}

// A dry run with a pilot measures the baseline and the natives for two rounds, writes
// nothing, and projects the plan's power from their noise.
func TestExperimentDryRunPilot(t *testing.T) {
	code, dir, out, errOut := smallExperiment(t, nil, "--dry-run", "--pilot", "2", "--warm-max", "0", "--rounds", "8")
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"Power, from a pilot of 2 rounds (2 targets, 2 cells, 2 rounds)", "with 8 rounds of 1 trial(s), 1 native(s), 2 cells", "the smallest change a cell can declare:"} {
		if !strings.Contains(out, want) {
			t.Errorf("pilot output lacks %q:\n%s", want, out)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a dry run wrote %d files into --out", len(entries))
	}
}

package report

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/conform-dev/conform/conformance/experiment"
)

func TestRunSummaryGolden(t *testing.T) {
	var b bytes.Buffer
	RunSummary(&b, sample(), "results/x")
	golden(t, "run-summary.txt", b.Bytes())
}

func TestClientsLabel(t *testing.T) {
	for _, tc := range []struct {
		cs   []int
		want string
	}{
		{[]int{1}, "1 client"},
		{[]int{1, 8}, "1 client / 8 clients"},
		{[]int{4}, "4 clients"},
		{nil, ""},
	} {
		if got := ClientsLabel(tc.cs); got != tc.want {
			t.Errorf("ClientsLabel(%v) = %q, want %q", tc.cs, got, tc.want)
		}
	}
}

func TestTrialRecords(t *testing.T) {
	recs := TrialRecords(sample())
	if len(recs) != 2*2*2*3 || recs[0].Target != "es" || recs[0].Op != "get" || recs[0].Clients != 1 || recs[0].Trial.Trial != 1 {
		t.Errorf("%d records, the first %+v; want 24, es get 1 client trial 1 first", len(recs), recs[0])
	}
}

// Incomparable names each field that forbids combining two runs.
func TestIncomparable(t *testing.T) {
	for _, tc := range []struct {
		why    string
		mutate func(*Results)
		want   []string
	}{
		{"the same run", func(*Results) {}, nil},
		{"another corpus", func(r *Results) { r.Fixtures.CorpusSHA256 = "c1" }, []string{`fixtures.corpus_sha256: "c0" vs "c1"`}},
		{"a long hash is cut", func(r *Results) { r.Oracle.SHA256 = "0123456789abcdef0123" }, []string{`oracle.sha256: "o0" vs 0123456789ab…`}},
		{"other clients", func(r *Results) { r.Settings.Clients = []int{1} }, []string{"settings.clients: [1 8] vs [1]"}},
		{"another layer", func(r *Results) { r.Settings.Layer = "net/http" }, []string{`settings.layer: "lean" vs "net/http"`}},
		{"an incomplete run", func(r *Results) { r.Complete, r.Incomplete = false, "interrupted" }, []string{"run B is incomplete: interrupted"}},
	} {
		b := sample()
		tc.mutate(b)
		if got := Incomparable(sample(), b); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.why, got, tc.want)
		}
	}
}

func TestTrialP50s(t *testing.T) {
	r := sample()
	r.Cells[0].Trials[1].Passed, r.Cells[0].Trials[1].P50Ms = 0, nil // a trial with no passing response has no p50
	m := r.TrialP50s("es")
	if len(m) != 4 {
		t.Fatalf("%d cells, want 4", len(m))
	}
	got := m[experiment.CellKey{Op: "get", Clients: 1}]
	if len(got) != 2 || got[0] != time.Duration(*r.Cells[0].Trials[0].P50Ms*float64(time.Millisecond)) {
		t.Errorf("get at 1 client: %v, want the p50s of trials 1 and 3", got)
	}
	if len(r.TrialP50s("nobody")) != 0 {
		t.Error("a target not in the run has cells")
	}
}

func TestPairTargets(t *testing.T) {
	run := func(names ...string) *Results {
		r := &Results{}
		for _, n := range names {
			r.Targets = append(r.Targets, Target{Name: n})
		}
		return r
	}
	for _, tc := range []struct {
		why          string
		a, b         *Results
		nameA, nameB string
		want         [][2]string
		wantErr      string
	}{
		{"one target each, whatever their names", run("gw"), run("es"), "", "", [][2]string{{"gw", "es"}}, ""},
		{"shared names pair up in A's order", run("es", "gw", "os"), run("gw", "es"), "", "", [][2]string{{"es", "es"}, {"gw", "gw"}}, ""},
		{"no shared name is no pairs, not an error", run("a1", "a2"), run("b1"), "", "", nil, ""},
		{"named targets win over shared names", run("es", "gw"), run("es", "gw"), "gw", "es", [][2]string{{"gw", "es"}}, ""},
		{"a name missing from A lists A's targets", run("es", "gw"), run("gw"), "os", "gw", nil, `run A has no target "os" (it has es, gw)`},
		{"a name missing from B lists B's targets", run("gw"), run("es", "gw"), "gw", "os", nil, `run B has no target "os" (it has es, gw)`},
		{"one name alone", run("gw"), run("gw"), "gw", "", nil, "name a target of both runs or of neither"},
	} {
		got, err := PairTargets(tc.a, tc.b, tc.nameA, tc.nameB)
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if gotErr != tc.wantErr || !slices.Equal(got, tc.want) {
			t.Errorf("%s: PairTargets = %q, %q; want %q, %q", tc.why, got, gotErr, tc.want, tc.wantErr)
		}
	}
}

// failing is sample() after a run went wrong: gateway's terms cells failed every response,
// one response of its get cell at 8 clients failed two classes, the run was interrupted in
// trial 3 of gateway's get at 8 clients (cut short), and es's terms cell at 8 clients was
// never measured.
func failing() *Results {
	r := sample()
	r.Complete, r.Incomplete = false, "interrupted (Ctrl-C)"
	var cells []Cell
	for _, c := range r.Cells {
		switch {
		case c.Target == "es" && c.Op == "terms" && c.Clients == 8:
			continue
		case c.Target == "gateway" && c.Op == "terms":
			c.MedianP50Ms, c.MedianP95Ms, c.P50RangeMs, c.Histogram = nil, nil, nil, nil
			c.Passed, c.Failed, c.FailuresByClass = 0, 600, map[string]int{"status": 600, "error": 600}
			c.MedianThroughputRPS = 0
			for i := range c.Trials {
				t := &c.Trials[i]
				t.P50Ms, t.P95Ms, t.P99Ms, t.MeanMs, t.MaxMs = nil, nil, nil, nil, nil
				t.Passed, t.Failed, t.FailuresByClass, t.ThroughputRPS = 0, 200, map[string]int{"status": 200, "error": 200}, 0
			}
		case c.Target == "gateway" && c.Op == "get" && c.Clients == 8:
			c.Trials[2].Incomplete, c.Trials[2].Passed = true, 57
			c.Trials[1].Passed, c.Trials[1].Failed, c.Trials[1].FailuresByClass = 199, 1, map[string]int{"ids": 1, "sources": 1}
			c.Passed, c.Failed, c.FailuresByClass = 456, 1, map[string]int{"ids": 1, "sources": 1}
		}
		cells = append(cells, c)
	}
	r.Cells = cells
	r.Failures = []Failure{{Target: "gateway", Op: "terms", Clients: 1, Trial: 1, Phase: PhaseTrial, Case: "terms/000", Class: "status",
		Method: "POST", Path: "/catalogue/_search", Status: 502,
		Diffs: []Difference{{Class: "status", Want: "200", Got: "502", Fails: true}, {Class: "error", Path: "error", Want: "<absent>", Got: `"bad gateway"`, Fails: true}}}}
	return r
}

// A run gone wrong, as the terminal, report.md and report.html show it: no latency where no
// response passed, "–" where nothing was measured, the passing responses a figure rests on,
// one count of responses with the classes beside, and a header that says a trial was cut
// short.
func TestFailingRunGolden(t *testing.T) {
	var b bytes.Buffer
	RunSummary(&b, failing(), "results/x")
	golden(t, "run-summary-failing.txt", b.Bytes())
	golden(t, "report-failing.md", Markdown(failing()))
	html := string(HTML(failing()))
	for _, want := range []string{
		"<td>Keyword terms buckets</td><td>0.400 / –</td><td>– (600 failed) / – (600 failed)</td>",
		"no passing response (600 failed)", "not measured",
		"<li>4057 measured responses: 2856 passed and were timed, 1201 failed the check (by class, a response once under each class it failed: error 1200, ids 1, sources 1, status 1200)</li>",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if strings.Contains(html, "0.000") {
		t.Error("report.html shows a latency of 0.000 ms")
	}
}

func TestTrialsPhrase(t *testing.T) {
	for _, tc := range []struct {
		why    string
		mutate func(*Results)
		want   string
	}{
		{"every cell ran the planned trials", func(*Results) {}, "3 trials"},
		{"one trial planned", func(r *Results) {
			r.Settings.Trials = 1
			for i := range r.Cells {
				r.Cells[i].Trials = r.Cells[i].Trials[:1]
			}
		}, "1 trial"},
		{"a trial cut short", func(r *Results) { r.Cells[3].Trials[2].Incomplete = true }, "3 trials per cell, one cut short"},
		{"the run stopped between trials", func(r *Results) { r.Cells[0].Trials = r.Cells[0].Trials[:1] }, "1 to 3 trials per cell"},
		{"nothing measured", func(r *Results) { r.Cells = nil }, "no trials"},
	} {
		r := sample()
		tc.mutate(r)
		if got := TrialsPhrase(r); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.why, got, tc.want)
		}
	}
}

// The count sentence agrees with itself: measured = passed + failed, the classes beside,
// warmup and readiness apart, grammar for one.
func TestCountsSentence(t *testing.T) {
	for _, tc := range []struct {
		n    Counts
		want string
	}{
		{Counts{Measured: 200, Passed: 200}, "200 measured responses: 200 passed and were timed, 0 failed the check"},
		{Counts{Measured: 1, Passed: 1}, "1 measured response: 1 passed and was timed, 0 failed the check"},
		{Counts{Measured: 600, Passed: 564, Failed: 36, ByClass: map[string]int{"ids": 36, "totals": 36}, WarmupFailed: 1, ReadinessFailed: 1},
			"600 measured responses: 564 passed and were timed, 36 failed the check (by class, a response once under each class it failed: ids 36, totals 36); 1 warmup response and the readiness case failed too (checked, never timed)"},
		{Counts{Measured: 10, Failed: 10, ByClass: map[string]int{"timeout": 10}}, "10 measured responses: 0 passed and were timed, 10 failed the check (timeout 10)"},
		{Counts{ReadinessFailed: 1}, "no response was measured; the readiness case failed too (checked, never timed)"},
	} {
		if got := tc.n.Sentence(); got != tc.want {
			t.Errorf("%+v:\n got %q\nwant %q", tc.n, got, tc.want)
		}
	}
}

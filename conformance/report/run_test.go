package report

import (
	"bytes"
	"slices"
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

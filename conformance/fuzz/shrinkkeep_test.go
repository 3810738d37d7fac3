package fuzz

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/conform-dev/conform/conformance"
	"github.com/conform-dev/conform/internal/aggfault"
)

func TestSignatureCanonical(t *testing.T) {
	agg, ids := conformance.ClassAggregations, conformance.ClassIDs
	tests := []struct {
		why  string
		a, b Signature
		same bool
	}{
		{"a short page and a wrong id are the same hits", Signature{ids, "hits.hits"}, Signature{ids, "hits.hits[]._id"}, true},
		{"a filters bucket's count becomes the filter's", Signature{agg, "aggregations.*.buckets.*.doc_count"}, Signature{agg, "aggregations.*.doc_count"}, true},
		{"a sub-aggregation's value hoisted", Signature{agg, "aggregations.*.buckets[].m.value"}, Signature{agg, "aggregations.*.value"}, true},
		{"sum_other_doc_count is not doc_count", Signature{agg, "aggregations.*.sum_other_doc_count"}, Signature{agg, "aggregations.*.doc_count"}, false},
		{"the empty aggregations object is not a count", Signature{agg, "aggregations.*.doc_count"}, Signature{agg, "aggregations"}, false},
		{"a metric's value is not a bucket count", Signature{agg, "aggregations.*.value"}, Signature{agg, "aggregations.*.buckets"}, false},
		{"other classes keep their path", Signature{conformance.ClassTotals, "hits.total.value"}, Signature{conformance.ClassTotals, "hits.total.relation"}, false},
		{"the class counts", Signature{agg, "aggregations.*.value"}, Signature{conformance.ClassSort, "aggregations.*.value"}, false},
	}
	for _, tt := range tests {
		if got := tt.a.Canonical() == tt.b.Canonical() && tt.a.Class == tt.b.Class; got != tt.same {
			t.Errorf("%s: %s and %s the same: %v, want %v", tt.why, tt.a.Canonical(), tt.b.Canonical(), got, tt.same)
		}
		res := conformance.Result{Diffs: []conformance.Difference{{Class: tt.b.Class, Path: strings.ReplaceAll(tt.b.Path, "*", "a0"), Fails: true}}}
		if got := tt.a.ShownIn(res); got != tt.same {
			t.Errorf("%s: %s shown in a result failing at %s: %v, want %v", tt.why, tt.a, res.Diffs[0].Path, got, tt.same)
		}
	}
}

// A gateway with three aggregation bugs (a filter aggregation counting only the page, a max
// over the page only, sum_other_doc_count always 0) and a trivial one ("aggregations": {} for
// "aggs": {}), over HTTP: shrinking used to keep any smaller request that still differed in
// the aggregations class, so every reproducer became {"size":0,"aggs":{}}, showing only the
// trivial difference. Each reproducer must show the difference it was found with.
func TestShrinkKeepsTheOriginalDifference(t *testing.T) {
	e, f := defaultEngine(t)
	backend := httptest.NewServer(e)
	defer backend.Close()
	proxy := httptest.NewServer(aggfault.New(backend.URL, aggfault.All))
	defer proxy.Close()
	rep, err := Run(context.Background(), Config{Gen: defaultGenerator(t, 1), OracleIndex: f.Workload.Index, TargetIndex: f.Workload.Index,
		Oracle: EngineDoer(e), Target: httpDoer(proxy.URL), N: 300, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Disagreements < 40 {
		t.Fatalf("only %d disagreements in %d requests", rep.Disagreements, rep.Requests)
	}
	shown := map[string]bool{}
	total := 0
	for _, g := range rep.Groups {
		total += len(g.Seqs)
		d := g.Repro
		body := string(Marshal(d.Minimal.Body))
		if !d.Signature.ShownIn(d.Result) {
			t.Errorf("group %s: the reproducer %s does not show its own difference %s:\n%s", g.Name, body, d.Signature, d.Result)
		}
		if strings.Contains(body, `"aggs":{}`) {
			t.Errorf("group %s shrank to no aggregation: %s", g.Name, body)
		}
		for _, dd := range d.Result.Diffs {
			if dd.Fails {
				shown[normalize(dd.Path)] = true
			}
		}
		// Each field set of a merged group is its own reproducer of the same difference.
		n, unc := 0, 0
		for _, fg := range g.Fields {
			n += fg.Requests
			unc += fg.Uncovered
			if !d.Signature.ShownIn(fg.Repro.Result) {
				t.Errorf("group %s, fields %s: its reproducer does not show %s", g.Name, fg.Fields, d.Signature)
			}
		}
		if len(g.Fields) > 0 && (n != len(g.Seqs) || unc != g.Uncovered) {
			t.Errorf("group %s: field sets hold %d requests (%d uncovered), the group %d (%d)", g.Name, n, unc, len(g.Seqs), g.Uncovered)
		}
		if g.Uncovered < g.Unplaced || g.Uncovered > len(g.Seqs) {
			t.Errorf("group %s: %d uncovered of %d, %d unplaced", g.Name, g.Uncovered, len(g.Seqs), g.Unplaced)
		}
	}
	if total != rep.Disagreements {
		t.Errorf("groups hold %d requests, %d disagreed", total, rep.Disagreements)
	}
	for _, want := range []string{"aggregations.*.doc_count", "aggregations.*.value", "aggregations.*.sum_other_doc_count"} {
		if !shown[want] {
			t.Errorf("no reproducer shows %s; shown: %v", want, shown)
		}
	}
	// The terms aggregation's fault is one cause on every field: one group, its fields listed.
	for _, g := range rep.Groups {
		if strings.Contains(g.Shape, `"terms":{"field":<field>}`) && len(g.Fields) < 3 {
			t.Errorf("the terms group %s lists %d field sets, want the fields under one group", g.Name, len(g.Fields))
		}
	}
	var out strings.Builder
	rep.Render(&out, RenderOptions{Target: "mut", Oracle: "embedded", Index: f.Workload.Index})
	t.Logf("%d disagreements in %d groups\n%s", rep.Disagreements, len(rep.Groups), strings.SplitN(out.String(), "\n== group", 2)[0])
}

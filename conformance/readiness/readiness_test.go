package readiness

import "testing"

func TestFindingText(t *testing.T) {
	for _, tc := range []struct {
		f    Finding
		want string
	}{
		{Finding{Kind: KindSample, Summary: "3 of the 100 sampled documents differ"}, "sample: 3 of the 100 sampled documents differ"},
		{Finding{Kind: KindMapping, Summary: "mapping differs from the fixtures': price is double"}, "mapping differs from the fixtures': price is double"},
		{Finding{Kind: KindMapping, Summary: "mappings: not the kind's word alone"}, "mapping: mappings: not the kind's word alone"},
	} {
		if got := tc.f.String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.f, got, tc.want)
		}
	}
	r := &Refused{Target: "gw", Findings: []Finding{{Kind: KindSample, Summary: "a"}, {Kind: KindIdentity, Summary: "b"}}}
	if got, want := r.Error(), "2 findings refused at readiness (--require-ready): sample: a; identity: b"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}

// An experiment asks every round: the same finding of the same target is kept once, and
// For picks one target's.
func TestUniqueAndFor(t *testing.T) {
	a, b := Finding{Target: "gw", Kind: KindSample, Summary: "x"}, Finding{Target: "es", Kind: KindSample, Summary: "x"}
	u := Unique([]Finding{a, b, a, b, {Target: "gw", Kind: KindSample, Summary: "y"}})
	if len(u) != 3 || u[0].Target != "gw" || u[0].Summary != "x" || u[1].Target != "es" || u[2].Summary != "y" {
		t.Errorf("Unique: %+v", u)
	}
	if f := For(u, "gw"); len(f) != 2 || f[0].Summary != "x" || f[1].Summary != "y" {
		t.Errorf("For: %+v", f)
	}
}

package main

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/conform-dev/conform/conformance"
	"github.com/conform-dev/conform/conformance/target"
	"github.com/conform-dev/conform/fixtures"
	"github.com/conform-dev/conform/load/loadtest"
)

// TestOracleIndexFacts: check and explain read a live oracle's deleted documents, which decide
// whether its "gte" at exactly track_total_hits may hide exactly N matches; any other oracle
// knows nothing of an index.
func TestOracleIndexFacts(t *testing.T) {
	f := fixtures.Default()
	for _, tc := range []struct {
		name    string
		deleted int64
		noStats bool
		want    conformance.Deletions
	}{
		{"none", 0, false, conformance.DeletionsNone},
		{"some", 3, false, conformance.DeletionsSome},
		{"not served", 0, true, conformance.DeletionsUnknown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			es := loadtest.NewFakeES()
			es.Deleted, es.NoStats = tc.deleted, tc.noStats
			es.AddIndex(f.Workload.Index, map[string]string{})
			srv := httptest.NewServer(es)
			defer srv.Close()
			facts, err := oracleIndexFacts(context.Background(), "live:"+srv.URL, target.Options{}, f)
			if err != nil {
				t.Fatal(err)
			}
			if facts.Deletions != tc.want {
				t.Errorf("deletions %v, want %v", facts.Deletions, tc.want)
			}
			if len(facts.MultiValued) == 0 {
				t.Error("the corpus's multi-valued fields are missing")
			}
		})
	}
	for _, spec := range []string{"embedded", "golden:x.json"} {
		facts, err := oracleIndexFacts(context.Background(), spec, target.Options{}, f)
		if err != nil || facts.Deletions != conformance.DeletionsUnknown || facts.MultiValued != nil {
			t.Errorf("%s: %+v, %v; want nothing known", spec, facts, err)
		}
	}
}

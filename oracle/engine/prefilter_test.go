package engine

import (
	"testing"
)

// TestPreFilterDeclined: over several one-shard indices, a search Elasticsearch pre-filters with
// a query that may rewrite to match_none on some shard (search/140_pre_filter_search_shards.yml:
// real Elasticsearch 8.15.0 answered "skipped":1 to the date range below at
// pre_filter_shard_size=1 on three indices) is declined; where nothing can be skipped the
// engine answers, with "skipped":0.
func TestPreFilterDeclined(t *testing.T) {
	e := New()
	for i, ix := range []string{"pf1", "pf2", "pf3"} {
		if st, b := e.Do("PUT", "/"+ix, []byte(`{"mappings":{"properties":{"created_at":{"type":"date"}}}}`)); st != 200 {
			t.Fatalf("create %s: %d %s", ix, st, b)
		}
		doc := []string{`{"created_at":"2016-01-01"}`, `{"created_at":"2017-01-01"}`, `{"created_at":"2018-01-01"}`}[i]
		if st, b := e.Do("PUT", "/"+ix+"/_doc/1?refresh=true", []byte(doc)); st != 201 {
			t.Fatalf("index %s: %d %s", ix, st, b)
		}
	}
	rangeQ := `{"query":{"range":{"created_at":{"gte":"2016-02-01","lt":"2018-02-01"}}}}`
	for _, tc := range []struct {
		name, target, body string
		declined           bool
	}{
		{"range, pre_filter_shard_size 1", "/pf*/_search?pre_filter_shard_size=1", rangeQ, true},
		{"range, pre_filter_shard_size 3 (not below 3 shards)", "/pf*/_search?pre_filter_shard_size=3", rangeQ, false},
		{"range, default 128", "/pf*/_search", rangeQ, false},
		{"range, one shard", "/pf1/_search?pre_filter_shard_size=1", rangeQ, false},
		{"range under a field sort", "/pf*/_search", `{"sort":["created_at"],"query":{"range":{"created_at":{"gte":"2016-02-01"}}}}`, true},
		{"match_all under a field sort", "/pf*/_search", `{"sort":["created_at"],"query":{"match_all":{}}}`, false},
		{"field sort, track_total_hits false", "/pf*/_search", `{"sort":["created_at"],"track_total_hits":false}`, true},
		{"score sort first", "/pf*/_search", `{"sort":["_score","created_at"],"query":{"range":{"created_at":{"gte":"2016-02-01"}}}}`, false},
		{"terms with min_doc_count 0 visits every document", "/pf*/_search?pre_filter_shard_size=1", `{"query":{"range":{"created_at":{"gte":"2016-02-01"}}},"aggs":{"t":{"terms":{"field":"created_at","min_doc_count":0}}}}`, false},
		{"msearch item, pre_filter_shard_size 1", "/_msearch?pre_filter_shard_size=1", "{\"index\":\"pf*\"}\n" + rangeQ + "\n", true},
	} {
		method := "POST"
		st, r, raw := do(t, e, method, tc.target, tc.body)
		declined := IsUnsupported(st, []byte(raw))
		if declined != tc.declined {
			t.Errorf("%s: declined %v, want %v: %d %s", tc.name, declined, tc.declined, st, raw)
			continue
		}
		if !declined && r.Get("_shards.skipped").Exists() && r.Get("_shards.skipped").Int() != 0 {
			t.Errorf("%s: skipped %s", tc.name, r.Get("_shards.skipped").Raw)
		}
	}
}

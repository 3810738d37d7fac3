//go:build realengines

package realengines

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/conform-dev/conform/conformance"
	"github.com/conform-dev/conform/conformance/target"
	"github.com/conform-dev/conform/load"
	"github.com/tidwall/gjson"
)

// relfactsIndex is the index TestRelationIndexFacts creates and deletes.
const relfactsIndex = "relfacts-deletions"

// TestRelationIndexFacts proves on real Elasticsearch 8.15.0 that the relation rule at exactly
// track_total_hits must know the facts of the index (conformance.IndexFacts), not assume
// them. It builds an index of many small segments (a refresh after each bulk, merges held off)
// whose first segment holds every match and REAL deletions (a document re-indexed under its
// _id and one deleted), and a segment with a long field holding arrays. For each query it asks
// the exact total, then asks again at size 0 with track_total_hits set to it, and checks the
// answer against the exact "eq" under the facts conform reads (GET /{index}/_stats/docs, the
// documents' arrays): no failure. Forced to "no deletions" (and, for the arrays, to "one value
// per document") some real "gte" must fail: the facts matter. The reverse direction is checked
// too: with the "gte" answer as the expectation (a live oracle), the exact "eq" passes.
func TestRelationIndexFacts(t *testing.T) {
	es := state(t)["ES_URL"]
	client := &http.Client{Timeout: time.Minute}
	call := func(method, path, body string) gjson.Result {
		t.Helper()
		req, err := http.NewRequest(method, es+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		ct := "application/json"
		if strings.HasSuffix(path, "_bulk") || strings.Contains(path, "_bulk?") {
			ct = "application/x-ndjson"
		}
		req.Header.Set("Content-Type", ct)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode >= 300 && !(method == "DELETE" && resp.StatusCode == 404) {
			t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, b)
		}
		if method == "POST" && strings.HasSuffix(path, "_bulk") && gjson.GetBytes(b, "errors").Bool() {
			t.Fatalf("bulk errors: %s", b)
		}
		return gjson.ParseBytes(b)
	}
	call("DELETE", "/"+relfactsIndex, "")
	t.Cleanup(func() { call("DELETE", "/"+relfactsIndex, "") })
	mapping := `{"properties":{"k":{"type":"keyword"},"n":{"type":"long"},"d":{"type":"date"},"e":{"type":"keyword"},"m":{"type":"long"}}}`
	// One shard, no replica, no refresh but ours; TieredMergePolicy allowed 100 segments a
	// tier and half of a segment deleted before it merges, so the segments stay as written.
	call("PUT", "/"+relfactsIndex, `{"settings":{"number_of_shards":1,"number_of_replicas":0,"refresh_interval":-1,`+
		`"merge.policy.segments_per_tier":100,"merge.policy.max_merge_at_once":100,"merge.policy.deletes_pct_allowed":50},"mappings":`+mapping+`}`)

	var sources [][]byte
	bulk := func(docs map[string]string) {
		t.Helper()
		var b strings.Builder
		for id, src := range docs {
			fmt.Fprintf(&b, "{\"index\":{\"_id\":%q}}\n%s\n", id, src)
			sources = append(sources, []byte(src))
		}
		call("POST", "/"+relfactsIndex+"/_bulk", b.String())
		call("POST", "/"+relfactsIndex+"/_refresh", "")
	}
	// Segment 1: every match of the term, range and exists queries, and two fillers.
	bulk(map[string]string{
		"a1": `{"k":"a","n":5,"d":"2020-01-01","e":"x"}`, "a2": `{"k":"a","n":5,"d":"2020-01-02","e":"x"}`,
		"a3": `{"k":"a","n":6,"d":"2020-01-03","e":"x"}`, "f1": `{"k":"f","n":100,"d":"2021-01-01"}`,
		"f2": `{"k":"f","n":101,"d":"2021-01-02"}`,
	})
	// Segment 2: a long holding arrays, with no deletion: only the arrays keep its count.
	bulk(map[string]string{
		"m1": `{"k":"m","n":200,"m":[1,2]}`, "m2": `{"k":"m","n":201,"m":[3,4]}`, "m3": `{"k":"m","n":202,"m":[50,60]}`,
	})
	// Segments 3 to 12: fillers that match none of the queries, each a later segment.
	for s := 3; s <= 12; s++ {
		docs := map[string]string{}
		for i := range 3 {
			docs[fmt.Sprintf("s%d-%d", s, i)] = fmt.Sprintf(`{"k":"z","n":%d,"d":"2022-01-01"}`, 1000+s*10+i)
		}
		bulk(docs)
	}
	// Real deletions in segment 1: f1 re-indexed under its _id (its old version is deleted),
	// f2 deleted.
	call("PUT", "/"+relfactsIndex+"/_doc/f1", `{"k":"f","n":100,"d":"2021-01-01"}`)
	call("DELETE", "/"+relfactsIndex+"/_doc/f2", "")
	call("POST", "/"+relfactsIndex+"/_refresh", "")
	segs := call("GET", "/"+relfactsIndex+"/_segments", "").Get("indices." + relfactsIndex + ".shards.0.0.num_search_segments").Int()

	// The facts as conform reads them: readiness's GET /{index}/_stats/docs, the documents'
	// arrays, the mapping's types.
	tg, err := target.Parse("es="+es, target.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tp, err := tg.Transport()
	if err != nil {
		t.Fatal(err)
	}
	del := load.ProbeDeletions(context.Background(), tp, relfactsIndex)
	if !del.Known || del.Deleted == 0 {
		t.Fatalf("want real deletions reported, got %+v", del)
	}
	fields, err := conformance.ParseFieldTypes([]byte(mapping))
	if err != nil {
		t.Fatal(err)
	}
	facts := conformance.IndexFacts{Deletions: conformance.DeletionsSome, MultiValued: conformance.MultiValuedFields(sources)}
	if !facts.MultiValued["m"] || len(facts.MultiValued) != 1 {
		t.Fatalf("multi-valued fields %v, want m alone", facts.MultiValued)
	}
	read := &conformance.Options{Fields: fields, Index: facts}
	noDeletions := read.WithIndex(conformance.IndexFacts{Deletions: conformance.DeletionsNone, MultiValued: facts.MultiValued})
	singleValued := read.WithIndex(conformance.IndexFacts{Deletions: conformance.DeletionsNone, MultiValued: map[string]bool{}})
	asOracle := read.WithOracleIndex(facts)

	queries := []string{
		`{"term":{"k":"a"}}`, `{"term":{"n":5}}`, `{"range":{"n":{"gte":5,"lte":6}}}`, `{"range":{"d":{"lt":"2020-06-01"}}}`,
		`{"exists":{"field":"e"}}`, `{"constant_score":{"filter":{"term":{"k":"a"}}}}`,
		`{"bool":{"filter":[{"term":{"k":"a"}}],"must_not":[{"term":{"n":6}}]}}`,
		`{"range":{"m":{"lte":10}}}`, `{"term":{"m":3}}`, `{"match_all":{}}`,
	}
	var tried, gte, failRead, failNoDel, failSingle, reverse int
	for _, q := range queries {
		exact := call("POST", "/"+relfactsIndex+"/_search", `{"query":`+q+`,"size":0,"track_total_hits":true}`)
		total := exact.Get("hits.total.value").Int()
		if total == 0 {
			t.Fatalf("%s matches nothing", q)
		}
		body := fmt.Sprintf(`{"query":%s,"size":0,"track_total_hits":%d}`, q, total)
		// The exact answer, as an oracle that counted gives it: value N, "eq".
		want := fmt.Sprintf(`{"took":1,"timed_out":false,"_shards":{"total":1,"successful":1,"skipped":0,"failed":0},`+
			`"hits":{"total":{"value":%d,"relation":"eq"},"max_score":null,"hits":[]}}`, total)
		x, err := conformance.Compile(200, []byte(want))
		if err != nil {
			t.Fatal(err)
		}
		x.ForRequest([]byte(body))
		got := call("POST", "/"+relfactsIndex+"/_search", body)
		tried++
		rel := got.Get("hits.total.relation").String()
		if rel == "gte" {
			gte++
		}
		if r := x.Check(200, []byte(got.Raw), read); !r.Pass {
			failRead++
			t.Errorf("under the facts conform reads, real Elasticsearch's answer fails: %s\n%s\n%s", body, got.Raw, r)
		}
		if !x.Check(200, []byte(got.Raw), noDeletions).Pass {
			failNoDel++
		}
		if !x.Check(200, []byte(got.Raw), singleValued).Pass {
			failSingle++
		}
		if rel == "gte" {
			// A live oracle that answered "gte": the exact "eq" is what Elasticsearch gives
			// for exactly N in another layout.
			y, err := conformance.Compile(200, []byte(got.Raw))
			if err != nil {
				t.Fatal(err)
			}
			y.ForRequest([]byte(body))
			if r := y.Check(200, []byte(want), asOracle); !r.Pass {
				t.Errorf("the exact eq fails against a live oracle's gte: %s\n%s", body, r)
			} else {
				reverse++
			}
		}
		t.Logf("%s at %d: %s", q, total, rel)
	}
	if failNoDel == 0 {
		t.Errorf("no real gte fails with the facts forced to no deletions: the layout (%d segments, %d deleted) does not show that the fact matters", segs, del.Deleted)
	}
	if failSingle <= failNoDel {
		t.Errorf("forcing the arrays away fails %d, no deletions alone %d: the multi-valued fact shows nothing", failSingle, failNoDel)
	}
	t.Logf("index %s: %d searchable segments, %d deleted documents; %d queries at exactly their total, %d answered gte; "+
		"failures under the facts read: %d, forced to no deletions: %d, forced also to one value per document: %d; %d gte answers as a live oracle passed the exact eq",
		relfactsIndex, segs, del.Deleted, tried, gte, failRead, failNoDel, failSingle, reverse)
}

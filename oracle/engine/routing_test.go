package engine

import (
	"strings"
	"testing"

	"github.com/conform-dev/conform/fixtures"
)

// A corpus document's routing is kept as an index request's is: a get, a search hit and the
// exists query on _routing show it.
func TestLoadKeepsRouting(t *testing.T) {
	e := New()
	docs := []fixtures.Doc{{ID: "1", Source: []byte(`{"k":"a"}`), Routing: "r"}, {ID: "2", Source: []byte(`{"k":"b"}`)}}
	if err := e.Load("l", []byte(`{"mappings":{"properties":{"k":{"type":"keyword"}}}}`), docs); err != nil {
		t.Fatal(err)
	}
	st, _, raw := do(t, e, "GET", "/l/_doc/1?routing=r", "")
	wantBody(t, "get", st, raw, 200, `{"_index":"l","_id":"1","_version":1,"_seq_no":0,"_primary_term":1,"_routing":"r","found":true,"_source":{"k":"a"}}`)
	st, _, raw = do(t, e, "GET", "/l/_doc/2", "")
	wantBody(t, "get", st, raw, 200, `{"_index":"l","_id":"2","_version":1,"_seq_no":1,"_primary_term":1,"found":true,"_source":{"k":"b"}}`)
	if _, r, raw := do(t, e, "POST", "/l/_search", `{"query":{"exists":{"field":"_routing"}}}`); r.Get("hits.total.value").Int() != 1 || r.Get("hits.hits.0._routing").String() != "r" {
		t.Errorf("exists _routing: %s", raw)
	}
}

// _routing.required, answered as Elasticsearch 8.15.0 answers (measured with curl on an index
// created with {"_routing":{"required":true}}): a get, a write and a bulk item without routing
// fail with routing_missing_exception, an _mget doc fails alone; with routing all work.
func TestRoutingRequired(t *testing.T) {
	e := New()
	mapping := []byte(`{"mappings":{"_routing":{"required":true},"properties":{"k":{"type":"keyword"}}}}`)
	if err := e.Load("q", mapping, []fixtures.Doc{{ID: "1", Source: []byte(`{"k":"a"}`), Routing: "r"}}); err != nil {
		t.Fatal(err)
	}
	if err := New().Load("q", mapping, []fixtures.Doc{{ID: "1", Source: []byte(`{"k":"a"}`)}}); err == nil || !strings.Contains(err.Error(), "routing is required for [q]/[1]") {
		t.Errorf("Load of an unrouted document: %v", err)
	}
	missing := func(id string) string {
		return `{"root_cause":[{"type":"routing_missing_exception","reason":"routing is required for [q]/[` + id + `]","index_uuid":"_na_","index":"q"}],"type":"routing_missing_exception","reason":"routing is required for [q]/[` + id + `]","index_uuid":"_na_","index":"q"}`
	}
	st, _, raw := do(t, e, "GET", "/q/_doc/1", "")
	wantBody(t, "get without routing", st, raw, 400, `{"error":`+missing("1")+`,"status":400}`)
	if st, _, raw := do(t, e, "HEAD", "/q/_doc/1", ""); st != 400 || raw != "" {
		t.Errorf("HEAD without routing: %d %s", st, raw)
	}
	st, _, raw = do(t, e, "GET", "/q/_doc/1?routing=r", "")
	wantBody(t, "get with routing", st, raw, 200, `{"_index":"q","_id":"1","_version":1,"_seq_no":0,"_primary_term":1,"_routing":"r","found":true,"_source":{"k":"a"}}`)
	st, _, raw = do(t, e, "PUT", "/q/_doc/4", `{"k":"d"}`)
	wantBody(t, "put without routing", st, raw, 400, `{"error":`+missing("4")+`,"status":400}`)
	st, _, raw = do(t, e, "POST", "/q/_mget", `{"ids":["1"]}`)
	wantBody(t, "mget without routing", st, raw, 200, `{"docs":[{"_index":"q","_id":"1","error":`+missing("1")+`}]}`)
	if _, r, raw := do(t, e, "POST", "/q/_mget", `{"docs":[{"_id":"1","routing":"r"}]}`); r.Get("docs.0._routing").String() != "r" {
		t.Errorf("mget with the doc's routing: %s", raw)
	}
	st, _, raw = do(t, e, "POST", "/q/_bulk", "{\"index\":{\"_id\":\"3\"}}\n{\"k\":\"c\"}\n")
	if !strings.Contains(raw, `"items":[{"index":{"_index":"q","_id":"3","status":400,"error":{"type":"routing_missing_exception","reason":"routing is required for [q]/[3]","index_uuid":"_na_","index":"q"}}}]`) {
		t.Errorf("bulk without routing: %d %s", st, raw)
	}
	if _, r, raw := do(t, e, "POST", "/q/_bulk?routing=u&refresh=true", "{\"index\":{\"_id\":\"5\"}}\n{\"k\":\"e\"}\n"); r.Get("errors").Bool() {
		t.Errorf("bulk with the URL's routing: %s", raw)
	}
	if _, r, raw := do(t, e, "GET", "/q/_doc/5?routing=u", ""); r.Get("_routing").String() != "u" {
		t.Errorf("the URL's routing is the bulk item's: %s", raw)
	}
	if st, _, raw := do(t, e, "POST", "/q/_bulk", "{\"index\":{}}\n{\"k\":\"g\"}\n"); !IsUnsupported(st, []byte(raw)) {
		t.Errorf("bulk with a generated id and no routing: %d %s, want declined", st, raw)
	}
}

package engine

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/conform-dev/conform/fixtures"
)

// TestPointInTimeLifecycle: open, search with search_after and the _shard_doc tiebreaker,
// renew, close, and what a closed, a foreign and a stale point in time answer.
func TestPointInTimeLifecycle(t *testing.T) {
	e := New()
	docs := `{"n":3,"k":"a"}|{"n":1,"k":"b"}|{"n":3,"k":"c"}|{"n":2,"k":"d"}`
	if err := e.Load("ix", []byte(`{"mappings":{"properties":{"n":{"type":"long"},"k":{"type":"keyword"}}}}`), splitDocs(docs)); err != nil {
		t.Fatal(err)
	}
	st, b := e.Do("POST", "/ix/_pit?keep_alive=1m", nil)
	id := gjson.GetBytes(b, "id").String()
	if st != 200 || id == "" {
		t.Fatalf("open: %d %s", st, b)
	}
	pid, derr, ok := decodePIT(id)
	if derr != nil || !ok || pid.index != "ix" || pid.node != nodeID || pid.ctx != 1 {
		t.Fatalf("the id does not decode to its context: %+v %v %v", pid, derr, ok)
	}
	search := func(after string) (int, []byte) {
		body := `{"size":2,"_source":false,"pit":{"id":"` + id + `","keep_alive":"2m"},"sort":[{"n":"desc"}]` + after + `}`
		return e.Do("POST", "/_search", []byte(body))
	}
	st, b = search("")
	if st != 200 || gjson.GetBytes(b, "pit_id").String() != id || gjson.GetBytes(b, "hits.hits.#.sort").Raw != `[[3,0],[3,2]]` {
		t.Fatalf("first page: %d %s", st, b)
	}
	st, b = search(`,"search_after":[3,2]`)
	if st != 200 || gjson.GetBytes(b, "hits.hits.#._id").Raw != `["4","2"]` {
		t.Fatalf("second page: %d %s", st, b)
	}
	// An index in the path, or a _shard_doc sort without a point in time, is refused.
	if st, b := e.Do("POST", "/ix/_search", []byte(`{"pit":{"id":"`+id+`"}}`)); st != 400 || !strings.Contains(string(b), "[indices] cannot be used with point in time") {
		t.Fatalf("index with a pit: %d %s", st, b)
	}
	if st, b := e.Do("POST", "/ix/_search", []byte(`{"sort":["_shard_doc"]}`)); st != 400 || !strings.Contains(string(b), "cannot be used without [point in time]") {
		t.Fatalf("_shard_doc without a pit: %d %s", st, b)
	}
	// A write since the point in time opened: declined, not answered from today's index.
	if st, _ := e.Do("PUT", "/ix/_doc/5", []byte(`{"n":9}`)); st != 201 {
		t.Fatal("indexing failed")
	}
	if st, b := search(""); !IsUnsupported(st, b) {
		t.Fatalf("a pit over an index written since: %d %s", st, b)
	}
	if st, b := e.Do("DELETE", "/_pit", []byte(`{"id":"`+id+`"}`)); st != 200 || string(b) != `{"succeeded":true,"num_freed":1}` {
		t.Fatalf("close: %d %s", st, b)
	}
	if st, b := e.Do("DELETE", "/_pit", []byte(`{"id":"`+id+`"}`)); st != 404 || string(b) != `{"succeeded":false,"num_freed":0}` {
		t.Fatalf("close again: %d %s", st, b)
	}
	st, b = search("")
	if st != 404 || gjson.GetBytes(b, "error.root_cause.0.reason").String() != "No search context found for id [1]" ||
		gjson.GetBytes(b, "error.failed_shards.0.node").String() != nodeID {
		t.Fatalf("a closed pit: %d %s", st, b)
	}
	// Another node's id names that node in the failure, as Elasticsearch's node would.
	foreign := encodePIT(pitID{index: "catalogue", uuid: "u", node: "OtherNode", session: "s", ctx: 7})
	st, b = e.Do("POST", "/_search", []byte(`{"pit":{"id":"`+foreign+`"}}`))
	if st != 404 || gjson.GetBytes(b, "error.failed_shards.0.node").String() != "OtherNode" || gjson.GetBytes(b, "error.failed_shards.0.index").String() != "catalogue" {
		t.Fatalf("a foreign pit: %d %s", st, b)
	}
}

func TestJavaBase64Errors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"x", "Input byte[] should at least have 2 bytes for base64 bytes"},
		{"bogus", "Last unit does not have enough valid bits"},
		{"ab=c", "Input byte array has wrong 4-byte ending unit"},
		{"abc*", "Illegal base64 character 2a"},
		{"abc=d", "Input byte array has incorrect ending byte at 4"},
		{"YWJj", ""},
		{"YWI=", ""},
		{"YQ==", ""},
	} {
		if _, msg := javaBase64URLDecode(c.in); msg != c.want {
			t.Errorf("%q: %q, want %q", c.in, msg, c.want)
		}
	}
}

func splitDocs(s string) []fixtures.Doc {
	var out []fixtures.Doc
	for i, d := range strings.Split(s, "|") {
		out = append(out, fixtures.Doc{ID: string(rune('1' + i)), Source: []byte(d)})
	}
	return out
}

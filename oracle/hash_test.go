package oracle

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/conform-dev/conform/fixtures"
)

func sampleExpectations() *Expectations {
	return NewExpectations("embedded", Settings{Index: "cat", TrackTotalHits: "true"}, []Expected{
		{Request: fixtures.Request{Case: "get/000", Op: "get", Method: "GET", Path: "/cat/_doc/a1"}, Status: 200,
			Body: []byte(`{"_index":"cat","_id":"a1","found":true,"_source":{"price":19.99,"name":"<b>"}}`)},
		{Request: fixtures.Request{Case: "page/000", Op: "page", Method: "POST", Path: "/cat/_search", Body: []byte(`{"size":2,"track_total_hits":true}`)},
			Status: 200, Body: []byte(`{"took":3,"timed_out":false,"hits":{"total":{"value":1,"relation":"eq"},"hits":[]}}`)},
	})
}

// The hash as GOLDEN.md and Hash's comment define it, written out independently.
func specHash(x *Expectations) string {
	var b bytes.Buffer
	b.WriteString("conform-expectations/1\n")
	net := func(s []byte) { fmt.Fprintf(&b, "%d:%s,", len(s), s) }
	for _, c := range x.Cases {
		net([]byte(c.Request.Case))
		net([]byte(c.Request.Method))
		net([]byte(c.Request.Path))
		var rb bytes.Buffer
		if len(c.Request.Body) > 0 {
			json.Compact(&rb, c.Request.Body)
		}
		net(rb.Bytes())
		net([]byte(fmt.Sprint(c.Status)))
		var cb bytes.Buffer
		json.Compact(&cb, c.Body)
		var obj map[string]json.RawMessage
		if json.Unmarshal(cb.Bytes(), &obj) == nil {
			if took, ok := obj["took"]; ok {
				cb = *bytes.NewBuffer(bytes.Replace(cb.Bytes(), []byte(`"took":`+string(took)), []byte(`"took":0`), 1))
			}
		}
		net(cb.Bytes())
	}
	s := sha256.Sum256(b.Bytes())
	return hex.EncodeToString(s[:])
}

func TestHashFollowsItsDefinition(t *testing.T) {
	x := sampleExpectations()
	if got, want := x.Hash(), specHash(x); got != want {
		t.Errorf("Hash = %s, the documented definition gives %s", got, want)
	}
	// A fixed value guards against an accidental change of the canonical form; if this fails
	// after a deliberate change, bump HashFormat and update the value.
	const pinned = "f2fc40b1e03b8c5f8fa7909d8da87678d8e186fc582a801e1d85dc8d5ff43210"
	if got := x.Hash(); got != pinned {
		t.Errorf("Hash = %s, pinned %s", got, pinned)
	}
}

func TestHashStability(t *testing.T) {
	base := sampleExpectations().Hash()
	if again := sampleExpectations().Hash(); again != base {
		t.Fatalf("same expectations hash differently: %s then %s", base, again)
	}
	same := []struct {
		reason string
		edit   func(x *Expectations)
	}{
		{"took is a measurement", func(x *Expectations) {
			x.Cases[1].Body = bytes.Replace(x.Cases[1].Body, []byte(`"took":3`), []byte(`"took":17`), 1)
		}},
		{"insignificant whitespace in the response", func(x *Expectations) {
			x.Cases[0].Body = []byte("{\"_index\": \"cat\",\n \"_id\":\"a1\",\"found\":true,\"_source\":{\"price\":19.99,\"name\":\"<b>\"}}")
		}},
		{"insignificant whitespace in the request", func(x *Expectations) {
			x.Cases[1].Request.Body = []byte(`{ "size": 2, "track_total_hits": true }`)
		}},
		{"warnings, source and engine are not answers", func(x *Expectations) {
			x.Cases[1].Warnings = []string{"tie"}
			x.Source = "live:http://es:9200"
			x.Engine = &Identity{Version: "8.15.0"}
		}},
	}
	for _, tt := range same {
		x := sampleExpectations()
		tt.edit(x)
		if got := x.Hash(); got != base {
			t.Errorf("%s: hash changed to %s", tt.reason, got)
		}
	}
	differ := []struct {
		reason string
		edit   func(x *Expectations)
	}{
		{"status", func(x *Expectations) { x.Cases[0].Status = 404 }},
		{"number text 19.99 vs 19.990000000000002", func(x *Expectations) {
			x.Cases[0].Body = bytes.Replace(x.Cases[0].Body, []byte("19.99"), []byte("19.990000000000002"), 1)
		}},
		{"key order", func(x *Expectations) {
			x.Cases[0].Body = []byte(`{"_id":"a1","_index":"cat","found":true,"_source":{"price":19.99,"name":"<b>"}}`)
		}},
		{"path", func(x *Expectations) { x.Cases[0].Request.Path = "/other/_doc/a1" }},
		{"request body", func(x *Expectations) { x.Cases[1].Request.Body = []byte(`{"size":3,"track_total_hits":true}`) }},
		{"case name", func(x *Expectations) { x.Cases[0].Request.Case = "get/001" }},
		{"case order", func(x *Expectations) { x.Cases[0], x.Cases[1] = x.Cases[1], x.Cases[0] }},
		{"a field named took below the top level", func(x *Expectations) {
			x.Cases[0].Body = []byte(`{"_index":"cat","_id":"a1","found":true,"_source":{"took":1}}`)
		}},
	}
	for _, tt := range differ {
		x := sampleExpectations()
		tt.edit(x)
		if got := x.Hash(); got == base {
			t.Errorf("%s: changing it does not change the hash", tt.reason)
		}
	}
}

func TestCanonicalBody(t *testing.T) {
	tests := []struct{ in, want, reason string }{
		{`{"took":12,"a":1}`, `{"took":0,"a":1}`, "took zeroed"},
		{`{ "a" : [1, 2.0] , "took" : 5 }`, `{"a":[1,2.0],"took":0}`, "compacted, took anywhere at the top level"},
		{`{"a":{"took":5}}`, `{"a":{"took":5}}`, "only the top-level took"},
		{`not json`, `not json`, "non-JSON kept"},
		{``, ``, "empty kept"},
		{`[1, 2]`, `[1,2]`, "arrays compacted"},
	}
	for _, tt := range tests {
		if got := string(CanonicalBody([]byte(tt.in))); got != tt.want {
			t.Errorf("CanonicalBody(%s) = %s, want %s (%s)", tt.in, got, tt.want, tt.reason)
		}
	}
}

// Each search of an _msearch has a took of its own, which varies like the top-level one.
func TestCanonicalBodyMsearchTook(t *testing.T) {
	a := CanonicalBody([]byte(`{"took":5,"responses":[{"took":3,"hits":{}},{"error":{},"status":400},{"took":12,"hits":{}}]}`))
	b := CanonicalBody([]byte(`{"took":9, "responses":[{"took":1,"hits":{}},{"error":{},"status":400},{"took":0,"hits":{}}]}`))
	want := `{"took":0,"responses":[{"took":0,"hits":{}},{"error":{},"status":400},{"took":0,"hits":{}}]}`
	if string(a) != want || string(b) != want {
		t.Errorf("got\n%s\n%s\nwant %s", a, b, want)
	}
	if got := CanonicalBody([]byte(`{"took":3,"hits":{"total":1}}`)); string(got) != `{"took":0,"hits":{"total":1}}` {
		t.Errorf("a search: %s", got)
	}
}

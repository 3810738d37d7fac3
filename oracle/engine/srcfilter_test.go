package engine

import (
	"testing"
)

// Source filtering answers measured on real Elasticsearch 8.15.0 (2026-12-04) for two
// documents of an index with "dynamic": false.
func TestSourceFilterAsElasticsearch(t *testing.T) {
	e := newTest(t, `{"mappings":{"dynamic":false,"properties":{"n":{"type":"long"}}}}`,
		`{"n":1,"o":[{"a":5},{"b":{"c":"y"}},{}],"t":["x","y"],"e":{},"m":[1,[2,{"a":3}],{"a":4,"b":5}],"z":[]}`,
		`{"n":2,"o":{"a":{},"b":[]},"e":{},"p":{"q":{"r":{}}}}`)
	cases := []struct{ filter, want string }{
		{`["o.x"]`, `[{},{}]`},
		{`["t.x"]`, `[{},{}]`}, // scalars below a continuing include are dropped
		{`["t"]`, `[{"t":["x","y"]},{}]`},
		{`{"excludes":["n"]}`, `[{"o":[{"a":5},{"b":{"c":"y"}},{}],"t":["x","y"],"e":{},"m":[1,[2,{"a":3}],{"a":4,"b":5}],"z":[]},{"o":{"a":{},"b":[]},"e":{},"p":{"q":{"r":{}}}}]`},
		{`{"excludes":["t.x"]}`, `[{"n":1,"o":[{"a":5},{"b":{"c":"y"}},{}],"t":["x","y"],"e":{},"m":[1,[2,{"a":3}],{"a":4,"b":5}],"z":[]},{"n":2,"o":{"a":{},"b":[]},"e":{},"p":{"q":{"r":{}}}}]`},
		{`{"excludes":["o.x"]}`, `[{"n":1,"o":[{"a":5},{"b":{"c":"y"}}],"t":["x","y"],"e":{},"m":[1,[2,{"a":3}],{"a":4,"b":5}],"z":[]},{"n":2,"o":{"a":{},"b":[]},"e":{},"p":{"q":{"r":{}}}}]`},
		{`["m.a"]`, `[{"m":[[{"a":3}],{"a":4}]},{}]`},
		{`{"excludes":["m.a"]}`, `[{"n":1,"o":[{"a":5},{"b":{"c":"y"}},{}],"t":["x","y"],"e":{},"m":[1,[2],{"b":5}],"z":[]},{"n":2,"o":{"a":{},"b":[]},"e":{},"p":{"q":{"r":{}}}}]`},
		{`["z"]`, `[{"z":[]},{}]`},
		{`["z.a"]`, `[{},{}]`},
		{`{"excludes":["z.a"]}`, `[{"n":1,"o":[{"a":5},{"b":{"c":"y"}},{}],"t":["x","y"],"e":{},"m":[1,[2,{"a":3}],{"a":4,"b":5}]},{"n":2,"o":{"a":{},"b":[]},"e":{},"p":{"q":{"r":{}}}}]`},
		{`["o.a"]`, `[{"o":[{"a":5}]},{"o":{"a":{}}}]`},
		{`["p.q"]`, `[{},{"p":{"q":{"r":{}}}}]`},
		{`["p.q.r.s"]`, `[{},{}]`},
		{`{"excludes":["p.q.r.s"]}`, `[{"n":1,"o":[{"a":5},{"b":{"c":"y"}},{}],"t":["x","y"],"e":{},"m":[1,[2,{"a":3}],{"a":4,"b":5}],"z":[]},{"n":2,"o":{"a":{},"b":[]},"e":{}}]`},
		{`["e"]`, `[{"e":{}},{"e":{}}]`},
		{`["e.x"]`, `[{},{}]`},
		{`["*"]`, `[{"n":1,"o":[{"a":5},{"b":{"c":"y"}},{}],"t":["x","y"],"e":{},"m":[1,[2,{"a":3}],{"a":4,"b":5}],"z":[]},{"n":2,"o":{"a":{},"b":[]},"e":{},"p":{"q":{"r":{}}}}]`},
		{`["o*"]`, `[{"o":[{"a":5},{"b":{"c":"y"}},{}]},{"o":{"a":{},"b":[]}}]`},
		{`["*.a"]`, `[{"o":[{"a":5}],"m":[[{"a":3}],{"a":4}]},{"o":{"a":{}}}]`},
		{`["o.*"]`, `[{"o":[{"a":5},{"b":{"c":"y"}}]},{"o":{"a":{},"b":[]}}]`},
		{`{"includes":["n"],"excludes":["n"]}`, `[{},{}]`},
		{`{"excludes":["e"]}`, `[{"n":1,"o":[{"a":5},{"b":{"c":"y"}},{}],"t":["x","y"],"m":[1,[2,{"a":3}],{"a":4,"b":5}],"z":[]},{"n":2,"o":{"a":{},"b":[]},"p":{"q":{"r":{}}}}]`},
	}
	for _, c := range cases {
		r := search(t, e, `{"sort":["n"],"_source":`+c.filter+`}`)
		got := "["
		for i, h := range r.Get("hits.hits").Array() {
			if i > 0 {
				got += ","
			}
			got += h.Get("_source").Raw
		}
		got += "]"
		if got != c.want {
			t.Errorf("_source %s:\n got  %s\n want %s (Elasticsearch 8.15.0)", c.filter, got, c.want)
		}
	}
	// Outside the rule: a wildcard exclude (Elasticsearch filters a HashMap), ** patterns.
	for _, f := range []string{`{"excludes":["o.*"]}`, `["**.a"]`} {
		if st, r, _ := do(t, e, "POST", "/test/_search", `{"_source":`+f+`}`); st != 400 || r.Get("error.type").String() != UnsupportedType {
			t.Errorf("_source %s: %d %s, want declined", f, st, r.Raw)
		}
	}
}

func TestCaseInsensitiveASCIIOnly(t *testing.T) {
	// AutomatonQueries.toCaseInsensitiveChar: only code points up to 128 get their other case;
	// real Elasticsearch 8.15.0 agrees (lab/realengines, case-insensitive).
	cases := []struct {
		term, query string
		want        bool
	}{
		{"Straße", "STRAßE", true}, {"straße", "STRAẞE", false}, {"é", "É", false},
		{"\u212a", "k", false}, {"k", "\u212a", false}, {"K", "k", true}, {"ı", "I", false},
		{"İ", "i", false}, {"àB", "àb", true}, {"Àb", "àb", false}, {"𐐀x", "𐐨X", false}, {"@", "`", false},
	}
	for _, c := range cases {
		if got := equalFoldJava(c.term, c.query); got != c.want {
			t.Errorf("term %q, case_insensitive query %q: %v, want %v", c.term, c.query, got, c.want)
		}
	}
}

func TestAllShardsFailedCause(t *testing.T) {
	// Measured on real Elasticsearch 8.15.0: a query_shard_exception leaves no top-level
	// caused_by (deduplicateCause); a plain illegal_argument_exception comes back wrapped in its
	// own guessed root cause, so it shows twice.
	e := newTest(t, `{"mappings":{"properties":{"b":{"type":"boolean"}}}}`, `{"b":true}`)
	_, r, _ := do(t, e, "POST", "/test/_search", `{"query":{"term":{"b":"yes"}}}`)
	if r.Get("error.caused_by").Exists() || r.Get("error.failed_shards.0.reason.caused_by.type").String() != "illegal_argument_exception" {
		t.Errorf("query_shard_exception: %s", r.Raw)
	}
	_, r, _ = do(t, e, "POST", "/test/_search", `{"from":10000,"size":10}`)
	if r.Get("error.caused_by.type").String() != "illegal_argument_exception" || r.Get("error.caused_by.caused_by.type").String() != "illegal_argument_exception" || r.Get("error.caused_by.caused_by.caused_by").Exists() {
		t.Errorf("result window: %s", r.Raw)
	}
}

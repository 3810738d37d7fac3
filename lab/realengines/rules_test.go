//go:build realengines

package realengines

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/conform-dev/conform/conformance"
	"github.com/conform-dev/conform/fixtures"
	"github.com/conform-dev/conform/oracle/engine"
)

// TestElasticsearchRules confirms, on real Elasticsearch 8.15.0, the oracle rules that the
// catalogue cannot reach: it creates a scratch index (rulesIndex, deleted afterwards) whose
// documents exercise each rule, loads the same documents into the embedded engine, and sends
// both the same probes. Every response must match with no difference at all, not even a
// report-only one (key order, scores under a field sort).
func TestElasticsearchRules(t *testing.T) {
	es := state(t)["ES_URL"]
	client := &http.Client{Timeout: time.Minute}
	call := func(method, path, body string) (int, []byte) {
		t.Helper()
		req, _ := http.NewRequest(method, es+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		return resp.StatusCode, b
	}
	call("DELETE", "/"+rulesIndex+"?ignore_unavailable=true", "")
	if st, b := call("PUT", "/"+rulesIndex, rulesMapping); st != 200 {
		t.Fatalf("create %s: %d %s", rulesIndex, st, b)
	}
	defer call("DELETE", "/"+rulesIndex, "")
	var bulk strings.Builder
	docs := make([]fixtures.Doc, len(rulesDocs))
	for i, src := range rulesDocs {
		id := fmt.Sprint(i + 1)
		fmt.Fprintf(&bulk, "{\"index\":{\"_id\":%q}}\n%s\n", id, src)
		docs[i] = fixtures.Doc{ID: id, Source: []byte(src)}
	}
	req, _ := http.NewRequest("POST", es+"/"+rulesIndex+"/_bulk?refresh=true", strings.NewReader(bulk.String()))
	req.Header.Set("Content-Type", "application/x-ndjson")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var br struct{ Errors bool }
	if json.Unmarshal(b, &br) != nil || resp.StatusCode != 200 || br.Errors {
		t.Fatalf("bulk into %s: %d %.1000s", rulesIndex, resp.StatusCode, b)
	}
	emb := engine.New()
	if err := emb.Load(rulesIndex, []byte(rulesMapping), docs); err != nil {
		t.Fatal(err)
	}

	for _, group := range rulesProbes() {
		t.Run(group.rule, func(t *testing.T) {
			for _, body := range group.bodies {
				method, path := "POST", "/"+rulesIndex+"/_search"
				body, declines := strings.CutPrefix(body, declinePrefix)
				if rest, ok := strings.CutPrefix(body, "GET "); ok {
					method, path, body = "GET", "/"+rulesIndex+rest, ""
				}
				wst, want := emb.Do(method, path, []byte(body))
				unsupported := wst == 400 && bytes.Contains(want, []byte(engine.UnsupportedType))
				if declines {
					if !unsupported {
						t.Errorf("%s %s %s: the embedded engine should decline it (outside the confirmed rule), answered %d %.300s", method, path, body, wst, want)
					}
					continue
				}
				if unsupported {
					t.Errorf("%s %s %s: the embedded engine declines it, so it confirms nothing: %s", method, path, body, want)
					continue
				}
				gst, got := call(method, path, body)
				x, err := conformance.Compile(wst, want)
				if err != nil {
					t.Fatalf("%s: embedded answer unusable: %v", body, err)
				}
				if res := x.Check(gst, got, nil); len(res.Diffs) > 0 {
					var ds []string
					for _, d := range res.Diffs {
						if inherent(d.Path) {
							continue
						}
						ds = append(ds, fmt.Sprintf("%s %s: embedded %s, Elasticsearch %s", d.Class, d.Path, d.Want, d.Got))
					}
					if len(ds) > 0 {
						t.Errorf("%s %s %s\n  %s\n  embedded:      %.600s\n  Elasticsearch: %.600s", method, path, body, strings.Join(ds, "\n  "), want, got)
					}
				}
			}
			t.Logf("%d probes", len(group.bodies))
		})
	}
}

const rulesIndex = "conform-rules"

// inherent reports the paths of an error envelope that name the engine's own index uuid or
// node id: they differ between any two clusters.
func inherent(path string) bool {
	return strings.HasSuffix(path, ".index_uuid") || strings.HasSuffix(path, "].node")
}

const rulesMapping = `{"settings":{"number_of_shards":1,"number_of_replicas":0},"mappings":{"properties":{
"n":{"type":"long"},"i":{"type":"integer"},"d":{"type":"double"},"f":{"type":"float"},
"dt":{"type":"date"},"b":{"type":"boolean"},"k":{"type":"keyword"},"t":{"type":"text"},
"o":{"properties":{"a":{"type":"long"},"b":{"properties":{"c":{"type":"keyword"}}}}}}}}`

// rulesDocs: k holds letters whose case folding differs between ASCII-only and Unicode rules
// (Kelvin sign, dotted and dotless i, sharp s, titlecase digraphs, Deseret beyond the BMP); o
// holds objects, empty objects and an array of objects for source filtering.
var rulesDocs = []string{
	`{"n":1,"i":10,"d":1.5,"f":2.5,"dt":"2024-01-01","b":true,"k":"a","o":{"a":1,"b":{"c":"x"}},"t":"the quick brown fox"}`,
	`{"n":2,"i":20,"d":2.5,"f":3.5,"dt":"2024-01-02","b":false,"k":"A","o":{"a":2},"t":"quick quick dog"}`,
	`{"n":3,"i":30,"d":3.5,"dt":"2024-01-03","b":true,"k":"é","o":{},"t":"a lazy dog sleeps under the brown tree all day long"}`,
	`{"n":4,"i":10,"f":2.5,"k":"É","o":{"b":{}},"t":"fox"}`,
	`{"n":5,"d":1.5,"k":"\u212a","o":[{"a":5},{"b":{"c":"y"}},{}]}`,
	`{"n":6,"k":"k","o":{"b":{"c":"z"},"a":6}}`,
	`{"n":7,"k":"ǅ"}`, `{"n":8,"k":"Ǆ"}`, `{"n":9,"k":"ǆ"}`,
	`{"n":10,"k":"ß"}`, `{"n":11,"k":"SS"}`, `{"n":12,"k":"ss"}`, `{"n":13,"k":"ẞ"}`,
	`{"n":14,"k":"İ"}`, `{"n":15,"k":"i"}`, `{"n":16,"k":"I"}`, `{"n":17,"k":"ı"}`,
	`{"n":18,"k":"Straße"}`, `{"n":19,"k":"STRASSE"}`, `{"n":20,"k":"straße"}`, `{"n":21,"k":"STRAẞE"}`,
	`{"n":22,"k":"Ab"}`, `{"n":23,"k":"aB"}`, `{"n":24,"k":"ÀB"}`, `{"n":25,"k":"àb"}`,
	`{"n":26,"k":"𐐀x"}`, `{"n":27,"k":"𐐨X"}`, `{"n":28,"k":"Σς"}`, `{"n":29,"k":"σσ"}`, `{"n":30,"k":"µ"}`, `{"n":31,"k":"μ"}`,
	`{"n":32,"d":0.0,"f":-0.0}`, `{"n":33,"d":-0.0,"f":0.0}`, `{"n":34,"d":-2.5,"f":-2.5}`,
}

// declinePrefix marks a probe the embedded engine must decline: Elasticsearch answers it by a
// rule the engine does not model.
const declinePrefix = "declines: "

type probeGroup struct {
	rule   string
	bodies []string
}

func rulesProbes() []probeGroup {
	sorted := func(q string) string { return `{"size":40,"sort":[{"n":"asc"}],"query":` + q + `}` }
	var ci []string
	seen := map[string]bool{}
	for _, src := range rulesDocs {
		var d struct{ K string }
		json.Unmarshal([]byte(src), &d)
		if d.K == "" || seen[d.K] {
			continue
		}
		seen[d.K] = true
		ci = append(ci, sorted(fmt.Sprintf(`{"term":{"k":{"value":%q,"case_insensitive":true}}}`, d.K)))
	}
	for _, p := range []string{"a", "A", "à", "À", "str", "STRA", "straß", "STRAẞ", "𐐀", "𐐨", "k", "K", "s", "σ", "Σ"} {
		ci = append(ci, sorted(fmt.Sprintf(`{"prefix":{"k":{"value":%q,"case_insensitive":true}}}`, p)))
	}

	metric := `{"max":{"field":"n"}}`
	named := func(names ...string) string {
		var parts []string
		for _, n := range names {
			parts = append(parts, fmt.Sprintf("%q:%s", n, metric))
		}
		return strings.Join(parts, ",")
	}
	many := []string{"zeta", "alpha", "m", "b0", "a1", "Z", "é", "long_name_xyz", "q", "r", "s", "t", "u", "v", "w", "x", "y"}
	aggs := []string{
		`{"size":0,"aggs":{` + named("zeta", "alpha", "m") + `}}`,
		`{"size":0,"aggs":{` + named(many[:12]...) + `}}`,
		`{"size":0,"aggs":{` + named(many[:13]...) + `}}`,
		`{"size":0,"aggs":{` + named(many...) + `}}`,
		`{"size":0,"aggs":{"by_b":{"terms":{"field":"b"},"aggs":{` + named(many[:7]...) + `}},"c":{"value_count":{"field":"n"}},"a":{"min":{"field":"i"}}}}`,
		`{"size":0,"aggs":{"f":{"filter":{"term":{"b":true}},"aggs":{` + named("zz", "aa", "mm", "A0") + `}}}}`,
		`{"size":0,"aggs":{"fs":{"filters":{"filters":{"x":{"term":{"b":true}},"b":{"term":{"b":false}},"a":{"match_all":{}},"Z":{"exists":{"field":"i"}},"é":{"exists":{"field":"d"}}}},"aggs":{` + named("zz", "aa") + `}}}}`,
		`{"size":0,"aggs":{"f":{"filter":{"match_all":{}},"aggs":{"t":{"terms":{"field":"b"},"aggs":{` + named("zz", "aa", "mm") + `}}}}}}`,
		`{"size":0,"aggs":{"t":{"terms":{"field":"b"},"aggs":{"f":{"filter":{"match_all":{}},"aggs":{` + named("zz", "aa", "mm") + `}}}}}}`,
		`{"size":0,"aggs":{"fs":{"filters":{"filters":[{"match_all":{}}],"other_bucket":true},"aggs":{"f":{"filter":{"match_all":{}},"aggs":{` + named("zz", "aa", "mm") + `}},"zz":` + metric + `,"aa":` + metric + `}}}}`,
		`{"size":0,"aggs":{"f":{"filter":{"match_all":{}},"aggs":{` + named(many[:13]...) + `}}}}`,
		`{"size":0,"aggs":{"f":{"filter":{"match_all":{}},"aggs":{` + named(many...) + `}}}}`,
		`{"size":0,"aggs":{"f":{"filter":{"match_all":{}},"aggs":{` + named(strings.Fields("a q A Q 1 ! b r B R 2 % c s C S 3 # d t D T 4 & e u E U 5")...) + `}}}}`,
	}

	var terms []string
	for _, q := range []string{
		`{"terms":{"n":[1,2,3]}}`, `{"terms":{"n":[1,2,3],"boost":2.5}}`,
		`{"terms":{"i":[10,30]}}`, `{"terms":{"d":[1.5,3.5]}}`, `{"terms":{"f":[2.5]}}`,
		`{"terms":{"dt":["2024-01-01","2024-01-03"],"boost":0.5}}`, `{"terms":{"b":[true]}}`,
		`{"terms":{"b":["false"],"boost":3}}`, `{"terms":{"k":["a","A","é"]}}`,
		`{"bool":{"must":[{"terms":{"n":[1,2,3,4]}},{"term":{"k":"a"}}]}}`,
		`{"bool":{"should":[{"terms":{"i":[10]}},{"terms":{"d":[1.5]}}]}}`,
		// BM25 with Elasticsearch's LegacyBM25Similarity (k1 + 1 factor): keyword, boolean, text.
		`{"term":{"k":"a"}}`, `{"term":{"k":{"value":"A","boost":1.7}}}`, `{"term":{"b":true}}`,
		`{"match":{"t":"quick"}}`, `{"match":{"t":"quick brown dog"}}`, `{"match":{"t":{"query":"fox dog","boost":0.3}}}`,
		`{"bool":{"should":[{"match":{"t":"the"}},{"term":{"k":"a"}},{"terms":{"n":[1,3]}}]}}`,
	} {
		terms = append(terms, `{"size":40,"query":`+q+`}`)
	}

	var source []string
	for _, s := range []string{
		`["o.b.c"]`, `["o.a"]`, `["o.b"]`, `["o"]`, `["o.*"]`, `["*.c"]`, `"o.b.c"`, `["n","o.x"]`,
		`{"includes":["o.b"],"excludes":["o.b.c"]}`, `{"includes":["o"],"excludes":["o.b"]}`,
		`{"excludes":["o.b.c"]}`, `{"excludes":["o.a"]}`, `{"excludes":["o.b"]}`, `{"excludes":["o"]}`,
		`{"includes":["o.b*"]}`, `{"includes":["o*"],"excludes":["o.a"]}`, `["*"]`, `["*.a"]`, `["o.*"]`,
		`{"includes":["n"],"excludes":["n"]}`, `{"excludes":["n"]}`, `{"excludes":["k"]}`,
	} {
		source = append(source, `{"size":40,"sort":[{"n":"asc"}],"_source":`+s+`,"query":{"range":{"n":{"lte":6}}}}`)
	}
	// A wildcard exclude makes Elasticsearch filter a HashMap, which reorders the keys.
	source = append(source, declinePrefix+`{"size":40,"sort":[{"n":"asc"}],"_source":{"excludes":["o.*"]}}`)
	for _, q := range []string{"_source_includes=o.b.c", "_source_excludes=o.a", "_source_includes=o&_source_excludes=o.b", "_source=o.a,n"} {
		for _, id := range []string{"1", "3", "4", "5"} {
			source = append(source, "GET /_doc/"+id+"?"+q)
		}
	}
	var numbers []string
	for _, fld := range []string{"d", "f"} {
		for _, b := range []string{`" 1.5 "`, `"1.5d"`, `"2.5f"`, `"0x1.8p1"`, `"Infinity"`, `"-Infinity"`, `"NaN"`, `"1e400"`, `"inf"`, `"1,5"`, `0`, `-0.0`, `"-0.0"`, `2.5`} {
			for _, op := range []string{"lt", "lte", "gt", "gte"} {
				numbers = append(numbers, sorted(fmt.Sprintf(`{"range":{%q:{%q:%s}}}`, fld, op, b)))
			}
		}
		for _, v := range []string{`0`, `-0.0`, `"-0.0"`, `" 2.5"`, `"2.5d"`} {
			numbers = append(numbers, sorted(fmt.Sprintf(`{"term":{%q:%s}}`, fld, v)))
		}
	}
	var errs []string
	for _, q := range []string{
		`{"from":10000,"size":10}`, `{"query":{"term":{"b":"yes"}}}`, `{"query":{"range":{"n":{"lte":"abc"}}}}`,
		`{"query":{"range":{"d":{"gte":"1,5"}}}}`, `{"query":{"term":{"f":"x"}}}`,
	} {
		errs = append(errs, q)
	}
	return []probeGroup{
		{"errors", errs},
		{"numeric-values", numbers},
		{"case-insensitive", ci},
		{"aggregation-order", aggs},
		{"scoring", terms},
		{"source-filtering", source},
	}
}

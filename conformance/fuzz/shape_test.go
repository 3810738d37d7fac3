package fuzz

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/conform-dev/conform/conformance"
)

func searchCase(t *testing.T, body string) *Case {
	t.Helper()
	b, err := Parse([]byte(body))
	if err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	return &Case{Kind: KindSearch, Method: "POST", Path: "/{index}/_search", Body: b}
}

// Two requests share a shape exactly when they differ only in values: each row says why.
func TestShapeKeepsStructureLeavesValues(t *testing.T) {
	tests := []struct {
		why  string
		a, b string
		same bool
	}{
		{"a search_after value is a value", `{"sort":[{"sku":"asc"}],"search_after":["SKU-00001"]}`, `{"sort":[{"sku":"asc"}],"search_after":["SKU-09350"]}`, true},
		{"a term's value is a value", `{"query":{"term":{"brand":"Acme"}}}`, `{"query":{"term":{"brand":"Zeta"}}}`, true},
		{"range bounds are values, day or timestamp", `{"query":{"range":{"released":{"gt":"2020-01-01"}}}}`, `{"query":{"range":{"released":{"gt":"2023-05-27T10:00:00Z"}}}}`, true},
		{"how many terms is a value", `{"query":{"terms":{"brand":["a"]}}}`, `{"query":{"terms":{"brand":["a","b","c"]}}}`, true},
		{"a non-zero size is a value", `{"size":5,"sort":[{"sku":"asc"}]}`, `{"size":20,"sort":[{"sku":"asc"}]}`, true},
		{"a threshold is a value", `{"track_total_hits":100}`, `{"track_total_hits":10000}`, true},
		{"an aggregation's name is the request's choice", `{"size":0,"aggs":{"a0":{"max":{"field":"price"}}}}`, `{"size":0,"aggs":{"by_price":{"max":{"field":"price"}}}}`, true},
		{"a keyed filter's key is the request's choice", `{"size":0,"aggs":{"a0":{"filters":{"filters":{"x":{"exists":{"field":"color"}}}}}}}`, `{"size":0,"aggs":{"a0":{"filters":{"filters":{"é":{"exists":{"field":"color"}}}}}}}`, true},
		{"a custom missing value is a value", `{"sort":[{"price":{"order":"asc","missing":1}},{"sku":"asc"}]}`, `{"sort":[{"price":{"order":"asc","missing":99.5}},{"sku":"asc"}]}`, true},
		{"a terms aggregation's size and missing are values", `{"size":0,"aggs":{"a0":{"terms":{"field":"rating","size":3,"missing":1.2}}}}`, `{"size":0,"aggs":{"a0":{"terms":{"field":"rating","size":30,"missing":4.3}}}}`, true},
		{"minimum_should_match is a value", `{"query":{"bool":{"should":[{"exists":{"field":"color"}}],"minimum_should_match":0}}}`, `{"query":{"bool":{"should":[{"exists":{"field":"color"}}],"minimum_should_match":1}}}`, true},

		{"field names are shape", `{"query":{"term":{"brand":"x"}}}`, `{"query":{"term":{"color":"x"}}}`, false},
		{"query types are shape", `{"query":{"term":{"brand":"x"}}}`, `{"query":{"prefix":{"brand":"x"}}}`, false},
		{"range operators are shape", `{"query":{"range":{"price":{"gt":1}}}}`, `{"query":{"range":{"price":{"gte":1}}}}`, false},
		{"a value's JSON type is shape", `{"query":{"term":{"in_stock":true}}}`, `{"query":{"term":{"in_stock":"true"}}}`, false},
		{"an empty terms list matches nothing", `{"query":{"terms":{"sku":[]}}}`, `{"query":{"terms":{"sku":["SKU-1"]}}}`, false},
		{"an exists query's field is shape", `{"query":{"exists":{"field":"color"}}}`, `{"query":{"exists":{"field":"price"}}}`, false},
		{"an aggregation's field is shape", `{"size":0,"aggs":{"a0":{"terms":{"field":"brand"}}}}`, `{"size":0,"aggs":{"a0":{"terms":{"field":"color"}}}}`, false},
		{"min_doc_count 0 is shape", `{"size":0,"aggs":{"a0":{"terms":{"field":"brand","min_doc_count":0}}}}`, `{"size":0,"aggs":{"a0":{"terms":{"field":"brand","min_doc_count":2}}}}`, false},
		{"a terms order is shape", `{"size":0,"aggs":{"a0":{"terms":{"field":"brand","order":{"_key":"asc"}}}}}`, `{"size":0,"aggs":{"a0":{"terms":{"field":"brand","order":{"_count":"asc"}}}}}`, false},
		{"keyed and anonymous filters differ", `{"size":0,"aggs":{"a0":{"filters":{"filters":{"x":{"exists":{"field":"color"}}}}}}}`, `{"size":0,"aggs":{"a0":{"filters":{"filters":[{"exists":{"field":"color"}}]}}}}`, false},
		{"a sort direction is shape", `{"sort":[{"sku":"asc"}]}`, `{"sort":[{"sku":"desc"}]}`, false},
		{"the bare shorthand is a form of its own", `{"sort":["sku"]}`, `{"sort":[{"sku":"asc"}]}`, false},
		{"sort keys in order", `{"sort":[{"price":"asc"},{"sku":"asc"}]}`, `{"sort":[{"rating":"asc"},{"sku":"asc"}]}`, false},
		{"missing _first and _last differ", `{"sort":[{"price":{"missing":"_first"}},{"sku":"asc"}]}`, `{"sort":[{"price":{"missing":"_last"}},{"sku":"asc"}]}`, false},
		{"a sort mode is shape", `{"sort":[{"tags":{"mode":"min"}},{"sku":"asc"}]}`, `{"sort":[{"tags":{"mode":"max"}},{"sku":"asc"}]}`, false},
		{"size 0 asks for no hits", `{"size":0,"query":{"exists":{"field":"color"}}}`, `{"size":10,"query":{"exists":{"field":"color"}}}`, false},
		{"track_total_hits true and false differ", `{"size":0,"track_total_hits":true}`, `{"size":0,"track_total_hits":false}`, false},
		{"_source fields are field names", `{"_source":["brand"],"sort":[{"sku":"asc"}]}`, `{"_source":["color"],"sort":[{"sku":"asc"}]}`, false},
		{"a bool occurrence is shape", `{"query":{"bool":{"must":[{"exists":{"field":"color"}}]}}}`, `{"query":{"bool":{"must_not":[{"exists":{"field":"color"}}]}}}`, false},
	}
	for _, tc := range tests {
		a, b := searchCase(t, tc.a).Shape(), searchCase(t, tc.b).Shape()
		if (a == b) != tc.same {
			t.Errorf("%s: same shape %v, want %v:\n  %s\n  %s", tc.why, a == b, tc.same, a, b)
		}
	}
}

// The shape as the report writes it, and the path's document id and count endpoint.
func TestShapeRendering(t *testing.T) {
	c := searchCase(t, `{"query":{"bool":{"filter":[{"range":{"price":{"gte":1.5,"lt":20}}},{"terms":{"brand":["a",3]}}],"minimum_should_match":0}},"size":7,"from":0,"sort":[{"rating":{"order":"desc","missing":2,"mode":"max"}},"color",{"sku":"asc"}],"search_after":[4.5,"blue","SKU-1"],"track_total_hits":false,"_source":{"includes":["brand"]},"aggs":{"a0":{"filters":{"filters":{"k":{"match_all":{}}},"other_bucket_key":"rest"},"aggs":{"m":{"avg":{"field":"price"}}}}}}`)
	want := `POST /{index}/_search {"query":{"bool":{"filter":[{"range":{"price":{"gte":<num>,"lt":<num>}}},{"terms":{"brand":[<str>,<num>]}}],"minimum_should_match":<num>}},"size":<num>,"from":0,` +
		`"sort":[{"rating":{"order":"desc","missing":<num>,"mode":"max"}},"color",{"sku":"asc"}],"search_after":[<num>,<str>],"track_total_hits":false,"_source":{"includes":["brand"]},` +
		`"aggs":{<agg>:{"filters":{"filters":{<key>:{"match_all":{}}},"other_bucket_key":<str>},"aggs":{<agg>:{"avg":{"field":"price"}}}}}}`
	if got := c.Shape(); got != want {
		t.Errorf("shape\n got %s\nwant %s", got, want)
	}
	get := &Case{Kind: KindGet, Method: "GET", Path: "/{index}/_doc/SKU-00042"}
	if got := get.Shape(); got != "GET /{index}/_doc/<id>" {
		t.Errorf("document read's shape %s", got)
	}
	count := &Case{Kind: KindCount, Method: "POST", Path: "/{index}/_count", Body: searchCase(t, `{"query":{"term":{"brand":"x"}}}`).Body}
	if got := count.Shape(); got != `POST /{index}/_count {"query":{"term":{"brand":<str>}}}` {
		t.Errorf("count's shape %s", got)
	}
}

func TestDescribe(t *testing.T) {
	tests := []struct{ body, want string }{
		{`{"query":{"range":{"price":{"gt":1}}},"sort":[{"rating":"desc"},{"sku":"asc"}]}`, "range-price-gt-sort-rating-desc"},
		{`{"size":0,"aggs":{"a0":{"terms":{"field":"brand"}}}}`, "terms-agg-brand-size0"},
		{`{"sort":[{"sku":"asc"}],"search_after":["SKU-1"]}`, "after"},
		{`{"sort":["sku"]}`, "sort-sku-bare"},
		{`{"sort":[{"sku":"desc"}],"size":3}`, "sort-sku-desc"},
		{`{"sort":[{"sku":"asc"}],"size":3}`, "search"},
		{`{"query":{"bool":{"must_not":[{"exists":{"field":"color"}}],"minimum_should_match":0}},"size":0,"track_total_hits":false}`, "bool-must_not-exists-color-msm-size0-tth_false"},
		{`{"size":0,"aggs":{"a0":{"filters":{"filters":{"x":{"term":{"color":"red"}}},"other_bucket":true}}}}`, "filters-agg-keyed-term-color-other_bucket-size0"},
		{`{"size":0,"aggs":{"a0":{"terms":{"field":"tags","order":{"_key":"asc"},"missing":"x"},"aggs":{"m":{"max":{"field":"price"}}}}}}`, "terms-agg-tags-order_key_asc-missing-sub-max-agg-price-size0"},
		{`{"sort":[{"price":{"order":"asc","missing":"_last","mode":"avg"}},{"sku":"asc"}],"from":5,"_source":false}`, "sort-price-missing_last-mode_avg-from-source_false"},
		{`{"query":{"term":{"näme x":"v"}},"size":0}`, "term-n_me_x-size0"},
		{`{"query":{"bool":{"should":[{"range":{"released":{"gte":"2020-01-01","lt":"2021-01-01"}}},{"terms":{"brand":["a"]}},{"prefix":{"color":"r"}},{"ids":{"values":["x"]}}]}},"sort":[{"released":{"order":"desc"}},{"stock":"asc"},{"sku":"desc"}]}`,
			"bool-should-range-released-gte-lt-terms-brand-prefix-color-ids"},
	}
	for _, tc := range tests {
		got := searchCase(t, tc.body).Describe("sku")
		if got != tc.want {
			t.Errorf("%s: named %q, want %q", tc.body, got, tc.want)
		}
		if len(got) > maxNameLen {
			t.Errorf("%s: name %q longer than %d", tc.body, got, maxNameLen)
		}
	}
	count := &Case{Method: "POST", Path: "/{index}/_count", Body: searchCase(t, `{"query":{"match_all":{}}}`).Body}
	if got := count.Describe("sku"); got != "count-match_all" {
		t.Errorf("count named %q", got)
	}
	if got := (&Case{Method: "GET", Path: "/{index}/_doc/x"}).Describe("sku"); got != "get-doc" {
		t.Errorf("document read named %q", got)
	}
}

// A reproducer fits a request it could have been shrunk from; each row says why or why not.
func TestFits(t *testing.T) {
	tests := []struct {
		why               string
		minimal, original string
		fits              bool
	}{
		{"a cursor request with the query and other sort keys dropped",
			`{"sort":[{"sku":"asc"}],"search_after":["SKU-1"]}`,
			`{"query":{"term":{"brand":"x"}},"size":7,"sort":[{"price":{"order":"desc","missing":"_last"}},{"sku":"desc"}],"track_total_hits":false,"search_after":[3,"SKU-9"]}`, true},
		{"a cursor reproducer does not fit a request without a cursor",
			`{"sort":[{"sku":"asc"}],"search_after":["SKU-1"]}`,
			`{"query":{"term":{"brand":"x"}},"sort":[{"sku":"asc"}]}`, false},
		{"a bool clause hoisted, a range bound dropped",
			`{"query":{"range":{"price":{"gt":0}}},"size":0}`,
			`{"query":{"bool":{"must":[{"range":{"price":{"gt":3,"lte":40}}},{"exists":{"field":"color"}}]}},"size":0}`, true},
		{"a sorted search loses its hits",
			`{"query":{"range":{"price":{"gt":0}}},"size":0}`,
			`{"query":{"range":{"price":{"gt":3}}},"size":4,"sort":[{"sku":"asc"}]}`, true},
		{"another range operator is another part",
			`{"query":{"range":{"price":{"gt":0}}},"size":0}`,
			`{"query":{"range":{"price":{"gte":3}}},"size":0}`, false},
		{"another field is another part",
			`{"query":{"range":{"price":{"gt":0}}},"size":0}`,
			`{"query":{"range":{"rating":{"gt":3}}},"size":0}`, false},
		{"a descending key may have become ascending",
			`{"sort":[{"price":"asc"},{"sku":"asc"}]}`,
			`{"sort":[{"price":{"order":"desc","mode":"max"}},{"sku":"desc"}]}`, true},
		{"an ascending key never becomes descending",
			`{"sort":[{"price":"desc"},{"sku":"asc"}]}`,
			`{"sort":[{"price":"asc"},{"sku":"asc"}]}`, false},
		{"shrinking never writes the bare shorthand",
			`{"sort":["sku"]}`,
			`{"sort":[{"sku":"asc"}]}`, false},
		{"shrinking writes a bare key out",
			`{"sort":[{"sku":"asc"}],"search_after":["SKU-1"]}`,
			`{"sort":["sku"],"search_after":["SKU-9"]}`, true},
		{"a filters aggregation of one filter became a filter one, a sub-aggregation hoisted",
			`{"size":0,"aggs":{"a0":{"filter":{"exists":{"field":"color"}}}}}`,
			`{"size":0,"aggs":{"by":{"terms":{"field":"brand"},"aggs":{"f":{"filters":{"filters":{"x":{"exists":{"field":"color"}}}}}}}}}`, true},
		{"an aggregation on another field",
			`{"size":0,"aggs":{"a0":{"terms":{"field":"brand"}}}}`,
			`{"size":0,"aggs":{"a0":{"terms":{"field":"color"}}}}`, false},
		{"track_total_hits false is a part",
			`{"size":0,"track_total_hits":false}`,
			`{"size":0,"track_total_hits":true}`, false},
	}
	for _, tc := range tests {
		m, o := searchCase(t, tc.minimal), searchCase(t, tc.original)
		if got := fits(m.atoms(), o.atoms()); got != tc.fits {
			t.Errorf("%s: fits %v, want %v", tc.why, got, tc.fits)
		}
	}
	count := &Case{Method: "POST", Path: "/{index}/_count", Body: searchCase(t, `{"query":{"match_all":{}}}`).Body}
	if fits(count.atoms(), searchCase(t, `{"query":{"match_all":{}},"size":0}`).atoms()) {
		t.Error("a _count reproducer fits a _search")
	}
}

// No edit writes a sort key as the bare shorthand; a key's options become its object form,
// and a descending key ascending.
func TestEditsKeepSortKeysInObjectForm(t *testing.T) {
	c := searchCase(t, `{"query":{"exists":{"field":"color"}},"size":5,"sort":[{"price":{"order":"desc","missing":"_last"}},{"rating":"desc"},{"stock":{"mode":"max"}},{"sku":"desc"}],"search_after":[1,2,3,"SKU-1"]}`)
	var sawObjectForm, sawAscending, sawNoHits bool
	for _, e := range Edits(c.Body, "sku") {
		b := e(c.Body).(*Object)
		s, ok := b.Get("sort")
		if !ok {
			if sz, _ := b.Get("size"); string(Marshal(sz)) == "0" {
				if _, after := b.Get("search_after"); !after {
					sawNoHits = true
				}
			}
			continue
		}
		keys := s.([]any)
		if sortField(keys[len(keys)-1]) != "sku" {
			t.Errorf("an edit dropped the tiebreak: %s", Marshal(b))
		}
		for _, k := range keys {
			switch x := k.(type) {
			case string:
				t.Errorf("an edit wrote the bare shorthand %q: %s", x, Marshal(b))
			case *Object:
				if opts, ok := x.Vals[0].(*Object); ok && opts.Len() == 0 {
					t.Errorf("an edit left a key with no options: %s", Marshal(b))
				}
			}
		}
		js := string(Marshal(s))
		sawObjectForm = sawObjectForm || strings.HasPrefix(js, `[{"price":"desc"},`)
		sawAscending = sawAscending || strings.Contains(js, `{"rating":"asc"}`) || strings.HasSuffix(js, `{"sku":"asc"}]`)
	}
	if !sawObjectForm || !sawAscending || !sawNoHits {
		t.Errorf("object form %v, ascending %v, no hits %v", sawObjectForm, sawAscending, sawNoHits)
	}
}

// Unshrunk (a stopped run), disagreements group by their own shape: the smallest of a shape
// is its reproducer, groups come largest first, and names that say the same get a number.
func TestGroupOrderRepresentativeAndNames(t *testing.T) {
	fail := func(class conformance.Class, path string) conformance.Result {
		return conformance.Result{Diffs: []conformance.Difference{{Class: class, Path: path, Fails: true}}}
	}
	mk := func(seq int, body string, class conformance.Class) *found {
		return &found{seq: seq, c: searchCase(t, body), want: Answer{Status: 200}, res: fail(class, "hits.total.value")}
	}
	founds := []*found{
		mk(1, `{"query":{"term":{"in_stock":true}},"size":0}`, conformance.ClassTotals),
		mk(2, `{"query":{"term":{"brand":"a"}},"size":0,"track_total_hits":true,"_source":false}`, conformance.ClassTotals),
		mk(3, `{"query":{"term":{"in_stock":"true"}},"size":0}`, conformance.ClassTotals),
		mk(4, `{"query":{"term":{"brand":"b"}},"size":0,"track_total_hits":true,"_source":false}`, conformance.ClassTotals),
		mk(5, `{"query":{"term":{"brand":"much longer value"}},"size":0,"track_total_hits":true,"_source":false}`, conformance.ClassTotals),
	}
	r := &runner{cfg: &Config{Gen: defaultGenerator(t, 1), ShrinkPerSignature: 3, ShrinkUnfitted: 8}}
	groups := r.group(context.Background(), founds, false)
	var got []string
	for _, g := range groups {
		got = append(got, fmt.Sprintf("%s %v repro=%d unshrunk=%d", g.Name, g.Seqs, g.Repro.Seq, g.Unshrunk))
	}
	want := []string{
		"fuzz/term-brand-size0-tth_true-source_false [2 4 5] repro=2 unshrunk=3",
		"fuzz/term-in_stock-size0 [1] repro=1 unshrunk=1",
		"fuzz/term-in_stock-size0-2 [3] repro=3 unshrunk=1",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("groups\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A bare sort key has one edit of its own, its object form, which is no growth to the
// shrinker (besides dropping the key, or the hits).
func TestEditsWriteBareKeysOut(t *testing.T) {
	c := searchCase(t, `{"sort":["price","sku"]}`)
	var outs []string
	for _, e := range Edits(c.Body, "sku") {
		cand := &Case{Body: e(c.Body)}
		if shrinkSize(cand) > shrinkSize(c) {
			t.Errorf("edit %s grows the request", Marshal(cand.Body))
		}
		outs = append(outs, string(Marshal(cand.Body)))
	}
	want := []string{`{"size":0}`, `{"sort":["sku"]}`, `{"sort":[{"price":"asc"},"sku"]}`, `{"sort":["price",{"sku":"asc"}]}`}
	if strings.Join(outs, " ") != strings.Join(want, " ") {
		t.Errorf("edits %v, want %v", outs, want)
	}
}

// FieldShape leaves out exactly the field names: each row's two requests share a field shape
// or not, and say which fields the first names.
func TestFieldShapeLeavesOutFieldNames(t *testing.T) {
	tests := []struct {
		why    string
		a, b   string
		same   bool
		fields string
	}{
		{"an exists query on another field", `{"query":{"exists":{"field":"color"}},"size":0}`, `{"query":{"exists":{"field":"price"}},"size":0}`, true, "color"},
		{"a term query's field is a key", `{"query":{"term":{"brand":"x"}}}`, `{"query":{"term":{"color":"y"}}}`, true, "brand"},
		{"a range's field, its operators stay", `{"query":{"range":{"price":{"gt":1}}}}`, `{"query":{"range":{"views":{"gte":1}}}}`, false, "price"},
		{"an aggregation's field", `{"size":0,"aggs":{"a0":{"terms":{"field":"brand"}}}}`, `{"size":0,"aggs":{"a0":{"terms":{"field":"stock"}}}}`, true, "brand"},
		{"a sort key's field, the tiebreak stays", `{"sort":[{"price":"asc"},{"sku":"asc"}]}`, `{"sort":[{"rating":"asc"},{"sku":"asc"}]}`, true, "price"},
		{"the tiebreak is not another sort field", `{"sort":[{"sku":"asc"}]}`, `{"sort":[{"price":"asc"}]}`, false, ""},
		{"the tiebreak is a field like another in a query", `{"query":{"prefix":{"sku":"SKU-1"}}}`, `{"query":{"prefix":{"brand":"Ac"}}}`, true, "sku"},
		{"_source fields", `{"_source":["brand"],"sort":[{"sku":"asc"}]}`, `{"_source":["color"],"sort":[{"sku":"asc"}]}`, true, "brand"},
		{"a value's type stays", `{"query":{"term":{"brand":"x"}}}`, `{"query":{"term":{"stock":3}}}`, false, "brand"},
		{"two fields", `{"query":{"exists":{"field":"color"}},"sort":[{"price":"desc"},{"sku":"asc"}]}`, `{"query":{"exists":{"field":"tags"}},"sort":[{"views":"desc"},{"sku":"asc"}]}`, true, "color+price"},
	}
	for _, tc := range tests {
		a, fa := searchCase(t, tc.a).FieldShape("sku")
		b, _ := searchCase(t, tc.b).FieldShape("sku")
		if (a == b) != tc.same {
			t.Errorf("%s: same field shape %v, want %v\n  %s\n  %s", tc.why, a == b, tc.same, a, b)
		}
		if got := strings.Join(fa, "+"); got != tc.fields {
			t.Errorf("%s: fields %q, want %q (%s)", tc.why, got, tc.fields, a)
		}
		if searchCase(t, tc.a).Shape() == searchCase(t, tc.b).Shape() && tc.fields != "" {
			t.Errorf("%s: the shapes are the same too", tc.why)
		}
	}
}

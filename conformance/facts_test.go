package conformance

import (
	"maps"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// catalogueFacts are the facts of the catalogue as conform loads it: no deletions, and only
// tags holds arrays.
var (
	catalogueFields = FieldTypes{"brand": {Type: "keyword"}, "tags": {Type: "keyword"}, "views": {Type: "long"}, "stock": {Type: "integer"},
		"weight": {Type: "double"}, "released": {Type: "date"}, "price": {Type: "double"}}
	catalogueFacts = IndexFacts{Deletions: DeletionsNone, MultiValued: map[string]bool{"tags": true}}
	catalogueOpts  = &Options{Fields: catalogueFields, Index: catalogueFacts}
)

func TestMultiValuedFields(t *testing.T) {
	got := MultiValuedFields([][]byte{
		[]byte(`{"a":1,"b":[1],"c":[1,2],"d":[],"e":[null,3],"f":{"g":[1,2],"h":1}}`),
		[]byte(`{"o":[{"x":1,"y":1},{"x":2}],"p":{"q":1},"p.q":2,"s":"x"}`),
		[]byte(`{"a":5,"nested":{"deep":{"k":[[1],[2]]}}}`),
	})
	want := map[string]bool{"c": true, "f.g": true, "o.x": true, "p.q": true, "nested.deep.k": true}
	if !maps.Equal(got, want) {
		t.Errorf("got %v, want %v (a one-element array, an empty one and a null are one value or none; an object array's fields "+
			"and a dotted key beside its object are several)", got, want)
	}
	if got := MultiValuedFields(nil); got == nil || len(got) != 0 {
		t.Errorf("no documents: want an empty set (known), got %#v", got)
	}
	f := IndexFacts{MultiValued: map[string]bool{"o": true}}
	if f.singleValued("o.x") || f.singleValued("o") || !f.singleValued("p") {
		t.Error("a field under a multi-valued object is multi-valued; another field is not")
	}
	if (IndexFacts{}).singleValued("p") {
		t.Error("without the documents no field is known to be single-valued")
	}
}

// TestCountFacts: each fact of the index decides the count of the queries Lucene 9.11 counts
// only under it (see countOf).
func TestCountFacts(t *testing.T) {
	multi := IndexFacts{Deletions: DeletionsNone, MultiValued: map[string]bool{"views": true, "brand": true, "obj": true}}
	deleted := IndexFacts{Deletions: DeletionsSome, MultiValued: map[string]bool{}}
	unknownDeletions := IndexFacts{MultiValued: map[string]bool{}}
	noCorpus := IndexFacts{Deletions: DeletionsNone}
	tests := []struct {
		query string
		facts IndexFacts
		gte   bool
		why   string
	}{
		{`{"term":{"views":5}}`, catalogueFacts, false, "a points exact query on a single-valued field is counted"},
		{`{"term":{"views":5}}`, multi, true, "PointRangeQuery#count needs docCount == size for a partial range"},
		{`{"range":{"views":{"gte":5}}}`, multi, true, "the same for a range"},
		{`{"range":{"views":{"gte":5}}}`, noCorpus, true, "without the corpus no numeric field is known single-valued"},
		{`{"term":{"brand":"Acme"}}`, multi, false, "TermWeight#count is docFreq, documents not values"},
		{`{"term":{"tags":"x"}}`, catalogueFacts, false, "the catalogue's tags hold arrays; a keyword term is still counted"},
		{`{"exists":{"field":"views"}}`, multi, false, "FieldExistsQuery counts the points' docCount"},
		{`{"term":{"obj.n":1}}`, multi, true, "a field under an object with arrays: its type is not in the top-level mapping"},
		{`{"term":{"other.n":1}}`, multi, false, "a field the corpus shows single-valued, whatever its type"},
		{`{"term":{"brand":"Acme"}}`, deleted, true, "TermWeight#count needs no deletions"},
		{`{"range":{"views":{"gte":5}}}`, deleted, true, "PointRangeQuery#count needs no deletions"},
		{`{"exists":{"field":"views"}}`, deleted, true, "FieldExistsQuery#count needs no deletions"},
		{`{"term":{"brand":"Acme"}}`, unknownDeletions, true, "deletions not known are assumed"},
		{`{"match_all":{}}`, deleted, false, "MatchAllDocsQuery counts numDocs, deletions or not"},
		{`{"bool":{"must_not":[{"term":{"brand":"a"}}]}}`, deleted, true, "numDocs less a count the deletions hide"},
		{`{"bool":{"must_not":[{"term":{"brand":"a"}}]}}`, catalogueFacts, false, "numDocs less the term's count"},
		{`{"exists":{"field":"body"}}`, catalogueFacts, true, "a text field's exists reads norms: counted only where every document has it"},
	}
	fields := FieldTypes{"brand": {Type: "keyword"}, "tags": {Type: "keyword"}, "views": {Type: "long"}, "body": {Type: "text"}}
	for _, tt := range tests {
		if got := MayCountAtLeast(gjson.Parse(tt.query), fields, tt.facts); got != tt.gte {
			t.Errorf("%s under %s: may be gte %v, want %v (%s)", tt.query, tt.facts, got, tt.gte, tt.why)
		}
	}
}

// TestRelationFacts: at exactly track_total_hits, a target's "gte" for a term query fails only
// where the facts say Lucene counts it; an oracle's "gte" lets the target say "eq" only where
// the oracle's count depends on the layout.
func TestRelationFacts(t *testing.T) {
	gte := func(b string) string { return strings.Replace(b, `"eq"`, `"gte"`, 1) }
	term := `{"query":{"term":{"brand":"Acme"}},"size":0,"track_total_hits":1}`
	ids := `{"query":{"ids":{"values":["a"]}},"size":0,"track_total_hits":1}`
	all := `{"size":0,"track_total_hits":1}`
	withDeletions := &Options{Fields: catalogueFields, Index: IndexFacts{Deletions: DeletionsSome, MultiValued: map[string]bool{}}}
	oracleKnown := &Options{Fields: catalogueFields, Index: catalogueFacts, OracleIndex: catalogueFacts}
	tests := []struct {
		name, request, want, got string
		opts                     *Options
		pass                     bool
		why                      string
	}{
		{"term, facts hold", term, hitsBody(1), gte(hitsBody(1)), catalogueOpts, false, "TermWeight#count answers: eq, always"},
		{"term, deletions", term, hitsBody(1), gte(hitsBody(1)), withDeletions, true, "TermWeight#count is -1 in a segment with deletions"},
		{"term, nothing known", term, hitsBody(1), gte(hitsBody(1)), &Options{Fields: catalogueFields}, true, "deletions not known are assumed"},
		{"term, no options", term, hitsBody(1), gte(hitsBody(1)), nil, true, "nil options know no facts"},
		{"match_all, deletions", all, hitsBody(1), gte(hitsBody(1)), withDeletions, false, "numDocs is exact with deletions"},
		{"oracle gte, term, oracle not known", term, gte(hitsBody(1)), hitsBody(1), catalogueOpts, true,
			"a live oracle with deletions may say gte for exactly 1"},
		{"oracle gte, term, oracle facts hold", term, gte(hitsBody(1)), hitsBody(1), oracleKnown, false,
			"the oracle counted the term: its gte means more than 1 match"},
		{"oracle gte, ids, oracle facts hold", ids, gte(hitsBody(1)), hitsBody(1), oracleKnown, true,
			"TermInSetQuery is collected: exactly 1 may say gte"},
		{"oracle gte, match_all", all, gte(hitsBody(1)), hitsBody(1), catalogueOpts, false, "numDocs is always counted"},
		{"oracle gte, another value", ids, gte(hitsBody(1)), hitsBody(2), catalogueOpts, false, "the value is still compared"},
		{"oracle gte, a hits page", `{"query":{"ids":{"values":["a"]}},"size":3,"track_total_hits":1}`, gte(hitsBody(1)), hitsBody(1), catalogueOpts, false,
			"the rule is for size 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x, err := Compile(200, []byte(tt.want))
			if err != nil {
				t.Fatal(err)
			}
			if x.Check(200, []byte(tt.got), tt.opts).Pass {
				t.Fatal("passes without the request: the row tests nothing")
			}
			r := x.ForRequest([]byte(tt.request)).Check(200, []byte(tt.got), tt.opts)
			if r.Pass != tt.pass {
				t.Errorf("pass %v, want %v (%s):\n%s", r.Pass, tt.pass, tt.why, r)
			}
			if tt.pass && (len(r.Diffs) != 1 || r.Diffs[0].Fails || r.Diffs[0].Path != "hits.total.relation") {
				t.Errorf("want the one difference kept, reported and not failing: %+v", r.Diffs)
			}
		})
	}
}

func TestCopyToTargets(t *testing.T) {
	mapping := []byte(`{"settings":{},"mappings":{"properties":{
		"first":{"type":"keyword","copy_to":"names"},
		"last":{"type":"keyword","copy_to":["names","all"]},
		"names":{"type":"keyword"},
		"all":{"type":"text"},
		"dims":{"properties":{"w":{"type":"long","copy_to":"dims.any"},"any":{"type":"long"}}},
		"title":{"type":"text","fields":{"raw":{"type":"keyword","copy_to":"titles"}}},
		"price":{"type":"double"}}}}`)
	got := CopyToTargets(mapping)
	want := []string{"all", "dims.any", "names", "names", "titles"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("got %v, want %v", got, want)
	}
	if got := CopyToTargets([]byte(`{"properties":{"a":{"type":"long","copy_to":"b"}}}`)); len(got) != 1 || got[0] != "b" {
		t.Errorf("a bare mapping: got %v", got)
	}
}

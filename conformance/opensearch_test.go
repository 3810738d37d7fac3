package conformance

import (
	"github.com/tidwall/gjson"
	"strconv"
	"strings"
	"testing"
)

var osFields = FieldTypes{
	"sku":      {Type: "keyword"},
	"tags":     {Type: "keyword"},
	"stock":    {Type: "integer"},
	"views":    {Type: "long"},
	"rating":   {Type: "float"},
	"weight":   {Type: "double"},
	"in_stock": {Type: "boolean"},
	"released": {Type: "date"},
	"price":    {Type: "scaled_float", ScalingFactor: 100},
}

func hitsBody(total int, hits ...string) string {
	return `{"took":1,"hits":{"total":{"value":` + strconv.Itoa(total) + `,"relation":"eq"},"max_score":null,"hits":[` + strings.Join(hits, ",") + `]}}`
}

func hit(id, sort string) string {
	return `{"_index":"catalogue","_id":"` + id + `","_score":null,"sort":` + sort + `}`
}

const npe500 = `{"error":{"root_cause":[{"type":"null_pointer_exception","reason":"Cannot read field \"bytes\" because \"other\" is null"}],"type":"search_phase_execution_exception","reason":"all shards failed"},"status":500}`

func errBody(rootCause string) string {
	return `{"error":{"root_cause":[{"type":"` + rootCause + `","reason":null}],"type":"search_phase_execution_exception","reason":"all shards failed"},"status":500}`
}

// TestOpenSearchRelaxations checks each OpenSearch relaxation on the divergence it names, and
// that it excuses nothing next to it: another request shape, another difference, another error.
func TestOpenSearchRelaxations(t *testing.T) {
	tests := []struct {
		name      string
		relax     Relaxation
		request   string
		want, got string
		gotStatus int
		pass      bool // under the relaxation; every row fails without it
		why       string
	}{
		{"int missing bound", RelaxOSIntSort, `{"sort":[{"stock":{"missing":"_last"}},"sku"]}`,
			hitsBody(1, hit("a", `[9223372036854775807,"a"]`)), hitsBody(1, hit("a", `[2147483647,"a"]`)), 200, true,
			"OpenSearch sorts an integer as Lucene INT: the missing value is Integer.MAX_VALUE"},
		{"int missing lower bound", RelaxOSIntSort, `{"sort":[{"in_stock":{"missing":"_first"}},"sku"]}`,
			hitsBody(1, hit("a", `[-9223372036854775808,"a"]`)), hitsBody(1, hit("a", `[-2147483648,"a"]`)), 200, true,
			"boolean is sorted as INT too"},
		{"long field keeps long bounds", RelaxOSIntSort, `{"sort":[{"views":{"missing":"_last"}},"sku"]}`,
			hitsBody(1, hit("a", `[9223372036854775807,"a"]`)), hitsBody(1, hit("a", `[2147483647,"a"]`)), 200, false,
			"a long field is LONG in both engines"},
		{"another value at an int key", RelaxOSIntSort, `{"sort":["stock","sku"]}`,
			hitsBody(1, hit("a", `[9223372036854775807,"a"]`)), hitsBody(1, hit("a", `[2147483646,"a"]`)), 200, false,
			"only the bound for the bound"},
		{"the bound on the sku key", RelaxOSIntSort, `{"sort":["sku","stock"]}`,
			hitsBody(1, hit("a", `["a",9223372036854775807]`)), hitsBody(1, hit("a", `["b",9223372036854775807]`)), 200, false,
			"a keyword key is not an int key"},
		{"search_after cast to int", RelaxOSIntSort, `{"sort":["stock","sku"],"search_after":[9223372036854775807,"a"]}`,
			hitsBody(3, hit("b", `[9223372036854775807,"b"]`)), hitsBody(3, hit("c", `[9223372036854775807,"c"]`)), 200, true,
			"OpenSearch reads the search_after value with intValue(): Long.MAX_VALUE becomes -1"},
		{"search_after in the int range", RelaxOSIntSort, `{"sort":["stock","sku"],"search_after":[5,"a"]}`,
			hitsBody(3, hit("b", `[6,"b"]`)), hitsBody(3, hit("c", `[6,"c"]`)), 200, false,
			"both engines read 5 alike"},
		{"search_after cast leaves totals", RelaxOSIntSort, `{"sort":["stock","sku"],"search_after":[9223372036854775807,"a"]}`,
			hitsBody(3, hit("b", `[1,"b"]`)), hitsBody(4, hit("b", `[1,"b"]`)), 200, false,
			"search_after does not change the total"},
		{"null keyword search_after 500", RelaxOSSearchAfterNullKeyword, `{"sort":["tags","sku"],"search_after":[null,"a"],"track_total_hits":false}`,
			hitsBody(1, hit("b", `[null,"b"]`)), npe500, 500, true, "OpenSearch's keyword comparator reads the null top value"},
		{"null keyword, another error", RelaxOSSearchAfterNullKeyword, `{"sort":["tags","sku"],"search_after":[null,"a"]}`,
			hitsBody(1, hit("b", `[null,"b"]`)), errBody("illegal_argument_exception"), 500, false, "only the null pointer exception"},
		{"no null in search_after", RelaxOSSearchAfterNullKeyword, `{"sort":["tags","sku"],"search_after":["x","a"]}`,
			hitsBody(1, hit("b", `["y","b"]`)), npe500, 500, false, "the request must carry the null"},
		{"sort mode avg 500", RelaxOSSortMode, `{"sort":[{"stock":{"mode":"avg"}},"sku"]}`,
			hitsBody(1, hit("a", `[0,"a"]`)), errBody("unsupported_operation_exception"), 500, true, "integer"},
		{"sort mode median on a float", RelaxOSSortMode, `{"sort":[{"rating":{"mode":"median"}},"sku"]}`,
			hitsBody(1, hit("a", `[1.0,"a"]`)), errBody("array_index_out_of_bounds_exception"), 500, true, "float"},
		{"sort mode min", RelaxOSSortMode, `{"sort":[{"stock":{"mode":"min"}},"sku"]}`,
			hitsBody(1, hit("a", `[0,"a"]`)), errBody("unsupported_operation_exception"), 500, false, "min and max sort natively"},
		{"sort mode avg on a double", RelaxOSSortMode, `{"sort":[{"weight":{"mode":"avg"}},"sku"]}`,
			hitsBody(1, hit("a", `[1.0,"a"]`)), errBody("unsupported_operation_exception"), 500, false, "OpenSearch sorts doubles by avg"},
		{"scaled_float first sort key", RelaxOSScaledFloatSort, `{"sort":[{"price":{"order":"desc"}},"sku"]}`,
			hitsBody(9, hit("a", `[300.0,"a"]`)), hitsBody(9, hit("b", `[113.25,"b"]`)), 200, true, "the hits are excused"},
		{"scaled_float first sort key, totals", RelaxOSScaledFloatSort, `{"sort":[{"price":{"order":"desc"}},"sku"]}`,
			hitsBody(9, hit("a", `[300.0,"a"]`)), hitsBody(8, hit("a", `[300.0,"a"]`)), 200, false, "the total is not the sort's"},
		{"scaled_float second sort key", RelaxOSScaledFloatSort, `{"sort":["sku",{"price":{"order":"desc"}}]}`,
			hitsBody(9, hit("a", `["a",300.0]`)), hitsBody(9, hit("b", `["b",113.25]`)), 200, false, "only the first key is pruned"},
		{"scaled_float bound off the grid", RelaxOSScaledFloatRounding, `{"query":{"range":{"price":{"gte":1.004}}}}`,
			hitsBody(9), hitsBody(10), 200, true, "ceil(100.4) = 101 in Elasticsearch, round(100.4) = 100 in OpenSearch"},
		{"scaled_float bound in an aggregation", RelaxOSScaledFloatRounding, `{"size":0,"aggs":{"f":{"filter":{"range":{"price":{"lte":1.006}}}}}}`,
			`{"took":1,"hits":{"total":{"value":10,"relation":"eq"},"max_score":null,"hits":[]},"aggregations":{"f":{"doc_count":3}}}`,
			`{"took":1,"hits":{"total":{"value":10,"relation":"eq"},"max_score":null,"hits":[]},"aggregations":{"f":{"doc_count":4}}}`, 200, true,
			"floor(100.6) = 100, round(100.6) = 101"},
		{"scaled_float bound on the grid", RelaxOSScaledFloatRounding, `{"query":{"range":{"price":{"lte":149.95}}}}`,
			hitsBody(8723), hitsBody(8719), 200, false, "on the grid both engines select 14995"},
		{"scaled_float bound where both roundings agree", RelaxOSScaledFloatRounding, `{"query":{"range":{"price":{"lte":1.004}}}}`,
			hitsBody(9), hitsBody(10), 200, false, "floor(100.4) = round(100.4) = 100"},
		{"scaled_float term at a half point", RelaxOSScaledFloatRounding, `{"query":{"term":{"price":0.145}}}`,
			hitsBody(2), hitsBody(0), 200, true, "round(14.5) = 15 in decimal, round(0.145*100 = 14.499999999999998) = 14 in doubles"},
		{"search_after skips aggregated documents", RelaxOSSearchAfterAggs,
			`{"query":{"ids":{"values":["SKU-33107"]}},"sort":["views","sku"],"track_total_hits":false,"aggs":{"a0":{"terms":{"field":"sku"}}},"search_after":[399000,"SKU-09836"]}`,
			`{"took":1,"hits":{"max_score":null,"hits":[]},"aggregations":{"a0":{"doc_count_error_upper_bound":0,"sum_other_doc_count":0,"buckets":[{"key":"SKU-33107","doc_count":1}]}}}`,
			`{"took":1,"hits":{"max_score":null,"hits":[]},"aggregations":{"a0":{"doc_count_error_upper_bound":0,"sum_other_doc_count":0,"buckets":[]}}}`, 200, true,
			"the shrunk case from seed 2: OpenSearch aggregates only the documents after the cursor"},
		{"search_after aggregations, totals tracked", RelaxOSSearchAfterAggs,
			`{"sort":["views","sku"],"aggs":{"a0":{"terms":{"field":"sku"}}},"search_after":[399000,"SKU-09836"]}`,
			`{"took":1,"hits":{"total":{"value":1,"relation":"eq"},"max_score":null,"hits":[]},"aggregations":{"a0":{"buckets":[{"key":"SKU-33107","doc_count":1}]}}}`,
			`{"took":1,"hits":{"total":{"value":1,"relation":"eq"},"max_score":null,"hits":[]},"aggregations":{"a0":{"buckets":[]}}}`, 200, false,
			"with totals tracked OpenSearch aggregates every match"},
		{"search_after on a keyword, aggregations", RelaxOSSearchAfterAggs,
			`{"sort":["sku"],"track_total_hits":false,"aggs":{"a0":{"terms":{"field":"weight"}}},"search_after":["SKU-99977"]}`,
			`{"took":1,"hits":{"max_score":null,"hits":[]},"aggregations":{"a0":{"sum_other_doc_count":9348,"buckets":[{"key":1.0,"doc_count":39}]}}}`,
			`{"took":1,"hits":{"max_score":null,"hits":[]},"aggregations":{"a0":{"sum_other_doc_count":2551,"buckets":[{"key":6.0,"doc_count":13}]}}}`, 200, true,
			"the shrunk case from seed 5: a keyword first key prunes alike"},
		{"search_after on _doc, aggregations", RelaxOSSearchAfterAggs,
			`{"sort":["_doc"],"track_total_hits":false,"aggs":{"a0":{"terms":{"field":"weight"}}},"search_after":[9000]}`,
			`{"took":1,"hits":{"max_score":null,"hits":[]},"aggregations":{"a0":{"buckets":[{"key":1.0,"doc_count":39}]}}}`,
			`{"took":1,"hits":{"max_score":null,"hits":[]},"aggregations":{"a0":{"buckets":[]}}}`, 200, false,
			"_doc order does not prune the aggregations on OpenSearch 3.6.0"},
		{"search_after aggregations, hits", RelaxOSSearchAfterAggs,
			`{"sort":["sku"],"track_total_hits":false,"aggs":{"a0":{"terms":{"field":"weight"}}},"search_after":["SKU-99977"]}`,
			`{"took":1,"hits":{"max_score":null,"hits":[` + hit("SKU-99978", `["SKU-99978"]`) + `]},"aggregations":{"a0":{"buckets":[]}}}`,
			`{"took":1,"hits":{"max_score":null,"hits":[` + hit("SKU-99979", `["SKU-99979"]`) + `]},"aggregations":{"a0":{"buckets":[]}}}`, 200, false,
			"the hits are not the aggregations'"},
		{"double field bound", RelaxOSScaledFloatRounding, `{"query":{"range":{"weight":{"gte":1.004}}}}`,
			hitsBody(9), hitsBody(10), 200, false, "not a scaled_float"},
		{"off-grid bound, status", RelaxOSScaledFloatRounding, `{"query":{"range":{"price":{"gte":1.004}}}}`,
			hitsBody(9), errBody("illegal_argument_exception"), 400, false, "an error is not a rounding"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x, err := Compile(200, []byte(tt.want))
			if err != nil {
				t.Fatal(err)
			}
			x.ForRequest([]byte(tt.request))
			strict := x.Check(tt.gotStatus, []byte(tt.got), &Options{Fields: osFields})
			if strict.Pass {
				t.Fatalf("passes without the relaxation: the row tests nothing (%s)", tt.why)
			}
			relaxed := x.Check(tt.gotStatus, []byte(tt.got), &Options{Relax: []Relaxation{tt.relax}, Fields: osFields})
			if relaxed.Pass != tt.pass {
				t.Fatalf("pass %v under %s, want %v (%s):\n%s", relaxed.Pass, tt.relax, tt.pass, tt.why, relaxed)
			}
			for _, d := range relaxed.Diffs {
				if d.Relaxed != "" && d.Relaxed != tt.relax {
					t.Errorf("%s excused by %s", d.Path, d.Relaxed)
				}
			}
			// The group name excuses the same; without the field types nothing is excused.
			group := x.Check(tt.gotStatus, []byte(tt.got), &Options{Relax: []Relaxation{RelaxOpenSearch}, Fields: osFields})
			if group.Pass != tt.pass {
				t.Errorf("pass %v under opensearch, want %v", group.Pass, tt.pass)
			}
			if x.Check(tt.gotStatus, []byte(tt.got), &Options{Relax: []Relaxation{tt.relax}}).Pass {
				t.Errorf("passes without the field types")
			}
		})
	}
}

// TestScaledFloatBounds derives each engine's stored-long bound by hand (factor 100).
func TestScaledFloatBounds(t *testing.T) {
	tests := []struct {
		x                float64
		lower, exclusive bool
		es, os           int64
		why              string
	}{
		{149.95, false, false, 14995, 14995, "on the grid: floor(14995.0), round(14994.999999999998)"},
		{149.95, false, true, 14994, 14994, "lt: floor(nextDown(14995.0)) = 14994; round - 1"},
		{149.95, true, false, 14995, 14995, "gte on the grid"},
		{149.95, true, true, 14996, 14996, "gt: ceil(nextUp(14995.0)) = 14996; round + 1"},
		{1.004, true, false, 101, 100, "ceil(100.4) against round(100.4)"},
		{1.004, false, false, 100, 100, "floor(100.4) = round(100.4)"},
		{1.006, false, false, 100, 101, "floor(100.6) against round(100.6)"},
		{1.006, true, true, 101, 102, "gt: ceil(nextUp(100.6)) = 101; round(100.6) + 1 = 102"},
	}
	for _, tt := range tests {
		if got := esBound(tt.x, 100, tt.lower, tt.exclusive); got != tt.es {
			t.Errorf("esBound(%v, lower %v, exclusive %v) = %d, want %d (%s)", tt.x, tt.lower, tt.exclusive, got, tt.es, tt.why)
		}
		if got := osBound(tt.x, 100, tt.lower, tt.exclusive); got != tt.os {
			t.Errorf("osBound(%v, lower %v, exclusive %v) = %d, want %d (%s)", tt.x, tt.lower, tt.exclusive, got, tt.os, tt.why)
		}
	}
}

func TestParseRelaxationsGroup(t *testing.T) {
	rs, err := ParseRelaxations("ignore-totals-relation,opensearch,opensearch-int-sort")
	if err != nil {
		t.Fatal(err)
	}
	o := &Options{Relax: rs}
	want := "strict, relaxed: ignore-totals-relation, opensearch-int-sort, opensearch-search-after-null-keyword, opensearch-scaled-float-rounding, opensearch-scaled-float-sort, opensearch-sort-mode, opensearch-search-after-aggs"
	if o.String() != want {
		t.Errorf("header %q, want %q", o.String(), want)
	}
	if err := (&Options{Relax: []Relaxation{RelaxOpenSearch}}).Validate(); err != nil {
		t.Errorf("the group name does not validate: %v", err)
	}
	if _, err := ParseRelaxations("opensearch-everything"); err == nil || !strings.Contains(err.Error(), "opensearch-sort-mode") {
		t.Errorf("an unknown name: %v", err)
	}
}

func TestParseFieldTypes(t *testing.T) {
	ft, err := ParseFieldTypes([]byte(`{"mappings":{"properties":{"price":{"type":"scaled_float","scaling_factor":100},"stock":{"type":"integer"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if ft["price"] != (FieldType{Type: "scaled_float", ScalingFactor: 100}) || ft["stock"].Type != "integer" {
		t.Errorf("got %+v", ft)
	}
	if _, err := ParseFieldTypes([]byte(`{`)); err == nil {
		t.Error("a broken mapping reads")
	}
}

// TestRelationAtThreshold: a size-0 search matching exactly track_total_hits documents may
// say "gte" on Elasticsearch itself (PartialHitCountCollector, see acceptAtThreshold).
func TestRelationAtThreshold(t *testing.T) {
	gte := func(b string) string { return strings.Replace(b, `"eq"`, `"gte"`, 1) }
	tests := []struct {
		name, request, want, got string
		pass                     bool
		why                      string
	}{
		{"exactly N", `{"query":{"ids":{"values":["SKU-54997"]}},"size":0,"track_total_hits":1}`, hitsBody(1), gte(hitsBody(1)), true,
			"real Elasticsearch 8.15.0 answered gte (fuzz seed 4)"},
		{"under N", `{"size":0,"track_total_hits":2}`, hitsBody(1), gte(hitsBody(1)), false, "one match under 2 is counted whole"},
		{"a bool with must_not", `{"query":{"bool":{"filter":[{"terms":{"stock":[81]}}],"must_not":[{"exists":{"field":"weight"}}]}},"size":0,"track_total_hits":1}`,
			hitsBody(1), gte(hitsBody(1)), true, "real Elasticsearch 8.15.0 answered gte (fuzz seed 3)"},
		{"match_all at the default threshold", `{"size":0}`, hitsBody(10000), gte(hitsBody(10000)), false,
			"MatchAllDocsQuery is counted from the index: eq, always"},
		{"a term query", `{"query":{"term":{"brand":"Acme"}},"size":0,"track_total_hits":1}`, hitsBody(1), gte(hitsBody(1)), false,
			"a term query is counted from its doc freq: eq, always"},
		{"a hits page", `{"size":1,"track_total_hits":1}`, hitsBody(1, hit("a", `["a"]`)), gte(hitsBody(1, hit("a", `["a"]`))), false,
			"a top-docs collector reports gte only past N"},
		{"the value", `{"size":0,"track_total_hits":1}`, hitsBody(1), gte(hitsBody(2)), false, "the value is compared"},
		{"totals tracked", `{"size":0,"track_total_hits":true}`, hitsBody(1), gte(hitsBody(1)), false, "true counts exactly"},
		{"a conjunction of a term and a range", `{"query":{"bool":{"must":[{"term":{"price":58.25}},{"range":{"views":{"lte":7089}}}]}},"size":0,"track_total_hits":1}`,
			hitsBody(1), gte(hitsBody(1)), true, "real Elasticsearch 8.15.0 answered gte (issue 28): two partial clauses, BooleanWeight#count -1"},
		{"a pure negative bool", `{"query":{"bool":{"must_not":{"term":{"brand":"Acme"}}}},"size":0,"track_total_hits":1}`,
			hitsBody(1), gte(hitsBody(1)), false, "numDocs - the term's count: eq, always"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x, err := Compile(200, []byte(tt.want))
			if err != nil {
				t.Fatal(err)
			}
			if x.Check(200, []byte(tt.got), catalogueOpts).Pass {
				t.Fatal("passes without the request: the row tests nothing")
			}
			r := x.ForRequest([]byte(tt.request)).Check(200, []byte(tt.got), catalogueOpts)
			if r.Pass != tt.pass {
				t.Errorf("pass %v, want %v (%s):\n%s", r.Pass, tt.pass, tt.why, r)
			}
			if tt.pass && (len(r.Diffs) != 1 || r.Diffs[0].Relaxed != "") {
				t.Errorf("want the one difference kept, reported and not relaxed: %+v", r.Diffs)
			}
		})
	}
}

// TestMayCountAtLeast follows Lucene 9.11's Weight#count for the queries conform's fuzz
// generator makes (see countOf); lab/realengines/relation_test.go checks the same predicate
// against real Elasticsearch 8.15.0.
func TestMayCountAtLeast(t *testing.T) {
	fields := FieldTypes{"brand": {Type: "keyword"}, "views": {Type: "long"}, "released": {Type: "date"}, "price": {Type: "double"}}
	tests := []struct {
		query string
		gte   bool
		why   string
	}{
		{``, false, "no query is MatchAllDocsQuery"},
		{`{"match_all":{}}`, false, "MatchAllDocsQuery counts numDocs"},
		{`{"term":{"brand":"Acme"}}`, false, "TermQuery counts its doc freq"},
		{`{"term":{"brand":{"value":"acme","case_insensitive":true}}}`, true, "an AutomatonQuery has no count"},
		{`{"term":{"views":5}}`, false, "a points exact query on a single-valued field is counted"},
		{`{"range":{"views":{"gte":5}}}`, false, "a 1-D points range on a single-valued field is counted"},
		{`{"range":{"released":{"gte":"2020-01-01"}}}`, false, "a date range is a points range"},
		{`{"range":{"brand":{"gte":"a"}}}`, true, "TermRangeQuery is a multi-term query"},
		{`{"range":{"nosuch":{"gte":1}}}`, true, "a field of unknown type may be a keyword"},
		{`{"exists":{"field":"views"}}`, false, "FieldExistsQuery counts the points' docCount"},
		{`{"ids":{"values":["a"]}}`, true, "TermInSetQuery has no count"},
		{`{"terms":{"brand":["a"]}}`, true, "TermInSetQuery has no count"},
		{`{"prefix":{"brand":"a"}}`, true, "a multi-term query has no count"},
		{`{"bool":{}}`, false, "an empty bool is MatchAllDocsQuery"},
		{`{"bool":{"filter":[{"term":{"brand":"a"}}]}}`, false, "one required clause"},
		{`{"bool":{"filter":[{"term":{"brand":"a"}},{"match_all":{}}]}}`, false, "a clause matching everything is skipped by reqCount"},
		{`{"bool":{"must":[{"term":{"price":58.25}},{"range":{"views":{"lte":7089}}}]}}`, true, "two partial required clauses: -1"},
		{`{"bool":{"should":[{"term":{"brand":"a"}}]}}`, false, "a pure disjunction of one clause"},
		{`{"bool":{"should":[{"term":{"brand":"a"}},{"term":{"brand":"b"}}]}}`, true, "two partial optional clauses: -1"},
		{`{"bool":{"should":[{"ids":{"values":["a"]}},{"match_all":{}}]}}`, false, "a clause matching everything makes the disjunction numDocs"},
		{`{"bool":{"should":[{"term":{"brand":"a"}}],"minimum_should_match":1}}`, true, "a minimum_should_match gives -1"},
		{`{"bool":{"must_not":[{"term":{"brand":"a"}}]}}`, false, "a pure negative bool: numDocs minus the clause's count"},
		{`{"bool":{"must_not":[{"term":{"brand":"a"}},{"term":{"brand":"b"}}]}}`, true, "two partial prohibited clauses: -1"},
		{`{"bool":{"filter":[{"term":{"brand":"a"}}],"must_not":[{"term":{"brand":"b"}}]}}`, true, "a partial positive part less a partial prohibited one: -1"},
		{`{"bool":{"should":[{"term":{"brand":"a"}}],"must_not":[{"term":{"brand":"b"}}]}}`, true, "should and must_not alone: no positive count"},
		{`{"bool":{"filter":[{"term":{"brand":"a"}}],"should":[{"ids":{"values":["x"]}}]}}`, false, "optional clauses beside required ones do not count"},
		{`{"constant_score":{"filter":{"term":{"brand":"a"}}}}`, false, "ConstantScoreQuery's weight counts as its filter's"},
		{`{"bool":{"filter":[{"bool":{"must":[{"term":{"brand":"a"}}]}}]}}`, false, "nested bools follow the same rules"},
	}
	for _, tt := range tests {
		q := gjson.Parse(tt.query)
		if got := MayCountAtLeast(q, fields, catalogueFacts); got != tt.gte {
			t.Errorf("%s: may be gte %v, want %v (%s)", tt.query, got, tt.gte, tt.why)
		}
	}
	if MayCountAtLeast(gjson.Parse(`{"range":{"views":{"gte":5}}}`), nil, catalogueFacts) != true {
		t.Error("without the mapping a range may be on a keyword field: gte must be allowed")
	}
}

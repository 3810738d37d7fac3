package engine

import (
	"strings"
	"testing"
)

// Tests mirroring the values Elasticsearch's own YAML REST tests assert
// (testdata/es-rest-tests/elasticsearch/.../rest-api-spec/test/...).

func mustDo(t *testing.T, e *Engine, method, target, body string) string {
	t.Helper()
	st, _, raw := do(t, e, method, target, body)
	if st >= 300 {
		t.Fatalf("%s %s: %d %s", method, target, st, raw)
	}
	return raw
}

func TestYAMLSearchAfter90(t *testing.T) {
	e := New()
	mustDo(t, e, "PUT", "/test", "")
	mustDo(t, e, "PUT", "/test/_doc/1", `{ "id": 1, "foo": "bar", "age": 18 }`)
	mustDo(t, e, "PUT", "/test/_doc/42", `{ "id": 42, "foo": "bar", "age": 18 }`)
	mustDo(t, e, "PUT", "/test/_doc/172", `{ "id": 172, "foo": "bar", "age": 24 }`)
	steps := []struct{ after, id, sort string }{
		{"", "172", "[24,172]"}, {"[24, 172]", "42", "[18,42]"}, {"[18, 42]", "1", "[18,1]"}, {"[18, 1]", "", ""},
	}
	for _, s := range steps {
		body := `{"size":1,"query":{"match":{"foo":"bar"}},"sort":[{"age":"desc"},{"id":"desc"}]`
		if s.after != "" {
			body += `,"search_after":` + s.after
		}
		_, r, raw := do(t, e, "POST", "/test/_search?rest_total_hits_as_int=true", body+"}")
		if r.Get("hits.total").Raw != "3" || ids(r) != s.id || s.id != "" && r.Get("hits.hits.0.sort").Raw != s.sort {
			t.Errorf("after %s: %s", s.after, raw)
		}
	}

	e = New()
	mustDo(t, e, "PUT", "/test", `{"mappings":{"properties":{"timestamp":{"type":"date","format":"yyyy-MM-dd HH:mm:ss.SSS"}}}}`)
	mustDo(t, e, "POST", "/test/_bulk?refresh=true", "{\"index\":{}}\n{\"timestamp\":\"2019-10-21 00:30:04.828\"}\n{\"index\":{}}\n{\"timestamp\":\"2019-10-21 08:30:04.828\"}\n")
	r := search(t, e, `{"size":1,"sort":[{"timestamp":"desc"}]}`)
	if r.Get("hits.total.value").Int() != 2 || r.Get("hits.hits.0.sort").Raw != "[1571646604828]" || r.Get("hits.hits.0._source.timestamp").String() != "2019-10-21 08:30:04.828" {
		t.Errorf("date: %s", r.Raw)
	}
	for _, after := range []string{"[1571646604828]", `["2019-10-21 08:30:04.828"]`} {
		r = search(t, e, `{"size":1,"sort":[{"timestamp":"desc"}],"search_after":`+after+`}`)
		if r.Get("hits.hits.0.sort").Raw != "[1571617804828]" {
			t.Errorf("date after %s: %s", after, r.Raw)
		}
	}

	e = New()
	mustDo(t, e, "PUT", "/test", `{"mappings":{"properties":{"timestamp":{"type":"date_nanos","format":"yyyy-MM-dd HH:mm:ss.SSSSSS"}}}}`)
	mustDo(t, e, "POST", "/test/_bulk?refresh=true", "{\"index\":{}}\n{\"timestamp\":\"2019-10-21 00:30:04.828740\"}\n{\"index\":{}}\n{\"timestamp\":\"2019-10-21 08:30:04.828733\"}\n")
	r = search(t, e, `{"size":1,"sort":[{"timestamp":"desc"}]}`)
	if r.Get("hits.hits.0.sort").Raw != "[1571646604828733000]" {
		t.Errorf("date_nanos: %s", r.Raw)
	}
	for _, after := range []string{"[1571646604828733000]", `["2019-10-21 08:30:04.828733"]`} {
		r = search(t, e, `{"size":1,"sort":[{"timestamp":"desc"}],"search_after":`+after+`}`)
		if r.Get("hits.hits.0.sort").Raw != "[1571617804828740000]" {
			t.Errorf("date_nanos after %s: %s", after, r.Raw)
		}
	}

	e = New()
	mustDo(t, e, "PUT", "/test", `{"mappings":{"properties":{"timestamp":{"type":"date","format":"yyyy-MM-dd HH:mm:ss.SSS"}}}}`)
	mustDo(t, e, "PUT", "/test_nanos", `{"mappings":{"properties":{"timestamp":{"type":"date_nanos","format":"dd/MM/yyyy HH:mm:ss.SSS"}}}}`)
	mustDo(t, e, "POST", "/test/_bulk?refresh=true", "{\"index\":{}}\n{\"timestamp\":\"2021-10-13 00:30:04.828\"}\n{\"index\":{}}\n{\"timestamp\":\"2021-06-11 04:30:04.828\"}\n{\"index\":{}}\n{\"timestamp\":\"2021-02-11 08:30:04.828\"}\n")
	mustDo(t, e, "POST", "/test_nanos/_bulk?refresh=true", "{\"index\":{}}\n{\"timestamp\":\"21/08/2021 03:30:04.732\"}\n{\"index\":{}}\n{\"timestamp\":\"20/05/2021 05:30:04.832\"}\n{\"index\":{}}\n{\"timestamp\":\"15/04/2021 06:30:04.821\"}\n")
	r = search(t, e, `{"size":1,"sort":[{"timestamp":{"order":"asc","format":"strict_date_optional_time_nanos"}}]}`)
	if r.Get("hits.hits.0.sort").Raw != `["2021-02-11T08:30:04.828Z"]` {
		t.Errorf("format sort values: %s", r.Raw)
	}
	r = search(t, e, `{"size":1,"sort":[{"timestamp":{"order":"asc","format":"strict_date_optional_time_nanos"}}],"search_after":["2021-02-11T08:30:04.828Z"]}`)
	if r.Get("hits.hits.0.sort").Raw != `["2021-06-11T04:30:04.828Z"]` {
		t.Errorf("format sort after: %s", r.Raw)
	}
	for _, f := range []string{"yyyy-MM-dd HH:mm:ss.SSS", "epoch_millis"} {
		_, r, raw := do(t, e, "POST", "/test/_search", `{"size":1,"sort":[{"timestamp":{"order":"asc","format":"`+f+`"}}],"search_after":["2021-02-11T08:30:04.828Z"]}`)
		if !strings.Contains(raw, "failed to parse date field") || r.Get("status").Int() != 400 {
			t.Errorf("mismatch format %s: %s", f, raw)
		}
	}
	r = search(t, e, `{"size":1,"sort":[{"timestamp":{"order":"asc","format":"yyyy-MM-dd | HH:mm:ss.SSS"}}],"search_after":["2021-02-11 | 08:30:04.828"]}`)
	if r.Get("hits.hits.0.sort").Raw != `["2021-06-11 | 04:30:04.828"]` {
		t.Errorf("custom format: %s", r.Raw)
	}
	_, r, raw := do(t, e, "POST", "/tes*/_search", `{"size":2,"sort":[{"timestamp":{"order":"asc","format":"strict_date_optional_time_nanos","numeric_type":"date_nanos"}}]}`)
	if r.Get("hits.total.value").Int() != 6 || ids(r) == "" || r.Get("hits.hits.0._index").String() != "test" || r.Get("hits.hits.1._index").String() != "test_nanos" ||
		r.Get("hits.hits.1.sort").Raw != `["2021-04-15T06:30:04.821Z"]` {
		t.Errorf("mixed date and date_nanos: %s", raw)
	}
	_, r, raw = do(t, e, "POST", "/test*/_search", `{"size":2,"sort":[{"timestamp":{"order":"asc","format":"strict_date_optional_time_nanos","numeric_type":"date"}}],"search_after":["2021-04-15T06:30:04.821Z"]}`)
	if r.Get("hits.hits.0.sort").Raw != `["2021-05-20T05:30:04.832Z"]` || r.Get("hits.hits.1.sort").Raw != `["2021-06-11T04:30:04.828Z"]` {
		t.Errorf("mixed date search_after: %s", raw)
	}
}

func TestYAMLSortMixedNumeric95(t *testing.T) {
	e := New()
	for _, c := range []struct{ name, typ string }{{"index_long", "long"}, {"index_int", "integer"}, {"index_short", "short"}, {"index_byte", "byte"}} {
		mustDo(t, e, "PUT", "/"+c.name, `{"mappings":{"properties":{"field1":{"type":"`+c.typ+`"},"field2":{"type":"`+c.typ+`"}}}}`)
	}
	mustDo(t, e, "POST", "/index_long/_bulk?refresh=true", "{\"index\":{\"_id\":\"long1\"}}\n{\"field1\":10}\n{\"index\":{\"_id\":\"long2\"}}\n{\"field1\":20,\"field2\":20}\n{\"index\":{\"_id\":\"long3\"}}\n{\"field1\":30}\n{\"index\":{\"_id\":\"long4\"}}\n{\"field1\":40,\"field2\":40}\n{\"index\":{\"_id\":\"long5\"}}\n{\"field1\":50}\n")
	mustDo(t, e, "POST", "/index_int/_bulk?refresh=true", "{\"index\":{}}\n{\"field1\":11,\"field2\":11}\n{\"index\":{}}\n{\"field1\":21}\n{\"index\":{}}\n{\"field1\":31,\"field2\":31}\n{\"index\":{}}\n{\"field1\":41}\n{\"index\":{}}\n{\"field1\":51,\"field2\":51}\n")
	mustDo(t, e, "POST", "/index_short/_bulk?refresh=true", "{\"index\":{}}\n{\"field1\":12}\n{\"index\":{}}\n{\"field1\":22,\"field2\":22}\n{\"index\":{}}\n{\"field1\":32}\n{\"index\":{}}\n{\"field1\":42,\"field2\":42}\n{\"index\":{}}\n{\"field1\":52}\n")
	mustDo(t, e, "POST", "/index_byte/_bulk?refresh=true", "{\"index\":{}}\n{\"field1\":13,\"field2\":13}\n{\"index\":{}}\n{\"field1\":23}\n{\"index\":{}}\n{\"field1\":33,\"field2\":33}\n{\"index\":{}}\n{\"field1\":43}\n{\"index\":{}}\n{\"field1\":53,\"field2\":53}\n")
	const idx = "/index_long,index_int,index_short,index_byte/_search"
	_, r, _ := do(t, e, "POST", idx, `{"sort":[{"field1":{"order":"asc"}}]}`)
	if got := sorts(r); got != "[10] [11] [12] [13] [20] [21] [22] [23] [30] [31]" {
		t.Errorf("simple sort: %s", got)
	}
	_, r, _ = do(t, e, "POST", idx, `{"sort":[{"field1":{"order":"asc"}}],"search_after":[31]}`)
	if got := sorts(r); got != "[32] [33] [40] [41] [42] [43] [50] [51] [52] [53]" {
		t.Errorf("simple sort after: %s", got)
	}
	// The file's "missing values" section is 9.1+ behaviour; in 8.15 every integer type sorts
	// as LONG, so the missing value is Long.MAX_VALUE for all four (ES-SEMANTICS §3.5).
	_, r, _ = do(t, e, "POST", idx, `{"sort":[{"field2":{"order":"asc"}}],"search_after":[53]}`)
	if got := sorts(r); got != strings.TrimSpace(strings.Repeat("[9223372036854775807] ", 10)) {
		t.Errorf("missing in 8.15: %s", got)
	}
}

func TestYAMLTotalHitsAndDistributedSort(t *testing.T) {
	e := New()
	mustDo(t, e, "PUT", "/test_2", "")
	mustDo(t, e, "PUT", "/test_1", "")
	for _, d := range [][3]string{{"test_1", "1", "bar"}, {"test_1", "3", "baz"}, {"test_1", "2", "bar"}, {"test_1", "4", "bar"}, {"test_2", "42", "bar"}, {"test_2", "24", "baz"}, {"test_2", "36", "bar"}} {
		mustDo(t, e, "PUT", "/"+d[0]+"/_doc/"+d[1], `{"foo":"`+d[2]+`"}`)
	}
	q := `{"query":{"match":{"foo":"bar"}}}`
	for _, c := range []struct{ target, want string }{
		{"/_all/_search", `{"value":5,"relation":"eq"}`},
		{"/test_1/_search", `{"value":3,"relation":"eq"}`},
		{"/_search?track_total_hits=4", `{"value":4,"relation":"gte"}`},
		{"/_search?size=0&track_total_hits=5", `{"value":5,"relation":"eq"}`},
		{"/_all/_search?track_total_hits=false&rest_total_hits_as_int=true", `-1`},
		{"/test_2/_search?rest_total_hits_as_int=true", `2`},
	} {
		_, r, raw := do(t, e, "POST", c.target, q)
		if r.Get("hits.total").Raw != c.want {
			t.Errorf("%s: %s", c.target, raw)
		}
	}

	e = New()
	for _, n := range []string{"index_1", "index_2", "index_3"} {
		mustDo(t, e, "PUT", "/"+n, `{"settings":{"number_of_shards":1},"mappings":{"properties":{"created_at":{"type":"date","format":"strict_date"}}}}`)
	}
	mustDo(t, e, "PUT", "/index_1/_doc/1", `{"created_at":"2016-01-01"}`)
	mustDo(t, e, "PUT", "/index_2/_doc/2", `{"created_at":"2017-01-01"}`)
	mustDo(t, e, "PUT", "/index_3/_doc/3", `{"created_at":"2018-01-01"}`)
	_, r, raw := do(t, e, "POST", "/_search", `{"size":0,"query":{"range":{"created_at":{"gte":"2016-02-01","lt":"2018-02-01"}}},"aggs":{"idx_terms":{"terms":{"field":"_index"}}}}`)
	if r.Get("_shards.total").Int() != 3 || r.Get("hits.total.value").Int() != 2 || len(r.Get("aggregations.idx_terms.buckets").Array()) != 2 {
		t.Errorf("distributed sort 1: %s", raw)
	}
	_, r, raw = do(t, e, "POST", "/_search", `{"size":1,"track_total_hits":1,"sort":[{"created_at":{"order":"desc"}}],"aggs":{"idx_terms":{"terms":{"field":"_index"}}}}`)
	if r.Get("hits.total").Raw != `{"value":1,"relation":"gte"}` || ids(r) != "3" || len(r.Get("aggregations.idx_terms.buckets").Array()) != 3 {
		t.Errorf("distributed sort 2: %s", raw)
	}
}

func TestYAMLTerms20(t *testing.T) {
	setup := func() *Engine {
		e := New()
		mustDo(t, e, "PUT", "/test_1", `{"settings":{"number_of_shards":1,"number_of_replicas":0},"mappings":{"properties":{"str":{"type":"keyword"},"ip":{"type":"ip"},"boolean":{"type":"boolean"},"integer":{"type":"long"},"double":{"type":"double"},"number":{"type":"long"},"date":{"type":"date"}}}}`)
		mustDo(t, e, "PUT", "/test_2", `{"settings":{"number_of_replicas":0},"mappings":{"properties":{"number":{"type":"double"}}}}`)
		return e
	}
	agg := func(e *Engine, target, a string) string {
		_, r, _ := do(t, e, "POST", target, `{"size":0,"aggs":{"x":`+a+`}}`)
		return r.Get("aggregations.x.buckets").Raw
	}
	cases := []struct{ field, v1, v2, want string }{
		{"str", `"abc"`, `"bcd"`, `[{"key":"abc","doc_count":2},{"key":"bcd","doc_count":1}]`},
		{"boolean", `true`, `false`, `[{"key":1,"key_as_string":"true","doc_count":2},{"key":0,"key_as_string":"false","doc_count":1}]`},
		{"integer", `1234`, `5678`, `[{"key":1234,"doc_count":2},{"key":5678,"doc_count":1}]`},
		{"double", `1234.5`, `5678.5`, `[{"key":1234.5,"doc_count":2},{"key":5678.5,"doc_count":1}]`},
		{"date", `"2016-05-03"`, `"2014-09-01"`, `[{"key":1462233600000,"key_as_string":"2016-05-03T00:00:00.000Z","doc_count":2},{"key":1409529600000,"key_as_string":"2014-09-01T00:00:00.000Z","doc_count":1}]`},
	}
	for _, c := range cases {
		e := setup()
		mustDo(t, e, "PUT", "/test_1/_doc/1", `{"`+c.field+`":`+c.v1+`}`)
		mustDo(t, e, "PUT", "/test_1/_doc/2", `{"`+c.field+`":`+c.v2+`}`)
		mustDo(t, e, "PUT", "/test_1/_doc/3", `{"`+c.field+`":`+c.v1+`}`)
		if got := agg(e, "/_search", `{"terms":{"field":"`+c.field+`"}}`); got != c.want {
			t.Errorf("%s: %s", c.field, got)
		}
	}
	e := setup()
	mustDo(t, e, "PUT", "/test_1/_doc/1", `{"date":"2016-05-03"}`)
	mustDo(t, e, "PUT", "/test_1/_doc/2", `{"date":"2014-09-01"}`)
	mustDo(t, e, "PUT", "/test_1/_doc/3", `{"date":"2016-05-03"}`)
	if got := agg(e, "/_search", `{"terms":{"field":"date","include":["2016-05-03"]}}`); !strings.Contains(got, `"2016-05-03T00:00:00.000Z","doc_count":2}]`) {
		t.Errorf("date include: %s", got)
	}
	if got := agg(e, "/_search", `{"terms":{"field":"date","exclude":["2016-05-03"]}}`); !strings.Contains(got, `"2014-09-01T00:00:00.000Z","doc_count":1}]`) {
		t.Errorf("date exclude: %s", got)
	}
	for _, c := range []struct{ a, want string }{
		{`{"terms":{"field":"unmapped_string","value_type":"string","missing":"abc"}}`, `[{"key":"abc","doc_count":1}]`},
		{`{"terms":{"field":"unmapped_boolean","value_type":"boolean","missing":true}}`, `[{"key":1,"key_as_string":"true","doc_count":1}]`},
		{`{"terms":{"field":"unmapped_date","value_type":"date","missing":"2016-05-11"}}`, `[{"key":1462924800000,"key_as_string":"2016-05-11T00:00:00.000Z","doc_count":1}]`},
		{`{"terms":{"field":"unmapped_long","value_type":"long","missing":3}}`, `[{"key":3,"doc_count":1}]`},
		{`{"terms":{"field":"unmapped_double","value_type":"double","missing":3.5}}`, `[{"key":3.5,"doc_count":1}]`},
	} {
		e := setup()
		mustDo(t, e, "PUT", "/test_1/_doc/1", `{}`)
		if got := agg(e, "/_search", c.a); got != c.want {
			t.Errorf("%s: %s", c.a, got)
		}
	}
	e = setup()
	mustDo(t, e, "PUT", "/test_1/_doc/1", `{"number":100}`)
	mustDo(t, e, "PUT", "/test_1/_doc/2", `{"number":10}`)
	mustDo(t, e, "PUT", "/test_2/_doc/3", `{"number":100.0}`)
	mustDo(t, e, "PUT", "/test_2/_doc/1", `{"number":10.0}`)
	mustDo(t, e, "PUT", "/test_2/_doc/2", `{"number":14.6}`)
	if got := agg(e, "/_search", `{"terms":{"field":"number"}}`); got != `[{"key":10.0,"doc_count":2},{"key":100.0,"doc_count":2},{"key":14.6,"doc_count":1}]` {
		t.Errorf("mixing longs and doubles: %s", got)
	}

	e = setup()
	mustDo(t, e, "POST", "/test_1/_bulk?refresh=true", "{\"index\":{}}\n{\"str\":\"sheep\",\"number\":1}\n{\"index\":{}}\n{\"str\":\"sheep\",\"number\":3}\n{\"index\":{}}\n{\"str\":\"cow\",\"number\":1}\n{\"index\":{}}\n{\"str\":\"pig\",\"number\":1}\n")
	// The YAML uses simple_query_string "sheep cow"; the same documents via terms.
	q := `{"terms":{"str":["sheep","cow"]}}`
	for _, c := range []struct{ mdc, want string }{
		{`,"min_doc_count":2`, `[{"key":"sheep","doc_count":2,"max_number":{"value":3.0}}]`},
		{``, `[{"key":"sheep","doc_count":2,"max_number":{"value":3.0}},{"key":"cow","doc_count":1,"max_number":{"value":1.0}}]`},
		{`,"min_doc_count":0`, `[{"key":"sheep","doc_count":2,"max_number":{"value":3.0}},{"key":"cow","doc_count":1,"max_number":{"value":1.0}},{"key":"pig","doc_count":0,"max_number":{"value":null}}]`},
	} {
		_, r, _ := do(t, e, "POST", "/test_1/_search", `{"size":0,"query":`+q+`,"aggs":{"x":{"terms":{"field":"str"`+c.mdc+`},"aggs":{"max_number":{"max":{"field":"number"}}}}}}`)
		if got := r.Get("aggregations.x.buckets").Raw; got != c.want {
			t.Errorf("min_doc_count%s: %s", c.mdc, got)
		}
	}

	e = setup()
	mustDo(t, e, "POST", "/test_1/_bulk?refresh=true", "{\"index\":{}}\n{\"str\":\"sheep\",\"number\":1}\n{\"index\":{}}\n{\"str\":\"sheep\",\"number\":3}\n{\"index\":{}}\n{\"str\":\"cow\",\"number\":7}\n{\"index\":{}}\n{\"str\":\"pig\",\"number\":1}\n")
	if got := agg(e, "/test_1/_search", `{"terms":{"size":1,"shard_size":1,"field":"str","order":[{"max_number":"desc"}]},"aggs":{"max_number":{"max":{"field":"number"}}}}`); got != `[{"key":"cow","doc_count":1,"max_number":{"value":7.0}}]` {
		t.Errorf("order by sub agg: %s", got)
	}
	e = setup()
	mustDo(t, e, "POST", "/test_1/_bulk?refresh=true", "{\"index\":{}}\n{\"str\":\"sheep\",\"number\":1}\n{\"index\":{}}\n{\"str\":\"sheep\",\"number\":3}\n{\"index\":{}}\n{\"str\":\"cow\",\"number\":7}\n{\"index\":{}}\n{\"str\":\"pig\",\"number\":100}\n")
	if got := agg(e, "/test_1/_search", `{"terms":{"size":1,"shard_size":1,"field":"str","order":[{"filter>max_number":"desc"}]},"aggs":{"filter":{"filter":{"range":{"number":{"lt":10}}},"aggs":{"max_number":{"max":{"field":"number"}}}}}}`); got != `[{"key":"cow","doc_count":1,"filter":{"doc_count":1,"max_number":{"value":7.0}}}]` {
		t.Errorf("order by sub agg containing filter: %s", got)
	}
	e = setup()
	mustDo(t, e, "POST", "/test_1/_bulk?refresh=true", "{\"index\":{}}\n{\"str\":\"a\"}\n{\"index\":{}}\n{\"str\":\"b\"}\n{\"index\":{}}\n{\"str\":\"c\"}\n{\"index\":{}}\n{\"str\":\"b\"}\n{\"index\":{}}\n{\"str\":\"c\"}\n{\"index\":{}}\n{\"str\":\"c\"}\n")
	_, r, _ := do(t, e, "POST", "/test_1/_search", `{"size":0,"query":{"terms":{"str":["b","c"]}},"aggs":{"x":{"terms":{"size":2,"field":"str","order":[{"_key":"asc"}]}}}}`)
	if got := r.Get("aggregations.x.buckets").Raw; got != `[{"key":"b","doc_count":2},{"key":"c","doc_count":3}]` {
		t.Errorf("precise size: %s", got)
	}
	if got := agg(e, "/test_1/_search", `{"terms":{"size":2147483647,"field":"str","order":[{"_key":"asc"}]}}`); got != `[{"key":"a","doc_count":1},{"key":"b","doc_count":2},{"key":"c","doc_count":3}]` {
		t.Errorf("huge size: %s", got)
	}
	_, r, raw := do(t, e, "POST", "/test_1/_search", `{"size":0,"aggs":{"no_field_terms":{"terms":{"size":1}}}}`)
	if !strings.Contains(r.Get("error.reason").String(), "Required one of fields [field, script], but none were specified") {
		t.Errorf("no field: %s", raw)
	}
}

func TestYAMLFilters220AndFilter50(t *testing.T) {
	e := New()
	mustDo(t, e, "PUT", "/test_1", `{"settings":{"number_of_replicas":0},"mappings":{"properties":{"int_field":{"type":"integer"},"double_field":{"type":"double"},"string_field":{"type":"keyword"}}}}`)
	mustDo(t, e, "POST", "/_bulk?refresh=true", "{\"index\":{\"_index\":\"test_1\",\"_id\":1}}\n{\"int_field\":1,\"double_field\":1.0,\"string_field\":\"foo\"}\n{\"index\":{\"_index\":\"test_1\",\"_id\":2}}\n{\"int_field\":51,\"double_field\":51.0,\"string_field\":\"foo\"}\n{\"index\":{\"_index\":\"test_1\",\"_id\":3}}\n{\"int_field\":101,\"double_field\":101.0,\"string_field\":\"foo\"}\n{\"index\":{\"_index\":\"test_1\",\"_id\":4}}\n{\"int_field\":151,\"double_field\":151.0,\"string_field\":\"foo\"}\n")
	_, r, _ := do(t, e, "POST", "/_search?rest_total_hits_as_int=true", `{"aggs":{"the_filter":{"filters":{"filters":{"first_filter":{"match":{"int_field":101}},"second_filter":{"match":{"int_field":151}}}},"aggs":{"the_avg":{"avg":{"field":"int_field"}}}}}}`)
	if r.Get("hits.total").Int() != 4 || len(r.Get("hits.hits").Array()) != 4 ||
		r.Get("aggregations.the_filter.buckets").Raw != `{"first_filter":{"doc_count":1,"the_avg":{"value":101.0}},"second_filter":{"doc_count":1,"the_avg":{"value":151.0}}}` {
		t.Errorf("basic: %s", r.Raw)
	}
	_, r, _ = do(t, e, "POST", "/_search?rest_total_hits_as_int=true", `{"query":{"constant_score":{"filter":{"range":{"int_field":{"gte":110}}}}},"aggs":{"the_filter":{"filters":{"filters":{"first_filter":{"match":{"int_field":101}},"second_filter":{"match":{"int_field":151}}}},"aggs":{"the_avg":{"avg":{"field":"int_field"}}}}}}`)
	if r.Get("hits.total").Int() != 1 || r.Get("aggregations.the_filter.buckets").Raw != `{"first_filter":{"doc_count":0,"the_avg":{"value":null}},"second_filter":{"doc_count":1,"the_avg":{"value":151.0}}}` {
		t.Errorf("filtered: %s", r.Raw)
	}
	_, r, _ = do(t, e, "POST", "/_search", `{"aggs":{"the_filter":{"meta":{"foo":"bar"},"filters":{"filters":[{"match":{"int_field":101}},{"match":{"int_field":151}}]}}}}`)
	if r.Get("aggregations.the_filter").Raw != `{"meta":{"foo":"bar"},"buckets":[{"doc_count":1},{"doc_count":1}]}` {
		t.Errorf("metadata/anonymous: %s", r.Raw)
	}
	mustDo(t, e, "POST", "/_bulk?refresh=true", "{\"index\":{\"_index\":\"test_1\",\"_id\":100}}\n{\"int_field\":1,\"double_field\":1.0,\"string_field\":\"foo bar\"}\n")
	_, r, _ = do(t, e, "POST", "/test_1/_search", `{"size":0,"aggs":{"f":{"filters":{"filters":{"foo":{"match":{"string_field":"foo"}},"foo_bar":{"match":{"string_field":"foo bar"}}}}}}}`)
	if r.Get("hits.total.value").Int() != 5 || r.Get("aggregations.f.buckets.foo.doc_count").Int() != 4 || r.Get("aggregations.f.buckets.foo_bar.doc_count").Int() != 1 {
		t.Errorf("cache busting: %s", r.Raw)
	}

	e = New()
	mustDo(t, e, "PUT", "/test", `{"settings":{"number_of_shards":1,"number_of_replicas":0},"mappings":{"properties":{"mentions":{"type":"keyword"},"notifications":{"type":"keyword"}}}}`)
	mustDo(t, e, "POST", "/test/_bulk?refresh=true", "{\"index\":{\"_id\":\"foo|bar|baz0\"}}\n{\"notifications\":[\"abc\"]}\n{\"index\":{\"_id\":\"foo|bar|baz1\"}}\n{\"mentions\":[\"abc\"]}\n")
	mustDo(t, e, "POST", "/test/_bulk?refresh=true", "{\"index\":{}}\n{\"category\":\"foo\",\"val\":7}\n{\"index\":{}}\n{\"category\":\"bar\",\"val\":8}\n{\"index\":{}}\n{\"category\":\"bar\",\"val\":9}\n{\"index\":{}}\n{\"category\":\"bar\",\"val\":0}\n")
	_, r, _ = do(t, e, "POST", "/_search?size=0", `{"aggs":{"category":{"terms":{"field":"category.keyword","order":{"high.doc_count":"desc"}},"aggs":{"high":{"filter":{"range":{"val":{"gte":7}}}}}}}}`)
	if r.Get("hits.total.value").Int() != 6 || r.Get("aggregations.category.buckets").Raw != `[{"key":"bar","doc_count":3,"high":{"doc_count":2}},{"key":"foo","doc_count":1,"high":{"doc_count":1}}]` {
		t.Errorf("sorting terms (dynamic text + keyword): %s", r.Raw)
	}
	_, r, _ = do(t, e, "POST", "/_search?rest_total_hits_as_int=true&size=0", `{"aggs":{"itemsNotify":{"filter":{"terms":{"mentions":["abc"]}},"aggs":{"mentions":{"terms":{"field":"mentions"}}}}}}`)
	if r.Get("aggregations.itemsNotify.doc_count").Int() != 1 || r.Get("aggregations.itemsNotify.mentions.buckets.0.key").String() != "abc" {
		t.Errorf("filter with sub terms: %s", r.Raw)
	}
}

func TestYAMLCountAndGet(t *testing.T) {
	e := New()
	mustDo(t, e, "PUT", "/test", "")
	mustDo(t, e, "PUT", "/test/_doc/1", `{ "foo": "bar" }`)
	for _, c := range []struct{ body, want string }{
		{`{"query":{"match":{"foo":"bar"}}}`, "1"}, {`{"query":{"match":{"foo":"test"}}}`, "0"}, {`{ }`, "1"}, {``, "1"},
	} {
		_, r, raw := do(t, e, "POST", "/test/_count", c.body)
		if r.Get("count").Raw != c.want {
			t.Errorf("count %s: %s", c.body, raw)
		}
	}
	if st, _, _ := do(t, e, "POST", "/test/_count", `{"match":{"foo":"bar"}}`); st != 400 {
		t.Errorf("count body without query: %d", st)
	}
	_, r, _ := do(t, e, "GET", "/test/_doc/1", "")
	if r.Get("_index").String() != "test" || r.Get("_id").String() != "1" || r.Get("_source").Raw != `{ "foo": "bar" }` {
		t.Errorf("default values: %s", r.Raw)
	}
	if st, _, _ := do(t, e, "GET", "/test_1/_doc/1", ""); st != 404 {
		t.Errorf("missing index get: %d", st)
	}
}

func TestYAMLFormatMissingDates630(t *testing.T) {
	// The file tests the 9.x fix (missing formatted dates print null); in 8.15 the sentinel
	// itself is formatted, so the engine refuses instead of guessing (ES-SEMANTICS §3.3).
	e := New()
	mustDo(t, e, "PUT", "/test_missing_dates", `{"mappings":{"properties":{"timestamp":{"type":"date","format":"yyyy-MM-dd HH:mm:ss.SSS"},"name":{"type":"keyword"}}}}`)
	mustDo(t, e, "POST", "/test_missing_dates/_bulk?refresh=true", "{\"index\":{\"_id\":\"1\"}}\n{\"timestamp\":\"2021-10-13 00:30:04.828\",\"name\":\"with_date_1\"}\n{\"index\":{\"_id\":\"2\"}}\n{\"name\":\"missing_date\"}\n{\"index\":{\"_id\":\"3\"}}\n{\"timestamp\":\"2021-06-11 04:30:04.828\",\"name\":\"with_date_2\"}\n")
	st, _, raw := do(t, e, "POST", "/test_missing_dates/_search", `{"size":3,"sort":[{"timestamp":{"order":"asc","format":"strict_date_optional_time_nanos","missing":"_last"}}]}`)
	if !IsUnsupported(st, []byte(raw)) {
		t.Errorf("want unsupported: %d %s", st, raw)
	}
	_, r, _ := do(t, e, "POST", "/test_missing_dates/_search", `{"size":2,"sort":[{"timestamp":{"order":"asc","format":"epoch_millis","missing":"_last"}}]}`)
	if r.Get("hits.hits.0.sort").Raw != `["1623385804828"]` || r.Get("hits.hits.1.sort").Raw != `["1634085004828"]` {
		t.Errorf("epoch_millis format: %s", r.Raw)
	}
}

package engine

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// TestChecklist has one subtest per row of ES-SEMANTICS.md §12, the rules most likely to be
// implemented wrong. Each states the rule it checks; the detailed tables of the other tests
// cover the same sections row by row.
func TestChecklist(t *testing.T) {
	t.Run("1 missing sort sentinels per type", func(t *testing.T) {
		m := `{"mappings":{"properties":{"l":{"type":"long"},"i":{"type":"integer"},"s":{"type":"short"},"b":{"type":"byte"},` +
			`"t":{"type":"date"},"n":{"type":"date_nanos"},"d":{"type":"double"},"f":{"type":"float"},"k":{"type":"keyword"}}}}`
		e := newTest(t, m, `{"l":1,"i":1,"s":1,"b":1,"t":"2020-01-01","n":"2020-01-01","d":1.5,"f":1.5,"k":"a"}`, `{}`)
		cases := []struct{ field, order, missing string }{
			{"l", "asc", "9223372036854775807"}, {"l", "desc", "-9223372036854775808"},
			{"i", "asc", "9223372036854775807"}, {"s", "asc", "9223372036854775807"}, {"b", "desc", "-9223372036854775808"},
			{"t", "asc", "9223372036854775807"}, {"t", "desc", "-9223372036854775808"},
			{"d", "asc", `"Infinity"`}, {"d", "desc", `"-Infinity"`}, {"f", "asc", `"Infinity"`},
			{"k", "asc", "null"}, {"k", "desc", "null"},
			{"n", "desc", "0"},
		}
		for _, c := range cases {
			r := search(t, e, `{"sort":[{"`+c.field+`":"`+c.order+`"}]}`)
			if got := r.Get("hits.hits.1.sort.0").Raw; r.Get("hits.hits.1._id").String() != "2" || got != c.missing {
				t.Errorf("%s %s: the document without a value sorts with %s (%s), want %s", c.field, c.order, got, sorts(r), c.missing)
			}
		}
	})

	t.Run("2 ties break by doc id; search_after skips every equal doc", func(t *testing.T) {
		e := newTest(t, `{"mappings":{"properties":{"k":{"type":"keyword"}}}}`, `{"k":"b"}`, `{"k":"a"}`, `{"k":"b"}`, `{"k":"b"}`, `{"k":"c"}`)
		for _, order := range []string{"asc", "desc"} {
			r := search(t, e, `{"sort":[{"k":"`+order+`"}]}`)
			want := map[string]string{"asc": "2,1,3,4,5", "desc": "5,1,3,4,2"}[order]
			if ids(r) != want {
				t.Errorf("sort k %s: ids %s, want %s (ties in insertion order both ways)", order, ids(r), want)
			}
		}
		if r := search(t, e, `{"sort":["k"],"search_after":["b"]}`); ids(r) != "5" {
			t.Errorf("search_after [b]: ids %s, want 5 (all three b's skipped)", ids(r))
		}
	})

	t.Run("3 float sorts as float32, terms keys widen, half_float, scaled_float", func(t *testing.T) {
		m := `{"mappings":{"properties":{"f":{"type":"float"},"h":{"type":"half_float"},"s":{"type":"scaled_float","scaling_factor":100}}}}`
		e := newTest(t, m, `{"f":4.1,"h":4.1,"s":19.99}`)
		checks := []struct{ body, path, want string }{
			{`{"sort":["f"]}`, "hits.hits.0.sort.0", "4.1"},
			{`{"size":0,"aggs":{"a":{"terms":{"field":"f"}}}}`, "aggregations.a.buckets.0.key", "4.099999904632568"},
			{`{"sort":["h"]}`, "hits.hits.0.sort.0", "4.1015625"},
			{`{"sort":["s"]}`, "hits.hits.0.sort.0", "19.990000000000002"},
		}
		for _, c := range checks {
			if got := search(t, e, c.body).Get(c.path).Raw; got != c.want {
				t.Errorf("%s: %s = %s, want %s", c.body, c.path, got, c.want)
			}
		}
	})

	t.Run("4 booleans sort as 0/1 and bucket as 1/0 with key_as_string", func(t *testing.T) {
		e := newTest(t, `{"mappings":{"properties":{"b":{"type":"boolean"}}}}`, `{"b":true}`, `{"b":false}`, `{"b":true}`)
		if r := search(t, e, `{"sort":["b"]}`); sorts(r) != "[0] [1] [1]" {
			t.Errorf("boolean sort values %s, want [0] [1] [1]", sorts(r))
		}
		r := search(t, e, `{"size":0,"aggs":{"a":{"terms":{"field":"b"}}}}`)
		if got := r.Get("aggregations.a.buckets").Raw; got != `[{"key":1,"key_as_string":"true","doc_count":2},{"key":0,"key_as_string":"false","doc_count":1}]` {
			t.Errorf("boolean buckets %s", got)
		}
	})

	t.Run("5 date sort values are epoch millis unless the sort has a format", func(t *testing.T) {
		e := newTest(t, `{"mappings":{"properties":{"t":{"type":"date"}}}}`, `{"t":"2019-10-21T08:30:04.828Z"}`)
		if got := search(t, e, `{"sort":["t"]}`).Get("hits.hits.0.sort").Raw; got != "[1571646604828]" {
			t.Errorf("date sort value %s, want [1571646604828]", got)
		}
		if got := search(t, e, `{"sort":[{"t":{"order":"asc","format":"yyyy-MM-dd"}}]}`).Get("hits.hits.0.sort").Raw; got != `["2019-10-21"]` {
			t.Errorf("formatted date sort value %s, want [\"2019-10-21\"]", got)
		}
	})

	t.Run("6 hits.total over the threshold is exactly {N, gte}", func(t *testing.T) {
		e := newTest(t, `{}`, `{"a":1}`, `{"a":2}`, `{"a":3}`, `{"a":4}`, `{"a":5}`)
		for tth, want := range map[string]string{
			"4": `{"value":4,"relation":"gte"}`, "5": `{"value":5,"relation":"eq"}`, "true": `{"value":5,"relation":"eq"}`, "1": `{"value":1,"relation":"gte"}`,
		} {
			if got := search(t, e, `{"track_total_hits":`+tth+`}`).Get("hits.total").Raw; got != want {
				t.Errorf("track_total_hits %s: %s, want %s", tth, got, want)
			}
		}
	})

	t.Run("7 keyed filters buckets come back sorted by name, _other_ last", func(t *testing.T) {
		e := newTest(t, `{"mappings":{"properties":{"k":{"type":"keyword"}}}}`, `{"k":"a"}`, `{"k":"b"}`, `{"k":"z"}`)
		r := search(t, e, `{"size":0,"aggs":{"f":{"filters":{"other_bucket":true,"filters":{"zed":{"term":{"k":"z"}},"ay":{"term":{"k":"a"}}}}}}}`)
		var keys []string
		r.Get("aggregations.f.buckets").ForEach(func(k, v gjson.Result) bool {
			keys = append(keys, k.String()+"="+v.Get("doc_count").Raw)
			return true
		})
		if got := strings.Join(keys, " "); got != "ay=1 zed=1 _other_=1" {
			t.Errorf("keyed filters buckets %s, want ay=1 zed=1 _other_=1", got)
		}
	})

	t.Run("8 terms on one shard: error bound 0 or -1, sum_other counts value occurrences", func(t *testing.T) {
		var docs []string
		for i := 0; i < 12; i++ { // 12 distinct terms; size 1 gives shard_size 11
			docs = append(docs, `{"k":["t`+string(rune('a'+i))+`","common"]}`)
		}
		e := newTest(t, `{"mappings":{"properties":{"k":{"type":"keyword"}}}}`, docs...)
		r := search(t, e, `{"size":0,"aggs":{"a":{"terms":{"field":"k","size":1}}}}`)
		if r.Get("aggregations.a.doc_count_error_upper_bound").Raw != "0" || r.Get("aggregations.a.buckets.0.key").String() != "common" ||
			r.Get("aggregations.a.sum_other_doc_count").Raw != "12" {
			t.Errorf("_count desc: %s, want bound 0, bucket common, sum_other_doc_count 12 (one per other value)", r.Get("aggregations.a").Raw)
		}
		r = search(t, e, `{"size":0,"aggs":{"a":{"terms":{"field":"k","size":1,"order":{"_count":"asc"}}}}}`)
		if got := r.Get("aggregations.a.doc_count_error_upper_bound").Raw; got != "-1" {
			t.Errorf("_count asc with at least shard_size buckets: bound %s, want -1", got)
		}
		r = search(t, e, `{"size":0,"aggs":{"a":{"terms":{"field":"k","size":20,"order":{"_count":"asc"}}}}}`)
		if got := r.Get("aggregations.a.doc_count_error_upper_bound").Raw; got != "0" {
			t.Errorf("_count asc with fewer buckets than shard_size: bound %s, want 0", got)
		}
	})

	t.Run("9 a day-only date term matches the whole day; lte and gt round up", func(t *testing.T) {
		e := newTest(t, `{"mappings":{"properties":{"t":{"type":"date"}}}}`,
			`{"t":"2019-10-21T08:30:04.828Z"}`, `{"t":"2019-10-21T23:59:59.999Z"}`, `{"t":"2019-10-22T00:00:00.000Z"}`, `{"t":"2019-10-20T23:59:59.999Z"}`)
		cases := []struct{ query, want string }{
			{`{"term":{"t":"2019-10-21"}}`, "1,2"},
			{`{"range":{"t":{"lte":"2019-10-21"}}}`, "1,2,4"},
			{`{"range":{"t":{"gt":"2019-10-21"}}}`, "3"},
			{`{"range":{"t":{"gte":"2019-10-21"}}}`, "1,2,3"},
			{`{"range":{"t":{"lt":"2019-10-21"}}}`, "4"},
		}
		for _, c := range cases {
			if got := ids(search(t, e, `{"query":`+c.query+`,"sort":["_doc"]}`)); got != c.want {
				t.Errorf("%s: ids %s, want %s", c.query, got, c.want)
			}
		}
	})

	t.Run("10 search_after on a long: decimals truncate toward zero, string decimals floor", func(t *testing.T) {
		e := newTest(t, `{"mappings":{"properties":{"n":{"type":"long"}}}}`, `{"n":-1}`, `{"n":0}`, `{"n":1}`)
		cases := []struct{ after, want string }{
			{`[-0.5]`, "3"},     // -0.5 -> 0: strictly after 0
			{`["-0.5"]`, "2,3"}, // "-0.5" -> -1: strictly after -1
			{`[0.9]`, "3"},      // 0.9 -> 0
			{`["0.9"]`, "3"},    // "0.9" -> 0
		}
		for _, c := range cases {
			if got := ids(search(t, e, `{"sort":["n"],"search_after":`+c.after+`}`)); got != c.want {
				t.Errorf("search_after %s: ids %s, want %s", c.after, got, c.want)
			}
		}
	})
}

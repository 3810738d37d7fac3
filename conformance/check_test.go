package conformance

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// doc wraps a _source field value in a document read, so value rules can be tested in the
// sources class at the path _source.v.
func docBody(v string) string {
	if v == "" {
		return `{"_index":"i","_id":"1","found":true,"_source":{}}`
	}
	return `{"_index":"i","_id":"1","found":true,"_source":{"v":` + v + `}}`
}

func mustCompile(t testing.TB, status int, body string) *Expectation {
	t.Helper()
	x, err := Compile(status, []byte(body))
	if err != nil {
		t.Fatalf("Compile(%s): %v", body, err)
	}
	return x
}

func TestValueRules(t *testing.T) {
	for _, c := range []struct {
		reason    string
		want, got string // _source.v; "" means absent
		pass      bool
		wantText  string // the difference's Want and Got, when it fails
		gotText   string
	}{
		{"same integer", `129`, `129`, true, "", ""},
		{"integer vs float literal", `129`, `129.0`, false, `129`, `129.0`},
		{"float vs integer literal", `129.0`, `129`, false, `129.0`, `129`},
		{"an exponent makes a float", `1e2`, `100`, false, `1e2`, `100`},
		{"same float value, other spelling", `1e2`, `100.0`, true, "", ""},
		{"1.0E20 == 1e20", `1.0E20`, `1e20`, true, "", ""},
		{"1.0E20 == 100000000000000000000.0", `1.0E20`, `100000000000000000000.0`, true, "", ""},
		{"float32 text vs widened double", `4.1`, `4.099999904632568`, false, `4.1`, `4.099999904632568`},
		{"widened double vs float32 text", `4.099999904632568`, `4.1`, false, `4.099999904632568`, `4.1`},
		{"doubles compare as doubles", `0.1`, `0.10000000000000001`, true, "", ""},
		{"big integers exactly: 2^53+1 vs 2^53", `9007199254740993`, `9007199254740992`, false, `9007199254740993`, `9007199254740992`},
		{"big integers exactly: equal", `9007199254740993`, `9007199254740993`, true, "", ""},
		{"beyond 64 bits", `18446744073709551616`, `18446744073709551617`, false, `18446744073709551616`, `18446744073709551617`},
		{"negative zero integer", `0`, `-0`, true, "", ""},
		{"negative zero float", `0.0`, `-0.0`, true, "", ""},
		{"beyond double range, same decimal", `1e400`, `10e399`, true, "", ""},
		{"beyond double range, other value", `1e400`, `1e401`, false, `1e400`, `1e401`},
		{"sign", `-5`, `5`, false, `-5`, `5`},
		{"unicode escape vs UTF-8", `"\u00fc"`, `"ü"`, true, "", ""},
		{"UTF-8 vs unicode escape", `"ü"`, `"\u00fc"`, true, "", ""},
		{"surrogate pair vs UTF-8 outside the BMP", `"𝔾alaxy"`, `"\ud835\udd3ealaxy"`, true, "", ""},
		{"escaped slash", `"a/b"`, `"a\/b"`, true, "", ""},
		{"string vs number", `"7"`, `7`, false, `"7"`, `7`},
		{"number vs string", `7`, `"7"`, false, `7`, `"7"`},
		{"007 vs 7", `"007"`, `"7"`, false, `"007"`, `"7"`},
		{"strings compare by bytes, not case", `"Acme"`, `"acme"`, false, `"Acme"`, `"acme"`},
		{"precomposed vs combining ü", `"ü"`, `"u\u0308"`, false, `"ü"`, `"u\u0308"`},
		{"escaped NUL is a character", `"a\u0000"`, `"a"`, false, `"a\u0000"`, `"a"`},
		{"null vs absent", `null`, ``, false, `null`, Absent},
		{"absent vs null", ``, `null`, false, Absent, `null`},
		{"null vs false", `null`, `false`, false, `null`, `false`},
		{"true vs \"true\"", `true`, `"true"`, false, `true`, `"true"`},
		{"array order", `[1,2]`, `[2,1]`, false, `1`, `2`},
		{"empty object vs empty array", `{}`, `[]`, false, `{}`, `[]`},
		{"nested equal, whitespace", `{"a":[1,{"b":null}]}`, ` { "a" : [ 1 , { "b" : null } ] } `, true, "", ""},
	} {
		x := mustCompile(t, 200, docBody(c.want))
		r := x.Check(200, []byte(docBody(c.got)), nil)
		if r.Pass != c.pass {
			t.Errorf("%s: want %s, got %s: pass = %v, want %v\n%s", c.reason, c.want, c.got, r.Pass, c.pass, r)
			continue
		}
		if c.pass {
			if len(r.Diffs) != 0 {
				t.Errorf("%s: passed with differences:\n%s", c.reason, r)
			}
			continue
		}
		d := r.Diffs[0]
		if d.Class != ClassSources || !d.Fails || !strings.HasPrefix(d.Path, "_source.v") || d.Want != c.wantText || d.Got != c.gotText {
			t.Errorf("%s: first difference is %+v, want sources at _source.v: %s vs %s", c.reason, d, c.wantText, c.gotText)
		}
	}
}

func TestKeyOrderIsReportedNotFailed(t *testing.T) {
	x := mustCompile(t, 200, docBody(`{"a":1,"b":2,"c":3}`))
	r := x.Check(200, []byte(docBody(`{"c":3,"a":1,"b":2}`)), nil)
	if !r.Pass || len(r.Diffs) != 1 || r.Diffs[0].Class != ClassKeyOrder || r.Diffs[0].Path != "_source.v" ||
		r.Diffs[0].Want != `["a","b","c"]` || r.Diffs[0].Got != `["c","a","b"]` {
		t.Fatalf("got %+v", r)
	}
	if r := x.Check(200, []byte(docBody(`{"c":3,"a":1,"b":2}`)), &Options{Pedantic: true}); r.Pass {
		t.Fatalf("pedantic passed a key order difference")
	}
}

func TestDuplicateKeys(t *testing.T) {
	x := mustCompile(t, 200, docBody(`{"a":1}`))
	r := x.Check(200, []byte(docBody(`{"a":1,"a":1}`)), nil)
	if r.Pass || r.Diffs[0].Path != "_source.v.a" || r.Diffs[0].Want != "<absent: duplicate key>" {
		t.Fatalf("a duplicated key passed or was misreported: %+v", r)
	}
	// Duplicates in the expected body (a raw _source may have them) match in order.
	x = mustCompile(t, 200, docBody(`{"a":1,"a":2}`))
	if r := x.Check(200, []byte(docBody(`{"a":1,"a":2}`)), nil); !r.Pass {
		t.Fatalf("duplicates matching in order failed:\n%s", r)
	}
	if r := x.Check(200, []byte(docBody(`{"a":2,"a":1}`)), nil); r.Pass {
		t.Fatalf("duplicates in the other order passed")
	}
}

const sortedPage = `{"took":3,"timed_out":false,"_shards":{"total":1,"successful":1,"skipped":0,"failed":0},` +
	`"hits":{"total":{"value":2,"relation":"eq"},"max_score":null,"hits":[` +
	`{"_index":"c","_id":"a","_score":null,"_source":{"p":1},"sort":[1,"a"]},` +
	`{"_index":"c","_id":"b","_score":null,"_source":{"p":2},"sort":[2,"b"]}]}}`

const relevancePage = `{"took":3,"timed_out":false,"_shards":{"total":1,"successful":1,"skipped":0,"failed":0},` +
	`"hits":{"total":{"value":2,"relation":"eq"},"max_score":0.0,"hits":[` +
	`{"_index":"c","_id":"a","_score":0.0,"_source":{"p":1}},` +
	`{"_index":"c","_id":"b","_score":0.0,"_source":{"p":2}}]}}`

func TestScores(t *testing.T) {
	sorted := mustCompile(t, 200, sortedPage)
	r := sorted.Check(200, []byte(strings.Replace(sortedPage, `"_score":null`, `"_score":1.0`, 1)), nil)
	if !r.Pass || len(r.Diffs) != 1 || r.Diffs[0].Class != ClassScore || r.Diffs[0].Fails {
		t.Errorf("under a field sort a score should be reported, not failed: %+v", r)
	}
	rel := mustCompile(t, 200, relevancePage)
	r = rel.Check(200, []byte(strings.Replace(relevancePage, `"_score":0.0`, `"_score":1.0`, 1)), nil)
	if r.Pass || r.Diffs[0].Class != ClassScore || r.Diffs[0].Path != "hits.hits[0]._score" {
		t.Errorf("in relevance order a score is the ranking and must fail: %+v", r)
	}
}

func TestIdentityDifferenceHidesTheRestOfTheEntity(t *testing.T) {
	x := mustCompile(t, 200, sortedPage)
	got := strings.Replace(sortedPage, `"_id":"a","_score":null,"_source":{"p":1},"sort":[1,"a"]`,
		`"_id":"z","_score":null,"_source":{"p":9},"sort":[9,"z"],"extra":1`, 1)
	r := x.Check(200, []byte(got), nil)
	if len(r.Diffs) != 1 || r.Diffs[0].Path != "hits.hits[0]._id" || r.Diffs[0].Class != ClassIDs {
		t.Fatalf("want only the _id difference, got:\n%s", r)
	}
	// The _id may come last; the rule still holds.
	got = strings.Replace(sortedPage, `"_id":"a","_score":null,"_source":{"p":1},"sort":[1,"a"]`,
		`"_source":{"p":9},"sort":[9,"z"],"_score":null,"_id":"z"`, 1)
	if r := x.Check(200, []byte(got), nil); len(r.Diffs) != 1 || r.Diffs[0].Path != "hits.hits[0]._id" {
		t.Fatalf("want only the _id difference, got:\n%s", r)
	}
}

func TestTotals(t *testing.T) {
	disabled := strings.Replace(sortedPage, `"total":{"value":2,"relation":"eq"},`, ``, 1)
	x := mustCompile(t, 200, disabled)
	r := x.Check(200, []byte(sortedPage), nil)
	if r.Pass || len(r.Diffs) != 1 || r.Diffs[0].Class != ClassTotals || r.Diffs[0].Want != Absent {
		t.Errorf("a total where totals are disabled must fail as totals: %+v", r)
	}
	x = mustCompile(t, 200, sortedPage)
	r = x.Check(200, []byte(strings.Replace(sortedPage, `"relation":"eq"`, `"relation":"gte"`, 1)), nil)
	if r.Pass || r.Diffs[0].Class != ClassTotals || r.Diffs[0].Path != "hits.total.relation" {
		t.Errorf("relation: %+v", r)
	}
}

func TestTook(t *testing.T) {
	x := mustCompile(t, 200, sortedPage)
	for _, c := range []struct {
		took   string
		report bool
	}{
		{`"took":0`, false}, {`"took":123456`, false}, {`"took":3.0`, true}, {`"took":-1`, true},
		{`"took":"3"`, true}, {`"took":null`, true}, {`"took":03`, true},
	} {
		got := strings.Replace(sortedPage, `"took":3`, c.took, 1)
		r := x.Check(200, []byte(got), nil)
		if c.took == `"took":03` {
			// 03 is not JSON at all.
			if r.Pass || r.Diffs[0].Class != ClassDecode {
				t.Errorf("%s: want a decode failure, got %+v", c.took, r)
			}
			continue
		}
		if !r.Pass || (len(r.Diffs) == 1) != c.report || c.report && r.Diffs[0].Class != ClassTook {
			t.Errorf("%s: %+v", c.took, r)
		}
	}
	r := x.Check(200, []byte(strings.Replace(sortedPage, `"took":3,`, ``, 1)), nil)
	if !r.Pass || len(r.Diffs) != 1 || r.Diffs[0].Class != ClassTook || r.Diffs[0].Got != Absent {
		t.Errorf("missing took: %+v", r)
	}
}

func TestRelaxations(t *testing.T) {
	terms := `{"took":1,"timed_out":false,"_shards":{"total":1,"successful":1,"skipped":0,"failed":0},` +
		`"hits":{"total":{"value":10,"relation":"eq"},"max_score":null,"hits":[]},` +
		`"aggregations":{"t":{"doc_count_error_upper_bound":0,"sum_other_doc_count":4,"buckets":[{"key":4.099999904632568,"doc_count":6}]}}}`
	x := mustCompile(t, 200, terms)
	for _, c := range []struct {
		relax    Relaxation
		from, to string
	}{
		{RelaxNumberKind, `"doc_count":6`, `"doc_count":6.0`},
		{RelaxFloat32, `4.099999904632568`, `4.1`},
		{RelaxSumOtherDocCount, `"sum_other_doc_count":4`, `"sum_other_doc_count":5`},
		{RelaxSumOtherDocCount, `"sum_other_doc_count":4,`, ``},
		{RelaxDocCountError, `"doc_count_error_upper_bound":0`, `"doc_count_error_upper_bound":12`},
		{RelaxTotalsRelation, `"relation":"eq"`, `"relation":"gte"`},
	} {
		got := []byte(strings.Replace(terms, c.from, c.to, 1))
		if r := x.Check(200, got, nil); r.Pass {
			t.Errorf("%s: strict check passed %s", c.relax, c.to)
		}
		r := x.Check(200, got, &Options{Relax: []Relaxation{c.relax}})
		if !r.Pass || len(r.Diffs) != 1 || r.Diffs[0].Relaxed != c.relax || r.Diffs[0].Fails {
			t.Errorf("%s: %+v", c.relax, r)
		}
		// Another relaxation does not excuse it.
		other := RelaxDocCountError
		if c.relax == other {
			other = RelaxNumberKind
		}
		if r := x.Check(200, got, &Options{Relax: []Relaxation{other}}); r.Pass {
			t.Errorf("%s: passed under %s", c.relax, other)
		}
	}
	// A different value is never relaxed by the kind relaxation.
	got := []byte(strings.Replace(terms, `"doc_count":6`, `"doc_count":7.0`, 1))
	if r := x.Check(200, got, &Options{Relax: []Relaxation{RelaxNumberKind}}); r.Pass {
		t.Errorf("ignore-number-kind passed a different value")
	}
}

func TestOptionsNames(t *testing.T) {
	for _, c := range []struct {
		o     *Options
		str   string
		names []string
	}{
		{nil, "strict", nil},
		{&Options{}, "strict", nil},
		{&Options{Pedantic: true}, "pedantic", []string{"pedantic"}},
		{&Options{Relax: []Relaxation{RelaxTotalsRelation, RelaxNumberKind}}, "strict, relaxed: ignore-number-kind, ignore-totals-relation",
			[]string{"ignore-number-kind", "ignore-totals-relation"}},
		{&Options{Pedantic: true, Relax: []Relaxation{RelaxFloat32}}, "pedantic, relaxed: float32-equal", []string{"pedantic", "float32-equal"}},
	} {
		if s := c.o.String(); s != c.str {
			t.Errorf("String() = %q, want %q", s, c.str)
		}
		if n := c.o.Names(); !slices.Equal(n, c.names) {
			t.Errorf("Names() = %q, want %q", n, c.names)
		}
	}
	rs, err := ParseRelaxations(" float32-equal,ignore-number-kind,float32-equal ")
	if err != nil || !slices.Equal(rs, []Relaxation{RelaxFloat32, RelaxNumberKind}) {
		t.Errorf("ParseRelaxations: %v %v", rs, err)
	}
	if _, err := ParseRelaxations("ignore-everything"); err == nil {
		t.Error("an unknown relaxation parsed")
	}
	if err := (&Options{Relax: []Relaxation{"nope"}}).Validate(); err == nil {
		t.Error("Validate accepted an unknown relaxation")
	}
}

func TestClasses(t *testing.T) {
	all := Classes()
	if len(all) != 18 || all[0] != ClassTransport {
		t.Fatalf("Classes() = %v", all)
	}
	strict := Failing(nil)
	want := []Class{ClassTransport, ClassTimeout, ClassDecode, ClassStatus, ClassFound, ClassError, ClassIDs, ClassSources, ClassSort, ClassTotals, ClassAggregations, ClassBody}
	if !slices.Equal(strict, want) {
		t.Errorf("Failing(nil) = %v, want %v", strict, want)
	}
	if p := Failing(&Options{Pedantic: true}); !slices.Equal(p, all) {
		t.Errorf("Failing(pedantic) = %v", p)
	}
	if _, err := ParseClass("sources"); err != nil {
		t.Error(err)
	}
	if _, err := ParseClass("source"); err == nil {
		t.Error("ParseClass accepted an unknown class")
	}
}

func TestStatus(t *testing.T) {
	x := mustCompile(t, 404, `{"_index":"i","_id":"x","found":false}`)
	r := x.Check(200, []byte(`{"_index":"i","_id":"x","found":false}`), nil)
	if r.Pass || len(r.Diffs) != 1 || r.Diffs[0] != (Difference{Class: ClassStatus, Want: "404", Got: "200", Fails: true}) {
		t.Fatalf("%+v", r)
	}
}

func TestErrorClasses(t *testing.T) {
	body := `{"error":{"root_cause":[{"type":"a_exception","reason":"r"}],"type":"b_exception","reason":"r"},"status":400}`
	x := mustCompile(t, 400, body)
	for _, c := range []struct {
		from, to string
		class    Class
		fails    bool
		path     string
	}{
		{`"type":"b_exception"`, `"type":"c_exception"`, ClassError, true, "error.type"},
		{`"type":"a_exception"`, `"type":"c_exception"`, ClassError, true, "error.root_cause[0].type"},
		{`"reason":"r"}`, `"reason":"other words"}`, ClassOther, false, "error.root_cause[0].reason"},
		{`"status":400`, `"status":500`, ClassStatus, true, "status"},
	} {
		r := x.Check(400, []byte(strings.Replace(body, c.from, c.to, 1)), nil)
		if len(r.Diffs) != 1 || r.Diffs[0].Class != c.class || r.Diffs[0].Fails != c.fails || r.Diffs[0].Path != c.path {
			t.Errorf("%s -> %s: %+v", c.from, c.to, r)
		}
	}
	// A search answered where an error was expected: another kind of response, so the
	// status and the error fail, and its hits are not compared.
	r := x.Check(200, []byte(sortedPage), nil)
	if fc := r.FailingClasses(); !slices.Equal(fc, []Class{ClassStatus, ClassError}) {
		t.Errorf("failing classes %v\n%s", fc, r)
	}
}

// An error body where a result was expected fails as status and error only: a gateway's
// 502 is not also an ids, found, sources or aggregations failure because the body it sent
// has no hits, _id or buckets. Every difference kept is of the status or under error.
func TestErrorWhereAResultWasExpected(t *testing.T) {
	gateway502 := `{"error":{"root_cause":[{"type":"bad_gateway","reason":"upstream"}],"type":"bad_gateway","reason":"upstream"},"status":502}`
	for _, c := range []struct {
		reason       string
		status       int
		want, got    string
		gotStatus    int
		wantFailing  []Class
		wantDiffPath []string
	}{
		{"a search answered 502 with an error body", 200, sortedPage, gateway502, 502,
			[]Class{ClassStatus, ClassError}, []string{"", "error", "status"}},
		{"a search answered 502 with a bare error string", 200, sortedPage, `{"error":"bad gateway"}`, 502,
			[]Class{ClassStatus, ClassError}, []string{"", "error"}},
		{"a document read answered with an error body: no ids for its missing _id", 200, docBody(`1`), gateway502, 502,
			[]Class{ClassStatus, ClassError}, []string{"", "error", "status"}},
		{"a missing document answered with an error body of the same status", 404, `{"_index":"i","_id":"x","found":false}`,
			`{"error":{"type":"index_not_found_exception","reason":"no such index"},"status":404}`, 404,
			[]Class{ClassStatus, ClassError}, []string{"error", "status"}},
	} {
		x := mustCompile(t, c.status, c.want)
		r := x.Check(c.gotStatus, []byte(c.got), nil)
		if fc := r.FailingClasses(); r.Pass || !slices.Equal(fc, c.wantFailing) {
			t.Errorf("%s: failing classes %v, want %v\n%s", c.reason, fc, c.wantFailing, r)
			continue
		}
		var paths []string
		for _, d := range r.Diffs {
			paths = append(paths, d.Path)
		}
		if !slices.Equal(paths, c.wantDiffPath) {
			t.Errorf("%s: differences at %q, want %q\n%s", c.reason, paths, c.wantDiffPath, r)
		}
	}
}

// A search response without its hits object cannot be read as one: decode, not ids (nor
// totals, which live inside it). The same body's other parts are still compared.
func TestSearchWithoutHits(t *testing.T) {
	x := mustCompile(t, 200, sortedPage)
	noHits := `{"took":1,"timed_out":false,"_shards":{"total":1,"successful":1,"skipped":0,"failed":0}}`
	r := x.Check(200, []byte(noHits), nil)
	if fc := r.FailingClasses(); !slices.Equal(fc, []Class{ClassDecode}) {
		t.Errorf("failing classes %v, want [decode]\n%s", fc, r)
	}
}

func TestCompileErrors(t *testing.T) {
	for _, c := range []struct {
		status int
		body   string
		want   string
	}{
		{99, `{"found":true}`, "not an HTTP status"},
		{200, `{"found":`, "invalid JSON"},
		{200, `[1`, "invalid JSON"},
		{200, `green open catalogue`, "invalid"},
		{200, `[1]`, "array, not an object"},
		{200, ``, "unexpected end of input"},
		{200, strings.Repeat("[", 2000), "nested deeper"},
	} {
		_, err := Compile(c.status, []byte(c.body))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Compile(%d, %.20s): %v, want an error containing %q", c.status, c.body, err, c.want)
		}
	}
	for body, kind := range map[string]Kind{
		`{"found":false}`: KindDocument, `{"hits":{}}`: KindSearch, `{"aggregations":{}}`: KindSearch,
		`{"error":{},"status":500}`: KindError, `{"count":0}`: KindCount,
		`{"docs":[]}`: KindMget, `{"took":1,"responses":[]}`: KindMsearch, `{"acknowledged":true}`: KindGeneric,
		`{"docs":{}}`: KindGeneric,
	} {
		if x := mustCompile(t, 200, body); x.Kind() != kind {
			t.Errorf("%s: kind %s, want %s", body, x.Kind(), kind)
		}
	}
}

// TestBadBodies feeds the check bodies no target should send. Each must give a classified
// failure, never a panic.
func TestBadBodies(t *testing.T) {
	x := mustCompile(t, 200, sortedPage)
	deep := strings.Repeat(`{"a":`, 5000) + "1" + strings.Repeat("}", 5000)
	huge := `{"took":1,"hits":{"hits":[` + strings.Repeat(`{"_id":"q"},`, 20000) + `{}]}}`
	for _, c := range []struct {
		reason string
		body   string
		class  Class
	}{
		{"empty", ``, ClassDecode},
		{"whitespace", " \n", ClassDecode},
		{"HTML", `<html>bad gateway</html>`, ClassDecode},
		{"truncated", sortedPage[:100], ClassDecode},
		{"trailing comma", `{"took":1,}`, ClassDecode},
		{"missing colon", `{"took" 1}`, ClassDecode},
		{"bad literal", `{"timed_out":fals}`, ClassDecode},
		{"leading zero", `{"took":01}`, ClassDecode},
		{"bare minus", `{"took":-}`, ClassDecode},
		{"no exponent digits", `{"took":1e}`, ClassDecode},
		{"control character in a string", "{\"a\":\"x\ty\"}", ClassDecode},
		{"bad escape", `{"a":"\x"}`, ClassDecode},
		{"bad unicode escape", `{"a":"\u12g4"}`, ClassDecode},
		{"deeply nested", deep, ClassDecode},
		{"deeply nested array", `{"hits":` + strings.Repeat("[", 100000) + `}`, ClassDecode},
		{"array body", `[1,2,3]`, ClassDecode},
		{"string body", `"hello"`, ClassDecode},
		{"hits as a string", strings.Replace(sortedPage, `"hits":{"total"`, `"hits":"none","x":{"total"`, 1), ClassDecode},
		{"total as a number", strings.Replace(sortedPage, `{"value":2,"relation":"eq"}`, `2`, 1), ClassTotals},
		{"huge", huge, ClassIDs},
		{"invalid UTF-8 in a string", strings.Replace(sortedPage, `"_id":"a"`, "\"_id\":\"\xff\"", 1), ClassIDs},
	} {
		r := x.Check(200, []byte(c.body), nil)
		if r.Pass || !slices.Contains(r.FailingClasses(), c.class) {
			t.Errorf("%s: want a failing %s difference, got %v:\n%.600s", c.reason, c.class, r.FailingClasses(), r)
		}
		for _, d := range r.Diffs {
			if strings.Contains(d.Got, "internal error") || len(d.Got) > maxText+100 || len(d.Want) > maxText+100 {
				t.Errorf("%s: %+v", c.reason, d)
			}
		}
	}
}

func TestPaths(t *testing.T) {
	body := `{"hits":{"hits":[]},"aggregations":{"a.b":{"doc_count":1},"x y":{"doc_count":1},"ü":{"doc_count":1}}}`
	x := mustCompile(t, 200, body)
	got := strings.ReplaceAll(body, `"doc_count":1`, `"doc_count":2`)
	r := x.Check(200, []byte(got), nil)
	var paths []string
	for _, d := range r.Diffs {
		paths = append(paths, d.Path)
	}
	want := []string{`aggregations["a.b"].doc_count`, `aggregations["x y"].doc_count`, `aggregations.ü.doc_count`}
	if !slices.Equal(paths, want) {
		t.Errorf("paths %q, want %q", paths, want)
	}
	for _, p := range append(want, "hits.hits[3]._source.price", `a["q\"x"][0]`) {
		steps, err := parsePath(p)
		if err != nil || len(steps) < 2 {
			t.Errorf("parsePath(%s) = %v, %v", p, steps, err)
		}
	}
}

func TestFastPathAgreesWithWalk(t *testing.T) {
	// A body equal to the expected one apart from took passes through the byte comparison;
	// the same body with one byte of whitespace goes through the walk. Both must agree.
	for _, r := range loadResponses(t) {
		x := mustCompile(t, r.status, string(r.body))
		variants := [][]byte{r.body, append(append([]byte(nil), r.body...), ' ')}
		if x.tookStart >= 0 {
			b := append([]byte(nil), r.body[:x.tookStart]...)
			b = append(b, "987654"...)
			variants = append(variants, append(b, r.body[x.tookEnd:]...))
		}
		for i, v := range variants {
			if res := x.Check(r.status, v, nil); !res.Pass || len(res.Diffs) != 0 {
				t.Errorf("%s variant %d: %s", r.name, i, res)
			}
		}
	}
}

func ExampleExpectation_Check() {
	x, err := Compile(200, []byte(`{"_index":"catalogue","_id":"SKU-1","_version":1,"_seq_no":0,"_primary_term":1,"found":true,`+
		`"_source":{"sku":"SKU-1","price":129,"model":"7"}}`))
	if err != nil {
		panic(err)
	}
	got := `{"_index":"catalogue","_id":"SKU-1","_version":3,"found":true,"_source":{"sku":"SKU-1","price":129.0,"model":7}}`
	r := x.Check(200, []byte(got), nil)
	fmt.Println(r.Pass, r.FailingClasses())
	fmt.Print(r)
	// Output:
	// false [sources]
	// FAIL: 2 failing differences (sources 2); 3 differences reported, not failing (version 3)
	// sources: fails
	//   _source.price: want 129, got 129.0 (same value; integer vs float)
	//   _source.model: want "7", got 7 (string vs number)
	// version: reported
	//   _version: want 1, got 3
	//   _seq_no: want 0, got <absent>
	//   _primary_term: want 1, got <absent>
}

// TestConcurrentChecks shares one expectation among goroutines, as the runner's clients do,
// and requires every result to equal the sequential one (run with -race).
func TestConcurrentChecks(t *testing.T) {
	r := loadResponses(t)[0]
	x := mustCompile(t, r.status, string(r.body))
	ms, err := Mutations(r.status, r.body)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]string, len(ms))
	for i, m := range ms {
		want[i] = x.Check(m.Status, m.Body, nil).String()
	}
	done := make(chan error, 8)
	for g := 0; g < 8; g++ {
		go func() {
			for round := 0; round < 3; round++ {
				for i, m := range ms {
					if got := x.Check(m.Status, m.Body, nil).String(); got != want[i] {
						done <- fmt.Errorf("%s: concurrent result differs:\n%s\nwant\n%s", m, got, want[i])
						return
					}
				}
			}
			done <- nil
		}()
	}
	for g := 0; g < 8; g++ {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}

package conformance

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/conform-dev/conform/fixtures"
)

var update = flag.Bool("update", false, "rewrite the golden files and generated test data under testdata/ (check the diff before committing)")

// The responses under testdata/responses are Elasticsearch 8.15 responses crafted, until the
// embedded engine lands, from the default corpus by the small model of ES-SEMANTICS.md below:
// compact JSON, ES's key order, raw _source bytes, scaled_float sort values as
// round(v*100)*(1/100.0), float terms keys widened to double, Java's number printing. They are
// named NAME.STATUS.json. TestTestdataResponses keeps them reproducible.

type response struct {
	name   string
	status int
	body   []byte
}

func loadResponses(t testing.TB) []response {
	t.Helper()
	files, err := filepath.Glob("testdata/responses/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no test responses under testdata/responses (%v)", err)
	}
	var out []response
	for _, f := range files {
		base := strings.TrimSuffix(filepath.Base(f), ".json")
		dot := strings.LastIndexByte(base, '.')
		status, err := strconv.Atoi(base[dot+1:])
		if dot < 0 || err != nil {
			t.Fatalf("%s: name must be NAME.STATUS.json", f)
		}
		body, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, response{name: base[:dot], status: status, body: body})
	}
	return out
}

func TestTestdataResponses(t *testing.T) {
	if raceEnabled && !*update {
		t.Skip("generating the default corpus takes seconds under the race detector; this check runs in go test without -race")
	}
	gen := generateResponses(t)
	for _, r := range gen {
		path := filepath.Join("testdata", "responses", fmt.Sprintf("%s.%d.json", r.name, r.status))
		if *update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, r.body, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(got, r.body) {
			t.Errorf("%s is not what the generator makes (%v); run go test -run TestTestdataResponses -update and check the diff", path, err)
		}
		if !json.Valid(r.body) {
			t.Errorf("%s is not valid JSON", path)
		}
	}
}

type doc struct {
	n      int // document number: insertion order
	id     string
	source json.RawMessage
	f      map[string]any
}

func (d doc) str(field string) (string, bool) { s, ok := d.f[field].(string); return s, ok }

func (d doc) num(field string) (float64, bool) {
	n, ok := d.f[field].(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	return f, err == nil
}

func (d doc) boolean(field string) (bool, bool) {
	switch v := d.f[field].(type) {
	case bool:
		return v, true
	case string:
		b, err := strconv.ParseBool(v)
		return b, err == nil
	}
	return false, false
}

// javaDouble prints a double as Java's Double.toString does (JDK 19+: shortest digits):
// plain notation with at least one fraction digit in [1e-3, 1e7), otherwise d.dddE±n.
func javaDouble(f float64) string {
	return javaNumber(strconv.FormatFloat(f, 'e', -1, 64), math.Abs(f))
}

// javaFloat prints a float as Java's Float.toString does.
func javaFloat(f float32) string {
	return javaNumber(strconv.FormatFloat(float64(f), 'e', -1, 32), math.Abs(float64(f)))
}

func javaNumber(e string, abs float64) string {
	neg := strings.HasPrefix(e, "-")
	e = strings.TrimPrefix(e, "-")
	mant, expText, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expText)
	digits := strings.Replace(mant, ".", "", 1)
	var s string
	if abs == 0 || abs >= 1e-3 && abs < 1e7 {
		point := exp + 1
		switch {
		case abs == 0:
			s = "0.0"
		case point <= 0:
			s = "0." + strings.Repeat("0", -point) + digits
		case point >= len(digits):
			s = digits + strings.Repeat("0", point-len(digits)) + ".0"
		default:
			s = digits[:point] + "." + digits[point:]
		}
	} else {
		frac := digits[1:]
		if frac == "" {
			frac = "0"
		}
		s = digits[:1] + "." + frac + "E" + strconv.Itoa(exp)
	}
	if neg {
		return "-" + s
	}
	return s
}

const shards = `"_shards":{"total":1,"successful":1,"skipped":0,"failed":0}`

func searchHeader(took int) string {
	return fmt.Sprintf(`{"took":%d,"timed_out":false,%s,`, took, shards)
}

func generateResponses(t testing.TB) []response {
	t.Helper()
	fx := fixtures.Default()
	index := fx.Workload.Index
	docs := make([]doc, len(fx.Docs))
	for i, d := range fx.Docs {
		dec := json.NewDecoder(bytes.NewReader(d.Source))
		dec.UseNumber()
		var f map[string]any
		if err := dec.Decode(&f); err != nil {
			t.Fatalf("doc %s: %v", d.ID, err)
		}
		docs[i] = doc{n: i, id: d.ID, source: d.Source, f: f}
	}
	var out []response

	// A filtered page sorted on price (scaled_float, factor 100) then the unique sku, and the
	// page after it, as the default workload's page and after cases do.
	var tools []doc
	for _, d := range docs {
		if c, _ := d.str("category"); c == "tools" {
			if in, ok := d.boolean("in_stock"); ok && in {
				tools = append(tools, d)
			}
		}
	}
	priceKey := func(d doc) (float64, bool) {
		p, ok := d.num("price")
		if !ok {
			return math.Inf(1), false
		}
		return float64(math.Round(p*100)) * (1.0 / 100), true
	}
	slices.SortStableFunc(tools, func(a, b doc) int {
		pa, _ := priceKey(a)
		pb, _ := priceKey(b)
		if pa != pb {
			if pa < pb {
				return -1
			}
			return 1
		}
		return strings.Compare(a.id, b.id)
	})
	hit := func(d doc, sort ...string) string {
		h := fmt.Sprintf(`{"_index":%q,"_id":%q,"_score":null,"_source":%s`, index, d.id, d.source)
		if len(sort) > 0 {
			h += `,"sort":[` + strings.Join(sort, ",") + `]`
		}
		return h + "}"
	}
	priceHit := func(d doc) string {
		p, ok := priceKey(d)
		sv := `"Infinity"`
		if ok {
			sv = javaDouble(p)
		}
		return hit(d, sv, strconv.Quote(d.id))
	}
	page := func(took int, ds []doc, total int) []byte {
		var hs []string
		for _, d := range ds {
			hs = append(hs, priceHit(d))
		}
		return []byte(searchHeader(took) + fmt.Sprintf(`"hits":{"total":{"value":%d,"relation":"eq"},"max_score":null,"hits":[%s]}}`, total, strings.Join(hs, ",")))
	}
	out = append(out, response{"page-price", 200, page(4, tools[:20], len(tools))})
	out = append(out, response{"after-price", 200, page(3, tools[20:40], len(tools))})

	// A page sorted on rating (float) ascending, filtered to ratings above 4: float sort values
	// print as float32 (4.1), where terms keys on the same field print widened.
	var rated []doc
	for _, d := range docs {
		r, ok := d.num("rating")
		if c, _ := d.str("color"); c == "red" && ok && float32(r) > 4 {
			rated = append(rated, d)
		}
	}
	ratingKey := func(d doc) float32 { r, _ := d.num("rating"); return float32(r) }
	slices.SortStableFunc(rated, func(a, b doc) int {
		if ra, rb := ratingKey(a), ratingKey(b); ra != rb {
			if ra < rb {
				return -1
			}
			return 1
		}
		return strings.Compare(a.id, b.id)
	})
	var hs []string
	for _, d := range rated[:20] {
		hs = append(hs, hit(d, javaFloat(ratingKey(d)), strconv.Quote(d.id)))
	}
	out = append(out, response{"page-rating", 200, []byte(searchHeader(2) + fmt.Sprintf(
		`"hits":{"total":{"value":%d,"relation":"eq"},"max_score":null,"hits":[%s]}}`, len(rated), strings.Join(hs, ",")))})

	// A filter-only query without sort: relevance order, every score 0.0, ties by doc number.
	var garden []doc
	for _, d := range docs {
		if c, _ := d.str("category"); c == "garden" {
			garden = append(garden, d)
		}
	}
	hs = nil
	for _, d := range garden[:10] {
		hs = append(hs, strings.Replace(hit(d), `"_score":null`, `"_score":0.0`, 1))
	}
	out = append(out, response{"page-relevance", 200, []byte(searchHeader(1) + fmt.Sprintf(
		`"hits":{"total":{"value":%d,"relation":"eq"},"max_score":0.0,"hits":[%s]}}`, len(garden), strings.Join(hs, ",")))})

	// Terms on a keyword: count desc, then key asc in UTF-8 byte order; 10 buckets.
	type bucket struct {
		key   string
		order float64
		count int
	}
	terms := func(field string, size int, keyOf func(doc) (string, float64, bool), numeric bool) string {
		counts := map[string]*bucket{}
		for _, d := range docs {
			k, o, ok := keyOf(d)
			if !ok {
				continue
			}
			if counts[k] == nil {
				counts[k] = &bucket{key: k, order: o}
			}
			counts[k].count++
		}
		var bs []*bucket
		for _, b := range counts {
			bs = append(bs, b)
		}
		slices.SortFunc(bs, func(a, b *bucket) int {
			if a.count != b.count {
				return b.count - a.count
			}
			if numeric {
				if a.order < b.order {
					return -1
				}
				if a.order > b.order {
					return 1
				}
				return 0
			}
			return strings.Compare(a.key, b.key)
		})
		other := 0
		for _, b := range bs[min(size, len(bs)):] {
			other += b.count
		}
		var items []string
		for _, b := range bs[:min(size, len(bs))] {
			items = append(items, fmt.Sprintf(`{"key":%s,"doc_count":%d}`, b.key, b.count))
		}
		return fmt.Sprintf(`{"doc_count_error_upper_bound":0,"sum_other_doc_count":%d,"buckets":[%s]}`, other, strings.Join(items, ","))
	}
	allHits := fmt.Sprintf(`"hits":{"total":{"value":%d,"relation":"eq"},"max_score":null,"hits":[]}`, len(docs))
	brand := terms("brand", 10, func(d doc) (string, float64, bool) {
		s, ok := d.str("brand")
		return strconv.Quote(s), 0, ok
	}, false)
	out = append(out, response{"terms-brand", 200, []byte(searchHeader(9) + allHits + `,"aggregations":{"by_brand":` + brand + `}}`)})
	rating := terms("rating", 5, func(d doc) (string, float64, bool) {
		r, ok := d.num("rating")
		return javaDouble(float64(float32(r))), float64(float32(r)), ok
	}, true)
	out = append(out, response{"terms-rating", 200, []byte(searchHeader(7) + allHits + `,"aggregations":{"by_rating":` + rating + `}}`)})

	// Two sibling filter counts.
	first, second := 0, 0
	for _, d := range docs {
		if r, ok := d.num("rating"); ok && float32(r) >= float32(1.5) {
			first++
		}
		if in, ok := d.boolean("in_stock"); ok && in {
			second++
		}
	}
	out = append(out, response{"counts", 200, []byte(searchHeader(6) + allHits + fmt.Sprintf(
		`,"aggregations":{"first":{"doc_count":%d},"second":{"doc_count":%d}}}`, first, second))})

	// Document reads: found (one with a 2^53+1 view count), and not found.
	get := func(d doc) []byte {
		return []byte(fmt.Sprintf(`{"_index":%q,"_id":%q,"_version":1,"_seq_no":%d,"_primary_term":1,"found":true,"_source":%s}`, index, d.id, d.n, d.source))
	}
	out = append(out, response{"get-found", 200, get(docs[4])})
	big := slices.IndexFunc(docs, func(d doc) bool { return bytes.Contains(d.source, []byte(`"views":9007199254740993`)) })
	if big < 0 {
		t.Fatal("the default corpus no longer has a document with views 9007199254740993")
	}
	out = append(out, response{"get-bigint", 200, get(docs[big])})
	out = append(out, response{"get-not-found", 404, []byte(fmt.Sprintf(`{"_index":%q,"_id":"SKU-00000","found":false}`, index))})

	// _count.
	out = append(out, response{"count", 200, []byte(fmt.Sprintf(`{"count":%d,%s}`, len(tools), shards))})

	// Errors: from + size beyond the result window (400), and an unknown index (404).
	const window = "Result window is too large, from + size must be less than or equal to: [10000] but was [10020]. See the scroll api for a more efficient way to request large data sets. This limit can be set by changing the [index.max_result_window] index level setting."
	reason := fmt.Sprintf(`{"type":"illegal_argument_exception","reason":%q}`, window)
	out = append(out, response{"error-window", 400, []byte(fmt.Sprintf(
		`{"error":{"root_cause":[%s],"type":"search_phase_execution_exception","reason":"all shards failed","phase":"query","grouped":true,"failed_shards":[{"shard":0,"index":%q,"node":"dKx3nq1PQ8mYyGoQfJv8dw","reason":%s}],"caused_by":{"type":"illegal_argument_exception","reason":%q,"caused_by":%s}},"status":400}`,
		reason, index, reason, window, reason))})
	missing := `{"type":"index_not_found_exception","reason":"no such index [nope]","resource.type":"index_or_alias","resource.id":"nope","index_uuid":"_na_","index":"nope"}`
	out = append(out, response{"error-no-index", 404, []byte(fmt.Sprintf(
		`{"error":{"root_cause":[%s],"type":"index_not_found_exception","reason":"no such index [nope]","resource.type":"index_or_alias","resource.id":"nope","index_uuid":"_na_","index":"nope"},"status":404}`, missing))})
	return out
}

func TestJavaNumber(t *testing.T) {
	for _, c := range []struct {
		f    float64
		want string
	}{
		{30, "30.0"}, {36.25, "36.25"}, {1e20, "1.0E20"}, {12345678, "1.2345678E7"}, {0.001, "0.001"},
		{0.0001, "1.0E-4"}, {19.990000000000002, "19.990000000000002"}, {0, "0.0"}, {-2.5, "-2.5"},
		{float64(float32(4.1)), "4.099999904632568"},
	} {
		if got := javaDouble(c.f); got != c.want {
			t.Errorf("javaDouble(%v) = %s, want %s", c.f, got, c.want)
		}
	}
	if got := javaFloat(4.1); got != "4.1" {
		t.Errorf("javaFloat(4.1) = %s", got)
	}
}

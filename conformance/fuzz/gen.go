package fuzz

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/conform-dev/conform/fixtures"
)

// Request kinds, each a weight name.
const (
	KindSearch = "search" // a sorted page of hits
	KindAfter  = "after"  // a sorted page continued with search_after from the oracle's last hit
	KindAggs   = "aggs"   // aggregations, usually with size 0
	KindCount  = "count"  // _count
	KindGet    = "get"    // GET _doc
)

// Weights are the relative frequencies of request kinds ("search", "after", "aggs", "count",
// "get") and of query leaves ("term", "terms", "range", "exists", "ids", "prefix", "bool",
// "match_all"). A zero weight turns a choice off.
type Weights map[string]int

// DefaultWeights favour searches and aggregations, the richest answers.
func DefaultWeights() Weights {
	return Weights{
		KindSearch: 8, KindAfter: 4, KindAggs: 6, KindCount: 2, KindGet: 1,
		"term": 4, "terms": 3, "range": 5, "exists": 2, "ids": 1, "prefix": 2, "bool": 4, "match_all": 1,
	}
}

var requestKinds = []string{KindSearch, KindAfter, KindAggs, KindCount, KindGet}
var leafKinds = []string{"term", "terms", "range", "exists", "ids", "prefix", "bool", "match_all"}

// ParseWeights reads "name=N,..." over the defaults.
func ParseWeights(s string) (Weights, error) {
	w := DefaultWeights()
	if strings.TrimSpace(s) == "" {
		return w, nil
	}
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		n, err := strconv.Atoi(v)
		if !ok || err != nil || n < 0 {
			return nil, fmt.Errorf("%q is not name=N with N >= 0", part)
		}
		if _, known := w[k]; !known {
			return nil, fmt.Errorf("unknown weight %q (weights: %s)", k, strings.Join(append(append([]string{}, requestKinds...), leafKinds...), ", "))
		}
		w[k] = n
	}
	if w.sum(requestKinds) == 0 {
		return nil, fmt.Errorf("every request kind has weight 0")
	}
	if w.sum(leafKinds) == 0 {
		return nil, fmt.Errorf("every query kind has weight 0")
	}
	return w, nil
}

func (w Weights) sum(names []string) int {
	n := 0
	for _, k := range names {
		n += w[k]
	}
	return n
}

// String renders the weights in a stable order.
func (w Weights) String() string {
	var parts []string
	for _, k := range append(append([]string{}, requestKinds...), leafKinds...) {
		parts = append(parts, fmt.Sprintf("%s=%d", k, w[k]))
	}
	return strings.Join(parts, ",")
}

// Request is one generated request.
type Request struct {
	// Seq is the request's number in the run: with the seed it regenerates the request.
	Seq    int
	Kind   string
	Method string
	Path   string // with {index} for the index name
	Body   *Object
	// Continue asks for search_after: the runner sends Body to the oracle first and appends
	// the sort values of its last hit (a search_after continuing that page).
	Continue bool
	// Features name what the request exercises ("query:range:date:day", "sort:missing:_first").
	Features []string
}

// Concrete is the request for an index, with its body rendered.
func (r *Request) Concrete(index string) fixtures.Request {
	out := fixtures.Request{Case: fmt.Sprintf("fuzz/%d", r.Seq), Method: r.Method, Path: strings.ReplaceAll(r.Path, fixtures.IndexPlaceholder, index)}
	if r.Body != nil {
		out.Body = Marshal(r.Body)
	}
	return out
}

// Options tune a generator.
type Options struct {
	Weights Weights
	// NoTiebreak lets sorts end in any key, not only the unique one; the hits' order within a
	// tie is then Lucene doc id order, which an engine need not share (ES-SEMANTICS §2.9).
	NoTiebreak bool
}

// Generator makes requests from a seed: request n is the same for the same seed, schema and
// options, whatever was generated before it.
type Generator struct {
	s    *Schema
	seed uint64
	o    Options
}

// NewGenerator checks the schema can be fuzzed with these options.
func NewGenerator(s *Schema, seed uint64, o Options) (*Generator, error) {
	if o.Weights == nil {
		o.Weights = DefaultWeights()
	}
	if s.Unique == "" && !o.NoTiebreak {
		return nil, fmt.Errorf("the corpus has no keyword field with a distinct value in every document to end sorts with (allow ties with NoTiebreak)")
	}
	return &Generator{s: s, seed: seed, o: o}, nil
}

// Schema is the generator's schema.
func (g *Generator) Schema() *Schema { return g.s }

// Tiebreak is the unique field every sort ends in, or "" when ties are allowed.
func (g *Generator) Tiebreak() string {
	if g.o.NoTiebreak {
		return ""
	}
	return g.s.Unique
}

type gen struct {
	*Generator
	r    *rand.Rand
	feat map[string]bool
}

func (g *gen) f(parts ...string) { g.feat[strings.Join(parts, ":")] = true }

func (g *gen) n(k int) int { return g.r.IntN(k) }

func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

func (g *gen) pick(names []string) string {
	total := g.o.Weights.sum(names)
	x := g.n(total)
	for _, k := range names {
		if x < g.o.Weights[k] {
			return k
		}
		x -= g.o.Weights[k]
	}
	return names[len(names)-1]
}

// newRand is request n's own stream: requests do not depend on each other.
func newRand(seed uint64, n int) *rand.Rand {
	return rand.New(rand.NewPCG(seed, uint64(n)*0x9E3779B97F4A7C15+1))
}

func jsonNumber(s string) json.Number { return json.Number(s) }

func pickOne[T any](g *gen, xs []T) T { return xs[g.n(len(xs))] }

// Request generates request n.
func (g *Generator) Request(n int) *Request {
	st := &gen{Generator: g, r: newRand(g.seed, n), feat: map[string]bool{}}
	req := &Request{Seq: n, Method: "POST", Path: "/" + fixtures.IndexPlaceholder + "/_search"}
	req.Kind = st.pick(requestKinds)
	switch req.Kind {
	case KindGet:
		req.Method, req.Body = "GET", nil
		id := pickOne(st, g.s.IDs)
		if st.chance(0.1) {
			id = "fuzz-absent-" + strconv.Itoa(st.n(1000))
			st.f("get", "absent")
		} else {
			st.f("get", "found")
		}
		req.Path = "/" + fixtures.IndexPlaceholder + "/_doc/" + url.PathEscape(id)
	case KindCount:
		req.Path = "/" + fixtures.IndexPlaceholder + "/_count"
		st.f("count")
		q := st.query(0)
		if q == nil {
			q = Obj("match_all", Obj())
		}
		req.Body = Obj("query", q)
	case KindSearch, KindAfter:
		b := &Object{}
		if q := st.query(0); q != nil {
			b.Set("query", q)
		}
		size := 1 + st.n(25)
		b.Set("size", num(int64(size)))
		if req.Kind == KindSearch && st.chance(0.3) {
			from := st.n(40)
			b.Set("from", num(int64(from)))
			st.f("from")
		}
		b.Set("sort", st.sorts())
		st.options(b)
		if req.Kind == KindAfter {
			req.Continue = true
			st.f("search_after")
		}
		if st.chance(0.15) {
			b.Set("aggs", st.aggs())
		}
		req.Body = b
	case KindAggs:
		b := &Object{}
		if st.chance(0.5) {
			if q := st.query(0); q != nil {
				b.Set("query", q)
			}
		}
		if st.chance(0.85) {
			b.Set("size", num(0))
		} else {
			b.Set("size", num(int64(1+st.n(5))))
			b.Set("sort", st.sorts())
		}
		st.options(b)
		b.Set("aggs", st.aggs())
		req.Body = b
	}
	st.f("kind", req.Kind)
	for k := range st.feat {
		req.Features = append(req.Features, k)
	}
	sort.Strings(req.Features)
	return req
}

// options adds track_total_hits and _source filtering.
func (g *gen) options(b *Object) {
	switch g.n(5) {
	case 0: // absent: the default threshold of 10,000
		g.f("track_total_hits", "default")
	case 1:
		b.Set("track_total_hits", true)
		g.f("track_total_hits", "true")
	case 2:
		b.Set("track_total_hits", false)
		g.f("track_total_hits", "false")
	default:
		limits := []int64{1, 5, 10, 50, 100, 500, 1000, 5000, 10000}
		b.Set("track_total_hits", num(pickOne(g, limits)))
		g.f("track_total_hits", "integer")
	}
	if !g.chance(0.3) {
		return
	}
	names := func() []any {
		var out []any
		for i, k := 0, 1+g.n(3); i < k; i++ {
			out = append(out, pickOne(g, g.s.Fields).Name)
		}
		return out
	}
	switch g.n(5) {
	case 0:
		b.Set("_source", false)
		g.f("source", "false")
	case 1:
		b.Set("_source", pickOne(g, g.s.Fields).Name)
		g.f("source", "field")
	case 2:
		b.Set("_source", names())
		g.f("source", "list")
	case 3:
		b.Set("_source", Obj("includes", names()))
		g.f("source", "includes")
	default:
		b.Set("_source", Obj("excludes", names()))
		g.f("source", "excludes")
	}
}

// query makes a query, or nil for none (match_all by default).
func (g *gen) query(depth int) any {
	if depth == 0 && g.chance(0.15) {
		return nil
	}
	kind := g.pick(leafKinds)
	if kind == "bool" && depth >= 3 {
		kind = "term"
	}
	switch kind {
	case "bool":
		return g.boolQuery(depth)
	case "match_all":
		g.f("query", "match_all")
		return Obj("match_all", Obj())
	case "exists":
		fd := pickOne(g, g.s.Fields)
		g.f("query", "exists")
		return Obj("exists", Obj("field", fd.Name))
	case "ids":
		var vals []any
		for i, k := 0, 1+g.n(4); i < k; i++ {
			if g.chance(0.15) {
				vals = append(vals, "fuzz-absent-"+strconv.Itoa(g.n(100)))
			} else {
				vals = append(vals, pickOne(g, g.s.IDs))
			}
		}
		g.f("query", "ids")
		return Obj("ids", Obj("values", vals))
	case "prefix":
		if fs := g.s.byKind(kindKeyword); len(fs) > 0 {
			fd := pickOne(g, fs)
			v, _ := pickOne(g, fd.Values).(string)
			n := 1 + g.n(3)
			p := v
			for i := 0; i < len(v); {
				_, w := utf8.DecodeRuneInString(v[i:])
				i += w
				n--
				if n == 0 {
					p = v[:i]
					break
				}
			}
			g.f("query", "prefix")
			return Obj("prefix", Obj(fd.Name, p))
		}
		return g.term(pickOne(g, g.s.Fields))
	case "terms":
		return g.terms(pickOne(g, g.s.Fields))
	case "range":
		if fs := g.s.byKind(kindInteger, kindFloat, kindDate); len(fs) > 0 {
			return g.rangeQuery(pickOne(g, fs))
		}
	}
	return g.term(pickOne(g, g.s.Fields))
}

func (g *gen) boolQuery(depth int) any {
	b := &Object{}
	occurs := []string{"must", "filter", "should", "must_not"}
	for len(b.Keys) == 0 {
		for _, occ := range occurs {
			if !g.chance(0.4) {
				continue
			}
			var clauses []any
			for i, k := 0, 1+g.n(3); i < k; i++ {
				q := g.query(depth + 1)
				if q == nil {
					q = Obj("match_all", Obj())
				}
				clauses = append(clauses, q)
			}
			b.Set(occ, clauses)
			g.f("query", "bool", occ)
		}
	}
	if sh, ok := b.Get("should"); ok && g.chance(0.4) {
		n := len(sh.([]any))
		b.Set("minimum_should_match", num(int64(g.n(n+1))))
		g.f("query", "bool", "minimum_should_match")
	}
	if depth > 0 {
		g.f("query", "bool", "nested")
	}
	return Obj("bool", b)
}

// value draws one value of a field for a term-level query.
func (g *gen) value(fd *Field) any {
	switch fd.Kind {
	case kindBool:
		if g.chance(0.2) {
			g.f("query", "value", "boolean-string")
			return strconv.FormatBool(g.chance(0.5))
		}
		return g.chance(0.5)
	case kindDate:
		if fd.DefaultFormat {
			return g.date(fd, pickOne(g, fd.Millis), false)
		}
	case kindInteger:
		if n, ok := pickOne(g, fd.Values).(json.Number); ok {
			if f, err := n.Float64(); err == nil && f == float64(int64(f)) {
				return num(int64(f))
			}
		}
		return num(int64(pickOne(g, fd.Numbers)))
	}
	return pickOne(g, fd.Values)
}

// date renders epoch millis as a day-only date or a full timestamp. upper rounds a day-only
// bound's day the way a reader expects nothing: the engine's rounding is what is tested.
func (g *gen) date(fd *Field, ms int64, _ bool) any {
	t := time.UnixMilli(ms).UTC()
	switch g.n(3) {
	case 0:
		g.f("date", "day")
		return t.Format("2006-01-02")
	case 1:
		g.f("date", "seconds")
		return t.Format("2006-01-02T15:04:05Z")
	}
	g.f("date", "millis")
	return t.Format("2006-01-02T15:04:05.000Z")
}

func (g *gen) term(fd *Field) any {
	g.f("query", "term", fd.Kind)
	return Obj("term", Obj(fd.Name, g.value(fd)))
}

func (g *gen) terms(fd *Field) any {
	g.f("query", "terms", fd.Kind)
	var vals []any
	for i, k := 0, 1+g.n(4); i < k; i++ {
		vals = append(vals, g.value(fd))
	}
	return Obj("terms", Obj(fd.Name, vals))
}

func (g *gen) rangeQuery(fd *Field) any {
	b := &Object{}
	lower := []string{"gt", "gte"}
	upper := []string{"lt", "lte"}
	both := g.chance(0.5)
	lo, hi := g.n(1000), g.n(1000)
	if lo > hi {
		lo, hi = hi, lo
	}
	at := func(q int) any {
		switch fd.Kind {
		case kindDate:
			ms := fd.Millis[q*(len(fd.Millis)-1)/999]
			return g.date(fd, ms, false)
		case kindInteger:
			v := fd.Numbers[q*(len(fd.Numbers)-1)/999]
			if g.chance(0.15) {
				g.f("query", "range", "integer", "decimal-bound")
				return json.Number(strconv.FormatFloat(float64(int64(v))+0.5, 'f', -1, 64))
			}
			return num(int64(v))
		}
		return json.Number(strconv.FormatFloat(fd.Numbers[q*(len(fd.Numbers)-1)/999], 'f', -1, 64))
	}
	if both || g.chance(0.5) {
		op := pickOne(g, lower)
		b.Set(op, at(lo))
		g.f("query", "range", op)
	}
	if both || b.Len() == 0 {
		op := pickOne(g, upper)
		b.Set(op, at(hi))
		g.f("query", "range", op)
	}
	g.f("query", "range", fd.Kind)
	return Obj("range", Obj(fd.Name, b))
}

// sorts makes a sort: up to three keys on any field, then the unique key.
func (g *gen) sorts() []any {
	var out []any
	used := map[string]bool{}
	for i, k := 0, g.n(4); i < k; i++ {
		fd := pickOne(g, g.s.Fields)
		if used[fd.Name] || fd.Name == g.s.Unique {
			continue
		}
		used[fd.Name] = true
		out = append(out, g.sortKey(fd))
	}
	if tb := g.Tiebreak(); tb != "" {
		// The tiebreak is written {"sku":"asc"} or {"sku":"desc"}; about one in twelve is
		// the bare shorthand "sku", a variation of its own, so a target that mishandles the
		// shorthand fails on those requests only, and they group apart.
		switch x := g.r.Float64(); {
		case x < 0.3:
			out = append(out, Obj(tb, "desc"))
		case x < 0.38:
			out = append(out, tb)
			g.f("sort", "bare", "tiebreak")
		default:
			out = append(out, Obj(tb, "asc"))
		}
	} else if len(out) == 0 {
		out = append(out, g.sortKey(pickOne(g, g.s.Fields)))
		g.f("sort", "no-tiebreak")
	}
	return out
}

func (g *gen) sortKey(fd *Field) any {
	desc := g.chance(0.5)
	dir := "asc"
	if desc {
		dir = "desc"
	}
	g.f("sort", fd.Kind, dir)
	// The bare shorthand ("price") is written on the tiebreak only (sorts), so that a target
	// that mishandles it makes one group, not one per field.
	if g.chance(0.25) {
		return Obj(fd.Name, dir)
	}
	o := Obj("order", dir)
	switch g.n(4) {
	case 0:
		o.Set("missing", "_first")
		g.f("sort", "missing", "_first")
	case 1:
		o.Set("missing", "_last")
		g.f("sort", "missing", "_last")
	case 2:
		if v := g.customMissing(fd); v != nil {
			o.Set("missing", v)
			g.f("sort", "missing", "custom")
		}
	}
	if g.chance(0.4) {
		modes := []string{"min", "max"}
		if fd.Kind == kindInteger || fd.Kind == kindFloat {
			modes = append(modes, "sum", "avg", "median")
		}
		m := pickOne(g, modes)
		o.Set("mode", m)
		if fd.Multi {
			g.f("sort", "mode", m, "multi-valued")
		} else {
			g.f("sort", "mode", m)
		}
	}
	return Obj(fd.Name, o)
}

// customMissing is a sort's missing value of the field's sort type: a number for numbers,
// dates (epoch millis) and booleans (0 or 1), a string for keywords. The values are few per
// field (its smallest, median and largest, and one beyond each end), which are the ones that
// move a missing document across the others; the embedded engine also caches a sort column
// per distinct missing value, so a few keep a long run's memory flat.
func (g *gen) customMissing(fd *Field) any {
	switch fd.Kind {
	case kindKeyword:
		return pickOne(g, []any{"", "m", "zzz", fd.Values[0]})
	case kindInteger:
		return num(int64(edge(g, fd.Numbers, 1)))
	case kindFloat:
		return json.Number(strconv.FormatFloat(edge(g, fd.Numbers, 0.5), 'f', -1, 64))
	case kindDate:
		if len(fd.Millis) > 0 {
			ms := make([]float64, 0, 3)
			for _, m := range []int64{fd.Millis[0], fd.Millis[len(fd.Millis)/2], fd.Millis[len(fd.Millis)-1]} {
				ms = append(ms, float64(m))
			}
			return num(int64(edge(g, ms, 86400000)))
		}
	case kindBool:
		return num(int64(g.n(2)))
	}
	return nil
}

// edge picks the smallest, median or largest of sorted xs, or one step beyond either end.
func edge(g *gen, xs []float64, step float64) float64 {
	lo, mid, hi := xs[0], xs[len(xs)/2], xs[len(xs)-1]
	return pickOne(g, []float64{lo, mid, hi, lo - step, hi + step})
}

// aggs makes one to three sibling aggregations named a0, a1, ...
func (g *gen) aggs() *Object {
	out := &Object{}
	for i, k := 0, 1+g.n(3); i < k; i++ {
		out.Set("a"+strconv.Itoa(i), g.agg(0))
	}
	return out
}

func (g *gen) agg(depth int) *Object {
	switch g.n(6) {
	case 0, 1, 2:
		return g.termsAgg(depth)
	case 3:
		g.f("agg", "filter")
		a := Obj("filter", g.filterQuery())
		if depth == 0 && g.chance(0.4) {
			a.Set("aggs", Obj("m", g.metric()))
		}
		return a
	case 4:
		return g.filtersAgg(depth)
	}
	return g.metric()
}

func (g *gen) filterQuery() any {
	q := g.query(1)
	if q == nil {
		return Obj("match_all", Obj())
	}
	return q
}

func (g *gen) termsAgg(depth int) *Object {
	fd := pickOne(g, g.s.Fields)
	t := Obj("field", fd.Name)
	g.f("agg", "terms", fd.Kind)
	if g.chance(0.7) {
		t.Set("size", num(int64(1+g.n(30))))
		g.f("agg", "terms", "size")
	}
	if g.chance(0.4) {
		key := pickOne(g, []string{"_count", "_key"})
		dir := pickOne(g, []string{"asc", "desc"})
		t.Set("order", Obj(key, dir))
		g.f("agg", "terms", "order", key, dir)
	}
	if g.chance(0.25) {
		m := pickOne(g, []int64{0, 1, 2, 5})
		t.Set("min_doc_count", num(m))
		g.f("agg", "terms", "min_doc_count")
	}
	if fd.Missing && g.chance(0.3) {
		var v any
		switch fd.Kind {
		case kindDate:
			v = g.date(fd, pickOne(g, fd.Millis), false)
		default:
			v = g.value(fd)
		}
		if s, ok := v.(string); ok && fd.Kind == kindBool {
			v = s == "true"
		}
		t.Set("missing", v)
		g.f("agg", "terms", "missing")
	}
	a := Obj("terms", t)
	if depth == 0 && g.chance(0.3) {
		if g.chance(0.5) {
			a.Set("aggs", Obj("m", g.metric()))
		} else {
			g.f("agg", "terms", "sub-filter")
			a.Set("aggs", Obj("f", Obj("filter", g.filterQuery())))
		}
	}
	return a
}

func (g *gen) filtersAgg(depth int) *Object {
	n := 1 + g.n(3)
	var o *Object
	if g.chance(0.5) {
		keyed := &Object{}
		for i := 0; i < n; i++ {
			keyed.Set(pickOne(g, []string{"x", "b", "a", "Z", "é", "f" + strconv.Itoa(i)}), g.filterQuery())
		}
		o = Obj("filters", keyed)
		g.f("agg", "filters", "keyed")
	} else {
		var anon []any
		for i := 0; i < n; i++ {
			anon = append(anon, g.filterQuery())
		}
		o = Obj("filters", anon)
		g.f("agg", "filters", "anonymous")
	}
	switch g.n(4) {
	case 0:
		o.Set("other_bucket", true)
		g.f("agg", "filters", "other_bucket")
	case 1:
		o.Set("other_bucket_key", "rest")
		g.f("agg", "filters", "other_bucket_key")
	}
	a := Obj("filters", o)
	if depth == 0 && g.chance(0.3) {
		a.Set("aggs", Obj("m", g.metric()))
	}
	return a
}

func (g *gen) metric() *Object {
	num := g.s.byKind(kindInteger, kindFloat)
	if len(num) == 0 || g.chance(0.2) {
		fd := pickOne(g, g.s.Fields)
		g.f("agg", "value_count", fd.Kind)
		return Obj("value_count", Obj("field", fd.Name))
	}
	fd := pickOne(g, num)
	m := pickOne(g, []string{"min", "max", "sum", "avg", "value_count"})
	g.f("agg", m, fd.Kind)
	return Obj(m, Obj("field", fd.Name))
}

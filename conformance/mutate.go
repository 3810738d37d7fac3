package conformance

import (
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
)

// Mutation is an expected response altered the way a faulty target might alter it, labelled
// with what the check must say about it. The mutation suite (VerifyMutation over Mutations)
// proves that every failing alteration is caught with the right class and that every
// harmless one passes.
type Mutation struct {
	// Operator names the alteration, e.g. "drop-hit" or "int-to-float".
	Operator string
	// Where is the path of the altered value, or a short note.
	Where string
	// Class is the one class the check must fail with; empty for a mutation that must pass.
	Class Class
	// Reported is, for a mutation that must pass, the report-only class the check must
	// report (and fail on under Pedantic); empty when the check must find no difference.
	Reported Class
	Status   int
	Body     []byte
}

// MustPass reports whether the check must pass the mutated response.
func (m Mutation) MustPass() bool { return m.Class == "" }

func (m Mutation) String() string {
	want := "fail " + string(m.Class)
	if m.MustPass() {
		want = "pass"
		if m.Reported != "" {
			want += ", report " + string(m.Reported)
		}
	}
	return fmt.Sprintf("%s at %s (%s)", m.Operator, m.Where, want)
}

// VerifyMutation checks one mutation: a failing one must fail with exactly its class (no
// other class failing); a passing one must pass, report exactly its Reported class or nothing,
// and, under Pedantic, fail with exactly its Reported class or still pass when there is none.
// It returns nil when the check behaved, or an error that shows the check's differences.
func VerifyMutation(x *Expectation, m Mutation) error {
	r := x.Check(m.Status, m.Body, nil)
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%s: %s\n%s", m, fmt.Sprintf(format, args...), r)
	}
	if !m.MustPass() {
		if r.Pass {
			return bad("the check passed it")
		}
		if fc := r.FailingClasses(); len(fc) != 1 || fc[0] != m.Class {
			return bad("failing classes are %v, want [%s]", fc, m.Class)
		}
		return nil
	}
	if !r.Pass {
		return bad("the check failed it")
	}
	for _, d := range r.Diffs {
		if d.Class != m.Reported {
			return bad("reported a %s difference", d.Class)
		}
	}
	if m.Reported != "" && len(r.Diffs) == 0 {
		return bad("reported nothing, want a %s difference", m.Reported)
	}
	p := x.Check(m.Status, m.Body, &Options{Pedantic: true})
	switch fc := p.FailingClasses(); {
	case m.Reported == "" && !p.Pass:
		return fmt.Errorf("%s: failed under pedantic\n%s", m, p)
	case m.Reported != "" && (len(fc) != 1 || fc[0] != m.Reported):
		return fmt.Errorf("%s: failing classes under pedantic are %v, want [%s]\n%s", m, fc, m.Reported, p)
	}
	return nil
}

// Mutations returns the mutations that apply to an expected response: hits dropped, swapped
// and duplicated; ids, source fields, sort values, totals, buckets and counts changed;
// numbers turned into the other kind (129 ↔ 129.0), strings into numbers ("7" ↔ 7), float32
// values widened or narrowed (4.1 ↔ 4.099999904632568); found flipped, statuses and error
// types changed, bodies truncated; and the harmless ones: keys reordered, took and _shards
// changed, strings escaped, the body pretty-printed. The list is deterministic.
func Mutations(status int, body []byte) ([]Mutation, error) {
	x, err := Compile(status, body)
	if err != nil {
		return nil, err
	}
	g := &mutator{status: status, root: x.root, relevance: x.relevance}
	g.statuses()
	g.decode(body)
	g.harmless(body)
	switch x.kind {
	case KindSearch:
		g.hits()
		g.totals()
		g.aggregations()
	case KindDocument:
		g.document()
	case KindError:
		g.errors()
	case KindCount:
		g.count()
	}
	return g.out, nil
}

type mutator struct {
	status    int
	root      value
	relevance bool
	out       []Mutation
}

// edit applies fn to a copy of the expected tree; fn returns where it changed something, or
// "" if the mutation does not apply.
func (g *mutator) edit(op string, class, reported Class, fn func(root *value) string) {
	root := g.root.clone()
	where := fn(&root)
	if where == "" {
		return
	}
	g.out = append(g.out, Mutation{Operator: op, Where: where, Class: class, Reported: reported,
		Status: g.status, Body: appendJSON(nil, &root)})
}

func (g *mutator) statuses() {
	raw := appendJSON(nil, &g.root)
	others := []int{200}
	if g.status == 200 {
		others = []int{404, 500}
	}
	for _, s := range others {
		g.out = append(g.out, Mutation{Operator: "status-" + strconv.Itoa(s), Where: "HTTP status " + strconv.Itoa(g.status),
			Class: ClassStatus, Status: s, Body: raw})
	}
}

func (g *mutator) decode(body []byte) {
	add := func(op, where string, b []byte) {
		g.out = append(g.out, Mutation{Operator: op, Where: where, Class: ClassDecode, Status: g.status, Body: b})
	}
	add("truncate", "half the body", append([]byte(nil), body[:len(body)/2]...))
	add("truncate", "last byte", append([]byte(nil), body[:len(body)-1]...))
	add("not-json", "whole body", []byte("<html><body>502 Bad Gateway</body></html>"))
	add("empty-body", "whole body", nil)
	add("array-body", "whole body", []byte("[]"))
	add("trailing-data", "end of body", append(append([]byte(nil), body...), `{}`...))
}

func (g *mutator) harmless(body []byte) {
	g.edit("reorder-keys", "", ClassKeyOrder, func(r *value) string {
		if len(r.keys) < 2 {
			return ""
		}
		reverseMembers(r)
		return "top level"
	})
	g.edit("change-took", "", "", func(r *value) string {
		t := r.member("took")
		if t == nil {
			return ""
		}
		*t = numberValue("12345", false, 0)
		return "took"
	})
	g.edit("took-as-string", "", ClassTook, func(r *value) string {
		t := r.member("took")
		if t == nil {
			return ""
		}
		*t = stringValue(t.raw)
		return "took"
	})
	g.edit("change-shards", "", ClassShards, func(r *value) string {
		s := r.member("_shards")
		if s.member("total") == nil || s.member("successful") == nil {
			return ""
		}
		*s.member("total") = numberValue("5", false, 0)
		*s.member("successful") = numberValue("5", false, 0)
		return "_shards"
	})
	g.edit("add-field", "", ClassOther, func(r *value) string {
		setMember(r, "_clusters", mustParse(`{"total":1,"successful":1,"skipped":0}`))
		return "_clusters"
	})
	g.edit("escape-unicode", "", "", func(r *value) string {
		if !escapeUnicode(r) {
			return ""
		}
		return "every string"
	})
	pretty := appendIndented(nil, &g.root, "")
	g.out = append(g.out, Mutation{Operator: "pretty", Where: "whole body", Status: g.status, Body: append(pretty, '\n')})
}

// hitList returns the hits array of a search tree, or nil.
func hitList(r *value) *value {
	h := r.member("hits").member("hits")
	if h == nil || h.kind != kArray {
		return nil
	}
	return h
}

func (g *mutator) hits() {
	n := 0
	if h := hitList(&g.root); h != nil {
		n = len(h.elems)
	}
	if n == 0 {
		return
	}
	id := func(r *value, i int) string {
		if v := hitList(r).elems[i].member("_id"); v != nil {
			return v.raw
		}
		return ""
	}
	for _, i := range uniq(0, n-1) {
		g.edit("drop-hit", ClassIDs, "", func(r *value) string {
			h := hitList(r)
			h.elems = slices.Delete(h.elems, i, i+1)
			return idxPath("hits.hits", i)
		})
	}
	for _, i := range uniq(0, n-2) {
		g.edit("swap-hits", ClassIDs, "", func(r *value) string {
			h := hitList(r)
			if i+1 >= n || id(r, i) == id(r, i+1) {
				return ""
			}
			h.elems[i], h.elems[i+1] = h.elems[i+1], h.elems[i]
			return fmt.Sprintf("hits.hits[%d] and [%d]", i, i+1)
		})
	}
	g.edit("duplicate-hit", ClassIDs, "", func(r *value) string {
		h := hitList(r)
		h.elems = slices.Insert(h.elems, 1, h.elems[0].clone())
		return "hits.hits[1]"
	})
	k := n / 2
	hp := idxPath("hits.hits", k)
	g.edit("change-id", ClassIDs, "", func(r *value) string {
		v := hitList(r).elems[k].member("_id")
		if v == nil || v.kind != kString {
			return ""
		}
		*v = stringValue(v.str + "x")
		return hp + "._id"
	})
	g.sourceOps(func(r *value) *value { return hitList(r).elems[k].member("_source") }, hp+"._source")
	g.edit("drop-source", ClassSources, "", func(r *value) string {
		if !deleteMember(&hitList(r).elems[k], "_source") {
			return ""
		}
		return hp + "._source"
	})
	// Sort values.
	g.edit("change-sort-value", ClassSort, "", func(r *value) string {
		s := hitList(r).elems[k].member("sort")
		if s == nil || s.kind != kArray || len(s.elems) == 0 {
			return ""
		}
		change(&s.elems[0])
		return hp + ".sort[0]"
	})
	g.edit("drop-sort-value", ClassSort, "", func(r *value) string {
		s := hitList(r).elems[k].member("sort")
		if s == nil || s.kind != kArray || len(s.elems) == 0 {
			return ""
		}
		s.elems = s.elems[:len(s.elems)-1]
		return hp + ".sort"
	})
	g.edit("drop-sort", ClassSort, "", func(r *value) string {
		if !deleteMember(&hitList(r).elems[k], "sort") {
			return ""
		}
		return hp + ".sort"
	})
	g.scalarOps(ClassSort, func(r *value, fn scalarFn) string {
		h := hitList(r)
		for i := range h.elems {
			if p := firstScalar(h.elems[i].member("sort"), idxPath("hits.hits", i)+".sort", fn); p != "" {
				return p
			}
		}
		return ""
	})
	// Scores: the ranking in relevance order, report-only under a field sort.
	scoreClass, scoreReported := ClassScore, Class("")
	if !g.relevance {
		scoreClass, scoreReported = "", ClassScore
	}
	g.edit("change-score", scoreClass, scoreReported, func(r *value) string {
		s := hitList(r).elems[0].member("_score")
		if s == nil {
			return ""
		}
		*s = numberValue("1.5", true, 0)
		if s.raw == g.root.member("hits").member("hits").elems[0].member("_score").raw {
			*s = numberValue("2.5", true, 0)
		}
		return "hits.hits[0]._score"
	})
	g.edit("change-max-score", scoreClass, scoreReported, func(r *value) string {
		s := r.member("hits").member("max_score")
		if s == nil {
			return ""
		}
		old := s.raw
		*s = numberValue("7.5", true, 0)
		if old == "7.5" {
			*s = numberValue("8.5", true, 0)
		}
		return "hits.max_score"
	})
	// Fields outside the classes.
	g.edit("change-index", "", ClassOther, func(r *value) string {
		v := hitList(r).elems[k].member("_index")
		if v == nil {
			return ""
		}
		*v = stringValue("other-index")
		return hp + "._index"
	})
	g.edit("add-hit-field", "", ClassOther, func(r *value) string {
		setMember(&hitList(r).elems[k], "_ignored", mustParse(`["tags"]`))
		return hp + "._ignored"
	})
	g.edit("reorder-keys", "", ClassKeyOrder, func(r *value) string {
		h := hitList(r)
		for i := range h.elems {
			reverseMembers(&h.elems[i])
		}
		return "every hit"
	})
	g.edit("reorder-keys", "", ClassKeyOrder, func(r *value) string {
		s := hitList(r).elems[k].member("_source")
		if s == nil || len(s.keys) < 2 {
			return ""
		}
		reverseMembers(s)
		return hp + "._source"
	})
}

// sourceOps alters each field of a _source in turn, and the source as a whole.
func (g *mutator) sourceOps(source func(r *value) *value, at string) {
	src := source(&g.root)
	if src == nil || src.kind != kObject {
		return
	}
	for i, key := range src.keys {
		p := keyPath(at, key)
		g.edit("change-source-field", ClassSources, "", func(r *value) string {
			change(&source(r).elems[i])
			return p
		})
		g.edit("drop-source-field", ClassSources, "", func(r *value) string {
			s := source(r)
			s.keys = slices.Delete(s.keys, i, i+1)
			s.elems = slices.Delete(s.elems, i, i+1)
			return p
		})
		g.edit("null-source-field", ClassSources, "", func(r *value) string {
			v := &source(r).elems[i]
			if v.kind == kNull {
				return ""
			}
			*v = mustParse("null")
			return p
		})
	}
	g.edit("add-source-field", ClassSources, "", func(r *value) string {
		setMember(source(r), "zz_extra", mustParse("1"))
		return keyPath(at, "zz_extra")
	})
	g.edit("duplicate-source-field", ClassSources, "", func(r *value) string {
		s := source(r)
		if len(s.keys) == 0 {
			return ""
		}
		s.keys = append(s.keys, s.keys[0])
		s.elems = append(s.elems, s.elems[0].clone())
		return keyPath(at, s.keys[0])
	})
	g.scalarOps(ClassSources, func(r *value, fn scalarFn) string {
		if h := hitList(r); h != nil {
			for i := range h.elems {
				if p := firstScalar(h.elems[i].member("_source"), idxPath("hits.hits", i)+"._source", fn); p != "" {
					return p
				}
			}
			return ""
		}
		return firstScalar(r.member("_source"), "_source", fn)
	})
}

// scalarFn alters a scalar in place if it applies to it.
type scalarFn func(v *value) bool

// scalarOps applies each kind-changing operator to the first scalar it fits in a region
// (located by find), labelling the mutation with the region's class.
func (g *mutator) scalarOps(class Class, find func(r *value, fn scalarFn) string) {
	for _, op := range scalarOperators {
		g.edit(op.name, class, "", func(r *value) string { return find(r, op.fn) })
	}
}

var scalarOperators = []struct {
	name string
	fn   scalarFn
}{
	{"int-to-float", func(v *value) bool { // 129 -> 129.0
		if v.kind != kNumber || v.float {
			return false
		}
		*v = numberValue(v.raw+".0", true, 0)
		return true
	}},
	{"float-to-int", func(v *value) bool { // 129.0 -> 129
		if v.kind != kNumber || !v.float || v.frng || v.f != math.Trunc(v.f) || math.Abs(v.f) >= 1e15 {
			return false
		}
		*v = numberValue(strconv.FormatInt(int64(v.f), 10), false, 0)
		return true
	}},
	{"string-to-number", func(v *value) bool { // "7" -> 7
		if v.kind != kString || v.str == "" {
			return false
		}
		end, isFloat, err := scanNumber([]byte(v.str), 0)
		if err != nil || end != len(v.str) {
			return false
		}
		*v = numberValue(v.str, isFloat, 0)
		return true
	}},
	{"number-to-string", func(v *value) bool { // 7 -> "7"
		if v.kind != kNumber {
			return false
		}
		*v = stringValue(v.raw)
		return true
	}},
	{"float32-widen", func(v *value) bool { // 4.1 -> 4.099999904632568
		if v.kind != kNumber || !v.float || v.frng || v.f == 0 || math.IsInf(float64(float32(v.f)), 0) {
			return false
		}
		w := float64(float32(v.f))
		s32, _ := strconv.ParseFloat(strconv.FormatFloat(w, 'g', -1, 32), 64)
		if w == v.f || s32 != v.f {
			return false // not the shortest text of a float32
		}
		*v = numberValue(floatText(w), true, 0)
		return true
	}},
	{"float32-narrow", func(v *value) bool { // 4.099999904632568 -> 4.1
		if v.kind != kNumber || !v.float || v.frng || float64(float32(v.f)) != v.f {
			return false
		}
		s := strconv.FormatFloat(v.f, 'g', -1, 32)
		if n, _ := strconv.ParseFloat(s, 64); n == v.f {
			return false // already the float32's shortest text
		}
		*v = numberValue(floatLiteral(s), true, 0)
		return true
	}},
}

// floatText prints a double as a float literal.
func floatText(f float64) string { return floatLiteral(strconv.FormatFloat(f, 'g', -1, 64)) }

func floatLiteral(s string) string {
	if !strings.ContainsAny(s, ".eE") {
		s += ".0"
	}
	return s
}

// firstScalar finds, in document order, the first scalar under v that fn alters, and returns
// its path ("" if none).
func firstScalar(v *value, path string, fn scalarFn) string {
	if v == nil {
		return ""
	}
	switch v.kind {
	case kObject:
		for i := range v.elems {
			if p := firstScalar(&v.elems[i], keyPath(path, v.keys[i]), fn); p != "" {
				return p
			}
		}
	case kArray:
		for i := range v.elems {
			if p := firstScalar(&v.elems[i], idxPath(path, i), fn); p != "" {
				return p
			}
		}
	default:
		if fn(v) {
			return path
		}
	}
	return ""
}

func (g *mutator) totals() {
	total := func(r *value) *value {
		t := r.member("hits").member("total")
		if t == nil || t.kind != kObject {
			return nil
		}
		return t
	}
	if total(&g.root) == nil {
		return
	}
	g.edit("drop-relation", ClassTotals, "", func(r *value) string {
		if !deleteMember(total(r), "relation") {
			return ""
		}
		return "hits.total.relation"
	})
	g.edit("flip-relation", ClassTotals, "", func(r *value) string {
		rel := total(r).member("relation")
		if rel == nil || rel.kind != kString {
			return ""
		}
		if rel.str == "eq" {
			*rel = stringValue("gte")
		} else {
			*rel = stringValue("eq")
		}
		return "hits.total.relation"
	})
	for _, d := range []int64{1, -1} {
		g.edit(fmt.Sprintf("total%+d", d), ClassTotals, "", func(r *value) string {
			v := total(r).member("value")
			if v == nil || v.kind != kNumber || v.float {
				return ""
			}
			n, ok := new(big.Int).SetString(v.raw, 10)
			if !ok || d < 0 && n.Sign() == 0 {
				return ""
			}
			*v = numberValue(n.Add(n, big.NewInt(d)).String(), false, 0)
			return "hits.total.value"
		})
	}
	g.edit("drop-total", ClassTotals, "", func(r *value) string {
		deleteMember(r.member("hits"), "total")
		return "hits.total"
	})
	g.edit("total-as-int", ClassTotals, "", func(r *value) string {
		t := total(r)
		v := t.member("value")
		if v == nil {
			return ""
		}
		*t = v.clone()
		return "hits.total"
	})
	g.edit("reorder-keys", "", ClassKeyOrder, func(r *value) string {
		if len(total(r).keys) < 2 {
			return ""
		}
		reverseMembers(total(r))
		return "hits.total"
	})
	g.scalarOps(ClassTotals, func(r *value, fn scalarFn) string {
		if v := total(r).member("value"); v != nil && fn(v) {
			return "hits.total.value"
		}
		return ""
	})
}

func (g *mutator) aggregations() {
	aggs := g.root.member("aggregations")
	if aggs == nil || aggs.kind != kObject {
		return
	}
	for i, name := range aggs.keys {
		at := keyPath("aggregations", name)
		agg := func(r *value) *value { return &r.member("aggregations").elems[i] }
		buckets := func(r *value) *value {
			b := agg(r).member("buckets")
			if b == nil || b.kind != kArray || len(b.elems) == 0 {
				return nil
			}
			return b
		}
		g.edit("drop-aggregation", ClassAggregations, "", func(r *value) string {
			a := r.member("aggregations")
			a.keys = slices.Delete(a.keys, i, i+1)
			a.elems = slices.Delete(a.elems, i, i+1)
			return at
		})
		g.edit("rename-aggregation", ClassAggregations, "", func(r *value) string {
			r.member("aggregations").keys[i] = name + "_x"
			return at
		})
		if b := buckets(&g.root); b != nil {
			bp := at + ".buckets"
			g.edit("reorder-buckets", ClassAggregations, "", func(r *value) string {
				b := buckets(r)
				if len(b.elems) < 2 || b.elems[0].member("key") == nil || b.elems[1].member("key") == nil ||
					b.elems[0].member("key").raw == b.elems[1].member("key").raw {
					return ""
				}
				b.elems[0], b.elems[1] = b.elems[1], b.elems[0]
				return bp + "[0] and [1]"
			})
			g.edit("drop-bucket", ClassAggregations, "", func(r *value) string {
				b := buckets(r)
				b.elems = b.elems[:len(b.elems)-1]
				return idxPath(bp, len(b.elems))
			})
			g.edit("change-bucket-key", ClassAggregations, "", func(r *value) string {
				k := buckets(r).elems[0].member("key")
				if k == nil {
					return ""
				}
				change(k)
				return bp + "[0].key"
			})
			g.edit("change-doc-count", ClassAggregations, "", func(r *value) string {
				c := buckets(r).elems[0].member("doc_count")
				if c == nil {
					return ""
				}
				change(c)
				return bp + "[0].doc_count"
			})
			g.edit("reorder-keys", "", ClassKeyOrder, func(r *value) string {
				for i := range buckets(r).elems {
					reverseMembers(&buckets(r).elems[i])
				}
				return bp
			})
		} else {
			g.edit("change-doc-count", ClassAggregations, "", func(r *value) string {
				c := agg(r).member("doc_count")
				if c == nil {
					return ""
				}
				change(c)
				return at + ".doc_count"
			})
		}
		for _, field := range []string{"sum_other_doc_count", "doc_count_error_upper_bound"} {
			g.edit("drop-"+strings.ReplaceAll(field, "_", "-"), ClassAggregations, "", func(r *value) string {
				if !deleteMember(agg(r), field) {
					return ""
				}
				return at + "." + field
			})
			g.edit("change-"+strings.ReplaceAll(field, "_", "-"), ClassAggregations, "", func(r *value) string {
				v := agg(r).member(field)
				if v == nil {
					return ""
				}
				change(v)
				return at + "." + field
			})
		}
	}
	g.scalarOps(ClassAggregations, func(r *value, fn scalarFn) string {
		return firstScalar(r.member("aggregations"), "aggregations", fn)
	})
}

func (g *mutator) document() {
	g.edit("flip-found", ClassFound, "", func(r *value) string {
		f := r.member("found")
		if f == nil || f.kind != kBool {
			return ""
		}
		*f = mustParse(strconv.FormatBool(f.str != "true"))
		return "found"
	})
	g.edit("drop-found", ClassFound, "", func(r *value) string {
		deleteMember(r, "found")
		return "found"
	})
	g.edit("change-id", ClassIDs, "", func(r *value) string {
		v := r.member("_id")
		if v == nil || v.kind != kString {
			return ""
		}
		*v = stringValue(v.str + "x")
		return "_id"
	})
	g.sourceOps(func(r *value) *value { return r.member("_source") }, "_source")
	g.edit("drop-source", ClassSources, "", func(r *value) string {
		if !deleteMember(r, "_source") {
			return ""
		}
		return "_source"
	})
	g.edit("add-source", ClassSources, "", func(r *value) string {
		if r.member("_source") != nil {
			return ""
		}
		setMember(r, "_source", mustParse(`{"sku":"SKU-00000"}`))
		return "_source"
	})
	for _, key := range []string{"_version", "_seq_no", "_primary_term"} {
		g.edit("change-version", "", ClassVersion, func(r *value) string {
			v := r.member(key)
			if v == nil {
				return ""
			}
			change(v)
			return key
		})
	}
	g.edit("change-index", "", ClassOther, func(r *value) string {
		v := r.member("_index")
		if v == nil {
			return ""
		}
		*v = stringValue("other-index")
		return "_index"
	})
}

func (g *mutator) errors() {
	g.edit("change-error-type", ClassError, "", func(r *value) string {
		t := r.member("error").member("type")
		if t == nil || t.kind != kString {
			return ""
		}
		*t = stringValue("x_" + t.str)
		return "error.type"
	})
	g.edit("change-root-cause-type", ClassError, "", func(r *value) string {
		rc := r.member("error").member("root_cause")
		if rc == nil || rc.kind != kArray || len(rc.elems) == 0 || rc.elems[0].member("type") == nil {
			return ""
		}
		*rc.elems[0].member("type") = stringValue("x_exception")
		return "error.root_cause[0].type"
	})
	g.edit("drop-error", ClassError, "", func(r *value) string {
		deleteMember(r, "error")
		return "error"
	})
	g.edit("error-as-string", ClassError, "", func(r *value) string {
		*r.member("error") = stringValue("something went wrong")
		return "error"
	})
	g.edit("change-body-status", ClassStatus, "", func(r *value) string {
		s := r.member("status")
		if s == nil || s.kind != kNumber {
			return ""
		}
		change(s)
		return "status"
	})
	g.edit("change-reason", "", ClassOther, func(r *value) string {
		t := r.member("error").member("reason")
		if t == nil || t.kind != kString {
			return ""
		}
		*t = stringValue(t.str + " (as the target words it)")
		return "error.reason"
	})
}

func (g *mutator) count() {
	g.edit("change-count", ClassTotals, "", func(r *value) string {
		change(r.member("count"))
		return "count"
	})
	g.scalarOps(ClassTotals, func(r *value, fn scalarFn) string {
		if fn(r.member("count")) {
			return "count"
		}
		return ""
	})
}

// change alters a value without changing its kind where it can: strings get a suffix,
// numbers grow (integers by one, exactly), booleans flip, null becomes a string, arrays and
// objects gain an element.
func change(v *value) {
	switch v.kind {
	case kString:
		*v = stringValue(v.str + "x")
	case kNumber:
		if !v.float {
			n, _ := new(big.Int).SetString(v.raw, 10)
			*v = numberValue(n.Add(n, big.NewInt(1)).String(), false, 0)
			return
		}
		f := v.f
		if v.frng {
			f = 0
		}
		*v = numberValue(floatText(f+math.Max(1, math.Abs(f))), true, 0)
	case kBool:
		*v = mustParse(strconv.FormatBool(v.str != "true"))
	case kNull:
		*v = stringValue("x")
	case kArray:
		v.elems = append(v.elems, stringValue("x"))
	case kObject:
		setMember(v, "zz_extra", stringValue("x"))
	}
}

func mustParse(s string) value {
	v, err := parse([]byte(s))
	if err != nil {
		panic("conformance: bad literal " + s)
	}
	return v
}

func reverseMembers(v *value) {
	slices.Reverse(v.keys)
	slices.Reverse(v.elems)
}

// setMember replaces the first member named key, or appends one.
func setMember(v *value, key string, nv value) {
	for i, k := range v.keys {
		if k == key {
			v.elems[i] = nv
			return
		}
	}
	v.keys = append(v.keys, key)
	v.elems = append(v.elems, nv)
}

// deleteMember removes the first member named key and reports whether there was one.
func deleteMember(v *value, key string) bool {
	if v == nil {
		return false
	}
	for i, k := range v.keys {
		if k == key {
			v.keys = slices.Delete(v.keys, i, i+1)
			v.elems = slices.Delete(v.elems, i, i+1)
			return true
		}
	}
	return false
}

// escapeUnicode rewrites every string value with non-ASCII characters as \u escapes
// (surrogate pairs beyond the Basic Multilingual Plane), which a JSON reader must not
// distinguish from the raw UTF-8. It reports whether anything changed.
func escapeUnicode(v *value) bool {
	changed := false
	switch v.kind {
	case kString:
		if raw := escapedRaw(v.str); raw != v.raw {
			v.raw, changed = raw, true
		}
	case kObject, kArray:
		for i := range v.elems {
			if escapeUnicode(&v.elems[i]) {
				changed = true
			}
		}
	}
	return changed
}

func escapedRaw(s string) string {
	q := quote(s)
	var b strings.Builder
	for _, r := range q {
		switch {
		case r < 0x80:
			b.WriteRune(r)
		case r > 0xffff:
			r1, r2 := utf16.EncodeRune(r)
			fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

func uniq(xs ...int) []int {
	var out []int
	for _, x := range xs {
		if x >= 0 && !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

func keyPath(path, key string) string {
	if plainKey(key) {
		if path == "" {
			return key
		}
		return path + "." + key
	}
	return path + "[" + quote(key) + "]"
}

func idxPath(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

package fuzz

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"

	"github.com/conform-dev/conform/conformance"
)

// Signature is a disagreement's first failing difference: its class and path, with array
// positions and top-level aggregation names left out. A shrunk request must keep showing it
// (ShownIn): the same class at the same place, as Canonical compares places.
type Signature struct {
	Class conformance.Class
	Path  string
}

func (s Signature) String() string {
	if s.Path == "" {
		return string(s.Class)
	}
	return string(s.Class) + " at " + s.Path
}

var indexRE = regexp.MustCompile(`\[\d+\]`)

// aggNameRE matches a top-level aggregation's name in a path: the shrinker renames
// aggregations to a0, so the name is not part of a signature; nor is a keyed bucket's key
// (keyedRE), a name the request chose.
var (
	aggNameRE = regexp.MustCompile(`^aggregations\.[^.\[]+`)
	keyedRE   = regexp.MustCompile(`\.buckets\.[^.\[]+`)
)

func normalize(path string) string {
	p := aggNameRE.ReplaceAllString(indexRE.ReplaceAllString(path, "[]"), "aggregations.*")
	return keyedRE.ReplaceAllString(p, ".buckets.*")
}

// SignatureOf is the signature of a failing result; ok is false when it passes.
func SignatureOf(r conformance.Result) (Signature, bool) {
	for _, d := range r.Diffs {
		if d.Fails {
			return Signature{Class: d.Class, Path: normalize(d.Path)}, true
		}
	}
	return Signature{}, false
}

// Canonical is the place of a signature as shrinking and coverage compare it: its path, but
// for the moves shrinking makes without changing what differs. Every ids difference is one
// place, the hits (a page that comes up short fails at hits.hits, a full one at
// hits.hits[]._id). An aggregation's difference is placed by its last step, the value that
// differs (doc_count, sum_other_doc_count, value, key, buckets), wherever the aggregation
// sits: a filters aggregation of one filter becomes a filter one (its buckets' doc_count
// becomes its own), and a sub-aggregation replaces its parent. The aggregations object itself
// ("aggregations": {} against absent) is a place of its own, so a request shrunk until every
// aggregation is gone no longer shows a bucket count or a metric that differed.
func (s Signature) Canonical() string {
	p := s.Path
	switch {
	case s.Class == conformance.ClassIDs && (p == "hits.hits" || strings.HasPrefix(p, "hits.hits[]")):
		return "ids at hits.hits"
	case s.Class == conformance.ClassAggregations && strings.HasPrefix(p, "aggregations."):
		return "aggregations at aggregations…" + p[strings.LastIndexByte(p, '.')+1:]
	}
	return s.String()
}

// ShownIn reports whether a failing difference of r is at the signature's place (Canonical):
// what a shrunk request must keep showing, and what a reproducer must show to cover a
// request. A difference of the same class elsewhere is another disagreement, which may hide
// this one: six reproducers of aggregation bugs once shrunk to "aggs": {}, whose only
// difference was the empty object.
func (s Signature) ShownIn(r conformance.Result) bool {
	want := s.Canonical()
	for _, d := range r.Diffs {
		if d.Fails && d.Class == s.Class && (Signature{Class: d.Class, Path: normalize(d.Path)}).Canonical() == want {
			return true
		}
	}
	return false
}

// step addresses a child: a key of an object or an index of an array.
type step struct {
	key string
	idx int // -1 for a key
}

// edit is one candidate simplification of a tree: a function making the simpler copy.
type edit func(root any) any

// Edits lists the simplifications of a body, biggest first in tree order: dropping keys
// (options, clauses, aggregations, bounds), dropping array elements (clauses, sort keys,
// values), replacing a bool by one of its clauses, dropping a sorted search's hits (size 0),
// writing a sort key with options as {field: direction} and a descending one ascending,
// simplifying numbers (toward 0, halves, no decimals), narrowing a numeric range to half its
// width, and cutting a timestamp to its day. keep names the unique sort field, whose sort key
// is never dropped (the hits would tie), and a search keeps its sort, or its size 0 when it
// has none, for the same reason. No edit writes a sort key in the bare shorthand ("sku"); a
// bare one becomes {"sku":"asc"}.
func Edits(root any, keep string) []edit {
	var out []edit
	var walk func(path []step, v any)
	walk = func(path []step, v any) {
		top := len(path) == 0
		switch x := v.(type) {
		case *Object:
			_, sorted := x.Get("sort")
			sortKey := len(path) == 2 && path[0].key == "sort"
			// A sort key's last option stays: {"price":{}} is a form of its own, and the
			// key becomes {"price":"asc"} below instead.
			lastSortOption := len(path) == 3 && path[0].key == "sort" && x.Len() == 1
			for _, k := range x.Keys {
				if sortKey || lastSortOption {
					break // a sort key's field name stays; its options may go
				}
				// A search without a sort ranks by score, and its hits all tie (filter
				// context): it must keep size 0, and a sorted one its sort.
				if top && (k == "sort" || k == "size" && !sorted) {
					continue
				}
				out = append(out, deleteAt(append(clonePath(path), step{key: k, idx: -1})))
			}
			if len(x.Keys) == 1 && x.Keys[0] == "bool" {
				if b, ok := x.Vals[0].(*Object); ok {
					for i, occ := range b.Keys {
						if cl, ok := b.Vals[i].([]any); ok {
							for j := range cl {
								out = append(out, hoist(clonePath(path), []step{{key: "bool", idx: -1}, {key: occ, idx: -1}, {idx: j}}))
							}
						}
					}
				}
			}
			out = append(out, narrow(clonePath(path), x)...)
			// Aggregations are renamed a0, so requests that differ only in names group.
			if len(path) == 1 && (path[0].key == "aggs" || path[0].key == "aggregations") {
				if _, taken := x.Get("a0"); !taken {
					for _, k := range x.Keys {
						out = append(out, renameKey(clonePath(path), k, "a0"))
					}
				}
			}
			// An aggregation may become one of its sub-aggregations, and a filters
			// aggregation of one filter a filter aggregation (keeping its sub-aggregations).
			if n := len(path); n >= 2 && (path[n-2].key == "aggs" || path[n-2].key == "aggregations") {
				out = append(out, aggEdits(clonePath(path), x)...)
			}
			// A sorted search whose disagreement is not in its hits loses them: size 0, no
			// sort, cursor or from. Aggregation and total disagreements then shrink to one
			// form whichever way the request asked for hits.
			if top && sorted {
				out = append(out, dropHits)
			}
			// A sort key with options becomes {field: direction}, and a descending one
			// ascending: the object form, never the bare field name, which a target may
			// mishandle on its own (every reproducer would then show that too).
			if sortKey && x.Len() == 1 {
				f := x.Keys[0]
				switch o := x.Vals[0].(type) {
				case *Object:
					dir := "asc"
					if d, ok := o.Get("order"); ok {
						if s, ok := d.(string); ok {
							dir = s
						}
					}
					out = append(out, replaceAt(clonePath(path), Obj(f, dir)))
				case string:
					if o == "desc" {
						out = append(out, replaceAt(clonePath(path), Obj(f, "asc")))
					}
				}
			}
			for i, k := range x.Keys {
				walk(append(clonePath(path), step{key: k, idx: -1}), x.Vals[i])
			}
		case []any:
			sortArr := len(path) == 1 && path[0].key == "sort"
			for i := range x {
				if sortArr && keep != "" && sortField(x[i]) == keep {
					continue
				}
				out = append(out, deleteAt(append(clonePath(path), step{idx: i})))
			}
			for i, e := range x {
				walk(append(clonePath(path), step{idx: i}), e)
			}
		case json.Number:
			for _, s := range simpler(x) {
				out = append(out, replaceAt(clonePath(path), s))
			}
		case string:
			// A bare sort key becomes the object form it abbreviates: it stays bare only
			// when the shorthand is what disagrees.
			if len(path) == 2 && path[0].key == "sort" {
				out = append(out, replaceAt(clonePath(path), Obj(x, "asc")))
				return
			}
			if len(x) > 10 && x[4] == '-' && x[7] == '-' && x[10] == 'T' {
				out = append(out, replaceAt(clonePath(path), x[:10]))
			}
		}
	}
	walk(nil, root)
	return out
}

func clonePath(p []step) []step { return append([]step(nil), p...) }

// shrinkSize is the measure shrinking reduces: the body's values, a bare sort key counting
// as the object form it abbreviates (so writing it out is no growth). With the edits that
// keep it (a descending key made ascending, a bare key written out), which never go back,
// every step is to a smaller or a simpler request, and the search ends.
func shrinkSize(c *Case) int {
	n := c.Size()
	if o, ok := c.Body.(*Object); ok {
		if s, ok := o.Get("sort"); ok {
			if keys, ok := s.([]any); ok {
				for _, k := range keys {
					if _, bare := k.(string); bare {
						n++
					}
				}
			}
		}
	}
	return n
}

// aggEdits are the edits of the aggregation a at path: replacing it by each of its
// sub-aggregations, and a filters aggregation of one filter by a filter aggregation.
func aggEdits(path []step, a *Object) []edit {
	var out []edit
	for _, k := range []string{"aggs", "aggregations"} {
		if sub, ok := a.Get(k); ok {
			if so, ok := sub.(*Object); ok {
				for i := range so.Keys {
					out = append(out, hoist(clonePath(path), []step{{key: k, idx: -1}, {key: so.Keys[i], idx: -1}}))
				}
			}
		}
	}
	if _, ok := onlyFilter(a); ok {
		out = append(out, func(root any) any {
			root = clone(root)
			old := at(root, path).(*Object)
			q, _ := onlyFilter(old)
			nv := Obj("filter", q)
			for i, k := range old.Keys {
				if k == "aggs" || k == "aggregations" {
					nv.Set(k, old.Vals[i])
				}
			}
			return set(root, path, nv)
		})
	}
	return out
}

// onlyFilter is the one filter of a filters aggregation that has one.
func onlyFilter(a *Object) (any, bool) {
	fv, _ := a.Get("filters")
	fo, _ := fv.(*Object)
	if fo == nil {
		return nil, false
	}
	fs, _ := fo.Get("filters")
	switch x := fs.(type) {
	case *Object:
		if x.Len() == 1 {
			return x.Vals[0], true
		}
	case []any:
		if len(x) == 1 {
			return x[0], true
		}
	}
	return nil, false
}

// dropHits makes a sorted search a size-0 one: size 0 where size or sort was, and no sort,
// search_after or from.
func dropHits(root any) any {
	b := clone(root).(*Object)
	out := &Object{}
	sized := false
	for i, k := range b.Keys {
		switch k {
		case "size", "sort":
			if !sized {
				out.Set("size", num(0))
				sized = true
			}
		case "search_after", "from":
		default:
			out.Set(k, b.Vals[i])
		}
	}
	return out
}

// sortField is the field a sort key names.
func sortField(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case *Object:
		if len(x.Keys) == 1 {
			return x.Keys[0]
		}
	}
	return ""
}

func at(root any, path []step) any {
	v := root
	for _, s := range path {
		switch x := v.(type) {
		case *Object:
			v, _ = x.Get(s.key)
		case []any:
			v = x[s.idx]
		}
	}
	return v
}

func set(root any, path []step, nv any) any {
	if len(path) == 0 {
		return nv
	}
	parent := at(root, path[:len(path)-1])
	s := path[len(path)-1]
	switch x := parent.(type) {
	case *Object:
		x.Set(s.key, nv)
	case []any:
		x[s.idx] = nv
	}
	return root
}

func deleteAt(path []step) edit {
	return func(root any) any {
		root = clone(root)
		parentPath := path[:len(path)-1]
		s := path[len(path)-1]
		switch x := at(root, parentPath).(type) {
		case *Object:
			x.Delete(s.key)
		case []any:
			// A sort key goes with its search_after value, so the cursor still fits the sort.
			if len(parentPath) == 1 && parentPath[0].key == "sort" {
				if b, ok := root.(*Object); ok {
					if sa, ok := b.Get("search_after"); ok {
						if a, ok := sa.([]any); ok && len(a) == len(x) {
							b.Set("search_after", append(append([]any{}, a[:s.idx]...), a[s.idx+1:]...))
						}
					}
				}
			}
			root = set(root, parentPath, append(append([]any{}, x[:s.idx]...), x[s.idx+1:]...))
		}
		return root
	}
}

func renameKey(path []step, from, to string) edit {
	return func(root any) any {
		root = clone(root)
		o := at(root, path).(*Object)
		for i, k := range o.Keys {
			if k == from {
				o.Keys[i] = to
			}
		}
		return root
	}
}

func replaceAt(path []step, nv any) edit {
	return func(root any) any { return set(clone(root), path, nv) }
}

func hoist(path, rel []step) edit {
	return func(root any) any {
		root = clone(root)
		child := at(at(root, path), rel)
		return set(root, path, child)
	}
}

// simpler lists simpler numbers: 0, half toward 0, the integer part.
func simpler(n json.Number) []any {
	var out []any
	if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
		if i != 0 {
			out = append(out, num(0))
		}
		if i/2 != 0 && i/2 != i {
			out = append(out, num(i/2))
		}
		return out
	}
	if f, err := n.Float64(); err == nil && strings.ContainsAny(string(n), ".eE") {
		out = append(out, num(int64(f)))
	}
	return out
}

// narrow halves a numeric range with both bounds, from either side.
func narrow(path []step, o *Object) []edit {
	var lo, hi string
	var a, b float64
	for i, k := range o.Keys {
		n, ok := o.Vals[i].(json.Number)
		if !ok {
			continue
		}
		f, err := n.Float64()
		if err != nil {
			continue
		}
		switch k {
		case "gt", "gte":
			lo, a = k, f
		case "lt", "lte":
			hi, b = k, f
		}
	}
	if lo == "" || hi == "" || b-a < 2 {
		return nil
	}
	mid := num(int64(a + (b-a)/2))
	return []edit{
		replaceAt(append(clonePath(path), step{key: lo, idx: -1}), mid),
		replaceAt(append(clonePath(path), step{key: hi, idx: -1}), mid),
	}
}

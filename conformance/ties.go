package conformance

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// The tie rule (RelaxTieOrder). Two engines, or one engine with another segment layout, may
// legitimately order documents that a search's sort cannot tell apart: Elasticsearch breaks
// a tie on the whole sort tuple by shard and Lucene document number, which an oracle on
// another engine cannot know. What the rule compares, judged by the expected answer (the
// primary's, in conform shadow):
//
//   - A tie group is a maximal run of consecutive expected hits whose sort arrays are equal
//     as JSON values (under a field sort, the whole tuple: every key, so the tie is real), or,
//     when the hits carry no sort (relevance order), whose _score is equal.
//   - Group boundaries: the actual hits in a group's positions must be that group's
//     documents, the same multiset of _id; a hit from another group, or another count of hits,
//     still fails (as ids). The actual hits are put in the expected order within each group
//     and then every hit is compared whole, strictly: _source, sort values, _score and the
//     rest. So the only thing excused is the order inside a tie, and the reordering itself is
//     reported (class ids, relaxed by tie-order, Path "hits.hits[i:j]").
//   - Page edges: the last group is open when documents may follow the page (the page is full,
//     size hits, and hits.total does not say the page ends the matches: it is absent, "gte",
//     or larger than from+size), and the first group is open when the request has a "from"
//     above 0 (the tie may begin on the previous page; search_after skips a whole tie, so it
//     opens nothing). In an open group the engines may hold different members of the same
//     tie on the page. There an actual hit that the expected group does not hold is accepted
//     only if its sort array (its _score in relevance order) is the group's; its _id and
//     _source cannot be judged, because the expected answer does not show that document, and
//     the acceptance is reported (class ids, relaxed by tie-order). Expected members it
//     displaced are not missed. A hit whose sort values are not the group's fails as sort.
//   - Without the request (ForRequest), from is taken as 0 and size as the expected hit
//     count.
//
// Nothing else changes: totals, aggregations, max_score and every other hit are compared as
// without the rule, and the rule never makes a response fail that passes without it.

// checkTies re-checks a response whose hits failed, with the actual hits put in the expected
// order within each tie group. res is the strict result; the returned result replaces it
// when the rule applies, and is res itself otherwise.
func (x *Expectation) checkTies(status int, body []byte, res Result, opts *Options) Result {
	if x.kind != KindSearch || status != x.status || !failsInHits(res.Diffs) {
		return res
	}
	want := x.root.member("hits").member("hits")
	if want == nil || want.kind != kArray || len(want.elems) < 1 {
		return res
	}
	groups := x.tieGroups(want)
	if groups == nil {
		return res
	}
	got, err := parse(body)
	if err != nil {
		return res
	}
	gotList := got.member("hits").member("hits")
	if gotList == nil || gotList.kind != kArray || len(gotList.elems) != len(want.elems) {
		return res
	}
	order := make([]int, len(want.elems)) // order[i]: the actual hit placed at position i
	for i := range order {
		order[i] = i
	}
	var moved [][2]int              // groups whose members came in another order
	unjudged := map[int]*tieGroup{} // positions holding a hit the expected group lacks
	for gi := range groups {
		g := &groups[gi]
		used := make([]bool, g.end-g.start)
		var free []int // expected positions no actual hit matched
		for i := g.start; i < g.end; i++ {
			id := hitID(&want.elems[i])
			order[i] = -1
			for j := g.start; j < g.end; j++ {
				if !used[j-g.start] && id != "" && hitID(&gotList.elems[j]) == id {
					used[j-g.start], order[i] = true, j
					break
				}
			}
			if order[i] < 0 {
				free = append(free, i)
			}
		}
		k := 0
		for j := g.start; j < g.end; j++ {
			if !used[j-g.start] {
				order[free[k]] = j
				if g.open {
					unjudged[free[k]] = g
				}
				k++
			}
		}
		for i := g.start; i < g.end; i++ {
			if order[i] != i {
				moved = append(moved, [2]int{g.start, g.end})
				break
			}
		}
	}
	if len(moved) == 0 && len(unjudged) == 0 {
		return res
	}
	// The actual body with its hits in expected order, spliced from the raw spans so every
	// byte of every hit is the target's own.
	var b []byte
	b = append(b, body[:gotList.off]...)
	b = append(b, '[')
	for i, j := range order {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, gotList.elems[j].raw...)
	}
	b = append(b, ']')
	b = append(b, body[gotList.off+len(gotList.raw):]...)
	inner := *opts
	inner.Relax = nil
	for _, r := range opts.Relax {
		if r != RelaxTieOrder {
			inner.Relax = append(inner.Relax, r)
		}
	}
	out := x.Check(status, b, &inner)
	for i, g := range unjudged {
		hit := &gotList.elems[order[i]]
		idPath := fmt.Sprintf("hits.hits[%d]._id", i)
		same := sameValue(g.key, g.keyOf(hit))
		for k := range out.Diffs {
			if d := &out.Diffs[k]; d.Path == idPath && d.Class == ClassIDs {
				if same {
					d.Fails, d.Relaxed = false, RelaxTieOrder
					d.Want = fmt.Sprintf("<a member of the tie %s open at the page edge> (expected %s)", appendJSON(nil, g.key), d.Want)
				}
			}
		}
		if !same {
			got := Absent
			if v := g.keyOf(hit); v != nil {
				got = string(appendJSON(nil, v))
			}
			out.Diffs = append(out.Diffs, Difference{Class: g.class(), Path: fmt.Sprintf("hits.hits[%d].%s", i, g.field()),
				Want: string(appendJSON(nil, g.key)), Got: got, Fails: true})
		}
	}
	for _, m := range moved {
		var w, gt []string
		for i := m[0]; i < m[1]; i++ {
			w = append(w, hitID(&want.elems[i]))
			gt = append(gt, hitID(&gotList.elems[i]))
		}
		out.Diffs = append(out.Diffs, Difference{Class: ClassIDs, Path: fmt.Sprintf("hits.hits[%d:%d]", m[0], m[1]),
			Want: quoteList(w), Got: quoteList(gt) + " (the hits are compared in the expected order)", Relaxed: RelaxTieOrder})
	}
	out.Pass = true
	for _, d := range out.Diffs {
		if d.Fails {
			out.Pass = false
		}
	}
	return out
}

// tieGroup is a run of expected hits [start, end) with one sort tuple (or score).
type tieGroup struct {
	start, end int
	key        *value // the sort array, or the _score
	relevance  bool
	open       bool // it may continue beyond the page
}

func (g *tieGroup) keyOf(hit *value) *value {
	if g.relevance {
		return hit.member("_score")
	}
	return hit.member("sort")
}

func (g *tieGroup) field() string {
	if g.relevance {
		return "_score"
	}
	return "sort"
}

func (g *tieGroup) class() Class {
	if g.relevance {
		return ClassScore
	}
	return ClassSort
}

// tieGroups returns the expected hits' tie groups that matter: those of more than one hit,
// and an open group at a page edge. nil when the hits cannot be grouped (a hit without sort
// values under a field sort, or without a numeric score in relevance order).
func (x *Expectation) tieGroups(hits *value) []tieGroup {
	relevance := hits.elems[0].member("sort") == nil
	keyOf := (&tieGroup{relevance: relevance}).keyOf
	for i := range hits.elems {
		k := keyOf(&hits.elems[i])
		if k == nil || relevance && k.kind != kNumber || !relevance && k.kind != kArray {
			return nil
		}
	}
	from, size := 0, len(hits.elems)
	if len(x.request) > 0 {
		req := gjson.ParseBytes(x.request)
		from, size = int(req.Get("from").Int()), 10
		if s := req.Get("size"); s.Exists() {
			size = int(s.Int())
		}
	}
	more := len(hits.elems) >= size // a full page: documents may follow it
	if total := x.root.member("hits").member("total"); more && total != nil {
		v, rel := total.member("value"), total.member("relation")
		if v != nil && rel != nil && rel.str == "eq" {
			if n, err := strconv.Atoi(v.raw); err == nil && n <= from+len(hits.elems) {
				more = false
			}
		}
	}
	var out []tieGroup
	for i := 0; i < len(hits.elems); {
		g := tieGroup{start: i, key: keyOf(&hits.elems[i]), relevance: relevance}
		j := i + 1
		for j < len(hits.elems) && sameValue(g.key, keyOf(&hits.elems[j])) {
			j++
		}
		g.end = j
		g.open = i == 0 && from > 0 || j == len(hits.elems) && more
		if j-i > 1 || g.open {
			out = append(out, g)
		}
		i = j
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// failsInHits reports whether a failing difference lies in the hits array.
func failsInHits(diffs []Difference) bool {
	for _, d := range diffs {
		if d.Fails && strings.HasPrefix(d.Path, "hits.hits[") {
			return true
		}
	}
	return false
}

func hitID(hit *value) string {
	if id := hit.member("_id"); id != nil && id.kind == kString {
		return id.str
	}
	return ""
}

// sameValue compares two JSON values as the strict check does: the same kind, numbers of the
// same value and kind, strings by their unescaped bytes, containers element by element.
func sameValue(a, b *value) bool {
	if a == nil || b == nil || a.kind != b.kind {
		return false
	}
	switch a.kind {
	case kNumber:
		return compareNumbers(a, []byte(b.raw), b.float) == numEqual
	case kString, kBool:
		return a.str == b.str
	case kNull:
		return true
	}
	if len(a.elems) != len(b.elems) {
		return false
	}
	for i := range a.elems {
		if a.kind == kObject && a.keys[i] != b.keys[i] || !sameValue(&a.elems[i], &b.elems[i]) {
			return false
		}
	}
	return true
}

func quoteList(xs []string) string {
	q := make([]string, len(xs))
	for i, s := range xs {
		q[i] = quote(s)
	}
	return "[" + strings.Join(q, ",") + "]"
}

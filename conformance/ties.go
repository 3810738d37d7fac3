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
//   - An _msearch answer holds a search answer per item (responses[i]), and each is judged
//     by these rules on its own: its groups, its hits.total, from and size of its own body
//     line in the request (the line after the item's header), and its differences are
//     reported under its path ("responses[3].hits.hits[0:4]"). A hit never moves between
//     items.
//
// Nothing else changes: totals, aggregations, max_score and every other hit are compared as
// without the rule, and the rule never makes a response fail that passes without it.

// checkTies re-checks a response whose hits failed, with the actual hits put in the expected
// order within each tie group. res is the strict result; the returned result replaces it
// when the rule applies, and is res itself otherwise. An _msearch answer is a search answer
// per item (responses[i]); the rule applies to each item on its own, with that item's
// request body for from and size, and reports under the item's path.
func (x *Expectation) checkTies(status int, body []byte, res Result, opts *Options) Result {
	if status != x.status || x.kind != KindSearch && x.kind != KindMsearch {
		return res
	}
	got, err := parse(body)
	if err != nil {
		return res
	}
	var plans []tiePlan
	switch x.kind {
	case KindSearch:
		if !failsInHits(res.Diffs, "") {
			return res
		}
		if p := x.planTies(&x.root, &got, x.request, ""); p != nil {
			plans = append(plans, *p)
		}
	case KindMsearch:
		want, gotItems := x.root.member("responses"), got.member("responses")
		if gotItems == nil || gotItems.kind != kArray || len(gotItems.elems) != len(want.elems) {
			return res
		}
		var bodies [][]byte
		if len(x.request) > 0 {
			bodies = msearchBodies(x.request)
		}
		for i := range want.elems {
			prefix := fmt.Sprintf("responses[%d].", i)
			if !failsInHits(res.Diffs, prefix) {
				continue
			}
			var req []byte
			if i < len(bodies) {
				req = bodies[i]
			}
			if p := x.planTies(&want.elems[i], &gotItems.elems[i], req, prefix); p != nil {
				plans = append(plans, *p)
			}
		}
	}
	if len(plans) == 0 {
		return res
	}
	// The actual body with its hits in expected order, spliced from the raw spans so every
	// byte of every hit is the target's own. The plans are in body order (one search, or
	// the items in turn), so their spans do not overlap and come one after the other.
	var b []byte
	at := 0
	for _, p := range plans {
		b = append(b, body[at:p.gotList.off]...)
		b = append(b, '[')
		for i, j := range p.order {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, p.gotList.elems[j].raw...)
		}
		b = append(b, ']')
		at = p.gotList.off + len(p.gotList.raw)
	}
	b = append(b, body[at:]...)
	inner := *opts
	inner.Relax = nil
	for _, r := range opts.Relax {
		if r != RelaxTieOrder {
			inner.Relax = append(inner.Relax, r)
		}
	}
	out := x.Check(status, b, &inner)
	for _, p := range plans {
		out.Diffs = p.report(out.Diffs)
	}
	out.Pass = true
	for _, d := range out.Diffs {
		if d.Fails {
			out.Pass = false
		}
	}
	return out
}

// tiePlan is the rule's work on one search answer: the actual hits' order that puts them in
// the expected order within each tie group, and what it excused.
type tiePlan struct {
	prefix   string // "" for a search, "responses[i]." for an _msearch item
	want     *value // the expected hits
	gotList  *value // the actual hits
	order    []int  // order[i]: the actual hit placed at position i
	moved    [][2]int
	unjudged map[int]*tieGroup // positions holding a hit the expected group lacks
}

// planTies groups the expected hits of one search answer and orders the actual ones; nil
// when the rule has nothing to do there. request is that search's body, nil when unknown.
func (x *Expectation) planTies(wantSearch, gotSearch *value, request []byte, prefix string) *tiePlan {
	want := wantSearch.member("hits").member("hits")
	if want == nil || want.kind != kArray || len(want.elems) < 1 {
		return nil
	}
	groups := tieGroups(wantSearch, want, request)
	if groups == nil {
		return nil
	}
	gotList := gotSearch.member("hits").member("hits")
	if gotList == nil || gotList.kind != kArray || len(gotList.elems) != len(want.elems) {
		return nil
	}
	p := &tiePlan{prefix: prefix, want: want, gotList: gotList, order: make([]int, len(want.elems)), unjudged: map[int]*tieGroup{}}
	order := p.order
	for i := range order {
		order[i] = i
	}
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
					p.unjudged[free[k]] = g
				}
				k++
			}
		}
		for i := g.start; i < g.end; i++ {
			if order[i] != i {
				p.moved = append(p.moved, [2]int{g.start, g.end})
				break
			}
		}
	}
	if len(p.moved) == 0 && len(p.unjudged) == 0 {
		return nil
	}
	return p
}

// report adjusts the differences of the re-check for one search answer: an unjudged member of
// an open tie stops failing as ids if its sort values (score) are the group's, and fails as
// sort (score) if not; each reordered group is reported, relaxed by tie-order.
func (p *tiePlan) report(diffs []Difference) []Difference {
	for i, g := range p.unjudged {
		hit := &p.gotList.elems[p.order[i]]
		idPath := fmt.Sprintf("%shits.hits[%d]._id", p.prefix, i)
		same := sameValue(g.key, g.keyOf(hit))
		for k := range diffs {
			if d := &diffs[k]; d.Path == idPath && d.Class == ClassIDs {
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
			diffs = append(diffs, Difference{Class: g.class(), Path: fmt.Sprintf("%shits.hits[%d].%s", p.prefix, i, g.field()),
				Want: string(appendJSON(nil, g.key)), Got: got, Fails: true})
		}
	}
	for _, m := range p.moved {
		var w, gt []string
		for i := m[0]; i < m[1]; i++ {
			w = append(w, hitID(&p.want.elems[i]))
			gt = append(gt, hitID(&p.gotList.elems[i]))
		}
		diffs = append(diffs, Difference{Class: ClassIDs, Path: fmt.Sprintf("%shits.hits[%d:%d]", p.prefix, m[0], m[1]),
			Want: quoteList(w), Got: quoteList(gt) + " (the hits are compared in the expected order)", Relaxed: RelaxTieOrder})
	}
	return diffs
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
func tieGroups(search, hits *value, request []byte) []tieGroup {
	relevance := hits.elems[0].member("sort") == nil
	keyOf := (&tieGroup{relevance: relevance}).keyOf
	for i := range hits.elems {
		k := keyOf(&hits.elems[i])
		if k == nil || relevance && k.kind != kNumber || !relevance && k.kind != kArray {
			return nil
		}
	}
	from, size := 0, len(hits.elems)
	if len(request) > 0 {
		req := gjson.ParseBytes(request)
		from, size = int(req.Get("from").Int()), 10
		if s := req.Get("size"); s.Exists() {
			size = int(s.Int())
		}
	}
	more := len(hits.elems) >= size // a full page: documents may follow it
	if total := search.member("hits").member("total"); more && total != nil {
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

// failsInHits reports whether a failing difference lies in the hits array of the search
// answer at prefix ("" or an _msearch item's "responses[i].").
func failsInHits(diffs []Difference, prefix string) bool {
	for _, d := range diffs {
		if d.Fails && strings.HasPrefix(d.Path, prefix) && strings.HasPrefix(d.Path[len(prefix):], "hits.hits[") {
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

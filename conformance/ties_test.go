package conformance

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// page renders a search response whose hits are given as "id:sortvalue[:source]" (sort under
// a field sort) or, with relevance, "id:score".
func tiePage(total string, relevance bool, hits ...string) string {
	var hs []string
	for _, h := range hits {
		parts := strings.SplitN(h, ":", 3)
		src := `{"n":1}`
		if len(parts) == 3 {
			src = parts[2]
		}
		if relevance {
			hs = append(hs, fmt.Sprintf(`{"_index":"i","_id":%q,"_score":%s,"_source":%s}`, parts[0], parts[1], src))
		} else {
			hs = append(hs, fmt.Sprintf(`{"_index":"i","_id":%q,"_score":null,"_source":%s,"sort":[%s,%q]}`, parts[0], src, parts[1], "x"))
		}
	}
	totalJSON := ""
	if total != "" {
		v, rel, _ := strings.Cut(total, "/")
		totalJSON = fmt.Sprintf(`"total":{"value":%s,"relation":%q},`, v, rel)
	}
	return `{"took":1,"timed_out":false,"hits":{` + totalJSON + `"max_score":null,"hits":[` + strings.Join(hs, ",") + `]}}`
}

func TestTieOrder(t *testing.T) {
	tieOpts := &Options{Relax: []Relaxation{RelaxTieOrder}}
	cases := []struct {
		name      string
		request   string
		want, got string
		pass      bool     // under tie-order
		failing   []Class  // under tie-order, when it fails
		relaxed   []string // paths of the differences tie-order excused
		strictOK  bool     // whether the strict check passes it (it must never pass what tie-order fails)
	}{
		{name: "a tie of three in another order passes; the order is reported",
			request: `{"size":5}`,
			want:    tiePage("5/eq", false, "a:1", "b:2", "c:2", "d:2", "e:3"),
			got:     tiePage("5/eq", false, "a:1", "d:2", "b:2", "c:2", "e:3"),
			pass:    true, relaxed: []string{"hits.hits[1:4]"}},
		{name: "distinct sort values swapped still fail: no tie",
			request: `{"size":5}`,
			want:    tiePage("5/eq", false, "a:1", "b:2", "c:3", "d:4", "e:5"),
			got:     tiePage("5/eq", false, "a:1", "c:3", "b:2", "d:4", "e:5"),
			failing: []Class{ClassIDs}},
		{name: "a hit from another group breaks the boundary",
			request: `{"size":5}`,
			want:    tiePage("5/eq", false, "a:1", "b:2", "c:2", "d:3", "e:3"),
			got:     tiePage("5/eq", false, "a:1", "b:2", "d:3", "c:2", "e:3"),
			failing: []Class{ClassIDs}},
		{name: "a closed tie holding another document fails",
			request: `{"size":5}`,
			want:    tiePage("5/eq", false, "a:1", "b:2", "c:2", "d:3", "e:4"),
			got:     tiePage("5/eq", false, "a:1", "z:2", "b:2", "d:3", "e:4"),
			failing: []Class{ClassIDs}},
		{name: "reordered, a member's source differs: compared whole after reordering",
			request: `{"size":3}`,
			want:    tiePage("3/eq", false, `a:2:{"n":1}`, `b:2:{"n":2}`, `c:9:{"n":3}`),
			got:     tiePage("3/eq", false, `b:2:{"n":2}`, `a:2:{"n":7}`, `c:9:{"n":3}`),
			failing: []Class{ClassSources}},
		{name: "open at the page end: another member of the tie is accepted, its source unjudged",
			request: `{"size":3}`,
			want:    tiePage("10/eq", false, "a:1", "b:5", "c:5"),
			got:     tiePage("10/eq", false, "a:1", "c:5", "q:5"),
			pass:    true, relaxed: []string{"hits.hits[1]._id", "hits.hits[1:3]"}},
		{name: "open at the page end: a hit outside the tie's sort values fails as sort",
			request: `{"size":3}`,
			want:    tiePage("10/eq", false, "a:1", "b:5", "c:5"),
			got:     tiePage("10/eq", false, "a:1", "b:5", "q:6"),
			failing: []Class{ClassIDs, ClassSort}},
		{name: "the page ends the matches (total eq): the last tie is closed",
			request: `{"size":3}`,
			want:    tiePage("3/eq", false, "a:1", "b:5", "c:5"),
			got:     tiePage("3/eq", false, "a:1", "b:5", "q:5"),
			failing: []Class{ClassIDs}},
		{name: "a page shorter than size is the end: closed",
			request: `{"size":10}`,
			want:    tiePage("3/gte", false, "a:1", "b:5", "c:5"),
			got:     tiePage("3/gte", false, "a:1", "b:5", "q:5"),
			failing: []Class{ClassIDs}},
		{name: "totals not tracked and a full page: open",
			request: `{"size":3,"track_total_hits":false}`,
			want:    tiePage("", false, "a:1", "b:5", "c:5"),
			got:     tiePage("", false, "a:1", "b:5", "q:5"),
			pass:    true, relaxed: []string{"hits.hits[2]._id"}},
		{name: "from above 0 opens the first tie",
			request: `{"size":3,"from":3}`,
			want:    tiePage("6/eq", false, "a:1", "b:1", "c:5"),
			got:     tiePage("6/eq", false, "q:1", "a:1", "c:5"),
			pass:    true, relaxed: []string{"hits.hits[1]._id", "hits.hits[0:2]"}},
		{name: "without from the first tie is closed",
			request: `{"size":3}`,
			want:    tiePage("3/eq", false, "a:1", "b:1", "c:5"),
			got:     tiePage("3/eq", false, "q:1", "a:1", "c:5"),
			failing: []Class{ClassIDs}},
		{name: "relevance order: equal scores in another order",
			request: `{"size":3,"query":{"match_all":{}}}`,
			want:    tiePage("3/eq", true, "a:1.0", "b:1.0", "c:0.5"),
			got:     tiePage("3/eq", true, "b:1.0", "a:1.0", "c:0.5"),
			pass:    true, relaxed: []string{"hits.hits[0:2]"}},
		{name: "relevance order: distinct scores in another order fail",
			request: `{"size":3}`,
			want:    tiePage("3/eq", true, "a:2.0", "b:1.0", "c:0.5"),
			got:     tiePage("3/eq", true, "b:1.0", "a:2.0", "c:0.5"),
			failing: []Class{ClassIDs}},
		{name: "another hit count is not a tie question",
			request: `{"size":3}`,
			want:    tiePage("3/eq", false, "a:1", "b:1", "c:1"),
			got:     tiePage("3/eq", false, "b:1", "a:1"),
			failing: []Class{ClassIDs}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			x, err := Compile(200, []byte(tc.want))
			if err != nil {
				t.Fatal(err)
			}
			x.ForRequest([]byte(tc.request))
			strict := x.Check(200, []byte(tc.got), nil)
			r := x.Check(200, []byte(tc.got), tieOpts)
			if strict.Pass && !r.Pass {
				t.Fatalf("tie-order failed what the strict check passes:\n%s", r)
			}
			if r.Pass != tc.pass {
				t.Fatalf("pass = %v, want %v\n%s", r.Pass, tc.pass, r)
			}
			if !tc.pass && !slices.Equal(r.FailingClasses(), tc.failing) {
				t.Errorf("failing classes %v, want %v\n%s", r.FailingClasses(), tc.failing, r)
			}
			var relaxed []string
			for _, d := range r.Diffs {
				if d.Relaxed == RelaxTieOrder {
					relaxed = append(relaxed, d.Path)
				}
			}
			if tc.pass && !slices.Equal(relaxed, tc.relaxed) {
				t.Errorf("relaxed paths %v, want %v\n%s", relaxed, tc.relaxed, r)
			}
			if tc.pass && strict.Pass {
				t.Errorf("the strict check passes it too: the row tests nothing")
			}
		})
	}
}

// TestTieOrderPassesWhatStrictPasses: the rule only ever re-checks a failing response.
func TestTieOrderPassesWhatStrictPasses(t *testing.T) {
	body := tiePage("3/eq", false, "a:1", "b:1", "c:1")
	x, err := Compile(200, []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	r := x.Check(200, []byte(body), &Options{Relax: []Relaxation{RelaxTieOrder}})
	if !r.Pass || len(r.Diffs) != 0 {
		t.Fatalf("the expected body itself: %s", r)
	}
}

// TestTieOrderProperties draws pages with runs of tied sort values and checks, for each, that
// any reordering inside the runs passes under tie-order, that moving a hit across a run's
// boundary fails (as ids), and that the strict check fails every reordering it sees. Seeded:
// the same pages on every run.
func TestTieOrderProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(29, 3))
	for n := range 300 {
		size := 2 + r.IntN(12)
		var hits []string
		var keys []int
		key := 0
		for i := range size {
			if i > 0 && r.IntN(3) == 0 {
				key++
			}
			keys = append(keys, key)
			hits = append(hits, fmt.Sprintf("d%d:%d", i, key))
		}
		want := tiePage(fmt.Sprintf("%d/eq", size), false, hits...)
		x, err := Compile(200, []byte(want))
		if err != nil {
			t.Fatal(err)
		}
		x.ForRequest([]byte(fmt.Sprintf(`{"size":%d}`, size)))
		// Shuffle within each run of equal keys.
		within := append([]string(nil), hits...)
		for i := 0; i < size; {
			j := i
			for j < size && keys[j] == keys[i] {
				j++
			}
			r.Shuffle(j-i, func(a, b int) { within[i+a], within[i+b] = within[i+b], within[i+a] })
			i = j
		}
		opts := &Options{Relax: []Relaxation{RelaxTieOrder}}
		got := tiePage(fmt.Sprintf("%d/eq", size), false, within...)
		if res := x.Check(200, []byte(got), opts); !res.Pass {
			t.Fatalf("page %d: a reordering within ties fails:\n%s", n, res)
		}
		if strict := x.Check(200, []byte(got), nil); strict.Pass != slices.Equal(within, hits) {
			t.Fatalf("page %d: the strict check passes %v a reordering:\n%s", n, strict.Pass, strict)
		}
		// Swap two hits of different keys: a boundary broken.
		a, b := r.IntN(size), r.IntN(size)
		if keys[a] == keys[b] {
			continue
		}
		across := append([]string(nil), within...)
		across[a], across[b] = across[b], across[a]
		// The swapped hits carry their own sort values, so the page is no longer sorted
		// the way the primary's is: ids (and sort) fail, tie-order or not.
		got = tiePage(fmt.Sprintf("%d/eq", size), false, across...)
		if res := x.Check(200, []byte(got), opts); res.Pass || !slices.Contains(res.FailingClasses(), ClassIDs) {
			t.Fatalf("page %d: hits %d and %d swapped across ties pass:\n%s", n, a, b, res)
		}
	}
}

// msearchPage renders an _msearch answer of search answers made by tiePage, each item
// followed by its "status", as Elasticsearch writes them.
func msearchPage(items ...string) string {
	for i, it := range items {
		items[i] = strings.TrimSuffix(it, "}") + `,"status":200}`
	}
	return `{"took":2,"responses":[` + strings.Join(items, ",") + `]}`
}

func withAggs(page, aggs string) string {
	return strings.Replace(page, `"hits":{`, `"aggregations":`+aggs+`,"hits":{`, 1)
}

// TestTieOrderMsearch: the tie rule applies to each item of an _msearch answer on its own,
// with the item's own body line for from and size, and reports under the item's path.
func TestTieOrderMsearch(t *testing.T) {
	tieOpts := &Options{Relax: []Relaxation{RelaxTieOrder}}
	cases := []struct {
		name      string
		request   string
		want, got []string // per item
		pass      bool
		failing   []Class
		relaxed   []string
	}{
		{name: "a tie reordered in the second item passes; reported under its path",
			request: "{}\n{\"size\":5}\n{\"index\":\"i\"}\n{\"size\":5}\n",
			want:    []string{tiePage("2/eq", false, "a:1", "b:2"), tiePage("5/eq", false, "a:1", "b:2", "c:2", "d:2", "e:3")},
			got:     []string{tiePage("2/eq", false, "a:1", "b:2"), tiePage("5/eq", false, "a:1", "d:2", "b:2", "c:2", "e:3")},
			pass:    true, relaxed: []string{"responses[1].hits.hits[1:4]"}},
		{name: "ties reordered in two items: each reported",
			request: "{}\n{\"size\":3}\n{}\n{\"size\":3}\n",
			want:    []string{tiePage("3/eq", false, "a:1", "b:1", "c:2"), tiePage("3/eq", true, "x:2.0", "y:1.0", "z:1.0")},
			got:     []string{tiePage("3/eq", false, "b:1", "a:1", "c:2"), tiePage("3/eq", true, "x:2.0", "z:1.0", "y:1.0")},
			pass:    true, relaxed: []string{"responses[0].hits.hits[0:2]", "responses[1].hits.hits[1:3]"}},
		{name: "a hit from another group of the item fails",
			request: "{}\n{\"size\":4}\n",
			want:    []string{tiePage("4/eq", false, "a:1", "b:1", "c:2", "d:2")},
			got:     []string{tiePage("4/eq", false, "a:1", "c:2", "b:1", "d:2")},
			failing: []Class{ClassIDs}},
		{name: "the items' hits swapped: no tie spans two items",
			request: "{}\n{\"size\":2}\n{}\n{\"size\":2}\n",
			want:    []string{tiePage("2/eq", false, "a:1", "b:1"), tiePage("2/eq", false, "c:1", "d:1")},
			got:     []string{tiePage("2/eq", false, "c:1", "d:1"), tiePage("2/eq", false, "a:1", "b:1")},
			failing: []Class{ClassIDs}},
		{name: "a reordered item's totals still fail",
			request: "{}\n{\"size\":3}\n",
			want:    []string{tiePage("3/eq", false, "a:1", "b:1", "c:2")},
			got:     []string{tiePage("4/eq", false, "b:1", "a:1", "c:2")},
			failing: []Class{ClassTotals}},
		{name: "a reordered item's aggregations still fail",
			request: "{}\n{\"size\":2,\"aggs\":{\"m\":{\"max\":{\"field\":\"n\"}}}}\n",
			want:    []string{withAggs(tiePage("2/eq", false, "a:1", "b:1"), `{"m":{"value":1.0}}`)},
			got:     []string{withAggs(tiePage("2/eq", false, "b:1", "a:1"), `{"m":{"value":2.0}}`)},
			failing: []Class{ClassAggregations}},
		{name: "a reordered item beside an item whose source differs still fails",
			request: "{}\n{\"size\":2}\n{}\n{\"size\":1}\n",
			want:    []string{tiePage("2/eq", false, "a:1", "b:1"), tiePage("1/eq", false, `c:1:{"n":1}`)},
			got:     []string{tiePage("2/eq", false, "b:1", "a:1"), tiePage("1/eq", false, `c:1:{"n":2}`)},
			failing: []Class{ClassSources}},
		{name: "the item's own size opens its last tie (size 3, a full page)",
			request: "{}\n{\"size\":10}\n{}\n{\"size\":3}\n",
			want:    []string{tiePage("1/eq", false, "z:0"), tiePage("9/eq", false, "a:1", "b:5", "c:5")},
			got:     []string{tiePage("1/eq", false, "z:0"), tiePage("9/eq", false, "a:1", "c:5", "q:5")},
			pass:    true, relaxed: []string{"responses[1].hits.hits[1]._id", "responses[1].hits.hits[1:3]"}},
		{name: "the item's own size closes its last tie (size 10, a short page): another member fails",
			request: "{}\n{\"size\":3}\n{}\n{\"size\":10}\n",
			want:    []string{tiePage("1/eq", false, "z:0"), tiePage("9/gte", false, "a:1", "b:5", "c:5")},
			got:     []string{tiePage("1/eq", false, "z:0"), tiePage("9/gte", false, "a:1", "c:5", "q:5")},
			failing: []Class{ClassIDs}},
		{name: "an empty first header line is a header: the second line is the body",
			request: "\n{\"size\":3,\"from\":3}\n",
			want:    []string{tiePage("6/eq", false, "a:1", "b:1", "c:5")},
			got:     []string{tiePage("6/eq", false, "q:1", "a:1", "c:5")},
			pass:    true, relaxed: []string{"responses[0].hits.hits[1]._id", "responses[0].hits.hits[0:2]"}},
		{name: "another hit count in an item is not a tie question",
			request: "{}\n{\"size\":3}\n",
			want:    []string{tiePage("3/eq", false, "a:1", "b:1", "c:1")},
			got:     []string{tiePage("3/eq", false, "b:1", "a:1")},
			failing: []Class{ClassIDs}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			x, err := Compile(200, []byte(msearchPage(tc.want...)))
			if err != nil {
				t.Fatal(err)
			}
			if x.Kind() != KindMsearch {
				t.Fatalf("kind %s", x.Kind())
			}
			x.ForRequest([]byte(tc.request))
			got := []byte(msearchPage(tc.got...))
			strict := x.Check(200, got, nil)
			r := x.Check(200, got, tieOpts)
			if strict.Pass {
				t.Fatalf("the strict check passes it: the row tests nothing\n%s", strict)
			}
			if r.Pass != tc.pass {
				t.Fatalf("pass = %v, want %v\n%s", r.Pass, tc.pass, r)
			}
			if !tc.pass && !slices.Equal(r.FailingClasses(), tc.failing) {
				t.Errorf("failing classes %v, want %v\n%s", r.FailingClasses(), tc.failing, r)
			}
			var relaxed []string
			for _, d := range r.Diffs {
				if d.Relaxed == RelaxTieOrder {
					relaxed = append(relaxed, d.Path)
				}
			}
			if tc.pass && !slices.Equal(relaxed, tc.relaxed) {
				t.Errorf("relaxed paths %v, want %v\n%s", relaxed, tc.relaxed, r)
			}
		})
	}
}

// TestTieOrderMsearchProperties: TestTieOrderProperties on _msearch answers of two items,
// each its own page of runs: reorderings within the runs of both items pass under
// tie-order, and a swap across runs in either item fails as ids. Seeded.
func TestTieOrderMsearchProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(29, 5))
	page := func() (hits []string, keys []int) {
		size := 2 + r.IntN(10)
		key := 0
		for i := range size {
			if i > 0 && r.IntN(3) == 0 {
				key++
			}
			keys = append(keys, key)
			hits = append(hits, fmt.Sprintf("d%d:%d", i, key))
		}
		return hits, keys
	}
	shuffle := func(hits []string, keys []int) []string {
		out := append([]string(nil), hits...)
		for i := 0; i < len(out); {
			j := i
			for j < len(out) && keys[j] == keys[i] {
				j++
			}
			r.Shuffle(j-i, func(a, b int) { out[i+a], out[i+b] = out[i+b], out[i+a] })
			i = j
		}
		return out
	}
	opts := &Options{Relax: []Relaxation{RelaxTieOrder}}
	for n := range 200 {
		h0, k0 := page()
		h1, k1 := page()
		total := func(h []string) string { return fmt.Sprintf("%d/eq", len(h)) }
		x, err := Compile(200, []byte(msearchPage(tiePage(total(h0), false, h0...), tiePage(total(h1), false, h1...))))
		if err != nil {
			t.Fatal(err)
		}
		x.ForRequest([]byte(fmt.Sprintf("{}\n{\"size\":%d}\n{\"index\":\"i\"}\n{\"size\":%d}\n", len(h0), len(h1))))
		s0, s1 := shuffle(h0, k0), shuffle(h1, k1)
		got := msearchPage(tiePage(total(h0), false, s0...), tiePage(total(h1), false, s1...))
		if res := x.Check(200, []byte(got), opts); !res.Pass {
			t.Fatalf("answer %d: a reordering within ties fails:\n%s", n, res)
		}
		item, hits, keys := 0, s0, k0
		if r.IntN(2) == 1 {
			item, hits, keys = 1, s1, k1
		}
		a, b := r.IntN(len(hits)), r.IntN(len(hits))
		if keys[a] == keys[b] {
			continue
		}
		across := append([]string(nil), hits...)
		across[a], across[b] = across[b], across[a]
		items := []string{tiePage(total(h0), false, s0...), tiePage(total(h1), false, s1...)}
		items[item] = tiePage(total(hits), false, across...)
		if res := x.Check(200, []byte(msearchPage(items...)), opts); res.Pass || !slices.Contains(res.FailingClasses(), ClassIDs) {
			t.Fatalf("answer %d: item %d's hits %d and %d swapped across ties pass:\n%s", n, item, a, b, res)
		}
	}
}

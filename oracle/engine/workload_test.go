package engine

import (
	"encoding/json"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/conform-dev/conform/fixtures"
)

var (
	defaultOnce sync.Once
	defaultFix  *fixtures.Fixtures
	defaultEng  *Engine
)

func defaultEngine(t testing.TB) (*fixtures.Fixtures, *Engine) {
	defaultOnce.Do(func() {
		defaultFix = fixtures.Default()
		defaultEng = New()
		if err := defaultEng.Load(defaultFix.Workload.Index, defaultFix.Mapping, defaultFix.Docs); err != nil {
			panic(err)
		}
	})
	return defaultFix, defaultEng
}

// workloadRequests makes every case's concrete request, after cases continued from their page
// case's last hit, with track_total_hits true.
func workloadRequests(t testing.TB, f *fixtures.Fixtures, e *Engine) []fixtures.Request {
	t.Helper()
	index := f.Workload.Index
	cursors := map[string]json.RawMessage{}
	var out []fixtures.Request
	for i := range f.Workload.Cases {
		c := &f.Workload.Cases[i]
		var after json.RawMessage
		if c.After != "" {
			after = cursors[c.After]
		}
		r, err := c.Request(index, "true", after)
		if err != nil {
			t.Fatal(err)
		}
		if c.Op == fixtures.OpPage {
			st, b := e.Do(r.Method, r.Path, r.Body)
			if st != 200 {
				t.Fatalf("%s: %d %s", c.Name, st, b)
			}
			hits := gjson.GetBytes(b, "hits.hits").Array()
			if len(hits) > 0 {
				cursors[c.Name] = json.RawMessage(hits[len(hits)-1].Get("sort").Raw)
			}
		}
		out = append(out, r)
	}
	return out
}

func TestWorkloadAnswers(t *testing.T) {
	f, e := defaultEngine(t)
	reqs := workloadRequests(t, f, e)
	for _, r := range reqs {
		st, b := e.Do(r.Method, r.Path, r.Body)
		want := 200
		if r.Op == fixtures.OpGet && (st == 404) {
			want = 404
		}
		if st != want {
			t.Errorf("%s: %d %s", r.Case, st, b)
		}
	}
}

// TestPagingVisitsEveryMatchOnce: for every page case, paging with search_after from the
// start visits each matching document exactly once, in the order of one large page, and the
// total is the match count.
func TestPagingVisitsEveryMatchOnce(t *testing.T) {
	f, e := defaultEngine(t)
	for _, c := range f.Workload.Filter([]string{fixtures.OpPage}) {
		var body map[string]json.RawMessage
		_ = json.Unmarshal(c.Body, &body)
		query, sort := string(body["query"]), string(body["sort"])
		st, cnt := e.Do("POST", "/catalogue/_count", []byte(`{"query":`+query+`}`))
		if st != 200 {
			t.Fatalf("%s count: %s", c.Name, cnt)
		}
		total := int(gjson.GetBytes(cnt, "count").Int())
		st, full := e.Do("POST", "/catalogue/_search", []byte(`{"size":10000,"track_total_hits":true,"_source":false,"query":`+query+`,"sort":`+sort+`}`))
		if st != 200 {
			t.Fatalf("%s full: %s", c.Name, full)
		}
		if got := int(gjson.GetBytes(full, "hits.total.value").Int()); got != total {
			t.Errorf("%s: hits.total %d, _count %d", c.Name, got, total)
		}
		var want []string
		for _, h := range gjson.GetBytes(full, "hits.hits").Array() {
			want = append(want, h.Get("_id").String())
		}
		if len(want) != total {
			t.Errorf("%s: %d hits for %d matches", c.Name, len(want), total)
		}
		var got []string
		seen := map[string]bool{}
		after := ""
		for pages := 0; pages < 1000; pages++ {
			b := `{"size":97,"_source":false,"query":` + query + `,"sort":` + sort
			if after != "" {
				b += `,"search_after":` + after
			}
			st, page := e.Do("POST", "/catalogue/_search", []byte(b+"}"))
			if st != 200 {
				t.Fatalf("%s page: %s", c.Name, page)
			}
			hits := gjson.GetBytes(page, "hits.hits").Array()
			if len(hits) == 0 {
				break
			}
			for _, h := range hits {
				id := h.Get("_id").String()
				if seen[id] {
					t.Fatalf("%s: %s visited twice", c.Name, id)
				}
				seen[id] = true
				got = append(got, id)
			}
			after = hits[len(hits)-1].Get("sort").Raw
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%s: paging order differs from one large page (%d vs %d ids)", c.Name, len(got), len(want))
		}
	}
}

// TestTermsBucketsAddUp: buckets plus sum_other_doc_count equal the number of distinct values
// per matching document, counted independently from the _source of the matches.
func TestTermsBucketsAddUp(t *testing.T) {
	f, e := defaultEngine(t)
	sources := map[string][]byte{}
	for _, d := range f.Docs {
		sources[d.ID] = d.Source
	}
	for _, c := range f.Workload.Filter([]string{fixtures.OpTerms}) {
		body := gjson.ParseBytes(c.Body)
		var name string
		var agg gjson.Result
		body.Get("aggs").ForEach(func(k, v gjson.Result) bool { name, agg = k.String(), v.Get("terms"); return false })
		field := agg.Get("field").String()
		query := body.Get("query").Raw
		if query == "" {
			query = `{"match_all":{}}`
		}
		st, res := e.Do("POST", "/catalogue/_search", c.Body)
		if st != 200 {
			t.Fatalf("%s: %s", c.Name, res)
		}
		st, all := e.Do("POST", "/catalogue/_search", []byte(`{"size":10000,"_source":false,"query":`+query+`}`))
		if st != 200 {
			t.Fatal(string(all))
		}
		var values int64
		for _, h := range gjson.GetBytes(all, "hits.hits").Array() {
			v := gjson.GetBytes(sources[h.Get("_id").String()], field)
			distinct := map[string]bool{}
			if v.IsArray() {
				for _, x := range v.Array() {
					if x.Type != gjson.Null {
						distinct[x.String()] = true
					}
				}
			} else if v.Exists() && v.Type != gjson.Null {
				distinct[v.String()] = true
			}
			if len(distinct) == 0 && agg.Get("missing").Exists() {
				values++
			}
			values += int64(len(distinct))
		}
		r := gjson.GetBytes(res, "aggregations."+name)
		sum := r.Get("sum_other_doc_count").Int()
		for _, b := range r.Get("buckets").Array() {
			sum += b.Get("doc_count").Int()
		}
		if agg.Get("min_doc_count").Int() > 1 {
			if sum > values {
				t.Errorf("%s: buckets+other %d > values %d", c.Name, sum, values)
			}
		} else if sum != values {
			t.Errorf("%s: buckets+other %d, values %d", c.Name, sum, values)
		}
	}
}

// TestDefaultWorkloadHasNoTies: no page or after case of the default workload has a page
// boundary inside a group of documents equal on every sort key.
func TestDefaultWorkloadHasNoTies(t *testing.T) {
	f, e := defaultEngine(t)
	for _, r := range workloadRequests(t, f, e) {
		if r.Op != fixtures.OpPage && r.Op != fixtures.OpAfter {
			continue
		}
		ties, err := e.PageTies(f.Workload.Index, r.Body)
		if err != nil {
			t.Fatalf("%s: %v", r.Case, err)
		}
		if ties.Any() {
			t.Errorf("%s: tie at a page boundary %+v", r.Case, ties)
		}
	}
}

func TestPageTiesDetectsTies(t *testing.T) {
	e := newTest(t, `{"mappings":{"properties":{"n":{"type":"long"}}}}`, `{"n":1}`, `{"n":1}`, `{"n":1}`, `{"n":2}`)
	cases := []struct {
		body string
		want PageTies
	}{
		{`{"size":2,"sort":["n"]}`, PageTies{AfterLast: true}},
		{`{"size":3,"sort":["n"]}`, PageTies{}},
		{`{"from":1,"size":1,"sort":["n"]}`, PageTies{AfterLast: true, BeforeFirst: true}},
		{`{"from":2,"size":2,"sort":["n"]}`, PageTies{BeforeFirst: true}},
		{`{"size":1}`, PageTies{AfterLast: true}},
	}
	for _, c := range cases {
		got, err := e.PageTies("test", []byte(c.body))
		if err != nil || got != c.want {
			t.Errorf("%s: %+v %v, want %+v", c.body, got, err, c.want)
		}
	}
}

func TestConcurrentReaders(t *testing.T) {
	f, e := defaultEngine(t)
	reqs := workloadRequests(t, f, e)
	want := make([]string, len(reqs))
	for i, r := range reqs {
		_, b := e.Do(r.Method, r.Path, r.Body)
		want[i] = stripTook(b)
	}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := g; i < len(reqs); i += 4 {
				_, b := e.Do(reqs[i].Method, reqs[i].Path, reqs[i].Body)
				if stripTook(b) != want[i] {
					t.Errorf("%s differs under concurrency", reqs[i].Case)
				}
			}
		}(g)
	}
	wg.Wait()
}

func stripTook(b []byte) string {
	s := string(b)
	if i := strings.Index(s, `"took":`); i >= 0 {
		j := strings.IndexByte(s[i:], ',')
		s = s[:i] + s[i+j:]
	}
	return s
}

// BenchmarkWorkload answers every request of the default workload once per iteration.
func BenchmarkWorkload(b *testing.B) {
	f, e := defaultEngine(b)
	reqs := workloadRequests(b, f, e)
	b.ResetTimer()
	for b.Loop() {
		for _, r := range reqs {
			e.Do(r.Method, r.Path, r.Body)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(reqs)), "ns/request")
}

// BenchmarkOp times one operation's requests of the default workload.
func BenchmarkOp(b *testing.B) {
	f, e := defaultEngine(b)
	reqs := workloadRequests(b, f, e)
	for _, op := range fixtures.Ops {
		var mine []fixtures.Request
		for _, r := range reqs {
			if r.Op == op {
				mine = append(mine, r)
			}
		}
		b.Run(op, func(b *testing.B) {
			i := 0
			for b.Loop() {
				r := mine[i%len(mine)]
				e.Do(r.Method, r.Path, r.Body)
				i++
			}
		})
	}
}

// BenchmarkLargeCorpus loads a generated corpus of CONFORM_DOCS documents (default 1,000,000)
// and answers its workload; it reports the load time and the heap in use after loading.
func BenchmarkLargeCorpus(b *testing.B) {
	n := 1_000_000
	if s := strings.TrimSpace(getenv("CONFORM_DOCS")); s != "" {
		n, _ = strconv.Atoi(s)
	}
	f, err := largeFixtures(n)
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	e := New()
	start := time.Now()
	if err := e.Load(f.Workload.Index, f.Mapping, f.Docs); err != nil {
		b.Fatal(err)
	}
	load := time.Since(start)
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	reqs := workloadRequests(b, f, e)
	// The first pass pays for the filter bitsets the index then caches until its next write.
	first := time.Now()
	for _, r := range reqs {
		e.Do(r.Method, r.Path, r.Body)
	}
	firstPass := time.Since(first)
	b.ResetTimer()
	for b.Loop() {
		for _, r := range reqs {
			e.Do(r.Method, r.Path, r.Body)
		}
	}
	b.ReportMetric(firstPass.Seconds(), "first-pass-s")
	b.ReportMetric(load.Seconds(), "load-s")
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "index-MiB")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e9, "workload-s")
}

// largeFixtures generates n documents with the default workload. fixtures.Generate draws skus
// from 100,000 values and its case search grows with the corpus (minutes at 100,000), so the
// corpus is built from 100,000-document corpora of successive seeds without cases, a copy
// number appended to each _id and sku (keeping the sku unique, the sort tiebreaker), and the
// default workload, whose filters name values from the same pools.
func largeFixtures(n int) (*fixtures.Fixtures, error) {
	const chunk = 100_000
	out := &fixtures.Fixtures{Mapping: fixtures.Default().Mapping, Workload: fixtures.Default().Workload}
	for k := 0; k*chunk < n; k++ {
		m := min(chunk, n-k*chunk)
		f, err := fixtures.Generate(fixtures.Options{Seed: fixtures.DefaultSeed + uint64(k), Documents: m})
		if err != nil {
			return nil, err
		}
		suffix := "-" + strconv.Itoa(k)
		for _, d := range f.Docs {
			id := d.ID + suffix
			src := strings.Replace(string(d.Source), `"sku":"`+d.ID+`"`, `"sku":"`+id+`"`, 1)
			out.Docs = append(out.Docs, fixtures.Doc{ID: id, Source: []byte(src)})
		}
	}
	return out, nil
}

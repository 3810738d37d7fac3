package fuzz

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/conform-dev/conform/conformance"
	"github.com/conform-dev/conform/fixtures"
)

func TestGeneratorDeterministicPerSeed(t *testing.T) {
	a, b := defaultGenerator(t, 7), defaultGenerator(t, 7)
	c := defaultGenerator(t, 8)
	same := 0
	for i := 0; i < 500; i++ {
		ra, rb, rc := a.Request(i), b.Request(i), c.Request(i)
		if ka, kb := key(ra), key(rb); ka != kb {
			t.Fatalf("request %d differs for the same seed:\n%s\n%s", i, ka, kb)
		}
		if key(ra) == key(rc) {
			same++
		}
	}
	if same > 50 {
		t.Errorf("seeds 7 and 8 gave %d identical requests of 500: the seed does not drive the generator", same)
	}
	// Request n does not depend on what was generated before it.
	if key(a.Request(300)) != key(defaultGenerator(t, 7).Request(300)) {
		t.Error("request 300 depends on the requests generated before it")
	}
}

func key(r *Request) string {
	return r.Method + " " + r.Path + " " + string(Marshal(r.Body)) + " " + strings.Join(r.Features, ",")
}

// Every feature the issue lists is generated within a few thousand requests.
func TestGeneratorCoversFeatures(t *testing.T) {
	g := defaultGenerator(t, 1)
	seen := map[string]int{}
	for i := 0; i < 5000; i++ {
		for _, f := range g.Request(i).Features {
			seen[f]++
		}
	}
	want := []string{
		"kind:search", "kind:after", "kind:aggs", "kind:count", "kind:get", "get:found", "get:absent",
		"query:term:keyword", "query:term:integer", "query:term:float", "query:term:date", "query:term:boolean",
		"query:terms:keyword", "query:range:integer", "query:range:float", "query:range:date",
		"query:range:gt", "query:range:gte", "query:range:lt", "query:range:lte", "query:range:integer:decimal-bound",
		"date:day", "date:seconds", "date:millis", "query:exists", "query:ids", "query:prefix", "query:match_all",
		"query:bool:must", "query:bool:filter", "query:bool:should", "query:bool:must_not", "query:bool:nested",
		"query:bool:minimum_should_match",
		"sort:keyword:asc", "sort:keyword:desc", "sort:integer:asc", "sort:float:desc", "sort:date:asc", "sort:boolean:desc",
		"sort:missing:_first", "sort:missing:_last", "sort:missing:custom", "sort:mode:min:multi-valued", "sort:mode:max:multi-valued",
		"sort:mode:avg", "sort:mode:median", "sort:mode:sum", "sort:bare",
		"from", "search_after", "track_total_hits:true", "track_total_hits:false", "track_total_hits:integer", "track_total_hits:default",
		"source:false", "source:field", "source:list", "source:includes", "source:excludes",
		"agg:terms:keyword", "agg:terms:integer", "agg:terms:float", "agg:terms:date", "agg:terms:boolean", "agg:terms:size",
		"agg:terms:order:_count:asc", "agg:terms:order:_key:desc", "agg:terms:min_doc_count", "agg:terms:missing", "agg:terms:sub-filter",
		"agg:filter", "agg:filters:keyed", "agg:filters:anonymous", "agg:filters:other_bucket", "agg:filters:other_bucket_key",
		"agg:min:integer", "agg:max:float", "agg:sum:float", "agg:avg:integer", "agg:value_count:keyword",
		"count",
	}
	for _, f := range want {
		if seen[f] == 0 {
			t.Errorf("feature %s never generated in 5000 requests", f)
		}
	}
}

// Every generated request ends its sort in the unique key, and weights turn kinds off.
func TestGeneratorTiebreakAndWeights(t *testing.T) {
	_, f := defaultEngine(t)
	s, _ := NewSchema(f)
	if s.Unique != "sku" {
		t.Fatalf("unique field %q, want sku", s.Unique)
	}
	w, err := ParseWeights("get=0,count=0,aggs=0,after=0")
	if err != nil {
		t.Fatal(err)
	}
	g, _ := NewGenerator(s, 3, Options{Weights: w})
	for i := 0; i < 300; i++ {
		r := g.Request(i)
		if r.Kind != KindSearch {
			t.Fatalf("request %d is %s with only search weighted", i, r.Kind)
		}
		sorts, _ := r.Body.Get("sort")
		arr := sorts.([]any)
		if sortField(arr[len(arr)-1]) != "sku" {
			t.Fatalf("request %d's sort does not end in sku: %s", i, Marshal(sorts))
		}
	}
	for _, bad := range []string{"nope=1", "get=-1", "get", "search=0,after=0,aggs=0,count=0,get=0"} {
		if _, err := ParseWeights(bad); err == nil {
			t.Errorf("ParseWeights(%q) accepted", bad)
		}
	}
}

// The embedded engine fuzzed against itself agrees, and the generator stays inside its
// subset: no request is answered with an error.
func TestEmbeddedAgreesWithItself(t *testing.T) {
	e, f := defaultEngine(t)
	rep, err := Run(context.Background(), Config{Gen: defaultGenerator(t, 11), OracleIndex: f.Workload.Index, TargetIndex: f.Workload.Index,
		Oracle: EngineDoer(e), Target: EngineDoer(e), N: 1500})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Requests != 1500 || rep.Disagreements != 0 || rep.OracleErrors != 0 {
		t.Fatalf("requests %d, disagreements %d, oracle errors %d: %v", rep.Requests, rep.Disagreements, rep.OracleErrors, rep.OracleErrorExamples)
	}
}

// The shrinker on a synthetic disagreement: a "target" that gets one thing wrong (every hit
// with color red is dropped) shrinks to a small request that still shows it.
func TestShrinkSyntheticDisagreement(t *testing.T) {
	e, f := defaultEngine(t)
	broken := func(ctx context.Context, method, path string, body []byte) (int, []byte, error) {
		st, b := e.Do(method, path, body)
		return st, []byte(redHit.ReplaceAllString(string(b), "")), nil
	}
	rep, err := Run(context.Background(), Config{Gen: defaultGenerator(t, 5), OracleIndex: f.Workload.Index, TargetIndex: f.Workload.Index,
		Oracle: EngineDoer(e), Target: broken, N: 300, Check: &conformance.Options{}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Disagreements == 0 || len(rep.Groups) == 0 {
		t.Fatal("the broken target was not caught")
	}
	for _, g := range rep.Groups {
		d := g.Repro
		if d.Minimal.Size() > d.Original.Size() {
			t.Errorf("group %s grew from %d to %d", d.Signature, d.Original.Size(), d.Minimal.Size())
		}
		if d.Minimal.Kind == KindSearch && d.Minimal.Size() > 16 {
			t.Errorf("group %s shrank only to %d values: %s", d.Signature, d.Minimal.Size(), Marshal(d.Minimal.Body))
		}
		if !d.Signature.classIn(d.Result) {
			t.Errorf("the minimal request no longer disagrees in the class of %s", d.Signature)
		}
	}
}

// redHit drops the _source color value "red" from hits: a bug in one field's values.
var redHit = regexp.MustCompile(`"color":"red",`)

// brokenProxy serves the embedded engine over HTTP and breaks its answers in one way.
func brokenProxy(t *testing.T, mode string) *httptest.Server {
	e, _ := defaultEngine(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, r)
		body := rec.Body.Bytes()
		if rec.Code == 200 {
			body = breakBody(mode, body)
		}
		for k, v := range rec.Header() {
			if k != "Content-Length" {
				w.Header()[k] = v
			}
		}
		w.WriteHeader(rec.Code)
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

var docCount = regexp.MustCompile(`"doc_count":(\d+)([,}])`)

func breakBody(mode string, body []byte) []byte {
	switch mode {
	case "number-kind":
		// An integer count rendered as a float: 12 becomes 12.0 (once per body).
		if loc := docCount.FindSubmatchIndex(body); loc != nil {
			return append(append(append([]byte{}, body[:loc[3]]...), ".0"...), body[loc[3]:]...)
		}
	case "drop-bucket", "reverse-ties":
		v, err := Parse(body)
		if err != nil {
			return body
		}
		o := v.(*Object)
		changed := false
		if mode == "drop-bucket" {
			changed = dropLastBucket(o)
		} else {
			changed = reverseTies(o)
		}
		if changed {
			return Marshal(o)
		}
	}
	return body
}

// dropLastBucket drops the last bucket of the first aggregation with two or more.
func dropLastBucket(v any) bool {
	switch x := v.(type) {
	case *Object:
		for i, k := range x.Keys {
			if a, ok := x.Vals[i].([]any); ok && k == "buckets" && len(a) >= 2 {
				x.Vals[i] = a[:len(a)-1]
				return true
			}
			if dropLastBucket(x.Vals[i]) {
				return true
			}
		}
	}
	return false
}

// reverseTies reverses each run of hits tied on their first sort value, as if the engine
// broke ties on the first key backwards instead of by the later keys.
func reverseTies(o *Object) bool {
	hv, _ := o.Get("hits")
	h, _ := hv.(*Object)
	if h == nil {
		return false
	}
	av, _ := h.Get("hits")
	hits, _ := av.([]any)
	first := func(x any) string {
		s, _ := x.(*Object).Get("sort")
		if a, ok := s.([]any); ok && len(a) > 1 {
			return string(Marshal(a[0]))
		}
		return ""
	}
	changed := false
	for i := 0; i < len(hits); {
		j := i + 1
		for j < len(hits) && first(hits[i]) != "" && first(hits[j]) == first(hits[i]) {
			j++
		}
		if j-i > 1 {
			for a, b := i, j-1; a < b; a, b = a+1, b-1 {
				hits[a], hits[b] = hits[b], hits[a]
			}
			changed = true
		}
		i = j
	}
	return changed
}

func httpDoer(base string) Doer {
	c := &http.Client{Timeout: 30 * time.Second}
	return func(ctx context.Context, method, path string, body []byte) (int, []byte, error) {
		var rd io.Reader
		if body != nil {
			rd = bytes.NewReader(body)
		}
		req, err := http.NewRequestWithContext(ctx, method, base+path, rd)
		if err != nil {
			return 0, nil, err
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := c.Do(req)
		if err != nil {
			return 0, nil, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return resp.StatusCode, b, err
	}
}

// A deliberately broken target: fuzzing finds each break, and the reproducer is small.
func TestBrokenProxyFound(t *testing.T) {
	e, f := defaultEngine(t)
	cases := []struct {
		mode    string
		class   conformance.Class
		maxSize int // values in the minimal body
	}{
		{"number-kind", conformance.ClassAggregations, 12},
		{"drop-bucket", conformance.ClassAggregations, 12},
		{"reverse-ties", conformance.ClassIDs, 12},
	}
	for _, c := range cases {
		t.Run(c.mode, func(t *testing.T) {
			srv := brokenProxy(t, c.mode)
			rep, err := Run(context.Background(), Config{Gen: defaultGenerator(t, 2), OracleIndex: f.Workload.Index, TargetIndex: f.Workload.Index,
				Oracle: EngineDoer(e), Target: httpDoer(srv.URL), N: 200})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Disagreements == 0 {
				t.Fatalf("%s: no disagreement in %d requests", c.mode, rep.Requests)
			}
			var best *Disagreement
			largest := 0
			for _, g := range rep.Groups {
				if g.Repro.Minimal.Size() > largest {
					largest = g.Repro.Minimal.Size()
				}
				if g.Repro.Signature.Class == c.class && (best == nil || g.Repro.Minimal.Size() < best.Minimal.Size()) {
					best = g.Repro
				}
			}
			if best == nil {
				t.Fatalf("%s: no group of class %s among %d groups", c.mode, c.class, len(rep.Groups))
			}
			t.Logf("%s: %d disagreements in %d groups (largest reproducer %d values); smallest %s shrank %d -> %d values: %s %s",
				c.mode, rep.Disagreements, len(rep.Groups), largest, best.Signature, best.Original.Size(), best.Minimal.Size(), best.Minimal.Path, Marshal(best.Minimal.Body))
			if largest > 20 {
				t.Errorf("%s: a group's reproducer has %d values, want at most 20", c.mode, largest)
			}
			if best.Minimal.Size() > c.maxSize {
				t.Errorf("%s: the reproducer has %d values, want at most %d", c.mode, best.Minimal.Size(), c.maxSize)
			}
		})
	}
}

// Saved groups make a fixtures directory that loads and holds one case per group.
func TestSaveWritesLoadableFixtures(t *testing.T) {
	e, f := defaultEngine(t)
	srv := brokenProxy(t, "drop-bucket")
	rep, err := Run(context.Background(), Config{Gen: defaultGenerator(t, 2), OracleIndex: f.Workload.Index, TargetIndex: f.Workload.Index,
		Oracle: EngineDoer(e), Target: httpDoer(srv.URL), N: 60})
	if err != nil || len(rep.Groups) == 0 {
		t.Fatalf("err %v, %d groups", err, len(rep.Groups))
	}
	dir := t.TempDir()
	if err := Save(dir, f, rep.Groups); err != nil {
		t.Fatal(err)
	}
	back, err := fixtures.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Workload.Cases) != len(rep.Groups) || len(back.Docs) != len(f.Docs) {
		t.Fatalf("%d cases for %d groups, %d docs", len(back.Workload.Cases), len(rep.Groups), len(back.Docs))
	}
	// Every saved case disagrees again on the broken proxy and agrees on the engine.
	for _, c := range back.Workload.Cases {
		req, err := c.Request(f.Workload.Index, "true", nil)
		if err != nil {
			t.Fatal(err)
		}
		ws, wb := e.Do(req.Method, req.Path, req.Body)
		gs, gb, _ := httpDoer(srv.URL)(context.Background(), req.Method, req.Path, req.Body)
		x, _ := conformance.Compile(ws, wb)
		if x.Check(gs, gb, nil).Pass {
			t.Errorf("saved case %s passes on the broken target: %s", c.Name, c.Body)
		}
	}
}

func TestInterruptedRunKeepsFindings(t *testing.T) {
	e, f := defaultEngine(t)
	srv := brokenProxy(t, "number-kind")
	ctx, cancel := context.WithCancel(context.Background())
	var n atomic.Int64
	target := func(c context.Context, method, path string, body []byte) (int, []byte, error) {
		if n.Add(1) == 40 {
			cancel()
		}
		return httpDoer(srv.URL)(c, method, path, body)
	}
	rep, err := Run(ctx, Config{Gen: defaultGenerator(t, 2), OracleIndex: f.Workload.Index, TargetIndex: f.Workload.Index,
		Oracle: EngineDoer(e), Target: target, N: 100000})
	if err != nil && ctx.Err() == nil {
		t.Fatal(err)
	}
	if rep == nil || rep.Stopped != "interrupted" || rep.Requests >= 100000 || rep.Disagreements == 0 || len(rep.Groups) == 0 {
		t.Fatalf("report %+v", rep)
	}
	for _, g := range rep.Groups {
		if g.Repro.Shrunk {
			t.Error("an interrupted run shrank")
		}
	}
}

// The invariants hold on the embedded engine and break on targets that drop a bucket or
// reverse ties.
func TestInvariants(t *testing.T) {
	e, f := defaultEngine(t)
	rep, err := RunInvariants(context.Background(), InvariantConfig{Gen: defaultGenerator(t, 4), Index: f.Workload.Index, Target: EngineDoer(e), N: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Violations) != 0 || rep.Checks != 100 {
		t.Fatalf("%d checks, violations on the engine: %+v", rep.Checks, rep.Violations[0])
	}
	for mode, inv := range map[string]string{"drop-bucket": InvTerms, "reverse-ties": InvWindows} {
		srv := brokenProxy(t, mode)
		rep, err := RunInvariants(context.Background(), InvariantConfig{Gen: defaultGenerator(t, 4), Index: f.Workload.Index, Target: httpDoer(srv.URL), N: 50})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, v := range rep.Violations {
			found = found || v.Invariant == inv
		}
		if !found {
			t.Errorf("%s: no violation of %q in %d checks (%d violations)", mode, inv, rep.Checks, len(rep.Violations))
		}
	}
}

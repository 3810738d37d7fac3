package fuzz

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
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
		"sort:mode:avg", "sort:mode:median", "sort:mode:sum", "sort:bare:tiebreak",
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
		if !d.Signature.ShownIn(d.Result) {
			t.Errorf("the minimal request no longer shows %s", d.Signature)
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

// Saved groups make a fixtures directory that loads and holds one case per group, or per
// field set of a group of several fields.
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
	type saved struct {
		name  string
		repro *Disagreement
	}
	var want []saved
	for _, g := range rep.Groups {
		if len(g.Fields) == 0 {
			want = append(want, saved{g.Name, g.Repro})
		}
		for _, fg := range g.Fields {
			want = append(want, saved{fg.Name, fg.Repro})
		}
	}
	if len(back.Workload.Cases) != len(want) || len(want) != Reproducers(rep.Groups) || len(back.Docs) != len(f.Docs) {
		t.Fatalf("%d cases for %d groups (%d reproducers), %d docs", len(back.Workload.Cases), len(rep.Groups), Reproducers(rep.Groups), len(back.Docs))
	}
	// Each case is named as its group (or field set) is, by what it exercises.
	for i, c := range back.Workload.Cases {
		g := want[i]
		if c.Name != g.name || !strings.HasPrefix(c.Name, CasePrefix) || c.Name != CasePrefix+g.repro.Minimal.Describe("sku") && !strings.HasPrefix(c.Name, CasePrefix+g.repro.Minimal.Describe("sku")+"-") {
			t.Errorf("case %d named %q, want %q, shape %s", i, c.Name, g.name, g.repro.Minimal.Shape())
		}
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

// faulty is the embedded engine behind a gateway that rewrites every search body: one root
// cause, whatever the request.
func faulty(t *testing.T, rewrite func(*Object)) Doer {
	e, _ := defaultEngine(t)
	return func(_ context.Context, method, path string, body []byte) (int, []byte, error) {
		if body != nil && strings.HasSuffix(path, "/_search") {
			if v, err := Parse(body); err == nil {
				if o, ok := v.(*Object); ok {
					rewrite(o)
					body = Marshal(o)
				}
			}
		}
		st, b := e.Do(method, path, body)
		return st, b, nil
	}
}

// ignoreCursor drops search_after: the gateway answers the first page whatever the cursor.
func ignoreCursor(o *Object) { o.Delete("search_after") }

// shorthandDescending reads a bare sort key ("sku") as descending.
func shorthandDescending(o *Object) {
	s, _ := o.Get("sort")
	keys, _ := s.([]any)
	for i, k := range keys {
		if f, ok := k.(string); ok {
			keys[i] = Obj(f, "desc")
		}
	}
}

// One root cause across many generated requests is one group: a gateway that ignores
// search_after fails every continued page, whatever its query, sort, size or cursor value,
// and each shrinks (or fits) to the same request but for the cursor's value. The old
// grouping (identical minimal requests within a class and path) made a group per cursor.
func TestOneCauseOneGroup(t *testing.T) {
	e, f := defaultEngine(t)
	rep, err := Run(context.Background(), Config{Gen: defaultGenerator(t, 3), OracleIndex: f.Workload.Index, TargetIndex: f.Workload.Index,
		Oracle: EngineDoer(e), Target: faulty(t, ignoreCursor), N: 400})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Disagreements < 30 {
		t.Fatalf("only %d disagreements in %d requests", rep.Disagreements, rep.Requests)
	}
	var shapes []string
	for _, g := range rep.Groups {
		shapes = append(shapes, fmt.Sprintf("%s (%d requests, %d shrunk, %d fitted, %d unplaced): %s", g.Name, len(g.Seqs), g.Shrunk, g.Fitted, g.Unplaced, Marshal(g.Repro.Minimal.Body)))
	}
	if len(rep.Groups) != 1 {
		t.Fatalf("%d disagreements in %d groups, want 1:\n%s", rep.Disagreements, len(rep.Groups), strings.Join(shapes, "\n"))
	}
	g := rep.Groups[0]
	want := `POST /{index}/_search {"sort":[{"sku":"asc"}],"search_after":[<str>]}`
	if g.Shape != want || g.Name != "fuzz/after" || len(g.Seqs) != rep.Disagreements || g.Shrunk+g.Unshrunk+g.Fitted+g.Unplaced != len(g.Seqs) || g.Unplaced != 0 {
		t.Fatalf("group %s\nwant shape %s holding all %d disagreements", shapes[0], want, rep.Disagreements)
	}
	t.Logf("%d disagreements in 1 group: %s", rep.Disagreements, shapes[0])
}

// A gateway that mishandles the bare sort shorthand and drops an aggregation bucket: the
// shrinker never writes a sort key bare, so the bucket's reproducers do not also carry the
// shorthand's fault (they used to: the final {"sku":"asc"} became "sku"); the shorthand,
// which the generator writes on the tiebreak as a variation of its own, is one group.
func TestShorthandIsItsOwnCause(t *testing.T) {
	e, f := defaultEngine(t)
	faultyDo := faulty(t, shorthandDescending)
	target := func(ctx context.Context, method, path string, body []byte) (int, []byte, error) {
		st, b, err := faultyDo(ctx, method, path, body)
		if st == 200 {
			b = breakBody("drop-bucket", b)
		}
		return st, b, err
	}
	rep, err := Run(context.Background(), Config{Gen: defaultGenerator(t, 4), OracleIndex: f.Workload.Index, TargetIndex: f.Workload.Index,
		Oracle: EngineDoer(e), Target: target, N: 400})
	if err != nil {
		t.Fatal(err)
	}
	bare := func(c *Case) bool {
		o, _ := c.Body.(*Object)
		if o == nil {
			return false
		}
		s, _ := o.Get("sort")
		keys, _ := s.([]any)
		for _, k := range keys {
			if _, ok := k.(string); ok {
				return true
			}
		}
		return false
	}
	shorthand, buckets := 0, 0
	for _, g := range rep.Groups {
		d := g.Repro
		if bare(d.Minimal) && !bare(d.Original) {
			t.Errorf("group %s: shrinking wrote the shorthand: %s from %s", g.Name, Marshal(d.Minimal.Body), Marshal(d.Original.Body))
		}
		switch d.Signature.Class {
		case conformance.ClassAggregations:
			buckets++
		case conformance.ClassIDs:
			if g.Shape != `POST /{index}/_search {"sort":["sku"]}` {
				t.Errorf("group %s fails on ids but is not the shorthand's: %s", g.Name, g.Shape)
			}
			shorthand++
		}
	}
	if shorthand != 1 || buckets == 0 {
		t.Fatalf("%d shorthand groups (want 1), %d bucket groups of %d", shorthand, buckets, len(rep.Groups))
	}
}

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// gtAsGte reads a range's gt as gte, everywhere in the body.
func gtAsGte(o *Object) {
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case *Object:
			for i, k := range x.Keys {
				if k == "gt" {
					x.Keys[i] = "gte"
				}
				walk(x.Vals[i])
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(o)
}

// The report of a gateway with two faults, as conform fuzz prints it: the groups by shape,
// largest first, then each with its shape, name, counts and reproducer.
func TestRenderGolden(t *testing.T) {
	e, f := defaultEngine(t)
	clock := time.Unix(0, 0)
	rep, err := Run(context.Background(), Config{Gen: defaultGenerator(t, 6), OracleIndex: f.Workload.Index, TargetIndex: f.Workload.Index,
		Oracle: EngineDoer(e), Target: faulty(t, func(o *Object) { ignoreCursor(o); gtAsGte(o) }), N: 120,
		Now: func() time.Time { return clock }})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	rep.Render(&b, RenderOptions{Target: "gw", Oracle: "embedded", Index: f.Workload.Index})
	path := filepath.Join("testdata", "render-two-faults.txt")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if string(want) != b.String() {
		t.Errorf("the report differs from %s (go test -update rewrites it; check the diff):\n%s", path, b.String())
	}
}

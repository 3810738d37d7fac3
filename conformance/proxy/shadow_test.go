package proxy

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/conform-dev/conform/conformance"
	"github.com/conform-dev/conform/conformance/proxy/proxytest"
	"github.com/conform-dev/conform/conformance/suite"
	"github.com/conform-dev/conform/fixtures"
	"github.com/conform-dev/conform/oracle"
)

var (
	smallOnce sync.Once
	smallFx   *fixtures.Fixtures
)

// small is a 300-document catalogue, enough for searches with ties and misses.
func small(t *testing.T) *fixtures.Fixtures {
	smallOnce.Do(func() {
		f, err := fixtures.Generate(fixtures.Options{Seed: 7, Documents: 300, Cases: fixtures.CaseCounts{Get: 1}})
		if err != nil {
			panic(err)
		}
		smallFx = f
	})
	return smallFx
}

// engineServer serves the embedded engine holding the small catalogue.
func engineServer(t *testing.T) *httptest.Server {
	eng, err := suite.Engine(small(t))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(eng)
	t.Cleanup(srv.Close)
	return srv
}

// session is a client's reads and writes: searches (a term, a field sort with ties, relevance
// order, an aggregation, a size-0 count), counts, document reads and an existence check.
var session = []struct{ method, path, body string }{
	{"POST", "/catalogue/_search", `{"query":{"term":{"brand":"acme"}},"sort":[{"price":"desc"},"sku"],"size":5}`},
	{"POST", "/catalogue/_search", `{"query":{"bool":{"filter":[{"range":{"stock":{"gte":10}}}]}},"sort":["category"],"size":7}`},
	{"POST", "/catalogue/_search", `{"size":0,"aggs":{"b":{"terms":{"field":"brand"}}}}`},
	{"POST", "/catalogue/_search", `{"query":{"term":{"brand":"acme"}},"sort":[{"price":"desc"},"sku"],"size":5}`},
	{"POST", "/catalogue/_count", `{"query":{"range":{"views":{"gte":100}}}}`},
	{"GET", "/catalogue/_doc/SKU-00000", ""},
	{"HEAD", "/catalogue/_doc/SKU-00000", ""},
	{"GET", "/catalogue/_doc/no-such-id", ""},
}

func send(t *testing.T, base, method, path, body string, h ...string) (int, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, base+path, rd)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(h); i += 2 {
		req.Header.Set(h[i], h[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp.StatusCode, string(b)
}

// runShadow starts a shadow between a primary and a candidate and returns its proxy URL and
// a stop function that ends it as Ctrl-C does and returns its summary.
func runShadow(t *testing.T, primary, candidate string, cfg ShadowConfig) (string, func() ShadowSummary) {
	t.Helper()
	cfg.Primary, cfg.Candidate = mustURL(t, primary), mustURL(t, candidate)
	if cfg.Out == "" {
		cfg.Out = t.TempDir()
	}
	if cfg.Sample == 0 {
		cfg.Sample = 1
	}
	s, err := NewShadow(cfg)
	if err != nil {
		t.Fatal(err)
	}
	px := httptest.NewServer(s.Handler())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	return px.URL, func() ShadowSummary {
		px.Close()
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		return s.Summary(true)
	}
}

// TestShadowSameEngine: a candidate that is the primary's engine passes everything; every read
// is checked, none dropped, and both latencies are reported.
func TestShadowSameEngine(t *testing.T) {
	p, c := engineServer(t), engineServer(t)
	url, stop := runShadow(t, p.URL, c.URL, ShadowConfig{Check: &conformance.Options{Relax: []conformance.Relaxation{conformance.RelaxTieOrder}}})
	for _, r := range session {
		send(t, url, r.method, r.path, r.body)
	}
	send(t, url, "POST", "/scratch/_doc/1", `{"a":1}`)
	s := stop()
	if s.Reads != int64(len(session)) || s.Checked != s.Reads || s.Passed != s.Reads || s.Failed != 0 || s.Dropped != 0 || s.Writes != 1 {
		t.Fatalf("summary %+v", s)
	}
	if s.PrimaryLatency == nil || s.CandidateLatency == nil || s.CandidateLatency.N != len(session) {
		t.Errorf("latencies %+v %+v", s.PrimaryLatency, s.CandidateLatency)
	}
	if s.Check != "strict, relaxed: tie-order" {
		t.Errorf("check %q", s.Check)
	}
}

// TestShadowMutations: a candidate that alters the engine's answers fails with each
// alteration's class, and every failing request is written as a case with the primary's
// answer in a golden file that the fixtures and oracle packages accept for the workload.
func TestShadowMutations(t *testing.T) {
	p := engineServer(t)
	for _, op := range []string{"drop-hit", "change-sort-value", "change-source-field", "flip-relation", "change-doc-count", "flip-found", "status-500", "change-count"} {
		t.Run(op, func(t *testing.T) {
			m := &proxytest.Mutating{Upstream: mustURL(t, p.URL), Operator: op}
			c := httptest.NewServer(m)
			defer c.Close()
			out := t.TempDir()
			url, stop := runShadow(t, p.URL, c.URL, ShadowConfig{Out: out})
			for _, r := range session {
				send(t, url, r.method, r.path, r.body)
			}
			s := stop()
			applied, _, class := m.Counts()
			t.Logf("%s: altered %d (class %s): %s", op, applied, class, s.Line())
			if applied == 0 {
				t.Fatalf("%s applied to no answer", op)
			}
			if s.Failed != int64(applied) || s.FailedByClass[string(class)] != int64(applied) {
				t.Errorf("%s altered %d answers (class %s); shadow failed %d by class %v", op, applied, class, s.Failed, s.FailedByClass)
			}
			f, err := fixtures.Load(out)
			if err != nil {
				t.Fatalf("the failures do not load as fixtures: %v", err)
			}
			if len(f.Workload.Cases) != s.Cases || s.Cases == 0 {
				t.Fatalf("%d cases written, summary says %d", len(f.Workload.Cases), s.Cases)
			}
			g := &oracle.Golden{Path: filepath.Join(out, GoldenFile)}
			x, err := g.Expect(context.Background(), f, oracle.Settings{})
			if err != nil {
				t.Fatalf("the golden file is refused: %v", err)
			}
			// Replaying each case against the candidate fails it again, with the class.
			for _, e := range x.Cases {
				exp, err := conformance.Compile(e.Status, e.Body)
				if err != nil {
					t.Fatal(err)
				}
				st, body := send(t, c.URL, e.Request.Method, e.Request.Path, string(e.Request.Body))
				if r := exp.Check(st, []byte(body), nil); r.Pass {
					t.Errorf("%s passes on replay", e.Request.Case)
				}
			}
		})
	}
}

// TestShadowNeverDelaysTheClient: a candidate that hangs does not hold up the client's
// answers; its requests end as timeout failures within the candidate timeout, and a full
// queue drops reads and counts them.
func TestShadowNeverDelaysTheClient(t *testing.T) {
	p := engineServer(t)
	release := make(chan struct{})
	c := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // then the server notices the client leaving
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer c.Close()
	defer close(release)
	url, stop := runShadow(t, p.URL, c.URL, ShadowConfig{Queue: 1, Workers: 1, CandidateTimeout: 500 * time.Millisecond})
	answered := make(chan struct{})
	go func() {
		for range 6 {
			send(t, url, "GET", "/catalogue/_doc/SKU-00000", "")
		}
		close(answered)
	}()
	select {
	case <-answered:
	case <-time.After(20 * time.Second):
		t.Fatal("the client waited for the hanging candidate")
	}
	s := stop()
	// A read still queued when stop drains is counted as not sent (TestShadowDrainIsBounded),
	// so every read is checked, dropped, or left at exit.
	left := s.Skipped["queued at exit, not sent"]
	if s.Dropped == 0 || s.Checked+s.Dropped+left != 6 || s.FailedByClass["timeout"] != s.Checked {
		t.Errorf("summary: checked %d, dropped %d, left at exit %d, failed by class %v", s.Checked, s.Dropped, left, s.FailedByClass)
	}
	if s.CandidateLatency != nil {
		t.Errorf("a candidate that never passed has latency %+v", s.CandidateLatency)
	}
}

// TestShadowDrainIsBounded: at the end, reads still queued for a candidate that hangs are
// counted as not sent once the drain's one --candidate-timeout is spent, rather than each
// waiting out its own timeout (a full queue of 1000 at 10 s, 2 workers, was 83 minutes).
func TestShadowDrainIsBounded(t *testing.T) {
	p := engineServer(t)
	release := make(chan struct{})
	c := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer c.Close()
	defer close(release)
	url, stop := runShadow(t, p.URL, c.URL, ShadowConfig{Queue: 100, Workers: 1, CandidateTimeout: 200 * time.Millisecond})
	const reads = 40
	for range reads {
		send(t, url, "GET", "/catalogue/_doc/SKU-00000", "")
	}
	s := stop()
	left := s.Skipped["queued at exit, not sent"]
	if left == 0 || s.Checked+s.Dropped+left != reads {
		t.Errorf("summary: checked %d, dropped %d, skipped %v; want the reads still queued at exit counted as not sent", s.Checked, s.Dropped, s.Skipped)
	}
}

// TestShadowCandidateGarbage: a candidate answering garbage fails as decode, one not there as
// transport.
func TestShadowCandidateGarbage(t *testing.T) {
	p := engineServer(t)
	garbage := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("<html>not json</html>"))
	}))
	defer garbage.Close()
	gone := httptest.NewServer(nil)
	gone.Close()
	for _, c := range []struct{ url, class string }{{garbage.URL, "decode"}, {gone.URL, "transport"}} {
		url, stop := runShadow(t, p.URL, c.url, ShadowConfig{})
		send(t, url, "POST", "/catalogue/_search", `{"size":1}`)
		s := stop()
		if s.FailedByClass[c.class] != 1 {
			t.Errorf("%s: failed by class %v", c.class, s.FailedByClass)
		}
	}
}

// reverseTies answers as the engine, with the hits of each run of equal sort values
// reversed: another engine's legitimate order. In an _msearch answer it does so in each item.
// With whole, it reverses every page whole instead, across the runs: a wrong order.
type reverseTies struct {
	h     http.Handler
	whole bool
}

func (rt reverseTies) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := httptest.NewRecorder()
	rt.h.ServeHTTP(rec, r)
	var resp map[string]any
	if json.Unmarshal(rec.Body.Bytes(), &resp) == nil {
		searches := []any{resp}
		if items, ok := resp["responses"].([]any); ok {
			searches = items
		}
		for _, s := range searches {
			hits, _ := s.(map[string]any)["hits"].(map[string]any)
			list, _ := hits["hits"].([]any)
			for i := 0; i < len(list); {
				j := i + 1
				key := func(k int) string { b, _ := json.Marshal(list[k].(map[string]any)["sort"]); return string(b) }
				for j < len(list) && (rt.whole || key(j) == key(i)) {
					j++
				}
				for a, b := i, j-1; a < b; a, b = a+1, b-1 {
					list[a], list[b] = list[b], list[a]
				}
				i = j
			}
		}
		b, _ := json.Marshal(resp)
		w.WriteHeader(rec.Code)
		w.Write(b)
		return
	}
	w.WriteHeader(rec.Code)
	w.Write(rec.Body.Bytes())
}

// TestShadowTies: a candidate ordering tied hits otherwise passes under shadow's default
// tie-order rule and fails with the order compared.
func TestShadowTies(t *testing.T) {
	p := engineServer(t)
	eng, _ := suite.Engine(small(t))
	c := httptest.NewServer(reverseTies{h: eng})
	defer c.Close()
	// A sort on a keyword with many ties and no tiebreak; a page in the middle of the
	// ties' run (the last group is open at the page edge).
	body := `{"sort":["category"],"size":30,"_source":false}`
	for _, ties := range []bool{true, false} {
		opts := &conformance.Options{}
		if ties {
			opts.Relax = []conformance.Relaxation{conformance.RelaxTieOrder}
		}
		url, stop := runShadow(t, p.URL, c.URL, ShadowConfig{Check: opts})
		send(t, url, "POST", "/catalogue/_search", body)
		s := stop()
		t.Logf("tie-order %v: %s", ties, s.Line())
		if ties && s.Passed != 1 || !ties && s.FailedByClass["ids"] != 1 {
			t.Errorf("tie-order %v: %s", ties, s.Line())
		}
	}
}

// TestShadowTiesMsearch: the tie rule applies to each item of an _msearch on its own, with
// the item's body line for its page: a candidate ordering each item's ties otherwise passes
// under tie-order and fails as ids without it; one reversing each item's page whole fails
// either way.
func TestShadowTiesMsearch(t *testing.T) {
	p := engineServer(t)
	eng, _ := suite.Engine(small(t))
	// Two items with ties (a keyword sort without tiebreak), the second a page in the middle
	// of the ties' run, and one without ties between them.
	body := "{\"index\":\"catalogue\"}\n{\"sort\":[\"category\"],\"size\":30,\"_source\":false}\n" +
		"{}\n{\"query\":{\"term\":{\"brand\":\"acme\"}},\"sort\":[\"sku\"],\"size\":3,\"_source\":false}\n" +
		"{\"index\":[\"catalogue\"]}\n{\"sort\":[{\"brand\":\"desc\"}],\"from\":20,\"size\":20,\"_source\":false}\n"
	for _, tc := range []struct {
		whole, ties, pass bool
	}{
		{whole: false, ties: true, pass: true},
		{whole: false, ties: false, pass: false},
		{whole: true, ties: true, pass: false},
	} {
		c := httptest.NewServer(reverseTies{h: eng, whole: tc.whole})
		opts := &conformance.Options{}
		if tc.ties {
			opts.Relax = []conformance.Relaxation{conformance.RelaxTieOrder}
		}
		url, stop := runShadow(t, p.URL, c.URL, ShadowConfig{Check: opts})
		code, got := send(t, url, "POST", "/catalogue/_msearch", body, "Content-Type", "application/x-ndjson")
		if code != 200 || strings.Count(got, `"status":200`) != 3 {
			t.Fatalf("the primary's _msearch: %d %s", code, got)
		}
		s := stop()
		c.Close()
		t.Logf("reversed whole %v, tie-order %v: %s", tc.whole, tc.ties, s.Line())
		if s.Checked != 1 || (s.Passed == 1) != tc.pass || !tc.pass && s.FailedByClass["ids"] != 1 {
			t.Errorf("reversed whole %v, tie-order %v: %s", tc.whole, tc.ties, s.Line())
		}
	}
}

// TestShadowFilesWhileRunning: the files are there, and valid, before the shadow ends; the
// report says it is still running.
func TestShadowFilesWhileRunning(t *testing.T) {
	p := engineServer(t)
	m := &proxytest.Mutating{Upstream: mustURL(t, p.URL), Operator: "drop-hit"}
	c := httptest.NewServer(m)
	defer c.Close()
	out := t.TempDir()
	url, stop := runShadow(t, p.URL, c.URL, ShadowConfig{Out: out, FlushEvery: 20 * time.Millisecond})
	defer stop()
	send(t, url, "POST", "/catalogue/_search", `{"size":3}`)
	deadline := time.Now().Add(20 * time.Second)
	for {
		b, _ := os.ReadFile(filepath.Join(out, ShadowFile))
		var s ShadowSummary
		if json.Unmarshal(b, &s) == nil && s.Failed == 1 {
			if s.Finished {
				t.Error("finished while running")
			}
			if _, err := fixtures.Load(out); err != nil {
				t.Errorf("workload while running: %v", err)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("shadow.json never showed the failure: %s", b)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

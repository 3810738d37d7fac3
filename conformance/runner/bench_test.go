package runner

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"
	"unsafe"

	"github.com/tidwall/gjson"

	"github.com/conform-dev/conform/conformance"
	"github.com/conform-dev/conform/conformance/target"
	"github.com/conform-dev/conform/conformance/target/targettest"
	"github.com/conform-dev/conform/fixtures"
	"github.com/conform-dev/conform/oracle"
	"github.com/conform-dev/conform/oracle/engine"
)

// The benchmarks run against targettest's server in the same process, so at 8 clients the
// server competes with the clients for the machine's cores; every variant shares that
// condition, which is what a comparison between them needs. `conform overhead` runs the
// server in a separate process to compare with wrk.

type benchEnv struct {
	srv  *targettest.Server
	tg   *target.Target
	reqs []*target.Prepared
	page []byte
}

// newBenchEnv starts targettest's server in this process, or uses the one at
// $CONFORM_BENCH_URL (say, `conform overhead --serve` in another process, to profile the
// clients without the server in the profile).
func newBenchEnv(b *testing.B) *benchEnv {
	b.Helper()
	page := targettest.SearchPage(20)
	url := os.Getenv("CONFORM_BENCH_URL")
	var srv *targettest.Server
	if url == "" {
		var err error
		if srv, err = targettest.NewServer("127.0.0.1:0", 200, page); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { srv.Close() })
		url = srv.URL
	}
	tg, err := target.Parse("bench="+url, target.Options{})
	if err != nil {
		b.Fatal(err)
	}
	reqs, err := tg.PrepareAll([]fixtures.Request{{Case: "page/000", Method: "POST", Path: "/catalogue/_search",
		Body: []byte(`{"query":{"bool":{"filter":[{"term":{"category":"tools"}}]}},"sort":[{"price":"asc"},{"sku":"asc"}],"size":20,"track_total_hits":true}`)}})
	if err != nil {
		b.Fatal(err)
	}
	return &benchEnv{srv: srv, tg: tg, reqs: reqs, page: page}
}

// run runs one trial of b.N measured requests and reports the median latency and throughput.
func (e *benchEnv) run(b *testing.B, layer target.Layer, clients int, check Check) *Result {
	b.Helper()
	trial := Trial{Clients: clients, Warmup: 200 * clients, Requests: b.N, Cases: len(e.reqs), Check: check,
		Open:       func(ctx context.Context, _ int) (target.Exchanger, error) { return e.tg.Open(ctx, layer, e.reqs) },
		StallAfter: 2 * e.tg.Timeout} // as conform run sets it
	b.ResetTimer()
	r, err := RunTrial(context.Background(), trial)
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	if r.Failed > 0 || r.WarmupFailed > 0 {
		b.Fatalf("%d failures: %v %v", r.Failed+r.WarmupFailed, r.Failures, r.WarmupFailures)
	}
	b.ReportMetric(float64(median(r.Latencies))/1e3, "p50-µs")
	b.ReportMetric(r.Throughput, "passed/s")
	return r
}

func median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

// BenchmarkLayers shows what each way of sending the timed requests costs on the same server:
// the lean connection, go-elasticsearch's transport over a RoundTripper bound to a lean
// connection, net/http, and go-elasticsearch's default stack (transport over net/http).
func BenchmarkLayers(b *testing.B) {
	e := newBenchEnv(b)
	for _, clients := range []int{1, 8} {
		for _, layer := range target.Layers {
			b.Run(fmt.Sprintf("clients=%d/layer=%s", clients, layer), func(b *testing.B) {
				e.run(b, layer, clients, e.statusCheck)
			})
		}
	}
}

func (e *benchEnv) statusCheck(_, status int, body []byte) Verdict {
	return Verdict{Pass: status == 200 && len(body) == len(e.page)}
}

// BenchmarkCheckCost compares throughput without checking with throughput under checks of
// realistic cost: gjson reading a 20-hit page strictly (ids, sort values, sources, total),
// and fixed CPU spins of 10 and 20 µs.
func BenchmarkCheckCost(b *testing.B) {
	e := newBenchEnv(b)
	strict := newPageCheck(b, e.page)
	checks := []struct {
		name  string
		check Check
	}{
		{"none", func(int, int, []byte) Verdict { return Verdict{Pass: true} }},
		{"bytes-page", bytesPageCheck(e.page)},
		{"gjson-page", strict},
		{"spin-10us", spin(10 * time.Microsecond)},
		{"spin-20us", spin(20 * time.Microsecond)},
	}
	for _, clients := range []int{1, 8} {
		for _, c := range checks {
			b.Run(fmt.Sprintf("clients=%d/check=%s", clients, c.name), func(b *testing.B) {
				e.run(b, target.LayerLean, clients, c.check)
			})
		}
	}
}

// BenchmarkPageCheck is the cost of each page check alone, per response.
func BenchmarkPageCheck(b *testing.B) {
	page := targettest.SearchPage(20)
	for _, c := range []struct {
		name  string
		check Check
	}{{"bytes", bytesPageCheck(page)}, {"gjson", newPageCheck(b, page)}} {
		b.Run(c.name, func(b *testing.B) {
			// A copy, as a response read from a connection is: comparing a slice with itself
			// would short-circuit.
			body := bytes.Clone(page)
			b.SetBytes(int64(len(page)))
			b.ReportAllocs()
			for b.Loop() {
				if !c.check(0, 200, body).Pass {
					b.Fatal("the page does not pass its own check")
				}
			}
		})
	}
}

// bytesPageCheck is the fast path a compiled expectation can take on a search page: apart
// from "took", an engine that answers like Elasticsearch sends the expected bytes, so a
// passing response is recognised by comparing the bytes after "took"'s value; only a
// response that differs needs reading field by field.
func bytesPageCheck(expected []byte) Check {
	rest := func(b []byte) []byte {
		const took = `{"took":`
		if !bytes.HasPrefix(b, []byte(took)) {
			return nil
		}
		b = b[len(took):]
		for len(b) > 0 && b[0] >= '0' && b[0] <= '9' {
			b = b[1:]
		}
		return b
	}
	want := rest(expected)
	return func(_, status int, body []byte) Verdict {
		if status == 200 && want != nil && bytes.Equal(rest(body), want) {
			return Verdict{Pass: true}
		}
		return Verdict{Classes: []string{"ids"}}
	}
}

// spin is a check that burns d of CPU, the cost the lab's mistake put in every client.
func spin(d time.Duration) Check {
	return func(int, int, []byte) Verdict {
		for start := time.Now(); time.Since(start) < d; {
		}
		return Verdict{Pass: true}
	}
}

// newPageCheck compiles what a strict check of a search page needs from the expected page,
// once, and returns a check that reads the actual page with gjson: the total, then per hit
// the _id, the sort values and the _source, compared as raw JSON.
func newPageCheck(b *testing.B, expected []byte) Check {
	type hit struct{ id, sort, source string }
	var want []hit
	gjson.GetBytes(expected, "hits.hits").ForEach(func(_, h gjson.Result) bool {
		want = append(want, hit{h.Get("_id").String(), h.Get("sort").Raw, h.Get("_source").Raw})
		return true
	})
	total := gjson.GetBytes(expected, "hits.total.value").Int()
	if len(want) != 20 {
		b.Fatalf("expected page has %d hits", len(want))
	}
	return func(_, status int, body []byte) Verdict {
		if status != 200 || len(body) == 0 {
			return Verdict{Classes: []string{"status"}}
		}
		// The body is only read during the call, so gjson may read it in place.
		res := gjson.Parse(unsafe.String(&body[0], len(body)))
		hits := res.Get("hits")
		if hits.Get("total.value").Int() != total {
			return Verdict{Classes: []string{"totals"}}
		}
		i, ok := 0, true
		hits.Get("hits").ForEach(func(_, h gjson.Result) bool {
			if i >= len(want) {
				ok = false
				return false
			}
			w := &want[i]
			// One pass over the hit's keys rather than one scan per field.
			seen := 0
			h.ForEach(func(k, v gjson.Result) bool {
				switch k.Str {
				case "_id":
					ok = ok && v.Str == w.id
					seen++
				case "_source":
					ok = ok && v.Raw == w.source
					seen++
				case "sort":
					ok = ok && v.Raw == w.sort
					seen++
				}
				return ok
			})
			ok = ok && seen == 3
			i++
			return ok
		})
		if !ok || i != len(want) {
			return Verdict{Classes: []string{"ids"}}
		}
		return Verdict{Pass: true}
	}
}

// BenchmarkCheckCostLabLatency is BenchmarkCheckCost at one client against a server that
// answers after 300 µs (about the lab's fastest cell, 0.377 ms, once the loopback round trip
// is added), waiting without CPU as a real engine's client does. Only one client: the
// in-process server sleeps in a blocking system call per request, and with eight at once the
// Go runtime's hand-off of blocked threads makes the server's latency bimodal, which would be
// measured instead of the check.
func BenchmarkCheckCostLabLatency(b *testing.B) {
	e := newBenchEnv(b)
	if e.srv == nil {
		b.Skip("needs the in-process server (unset CONFORM_BENCH_URL)")
	}
	e.srv.SetDelay(300 * time.Microsecond)
	strict := newPageCheck(b, e.page)
	checks := []struct {
		name  string
		check Check
	}{
		{"none", func(int, int, []byte) Verdict { return Verdict{Pass: true} }},
		{"bytes-page", bytesPageCheck(e.page)},
		{"gjson-page", strict},
		{"spin-20us", spin(20 * time.Microsecond)},
	}
	for _, c := range checks {
		b.Run(fmt.Sprintf("clients=1/check=%s", c.name), func(b *testing.B) {
			e.run(b, target.LayerLean, 1, c.check)
		})
	}
}

// BenchmarkStrictCheckThroughput compares throughput without checking with throughput under
// conform's own strict check, on the largest response of the default workload (a 20-hit page
// with full sources, computed by the embedded engine). The server answers it with a different
// "took", as every real engine does, so the check cannot pass on identical bytes alone.
// Compare the passed/s of check=none and check=strict at each client count (benchstat).
func BenchmarkStrictCheckThroughput(b *testing.B) {
	f := fixtures.Default()
	eng := engine.New()
	if err := eng.Load(f.Workload.Index, f.Mapping, f.Docs); err != nil {
		b.Fatal(err)
	}
	var want []byte
	var req fixtures.Request
	for i := range f.Workload.Cases {
		c := &f.Workload.Cases[i]
		if c.Op != fixtures.OpPage {
			continue
		}
		r, err := c.Request(f.Workload.Index, "true", nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, body := eng.Do(r.Method, r.Path, r.Body); len(body) > len(want) {
			want, req = body, r
		}
	}
	exp, err := conformance.Compile(200, want)
	if err != nil {
		b.Fatal(err)
	}
	served := bytes.Replace(want, []byte(`"took":0,`), []byte(`"took":7,`), 1)
	if bytes.Equal(served, want) {
		served = bytes.Replace(want, []byte(`"took":1,`), []byte(`"took":7,`), 1)
	}
	srv, err := targettest.NewServer("127.0.0.1:0", 200, served)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { srv.Close() })
	tg, err := target.Parse("bench="+srv.URL, target.Options{})
	if err != nil {
		b.Fatal(err)
	}
	reqs, err := tg.PrepareAll([]fixtures.Request{req})
	if err != nil {
		b.Fatal(err)
	}
	e := &benchEnv{srv: srv, tg: tg, reqs: reqs, page: served}
	strict := func(_, status int, body []byte) Verdict {
		if res := exp.Check(status, body, nil); !res.Pass {
			return Verdict{Classes: []string{"mismatch"}}
		}
		return Verdict{Pass: true}
	}
	b.Logf("largest default response: %s, %d bytes", req.Case, len(want))
	for _, clients := range []int{1, 8} {
		for _, c := range []struct {
			name  string
			check Check
		}{{"none", func(int, int, []byte) Verdict { return Verdict{Pass: true} }}, {"strict", strict}} {
			b.Run(fmt.Sprintf("clients=%d/check=%s", clients, c.name), func(b *testing.B) {
				e.run(b, target.LayerLean, clients, c.check)
			})
		}
	}
}

// BenchmarkTimedPath is conform run's timed path as a user times it: the workload's cases of
// an operation through the lean layer, every response checked strictly against the embedded
// oracle's answer. The server replays the embedded engine's answers
// (targettest.NewReplayServer), so it allocates nothing and allocs/op is the client's;
// $CONFORM_BENCH_URL points it at a server in another process instead (conform serve, or
// conform overhead --serve engine) to profile the client alone. Besides ns/op (wall time per
// request over all clients) it reports p50, passed/s and cpu-µs/req: the whole process's CPU
// time per measured request, server included when it is in this process.
func BenchmarkTimedPath(b *testing.B) {
	f := fixtures.Default()
	x, err := oracle.Embedded{}.Expect(context.Background(), f, oracle.Settings{})
	if err != nil {
		b.Fatal(err)
	}
	url := os.Getenv("CONFORM_BENCH_URL")
	if url == "" {
		var answers []targettest.Answer
		for _, e := range x.Cases {
			answers = append(answers, targettest.Answer{Method: e.Request.Method, Path: e.Request.Path, Body: e.Request.Body, Status: e.Status, Response: e.Body})
		}
		srv, err := targettest.NewReplayServer("127.0.0.1:0", answers)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { srv.Close() })
		url = srv.URL
	}
	tg, err := target.Parse("bench="+url, target.Options{})
	if err != nil {
		b.Fatal(err)
	}
	for _, op := range []string{fixtures.OpGet, fixtures.OpPage} {
		s, err := NewSuite(f, x, []string{op})
		if err != nil {
			b.Fatal(err)
		}
		reqs, err := s.Requests(tg, op)
		if err != nil {
			b.Fatal(err)
		}
		prepared, err := tg.PrepareAll(reqs)
		if err != nil {
			b.Fatal(err)
		}
		e := &benchEnv{tg: tg, reqs: prepared}
		for _, clients := range []int{1, 8} {
			b.Run(fmt.Sprintf("op=%s/clients=%d", op, clients), func(b *testing.B) {
				b.ReportAllocs()
				r := e.run(b, target.LayerLean, clients, s.Check(op, nil))
				if r.UserCPU+r.SysCPU > 0 {
					b.ReportMetric(float64(r.UserCPU+r.SysCPU)/1e3/float64(r.Passed), "cpu-µs/req")
				}
			})
		}
	}
}

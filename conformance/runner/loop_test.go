package runner

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/conform-dev/conform/conformance/target"
	"github.com/conform-dev/conform/fixtures"
)

// awkwardServer answers by path: /split sends its response in three pieces with pauses
// between them, /close says Connection: close and closes, /chunked sends a chunked body,
// /slow does not answer within the clients' timeout. Every body is {"ok":true}.
func awkwardServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	done := make(chan struct{})
	t.Cleanup(func() { close(done); ln.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() {
				defer c.Close()
				go func() { <-done; c.Close() }()
				r := bufio.NewReader(c)
				for {
					req, err := http.ReadRequest(r)
					if err != nil {
						return
					}
					io.Copy(io.Discard, req.Body)
					const ok = "HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n{\"ok\":true}"
					switch req.URL.Path {
					case "/split":
						for _, piece := range []string{ok[:9], ok[9:40], ok[40:]} {
							io.WriteString(c, piece)
							time.Sleep(2 * time.Millisecond)
						}
					case "/close":
						io.WriteString(c, "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 11\r\n\r\n{\"ok\":true}")
						return
					case "/chunked":
						io.WriteString(c, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{\"ok\"\r\n")
						time.Sleep(time.Millisecond)
						io.WriteString(c, "6\r\n:true}\r\n0\r\n\r\n")
					case "/slow":
						select {
						case <-time.After(2 * time.Second):
						case <-done:
						}
						return
					}
				}
			})
		}
	})
	return "http://" + ln.Addr().String()
}

// stalledTarget is the awkward server with a 10 s timeout, and its one request, /slow, which it
// does not answer for 2 s.
func stalledTarget(t *testing.T) (*target.Target, []*target.Prepared) {
	t.Helper()
	tg, err := target.Parse("awkward="+awkwardServer(t), target.Options{Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	reqs, err := tg.PrepareAll([]fixtures.Request{{Case: "slow", Method: "GET", Path: "/slow"}})
	if err != nil {
		t.Fatal(err)
	}
	return tg, reqs
}

// The event loop and the goroutine-per-client path agree on every count over a server that
// splits responses, closes connections and stalls, and the loop is what drives lean
// connections on this platform.
func TestRunTrialLoopMatchesGoroutines(t *testing.T) {
	if !canLoop {
		t.Skip("the event loop needs Linux")
	}
	// The timeout leaves room for a busy machine: only /slow (2 s) may reach it.
	const timeout = 500 * time.Millisecond
	tg, err := target.Parse("awkward="+awkwardServer(t), target.Options{Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	var cases []fixtures.Request
	for _, p := range []string{"/split", "/close", "/chunked", "/slow", "/split"} {
		cases = append(cases, fixtures.Request{Case: "c" + p, Method: "GET", Path: p})
	}
	reqs, err := tg.PrepareAll(cases)
	if err != nil {
		t.Fatal(err)
	}
	check := func(_, status int, body []byte) Verdict {
		if status != 200 || string(body) != `{"ok":true}` {
			return Verdict{Classes: []string{"body"}}
		}
		return Verdict{Pass: true}
	}
	for _, loops := range []int{0, 2, -1} {
		x, err := tg.Open(context.Background(), target.LayerLean, reqs)
		if err != nil {
			t.Fatal(err)
		}
		_, async := x.(target.Async)
		groups := loopGroups([]*client{{x: x}, {x: x}}, loops)
		x.Close()
		if !async {
			t.Fatalf("the lean layer over TCP gave a %T, not an Async", x)
		}
		if want := map[int]int{0: min(2, runtime.GOMAXPROCS(0)), 2: 2, -1: 0}[loops]; len(groups) != want {
			t.Fatalf("loops %d: 2 lean clients go to %d loops, want %d", loops, len(groups), want)
		}
		procs := runtime.GOMAXPROCS(0)
		var during atomic.Int64
		check := func(ci, status int, body []byte) Verdict {
			during.Store(int64(runtime.GOMAXPROCS(0)))
			return check(ci, status, body)
		}
		r, err := RunTrial(context.Background(), Trial{Clients: 4, Warmup: 10, Requests: 40, Cases: len(reqs), Check: check, Loops: loops,
			Open: func(ctx context.Context, _ int) (target.Exchanger, error) {
				return tg.Open(ctx, target.LayerLean, reqs)
			}})
		if err != nil {
			t.Fatal(err)
		}
		// The loops run with a spare P; GOMAXPROCS is put back afterwards.
		if after := runtime.GOMAXPROCS(0); after != procs {
			t.Errorf("loops %d: GOMAXPROCS %d after the trial, was %d", loops, after, procs)
		}
		if want := map[int]int{0: max(procs, min(4, procs)+1), 2: max(procs, 3), -1: procs}[loops]; int(during.Load()) != want {
			t.Errorf("loops %d: GOMAXPROCS %d during the trial, want %d (was %d)", loops, during.Load(), want, procs)
		}
		// 1 in 5 requests is /slow: a timeout, and a new connection; 1 in 5 is /close: a pass,
		// and a new connection. 20 connections end so, less those a client never needed again
		// (at most one per client).
		if r.Passed != 32 || r.Failed != 8 || r.Failures[target.ClassTimeout] != 8 || len(r.Failures) != 1 ||
			r.WarmupPassed != 8 || r.WarmupFailed != 2 || r.Reconnects < 16 || r.Reconnects > 20 || len(r.Latencies) != 32 || r.Incomplete {
			t.Errorf("loops %d: passed %d failed %d %v, warmup %d/%d, reconnects %d, latencies %d, incomplete %v; want 32 passed, 8 timeouts, warmup 8/2, 16-20 reconnects",
				loops, r.Passed, r.Failed, r.Failures, r.WarmupPassed, r.WarmupFailed, r.Reconnects, len(r.Latencies), r.Incomplete)
		}
		for _, f := range r.Kept {
			if !strings.Contains(f.Detail.(error).Error(), "no complete response within "+timeout.String()) {
				t.Errorf("loops %d: kept failure %v", loops, f.Detail)
			}
		}
		for _, l := range r.Latencies {
			if l <= 0 || l > timeout {
				t.Errorf("loops %d: latency %v of a passed response", loops, l)
			}
		}
	}
}

// Cancelling a trial stops the loop while every exchange waits on the server, promptly, with
// nothing counted.
func TestRunTrialLoopCancelled(t *testing.T) {
	if !canLoop {
		t.Skip("the event loop needs Linux")
	}
	tg, reqs := stalledTarget(t)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	r, err := RunTrial(ctx, Trial{Clients: 3, Requests: 10, Cases: 1, Check: passAll,
		Open: func(ctx context.Context, _ int) (target.Exchanger, error) {
			return tg.Open(ctx, target.LayerLean, reqs)
		}})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Incomplete || r.Passed != 0 || r.Failed != 0 {
		t.Errorf("incomplete %v passed %d failed %d, want an incomplete trial with nothing counted", r.Incomplete, r.Passed, r.Failed)
	}
	// Well under the 10 s timeout and the server's 2 s stall; generous for a busy machine.
	if took := time.Since(start); took > time.Second {
		t.Errorf("the cancelled trial took %v", took)
	}
}

// A response read with the one before it (a server that answered one request twice) is
// taken by the loop without waiting for a socket that will not become readable for it.
func TestRunTrialLoopTakesBufferedResponses(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		r := bufio.NewReader(c)
		const ok = "HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n{\"ok\":true}"
		for n := 0; ; n++ {
			if _, err := http.ReadRequest(r); err != nil {
				return
			}
			if n == 0 {
				io.WriteString(c, ok+ok)
			}
		}
	}()
	tg, err := target.Parse("double=http://"+ln.Addr().String(), target.Options{Timeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	reqs, err := tg.PrepareAll([]fixtures.Request{{Case: "get", Method: "GET", Path: "/"}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := RunTrial(context.Background(), Trial{Clients: 1, Requests: 3, Cases: 1, Check: passAll,
		Open: func(ctx context.Context, _ int) (target.Exchanger, error) {
			return tg.Open(ctx, target.LayerLean, reqs)
		}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Passed != 2 || r.Failures[target.ClassTimeout] != 1 {
		t.Errorf("passed %d, failures %v; want 2 passed and the third a timeout", r.Passed, r.Failures)
	}
}

// The loops keep their Ps while they wait on their sockets (raw system calls), so the rest of
// the program runs beside them: garbage collections, which stop every P, and timers finish
// while every client waits on a server that does not answer.
func TestRunTrialLoopLeavesTheRuntimeRunning(t *testing.T) {
	if !canLoop {
		t.Skip("the event loop needs Linux")
	}
	tg, reqs := stalledTarget(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	waiting := make(chan struct{}, 8)
	var took time.Duration
	var gcs uint32
	go func() {
		defer cancel()
		for range 2 * runtime.GOMAXPROCS(0) {
			<-waiting
		}
		time.Sleep(20 * time.Millisecond) // every loop is now in epoll_wait
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		for range 5 {
			runtime.GC()
			time.Sleep(time.Millisecond)
		}
		took = time.Since(start)
		runtime.ReadMemStats(&after)
		gcs = after.NumGC - before.NumGC
	}()
	r, err := RunTrial(ctx, Trial{Clients: 2 * runtime.GOMAXPROCS(0), Requests: 100, Cases: 1, Check: passAll,
		Open: func(ctx context.Context, _ int) (target.Exchanger, error) {
			waiting <- struct{}{}
			return tg.Open(ctx, target.LayerLean, reqs)
		}})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Incomplete || r.Passed != 0 {
		t.Errorf("incomplete %v passed %d; want the cancelled trial with nothing passed", r.Incomplete, r.Passed)
	}
	// Five collections and five 1-ms sleeps; generous for a busy machine, far under the
	// server's 2 s stall.
	if gcs < 5 || took > time.Second {
		t.Errorf("%d garbage collections in %v while the loops waited, want 5 well under a second", gcs, took)
	}
}

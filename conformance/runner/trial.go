package runner

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/conform-dev/conform/conformance/target"
)

// DefaultKeep is how many failures of each class a trial keeps whole when Trial.Keep is 0.
const DefaultKeep = 3

// Classes the runner itself gives a response, besides the check's classes and the target's
// fault classes (target.ClassTransport, target.ClassTimeout).
const (
	// ClassPanic: the check panicked on the response (a bug in the check, kept as evidence).
	ClassPanic = "check-panic"
	// ClassUnclassified: the check failed the response without naming a class.
	ClassUnclassified = "unclassified"
)

// Verdict is a check's judgement of one response.
type Verdict struct {
	Pass bool
	// Classes are the failing classes of a response that did not pass, in the check's order.
	Classes []string
	// Detail is the check's account of the differences. It is kept only with the first
	// failures of each class, so a check may build it lazily on failure.
	Detail any
}

// Check judges one response to case caseIndex. It is called on the goroutine that drives the
// client (its own, or an event loop's; see Trial.Loops) after that exchange's timer has
// stopped, concurrently from several goroutines, so it must not share mutable state between
// calls; body is only valid during the call. A passing check should not allocate: it runs
// once per request.
type Check func(caseIndex, status int, body []byte) Verdict

// Trial is one closed-loop trial's settings.
type Trial struct {
	// Clients is the number of concurrent closed-loop clients, each with its own connection.
	Clients int
	// Warmup requests are sent and checked but not timed, shared among the clients. Every
	// client finishes warming up before any measured request is sent.
	Warmup int
	// Requests is the number of measured requests, shared among the clients.
	Requests int
	// Cases is the number of distinct requests; request number n (counted from 0 in each
	// phase) sends case n mod Cases.
	Cases int
	// Open connects client number i (0 <= i < Clients). Every client is opened before the
	// first request is sent.
	Open func(ctx context.Context, i int) (target.Exchanger, error)
	// Check judges each response.
	Check Check
	// Keep is how many failures of each class are kept whole; 0 means DefaultKeep, a negative
	// value keeps none.
	Keep int
	// Loops is how many event loops drive the clients when every client's exchanger is a
	// target.Async (the lean layer over plain TCP, on Linux): 0 means one per CPU the Go
	// runtime may use (GOMAXPROCS), at most Clients; a negative value gives every client a
	// goroutine of its own instead, as for any other exchanger. A loop waits on its clients'
	// sockets with epoll and serves whichever are ready, as wrk's threads do, instead of
	// parking a goroutine per exchange in Go's network poller. While loops run, GOMAXPROCS is
	// raised to one more than the loops (and put back after): a loop keeps its P while it
	// waits on its sockets (a raw system call, see loop_linux.go), and the spare P runs every
	// other goroutine meanwhile (the caller waiting for the trial, a cancellation, the garbage
	// collector, timers).
	Loops int
	// OnMeasure, when set, is called with true just before the first measured request is
	// sent and with false just after the last measured response is read, so a caller can
	// read counters of its own (a server's CPU time, say) over exactly the measured phase.
	OnMeasure func(start bool)
	// StallAfter, when positive, ends the trial once no client has read a response (of any
	// status) for that long, counted from the trial's start and from the start of the
	// measured phase: the target stopped answering. A run sets it to twice the target's
	// timeout, so one timed-out request does not end a trial but a silent target does
	// within a bounded time, whatever the requests left. Result.Stalled then says so.
	StallAfter time.Duration
}

// Failure is one failed request kept whole as evidence.
type Failure struct {
	Warmup  bool
	Request int // the request's number within its phase
	Client  int
	Case    int
	Classes []string
	// Status and Body are the response (a copy); both are zero for a transport fault or a
	// timeout, which have no response.
	Status int
	Body   []byte
	// Detail is the check's differences, or the *target.Fault.
	Detail  any
	Latency time.Duration // zero for a fault
}

// Result is what one trial measured.
type Result struct {
	Clients, Warmup, Requests int

	// Latencies are those of the measured responses that passed, grouped by client.
	Latencies []time.Duration
	// Passed and Failed count measured responses; Failed includes faults.
	Passed, Failed int
	// Failures counts measured failures by class; a response that fails several classes
	// counts under each.
	Failures map[string]int
	// WarmupPassed, WarmupFailed and WarmupFailures are the same for the warmup requests.
	WarmupPassed, WarmupFailed int
	WarmupFailures             map[string]int
	// Kept holds the first failures of each class, warmup first, in request order.
	Kept []Failure

	// Start is when the first measured request was written; Wall runs from then to the
	// read of the last byte of the last measured response, across all clients.
	Start time.Time
	Wall  time.Duration
	// Throughput is passed responses per second of Wall.
	Throughput float64
	// Reconnects counts connections the clients had to reopen during the trial.
	Reconnects int
	// UserCPU and SysCPU are the CPU time the whole process used over the measured phase
	// (from the first measured request to the last measured response), as the OS accounts
	// it; zero where the platform does not say (see ProcessCPU). With the target in another
	// process, they are the client's cost.
	UserCPU, SysCPU time.Duration
	// Incomplete is true when the context was cancelled, or the trial stalled, before every
	// request was sent; the result then holds what was measured until then. The exchanges
	// in flight when it stopped belong to no count.
	Incomplete bool
	// Stalled is true when the trial ended because no client had a response for
	// Trial.StallAfter.
	Stalled bool
	// LastResponse is when the trial's last response (warmup or measured, any status) was
	// read; zero when none came.
	LastResponse time.Time
}

// RunTrial runs one closed-loop trial. A request that fails, including a refused connection
// or a timeout, is a counted failure in the result, not an error; RunTrial returns an error
// only for invalid settings or when a client cannot be opened before the trial starts. With
// event loops (see Trial.Loops) it may raise GOMAXPROCS for the trial's duration, so trials
// meant to be measured should not run side by side.
func RunTrial(ctx context.Context, t Trial) (*Result, error) {
	switch {
	case t.Clients < 1:
		return nil, fmt.Errorf("trial needs at least 1 client, not %d", t.Clients)
	case t.Requests < 0 || t.Warmup < 0:
		return nil, errors.New("trial request counts must not be negative")
	case t.Cases < 1:
		return nil, fmt.Errorf("trial needs at least 1 case, not %d", t.Cases)
	case t.Open == nil || t.Check == nil:
		return nil, errors.New("trial needs Open and Check")
	}
	keep := t.Keep
	if keep == 0 {
		keep = DefaultKeep
	}
	clients := make([]*client, t.Clients)
	for i := range clients {
		x, err := t.Open(ctx, i)
		if err != nil {
			for _, c := range clients[:i] {
				c.x.Close()
			}
			return nil, fmt.Errorf("opening client %d of %d: %w", i+1, t.Clients, err)
		}
		// A fast client may take more than its share of requests; twice the share rarely grows.
		clients[i] = &client{id: i, x: x, keep: max(keep, 0), lat: make([]time.Duration, 0, min(t.Requests, 2*t.Requests/t.Clients+16))}
	}
	defer func() {
		for _, c := range clients {
			c.x.Close()
		}
	}()

	var stop atomic.Bool
	interrupt := func() {
		stop.Store(true)
		for _, c := range clients {
			c.x.Interrupt()
		}
	}
	stopNow := context.AfterFunc(ctx, interrupt)
	defer stopNow()
	// phases counts the phases begun, so the wait between warmup and measuring is not taken
	// for silence.
	var phases atomic.Int64
	var stalled atomic.Bool
	watched := make(chan struct{})
	if t.StallAfter > 0 {
		// Each client counts its own responses, so the timed path shares nothing with the
		// watch and takes no lock: one uncontended atomic add per response.
		answered := func() int64 {
			n := phases.Load()
			for _, c := range clients {
				n += c.answers.Load()
			}
			return n
		}
		go target.Watch(t.StallAfter, answered, watched, func() {
			stalled.Store(true)
			interrupt()
		})
	}

	var warmNext, next atomic.Int64
	var warmed, done sync.WaitGroup
	measure := make(chan struct{})
	if groups := loopGroups(clients, t.Loops); groups != nil {
		// One loop per group drives its clients' sockets (Linux, async exchangers).
		if want := len(groups) + 1; runtime.GOMAXPROCS(0) < want {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(want))
		}
		warmed.Add(len(groups))
		done.Add(len(groups))
		for _, g := range groups {
			go func() {
				defer done.Done()
				xs := make([]target.Async, len(g))
				for k, c := range g {
					xs[k] = c.x.(target.Async)
				}
				l, err := newLoop(g, xs)
				if err != nil {
					l = nil // a goroutine per client instead
				}
				phase := func(counter *atomic.Int64, total int, warmup bool) {
					if l != nil && l.run(counter, total, t.Cases, warmup, t.Check, &stop) {
						return
					}
					if l != nil {
						l.close()
						l = nil
					}
					var wg sync.WaitGroup
					for _, c := range g {
						wg.Go(func() { c.run(counter, total, t.Cases, warmup, t.Check, &stop) })
					}
					wg.Wait()
				}
				phase(&warmNext, t.Warmup, true)
				warmed.Done()
				<-measure
				phase(&next, t.Requests, false)
				if l != nil {
					l.close()
				}
			}()
		}
	} else {
		warmed.Add(len(clients))
		done.Add(len(clients))
		for _, c := range clients {
			go func() {
				defer done.Done()
				c.run(&warmNext, t.Warmup, t.Cases, true, t.Check, &stop)
				warmed.Done()
				<-measure
				c.run(&next, t.Requests, t.Cases, false, t.Check, &stop)
			}()
		}
	}
	warmed.Wait()
	if t.OnMeasure != nil {
		t.OnMeasure(true)
	}
	user0, sys0, cpuOK := ProcessCPU()
	phases.Add(1)
	close(measure)
	done.Wait()
	close(watched)
	user1, sys1, _ := ProcessCPU()
	if t.OnMeasure != nil {
		t.OnMeasure(false)
	}

	r := &Result{Clients: t.Clients, Warmup: t.Warmup, Requests: t.Requests,
		Failures: map[string]int{}, WarmupFailures: map[string]int{}, Incomplete: stop.Load(), Stalled: stalled.Load()}
	if cpuOK {
		r.UserCPU, r.SysCPU = user1-user0, sys1-sys0
	}
	var first, last time.Time
	n := 0
	for _, c := range clients {
		n += len(c.lat)
	}
	r.Latencies = make([]time.Duration, 0, n)
	for _, c := range clients {
		r.Latencies = append(r.Latencies, c.lat...)
		r.Passed += c.passed
		r.Failed += c.failed
		r.WarmupPassed += c.warmPassed
		r.WarmupFailed += c.warmFailed
		for k, v := range c.classes {
			r.Failures[k] += v
		}
		for k, v := range c.warmClasses {
			r.WarmupFailures[k] += v
		}
		r.Kept = append(r.Kept, c.kept...)
		r.Reconnects += c.x.Reconnects()
		if !c.first.IsZero() && (first.IsZero() || c.first.Before(first)) {
			first = c.first
		}
		if c.last.After(last) {
			last = c.last
		}
		if c.lastAnswer.After(r.LastResponse) {
			r.LastResponse = c.lastAnswer
		}
	}
	r.Kept = firstPerClass(r.Kept, max(keep, 0))
	if !first.IsZero() && last.After(first) {
		r.Start, r.Wall = first, last.Sub(first)
		r.Throughput = float64(r.Passed) / r.Wall.Seconds()
	}
	if !r.Incomplete && r.Passed+r.Failed < t.Requests {
		r.Incomplete = true
	}
	return r, nil
}

// loopGroups splits the clients among event loops (see Trial.Loops), client i to loop i mod
// n; nil when the clients are not to be looped.
func loopGroups(clients []*client, loops int) [][]*client {
	if !canLoop || loops < 0 {
		return nil
	}
	for _, c := range clients {
		if _, ok := c.x.(target.Async); !ok {
			return nil
		}
	}
	if loops == 0 {
		loops = runtime.GOMAXPROCS(0)
	}
	loops = max(1, min(loops, len(clients)))
	groups := make([][]*client, loops)
	for i, c := range clients {
		groups[i%loops] = append(groups[i%loops], c)
	}
	return groups
}

// client is one closed-loop client's state. Only the goroutine driving it (its own, or its
// loop's) touches it until the trial ends, so nothing on the request path is shared but the request counter.
type client struct {
	id   int
	x    target.Exchanger
	keep int

	lat                    []time.Duration
	passed, failed         int
	warmPassed, warmFailed int
	classes, warmClasses   map[string]int
	kept                   []Failure
	keptByClass            map[string]int
	first, last            time.Time
	// answers counts the responses read (any status), for the trial's watch; lastAnswer is
	// the last one's end, read after the trial.
	answers    atomic.Int64
	lastAnswer time.Time
}

// run sends requests numbered from the shared counter until total is reached or stop is set.
func (c *client) run(counter *atomic.Int64, total, cases int, warmup bool, check Check, stop *atomic.Bool) {
	for !stop.Load() {
		n := int(counter.Add(1) - 1)
		if n >= total {
			return
		}
		ci := n % cases
		ex, err := c.x.Exchange(ci)
		if !c.record(warmup, n, ci, ex, err, check, stop) {
			return
		}
	}
}

// record counts, times and checks the outcome of request n (case ci). It returns false when
// the trial was cancelled, so the request belongs to no one and the client stops.
func (c *client) record(warmup bool, n, ci int, ex target.Exchange, err error, check Check, stop *atomic.Bool) bool {
	if err != nil {
		if errors.Is(err, target.ErrInterrupted) || stop.Load() {
			return false
		}
		if !warmup {
			c.last = time.Now()
		}
		c.fail(warmup, n, ci, []string{target.ClassOf(err)}, 0, nil, err, 0)
		return true
	}
	c.answers.Add(1)
	c.lastAnswer = ex.End
	if !warmup {
		if c.first.IsZero() {
			c.first = ex.Start
		}
		c.last = ex.End
	}
	v := safeCheck(check, ci, ex.Status, ex.Body)
	if v.Pass {
		if warmup {
			c.warmPassed++
		} else {
			c.passed++
			c.lat = append(c.lat, ex.End.Sub(ex.Start))
		}
		return true
	}
	classes := v.Classes
	if len(classes) == 0 {
		classes = []string{ClassUnclassified}
	}
	c.fail(warmup, n, ci, classes, ex.Status, ex.Body, v.Detail, ex.End.Sub(ex.Start))
	return true
}

func (c *client) fail(warmup bool, n, ci int, classes []string, status int, body []byte, detail any, latency time.Duration) {
	counts := &c.classes
	if warmup {
		c.warmFailed++
		counts = &c.warmClasses
	} else {
		c.failed++
	}
	if *counts == nil {
		*counts = map[string]int{}
	}
	keepIt := false
	if c.keptByClass == nil {
		c.keptByClass = map[string]int{}
	}
	for _, cl := range classes {
		(*counts)[cl]++
		if c.keptByClass[cl] < c.keep {
			keepIt = true
		}
	}
	if !keepIt {
		return
	}
	for _, cl := range classes {
		c.keptByClass[cl]++
	}
	c.kept = append(c.kept, Failure{Warmup: warmup, Request: n, Client: c.id, Case: ci, Classes: classes,
		Status: status, Body: append([]byte(nil), body...), Detail: detail, Latency: latency})
}

// safeCheck runs the check and turns a panic into a failure of class ClassPanic, so one bad
// response cannot end a run and lose every other result.
func safeCheck(check Check, ci, status int, body []byte) (v Verdict) {
	defer func() {
		if p := recover(); p != nil {
			v = Verdict{Classes: []string{ClassPanic}, Detail: fmt.Sprintf("check panicked: %v", p)}
		}
	}()
	return check(ci, status, body)
}

// firstPerClass orders failures (warmup first, then by request number) and keeps a failure
// while any of its classes has fewer than keep kept.
func firstPerClass(fs []Failure, keep int) []Failure {
	sort.SliceStable(fs, func(i, j int) bool {
		if fs[i].Warmup != fs[j].Warmup {
			return fs[i].Warmup
		}
		return fs[i].Request < fs[j].Request
	})
	count := map[string]int{}
	out := fs[:0]
	for _, f := range fs {
		room := false
		for _, cl := range f.Classes {
			if count[cl] < keep {
				room = true
			}
		}
		if !room {
			continue
		}
		for _, cl := range f.Classes {
			count[cl]++
		}
		out = append(out, f)
	}
	return out
}

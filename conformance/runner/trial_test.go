package runner

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/conform-dev/conform/conformance/target"
	"github.com/conform-dev/conform/conformance/target/targettest"
	"github.com/conform-dev/conform/fixtures"
)

// fakeClock hands out exchange times: exchange k (in global order) starts at k ms and takes
// 500 µs, so a trial's wall time is known whatever the clients' interleaving.
type fakeClock struct{ n atomic.Int64 }

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func (c *fakeClock) next() (time.Time, time.Time) {
	k := c.n.Add(1) - 1
	start := epoch.Add(time.Duration(k) * time.Millisecond)
	return start, start.Add(500 * time.Microsecond)
}

// fakeExchanger answers in memory: body "case=N", or a fault for the cases in faults.
type fakeExchanger struct {
	clock   *fakeClock
	faults  map[int]error
	buf     []byte
	calls   []int
	closed  *atomic.Int64
	block   chan struct{} // when set, Exchange waits on it or on Interrupt
	stopped chan struct{}
	once    sync.Once
}

func (x *fakeExchanger) Exchange(i int) (target.Exchange, error) {
	x.calls = append(x.calls, i)
	if x.block != nil {
		select {
		case <-x.block:
		case <-x.stopped:
			return target.Exchange{}, target.ErrInterrupted
		}
	}
	if err := x.faults[i]; err != nil {
		return target.Exchange{}, err
	}
	x.buf = append(x.buf[:0], "case="...)
	x.buf = strconv.AppendInt(x.buf, int64(i), 10)
	start, end := x.clock.next()
	return target.Exchange{Status: 200, Body: x.buf, Start: start, End: end}, nil
}

func (x *fakeExchanger) Interrupt() {
	x.once.Do(func() {
		if x.stopped != nil {
			close(x.stopped)
		}
	})
}
func (x *fakeExchanger) Reconnects() int { return 0 }
func (x *fakeExchanger) Close() error {
	if x.closed != nil {
		x.closed.Add(1)
	}
	return nil
}

func passAll(int, int, []byte) Verdict { return Verdict{Pass: true} }

func TestRunTrialSharesRequestsDeterministically(t *testing.T) {
	clock := &fakeClock{}
	var xs []*fakeExchanger
	var mu sync.Mutex
	trial := Trial{Clients: 4, Warmup: 10, Requests: 103, Cases: 7, Check: passAll,
		Open: func(_ context.Context, i int) (target.Exchanger, error) {
			x := &fakeExchanger{clock: clock}
			mu.Lock()
			xs = append(xs, x)
			mu.Unlock()
			return x, nil
		}}
	r, err := RunTrial(context.Background(), trial)
	if err != nil {
		t.Fatal(err)
	}
	// Whatever the split among clients, the multiset of cases sent is fixed by the request
	// numbers: warmup n%7 for n<10, then measured n%7 for n<103.
	var got []int
	for _, x := range xs {
		got = append(got, x.calls...)
	}
	var want []int
	for n := 0; n < 10; n++ {
		want = append(want, n%7)
	}
	for n := 0; n < 103; n++ {
		want = append(want, n%7)
	}
	sort.Ints(got)
	sort.Ints(want)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("cases sent:\n%v\nwant\n%v", got, want)
	}
	if r.Passed != 103 || r.Failed != 0 || r.WarmupPassed != 10 || len(r.Latencies) != 103 || r.Incomplete {
		t.Errorf("passed %d failed %d warmup %d latencies %d incomplete %v", r.Passed, r.Failed, r.WarmupPassed, len(r.Latencies), r.Incomplete)
	}
	for _, l := range r.Latencies {
		if l != 500*time.Microsecond {
			t.Fatalf("latency %v, want the exchange's 500µs", l)
		}
	}
	// Measured exchanges are numbers 10..112 on the fake clock (warmup took 0..9).
	if wantStart := epoch.Add(10 * time.Millisecond); !r.Start.Equal(wantStart) {
		t.Errorf("start %v, want %v", r.Start, wantStart)
	}
	if wantWall := 102*time.Millisecond + 500*time.Microsecond; r.Wall != wantWall {
		t.Errorf("wall %v, want %v", r.Wall, wantWall)
	}
	if want := 103 / (102.5e-3); r.Throughput < want*0.999 || r.Throughput > want*1.001 {
		t.Errorf("throughput %v, want %v", r.Throughput, want)
	}
}

func TestRunTrialCountsAndKeepsFailures(t *testing.T) {
	clock := &fakeClock{}
	faults := map[int]error{
		3: &target.Fault{Class: target.ClassTimeout, Op: "read", Msg: "no complete response within 1s"},
		4: &target.Fault{Class: target.ClassTransport, Op: "read", Msg: "connection reset"},
	}
	check := func(ci, status int, body []byte) Verdict {
		switch ci {
		case 1:
			return Verdict{Classes: []string{"ids", "sort"}, Detail: "hit 0: _id differs"}
		case 2:
			return Verdict{Classes: []string{"totals"}, Detail: "total"}
		case 5:
			return Verdict{} // failed without a class
		case 6:
			panic("index out of range")
		}
		if string(body) != "case="+strconv.Itoa(ci) {
			return Verdict{Classes: []string{"decode"}}
		}
		return Verdict{Pass: true}
	}
	r, err := RunTrial(context.Background(), Trial{Clients: 3, Warmup: 7, Requests: 70, Cases: 10, Check: check, Keep: 2,
		Open: func(context.Context, int) (target.Exchanger, error) {
			return &fakeExchanger{clock: clock, faults: faults}, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	// 70 measured requests over 10 cases: 7 of each; cases 1..6 fail.
	wantFailures := map[string]int{"ids": 7, "sort": 7, "totals": 7, "timeout": 7, "transport": 7, ClassUnclassified: 7, ClassPanic: 7}
	if fmt.Sprint(r.Failures) != fmt.Sprint(wantFailures) {
		t.Errorf("failures %v\nwant     %v", r.Failures, wantFailures)
	}
	if r.Passed != 28 || r.Failed != 42 || len(r.Latencies) != 28 {
		t.Errorf("passed %d failed %d latencies %d, want 28, 42, 28", r.Passed, r.Failed, len(r.Latencies))
	}
	// Warmup covered cases 0..6 once each.
	wantWarm := map[string]int{"ids": 1, "sort": 1, "totals": 1, "timeout": 1, "transport": 1, ClassUnclassified: 1, ClassPanic: 1}
	if r.WarmupFailed != 6 || fmt.Sprint(r.WarmupFailures) != fmt.Sprint(wantWarm) {
		t.Errorf("warmup failed %d %v, want 6 %v", r.WarmupFailed, r.WarmupFailures, wantWarm)
	}
	// Keep 2 per class: the warmup failure and the first measured one of each.
	perClass := map[string]int{}
	for i, f := range r.Kept {
		for _, c := range f.Classes {
			perClass[c]++
		}
		if i > 0 && r.Kept[i-1].Warmup == f.Warmup && r.Kept[i-1].Request > f.Request {
			t.Errorf("kept failures out of order: %d before %d", r.Kept[i-1].Request, f.Request)
		}
		switch f.Classes[0] {
		case "ids":
			if f.Status != 200 || string(f.Body) != "case=1" || f.Detail != "hit 0: _id differs" || f.Latency != 500*time.Microsecond {
				t.Errorf("kept ids failure %+v, want the response, its detail and latency", f)
			}
		case "timeout":
			if ff, ok := f.Detail.(*target.Fault); !ok || ff.Class != target.ClassTimeout || f.Body != nil {
				t.Errorf("kept timeout %+v, want the fault as detail and no body", f)
			}
		case ClassPanic:
			if s, _ := f.Detail.(string); !strings.Contains(s, "index out of range") {
				t.Errorf("kept panic detail %v", f.Detail)
			}
		}
	}
	for c, n := range perClass {
		if n != 2 {
			t.Errorf("kept %d of class %s, want 2", n, c)
		}
	}
	if !r.Kept[0].Warmup || r.Kept[len(r.Kept)-1].Warmup {
		t.Errorf("kept failures do not put warmup first")
	}
}

// A kept body is a copy: the exchanger's buffer is reused by the next request.
func TestRunTrialKeepsACopyOfTheBody(t *testing.T) {
	clock := &fakeClock{}
	r, err := RunTrial(context.Background(), Trial{Clients: 1, Requests: 5, Cases: 5, Keep: 10,
		Check: func(ci, _ int, _ []byte) Verdict { return Verdict{Pass: ci != 0, Classes: []string{"ids"}} },
		Open: func(context.Context, int) (target.Exchanger, error) {
			return &fakeExchanger{clock: clock}, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Kept) != 1 || string(r.Kept[0].Body) != "case=0" {
		t.Fatalf("kept %+v, want case 0's body intact", r.Kept)
	}
}

func TestRunTrialCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	clock := &fakeClock{}
	var calls atomic.Int64
	check := func(ci, _ int, _ []byte) Verdict {
		if calls.Add(1) == 20 {
			cancel()
		}
		return Verdict{Pass: true}
	}
	r, err := RunTrial(ctx, Trial{Clients: 2, Requests: 1_000_000, Cases: 3, Check: check,
		Open: func(context.Context, int) (target.Exchanger, error) {
			return &fakeExchanger{clock: clock}, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Incomplete || r.Passed < 18 || r.Passed >= 1_000_000 || len(r.Latencies) != r.Passed {
		t.Errorf("cancelled trial: incomplete %v passed %d latencies %d", r.Incomplete, r.Passed, len(r.Latencies))
	}
}

// Cancelling interrupts an exchange that is waiting on the target; the interrupted request
// is not counted as a failure.
func TestRunTrialCancelInterruptsExchanges(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	clock := &fakeClock{}
	r, err := RunTrial(ctx, Trial{Clients: 3, Requests: 10, Cases: 1, Check: passAll,
		Open: func(context.Context, int) (target.Exchanger, error) {
			return &fakeExchanger{clock: clock, block: make(chan struct{}), stopped: make(chan struct{})}, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Incomplete || r.Passed != 0 || r.Failed != 0 {
		t.Errorf("incomplete %v passed %d failed %d, want an incomplete trial with nothing counted", r.Incomplete, r.Passed, r.Failed)
	}
}

func TestRunTrialOpenFailure(t *testing.T) {
	var closed atomic.Int64
	_, err := RunTrial(context.Background(), Trial{Clients: 3, Requests: 10, Cases: 1, Check: passAll,
		Open: func(_ context.Context, i int) (target.Exchanger, error) {
			if i == 2 {
				return nil, &target.Fault{Class: target.ClassTransport, Op: "dial", Msg: "connection refused"}
			}
			return &fakeExchanger{clock: &fakeClock{}, closed: &closed}, nil
		}})
	if err == nil || !strings.Contains(err.Error(), "client 3 of 3") || target.ClassOf(err) != target.ClassTransport {
		t.Fatalf("error %v, want client 3's transport fault", err)
	}
	if closed.Load() != 2 {
		t.Errorf("%d clients closed, want the 2 opened", closed.Load())
	}
}

func TestRunTrialRejectsBadSettings(t *testing.T) {
	open := func(context.Context, int) (target.Exchanger, error) { return &fakeExchanger{clock: &fakeClock{}}, nil }
	for _, tr := range []Trial{
		{Clients: 0, Requests: 1, Cases: 1, Open: open, Check: passAll},
		{Clients: 1, Requests: -1, Cases: 1, Open: open, Check: passAll},
		{Clients: 1, Requests: 1, Cases: 0, Open: open, Check: passAll},
		{Clients: 1, Requests: 1, Cases: 1, Check: passAll},
		{Clients: 1, Requests: 1, Cases: 1, Open: open},
	} {
		if _, err := RunTrial(context.Background(), tr); err == nil {
			t.Errorf("RunTrial(%+v) succeeded", tr)
		}
	}
}

// Against a real loopback server through the lean path, with a target that drops the
// connection now and then.
func TestRunTrialLoopback(t *testing.T) {
	page := targettest.SearchPage(20)
	srv, err := targettest.NewServer("127.0.0.1:0", 200, page)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	tg, err := target.Parse("local="+srv.URL, target.Options{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	reqs, err := tg.PrepareAll([]fixtures.Request{
		{Case: "page/000", Method: "POST", Path: "/catalogue/_search", Body: []byte(`{"size":20}`)},
		{Case: "page/001", Method: "POST", Path: "/catalogue/_search", Body: []byte(`{"size":20,"from":20}`)},
	})
	if err != nil {
		t.Fatal(err)
	}
	check := func(_, status int, body []byte) Verdict {
		if status != 200 || string(body) != string(page) {
			return Verdict{Classes: []string{"status"}}
		}
		return Verdict{Pass: true}
	}
	r, err := RunTrial(context.Background(), Trial{Clients: 4, Warmup: 40, Requests: 400, Cases: len(reqs), Check: check,
		Open: func(ctx context.Context, _ int) (target.Exchanger, error) {
			return tg.Open(ctx, target.LayerLean, reqs)
		}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Passed != 400 || r.Failed != 0 || r.WarmupPassed != 40 || r.Wall <= 0 || r.Throughput <= 0 || r.Reconnects != 0 {
		t.Errorf("passed %d failed %d (%v) warmup %d wall %v throughput %v reconnects %d",
			r.Passed, r.Failed, r.Failures, r.WarmupPassed, r.Wall, r.Throughput, r.Reconnects)
	}
	var sum time.Duration
	for _, l := range r.Latencies {
		if l <= 0 {
			t.Fatalf("latency %v", l)
		}
		sum += l
	}
	if sum > time.Duration(r.Clients)*r.Wall {
		t.Errorf("latencies add up to %v, more than %d clients x wall %v", sum, r.Clients, r.Wall)
	}
}

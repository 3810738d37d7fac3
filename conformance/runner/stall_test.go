package runner

import (
	"context"
	"testing"
	"time"

	"github.com/conform-dev/conform/conformance/target"
	"github.com/conform-dev/conform/conformance/target/targettest"
	"github.com/conform-dev/conform/fixtures"
)

// hungTarget is a loopback server that gives answers responses and then hangs (reads every
// request, answers none), reached with the given timeout.
func hungTarget(t *testing.T, answers int, timeout time.Duration) (*target.Target, []*target.Prepared) {
	t.Helper()
	srv, err := targettest.NewServer("127.0.0.1:0", 200, []byte(`{"ok":true}`))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	srv.SetHangAfter(answers)
	tg, err := target.Parse("hung="+srv.URL, target.Options{Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	reqs, err := tg.PrepareAll([]fixtures.Request{{Case: "get/000", Method: "GET", Path: "/catalogue/_doc/p-00001"}})
	if err != nil {
		t.Fatal(err)
	}
	return tg, reqs
}

// loopModes are the two ways clients are driven: event loops where the platform has them,
// and a goroutine per client.
var loopModes = []struct {
	name  string
	loops int
}{{"loops", 0}, {"goroutines", -1}}

// A target that stops answering mid-trial ends the trial after StallAfter without a response,
// not after every remaining request has timed out: the trial is cut short, marked stalled,
// and keeps what it measured before. The server answers exactly 5 responses, so the counts are
// fixed whatever the timing: 2 warmup, then 3 measured passes.
func TestRunTrialStallsWhenTheTargetHangs(t *testing.T) {
	for _, m := range loopModes {
		t.Run(m.name, func(t *testing.T) {
			// Long enough for the 5 answers on a busy machine; the stall takes twice it.
			const timeout = 500 * time.Millisecond
			tg, reqs := hungTarget(t, 5, timeout)
			r, err := RunTrial(context.Background(), Trial{Clients: 2, Warmup: 2, Requests: 200, Cases: 1, Check: passAll, Loops: m.loops,
				StallAfter: 2 * timeout,
				Open: func(ctx context.Context, _ int) (target.Exchanger, error) {
					return tg.Open(ctx, target.LayerLean, reqs)
				}})
			if err != nil {
				t.Fatal(err)
			}
			if !r.Stalled || !r.Incomplete {
				t.Fatalf("stalled %v incomplete %v, want a stalled, incomplete trial", r.Stalled, r.Incomplete)
			}
			if r.WarmupPassed != 2 || r.Passed != 3 {
				t.Errorf("warmup passed %d, passed %d: want the 2 + 3 responses the server gave", r.WarmupPassed, r.Passed)
			}
			// Without the stall, all 197 remaining requests would have timed out one by one.
			if r.Passed+r.Failed >= r.Requests {
				t.Errorf("%d of %d requests counted (%v): the trial was not cut short", r.Passed+r.Failed, r.Requests, r.Failures)
			}
			if n := r.Failures[target.ClassTimeout]; n != r.Failed {
				t.Errorf("failures %v, want only timeouts", r.Failures)
			}
			if r.LastResponse.IsZero() || r.LastResponse.After(time.Now()) {
				t.Errorf("last response at %v", r.LastResponse)
			}
		})
	}
}

// A silent target (it accepts and never answers) stalls the trial during warmup.
func TestRunTrialStallsOnASilentTarget(t *testing.T) {
	for _, m := range loopModes {
		t.Run(m.name, func(t *testing.T) {
			const timeout = 30 * time.Millisecond
			tg, reqs := hungTarget(t, 0, timeout)
			r, err := RunTrial(context.Background(), Trial{Clients: 3, Warmup: 40, Requests: 200, Cases: 1, Check: passAll, Loops: m.loops,
				StallAfter: 2 * timeout,
				Open: func(ctx context.Context, _ int) (target.Exchanger, error) {
					return tg.Open(ctx, target.LayerLean, reqs)
				}})
			if err != nil {
				t.Fatal(err)
			}
			if !r.Stalled || r.Passed+r.Failed != 0 || r.WarmupPassed != 0 || !r.LastResponse.IsZero() {
				t.Errorf("stalled %v, passed %d failed %d warmup passed %d, last response %v: want a stall in warmup with nothing measured",
					r.Stalled, r.Passed, r.Failed, r.WarmupPassed, r.LastResponse)
			}
			if r.WarmupFailed >= 40 {
				t.Errorf("%d warmup requests failed: the trial was not cut short", r.WarmupFailed)
			}
		})
	}
}

// A target that answers, slowly or with a timeout now and then, is not stalled: the stall
// counts silence on every client, not failures. Every other request here times out, and
// each answered one comes well within StallAfter of the last.
func TestRunTrialSlowTargetIsNotStalled(t *testing.T) {
	// /slow holds its answer for 2 s, past the timeout; /split answers in a few ms. So the
	// longest silence is one timeout (and its eighth of grace), half of StallAfter.
	const timeout = time.Second
	tg, err := target.Parse("awkward="+awkwardServer(t), target.Options{Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	reqs, err := tg.PrepareAll([]fixtures.Request{{Case: "slow", Method: "GET", Path: "/slow"}, {Case: "split", Method: "GET", Path: "/split"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range loopModes {
		t.Run(m.name, func(t *testing.T) {
			r, err := RunTrial(context.Background(), Trial{Clients: 1, Requests: 4, Cases: 2, Check: passAll, Loops: m.loops,
				StallAfter: 2 * timeout,
				Open: func(ctx context.Context, _ int) (target.Exchanger, error) {
					return tg.Open(ctx, target.LayerLean, reqs)
				}})
			if err != nil {
				t.Fatal(err)
			}
			if r.Stalled || r.Incomplete || r.Passed != 2 || r.Failures[target.ClassTimeout] != 2 {
				t.Errorf("stalled %v incomplete %v passed %d failures %v, want a complete trial of 2 passes and 2 timeouts",
					r.Stalled, r.Incomplete, r.Passed, r.Failures)
			}
		})
	}
}

// Without StallAfter a trial runs to its end whatever the target does, as before: the watch
// is the run's choice.
func TestRunTrialWithoutStallAfterRunsToTheEnd(t *testing.T) {
	const timeout = 10 * time.Millisecond
	tg, reqs := hungTarget(t, 0, timeout)
	r, err := RunTrial(context.Background(), Trial{Clients: 2, Requests: 6, Cases: 1, Check: passAll,
		Open: func(ctx context.Context, _ int) (target.Exchanger, error) {
			return tg.Open(ctx, target.LayerLean, reqs)
		}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Stalled || r.Failed != 6 || r.Incomplete {
		t.Errorf("stalled %v failed %d incomplete %v, want all 6 requests timed out", r.Stalled, r.Failed, r.Incomplete)
	}
}

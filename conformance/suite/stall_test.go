package suite_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/conform-dev/conform/conformance"
	"github.com/conform-dev/conform/conformance/readiness"
	"github.com/conform-dev/conform/conformance/suite"
	"github.com/conform-dev/conform/conformance/target"
	"github.com/conform-dev/conform/conformance/target/targettest"
	"github.com/conform-dev/conform/fixtures"
)

// hangingEngine serves the embedded engine with fx for answers requests, then hangs; the
// target has the given timeout.
func hangingEngine(t *testing.T, fx *fixtures.Fixtures, answers int, timeout time.Duration) (*target.Target, *targettest.Hang) {
	t.Helper()
	eng, err := suite.Engine(fx)
	if err != nil {
		t.Fatal(err)
	}
	h := targettest.NewHang(eng, answers)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	t.Cleanup(h.Release) // before srv.Close: cleanups run last first
	tg, err := target.Parse("gw="+srv.URL, target.Options{Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	return tg, h
}

// A target that stops answering mid-check stops the check after twice its timeout without a
// response, not after every remaining case has timed out: the Run holds the cases checked
// before, is marked incomplete, and the error is a *target.Stall naming the target. The
// server gives exactly 5 answers, so the first 5 cases pass whatever the timing.
func TestCheckStopsWhenTheTargetHangs(t *testing.T) {
	fx := smallFixtures(t)
	x := expect(t, fx)
	// Long enough for the engine's answers on a busy machine; the stall takes twice it.
	tg, _ := hangingEngine(t, fx, 5, 500*time.Millisecond)
	var last suite.Progress
	run, err := suite.Checker{Progress: func(p suite.Progress) { last = p }}.Check(context.Background(), tg, fx, x, nil, &conformance.Options{})
	var stall *target.Stall
	if !errors.As(err, &stall) || stall.Target != "gw" || stall.After != time.Second || stall.Last.IsZero() {
		t.Fatalf("error %v (%#v), want the stall of gw after 1s", err, stall)
	}
	if run == nil {
		t.Fatal("no run")
	}
	if run.Complete() || !strings.Contains(run.Incomplete, "target gw stopped answering") || run.Planned != 14 {
		t.Errorf("incomplete %q, planned %d", run.Incomplete, run.Planned)
	}
	if len(run.Cases) < 5 || len(run.Cases) >= run.Planned {
		t.Fatalf("%d cases checked of %d: want the 5 answered and a few timeouts, not all", len(run.Cases), run.Planned)
	}
	for i, o := range run.Cases {
		if i < 5 && !o.Pass() || i >= 5 && target.ClassOf(o.Fault) != target.ClassTimeout {
			t.Errorf("case %d (%s): pass %v, fault %v", i, o.Case.Name, o.Pass(), o.Fault)
		}
	}
	if run.Responded != 5 || last.Done != len(run.Cases) || last.Total != 14 || last.Failed != len(run.Cases)-5 {
		t.Errorf("responded %d, last progress %+v", run.Responded, last)
	}
}

// Readiness comes first: a silent target fails it within one timeout, and nothing is
// checked.
func TestCheckAsksReadinessFirst(t *testing.T) {
	fx := smallFixtures(t)
	x := expect(t, fx)
	tg, h := hangingEngine(t, fx, 0, 50*time.Millisecond)
	ready := func(ctx context.Context, t *target.Target) (readiness.Result, error) {
		do, err := t.Doer()
		if err != nil {
			return readiness.Result{}, err
		}
		_, _, err = do(ctx, "GET", "/", nil)
		return readiness.Result{}, err
	}
	run, err := suite.Checker{Ready: ready}.Check(context.Background(), tg, fx, x, nil, &conformance.Options{})
	if err == nil || !strings.HasPrefix(err.Error(), "target gw is not ready: ") || !strings.HasSuffix(err.Error(), "; none of the 14 cases was checked") {
		t.Fatalf("error %v", err)
	}
	if run == nil || len(run.Cases) != 0 || run.Complete() {
		t.Errorf("run %+v", run)
	}
	// The probe's request may not have reached the server when the client gave up on it; no
	// case's ever does.
	if h.Served() > 1 {
		t.Errorf("the target got %d requests, want only the readiness probe's", h.Served())
	}
}

// Cancelling a check (Ctrl-C) returns the cases checked so far, marked incomplete with the
// cancellation's cause; the case in flight counts for nothing.
func TestCheckInterruptedKeepsTheCasesDone(t *testing.T) {
	fx := smallFixtures(t)
	x := expect(t, fx)
	eng, err := suite.Engine(fx)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	h := targettest.NewHang(eng, 4)
	srv := httptest.NewServer(h)
	defer srv.Close()
	defer h.Release()
	tg, err := target.Parse("gw="+srv.URL, target.Options{Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	// The fifth case hangs for a minute; Ctrl-C comes when the fourth is checked.
	progress := func(p suite.Progress) {
		if p.Done == 4 {
			cancel(errors.New("interrupted (Ctrl-C)"))
		}
	}
	run, err := suite.Checker{Progress: progress}.Check(ctx, tg, fx, x, nil, &conformance.Options{})
	if err == nil || err.Error() != "interrupted (Ctrl-C), after 4 of 14 cases" {
		t.Fatalf("error %v", err)
	}
	if run == nil || len(run.Cases) != 4 || run.Incomplete != err.Error() || run.Failed != 0 || run.Responded != 4 {
		t.Errorf("run: %d cases, incomplete %q, failed %d, responded %d", len(run.Cases), run.Incomplete, run.Failed, run.Responded)
	}
}

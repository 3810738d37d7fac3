package suite

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/conform-dev/conform/conformance"
	"github.com/conform-dev/conform/conformance/readiness"
	"github.com/conform-dev/conform/conformance/target"
	"github.com/conform-dev/conform/fixtures"
	"github.com/conform-dev/conform/oracle"
)

// Outcome is one case's check: the request sent, the compiled expectation, and either the
// response and its check or the fault that left it without one.
type Outcome struct {
	Case    *fixtures.Case
	Request fixtures.Request
	Want    *conformance.Expectation
	Status  int
	Body    []byte
	Fault   error // no response; its text is scrubbed of credentials
	Result  conformance.Result
	Latency time.Duration
}

// Pass reports whether the case got a response that passed the check.
func (o *Outcome) Pass() bool { return o.Fault == nil && o.Result.Pass }

// Classes lists the failing classes of a case: a fault's class, or the check's failing
// classes in their stable order.
func (o *Outcome) Classes() []string {
	if o.Fault != nil {
		return []string{target.ClassOf(o.Fault)}
	}
	var out []string
	for _, c := range o.Result.FailingClasses() {
		out = append(out, string(c))
	}
	return out
}

// FaultText is a fault's message without the class its text starts with.
func (o *Outcome) FaultText() string {
	s := o.Fault.Error()
	if rest, ok := strings.CutPrefix(s, target.ClassOf(o.Fault)+": "); ok {
		return rest
	}
	return s
}

// FirstFailing is the first failing difference of a checked case, and how many more fail.
func (o *Outcome) FirstFailing() (*conformance.Difference, int) {
	var first *conformance.Difference
	n := 0
	for i := range o.Result.Diffs {
		if o.Result.Diffs[i].Fails {
			if first == nil {
				first = &o.Result.Diffs[i]
			}
			n++
		}
	}
	return first, n - 1
}

// Run is one strict pass over a workload against one target.
type Run struct {
	Target   *target.Target
	Oracle   string // the oracle's redacted name
	Options  *conformance.Options
	Fixtures *fixtures.Fixtures
	Cases    []*Outcome // workload order; only the cases checked, when the check stopped early
	// Failed counts the cases that did not pass; Responded those that got a response.
	Failed, Responded int
	Took              time.Duration
	// Planned is the number of cases the check was to make; Incomplete says why it made
	// only len(Cases) of them ("" when it made them all).
	Planned    int
	Incomplete string
	// Findings are what the readiness probe found wrong with the target without stopping
	// the check (Checker.Ready): each fails the check as a failing case does.
	Findings []readiness.Finding
	// Declined are the cases the oracle declined to answer (the embedded engine's
	// conform_unsupported_exception), in workload order: they were not sent, and need
	// --oracle live:URL or golden:FILE.
	Declined []Declined
}

// Declined is a case the oracle declined, and what it said.
type Declined struct {
	Case   *fixtures.Case
	Reason string
}

// DeclinedText says how many cases need another oracle, naming the first few and why, or ""
// when none does.
func DeclinedText(d []Declined) string {
	if len(d) == 0 {
		return ""
	}
	var b strings.Builder
	if len(d) == 1 {
		b.WriteString("1 case needs")
	} else {
		fmt.Fprintf(&b, "%d cases need", len(d))
	}
	them := "them, so they were"
	if len(d) == 1 {
		them = "it, so it was"
	}
	b.WriteString(" --oracle live:URL (an Elasticsearch holding the index) or --oracle golden:FILE: the embedded engine declines " + them + " not checked (")
	for i, x := range d {
		if i == 3 {
			fmt.Fprintf(&b, "; and %d more", len(d)-3)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s: %s", x.Case.Name, strings.TrimPrefix(x.Reason, "unsupported by conform's embedded engine: "))
	}
	b.WriteString(")")
	return b.String()
}

// DeclinedCases are the cases of ops (all when empty) that x declined, in workload order.
func DeclinedCases(f *fixtures.Fixtures, x *oracle.Expectations, ops []string) []Declined {
	var out []Declined
	for i := range f.Workload.Cases {
		c := &f.Workload.Cases[i]
		if len(ops) > 0 && !slices.Contains(ops, c.Op) {
			continue
		}
		if e := x.Get(c.Name); e != nil && x.IsDeclined(c.Name) {
			out = append(out, Declined{Case: c, Reason: oracle.DeclinedReason(e)})
		}
	}
	return out
}

// Passed reports whether the check passed: every planned case checked and passed, and no
// readiness finding.
func (r *Run) Passed() bool { return r.Complete() && r.Failed == 0 && len(r.Findings) == 0 }

// Complete reports whether every planned case was checked.
func (r *Run) Complete() bool { return r.Incomplete == "" }

// Progress is how far a check is: cases checked of those planned, and how many failed.
type Progress struct {
	Done, Total, Failed int
	Elapsed             time.Duration
}

// Checker is a check with its optional hooks; Check is a Checker with none.
type Checker struct {
	// Ready, when set, is asked before any case is sent (conform check passes
	// conformance/lab's probe, as conform run does); an error means the target is not
	// ready, and nothing is checked. Its findings are kept in the Run, and the cases run.
	Ready func(ctx context.Context, t *target.Target) (readiness.Result, error)
	// Progress, when set, is called after every case.
	Progress func(Progress)
	// StallAfter is how long the target may go without answering before the check stops
	// (0: twice the target's timeout): one timed-out case does not stop it, a target that
	// stopped answering does, whatever the cases left.
	StallAfter time.Duration
}

// Prepare makes case c's concrete request for target t and compiles its expectation: the
// cursor of an after case comes from the oracle's answer to the page it continues.
func Prepare(t *target.Target, x *oracle.Expectations, c *fixtures.Case) (fixtures.Request, *conformance.Expectation, error) {
	want := x.Get(c.Name)
	if want == nil {
		return fixtures.Request{}, nil, fmt.Errorf("the oracle has no expectation for %s", c.Name)
	}
	cursor, err := afterCursor(x, c)
	if err != nil {
		return fixtures.Request{}, nil, err
	}
	req, err := t.Request(c, x.Settings.Index, x.Settings.TrackTotalHits, cursor)
	if err != nil {
		return fixtures.Request{}, nil, err
	}
	exp, err := Compile(c, want)
	if err != nil {
		return fixtures.Request{}, nil, err
	}
	return req, exp.ForRequest(req.Body), nil
}

// Compile compiles the oracle's answer to case c: a captured case's answer may be of any kind
// (conformance.CompileAny), a built-in operation's must be JSON.
func Compile(c *fixtures.Case, want *oracle.Expected) (*conformance.Expectation, error) {
	compile := conformance.Compile
	if c.Captured() {
		compile = conformance.CompileAny
	}
	exp, err := compile(want.Status, want.Body)
	if err != nil {
		return nil, fmt.Errorf("case %s: the expected response is unusable: %w", c.Name, err)
	}
	return exp, nil
}

// OracleRequest is case c's request as the oracle of x was asked it, for a curl that asks it
// again: the oracle's index and track_total_hits, and for an after case the same cursor as
// Prepare's.
func OracleRequest(x *oracle.Expectations, c *fixtures.Case) (fixtures.Request, error) {
	cursor, err := afterCursor(x, c)
	if err != nil {
		return fixtures.Request{}, err
	}
	return c.Request(x.Settings.Index, x.Settings.TrackTotalHits, cursor)
}

// afterCursor is the search_after of an after case: the sort values of the last hit of the
// oracle's answer to the page it continues (nil for any other case).
func afterCursor(x *oracle.Expectations, c *fixtures.Case) ([]byte, error) {
	if c.After == "" {
		return nil, nil
	}
	page := x.Get(c.After)
	if page == nil {
		return nil, fmt.Errorf("case %s continues %s, which the oracle did not answer", c.Name, c.After)
	}
	cursor, err := oracle.Cursor(page)
	if err != nil {
		return nil, fmt.Errorf("case %s: %w", c.Name, err)
	}
	return cursor, nil
}

// Check sends every case of ops (all operations when ops is empty) once, in workload order,
// on one connection, and checks it; see Checker.Check.
func Check(ctx context.Context, t *target.Target, f *fixtures.Fixtures, x *oracle.Expectations, ops []string, opts *conformance.Options) (*Run, error) {
	return Checker{}.Check(ctx, t, f, x, ops, opts)
}

// Check sends every case of ops (all operations when ops is empty) once, in workload order,
// on one connection, and checks it. The expectations are compiled first, so an unusable one
// stops the check before any request; then the target's readiness is asked (c.Ready). A case
// that fails is a value in the Run; the error is for a check that could not be made, or
// that stopped early: cancelled (ctx's cause says why, and the exchange in flight is cut
// short) or because the target stopped answering (a *target.Stall). A check that stopped
// early still returns its Run, holding the cases checked before it stopped, with Incomplete
// saying why.
func (c Checker) Check(ctx context.Context, t *target.Target, f *fixtures.Fixtures, x *oracle.Expectations, ops []string, opts *conformance.Options) (*Run, error) {
	opts, err := opts.WithMapping(f.Mapping)
	if err != nil {
		return nil, err
	}
	run := &Run{Target: t, Oracle: x.Source, Options: opts, Fixtures: f, Declined: DeclinedCases(f, x, ops)}
	var reqs []fixtures.Request
	for i := range f.Workload.Cases {
		c := &f.Workload.Cases[i]
		if len(ops) > 0 && !slices.Contains(ops, c.Op) || x.IsDeclined(c.Name) {
			continue
		}
		req, exp, err := Prepare(t, x, c)
		if err != nil {
			return nil, err
		}
		reqs = append(reqs, req)
		run.Cases = append(run.Cases, &Outcome{Case: c, Request: req, Want: exp})
	}
	if len(reqs) == 0 {
		if len(run.Declined) > 0 {
			return nil, fmt.Errorf("nothing to check with oracle %s: %s", x.Source, DeclinedText(run.Declined))
		}
		return nil, errors.New("no cases to check")
	}
	run.Planned = len(run.Cases)
	prepared, err := t.PrepareAll(reqs)
	if err != nil {
		return nil, err
	}
	planned := run.Cases
	stop := func(i int, err error) (*Run, error) {
		run.Cases = planned[:i]
		if i == 0 {
			err = fmt.Errorf("%w; none of the %d cases was checked", err, len(planned))
		} else {
			err = fmt.Errorf("%w, after %d of %d cases", err, i, len(planned))
		}
		run.Incomplete = err.Error()
		return run, err
	}
	var last time.Time // the target's last response, to say since when it is silent
	if c.Ready != nil {
		rr, err := c.Ready(ctx, t)
		if err != nil {
			if ierr := target.Interruption(ctx); ierr != nil {
				err = fmt.Errorf("%w while asking whether target %s is ready", ierr, t.Name)
			} else {
				err = fmt.Errorf("target %s is not ready: %w", t.Name, t.Scrub(err))
			}
			return stop(0, err)
		}
		run.Findings = rr.Findings
		last = time.Now()
		// What readiness learnt of the target's index decides the relation rule at exactly
		// track_total_hits; without readiness nothing is known, and the rule allows more.
		opts = opts.WithIndex(rr.Index)
		run.Options = opts
	}
	// Nothing is timed here, so the cases go through go-elasticsearch's transport (over one
	// lean keep-alive connection, whose faults are classified as on the timed path).
	conn, err := t.Open(ctx, target.LayerLeanTransport, prepared)
	if err != nil {
		return nil, fmt.Errorf("target %s: %w", t.Name, t.Scrub(err))
	}
	defer conn.Close()
	stopNow := context.AfterFunc(ctx, conn.Interrupt)
	defer stopNow()
	after := c.StallAfter
	if after <= 0 {
		after = 2 * t.Timeout
	}
	var answers atomic.Int64
	var stalled atomic.Bool
	watched := make(chan struct{})
	defer close(watched)
	if after > 0 {
		go target.Watch(after, answers.Load, watched, func() {
			stalled.Store(true)
			conn.Interrupt()
		})
	}
	start := time.Now()
	for i, o := range run.Cases {
		ex, err := conn.Exchange(i)
		if ierr := target.Interruption(ctx); ierr != nil {
			run.Took = time.Since(start)
			return stop(i, ierr)
		}
		if stalled.Load() {
			run.Took = time.Since(start)
			return stop(i, &target.Stall{Target: t.Name, Last: last, After: after, Timeout: t.Timeout})
		}
		if errors.Is(err, target.ErrInterrupted) {
			run.Took = time.Since(start)
			return stop(i, errors.New("interrupted"))
		}
		if err != nil {
			o.Fault = t.Scrub(err)
			run.Failed++
		} else {
			answers.Add(1)
			last = ex.End
			run.Responded++
			o.Status, o.Body, o.Latency = ex.Status, append([]byte(nil), ex.Body...), ex.Latency()
			o.Result = o.Want.Check(ex.Status, ex.Body, opts)
			if !o.Result.Pass {
				run.Failed++
			}
		}
		if c.Progress != nil {
			c.Progress(Progress{Done: i + 1, Total: len(planned), Failed: run.Failed, Elapsed: time.Since(start)})
		}
	}
	run.Took = time.Since(start)
	return run, nil
}

// OpRow counts one operation's cases: how many passed, and the failing ones by class.
type OpRow struct {
	Cases, Passed int
	Classes       map[string]int
}

// ByOp counts the cases by operation, the operations in fixtures.Ops order.
func (r *Run) ByOp() (ops []string, rows map[string]*OpRow) {
	rows = map[string]*OpRow{}
	for _, o := range r.Cases {
		row := rows[o.Case.Op]
		if row == nil {
			row = &OpRow{Classes: map[string]int{}}
			rows[o.Case.Op] = row
			ops = append(ops, o.Case.Op)
		}
		row.Cases++
		if o.Pass() {
			row.Passed++
			continue
		}
		for _, c := range o.Classes() {
			row.Classes[c]++
		}
	}
	sort.SliceStable(ops, func(i, j int) bool { return opIndex(ops[i]) < opIndex(ops[j]) })
	return ops, rows
}

func opIndex(op string) int {
	if i := slices.Index(fixtures.Ops, op); i >= 0 {
		return i
	}
	return len(fixtures.Ops)
}

// ReportedOnly counts, by class, the cases with differences that were reported but did not
// fail (key order, scores under a field sort, versions, ...).
func (r *Run) ReportedOnly() map[string]int {
	results := make([]conformance.Result, len(r.Cases))
	for i, o := range r.Cases {
		results[i] = o.Result
	}
	return ReportedOnly(results)
}

// ReportedOnly counts, by class, the results with differences that were reported but did not
// fail; a result counts once per class.
func ReportedOnly(results []conformance.Result) map[string]int {
	out := map[string]int{}
	for _, res := range results {
		seen := map[conformance.Class]bool{}
		for _, d := range res.Diffs {
			if !d.Fails && !seen[d.Class] {
				seen[d.Class] = true
				out[string(d.Class)]++
			}
		}
	}
	return out
}

// Failing lists the cases that did not pass, in workload order.
func (r *Run) Failing() []*Outcome {
	var out []*Outcome
	for _, o := range r.Cases {
		if !o.Pass() {
			out = append(out, o)
		}
	}
	return out
}

// One sends one prepared case once, untimed, through go-elasticsearch's transport over a
// lean connection (as Check does), and checks the response under opts. A request that gets
// no response is an Outcome with its Fault, scrubbed of credentials; the error is for a
// request that could not be sent at all.
func One(ctx context.Context, t *target.Target, c *fixtures.Case, req fixtures.Request, want *conformance.Expectation, opts *conformance.Options) (*Outcome, error) {
	prepared, err := t.Prepare(req)
	if err != nil {
		return nil, err
	}
	conn, err := t.Open(ctx, target.LayerLeanTransport, []*target.Prepared{prepared})
	if err != nil {
		return nil, fmt.Errorf("target %s: %w", t.Name, t.Scrub(err))
	}
	defer conn.Close()
	o := &Outcome{Case: c, Request: req, Want: want}
	ex, err := conn.Exchange(0)
	if err != nil {
		o.Fault = t.Scrub(err)
		return o, nil
	}
	o.Status, o.Body, o.Latency = ex.Status, append([]byte(nil), ex.Body...), ex.Latency()
	o.Result = want.Check(ex.Status, ex.Body, opts)
	return o, nil
}

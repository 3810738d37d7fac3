package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/conform-dev/conform/conformance"
	"github.com/conform-dev/conform/conformance/readiness"
	"github.com/conform-dev/conform/conformance/report"
	"github.com/conform-dev/conform/conformance/stats"
	"github.com/conform-dev/conform/conformance/target"
	"github.com/conform-dev/conform/fixtures"
	"github.com/conform-dev/conform/internal/excerpt"
	"github.com/conform-dev/conform/oracle"

	"github.com/tidwall/gjson"
)

// Methodology names how conform measures: closed-loop clients with one keep-alive connection
// each; requests shared among the clients; warmup requests checked and never timed; the timer
// spans writing the request to reading the last byte of the body; only passing responses are
// timed, and the check runs after the timer stops on the client's own goroutine; targets are
// interleaved and rotated for every trial, operation and concurrency level. It is recorded
// with every result, and results with different tags are never combined: change it whenever
// a change to the runner could move a measured figure.
const Methodology = "conform-closed-loop/1"

// Settings are a run's settings.
type Settings struct {
	Ops     []string
	Clients []int
	// Requests is the number of measured requests per trial, shared among the clients.
	Requests int
	Trials   int
	// Warmup requests precede each trial; they are checked, never timed.
	Warmup         int
	TrackTotalHits fixtures.TotalHits
	Timeout        time.Duration
	Check          *conformance.Options
	// Keep is how many failures of each class a trial keeps whole (0: DefaultKeep).
	Keep int
	// Layer is how timed requests are sent (the zero value is target.LayerLean, conform's
	// lean path). It is recorded with the results: runs on different layers are not combined.
	Layer target.Layer
}

// ParseClients reads a comma-separated list of concurrency levels, such as "1,8". Spaces
// around a level are ignored; each must be a positive integer. Whether a level fits the
// requests is Validate's question.
func ParseClients(s string) ([]int, error) {
	var out []int
	for _, c := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(c))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q is not a positive integer", c)
		}
		out = append(out, n)
	}
	return out, nil
}

// Validate reports settings no run can use.
func (s Settings) Validate() error {
	switch {
	case len(s.Ops) == 0:
		return errors.New("no operations to run")
	case len(s.Clients) == 0:
		return errors.New("no concurrency levels to run")
	case s.Requests < 1:
		return fmt.Errorf("requests must be at least 1, not %d", s.Requests)
	case s.Trials < 1:
		return fmt.Errorf("trials must be at least 1, not %d", s.Trials)
	case s.Warmup < 0:
		return fmt.Errorf("warmup must not be negative, not %d", s.Warmup)
	}
	for _, n := range s.Clients {
		if n < 1 {
			return fmt.Errorf("a concurrency level must be at least 1, not %d", n)
		}
		if n > s.Requests {
			return fmt.Errorf("%d clients cannot share %d requests: every client needs one", n, s.Requests)
		}
	}
	return s.Check.Validate()
}

// Report converts the settings for results.json.
func (s Settings) Report(index string) report.Settings {
	check := s.Check.Names()
	if len(check) == 0 {
		check = []string{"strict"}
	}
	return report.Settings{Ops: s.Ops, Clients: s.Clients, Requests: s.Requests, Trials: s.Trials, Warmup: s.Warmup,
		TrackTotalHits: string(s.TrackTotalHits), Timeout: s.Timeout.String(), Index: index, Check: check, Layer: s.Layer.String()}
}

// Suite is what every run of a workload shares, built once before any timing: the cases of
// each operation with their oracle requests and compiled expectations.
type Suite struct {
	Fixtures *fixtures.Fixtures
	Expect   *oracle.Expectations
	ops      map[string]*opSuite
	// Declined counts, by operation, the cases the oracle declined to answer (the embedded
	// engine's conform_unsupported_exception): they are left out of the run, and an
	// operation all of whose cases were declined is left out of Ops.
	Declined map[string]int
	// Ops are the operations the suite runs, in the order asked.
	Ops []string
}

type opSuite struct {
	cases   []*fixtures.Case
	expects []*oracle.Expected
	checks  []*conformance.Expectation
	// cursors holds an after case's search_after, taken from its page's expected answer.
	cursors [][]byte
}

// NewSuite compiles the expectations of the given operations. An operation without cases is
// an error: a run would report nothing for it. The cases the oracle declined are left out
// and counted (Declined); an operation of declined cases alone is left out of Ops, and a
// suite with no operation left is an error.
func NewSuite(f *fixtures.Fixtures, x *oracle.Expectations, ops []string) (*Suite, error) {
	s := &Suite{Fixtures: f, Expect: x, ops: map[string]*opSuite{}, Declined: map[string]int{}}
	for _, op := range ops {
		o := &opSuite{}
		for i := range f.Workload.Cases {
			c := &f.Workload.Cases[i]
			if c.Op != op {
				continue
			}
			e := x.Get(c.Name)
			if e == nil {
				return nil, fmt.Errorf("the oracle has no expectation for case %s", c.Name)
			}
			if x.IsDeclined(c.Name) {
				s.Declined[op]++
				continue
			}
			compile := conformance.Compile
			if c.Captured() {
				compile = conformance.CompileAny
			}
			chk, err := compile(e.Status, e.Body)
			if err != nil {
				return nil, fmt.Errorf("case %s: the expected response is unusable: %w", c.Name, err)
			}
			chk.ForRequest(e.Request.Body)
			var cursor []byte
			if c.After != "" {
				page := x.Get(c.After)
				if page == nil {
					return nil, fmt.Errorf("case %s continues %s, which the oracle did not answer", c.Name, c.After)
				}
				if cursor, err = oracle.Cursor(page); err != nil {
					return nil, fmt.Errorf("case %s: %w", c.Name, err)
				}
			}
			o.cases, o.expects, o.checks, o.cursors = append(o.cases, c), append(o.expects, e), append(o.checks, chk), append(o.cursors, cursor)
		}
		if len(o.cases) == 0 {
			if s.Declined[op] > 0 {
				continue
			}
			return nil, fmt.Errorf("the workload has no %s cases", op)
		}
		s.ops[op] = o
		s.Ops = append(s.Ops, op)
	}
	if len(s.Ops) == 0 {
		return nil, fmt.Errorf("nothing to run with oracle %s: %s", x.Source, s.DeclinedNote())
	}
	return s, nil
}

// DeclinedNote says how many cases the oracle declined and what they need, by operation, or
// "" when it declined none.
func (s *Suite) DeclinedNote() string {
	n := 0
	var parts []string
	for _, op := range sortedOps(s.Declined) {
		n += s.Declined[op]
		left := "its other cases run"
		if s.ops[op] == nil {
			left = "left out of the run"
		}
		parts = append(parts, fmt.Sprintf("%s %d, %s", op, s.Declined[op], left))
	}
	if n == 0 {
		return ""
	}
	need := fmt.Sprintf("%d cases need", n)
	if n == 1 {
		need = "1 case needs"
	}
	return fmt.Sprintf("%s --oracle live:URL (an Elasticsearch holding the index) or --oracle golden:FILE: the embedded engine declines them (%s)", need, strings.Join(parts, "; "))
}

func sortedOps(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for op := range m {
		out = append(out, op)
	}
	sort.Strings(out)
	return out
}

// Cases returns how many cases an operation has in the suite.
func (s *Suite) Cases(op string) int {
	if o := s.ops[op]; o != nil {
		return len(o.cases)
	}
	return 0
}

// Requests returns an operation's requests as they go to target t, in case order (what the
// timed path sends), and Check returns their strict check: what a run times and checks,
// for a measurement of the runner itself (conformance/runner/overhead).
func (s *Suite) Requests(t *target.Target, op string) ([]fixtures.Request, error) {
	if s.ops[op] == nil {
		return nil, fmt.Errorf("the suite has no %s cases", op)
	}
	return s.requests(t, op)
}

// Check is the check a run applies to every response of op's cases (see Requests).
func (s *Suite) Check(op string, opts *conformance.Options) Check { return s.check(op, opts) }

// requests builds an operation's requests for one target (its index override applied).
func (s *Suite) requests(t *target.Target, op string) ([]fixtures.Request, error) {
	o := s.ops[op]
	out := make([]fixtures.Request, len(o.cases))
	for i, c := range o.cases {
		r, err := t.Request(c, s.Expect.Settings.Index, s.Expect.Settings.TrackTotalHits, o.cursors[i])
		if err != nil {
			return nil, err
		}
		out[i] = r
	}
	return out, nil
}

// check returns the runner's check for an operation's cases. A passing check allocates
// nothing; the differences are kept as the verdict's detail only on failure.
func (s *Suite) check(op string, opts *conformance.Options) Check {
	checks := s.ops[op].checks
	if o, err := opts.WithMapping(s.Fixtures.Mapping); err == nil {
		// The request-aware relaxations need the field types; a mapping that does not read
		// leaves them excusing nothing, and the load of the same mapping reports it.
		opts = o
	}
	return func(i, status int, body []byte) Verdict {
		res := checks[i].Check(status, body, opts)
		if res.Pass {
			return Verdict{Pass: true}
		}
		return Verdict{Classes: classNames(res.FailingClasses()), Detail: res.Diffs}
	}
}

func classNames(cs []conformance.Class) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = string(c)
	}
	return out
}

// Ready reports a target's identity, readiness facts and findings before timing (GET /,
// document count, mapping, corpus fingerprint, a backend's state). An error means the target
// is not ready and nothing can be measured on it; a finding is recorded and the run goes on.
type Ready func(ctx context.Context, t *target.Target) (readiness.Result, error)

// Event is a progress report.
type Event struct {
	Trial, Trials int
	Op            string
	Clients       int
	Target        string
	Done, Total   int // steps (target trials) finished and planned
	Passed        int
	Failed        int
}

// Run is one timed run: every target through every trial, operation and concurrency level.
type Run struct {
	Settings Settings
	Suite    *Suite
	Targets  []*target.Target
	// Ready checks each target before timing; nil uses GETRoot.
	Ready Ready
	// OnTrial is called after every trial with the results so far (complete: false), for
	// example to rewrite results.json, so an interrupted run leaves what it measured.
	OnTrial func(*report.Results) error
	// Progress, when set, receives an event after every target trial.
	Progress func(Event)
	// Now is the clock for timestamps (default time.Now).
	Now func() time.Time
	// Rotation offsets the rotation of targets, so an experiment's rounds do not all start
	// with the same target.
	Rotation int

	cells map[[3]any]*cellState
}

// Samples returns the latencies of a cell's passing responses over every trial, after
// Execute.
func (r *Run) Samples(target, op string, clients int) []time.Duration {
	if cs := r.cells[[3]any{target, op, clients}]; cs != nil {
		return cs.latencies
	}
	return nil
}

// cellState accumulates one cell's trials and passing latencies.
type cellState struct {
	cell      *report.Cell
	trials    []stats.Trial
	latencies []time.Duration
}

// Execute runs the plan and returns its results. A cancelled context or a target that stays
// down ends the run early: the results then hold every finished trial, Complete is false,
// Incomplete says why, and the error is returned alongside them.
func (r *Run) Execute(ctx context.Context) (*report.Results, error) {
	now := r.Now
	if now == nil {
		now = time.Now
	}
	if err := r.Settings.Validate(); err != nil {
		return nil, err
	}
	if len(r.Targets) == 0 {
		return nil, errors.New("no targets")
	}
	s := r.Suite
	res := &report.Results{
		Format: report.ResultsFormat, Methodology: Methodology, StartedAt: now().UTC(),
		Settings: r.Settings.Report(s.Expect.Settings.Index),
		Fixtures: FixturesInfo(s.Fixtures),
		Oracle:   report.Oracle{Source: s.Expect.Source, SHA256: s.Expect.Hash()},
		Failures: []report.Failure{},
		Order:    []report.OrderEntry{},
	}
	for _, w := range s.Expect.Warnings() {
		res.Warnings = append(res.Warnings, "oracle: "+w)
	}

	// Before timing: prepared requests and readiness for every target.
	prepared := make([]map[string][]*target.Prepared, len(r.Targets))
	for ti, t := range r.Targets {
		res.Targets = append(res.Targets, report.Target{Name: t.Name, URL: t.Redacted()})
		for _, w := range t.Warnings() {
			res.Warnings = append(res.Warnings, fmt.Sprintf("target %s: %s", t.Name, w))
		}
		prepared[ti] = map[string][]*target.Prepared{}
		for _, op := range r.Settings.Ops {
			reqs, err := s.requests(t, op)
			if err != nil {
				return nil, fmt.Errorf("target %s: %w", t.Name, err)
			}
			if prepared[ti][op], err = t.PrepareAll(reqs); err != nil {
				return nil, fmt.Errorf("target %s: %w", t.Name, err)
			}
		}
	}
	// lastAnswer is when each target last answered, to say since when one stopped.
	lastAnswer := make([]time.Time, len(r.Targets))
	// Each target's check knows what its readiness learnt of its index (the relation rule at
	// exactly track_total_hits needs its deleted documents and multi-valued fields).
	checkOpts := make([]*conformance.Options, len(r.Targets))
	for ti, t := range r.Targets {
		rr, warn, err := r.ready(ctx, t, prepared[ti])
		if err != nil {
			// Nothing was timed, but the results say why, with the probes of the targets that
			// were ready, so a CI job keeps the evidence.
			err = fmt.Errorf("target %s is not ready: %w", t.Name, t.Scrub(err))
			if ierr := target.Interruption(ctx); ierr != nil {
				err = fmt.Errorf("%w while asking whether target %s is ready", ierr, t.Name)
			}
			res.Incomplete, res.FinishedAt = err.Error(), now().UTC()
			return res, err
		}
		res.Targets[ti].Identity, res.Targets[ti].Probes = rr.Identity, rr.Probes
		checkOpts[ti] = r.Settings.Check.WithIndex(rr.Index)
		res.Findings = append(res.Findings, rr.Findings...)
		lastAnswer[ti] = time.Now() // readiness ended with a response through the timed path
		if warn != nil {
			res.Warnings = append(res.Warnings, fmt.Sprintf("target %s: readiness case %s did not pass the check (%s); the run goes on and counts every failure",
				t.Name, warn.Case, warn.Class))
			res.Failures = append(res.Failures, *warn)
		}
	}

	cells := map[[3]any]*cellState{}
	r.cells = cells
	for _, op := range r.Settings.Ops {
		for _, n := range r.Settings.Clients {
			for _, t := range r.Targets {
				res.Cells = append(res.Cells, report.Cell{Target: t.Name, Op: op, Clients: n, FailuresByClass: map[string]int{}, Trials: []report.Trial{}})
			}
		}
	}
	for i := range res.Cells {
		c := &res.Cells[i]
		cells[[3]any{c.Target, c.Op, c.Clients}] = &cellState{cell: c}
	}
	kept := map[[2]string]int{} // (target, class) -> failures kept
	keep := r.Settings.Keep
	if keep == 0 {
		keep = DefaultKeep
	}

	total := r.Settings.Trials * len(r.Settings.Ops) * len(r.Settings.Clients) * len(r.Targets)
	done, block := 0, r.Rotation
	finish := func(reason string) {
		res.FinishedAt = now().UTC()
		res.Complete = reason == ""
		res.Incomplete = reason
		finalizeHistograms(res, cells)
	}
	for trial := 1; trial <= r.Settings.Trials; trial++ {
		for _, op := range r.Settings.Ops {
			for _, n := range r.Settings.Clients {
				order := rotate(len(r.Targets), block)
				block++
				entry := report.OrderEntry{Trial: trial, Op: op, Clients: n}
				for _, ti := range order {
					entry.Targets = append(entry.Targets, r.Targets[ti].Name)
				}
				res.Order = append(res.Order, entry)
				for _, ti := range order {
					t := r.Targets[ti]
					if err := target.Interruption(ctx); err != nil {
						finish(fmt.Sprintf("%v before %s on %s", err, where(op, n, trial), t.Name))
						return res, err
					}
					started := now().UTC()
					tr, err := RunTrial(ctx, Trial{
						Clients: n, Warmup: r.Settings.Warmup, Requests: r.Settings.Requests,
						Cases: len(prepared[ti][op]), Keep: keep, Check: s.check(op, checkOpts[ti]),
						Open: func(ctx context.Context, _ int) (target.Exchanger, error) {
							return t.Open(ctx, r.Settings.Layer, prepared[ti][op])
						},
						StallAfter: 2 * t.Timeout,
					})
					if err != nil {
						reason := fmt.Sprintf("target %s stopped answering (%s): %v", t.Name, where(op, n, trial), t.Scrub(err))
						if ierr := target.Interruption(ctx); ierr != nil {
							reason = fmt.Sprintf("%v in %s on %s", ierr, where(op, n, trial), t.Name)
						}
						finish(reason)
						return res, errors.New(reason)
					}
					if !tr.LastResponse.IsZero() {
						lastAnswer[ti] = tr.LastResponse
					}
					// A trial cut short before its first measured response measured nothing: the
					// cell does not get an empty trial.
					if !tr.Incomplete || tr.Passed+tr.Failed > 0 {
						if err := cells[[3]any{t.Name, op, n}].add(trial, started, tr); err != nil {
							return res, err
						}
					}
					for _, f := range tr.Kept {
						for _, class := range f.Classes {
							k := [2]string{t.Name, class}
							if kept[k] >= keep {
								continue
							}
							kept[k]++
							res.Failures = append(res.Failures, keptFailure(t, op, n, trial, class, prepared[ti][op][f.Case], f))
							break
						}
					}
					if tr.Stalled && target.Interruption(ctx) == nil {
						stall := &target.Stall{Target: t.Name, Last: lastAnswer[ti], After: 2 * t.Timeout, Timeout: t.Timeout}
						reason := fmt.Sprintf("%v (in %s, cut short after %s)", stall, where(op, n, trial), progressText(tr, r.Settings))
						finish(reason)
						if r.OnTrial != nil {
							r.OnTrial(res)
						}
						return res, errors.New(reason)
					}
					if down(tr) {
						reason := fmt.Sprintf("target %s stopped answering (%s): every measured request failed with %s",
							t.Name, where(op, n, trial), strings.Join(sortedClasses(tr.Failures), ", "))
						finish(reason)
						if r.OnTrial != nil {
							r.OnTrial(res)
						}
						return res, errors.New(reason)
					}
					done++
					if r.Progress != nil {
						r.Progress(Event{Trial: trial, Trials: r.Settings.Trials, Op: op, Clients: n, Target: t.Name,
							Done: done, Total: total, Passed: tr.Passed, Failed: tr.Failed})
					}
					if tr.Incomplete {
						ierr := target.Interruption(ctx)
						if ierr == nil {
							ierr = errors.New("interrupted")
						}
						finish(fmt.Sprintf("%v in %s on %s, after %s", ierr, where(op, n, trial), t.Name, progressText(tr, r.Settings)))
						if r.OnTrial != nil {
							r.OnTrial(res)
						}
						return res, ierr
					}
					if r.OnTrial != nil {
						if err := r.OnTrial(res); err != nil {
							return res, fmt.Errorf("writing results: %w", err)
						}
					}
				}
			}
		}
	}
	finish("")
	return res, nil
}

// where names a trial of a run in its messages: "trial 2 of get at 8 clients".
func where(op string, clients, trial int) string {
	return fmt.Sprintf("trial %d of %s at %s", trial, op, report.Plural(clients, "client"))
}

// progressText says how far a cut-short trial got: "7 of 200 measured requests", or
// "12 of 40 warmup requests" when it stopped before measuring.
func progressText(tr *Result, s Settings) string {
	if w := tr.WarmupPassed + tr.WarmupFailed; w < s.Warmup && tr.Passed+tr.Failed == 0 {
		return fmt.Sprintf("%d of %d warmup requests", w, s.Warmup)
	}
	return fmt.Sprintf("%d of %d measured requests", tr.Passed+tr.Failed, s.Requests)
}

// ready waits for nothing: it asks once. The caller decides how long to wait for a target
// (an experiment waits after a switch); a run expects its targets up.
func (r *Run) ready(ctx context.Context, t *target.Target, prepared map[string][]*target.Prepared) (readiness.Result, *report.Failure, error) {
	readyFn := r.Ready
	if readyFn == nil {
		readyFn = GETRoot
	}
	rr, err := readyFn(ctx, t)
	if err != nil {
		return readiness.Result{}, nil, err
	}
	// One case through the timed path: the first case of the first operation must come back
	// (any status) on a fresh connection; if it does not pass the check, say so.
	op := r.Settings.Ops[0]
	x, err := t.Open(ctx, r.Settings.Layer, prepared[op])
	if err != nil {
		return readiness.Result{}, nil, err
	}
	defer x.Close()
	ex, err := x.Exchange(0)
	if err != nil {
		return readiness.Result{}, nil, err
	}
	v := r.Suite.check(op, r.Settings.Check.WithIndex(rr.Index))(0, ex.Status, ex.Body)
	if v.Pass {
		return rr, nil, nil
	}
	f := keptFailure(t, op, 1, 0, strings.Join(v.Classes, ","), prepared[op][0],
		Failure{Case: 0, Classes: v.Classes, Status: ex.Status, Body: append([]byte(nil), ex.Body...), Detail: v.Detail})
	f.Phase = report.PhaseReadiness
	return rr, &f, nil
}

// GETRoot is the minimal readiness check: GET / must answer, and its answer is recorded as
// the target's identity. A 200 whose body is not Elasticsearch's (not a JSON object with
// version.number) is a finding. Where GET / is not served, the local node's info stands in;
// with neither, the target is not ready.
func GETRoot(ctx context.Context, t *target.Target) (readiness.Result, error) {
	tp, err := t.Transport()
	if err != nil {
		return readiness.Result{}, err
	}
	req, err := newRequest(ctx, "GET", "/", nil)
	if err != nil {
		return readiness.Result{}, err
	}
	resp, err := tp.Perform(req)
	if err != nil {
		return readiness.Result{}, err
	}
	body, err := readAll(resp)
	if err != nil {
		return readiness.Result{}, err
	}
	if resp.StatusCode == 200 {
		if gjson.ValidBytes(body) && gjson.GetBytes(body, "version.number").String() != "" {
			return readiness.Result{Identity: json.RawMessage(body)}, nil
		}
		line := excerpt.Line(body)
		ident, _ := json.Marshal(map[string]string{"not_elasticsearch": line})
		return readiness.Result{Identity: ident, Findings: []readiness.Finding{{Target: t.Name, Kind: readiness.KindIdentity,
			Summary: "GET / answered 200 with a body that is not Elasticsearch's (no JSON object with version.number): " + line}}}, nil
	}
	// Elasticsearch's integration-test distribution serves no GET / (no rest-root module); the
	// local node's info says the same and proves the target answers.
	if nodes, ok := getJSON(ctx, tp, oracle.NodesIdentityPath); ok {
		ident, _ := json.Marshal(map[string]any{"via": fmt.Sprintf("GET /_nodes/_local (GET / answered HTTP %d)", resp.StatusCode),
			"nodes": json.RawMessage(nodes)})
		return readiness.Result{Identity: ident}, nil
	}
	return readiness.Result{}, fmt.Errorf("GET / answered HTTP %d: %s", resp.StatusCode, excerpt.Line(body))
}

// getJSON is a GET that answered 200 with JSON.
func getJSON(ctx context.Context, tp interface {
	Perform(*http.Request) (*http.Response, error)
}, path string) ([]byte, bool) {
	req, err := newRequest(ctx, "GET", path, nil)
	if err != nil {
		return nil, false
	}
	resp, err := tp.Perform(req)
	if err != nil {
		return nil, false
	}
	body, err := readAll(resp)
	if err != nil || resp.StatusCode != 200 || !json.Valid(body) {
		return nil, false
	}
	return body, true
}

// add folds one trial into the cell.
func (cs *cellState) add(trial int, started time.Time, tr *Result) error {
	failures := map[string]int{}
	for k, v := range tr.Failures {
		failures[k] = v
	}
	st, err := stats.SummarizeTrial(stats.TrialData{Latencies: tr.Latencies, Wall: tr.Wall, Failed: tr.Failed, Failures: failures})
	if err != nil {
		return err
	}
	cs.latencies = append(cs.latencies, tr.Latencies...)
	rt := report.Trial{Trial: trial, StartedAt: started, WallMs: ms(tr.Wall), ThroughputRPS: st.Throughput,
		Passed: st.Passed, Failed: st.Failed, FailuresByClass: failures,
		WarmupFailed: tr.WarmupFailed, Incomplete: tr.Incomplete, ClientCPU: clientCPU(tr)}
	if st.HasLatency() {
		rt.P50Ms, rt.P95Ms, rt.P99Ms = report.Millis(ms(st.P50)), report.Millis(ms(st.P95)), report.Millis(ms(st.P99))
		rt.MeanMs, rt.MaxMs = report.Millis(ms(st.Mean)), report.Millis(ms(st.Max))
	}
	return cs.push(st, rt)
}

// clientCPU is the process's CPU time per measured response over the trial, nil when it was
// not read or nothing was measured.
func clientCPU(tr *Result) *report.CPU {
	n := tr.Passed + tr.Failed
	if n == 0 || tr.UserCPU+tr.SysCPU <= 0 {
		return nil
	}
	us := func(d time.Duration) float64 { return math.Round(float64(d)/float64(n)/10) / 100 }
	return &report.CPU{UserUs: us(tr.UserCPU), SysUs: us(tr.SysCPU)}
}

// addSummary folds in a trial already summarised (merging an experiment's rounds).
func (cs *cellState) addSummary(t report.Trial) error {
	d := func(v *float64) time.Duration {
		if v == nil {
			return 0
		}
		return time.Duration(*v * float64(time.Millisecond))
	}
	st := stats.Trial{P50: d(t.P50Ms), P95: d(t.P95Ms), P99: d(t.P99Ms), Mean: d(t.MeanMs), Max: d(t.MaxMs),
		Throughput: t.ThroughputRPS, Passed: t.Passed, Failed: t.Failed, Failures: t.FailuresByClass}
	return cs.push(st, t)
}

// push appends a trial and recomputes the cell's summary over all its trials.
func (cs *cellState) push(st stats.Trial, t report.Trial) error {
	cs.trials = append(cs.trials, st)
	c := cs.cell
	c.Trials = append(c.Trials, t)
	sum, err := stats.SummarizeCell(cs.trials)
	if err != nil {
		return err
	}
	c.MedianP50Ms, c.P50RangeMs, c.MedianP95Ms = nil, nil, nil
	if sum.LatencyTrials > 0 {
		c.MedianP50Ms, c.P50RangeMs = report.Millis(ms(sum.P50)), &[2]float64{ms(sum.P50Min), ms(sum.P50Max)}
		c.MedianP95Ms = report.Millis(ms(sum.P95))
	}
	c.MedianThroughputRPS = sum.Throughput
	c.Passed, c.Failed = sum.Passed, sum.Failed
	c.FailuresByClass = map[string]int{}
	for k, v := range sum.Failures {
		c.FailuresByClass[k] = v
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// histogramBins is the number of log-spaced bins of a cell's latency distribution.
const histogramBins = 40

// finalizeHistograms draws every cell of an operation and concurrency level over the same
// bins, so the report's charts compare targets on one axis.
func finalizeHistograms(res *report.Results, cells map[[3]any]*cellState) {
	type group struct {
		op      string
		clients int
	}
	lo, hi := map[group]time.Duration{}, map[group]time.Duration{}
	for _, cs := range cells {
		g := group{cs.cell.Op, cs.cell.Clients}
		for _, l := range cs.latencies {
			if v, ok := lo[g]; !ok || l < v {
				lo[g] = l
			}
			if l > hi[g] {
				hi[g] = l
			}
		}
	}
	for _, cs := range cells {
		g := group{cs.cell.Op, cs.cell.Clients}
		if len(cs.latencies) == 0 || hi[g] <= lo[g] {
			cs.cell.Histogram = nil
			continue
		}
		h, err := stats.LogHistogramRange(cs.latencies, lo[g], hi[g], histogramBins)
		if err != nil {
			continue
		}
		rh := &report.Histogram{}
		for i, b := range h.Bins {
			if i == 0 {
				rh.EdgesMs = append(rh.EdgesMs, ms(b.Lo))
			}
			rh.EdgesMs = append(rh.EdgesMs, ms(b.Hi))
			rh.Counts = append(rh.Counts, b.Count)
		}
		cs.cell.Histogram = rh
	}
}

// rotate returns 0..n-1 rotated by k, so no target always runs first.
func rotate(n, k int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = (i + k) % n
	}
	return out
}

// maxKeptBody bounds a kept failure's body in results.json.
const maxKeptBody = 64 << 10

func keptFailure(t *target.Target, op string, clients, trial int, class string, p *target.Prepared, f Failure) report.Failure {
	out := report.Failure{Target: t.Name, Op: op, Clients: clients, Trial: trial, Case: p.Case, Class: class,
		Method: p.Method, Path: p.Path, Request: string(p.Body), Status: f.Status}
	body := f.Body
	if len(body) > maxKeptBody {
		out.Body = string(body[:maxKeptBody]) + fmt.Sprintf("… (%d bytes in all)", len(body))
	} else {
		out.Body = string(body)
	}
	switch d := f.Detail.(type) {
	case []conformance.Difference:
		for _, x := range d {
			out.Diffs = append(out.Diffs, report.Difference{Class: string(x.Class), Path: x.Path, Want: x.Want, Got: x.Got, Fails: x.Fails})
		}
	case error:
		out.Error = t.Scrub(d).Error()
	case nil:
	default:
		out.Error = fmt.Sprint(d)
	}
	out.Phase = report.PhaseTrial
	if f.Warmup {
		out.Phase = report.PhaseWarmup
	}
	return out
}

// FixturesInfo describes fixtures for results and manifests.
func FixturesInfo(f *fixtures.Fixtures) report.Fixtures {
	src := "built-in default"
	if f.Dir != "" {
		src = f.Dir
	}
	cases := map[string]int{}
	for k, v := range f.Meta.Cases {
		cases[k] = v
	}
	return report.Fixtures{Source: src, Generator: f.Meta.Generator, Seed: f.Meta.Seed, Documents: f.Meta.Documents, Cases: cases,
		CorpusSHA256: f.Meta.SHA256.Corpus, MappingSHA256: f.Meta.SHA256.Mapping, WorkloadSHA256: f.Meta.SHA256.Workload}
}

// down reports a trial in which the target answered nothing: every measured request failed
// without a response (transport or timeout). Going on would only time out trial after trial.
func down(tr *Result) bool {
	if tr.Passed > 0 || tr.Failed == 0 {
		return false
	}
	for class := range tr.Failures {
		if class != target.ClassTransport && class != target.ClassTimeout {
			return false
		}
	}
	return true
}

func sortedClasses(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

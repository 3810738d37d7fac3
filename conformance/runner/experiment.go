package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/conform-dev/conform/conformance/experiment"
	"github.com/conform-dev/conform/conformance/readiness"
	"github.com/conform-dev/conform/conformance/report"
	"github.com/conform-dev/conform/conformance/target"
)

// Variant is one side of a paired experiment: its label (rest, grpc…) and where it answers.
// In the switched mode both variants have the same target and a command switches between
// rounds.
type Variant struct {
	Label  string
	Target *target.Target
}

// Experiment runs paired rounds: baseline and candidate in ABBA order, the native engines in
// every round, interleaved with the round's variant exactly as a run interleaves targets.
type Experiment struct {
	Settings  Settings
	Suite     *Suite
	Baseline  Variant
	Candidate Variant
	Natives   []*target.Target
	// Order is the rounds' variants (experiment.ABBA(n/4) for n rounds).
	Order []experiment.Variant
	// Switch, when set, makes the single endpoint serve the given variant before a round that
	// needs the other one (it is called before the first round too). It gets the label.
	Switch func(ctx context.Context, label string) (string, error)
	// ReadyTimeout bounds the wait for readiness after a switch (and before the first round).
	ReadyTimeout time.Duration
	// Ready probes each target before each round; a round starts only when every target is
	// ready and its corpus intact. nil uses GETRoot.
	Ready Ready
	// OnRound is called after every round (and after every trial, with the round's partial
	// results) so an interrupted experiment leaves what it measured.
	OnRound func(round int, res *report.Results) error
	OnTrial func(round int, res *report.Results) error
	// Progress receives an event after every target trial.
	Progress func(round int, ev Event)
	Now      func() time.Time
	// Sleep waits between readiness attempts (default time.Sleep, interruptible by ctx).
	Sleep func(ctx context.Context, d time.Duration) error
	// Warm is the warm-up to a steady state before round 1 (and after every switch, for the
	// switched-in variant); its zero value warms nothing.
	Warm WarmRule
	// Say, when set, hears what the experiment is waiting for and doing between rounds: the
	// readiness it awaits (with the last reason a target was not ready), the warm-up passes.
	Say func(string)

	// Sequential, when set, makes Execute look at the data after every ABBA block (Order
	// holds its MaxBlocks blocks) with LookOptions at that look's alpha, and stop as soon as
	// Sequential.Stop allows; Report then analyses at the last look's alpha.
	Sequential  *experiment.Sequential
	LookOptions experiment.Options

	// warmUps are the warm-ups run so far, for the report and the manifest; looks the
	// sequential looks (block, reason).
	warmUps []report.WarmUp
	looks   []look
}

type look struct {
	block int
	why   string
}

func (x *Experiment) say(s string) {
	if x.Say != nil {
		x.Say(s)
	}
}

// WarmUps returns the warm-ups Execute ran, in order.
func (x *Experiment) WarmUps() []report.WarmUp { return x.warmUps }

// RoundResult is one round: which variant it measured and the run's results.
type RoundResult struct {
	Round    int
	Variant  experiment.Variant
	Label    string
	Started  time.Time
	Finished time.Time
	Switch   string // the switch command's account, if any
	Results  *report.Results
	// Samples holds the passing latencies per cell ("target", op, clients), for the merged
	// latency distributions.
	Samples map[[3]any][]time.Duration
}

// PlannedResponses is the number of measured (timed or failed) requests an experiment
// plans: rounds x (variant + natives) x operations x concurrency levels x trials x requests.
func (x *Experiment) PlannedResponses() int {
	s := x.Settings
	return len(x.Order) * (1 + len(x.Natives)) * len(s.Ops) * len(s.Clients) * s.Trials * s.Requests
}

func (x *Experiment) variant(v experiment.Variant) Variant {
	if v == experiment.Candidate {
		return x.Candidate
	}
	return x.Baseline
}

// Execute runs every round. It returns the rounds finished so far with any error: a round
// that could not start (a target not ready, a failed switch) or that ended early ends the
// experiment.
func (x *Experiment) Execute(ctx context.Context) ([]RoundResult, error) {
	now := x.Now
	if now == nil {
		now = time.Now
	}
	if len(x.Order) == 0 {
		return nil, errors.New("no rounds")
	}
	var rounds []RoundResult
	current := ""
	x.warmUps = nil
	for i, v := range x.Order {
		round := i + 1
		va := x.variant(v)
		rr := RoundResult{Round: round, Variant: v, Label: va.Label, Started: now().UTC()}
		switched := false
		if x.Switch != nil && va.Label != current {
			out, err := x.Switch(ctx, va.Label)
			rr.Switch = out
			if err != nil {
				return rounds, fmt.Errorf("round %d: switching to %s: %w", round, va.Label, err)
			}
			current, switched = va.Label, true
		}
		targets := append([]*target.Target{named(va.Target, va.Label)}, x.Natives...)
		// Before round 1 every target is warmed: in the two-URL mode both variants and the
		// natives; in the switched mode the variant being served and the natives, and after
		// every later switch the variant switched in (a restart is cold again).
		var warm []*target.Target
		switch {
		case i == 0 && x.Switch == nil:
			warm = append([]*target.Target{named(x.Baseline.Target, x.Baseline.Label), named(x.Candidate.Target, x.Candidate.Label)}, x.Natives...)
		case i == 0:
			warm = targets
		case switched:
			warm = targets[:1]
		}
		if err := x.awaitReady(ctx, targets); err != nil {
			return rounds, fmt.Errorf("round %d (%s): %w", round, va.Label, err)
		}
		if len(warm) > 0 && x.Warm.MaxPasses > 0 {
			if i == 0 && x.Switch == nil {
				if err := x.awaitReady(ctx, warm); err != nil {
					return rounds, fmt.Errorf("before round 1: %w", err)
				}
			}
			x.say(fmt.Sprintf("warming %s before round %d: %s", targetNames(warm), round, x.Warm.withDefaults(x.Settings)))
			w, err := x.warmUp(ctx, warm, round)
			x.warmUps = append(x.warmUps, w)
			if err != nil {
				return rounds, fmt.Errorf("before round %d: %w", round, err)
			}
		}
		run := &Run{
			Settings: x.Settings, Suite: x.Suite, Targets: targets, Ready: x.Ready, Now: x.Now,
			Rotation: RoundRotation(i, len(targets)),
		}
		if x.OnTrial != nil {
			run.OnTrial = func(res *report.Results) error { return x.OnTrial(round, res) }
		}
		if x.Progress != nil {
			run.Progress = func(ev Event) { x.Progress(round, ev) }
		}
		res, err := run.Execute(ctx)
		rr.Finished, rr.Results = now().UTC(), res
		rr.Samples = map[[3]any][]time.Duration{}
		for k, cs := range run.cells {
			rr.Samples[k] = cs.latencies
		}
		if res != nil && len(res.Cells) > 0 { // a round whose targets were not ready measured nothing
			rounds = append(rounds, rr)
			if x.OnRound != nil {
				if werr := x.OnRound(round, res); werr != nil && err == nil {
					err = werr
				}
			}
		}
		if err != nil {
			return rounds, fmt.Errorf("round %d (%s): %w", round, va.Label, err)
		}
		if x.Sequential != nil && round%4 == 0 {
			stop, err := x.look(rounds, round/4)
			if err != nil {
				return rounds, err
			}
			if stop {
				return rounds, nil
			}
		}
	}
	return rounds, nil
}

// look analyses the rounds after block k at that look's alpha and says whether to stop.
func (x *Experiment) look(rounds []RoundResult, k int) (bool, error) {
	o := x.LookOptions
	o.Alpha = x.Sequential.AlphaAt(k)
	a, err := experiment.Analyze(Input(rounds, x.nativeNames()), o)
	if err != nil {
		return false, fmt.Errorf("look after round %d: %w", 4*k, err)
	}
	stop, why := x.Sequential.Stop(a, k)
	x.looks = append(x.looks, look{block: k, why: why})
	next := "stop"
	if !stop {
		next = "another ABBA block"
	}
	x.say(fmt.Sprintf("look %d of at most %d (alpha %.4g): %s; %s", k, x.Sequential.MaxBlocks, o.Alpha, why, next))
	return stop, nil
}

func (x *Experiment) nativeNames() []string {
	natives := make([]string, len(x.Natives))
	for i, n := range x.Natives {
		natives[i] = n.Name
	}
	return natives
}

// RoundRotation is the rotation offset of round i (from 0) with targets targets: the order
// of the targets in a round's steps. A target's place in a step matters on a shared machine
// (measured on two cores: a `conform serve` target's p50 moved by up to 40% with the engine
// that ran just before it, about 5% with every process on its own CPU), so the offsets are
// balanced within every ABBA block: its two baseline rounds and its two candidate rounds
// take the same two offsets (the first two rounds one, the last two the next), and the
// contrast of every block, at every sequential look, cancels the effect of the place. From
// block to block the pair moves on by two, so over blocks every target leads every step.
func RoundRotation(i, targets int) int {
	if targets < 2 {
		return 0
	}
	block, q := i/4, i%4
	off := 2 * block
	if q >= 2 {
		off++
	}
	return off % targets
}

// named returns a copy of t under another name (the variant's label).
func named(t *target.Target, name string) *target.Target {
	c := *t
	c.Name = name
	return &c
}

// awaitReady asks every target until all are ready or the timeout passes; the last error
// says which target and why.
func (x *Experiment) awaitReady(ctx context.Context, ts []*target.Target) error {
	ready := x.Ready
	if ready == nil {
		ready = GETRoot
	}
	sleep := x.Sleep
	if sleep == nil {
		sleep = func(ctx context.Context, d time.Duration) error {
			t := time.NewTimer(d)
			defer t.Stop()
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-t.C:
				return nil
			}
		}
	}
	start := time.Now()
	deadline := start.Add(x.ReadyTimeout)
	wait := 200 * time.Millisecond
	said, lastSaid := "", time.Time{}
	for {
		var lastErr error
		for _, t := range ts {
			if _, err := ready(ctx, t); err != nil {
				lastErr = fmt.Errorf("target %s not ready: %w", t.Name, t.Scrub(err))
				break
			}
		}
		if lastErr == nil {
			if said != "" {
				x.say(fmt.Sprintf("%s ready after %s", targetNames(ts), time.Since(start).Round(100*time.Millisecond)))
			}
			return nil
		}
		if err := target.Interruption(ctx); err != nil {
			return fmt.Errorf("%w while waiting for %s to be ready", err, targetNames(ts))
		}
		if time.Now().Add(wait).After(deadline) {
			return fmt.Errorf("%w (gave up after %s)", lastErr, x.ReadyTimeout)
		}
		// Say what it waits for at once, then when the reason changes or every 10 s, so a
		// closed port is not two minutes of silence.
		if msg := lastErr.Error(); msg != said || time.Since(lastSaid) >= 10*time.Second {
			x.say(fmt.Sprintf("waiting up to %s for %s to be ready (%s so far): %s", x.ReadyTimeout, targetNames(ts), time.Since(start).Round(time.Second), msg))
			said, lastSaid = msg, time.Now()
		}
		if err := sleep(ctx, wait); err != nil {
			if ierr := target.Interruption(ctx); ierr != nil {
				err = ierr
			}
			return fmt.Errorf("%w while waiting for %s to be ready", err, targetNames(ts))
		}
		wait = min(2*wait, 5*time.Second)
	}
}

func targetNames(ts []*target.Target) string {
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = t.Name
	}
	return strings.Join(names, ", ")
}

// Input turns finished rounds into the experiment analysis's input: per cell, each round's
// variant trial p50s and the natives' trial p50s from the same round.
func Input(rounds []RoundResult, natives []string) experiment.Input {
	in := experiment.Input{Failures: map[experiment.Variant]int{experiment.Baseline: 0, experiment.Candidate: 0}}
	if len(rounds) == 0 {
		return in
	}
	settings := rounds[0].Results.Settings
	for _, op := range settings.Ops {
		for _, n := range settings.Clients {
			cell := experiment.Cell{Key: experiment.CellKey{Op: op, Clients: n}}
			for _, rr := range rounds {
				r := experiment.Round{Variant: rr.Variant, Natives: map[string][]time.Duration{}}
				if c := rr.Results.Cell(rr.Label, op, n); c != nil {
					r.Trials = trialP50s(c)
					r.Failed = c.Failed
					for _, t := range c.Trials {
						r.Failed += t.WarmupFailed
					}
				}
				for _, name := range natives {
					if c := rr.Results.Cell(name, op, n); c != nil {
						r.Natives[name] = trialP50s(c)
					}
				}
				cell.Rounds = append(cell.Rounds, r)
			}
			in.Cells = append(in.Cells, cell)
		}
	}
	for _, rr := range rounds {
		in.Failures[rr.Variant] += rr.Results.FailedFor(rr.Label)
		for _, f := range readiness.For(rr.Results.Findings, rr.Label) {
			if in.Findings == nil {
				in.Findings = map[experiment.Variant][]string{}
			}
			if !slices.Contains(in.Findings[rr.Variant], f.String()) {
				in.Findings[rr.Variant] = append(in.Findings[rr.Variant], f.String())
			}
		}
	}
	return in
}

// trialP50s lists a cell's trial p50s; a trial in which no response passed has none and is
// left out.
func trialP50s(c *report.Cell) []time.Duration {
	out := make([]time.Duration, 0, len(c.Trials))
	for _, t := range c.Trials {
		if t.P50Ms != nil {
			out = append(out, time.Duration(*t.P50Ms*float64(time.Millisecond)))
		}
	}
	return out
}

// AARecord turns an experiment's rounds into an A/A record (conform-aa/1): the trial p50s of
// every target in every cell and round. Recorded with the same variant in every round, it is
// what experiment.EstimateNoise reads to measure a machine's trial noise and round drift.
func AARecord(rounds []RoundResult, variant, source string) *experiment.AARecord {
	rec := &experiment.AARecord{Format: experiment.AAFormat, Source: source, Variant: variant}
	for _, rr := range rounds {
		for _, c := range rr.Results.Cells {
			name := c.Target
			if name == rr.Label {
				name = variant
			}
			rec.Trials = append(rec.Trials, experiment.AATrial{Target: name, Op: c.Op, Clients: c.Clients, Round: rr.Round, P50: trialP50s(&c)})
		}
	}
	return rec
}

// ReportRounds describes finished rounds twice: as the experiment's report lists them and as
// its manifest records them, with each round's target identities, probes and trials.
func ReportRounds(rounds []RoundResult) (listed []report.RoundInfo, recorded []report.Round) {
	for _, rr := range rounds {
		listed = append(listed, report.RoundInfo{Round: rr.Round, Role: string(rr.Variant), Label: rr.Label, StartedAt: rr.Started, FinishedAt: rr.Finished, Switch: rr.Switch})
		recorded = append(recorded, report.Round{Round: rr.Round, Variant: rr.Label, Role: string(rr.Variant), StartedAt: rr.Started,
			FinishedAt: rr.Finished, Targets: rr.Results.Targets, Switch: rr.Switch, Trials: report.TrialRecords(rr.Results)})
	}
	return listed, recorded
}

// Report analyses the rounds an experiment finished (experiment.Analyze with o, on Input) and
// assembles what it writes: the rounds merged into one set of results, marked incomplete with
// runErr's text when the experiment stopped early, the variants' labels, the natives, the
// plan's measured responses and the rounds as the report lists them. recorded is the rounds
// as the manifest records them (ReportRounds).
func (x *Experiment) Report(rounds []RoundResult, runErr error, o experiment.Options) (rep *report.Experiment, recorded []report.Round, err error) {
	natives := x.nativeNames()
	if len(rounds) == 0 {
		// Stopped before round 1 finished: nothing to analyse, but the files still say so.
		if runErr == nil {
			runErr = errors.New("no round finished")
		}
		analysis := experiment.NotStarted(o, runErr.Error(), len(x.Order))
		analysis.Warnings = append(analysis.Warnings, WarmUpWarnings(x.warmUps)...)
		rep = &report.Experiment{Results: x.notStarted(runErr), Baseline: x.Baseline.Label, Candidate: x.Candidate.Label, Natives: natives,
			Analysis: analysis, PlannedRounds: len(x.Order), PlannedResponses: x.PlannedResponses(), WarmUps: x.warmUps}
		return rep, []report.Round{}, nil
	}
	var last *look
	if x.Sequential != nil && len(x.looks) > 0 {
		last = &x.looks[len(x.looks)-1]
		if last.block == len(rounds)/4 {
			o.Alpha = x.Sequential.AlphaAt(last.block)
		} else {
			last = nil // stopped between looks: analysed at the next look's alpha
			o.Alpha = x.Sequential.AlphaAt(len(rounds)/4 + 1)
		}
	}
	analysis, err := experiment.Analyze(Input(rounds, natives), o)
	if err != nil {
		return nil, nil, fmt.Errorf("analysing the experiment: %w", err)
	}
	if x.Sequential != nil {
		analysis.Method += fmt.Sprintf("; sequential: looks after every ABBA block up to %d rounds, this one after %d rounds at alpha %.4g (%s; family-wise error at most %.2g over all looks)",
			4*x.Sequential.MaxBlocks, len(rounds), o.Alpha, experiment.Spending, x.Sequential.Alpha)
		if last != nil {
			analysis.Reasons = append(analysis.Reasons, "sequential: stopped because "+last.why)
		}
	}
	merged, err := Merge(rounds)
	if err != nil {
		return nil, nil, err
	}
	if runErr != nil {
		merged.Complete, merged.Incomplete = false, runErr.Error()
		analysis.MarkIncomplete(runErr.Error(), len(x.Order))
	}
	measured := 0
	for _, c := range merged.Cells {
		measured += c.Passed + c.Failed
	}
	analysis.Warnings = append(analysis.Warnings, WarmUpWarnings(x.warmUps)...)
	rep = &report.Experiment{Results: merged, Baseline: x.Baseline.Label, Candidate: x.Candidate.Label, Natives: natives,
		Analysis: analysis, PlannedRounds: len(x.Order), PlannedResponses: x.PlannedResponses(), MeasuredResponses: measured, WarmUps: x.warmUps}
	rep.Rounds, recorded = ReportRounds(rounds)
	return rep, recorded, nil
}

// notStarted is the results of an experiment that measured nothing: its settings, fixtures
// and oracle (when the suite was built), its targets, incomplete with runErr's text.
func (x *Experiment) notStarted(runErr error) *report.Results {
	now := time.Now
	if x.Now != nil {
		now = x.Now
	}
	t := now().UTC()
	res := &report.Results{Format: report.ResultsFormat, Methodology: Methodology, StartedAt: t, FinishedAt: t,
		Failures: []report.Failure{}, Order: []report.OrderEntry{}, Incomplete: runErr.Error()}
	index := ""
	if x.Suite != nil {
		index = x.Suite.Expect.Settings.Index
		res.Fixtures = FixturesInfo(x.Suite.Fixtures)
		res.Oracle = report.Oracle{Source: x.Suite.Expect.Source, SHA256: x.Suite.Expect.Hash()}
	}
	res.Settings = x.Settings.Report(index)
	for _, v := range []Variant{x.Baseline, x.Candidate} {
		if v.Target != nil {
			res.Targets = append(res.Targets, report.Target{Name: v.Label, URL: v.Target.Redacted()})
		}
	}
	for _, n := range x.Natives {
		res.Targets = append(res.Targets, report.Target{Name: n.Name, URL: n.Redacted()})
	}
	return res
}

// MarshalAA writes an A/A record as JSON.
func MarshalAA(rec *experiment.AARecord) ([]byte, error) { return json.MarshalIndent(rec, "", "  ") }

// Merge folds an experiment's rounds into one set of results: every target's cells over all
// the rounds it ran in (the variants under their labels, the natives over every round), each
// trial tagged with its round. Its settings, fixtures and oracle are the rounds' (they are
// the same for every round).
func Merge(rounds []RoundResult) (*report.Results, error) {
	if len(rounds) == 0 {
		return nil, errors.New("no rounds to merge")
	}
	first := rounds[0].Results
	out := &report.Results{Format: report.ResultsFormat, Methodology: first.Methodology, StartedAt: first.StartedAt,
		Settings: first.Settings, Fixtures: first.Fixtures, Oracle: first.Oracle, Complete: true, Failures: []report.Failure{}}
	last := rounds[len(rounds)-1].Results
	out.FinishedAt = last.FinishedAt
	type key struct {
		target, op string
		clients    int
	}
	states := map[key]*cellState{}
	var order []key
	seen := map[string]bool{}
	for _, rr := range rounds {
		res := rr.Results
		if !res.Complete {
			out.Complete, out.Incomplete = false, fmt.Sprintf("round %d: %s", rr.Round, res.Incomplete)
		}
		for _, t := range res.Targets {
			if !seen[t.Name] {
				seen[t.Name] = true
				out.Targets = append(out.Targets, t)
			}
		}
		for _, o := range res.Order {
			out.Order = append(out.Order, o)
		}
		out.Failures = append(out.Failures, res.Failures...)
		out.Findings = append(out.Findings, res.Findings...)
		out.Warnings = append(out.Warnings, res.Warnings...)
		for _, c := range res.Cells {
			k := key{c.Target, c.Op, c.Clients}
			cs := states[k]
			if cs == nil {
				cs = &cellState{cell: &report.Cell{Target: c.Target, Op: c.Op, Clients: c.Clients, FailuresByClass: map[string]int{}, Trials: []report.Trial{}}}
				states[k] = cs
				order = append(order, k)
			}
			for _, t := range c.Trials {
				t.Round = rr.Round
				if err := cs.addSummary(t); err != nil {
					return nil, err
				}
			}
			cs.latencies = append(cs.latencies, rr.Samples[[3]any{c.Target, c.Op, c.Clients}]...)
		}
	}
	byKey := map[[3]any]*cellState{}
	for _, k := range order {
		byKey[[3]any{k.target, k.op, k.clients}] = states[k]
	}
	finalizeHistograms(out, byKey)
	for _, k := range order {
		out.Cells = append(out.Cells, *states[k].cell)
	}
	out.Warnings = report.UniqueWarnings(out.Warnings)
	out.Findings = readiness.Unique(out.Findings)
	return out, nil
}

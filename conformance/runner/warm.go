package runner

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/conform-dev/conform/conformance/readiness"
	"github.com/conform-dev/conform/conformance/report"
	"github.com/conform-dev/conform/conformance/target"
)

// WarmRule warms every target to a steady state before an experiment's first round. A JVM
// engine compiles and fills its caches over tens of thousands of requests: measured on
// freshly started Elasticsearch and OpenSearch, their p50 fell by 1.7 to 5.8 times from the
// first round of four to the last, with 40 warmup requests per step. A fixed count cannot
// know when a target is warm; the rule looks at the measurements.
//
// A pass sends Window requests per cell (operation x clients) to every target, interleaved
// as a round interleaves them, checked and not timed into any result. A target's figure for
// a pass is the geometric mean over its cells of its p50. It is steady when the last
// Stable-1 consecutive passes no longer improve on the best pass before them by more than
// Tolerance: warming up is a fall, and the rule waits until the fall has stopped. It is
// one-sided on purpose: on a shared machine consecutive passes of a target that is already
// warm differ by 10-20% in both directions (the Go targets' passes did, measured on the
// 2-core development machine), so a two-sided agreement within 5% would hold a warm target
// to the cap, while a slower pass never means the target is still warming. Warm-up ends when
// every target is steady, or after MaxPasses passes with the targets that are not named.
type WarmRule struct {
	// Window is the requests per cell per pass (the settings' Requests when zero).
	Window int
	// Tolerance is the agreement the last Stable passes must reach (DefaultWarmTolerance
	// when zero).
	Tolerance float64
	// Stable is how many consecutive passes must agree (DefaultWarmStable when zero).
	Stable int
	// MaxPasses caps the warm-up; 0 means no warm-up.
	MaxPasses int
}

// Defaults of WarmRule.
const (
	DefaultWarmTolerance = 0.05
	DefaultWarmStable    = 4
	DefaultWarmMaxPasses = 20
)

func (w WarmRule) withDefaults(s Settings) WarmRule {
	if w.Window == 0 {
		w.Window = s.Requests
	}
	if w.Tolerance == 0 {
		w.Tolerance = DefaultWarmTolerance
	}
	if w.Stable == 0 {
		w.Stable = DefaultWarmStable
	}
	return w
}

// String says the rule in one line, for plans and logs.
func (w WarmRule) String() string {
	if w.MaxPasses <= 0 {
		return "no warm-up to a steady state"
	}
	return fmt.Sprintf("passes of %d requests per cell until every target's p50 (geometric mean over cells) stops falling: %d consecutive passes none more than %.0f%% below the best before them, at most %d passes",
		w.Window, w.Stable-1, 100*w.Tolerance, w.MaxPasses)
}

// warmUp runs the warm-up passes over targets and returns their curves. say, when set,
// hears one line per pass. An error (a target that stops answering, an interrupt) ends it.
func (x *Experiment) warmUp(ctx context.Context, targets []*target.Target, before int) (report.WarmUp, error) {
	rule := x.Warm.withDefaults(x.Settings)
	out := report.WarmUp{BeforeRound: before, Window: rule.Window, Tolerance: rule.Tolerance, Stable: rule.Stable, MaxPasses: rule.MaxPasses}
	if rule.MaxPasses <= 0 {
		return out, nil
	}
	started := time.Now()
	s := x.Settings
	s.Trials, s.Requests, s.Warmup = 1, rule.Window, 0
	for _, n := range s.Clients {
		if n > s.Requests {
			s.Requests = n
		}
	}
	wt := make([]report.WarmTarget, len(targets))
	cellIndex := map[[2]any]int{}
	for i, t := range targets {
		wt[i].Name = t.Name
		for _, op := range s.Ops {
			for _, n := range s.Clients {
				cellIndex[[2]any{op, n}] = len(wt[i].Cells)
				wt[i].Cells = append(wt[i].Cells, report.WarmCell{Op: op, Clients: n})
			}
		}
	}
	// Readiness was proved before the warm-up; a pass only needs the timed path.
	noProbe := func(context.Context, *target.Target) (readiness.Result, error) { return readiness.Result{}, nil }
	for pass := 1; pass <= rule.MaxPasses; pass++ {
		run := &Run{Settings: s, Suite: x.Suite, Targets: targets, Ready: noProbe, Now: x.Now, Rotation: pass}
		res, err := run.Execute(ctx)
		if err != nil {
			out.Targets, out.Elapsed = wt, time.Since(started)
			return out, fmt.Errorf("warm-up pass %d: %w", pass, err)
		}
		var line []string
		all := true
		for i, t := range targets {
			var logSum float64
			cells := 0
			for _, c := range res.Cells {
				if c.Target != t.Name {
					continue
				}
				wt[i].Failed += c.Failed
				p := 0.0
				if len(c.Trials) > 0 && c.Trials[0].Passed > 0 && c.Trials[0].P50Ms != nil {
					p = *c.Trials[0].P50Ms
				}
				k := cellIndex[[2]any{c.Op, c.Clients}]
				wt[i].Cells[k].P50Ms = append(wt[i].Cells[k].P50Ms, p)
				if p > 0 {
					logSum += math.Log(p)
					cells++
				}
			}
			g := 0.0
			if cells > 0 {
				g = math.Exp(logSum / float64(cells))
			}
			wt[i].P50Ms = append(wt[i].P50Ms, g)
			// Judged afresh every pass: a target that falls again after looking steady (a JVM
			// compiling the next layer) is warming still.
			switch now := steady(wt[i].P50Ms, rule); {
			case now && !wt[i].Steady:
				wt[i].Steady, wt[i].SteadyAt = true, pass
			case !now:
				wt[i].Steady, wt[i].SteadyAt = false, 0
			}
			all = all && wt[i].Steady
			mark := ""
			if wt[i].Steady {
				mark = " steady"
			}
			line = append(line, fmt.Sprintf("%s %s%s", t.Name, report.Ms(g), mark))
		}
		x.say(fmt.Sprintf("warm-up pass %d of at most %d (p50 ms, geometric mean over cells): %s", pass, rule.MaxPasses, strings.Join(line, ", ")))
		if all {
			break
		}
	}
	var capped []string
	for i := range wt {
		if !wt[i].Steady {
			wt[i].CapReached = true
			capped = append(capped, wt[i].Name)
		}
	}
	if len(capped) > 0 {
		x.say(fmt.Sprintf("warm-up: the cap of %d passes was reached with %s not steady; the experiment goes on and reports each native's drift across rounds", rule.MaxPasses, strings.Join(capped, ", ")))
	}
	out.Targets, out.Elapsed = wt, time.Since(started)
	return out, nil
}

// steady reports whether the last rule.Stable-1 figures of a curve are positive and none is
// below (1-rule.Tolerance) times the best figure before them: the curve stopped falling.
func steady(curve []float64, rule WarmRule) bool {
	if len(curve) < rule.Stable || rule.Stable < 2 {
		return false
	}
	split := len(curve) - (rule.Stable - 1)
	best := math.Inf(1)
	for _, v := range curve[:split] {
		if v <= 0 {
			return false
		}
		best = math.Min(best, v)
	}
	for _, v := range curve[split:] {
		if v <= 0 || v < (1-rule.Tolerance)*best {
			return false
		}
	}
	return true
}

// WarmUpWarnings says which targets a warm-up left unsteady, for the report.
func WarmUpWarnings(ws []report.WarmUp) []string {
	var out []string
	for _, w := range ws {
		for _, t := range w.Targets {
			if t.CapReached {
				n := len(t.P50Ms)
				first, last := t.P50Ms[0], t.P50Ms[n-1]
				out = append(out, fmt.Sprintf("warm-up before round %d: %s was not steady after the cap of %d passes (p50 %s ms in the first pass, %s ms in the last; still falling by more than %.0f%%)",
					w.BeforeRound, t.Name, w.MaxPasses, report.Ms(first), report.Ms(last), 100*w.Tolerance))
			}
		}
	}
	return out
}

package experiment

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Plan is a planned experiment's shape, for a projection of what it can see.
type Plan struct {
	// Keys are the cells (operation x clients).
	Keys []CellKey
	// Rounds (whole ABBA blocks), Trials per round per target, Natives measured alongside.
	Rounds, Trials, Natives int
	// Change is the change to plan for (0.10 is 10% slower).
	Change  float64
	Options Options
	// CellScale multiplies a cell's noise (NoiseEstimate.CellScale; 1 where missing).
	CellScale map[CellKey]float64
}

// Power is a projection of a plan at a machine's noise, by simulating the plan through the
// analysis (Analyze's method, the same code) with that noise.
type Power struct {
	Plan  Plan
	Noise Noise
	// MinDeclarable is the median over simulated A/A experiments of the noisiest cell's
	// smallest declarable change (RoundsReport.MinDeclarable), and MinDeclarableBest the
	// quietest cell's.
	MinDeclarable, MinDeclarableBest float64
	// AllCells is the share of experiments rejected when every cell is Change slower;
	// OneCell the share in which a single cell Change slower is named.
	AllCells, OneCell float64
	// RoundsFor is the median over the simulated A/A experiments of the rounds (whole ABBA
	// blocks, at most 400) at which the noisiest cell's smallest declarable change would fall
	// to Change, projected as RoundsReport projects it; 0 when more are needed.
	RoundsFor   int
	Experiments int
}

// ProjectPower simulates plan at noise: n experiments per figure from seed (200 when n is 0).
func ProjectPower(plan Plan, noise Noise, n int, seed uint64) (Power, error) {
	if n == 0 {
		n = 200
	}
	if plan.Rounds < 4 || plan.Rounds%4 != 0 || plan.Trials < 1 || len(plan.Keys) == 0 || !(plan.Change > 0) {
		return Power{}, fmt.Errorf("experiment: cannot project a plan of %d rounds, %d trials, %d cells, change %v", plan.Rounds, plan.Trials, len(plan.Keys), plan.Change)
	}
	pw := Power{Plan: plan, Noise: noise, Experiments: n}
	var scale []float64
	if len(plan.CellScale) > 0 {
		scale = make([]float64, len(plan.Keys))
		for i, k := range plan.Keys {
			scale[i] = plan.CellScale[k]
		}
	}
	cfg := func(rounds int, effects []float64, s uint64) SimConfig {
		return SimConfig{Noise: noise, Order: ABBA(rounds / 4), Trials: plan.Trials, Natives: plan.Natives, NoNatives: plan.Natives == 0,
			Keys: plan.Keys, Effects: effects, CellScale: scale, Experiments: n, Seed: s, Options: plan.Options}
	}
	c := cfg(plan.Rounds, nil, seed).withDefaults()
	rng := newRand(c.Seed)
	ws, bs, rs := make([]float64, 0, n), make([]float64, 0, n), make([]float64, 0, n)
	for range n {
		r, err := Analyze(simulateOne(rng, c), plan.Options)
		if err != nil {
			return Power{}, err
		}
		ws, bs = append(ws, nanInf(r.Rounds.MinDeclarable)), append(bs, nanInf(r.Rounds.MinDeclarableBest))
		// The rounds this experiment's noisiest cell would need for Change, projected as
		// RoundsReport projects them (the standard error shrinking with the square root of
		// the rounds); 0 means more than 400.
		need := math.Inf(1)
		switch {
		case r.Rounds.MinDeclarable <= plan.Change:
			need = float64(plan.Rounds)
		case r.Rounds.worst.ok:
			if k := roundsFor(plan.Change, r.Rounds.worst, r.Rounds); k > 0 {
				need = float64(k)
			}
		}
		rs = append(rs, need)
	}
	slices.Sort(ws)
	slices.Sort(bs)
	slices.Sort(rs)
	pw.MinDeclarable, pw.MinDeclarableBest = quantileSortedFloat(ws, 0.5), quantileSortedFloat(bs, 0.5)
	if need := rs[(len(rs)-1)/2]; !math.IsInf(need, 1) {
		pw.RoundsFor = int(need)
	}
	all := make([]float64, len(plan.Keys))
	for i := range all {
		all[i] = 1 + plan.Change
	}
	r, err := Simulate(cfg(plan.Rounds, all, seed+1))
	if err != nil {
		return Power{}, err
	}
	pw.AllCells = r.Rate(r.Verdicts[Reject])
	if r, err = Simulate(cfg(plan.Rounds, []float64{1 + plan.Change}, seed+2)); err != nil {
		return Power{}, err
	}
	pw.OneCell = r.Rate(r.Flagged[0])
	return pw, nil
}

func nanInf(v float64) float64 {
	if math.IsNaN(v) {
		return math.Inf(1)
	}
	return v
}

// String says the projection in a few lines, for a dry run.
func (p Power) String() string {
	var b strings.Builder
	n := p.Noise
	fmt.Fprintf(&b, "noise: trial %.1f%%, round drift %.1f%% (native share %.2f, cell share %.2f)\n", 100*n.TrialNoise, 100*n.RoundDrift, n.NativeShare, n.CellShare)
	if len(p.Plan.CellScale) > 0 {
		parts := make([]string, 0, len(p.Plan.Keys))
		for _, k := range p.Plan.Keys {
			if s, ok := p.Plan.CellScale[k]; ok {
				parts = append(parts, fmt.Sprintf("%v %.2f", k, s))
			}
		}
		fmt.Fprintf(&b, "cells' noise relative to the average cell: %s\n", strings.Join(parts, ", "))
	}
	fmt.Fprintf(&b, "with %d rounds of %d trial(s), %d native(s), %d cells (median of %d simulated experiments through the analysis):\n",
		p.Plan.Rounds, p.Plan.Trials, p.Plan.Natives, len(p.Plan.Keys), p.Experiments)
	fmt.Fprintf(&b, "  the smallest change a cell can declare: %s (the quietest cell) to %s (the noisiest); a true change of that size is declared about half the time\n",
		pctText(p.MinDeclarableBest), pctText(p.MinDeclarable))
	fmt.Fprintf(&b, "  %.0f%% slower in every cell: rejected in %.0f%% of experiments; in one cell (%v): that cell named in %.0f%%\n", 100*p.Plan.Change, 100*p.AllCells, p.Plan.Keys[0], 100*p.OneCell)
	switch {
	case p.RoundsFor == 0:
		fmt.Fprintf(&b, "  to declare a %.0f%% change in every cell: more than 400 rounds at this noise\n", 100*p.Plan.Change)
	case p.RoundsFor <= p.Plan.Rounds:
		fmt.Fprintf(&b, "  to declare a %.0f%% change in every cell: %d rounds suffice\n", 100*p.Plan.Change, p.Plan.Rounds)
	default:
		fmt.Fprintf(&b, "  to declare a %.0f%% change in every cell: about %d rounds (--rounds %d)\n", 100*p.Plan.Change, p.RoundsFor, p.RoundsFor)
	}
	return b.String()
}

func pctText(v float64) string {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return "none (untestable)"
	}
	return pctOrMore(v)
}

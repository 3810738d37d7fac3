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
	// RoundsFor is the fewest rounds (ABBA blocks, up to 100) at which the median smallest
	// declarable change of the noisiest cell falls to Change; 0 when more are needed.
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
	cfg := func(rounds int, effects []float64, s uint64) SimConfig {
		return SimConfig{Noise: noise, Order: ABBA(rounds / 4), Trials: plan.Trials, Natives: plan.Natives, NoNatives: plan.Natives == 0,
			Keys: plan.Keys, Effects: effects, Experiments: n, Seed: s, Options: plan.Options}
	}
	declarable := func(rounds int, s uint64) (worst, best float64, err error) {
		c := cfg(rounds, nil, s).withDefaults()
		rng := newRand(c.Seed)
		ws, bs := make([]float64, 0, n), make([]float64, 0, n)
		for range n {
			r, err := Analyze(simulateOne(rng, c), plan.Options)
			if err != nil {
				return 0, 0, err
			}
			ws, bs = append(ws, nanInf(r.Rounds.MinDeclarable)), append(bs, nanInf(r.Rounds.MinDeclarableBest))
		}
		slices.Sort(ws)
		slices.Sort(bs)
		return quantileSortedFloat(ws, 0.5), quantileSortedFloat(bs, 0.5), nil
	}
	var err error
	if pw.MinDeclarable, pw.MinDeclarableBest, err = declarable(plan.Rounds, seed); err != nil {
		return Power{}, err
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
	if pw.MinDeclarable <= plan.Change {
		pw.RoundsFor = plan.Rounds
		return pw, nil
	}
	// Bisect over ABBA blocks: the smallest declarable change falls as rounds grow.
	lo, hi := plan.Rounds/4, 0
	for b := lo * 2; b <= 100; b *= 2 {
		w, _, err := declarable(4*b, seed+3)
		if err != nil {
			return Power{}, err
		}
		if w <= plan.Change {
			hi = b
			break
		}
		lo = b
	}
	if hi == 0 {
		w, _, err := declarable(400, seed+3)
		if err != nil {
			return Power{}, err
		}
		if w > plan.Change {
			return pw, nil
		}
		hi = 100
	}
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		w, _, err := declarable(4*mid, seed+3)
		if err != nil {
			return Power{}, err
		}
		if w <= plan.Change {
			hi = mid
		} else {
			lo = mid
		}
	}
	pw.RoundsFor = 4 * hi
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
	fmt.Fprintf(&b, "with %d rounds of %d trial(s), %d native(s), %d cells (median of %d simulated experiments through the analysis):\n",
		p.Plan.Rounds, p.Plan.Trials, p.Plan.Natives, len(p.Plan.Keys), p.Experiments)
	fmt.Fprintf(&b, "  the smallest change a cell can declare: %s (the quietest cell) to %s (the noisiest); a true change of that size is declared about half the time\n",
		pctText(p.MinDeclarableBest), pctText(p.MinDeclarable))
	fmt.Fprintf(&b, "  %.0f%% slower in every cell: rejected in %.0f%% of experiments; in one cell: that cell named in %.0f%%\n", 100*p.Plan.Change, 100*p.AllCells, 100*p.OneCell)
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
	return fmt.Sprintf("%.1f%%", 100*v)
}

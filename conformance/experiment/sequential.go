package experiment

import (
	"fmt"
	"math"
)

// Sequential is a group-sequential plan: the experiment looks at its data after every ABBA
// block, from the first, and stops once every cell is decided or a cell regressed, or after
// MaxBlocks blocks. Each look k of K tests at its own share of the family-wise alpha, spent by
// Lan and DeMets' O'Brien-Fleming-type function 2-2*Phi(z_(1-alpha/2)/sqrt(k/K)), Holm over
// the cells within the look. By the union bound over looks the probability of any false
// rejection over the whole experiment stays at most alpha, whatever the correlation between
// looks (conservative: the looks are positively correlated). Stopping for decided no-change
// cells only lowers it.
//
// The O'Brien-Fleming shape spends almost nothing at the first looks (at 6 blocks: 0.000002,
// 0.0007, 0.005, then 0.011, 0.015, 0.018), where each cell's variance is its own and rough
// (1-3 degrees of freedom at 4 and 8 rounds); the Pocock shape first used here spent 0.013 at
// 4 rounds, and with it in this one's place 5.7% of 300 simulated A/A experiments with one
// cell three times as noisy as its neighbours were rejected (1.1% of 1000 with this one:
// SIMULATION.md's sequential table).
type Sequential struct {
	// Alpha is the family-wise error over all looks and cells (DefaultAlpha when zero).
	Alpha float64
	// MaxBlocks is the most ABBA blocks (4 rounds each) the experiment may run.
	MaxBlocks int
}

// Spending names the rule for method lines.
const Spending = "alpha spent over looks by Lan-DeMets' O'Brien-Fleming-type function 2-2*Phi(z_(1-alpha/2)/sqrt(t)), t the share of the maximum rounds run; Holm over cells within a look"

func (s Sequential) alpha() float64 {
	if s.Alpha == 0 {
		return DefaultAlpha
	}
	return s.Alpha
}

// Validate reports a plan that cannot run.
func (s Sequential) Validate() error {
	if s.MaxBlocks < 1 {
		return fmt.Errorf("experiment: a sequential plan needs at least one ABBA block, not %d", s.MaxBlocks)
	}
	if a := s.alpha(); !(a > 0 && a < 1) {
		return fmt.Errorf("experiment: alpha %v outside (0, 1)", a)
	}
	return nil
}

// spent is the alpha spent by the end of block k.
func (s Sequential) spent(k int) float64 {
	t := math.Min(1, float64(k)/float64(s.MaxBlocks))
	if t <= 0 {
		return 0
	}
	z := normalQuantile(1 - s.alpha()/2)
	return 2 * (1 - normalCDF(z/math.Sqrt(t)))
}

// AlphaAt is the alpha the look after block k (from 1) tests at: the spending function's
// increment over the previous look.
func (s Sequential) AlphaAt(k int) float64 { return s.spent(k) - s.spent(k-1) }

// Stop reports whether an experiment analysed at the look after block k (with Options.Alpha
// AlphaAt(k)) may stop, and why: every cell is decided (significant beyond the threshold, or
// its interval within the threshold either side of 1), or a cell regressed, or the last
// block was run.
func (s Sequential) Stop(r *Result, k int) (bool, string) {
	if k >= s.MaxBlocks {
		return true, fmt.Sprintf("the maximum of %d rounds was reached", 4*s.MaxBlocks)
	}
	undecided := 0
	for _, c := range r.Cells {
		if c.Class == Regressed {
			return true, fmt.Sprintf("%v regressed at the look after %d rounds", c.Key, 4*k)
		}
		if decided(c) {
			continue
		}
		undecided++
	}
	if undecided == 0 {
		return true, fmt.Sprintf("every cell was decided at the look after %d rounds", 4*k)
	}
	return false, fmt.Sprintf("%d of %d cells undecided after %d rounds", undecided, len(r.Cells), 4*k)
}

// decided: significant beyond the threshold, or shown within it (the whole interval inside
// 1 ± threshold, class NoChange), or failed; only an Undecided cell is not.
func decided(c CellResult) bool { return c.Class != Undecided }

// SequentialResult counts simulated sequential experiments' outcomes.
type SequentialResult struct {
	SimResult
	// MeanRounds is the mean number of rounds run before stopping.
	MeanRounds float64
}

// SimulateSequential runs cfg.Experiments simulated sequential experiments: each draws
// MaxBlocks blocks of rounds (cfg.Order is ignored), is analysed after every block at that
// look's alpha, and stops by seq.Stop. The counts are of each experiment's final look.
func SimulateSequential(cfg SimConfig, seq Sequential) (SequentialResult, error) {
	if err := seq.Validate(); err != nil {
		return SequentialResult{}, err
	}
	cfg.Order = ABBA(seq.MaxBlocks)
	cfg = cfg.withDefaults()
	rng := newRand(cfg.Seed)
	res := SequentialResult{SimResult: SimResult{Experiments: cfg.Experiments, Verdicts: map[Verdict]int{}, Flagged: make([]int, cfg.Cells)}}
	rounds := 0
	for range cfg.Experiments {
		in := simulateOne(rng, cfg)
		var last *Result
		for k := 1; k <= seq.MaxBlocks; k++ {
			opts := cfg.Options
			opts.Alpha = seq.AlphaAt(k)
			r, err := analyze(prefix(in, 4*k), opts, false)
			if err != nil {
				return SequentialResult{}, err
			}
			last = r
			if stop, _ := seq.Stop(r, k); stop {
				rounds += 4 * k
				break
			}
		}
		res.tally(last, cfg.Effects)
		res.Method = last.Method + "; sequential: " + Spending
	}
	res.MeanRounds = float64(rounds) / float64(cfg.Experiments)
	return res, nil
}

// prefix is the input's first n rounds.
func prefix(in Input, n int) Input {
	out := Input{Failures: in.Failures, Cells: make([]Cell, len(in.Cells))}
	for i, c := range in.Cells {
		out.Cells[i] = Cell{Key: c.Key, Rounds: c.Rounds[:min(n, len(c.Rounds))]}
	}
	return out
}

package experiment

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"time"
)

// Variant is the side of a paired experiment a round measured.
type Variant string

// The two variants of a paired experiment.
const (
	Baseline  Variant = "baseline"
	Candidate Variant = "candidate"
)

// ABBA returns the round order of blocks ABBA blocks: baseline, candidate, candidate,
// baseline, repeated. Each block's candidate-minus-baseline contrast cancels a drift that is
// linear in time.
func ABBA(blocks int) []Variant {
	out := make([]Variant, 0, 4*blocks)
	for range blocks {
		out = append(out, Baseline, Candidate, Candidate, Baseline)
	}
	return out
}

// CellKey names a cell: one operation at one client count.
type CellKey struct {
	Op      string
	Clients int
}

func (k CellKey) String() string { return fmt.Sprintf("%s@%d", k.Op, k.Clients) }

// Round is one round of one cell: the variant the round measured, that variant's trial p50s,
// and the trial p50s of each native engine measured in the same round (the experiment's
// controls, which share the round's conditions).
type Round struct {
	Variant Variant
	// Trials holds the variant's trial p50s. A zero p50 (a trial without a passing response)
	// is skipped with a warning.
	Trials []time.Duration
	// Natives maps a native engine's name to its trial p50s in this round.
	Natives map[string][]time.Duration
	// Failed counts the variant's responses of this cell and round that failed the check
	// (measured or warmup): a cell with any is classed Failures, whatever its latencies say.
	Failed int
}

// Cell is one cell's rounds, in run order. Every cell of an experiment has the same rounds.
type Cell struct {
	Key    CellKey
	Rounds []Round
}

// Input is a paired experiment's measurements.
type Input struct {
	Cells []Cell
	// Failures counts responses of each variant that failed the check, over all rounds.
	Failures map[Variant]int
	// Findings lists, per variant, what readiness found wrong with its target in any round
	// (a mapping that differs, sampled documents that differ, ...), one line each. A finding
	// is a correctness problem: a variant with one cannot be adopted.
	Findings map[Variant][]string
}

// obs is one cell's measurements in natural-log space, the scale on which latency noise is
// roughly symmetric and a ratio is a difference.
type obs struct {
	key CellKey
	// trials[r] holds the variant's log trial p50s of round r (possibly empty if a round had
	// no usable trial).
	trials [][]float64
	// natives[name][r] holds a native's log trial p50s in round r; only natives present in
	// every round of the cell are kept.
	natives map[string][][]float64
}

// design is the experiment's round order, shared by every cell.
type design struct {
	order []Variant
}

func (d design) isCandidate(r int) bool { return d.order[r] == Candidate }

func (d design) count(v Variant) int {
	n := 0
	for _, o := range d.order {
		if o == v {
			n++
		}
	}
	return n
}

// prepare validates in and converts it to log space. Malformed input (cells with different
// round orders, unknown variants, negative durations, duplicate cells) is an error; missing
// measurements that a real run can produce (a trial without a passing response, a native
// absent from some round) become warnings.
func prepare(in Input) (design, []obs, []string, error) {
	var warnings []string
	if len(in.Cells) == 0 {
		return design{}, nil, nil, fmt.Errorf("experiment: no cells")
	}
	for v, n := range in.Failures {
		if v != Baseline && v != Candidate {
			return design{}, nil, nil, fmt.Errorf("experiment: failures for unknown variant %q", v)
		}
		if n < 0 {
			return design{}, nil, nil, fmt.Errorf("experiment: negative failure count %d for %s", n, v)
		}
	}
	var d design
	seen := make(map[CellKey]bool)
	cells := make([]obs, 0, len(in.Cells))
	for ci, c := range in.Cells {
		if seen[c.Key] {
			return design{}, nil, nil, fmt.Errorf("experiment: cell %v given twice", c.Key)
		}
		seen[c.Key] = true
		order := make([]Variant, len(c.Rounds))
		for r, round := range c.Rounds {
			if round.Variant != Baseline && round.Variant != Candidate {
				return design{}, nil, nil, fmt.Errorf("experiment: cell %v round %d: unknown variant %q", c.Key, r+1, round.Variant)
			}
			order[r] = round.Variant
		}
		if ci == 0 {
			d.order = order
		} else if !slices.Equal(order, d.order) {
			return design{}, nil, nil, fmt.Errorf("experiment: cell %v has round order %v, cell %v has %v; rounds are the experiment's, every cell must share them",
				c.Key, order, in.Cells[0].Key, d.order)
		}
		o := obs{key: c.Key, trials: make([][]float64, len(c.Rounds))}
		present := make(map[string]int)
		for r, round := range c.Rounds {
			logs, skipped, err := logDurations(round.Trials)
			if err != nil {
				return design{}, nil, nil, fmt.Errorf("experiment: cell %v round %d (%s): %w", c.Key, r+1, round.Variant, err)
			}
			if skipped > 0 {
				warnings = append(warnings, fmt.Sprintf("cell %v round %d (%s): %d trial(s) without a p50 (no passing response) skipped", c.Key, r+1, round.Variant, skipped))
			}
			o.trials[r] = logs
			for name, ds := range round.Natives {
				for _, x := range ds {
					if x < 0 {
						return design{}, nil, nil, fmt.Errorf("experiment: cell %v round %d native %q: negative trial p50 %v", c.Key, r+1, name, x)
					}
				}
				if slices.ContainsFunc(ds, func(x time.Duration) bool { return x > 0 }) {
					present[name]++
				}
			}
		}
		for _, name := range slices.Sorted(maps.Keys(present)) {
			if present[name] < len(c.Rounds) {
				warnings = append(warnings, fmt.Sprintf("cell %v: native %q measured in %d of %d rounds; not used as a control there", c.Key, name, present[name], len(c.Rounds)))
				continue
			}
			if o.natives == nil {
				o.natives = make(map[string][][]float64)
			}
			series := make([][]float64, len(c.Rounds))
			for r, round := range c.Rounds {
				series[r], _, _ = logDurations(round.Natives[name])
			}
			o.natives[name] = series
		}
		cells = append(cells, o)
	}
	return d, cells, warnings, nil
}

// logDurations returns the natural logs of the positive durations of ds (in nanoseconds),
// how many zero durations it skipped, and an error for a negative one.
func logDurations(ds []time.Duration) ([]float64, int, error) {
	out := make([]float64, 0, len(ds))
	skipped := 0
	for _, x := range ds {
		switch {
		case x < 0:
			return nil, 0, fmt.Errorf("negative trial p50 %v", x)
		case x == 0:
			skipped++
		default:
			out = append(out, math.Log(float64(x)))
		}
	}
	return out, skipped, nil
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

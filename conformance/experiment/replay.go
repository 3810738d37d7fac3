package experiment

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"
)

// ReplayConfig describes pseudo-experiments drawn from a recorded A/A experiment.
type ReplayConfig struct {
	// Rounds is the rounds of each pseudo-experiment, whole ABBA blocks.
	Rounds int
	// Effects[i] multiplies the variant's trial p50s in the candidate rounds of the i-th
	// cell (in ReplayCells order); missing or zero means 1, an A/A.
	Effects []float64
	// Experiments to draw (1000 when zero) from Seed.
	Experiments int
	Seed        uint64
	Options     Options
}

// replayData is an A/A record arranged for replay: per cell, per round (in run order), the
// variant's and each native's trial p50s.
type replayData struct {
	keys    []CellKey
	rounds  int
	variant [][][]time.Duration            // [cell][round] trials
	natives []map[string][][]time.Duration // [cell] name -> [round] trials
}

// ReplayCells lists the cells of an A/A record in the order Replay's Effects index them:
// operations in the order the record first names them, each at its client counts, smallest
// first (get@1, get@8, page@1, ...).
func ReplayCells(a *AARecord) []CellKey {
	var ops []string
	clients := map[int]bool{}
	for _, t := range a.Trials {
		if t.Target != a.Variant {
			continue
		}
		if !slices.Contains(ops, t.Op) {
			ops = append(ops, t.Op)
		}
		clients[t.Clients] = true
	}
	var keys []CellKey
	for _, op := range ops {
		for _, n := range slices.Sorted(maps.Keys(clients)) {
			keys = append(keys, CellKey{Op: op, Clients: n})
		}
	}
	// Keep only cells the record has.
	has := map[CellKey]bool{}
	for _, t := range a.Trials {
		if t.Target == a.Variant {
			has[CellKey{t.Op, t.Clients}] = true
		}
	}
	return slices.DeleteFunc(keys, func(k CellKey) bool { return !has[k] })
}

func arrange(a *AARecord) (replayData, error) {
	keys := ReplayCells(a)
	if len(keys) == 0 {
		return replayData{}, fmt.Errorf("replay: the record has no trials of its variant %q", a.Variant)
	}
	roundSet := map[int]bool{}
	for _, t := range a.Trials {
		roundSet[t.Round] = true
	}
	order := slices.Sorted(maps.Keys(roundSet))
	index := make(map[int]int, len(order))
	for i, r := range order {
		index[r] = i
	}
	d := replayData{keys: keys, rounds: len(order), variant: make([][][]time.Duration, len(keys)), natives: make([]map[string][][]time.Duration, len(keys))}
	cell := make(map[CellKey]int, len(keys))
	for i, k := range keys {
		cell[k] = i
		d.variant[i] = make([][]time.Duration, len(order))
		d.natives[i] = map[string][][]time.Duration{}
	}
	for _, t := range a.Trials {
		c, ok := cell[CellKey{t.Op, t.Clients}]
		if !ok {
			continue
		}
		r := index[t.Round]
		if t.Target == a.Variant {
			d.variant[c][r] = t.P50
			continue
		}
		if d.natives[c][t.Target] == nil {
			d.natives[c][t.Target] = make([][]time.Duration, len(order))
		}
		d.natives[c][t.Target][r] = t.P50
	}
	for c, k := range keys {
		for r, ts := range d.variant[c] {
			if len(ts) == 0 {
				return replayData{}, fmt.Errorf("replay: variant %q has no trials in %v round %d", a.Variant, k, order[r])
			}
		}
	}
	return d, nil
}

// input builds a pseudo-experiment from the record's blocks of four rounds picked (in run
// order), each labelled ABBA, or BAAB where flip says so.
func (d replayData) input(blocks []int, flip []bool, effects []float64) Input {
	n := 4 * len(blocks)
	in := Input{Cells: make([]Cell, len(d.keys))}
	for c, k := range d.keys {
		cell := Cell{Key: k, Rounds: make([]Round, 0, n)}
		eff := effect(effects, c)
		for bi, b := range blocks {
			for q, v := range ABBA(1) {
				if flip[bi] {
					v = map[Variant]Variant{Baseline: Candidate, Candidate: Baseline}[v]
				}
				r := 4*b + q
				round := Round{Variant: v, Natives: make(map[string][]time.Duration, len(d.natives[c]))}
				round.Trials = slices.Clone(d.variant[c][r])
				if v == Candidate && eff != 1 {
					for j, x := range round.Trials {
						round.Trials[j] = time.Duration(math.Round(float64(x) * eff))
					}
				}
				for name, rs := range d.natives[c] {
					round.Natives[name] = rs[r]
				}
				cell.Rounds = append(cell.Rounds, round)
			}
		}
		in.Cells[c] = cell
	}
	return in
}

// Replay runs pseudo-experiments on a recorded A/A experiment's own noise. The record's
// rounds are taken in blocks of four as it ran them (rounds 1-4, 5-8, ...: an experiment's
// ABBA blocks, within which conform balances the targets' places in every step); each
// pseudo-experiment picks cfg.Rounds/4 of those blocks at random, keeps them in run order,
// labels each block's rounds baseline, candidate, candidate, baseline or the reverse at
// random, and analyses them as Analyze does. Every round measured the same variant, so with
// no Effects every rejection is false: the share rejected is the method's false-reject rate
// on that machine's real noise, whatever shape it has (heavy tails, cells noisier than
// others, drift, a target's place in a step), which no noise model has to capture. With
// Effects the candidate rounds are slowed by that factor, for power on the same noise. The
// draws share blocks, so the rates carry more uncertainty than their count suggests: a
// record of B blocks gives C(B, cfg.Rounds/4) different picks, each with 2^(cfg.Rounds/4)
// labellings.
func Replay(a *AARecord, cfg ReplayConfig) (SimResult, error) {
	d, err := arrange(a)
	if err != nil {
		return SimResult{}, err
	}
	if cfg.Rounds < 4 || cfg.Rounds%4 != 0 {
		return SimResult{}, fmt.Errorf("replay: %d rounds is not a whole number of ABBA blocks", cfg.Rounds)
	}
	blocks := d.rounds / 4
	if cfg.Rounds/4 > blocks {
		return SimResult{}, fmt.Errorf("replay: the record has %d whole blocks of 4 rounds, fewer than the %d of a %d-round pseudo-experiment", blocks, cfg.Rounds/4, cfg.Rounds)
	}
	if cfg.Experiments == 0 {
		cfg.Experiments = 1000
	}
	rng := newRand(cfg.Seed)
	res := SimResult{Experiments: cfg.Experiments, Verdicts: map[Verdict]int{}, Flagged: make([]int, len(d.keys))}
	k := cfg.Rounds / 4
	for range cfg.Experiments {
		picked := rng.Perm(blocks)[:k]
		slices.Sort(picked)
		flip := make([]bool, k)
		for i := range flip {
			flip[i] = rng.IntN(2) == 1
		}
		r, err := analyze(d.input(picked, flip, cfg.Effects), cfg.Options, false)
		if err != nil {
			return SimResult{}, err
		}
		res.tally(r, cfg.Effects)
	}
	return res, nil
}

// ReplayPlan is what a plan can see on a recorded A/A experiment's own noise (Replay).
type ReplayPlan struct {
	// Rounds of each pseudo-experiment, drawn from the record's Blocks blocks of 4 rounds;
	// Experiments per figure.
	Rounds, Blocks, Experiments int
	Change                      float64
	// AAReject is the share of pseudo A/A experiments rejected (false rejections), AAAny the
	// share with some cell significant before the practical threshold.
	AAReject, AAAny float64
	// AllCells is the share rejected with every cell's candidate rounds Change slower;
	// OneCell, per cell, the share in which that cell, alone Change slower, was named.
	AllCells float64
	OneCell  map[CellKey]float64
	Keys     []CellKey
}

// ReplayPlanOn replays the plan's rounds on the record (n pseudo-experiments per figure, 200
// when 0) for the A/A false-reject rate, the chance to reject change in every cell and to
// name it in each cell alone. It needs more whole blocks of 4 rounds in the record than
// the plan has, or every pseudo-experiment would be the same rounds.
func ReplayPlanOn(a *AARecord, plan Plan, n int, seed uint64) (ReplayPlan, error) {
	if n == 0 {
		n = 200
	}
	d, err := arrange(a)
	if err != nil {
		return ReplayPlan{}, err
	}
	out := ReplayPlan{Rounds: plan.Rounds, Blocks: d.rounds / 4, Experiments: n, Change: plan.Change, Keys: d.keys, OneCell: map[CellKey]float64{}}
	if out.Blocks <= plan.Rounds/4 {
		return out, fmt.Errorf("replay: the record has %d whole blocks of 4 rounds; a %d-round plan needs more than %d to draw different pseudo-experiments", out.Blocks, plan.Rounds, plan.Rounds/4)
	}
	cfg := ReplayConfig{Rounds: plan.Rounds, Experiments: n, Seed: seed, Options: plan.Options}
	aa, err := Replay(a, cfg)
	if err != nil {
		return out, err
	}
	out.AAReject, out.AAAny = aa.Rate(aa.Verdicts[Reject]), aa.Rate(aa.AnySignificant)
	all := make([]float64, len(d.keys))
	for i := range all {
		all[i] = 1 + plan.Change
	}
	cfg.Effects, cfg.Seed = all, seed+1
	r, err := Replay(a, cfg)
	if err != nil {
		return out, err
	}
	out.AllCells = r.Rate(r.Verdicts[Reject])
	for i, k := range d.keys {
		one := make([]float64, len(d.keys))
		one[i] = 1 + plan.Change
		cfg.Effects, cfg.Seed = one, seed+2+uint64(i)
		r, err := Replay(a, cfg)
		if err != nil {
			return out, err
		}
		out.OneCell[k] = r.Rate(r.Flagged[i])
	}
	return out, nil
}

// String says the replay in a few lines, for a dry run.
func (p ReplayPlan) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "replayed on the record's own noise (%d pseudo-experiments of %d rounds per figure, drawn from its %d blocks of 4 rounds, each labelled ABBA or BAAB):\n",
		p.Experiments, p.Rounds, p.Blocks)
	fmt.Fprintf(&b, "  A/A: rejected in %.1f%% (some cell significant in %.1f%%); at most 5%% is the method's promise\n", 100*p.AAReject, 100*p.AAAny)
	fmt.Fprintf(&b, "  %.0f%% slower in every cell: rejected in %.0f%%\n", 100*p.Change, 100*p.AllCells)
	parts := make([]string, 0, len(p.Keys))
	for _, k := range p.Keys {
		parts = append(parts, fmt.Sprintf("%v %.0f%%", k, 100*p.OneCell[k]))
	}
	fmt.Fprintf(&b, "  %.0f%% slower in one cell, named: %s\n", 100*p.Change, strings.Join(parts, ", "))
	return b.String()
}

package experiment

import (
	"fmt"
	"math"
)

// By default (Options.NativeWeight nil) the natives' weight as controls is estimated from
// the data (nativesEstimated): the regression slope of the variant's round effects on the
// natives', taken within rounds across the cells of a client count and shrunk to 0 without
// correlation. A fixed weight chosen before the experiment (Noise.NativeWeight from recorded
// A/A runs) is still possible. SIMULATION.md shows why: a fixed weight of 0.5 moves the
// natives' own warm-up (a JVM compiling and filling caches over the first rounds) straight
// into the candidate/baseline ratio and its variance.

// trendFrom is the number of rounds from which each cell's model includes a linear trend in
// the round index. The ABBA contrast is orthogonal to such a trend, so the estimate does not
// change; the trend only leaves the residual variance, where a steady drift otherwise
// swamps it as rounds accumulate (SIMULATION.md: under a 2%/round trend, one 5% regression
// over 12 rounds is named 1.5% of the time without the term, 52% with it). Below 8 rounds the
// degree of freedom it costs each cell is dearer than what it buys.
const trendFrom = 8

// declarableTarget is the change RoundsReport projects rounds for: the smaller of the lab's
// two power targets (5% and 10%).
const declarableTarget = 0.05

// Weight returns a pointer to w, for Options.NativeWeight.
func Weight(w float64) *float64 { return &w }

func (o Options) roundMethod() roundModel {
	m := roundModel{natives: nativesEstimated, pool: twoStrata, byClient: true, trendFrom: trendFrom, moderate: true}
	if o.NativeWeight != nil {
		m.natives, m.weight = nativesFixed, *o.NativeWeight
		if m.weight == 0 {
			m.natives = nativesIgnored
		}
	}
	return m
}

// Method describes the estimator and the test that Analyze uses with opts, for reports.
func Method(opts Options) string {
	opts = opts.withDefaults()
	m, ok := opts.method.(roundModel)
	if !ok {
		return opts.method.name()
	}
	natives := "natives not used"
	switch m.natives {
	case nativesFixed:
		natives = fmt.Sprintf("each round adjusted by the native engines measured in it (minus %.2g times their mean log p50)", m.weight)
	case nativesFitted:
		natives = "each round adjusted by the native engines measured in it (slope fitted per group)"
	case nativesEstimated:
		natives = "each round adjusted by the native engines measured in it, minus b times their mean log p50, " +
			"b estimated per client count from the cells' own round deviations (CUPED-style regression, shrunk by max(0, 1-1/t^2), within [0, 1]: 0 without correlation), " +
			"and from 8 rounds on a second b, estimated the same way, for the round effect common to those cells"
	}
	trend := ""
	if m.trendFrom > 0 {
		trend = fmt.Sprintf(", with a linear trend over rounds from %d rounds on", m.trendFrom)
	}
	return fmt.Sprintf("estimator: candidate/baseline ratio of geometric-mean trial p50s from round means of log p50 "+
		"(the trials of a round share its conditions and count once), %s; "+
		"test: Student t on candidate vs baseline round means%s, %s, Satterthwaite df; "+
		"%.0f%% t interval per cell; Holm over cells at family-wise alpha %.2g; "+
		"a cell is regressed or improved when significant with the ratio beyond ±%.1f%%, no-change when its whole interval lies within ±%.1f%%, undecided otherwise (its interval too wide to tell)",
		natives, trend, strata(m), 100*(1-opts.Alpha), opts.Alpha, 100*opts.Threshold, 100*opts.Threshold)
}

func strata(m roundModel) string {
	group := "over all cells"
	if m.byClient {
		group = "over the cells at the same client count"
	}
	switch m.pool {
	case perCell:
		return "each cell's own residual variance of round means"
	case pooledCells:
		return "residual variance of round means pooled " + group
	}
	if m.moderate {
		return "residual variance of round means pooled " + group + ", a round effect common to those cells estimated apart (split-plot), " +
			"and each cell's own variance moderated towards that pool by empirical Bayes (limma-style prior df from the cells' spread: the pool when the cells agree, the cell's own when they do not)"
	}
	return "residual variance of round means pooled " + group + ", a round effect common to those cells estimated apart (split-plot)"
}

// RoundsReport says what an experiment's rounds can support.
type RoundsReport struct {
	Rounds, BaselineRounds, CandidateRounds int
	// DriftBalanced reports that the order cancels a drift linear in time, as ABBA blocks do.
	DriftBalanced bool
	// HolmFirst is the p-value Holm's first rejection needs: Alpha over the tested cells.
	HolmFirst float64

	// The round model's test has no floor on its p-value once it has residual degrees of
	// freedom (at least 3 rounds with both variants); what limits it is the noise.
	// ResidualDF is the smallest degrees of freedom of a cell's test. MinDeclarable is the
	// smallest change (a fraction of the baseline) that reaches HolmFirst with the measured
	// variance, the largest over cells; a true change of that size is declared about half the
	// time. RoundsForTarget is the number of rounds, in whole ABBA blocks, that would bring
	// MinDeclarable down to 5% at the same noise. NaN or 0 when no cell could be tested.
	ResidualDF, MinDeclarable float64
	RoundsForTarget           int
	// Noisiest is the cell of MinDeclarable; MinDeclarableBest and Quietest are the smallest
	// cell's figure and that cell. PerCell holds every cell's figure in the input's order
	// (NaN where untested); CellResult.MinDeclarable repeats it.
	Noisiest, Quietest CellKey
	MinDeclarableBest  float64
	PerCell            []float64
	// PerCellRounds holds, in the same order, the rounds each cell would need to declare 5%
	// (roundsFor; 0 when more than 400 or untested).
	PerCellRounds []int
	// worst is the noisiest cell's test, for projections to other changes.
	worst cellTest

	// PermutationMinP is the smallest two-sided p-value an exact permutation test of the
	// round labels can reach with these rounds, whatever the data: the floor of any
	// assumption-free round-level test. PermutationRoundsNeeded is the smallest balanced
	// number of rounds whose floor is at most HolmFirst.
	PermutationMinP         float64
	PermutationRoundsNeeded int

	Warnings []string
}

func roundsReport(d design, keys []CellKey, tests []cellTest, alpha float64) RoundsReport {
	rr := RoundsReport{Rounds: len(d.order), BaselineRounds: d.count(Baseline), CandidateRounds: d.count(Candidate)}
	tested := 0
	for _, t := range tests {
		if t.ok {
			tested++
		}
	}
	rr.HolmFirst = alpha / float64(max(tested, 1))
	rr.PerCell = perCellDeclarable(tests, rr.HolmFirst)
	rr.PerCellRounds = make([]int, len(tests))
	rr.PermutationMinP = rankSumMinP(rr.BaselineRounds, rr.CandidateRounds)
	for n := 1; n < 1000; n++ {
		if rankSumMinP(n, n) <= rr.HolmFirst {
			rr.PermutationRoundsNeeded = 2 * n
			break
		}
	}
	rr.DriftBalanced = driftBalanced(d)
	if rr.BaselineRounds == 0 || rr.CandidateRounds == 0 || rr.Rounds < 3 {
		rr.ResidualDF, rr.MinDeclarable = math.NaN(), math.NaN()
		rr.Warnings = append(rr.Warnings, fmt.Sprintf("%d round(s) (%d baseline, %d candidate) are too few to test: the round model needs at least 3 rounds with both variants; 4 in ABBA order is the smallest design that also cancels linear drift",
			rr.Rounds, rr.BaselineRounds, rr.CandidateRounds))
		return rr
	}
	if !rr.DriftBalanced {
		rr.Warnings = append(rr.Warnings, fmt.Sprintf("round order %v does not cancel a linear drift: the estimates may carry it; use whole ABBA blocks", d.order))
	}
	if rr.PermutationMinP > rr.HolmFirst {
		rr.Warnings = append(rr.Warnings, fmt.Sprintf("%d rounds are too few for an assumption-free conclusion: an exact permutation test of the round labels cannot go below p=%.3g, above the %.2g Holm needs over %d cells, and would need %d rounds; the verdict rests on the round model's assumptions (log-normal round effects, each cell's own variance below 12 rounds, moderated towards its client count's from 12 on)",
			rr.Rounds, rr.PermutationMinP, rr.HolmFirst, max(tested, 1), rr.PermutationRoundsNeeded))
	}
	rr.ResidualDF, rr.MinDeclarable = math.Inf(1), 0
	rr.MinDeclarableBest = math.Inf(1)
	var worst cellTest
	for i, t := range tests {
		if !t.ok {
			continue
		}
		rr.PerCellRounds[i] = roundsFor(declarableTarget, t, rr)
		rr.ResidualDF = math.Min(rr.ResidualDF, t.df)
		c := rr.PerCell[i]
		if c > rr.MinDeclarable {
			rr.MinDeclarable, worst, rr.Noisiest = c, t, keys[i]
		}
		if c < rr.MinDeclarableBest {
			rr.MinDeclarableBest, rr.Quietest = c, keys[i]
		}
	}
	if tested == 0 {
		rr.ResidualDF, rr.MinDeclarable, rr.MinDeclarableBest = math.NaN(), math.NaN(), math.NaN()
		return rr
	}
	rr.worst = worst
	rr.RoundsForTarget = roundsFor(declarableTarget, worst, rr)
	if rr.MinDeclarable > declarableTarget {
		need := "more than 400 rounds"
		if rr.RoundsForTarget > 0 {
			need = fmt.Sprintf("about %d rounds", rr.RoundsForTarget)
		}
		// The smallest declarable change is a cell's own: a cell with little noise can declare
		// a large change while the noisiest cannot, so the warning names both ends.
		span := fmt.Sprintf("%s (%v, the noisiest cell)", pctOrMore(rr.MinDeclarable), rr.Noisiest)
		if tested > 1 && rr.Quietest != rr.Noisiest {
			span = fmt.Sprintf("%s (%v) to %s (%v)", pctOrMore(rr.MinDeclarableBest), rr.Quietest, pctOrMore(rr.MinDeclarable), rr.Noisiest)
		}
		rr.Warnings = append(rr.Warnings, fmt.Sprintf("with %d rounds and the measured noise the smallest change a cell can declare is %s: a true change of that size is declared about half the time (Holm's first step over %d cells, alpha %.2g, which later steps relax once other cells are declared; each cell's figure is in its row); %s would be needed to declare a %.0f%% change in every cell",
			rr.Rounds, span, tested, alpha, need, 100*declarableTarget))
	}
	return rr
}

// perCellDeclarable is each tested cell's smallest declarable change: the change whose
// estimate reaches Holm's first step (alpha over the tested cells) with the cell's own
// standard error and degrees of freedom; NaN for an untested cell.
func perCellDeclarable(tests []cellTest, holmFirst float64) []float64 {
	out := make([]float64, len(tests))
	quantiles := make(map[float64]float64) // cells of a pooling group share their df
	for i, t := range tests {
		out[i] = math.NaN()
		if !t.ok {
			continue
		}
		q, ok := quantiles[t.df]
		if !ok {
			q = studentQuantile(1-holmFirst/2, t.df)
			quantiles[t.df] = q
		}
		out[i] = math.Expm1(q * t.se)
	}
	return out
}

// roundsFor projects the rounds (whole ABBA blocks) at which the smallest declarable change
// falls to target, assuming the round variance stays as measured: the standard error shrinks
// with the square root of the rounds and the degrees of freedom grow with R-2. It returns 0
// when more than 400 rounds would be needed.
func roundsFor(target float64, t cellTest, rr RoundsReport) int {
	R := float64(rr.Rounds)
	k := 1/float64(rr.BaselineRounds) + 1/float64(rr.CandidateRounds)
	s := t.se / math.Sqrt(k) // standard deviation of a round mean's residual
	for blocks := 1; blocks <= 100; blocks++ {
		R2 := float64(4 * blocks)
		df := t.df * (R2 - 2) / (R - 2) // roughly: ignores the trend term's degree of freedom
		q := studentQuantile(1-rr.HolmFirst/2, df)
		if math.Expm1(q*s*math.Sqrt(4/R2)) <= target {
			return 4 * blocks
		}
	}
	return 0
}

// driftBalanced reports whether the candidate-minus-baseline contrast of round means is
// orthogonal to a linear trend in the round index.
func driftBalanced(d design) bool {
	nb, nc := d.count(Baseline), d.count(Candidate)
	if nb == 0 || nc == 0 {
		return false
	}
	var lin float64
	mid := float64(len(d.order)-1) / 2
	for r := range d.order {
		w := -1 / float64(nb)
		if d.isCandidate(r) {
			w = 1 / float64(nc)
		}
		lin += w * (float64(r) - mid)
	}
	return math.Abs(lin) < 1e-9
}

// MaxDeclarable is the largest smallest-declarable change reports give as a figure: beyond
// it (latency doubled) a plan cannot declare any change a gate is for, and the figure, which
// grows without bound as the noise does (482163681% was printed once), says nothing more.
const MaxDeclarable = 1.0

// pctOrMore is a declarable change as a percentage, or "more than 100%" beyond MaxDeclarable.
func pctOrMore(v float64) string {
	if v > MaxDeclarable {
		return fmt.Sprintf("more than %.0f%%", 100*MaxDeclarable)
	}
	return fmt.Sprintf("%.1f%%", 100*v)
}

// DeclarableText is a cell's smallest declarable change in a report: "4.2%"; beyond
// MaxDeclarable, in words with the rounds that would declare 5% ("cannot declare any change
// under 100% at this plan: needs about 24 rounds for 5%"); "–" when the cell was not tested.
func DeclarableText(v float64, roundsFor int) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0) && v < 0:
		return "–"
	case v <= MaxDeclarable:
		return fmt.Sprintf("%.1f%%", 100*v)
	}
	need := "more than 400 rounds"
	if roundsFor > 0 {
		need = fmt.Sprintf("about %d rounds", roundsFor)
	}
	return fmt.Sprintf("cannot declare any change under %.0f%% at this plan: needs %s for %.0f%%", 100*MaxDeclarable, need, 100*declarableTarget)
}

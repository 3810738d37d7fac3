package experiment

import (
	"fmt"
	"maps"
	"math"
	"slices"
)

// cellTest is one cell's comparison on the log scale: est is the log of the
// candidate/baseline ratio with standard error se on df degrees of freedom, [lo, hi] its
// interval at 1-alpha, p the raw two-sided p-value. ok is false when the cell could not be
// tested (note says why).
type cellTest struct {
	est, se, df float64
	lo, hi      float64
	p           float64
	// beta is the natives' weight the cell's estimate used (fixed or estimated); betaCommon
	// the weight of the round effect common to the cells when it has its own (hasCommon).
	beta, betaCommon float64
	hasCommon        bool
	ok               bool
	note             string
	// The pieces of the variance that moderation recombines (twoStrata): the group's pooled
	// residual variance of a round and its df, the cell's own (the mean square of its round
	// residuals) and its df, the design factor k and the slopes' share of the variance.
	pool, poolDF, own, ownDF, k, extra float64
}

// method is a per-cell test over an experiment. The analysis uses roundModel with the
// settings of Options; the other settings and trialRankSum exist so the simulator can show,
// through the same code path, why they were not chosen.
type method interface {
	name() string
	test(d design, cells []obs, alpha float64) ([]cellTest, []string)
}

// nativeUse says how a round's native engines enter the model.
type nativeUse int

const (
	// nativesIgnored: the variant's round means alone.
	nativesIgnored nativeUse = iota
	// nativesFixed: each round's variant mean minus weight times the natives' mean, a
	// weight fixed before the experiment (1 divides the variant's latency by the natives').
	nativesFixed
	// nativesFitted: the natives' round mean as a covariate whose slope is fitted by least
	// squares within each pooling group (analysis of covariance). Rejected: with four rounds
	// the slope overfits round effects common to the cells (see SIMULATION.md).
	nativesFitted
	// nativesEstimated: the slope is estimated from the data, CUPED-style, but only from the
	// cells' own round deviations (each cell's round residual minus the group's mean residual
	// in that round), so the round effect common to the group's cells, where the natives'
	// warm-up and the variant's restarts live and which has only R-2 degrees of freedom,
	// never fits it. The least-squares slope b is shrunk towards 0 by max(0, 1-1/t^2), t its
	// t statistic, and clamped to [0, 1]: without correlation the natives drop out. The slope
	// costs the cells' stratum one degree of freedom and adds its variance to every estimate.
	nativesEstimated
)

// pooling says where the residual variance of round means is estimated.
type pooling int

const (
	// perCell: from each cell's own rounds (R-2 degrees of freedom).
	perCell pooling = iota
	// pooledCells: one variance from the rounds of all cells of a group, which assumes the
	// cells' round effects are independent.
	pooledCells
	// twoStrata: a round effect common to the cells of a group is estimated apart from the
	// cells' own (a split-plot analysis); their sum has Satterthwaite's degrees of freedom.
	twoStrata
)

// roundModel is the round-level linear model of log p50.
//
// Each round of a cell is summarised by the mean of its variant's log trial p50s, so the
// trials of a round, which share its conditions, count once. With natives, the response is
// that mean minus weight times the natives' mean log p50 in the same round. A cell's effect
// is the difference of its candidate and baseline round means (with ABBA orders this
// contrast cancels linear drift), tested with Student's t against the residual variance of
// the round means, pooled over the cells of a group: the cells at one client count
// (byClient) or all cells. Under twoStrata, the residual is split into a part common to the
// group's cells in a round (machine drift, a restart) and the cells' own part.
type roundModel struct {
	natives  nativeUse
	weight   float64
	pool     pooling
	byClient bool
	// trendFrom, when positive, adds a linear trend in the round index to each cell's
	// model from that many rounds on.
	trendFrom int
	// moderate (twoStrata only) gives each cell a residual variance of its own, moderated
	// towards its group's pooled one by empirical Bayes (moderateVariances).
	moderate bool
}

func (m roundModel) name() string {
	n := ""
	switch m.natives {
	case nativesFixed:
		n = fmt.Sprintf(", natives weight %.2g", m.weight)
	case nativesFitted:
		n = ", natives slope fitted"
	case nativesEstimated:
		n = ", natives slope estimated within rounds, shrunk"
	}
	if m.trendFrom > 0 {
		n += fmt.Sprintf(", trend from %d rounds", m.trendFrom)
	}
	if m.moderate {
		n += ", cell variances moderated"
	}
	p := map[pooling]string{perCell: "per cell", pooledCells: "pooled", twoStrata: "two strata"}[m.pool]
	if m.pool != perCell {
		if m.byClient {
			p += " by client count"
		} else {
			p += " over all cells"
		}
	}
	return "round t (" + p + n + ")"
}

func (m roundModel) test(d design, cells []obs, alpha float64) ([]cellTest, []string) {
	var warnings []string
	out := make([]cellTest, len(cells))
	if d.count(Candidate) == 0 || d.count(Baseline) == 0 {
		for i := range out {
			out[i] = untested("both variants need at least one round")
		}
		return out, warnings
	}
	use := m.natives
	none := true
	for _, o := range cells {
		none = none && len(o.natives) == 0
	}
	if use != nativesIgnored && none {
		warnings = append(warnings, "no native engine was measured: the rounds are not adjusted by controls (--native adds them)")
		use = nativesIgnored
	}
	if use != nativesIgnored {
		for _, o := range cells {
			if len(o.natives) == 0 {
				warnings = append(warnings, fmt.Sprintf("cell %v has no native engine measured in every round: natives not used as controls in any cell", o.key))
				use = nativesIgnored
				break
			}
		}
	}
	groups := make(map[int][]int)
	var keys []int
	for c, o := range cells {
		if r := slices.IndexFunc(o.trials, func(t []float64) bool { return len(t) == 0 }); r >= 0 {
			out[c] = untested(fmt.Sprintf("round %d has no trial p50", r+1))
			continue
		}
		g := 0
		if m.byClient {
			g = o.key.Clients
		}
		if _, ok := groups[g]; !ok {
			keys = append(keys, g)
		}
		groups[g] = append(groups[g], c)
	}
	slices.Sort(keys)
	for _, g := range keys {
		m.fitGroup(use, d, cells, groups[g], out)
	}
	if m.moderate && m.pool == twoStrata {
		moderateVariances(out, len(d.order))
	}
	quantiles := make(map[float64]float64)
	for c, t := range out {
		if !t.ok {
			continue
		}
		q, ok := quantiles[t.df]
		if !ok {
			q = studentQuantile(1-alpha/2, t.df)
			quantiles[t.df] = q
		}
		out[c].p = studentTwoSidedP(t.est/t.se, t.df)
		out[c].lo, out[c].hi = t.est-q*t.se, t.est+q*t.se
	}
	return out, warnings
}

func untested(note string) cellTest {
	nan := math.NaN()
	return cellTest{note: note, est: nan, se: nan, df: nan, lo: nan, hi: nan, p: nan}
}

// fitGroup fits the round model to the cells of one pooling group (indices live into
// cells) and fills their est, se and df.
func (m roundModel) fitGroup(use nativeUse, d design, cells []obs, live []int, out []cellTest) {
	R := len(d.order)
	fit := newDesignFit(d, m.trendFrom > 0 && R >= m.trendFrom)
	k := fit.k // variance of a cell's estimate, per unit residual variance of a round
	resid := fit.resid
	P := float64(fit.params)
	L := len(live)
	ey, dy := make([][]float64, L), make([]float64, L)
	ex, dx := make([][]float64, L), make([]float64, L)
	for i, c := range live {
		o := cells[c]
		y := make([]float64, R)
		for r := range R {
			y[r] = mean(o.trials[r])
		}
		ey[i], dy[i] = resid(y)
		if use == nativesIgnored {
			continue
		}
		names := slices.Sorted(maps.Keys(o.natives))
		x := make([]float64, R)
		for _, n := range names {
			for r := range R {
				x[r] += mean(o.natives[n][r]) / float64(len(names))
			}
		}
		ex[i], dx[i] = resid(x)
	}
	beta, lostDF := 0.0, 0.0
	var sxx float64
	// betaVar scales the slope's variance term (msDev*dx^2/sxx) in a cell's variance: 1 for
	// a least-squares slope, the square of the shrinkage for an estimated one.
	betaVar := 1.0
	switch use {
	case nativesFixed:
		beta = m.weight
	case nativesFitted:
		var sxy float64
		for i := range live {
			for r := range R {
				sxy += ey[i][r] * ex[i][r]
				sxx += ex[i][r] * ex[i][r]
			}
		}
		if sxx > 0 {
			beta, lostDF = sxy/sxx, 1
		}
	case nativesEstimated:
		var shrink float64
		beta, shrink, sxx = devSlope(ey, ex, P)
		lostDF, betaVar = 1, shrink*shrink
	}
	// From enough rounds on, an estimated weight gets a second slope for the round effect
	// common to the group's cells (machine drift, a trend the natives share), fitted on the
	// cells' mean residuals and shrunk the same way; it costs the common stratum a degree of
	// freedom, which below commonSlopeDF is dearer than what it buys.
	commonSlope := use == nativesEstimated && m.pool == twoStrata && L >= 2 && float64(R)-P-1 >= commonSlopeDF
	var cx []float64
	var bc, shrinkC, sxxC, mdx float64
	if commonSlope {
		cy := make([]float64, R)
		cx = make([]float64, R)
		for i := range live {
			for r := range R {
				cy[r] += ey[i][r] / float64(L)
				cx[r] += ex[i][r] / float64(L)
			}
			mdx += dx[i] / float64(L)
		}
		bc, shrinkC, sxxC = shrunkSlope(cy, cx, float64(R)-P-1)
	}
	e := make([][]float64, L)
	for i := range live {
		e[i] = slices.Clone(ey[i])
		if use != nativesIgnored {
			for r := range R {
				if commonSlope {
					e[i][r] -= bc*cx[r] + beta*(ex[i][r]-cx[r])
				} else {
					e[i][r] -= beta * ex[i][r]
				}
			}
		}
	}
	ss := func(i int) float64 {
		var s float64
		for _, v := range e[i] {
			s += v * v
		}
		return s
	}
	variance := make([]float64, L)
	dfs := make([]float64, L)
	pieces := make([][6]float64, L) // twoStrata: pool, poolDF, own, ownDF, k, extra
	pool := m.pool
	if L == 1 && pool == twoStrata {
		pool = perCell // one cell is its own common stratum
	}
	switch pool {
	case perCell:
		for i := range live {
			if df := float64(R) - P - lostDF; df > 0 {
				variance[i], dfs[i] = k*ss(i)/df, df
			}
		}
	case pooledCells:
		var total float64
		for i := range live {
			total += ss(i)
		}
		if df := float64(L)*(float64(R)-P) - lostDF; df > 0 {
			s2 := total / df
			for i := range live {
				variance[i], dfs[i] = s2*k, df
				if lostDF > 0 && sxx > 0 {
					variance[i] += betaVar * s2 * dx[i] * dx[i] / sxx
				}
			}
		}
	case twoStrata:
		// Split-plot strata: the round residual averaged over the group's cells (R-P df for
		// P parameters per cell) and each cell's deviation from that average ((L-1)(R-P)
		// df). A cell's estimate
		// carries the whole common part and its own part, so its variance is
		// k*(MS_common/L + MS_dev*(1-1/L)), with Satterthwaite's degrees of freedom.
		fl := float64(L)
		common := make([]float64, R)
		for i := range live {
			for r := range R {
				common[r] += e[i][r] / fl
			}
		}
		var ssCommon, ssDev float64
		for r := range R {
			ssCommon += fl * common[r] * common[r]
		}
		for i := range live {
			for r := range R {
				dv := e[i][r] - common[r]
				ssDev += dv * dv
			}
		}
		dfCommon := float64(R) - P
		if commonSlope {
			dfCommon--
		}
		dfDev := (fl-1)*(float64(R)-P) - lostDF
		if dfCommon > 0 && dfDev > 0 {
			msCommon, msDev := ssCommon/dfCommon, ssDev/dfDev
			a, b := msCommon/fl, msDev*(1-1/fl)
			s2 := a + b
			df := s2 * s2 / (a*a/dfCommon + b*b/dfDev)
			// A cell's own residual df: its rounds less the design's parameters and, to be
			// safe, a whole degree of freedom for each slope fitted over the group (each
			// takes its share from the cell's own deviations and the common part of its
			// residual, which every cell carries whole).
			ownDF := float64(R) - P - lostDF
			if commonSlope {
				ownDF--
			}
			for i := range live {
				variance[i], dfs[i] = s2*k, df
				own := dx[i]
				if commonSlope {
					own -= mdx
					if sxxC > 0 {
						variance[i] += shrinkC * shrinkC * a * mdx * mdx / sxxC
					}
				}
				if lostDF > 0 && sxx > 0 {
					variance[i] += betaVar * msDev * own * own / sxx
				}
				pieces[i] = [6]float64{s2, df, ss(i) / ownDF, ownDF, k, variance[i] - s2*k}
			}
		}
	}
	for i, c := range live {
		est := dy[i]
		switch {
		case commonSlope:
			est -= bc*mdx + beta*(dx[i]-mdx)
		case use != nativesIgnored:
			est -= beta * dx[i]
		}
		if use == nativesIgnored {
			beta = 0
		}
		if dfs[i] <= 0 || !(variance[i] > 0) {
			out[c] = untested("no residual variance between rounds: too few rounds, or identical round means")
			out[c].est, out[c].beta = est, beta
			continue
		}
		p := pieces[i]
		out[c] = cellTest{est: est, se: math.Sqrt(variance[i]), df: dfs[i], beta: beta, betaCommon: bc, hasCommon: commonSlope, ok: true,
			pool: p[0], poolDF: p[1], own: p[2], ownDF: p[3], k: p[4], extra: p[5]}
	}
}

// moderateVariances gives every tested cell a residual variance of its own, moderated
// towards its group's pooled variance by empirical Bayes, as limma's moderated t does for
// genes (Smyth 2004, "Linear models and empirical Bayes methods for assessing differential
// expression in microarray experiments"). Pooling over the cells of a client count assumes
// they are equally noisy; on a shared 2-core machine they were not (a cell's round-to-round
// standard deviation up to five times its neighbour's), and a pooled variance then understates
// the noisy cell's variance, which is how an A/A experiment came to reject (SIMULATION.md).
//
// Each cell's own variance v (the mean square of its round residuals, d df) is compared with
// its group's pooled variance s2: the spread of log(v/s2) over all cells, beyond what d
// degrees of freedom explain (trigamma(d/2)), gives the prior degrees of freedom d0 =
// 2 trigammaInverse(excess); without excess spread d0 is infinite and nothing changes. A
// cell's variance becomes (d0 s2 + d v)/(d0 + d), on limma's posterior d0 + d degrees of
// freedom, or Satterthwaite's for that mixture of the pooled variance (its own df) and the
// cell's (d df) where those are fewer: the pooled result when the cells agree, each cell's
// own t test when they do not. (Satterthwaite's alone, d0 estimated from ten cells, let some
// cell be significant in 6.6% of 1000 A/A experiments of 12 rounds simulated at the noise and
// cell scales of testdata/aa-embedded-loaded-2core.json; with the cap, 5.3%.)
//
// Below moderateFrom rounds a cell's own variance has too few degrees of freedom (1 or 2 at 4
// rounds, 3 at 8 with the trend and the slopes) for the spread to tell a noisy cell from a
// quiet one: pooling them anyway rejected 7.8-12.8% of 4-round A/A experiments replayed on the
// recorded 2-core lab runs, and moderating them from 8 rounds 5.0% of simulated 8-round ones
// with cells unequally noisy as measured (some cell significant in 8-10%; SIMULATION.md).
// There every cell keeps its own variance and df: honest, and blind at 4 rounds, which cannot
// conclude.
func moderateVariances(out []cellTest, rounds int) {
	var zs []float64
	var tri float64
	for _, t := range out {
		if t.ok && t.own > 0 && t.pool > 0 && t.ownDF > 0 {
			zs = append(zs, math.Log(t.own/t.pool)-digamma(t.ownDF/2)+math.Log(t.ownDF/2))
			tri += trigamma(t.ownDF / 2)
		}
	}
	// Too few rounds, or too few cells to see a spread: each cell's own variance.
	if rounds < moderateFrom || len(zs) < 3 {
		for i, t := range out {
			switch {
			case !t.ok || t.pool == 0: // not a twoStrata group (a lone cell is its own already)
			case t.ownDF <= 0:
				out[i] = untested("too few rounds for the cell's own residual variance")
				out[i].est, out[i].beta = t.est, t.beta
			case t.own > 0:
				out[i].se, out[i].df = math.Sqrt(t.own*t.k+t.extra), t.ownDF
			}
		}
		return
	}
	mz := mean(zs)
	var ss float64
	for _, z := range zs {
		ss += (z - mz) * (z - mz)
	}
	excess := ss/float64(len(zs)-1) - tri/float64(len(zs))
	if !(excess > 0) {
		return // the cells agree: the pooled variance stands
	}
	d0 := 2 * trigammaInverse(excess)
	for i, t := range out {
		if !(t.ok && t.own > 0 && t.pool > 0 && t.ownDF > 0) {
			continue
		}
		w := d0 / (d0 + t.ownDF)
		a, b := w*t.pool, (1-w)*t.own
		s2 := a + b
		df := math.Min(s2*s2/(a*a/t.poolDF+b*b/t.ownDF), d0+t.ownDF)
		out[i].se = math.Sqrt(s2*t.k + t.extra)
		out[i].df = df
	}
}

// moderateFrom is the fewest rounds at which cells' variances are moderated towards their
// group's pool (a cell's own variance then has about 7 degrees of freedom); below it each
// cell keeps its own (moderateVariances).
const moderateFrom = 12

// commonSlopeDF is the fewest degrees of freedom the common stratum must keep after its own
// slope: 4, so from 8 rounds (with the trend term) on.
const commonSlopeDF = 4

// shrunkSlope fits y = b*x by least squares (no intercept: both are residuals) with df
// residual degrees of freedom and returns b*max(0, 1-1/t^2) clamped to [0, 1], the shrinkage
// and the sum of squares of x.
func shrunkSlope(y, x []float64, df float64) (beta, shrink, sxx float64) {
	var sxy, syy float64
	for r := range y {
		sxy += x[r] * y[r]
		sxx += x[r] * x[r]
		syy += y[r] * y[r]
	}
	if !(sxx > 0) || df <= 0 {
		return 0, 0, sxx
	}
	b := sxy / sxx
	s2 := (syy - b*sxy) / df
	if !(s2 > 0) {
		return clamp01(b), 1, sxx
	}
	shrink = math.Max(0, 1-s2/(b*b*sxx))
	return clamp01(b * shrink), shrink, sxx
}

// devSlope estimates the natives' slope from the cells' own round deviations: ey[i] and
// ex[i] are cell i's round residuals (after the design fit, P parameters) of the variant and
// of the natives' mean. It subtracts each round's mean over the cells (the common stratum),
// fits y = b*x by least squares over what is left, and returns the shrunk slope
// b*max(0, 1-1/t^2) clamped to [0, 1], the shrinkage factor and the deviations' sum of
// squares of x (the slope's information). With fewer than two cells, or no residual degrees
// of freedom, the slope is 0.
func devSlope(ey, ex [][]float64, P float64) (beta, shrink, sxx float64) {
	L := len(ey)
	if L < 2 {
		return 0, 0, 0
	}
	R := len(ey[0])
	cy, cx := make([]float64, R), make([]float64, R)
	for i := range L {
		for r := range R {
			cy[r] += ey[i][r] / float64(L)
			cx[r] += ex[i][r] / float64(L)
		}
	}
	var sxy, syy float64
	for i := range L {
		for r := range R {
			dy, dx := ey[i][r]-cy[r], ex[i][r]-cx[r]
			sxy += dx * dy
			sxx += dx * dx
			syy += dy * dy
		}
	}
	df := float64(L-1)*(float64(R)-P) - 1
	if !(sxx > 0) || df <= 0 {
		return 0, 0, sxx
	}
	b := sxy / sxx
	s2 := (syy - b*sxy) / df
	if !(s2 > 0) {
		return clamp01(b), 1, sxx
	}
	t2 := b * b * sxx / s2
	shrink = math.Max(0, 1-1/t2)
	return clamp01(b * shrink), shrink, sxx
}

// trialRankSum is the test DESIGN first sketched and the simulation rejects: a Mann-Whitney
// U test over all trial p50s of each variant, as if trials were independent, with the
// Hodges-Lehmann shift as the estimate. Trials of one round share that round's conditions,
// so under drift between rounds it overstates significance.
type trialRankSum struct{}

func (trialRankSum) name() string { return "Mann-Whitney U over trial p50s (trials as independent)" }

func (trialRankSum) test(d design, cells []obs, alpha float64) ([]cellTest, []string) {
	out := make([]cellTest, len(cells))
	for c, o := range cells {
		var base, cand []float64
		for r, ts := range o.trials {
			if d.isCandidate(r) {
				cand = append(cand, ts...)
			} else {
				base = append(base, ts...)
			}
		}
		if len(base) == 0 || len(cand) == 0 {
			out[c] = untested("a variant has no trial p50")
			continue
		}
		est, lo, hi, _ := hodgesLehmann(base, cand, alpha)
		out[c] = cellTest{est: est, lo: lo, hi: hi, p: mannWhitney(base, cand), ok: true}
	}
	return out, nil
}

// designFit is the least-squares fit of one cell's round series on the experiment's design:
// a mean per variant and, optionally, a linear trend in the round index. Every cell shares
// the design, so the fit is computed once per group.
type designFit struct {
	x      [][]float64 // R rows of params columns
	coef   [][]float64 // (X'X)^-1 X': params rows of R columns
	k      float64     // variance of the candidate-minus-baseline estimate per unit variance
	params int
}

func newDesignFit(d design, trend bool) designFit {
	R := len(d.order)
	params := 2
	if trend && R > 3 {
		params = 3
	}
	x := make([][]float64, R)
	mid := float64(R-1) / 2
	for r := range R {
		x[r] = make([]float64, params)
		if d.isCandidate(r) {
			x[r][1] = 1
		} else {
			x[r][0] = 1
		}
		if params == 3 {
			x[r][2] = float64(r) - mid
		}
	}
	xtx := make([][]float64, params)
	for i := range xtx {
		xtx[i] = make([]float64, params)
		for j := range params {
			for r := range R {
				xtx[i][j] += x[r][i] * x[r][j]
			}
		}
	}
	inv, ok := invert(xtx)
	if !ok {
		if params == 3 {
			return newDesignFit(d, false)
		}
		return designFit{x: x, params: params, k: math.NaN()}
	}
	coef := make([][]float64, params)
	for i := range coef {
		coef[i] = make([]float64, R)
		for r := range R {
			for j := range params {
				coef[i][r] += inv[i][j] * x[r][j]
			}
		}
	}
	// c = (-1, 1, 0): the candidate mean minus the baseline mean.
	k := inv[0][0] + inv[1][1] - inv[0][1] - inv[1][0]
	return designFit{x: x, coef: coef, k: k, params: params}
}

// resid returns the residuals of v after the fit and the candidate-minus-baseline estimate.
func (f designFit) resid(v []float64) (e []float64, diff float64) {
	R := len(v)
	beta := make([]float64, f.params)
	for i := range beta {
		for r := range R {
			beta[i] += f.coef[i][r] * v[r]
		}
	}
	e = make([]float64, R)
	for r := range R {
		e[r] = v[r]
		for j := range f.params {
			e[r] -= f.x[r][j] * beta[j]
		}
	}
	return e, beta[1] - beta[0]
}

// invert inverts a small symmetric positive-definite matrix by Gauss-Jordan elimination with
// partial pivoting; ok is false when it is singular.
func invert(a [][]float64) ([][]float64, bool) {
	n := len(a)
	m := make([][]float64, n)
	for i := range m {
		m[i] = make([]float64, 2*n)
		copy(m[i], a[i])
		m[i][n+i] = 1
	}
	for col := range n {
		piv := col
		for r := col + 1; r < n; r++ {
			if math.Abs(m[r][col]) > math.Abs(m[piv][col]) {
				piv = r
			}
		}
		if math.Abs(m[piv][col]) < 1e-12 {
			return nil, false
		}
		m[col], m[piv] = m[piv], m[col]
		p := m[col][col]
		for j := range m[col] {
			m[col][j] /= p
		}
		for r := range n {
			if r == col {
				continue
			}
			f := m[r][col]
			for j := range m[r] {
				m[r][j] -= f * m[col][j]
			}
		}
	}
	out := make([][]float64, n)
	for i := range out {
		out[i] = m[i][n:]
	}
	return out, true
}

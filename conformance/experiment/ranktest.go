package experiment

import (
	"math"
	"slices"
	"sort"
)

// exactRankSumLimit bounds the combined sample size for which mannWhitney enumerates the
// exact null distribution; above it the normal approximation with tie correction is used.
const exactRankSumLimit = 60

// mannWhitney is the two-sided Mann-Whitney U (Wilcoxon rank-sum) test of x against y. Ties
// get mid-ranks and the null distribution is exact for the observed ranks (ties included)
// up to exactRankSumLimit values: every split of the pooled ranks into groups of len(x) and
// len(y) is equally likely under the null, and the p-value is the probability of a rank sum
// at least as far from its mean as the observed one.
func mannWhitney(x, y []float64) (p float64) {
	n1, n2 := len(x), len(y)
	if n1 == 0 || n2 == 0 {
		return math.NaN()
	}
	ranks2 := doubledMidRanks(x, y) // integers: twice the mid-rank
	w := 0
	for _, r := range ranks2[:n1] {
		w += r
	}
	n := n1 + n2
	mean2 := n1 * (n + 1) // twice the expected rank sum of x
	dev := abs(w - mean2)
	if n > exactRankSumLimit {
		return rankSumNormalP(ranks2, n1, float64(dev)/2)
	}
	return rankSumExactP(ranks2, n1, dev)
}

// rankSumExactP enumerates the exact null distribution of the doubled rank sum of n1 of the
// given doubled ranks and returns P(|W - E[W]| >= dev/2), dev being doubled too.
func rankSumExactP(ranks2 []int, n1, dev int) float64 {
	mean2 := n1 * (len(ranks2) + 1)
	// ways[k][s]: number of k-subsets of the ranks whose doubled sum is s.
	maxSum := 0
	for _, r := range ranks2 {
		maxSum += r
	}
	ways := make([][]float64, n1+1)
	for k := range ways {
		ways[k] = make([]float64, maxSum+1)
	}
	ways[0][0] = 1
	for _, r := range ranks2 {
		for k := n1; k >= 1; k-- {
			row, prev := ways[k], ways[k-1]
			for s := maxSum; s >= r; s-- {
				row[s] += prev[s-r]
			}
		}
	}
	var total, extreme float64
	for s, c := range ways[n1] {
		if c == 0 {
			continue
		}
		total += c
		if abs(s-mean2) >= dev { // s is a doubled sum, like mean2
			extreme += c
		}
	}
	return math.Min(1, extreme/total)
}

// rankSumNormalP is the normal approximation to the rank-sum test with the variance
// corrected for ties; dev is |W - E[W]|.
func rankSumNormalP(ranks2 []int, n1 int, dev float64) float64 {
	n := float64(len(ranks2))
	m1, m2 := float64(n1), n-float64(n1)
	// Tie correction: sum over tie groups of t^3 - t.
	sorted := slices.Clone(ranks2)
	slices.Sort(sorted)
	var ties float64
	for i := 0; i < len(sorted); {
		j := i
		for j < len(sorted) && sorted[j] == sorted[i] {
			j++
		}
		t := float64(j - i)
		ties += t*t*t - t
		i = j
	}
	variance := m1 * m2 / 12 * ((n + 1) - ties/(n*(n-1)))
	if variance <= 0 {
		return 1
	}
	return math.Min(1, normalTwoSidedP(dev/math.Sqrt(variance)))
}

// doubledMidRanks returns twice the mid-rank of every value of x then y in the pooled
// sample, so that tied ranks stay integers.
func doubledMidRanks(x, y []float64) []int {
	type v struct {
		val float64
		i   int
	}
	all := make([]v, 0, len(x)+len(y))
	for i, val := range x {
		all = append(all, v{val, i})
	}
	for i, val := range y {
		all = append(all, v{val, len(x) + i})
	}
	sort.SliceStable(all, func(a, b int) bool { return all[a].val < all[b].val })
	out := make([]int, len(all))
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].val == all[i].val {
			j++
		}
		// Positions i..j-1 hold ranks i+1..j; twice their mean is i+1+j.
		for k := i; k < j; k++ {
			out[all[k].i] = i + 1 + j
		}
		i = j
	}
	return out
}

// rankSumMinP is the smallest two-sided p-value an exact rank-sum test can give for groups
// of n1 and n2 untied values: the two most extreme splits out of C(n1+n2, n1).
func rankSumMinP(n1, n2 int) float64 {
	return math.Min(1, 2/binomial(n1+n2, n1))
}

func binomial(n, k int) float64 {
	if k < 0 || k > n {
		return 0
	}
	lg := func(x int) float64 { v, _ := math.Lgamma(float64(x) + 1); return v }
	return math.Round(math.Exp(lg(n) - lg(k) - lg(n-k)))
}

// hodgesLehmann is the median of all pairwise differences y_j - x_i, the estimator that goes
// with the rank-sum test, and its distribution-free confidence interval (Moses): with the
// differences sorted, [D(k), D(m+1-k)] covers the true shift with probability
// 1 - 2 P(U <= k-1) under the exact null distribution of U, and k is the largest whose
// coverage is at least 1-alpha. When even the full range of differences cannot reach 1-alpha
// (too few trials), it returns that range and the confidence it does attain.
func hodgesLehmann(x, y []float64, alpha float64) (est, lo, hi, conf float64) {
	diffs := make([]float64, 0, len(x)*len(y))
	for _, a := range x {
		for _, b := range y {
			diffs = append(diffs, b-a)
		}
	}
	slices.Sort(diffs)
	m := len(diffs)
	est = quantileSortedFloat(diffs, 0.5)
	cdf := uNullCDF(len(x), len(y)) // cdf[u] = P(U <= u) for untied samples
	k := 1
	for k+1 <= (m+1)/2 && 2*cdf[k] <= alpha {
		k++
	}
	return est, diffs[k-1], diffs[m-k], 1 - 2*cdf[k-1]
}

// uNullCDF is the exact null CDF of the Mann-Whitney U statistic for untied samples of n1
// and n2, by the standard recurrence on the number of ways.
func uNullCDF(n1, n2 int) []float64 {
	m := n1 * n2
	// f[i][j][u] computed iteratively over i+j; keep a table indexed by (i, j).
	f := make([][][]float64, n1+1)
	for i := range f {
		f[i] = make([][]float64, n2+1)
		for j := range f[i] {
			f[i][j] = make([]float64, i*j+1)
			if i == 0 || j == 0 {
				f[i][j][0] = 1
				continue
			}
			for u := 0; u <= i*j; u++ {
				// The largest value belongs to x (adds j to U) or to y (adds nothing).
				if u-j >= 0 && u-j <= (i-1)*j {
					f[i][j][u] += f[i-1][j][u-j]
				}
				if u <= i*(j-1) {
					f[i][j][u] += f[i][j-1][u]
				}
			}
		}
	}
	counts := f[n1][n2]
	total := binomial(n1+n2, n1)
	cdf := make([]float64, m+1)
	var acc float64
	for u, c := range counts {
		acc += c
		cdf[u] = acc / total
	}
	return cdf
}

func quantileSortedFloat(sorted []float64, p float64) float64 {
	h := float64(len(sorted)-1) * p
	lo := math.Floor(h)
	i := int(lo)
	if i >= len(sorted)-1 {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (h-lo)*(sorted[i+1]-sorted[i])
}

// holm returns Holm's step-down adjusted p-values, which control the family-wise error rate
// at any alpha under any dependence between the tests: reject every test whose adjusted
// p-value is at most alpha. NaN p-values (tests that could not be run) stay NaN and do not
// count in the family size.
func holm(ps []float64) []float64 {
	idx := make([]int, 0, len(ps))
	for i, p := range ps {
		if !math.IsNaN(p) {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return ps[idx[a]] < ps[idx[b]] })
	out := make([]float64, len(ps))
	for i := range out {
		out[i] = math.NaN()
	}
	m := len(idx)
	running := 0.0
	for rank, i := range idx {
		adj := math.Min(1, float64(m-rank)*ps[i])
		running = math.Max(running, adj)
		out[i] = running
	}
	return out
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

package experiment

import (
	"math"
	"testing"
)

// bruteRankSumP enumerates every split of the pooled sample, the definition the dynamic
// programme in mannWhitney must agree with.
func bruteRankSumP(x, y []float64) float64 {
	r := doubledMidRanks(x, y)
	n, n1 := len(r), len(x)
	obs := 0
	for _, v := range r[:n1] {
		obs += v
	}
	mean2 := n1 * (n + 1)
	var total, extreme int
	for mask := 0; mask < 1<<n; mask++ {
		if popcount(mask) != n1 {
			continue
		}
		s := 0
		for i := range n {
			if mask&(1<<i) != 0 {
				s += r[i]
			}
		}
		total++
		if abs(s-mean2) >= abs(obs-mean2) {
			extreme++
		}
	}
	return float64(extreme) / float64(total)
}

func popcount(m int) int {
	c := 0
	for ; m != 0; m &= m - 1 {
		c++
	}
	return c
}

func TestMannWhitney(t *testing.T) {
	tests := []struct {
		reason string
		x, y   []float64
		want   float64 // NaN: compare with brute force only
	}{
		{"3 vs 3 fully separated: 2 of 20 splits are as extreme", []float64{1, 2, 3}, []float64{4, 5, 6}, 0.1},
		{"4 vs 4 fully separated: 2/70", []float64{1, 2, 3, 4}, []float64{5, 6, 7, 8}, 2.0 / 70},
		{"6 vs 6 fully separated: 2/924, the lab's trial count per variant", []float64{1, 2, 3, 4, 5, 6}, []float64{7, 8, 9, 10, 11, 12}, 2.0 / 924},
		{"identical interleaving gives p=1", []float64{1, 4}, []float64{2, 3}, 1},
		{"ties get mid-ranks; exact distribution over the tied ranks", []float64{1, 2, 2, 3}, []float64{2, 3, 3, 5}, math.NaN()},
		{"unequal sizes", []float64{0.9, 1.3, 0.7}, []float64{1.1, 1.6, 1.8, 2.0, 1.2}, math.NaN()},
	}
	for _, tt := range tests {
		got := mannWhitney(tt.x, tt.y)
		want := tt.want
		if math.IsNaN(want) {
			want = bruteRankSumP(tt.x, tt.y)
		} else if b := bruteRankSumP(tt.x, tt.y); math.Abs(b-want) > 1e-12 {
			t.Fatalf("%s: table value %v disagrees with brute force %v", tt.reason, want, b)
		}
		if math.Abs(got-want) > 1e-12 {
			t.Errorf("%s: mannWhitney = %v, want %v", tt.reason, got, want)
		}
	}
	if !math.IsNaN(mannWhitney(nil, []float64{1})) {
		t.Errorf("an empty group must give NaN")
	}
}

func TestMannWhitneyNormalApproximation(t *testing.T) {
	// 40 vs 40 with a shift and some ties: above the exact limit, so mannWhitney uses the
	// normal approximation, which must land near the exact enumeration.
	var x, y []float64
	for i := range 40 {
		x = append(x, float64(i/2))
		y = append(y, float64(i/2)+3)
	}
	approx := mannWhitney(x, y)
	r := doubledMidRanks(x, y)
	w := 0
	for _, v := range r[:40] {
		w += v
	}
	exact := rankSumExactP(r, 40, abs(w-40*81))
	if math.Abs(approx-exact) > 0.1*exact {
		t.Errorf("normal approximation %v, exact %v: more than 10%% apart", approx, exact)
	}
}

func TestRankSumMinP(t *testing.T) {
	tests := []struct {
		reason string
		n1, n2 int
		want   float64
	}{
		{"3 trials each cannot pass alpha 0.05", 3, 3, 0.1},
		{"4 each is the least that can", 4, 4, 2.0 / 70},
		{"2 rounds each (the lab's 4 rounds): 1/3", 2, 2, 1.0 / 3},
		{"6 rounds each (12 rounds) pass Holm's 0.005 over 10 cells", 6, 6, 2.0 / 924},
	}
	for _, tt := range tests {
		if got := rankSumMinP(tt.n1, tt.n2); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%s: rankSumMinP(%d, %d) = %v, want %v", tt.reason, tt.n1, tt.n2, got, tt.want)
		}
	}
}

func TestHodgesLehmann(t *testing.T) {
	tests := []struct {
		reason         string
		x, y           []float64
		alpha          float64
		est, lo, hi, c float64
	}{
		{
			reason: "3 vs 3: nine differences; the full range attains only 90%",
			x:      []float64{1, 2, 3}, y: []float64{11, 12, 13}, alpha: 0.05,
			est: 10, lo: 8, hi: 12, c: 0.9,
		},
		{
			reason: "5 vs 5: P(U<=2) = 4/252, so k=3 keeps 1-8/252 = 96.8%",
			x:      []float64{0, 1, 2, 3, 4}, y: []float64{10, 11, 12, 13, 14}, alpha: 0.05,
			est: 10, lo: 7, hi: 13, c: 1 - 8.0/252,
		},
	}
	for _, tt := range tests {
		est, lo, hi, c := hodgesLehmann(tt.x, tt.y, tt.alpha)
		if est != tt.est || lo != tt.lo || hi != tt.hi || math.Abs(c-tt.c) > 1e-12 {
			t.Errorf("%s: got %v [%v, %v] at %.4f, want %v [%v, %v] at %.4f", tt.reason, est, lo, hi, c, tt.est, tt.lo, tt.hi, tt.c)
		}
	}
}

func TestHolm(t *testing.T) {
	got := holm([]float64{0.01, 0.04, 0.03, 0.005, math.NaN()})
	want := []float64{0.03, 0.06, 0.06, 0.02, math.NaN()}
	for i := range want {
		if math.IsNaN(want[i]) != math.IsNaN(got[i]) || !math.IsNaN(want[i]) && math.Abs(got[i]-want[i]) > 1e-12 {
			t.Errorf("holm[%d] = %v, want %v (all: %v)", i, got[i], want[i], got)
		}
	}
}

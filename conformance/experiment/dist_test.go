package experiment

import (
	"math"
	"testing"
)

// Reference values from standard t tables (and R's qt/pt), to 4 significant digits.
func TestStudentQuantile(t *testing.T) {
	tests := []struct {
		reason string
		p, df  float64
		want   float64
	}{
		{"t(1) is Cauchy: 0.975 quantile is tan(0.475 pi)", 0.975, 1, 12.706},
		{"two rounds per variant, one cell: 2 df", 0.975, 2, 4.303},
		{"Holm's first step over 10 cells, 2 df", 0.9975, 2, 14.089},
		{"Holm's first step over 10 cells, 20 df", 0.9975, 20, 3.153},
		{"large df approaches the normal", 0.975, 1e6, 1.960},
		{"lower tail is symmetric", 0.025, 10, -2.228},
		{"fractional df (Satterthwaite) between 5 and 6 (checked by quadrature)", 0.975, 5.5, 2.5019},
	}
	for _, tt := range tests {
		got := studentQuantile(tt.p, tt.df)
		if math.Abs(got-tt.want) > 5e-4*math.Abs(tt.want) {
			t.Errorf("%s: studentQuantile(%v, %v) = %.5f, want %.4f", tt.reason, tt.p, tt.df, got, tt.want)
		}
	}
}

func TestStudentTwoSidedP(t *testing.T) {
	tests := []struct {
		reason string
		t, df  float64
		want   float64
	}{
		{"t=0 gives p=1", 0, 5, 1},
		{"t(1): P(|T|>1) = 1/2", 1, 1, 0.5},
		{"2 df closed form: 1 - t/sqrt(2+t^2)", 3, 2, 1 - 3/math.Sqrt(11)},
		{"sign does not matter", -2.228139, 10, 0.05},
		{"far tail (checked by quadrature)", 10, 30, 4.5753e-11},
	}
	for _, tt := range tests {
		got := studentTwoSidedP(tt.t, tt.df)
		if math.Abs(got-tt.want) > 1e-3*tt.want+1e-12 {
			t.Errorf("%s: p(%v, %v) = %.6g, want %.6g", tt.reason, tt.t, tt.df, got, tt.want)
		}
	}
	if !math.IsNaN(studentTwoSidedP(1, 0)) {
		t.Errorf("zero df must give NaN, not a p-value")
	}
}

// Reference values: ψ(1) = -γ, ψ(1/2) = -γ - 2 ln 2, ψ'(1) = π²/6, ψ'(1/2) = π²/2,
// ψ”(1) = -2ζ(3), and mpmath's psi at 4.5 and 20.
func TestPolygamma(t *testing.T) {
	const gamma = 0.57721566490153286
	const zeta3 = 1.2020569031595943
	tests := []struct {
		reason    string
		f         func(float64) float64
		x, want   float64
		tolerance float64
	}{
		{"digamma(1) = -Euler's gamma", digamma, 1, -gamma, 1e-10},
		{"digamma(1/2) = -gamma - 2 ln 2", digamma, 0.5, -gamma - 2*math.Ln2, 1e-10},
		{"digamma(20), mpmath psi(0, 20)", digamma, 20, 2.9705239922421490, 1e-10},
		{"trigamma(1) = pi^2/6", trigamma, 1, math.Pi * math.Pi / 6, 1e-10},
		{"trigamma(1/2) = pi^2/2", trigamma, 0.5, math.Pi * math.Pi / 2, 1e-10},
		{"trigamma(4.5), mpmath psi(1, 4.5)", trigamma, 4.5, 0.24872510303901, 1e-10},
		{"tetragamma(1) = -2 zeta(3)", tetragamma, 1, -2 * zeta3, 1e-9},
		{"tetragamma(20), mpmath psi(2, 20)", tetragamma, 20, -0.00262812240231465, 1e-10},
	}
	for _, tt := range tests {
		if got := tt.f(tt.x); math.Abs(got-tt.want) > tt.tolerance*math.Max(1, math.Abs(tt.want)) {
			t.Errorf("%s: got %.15g, want %.15g", tt.reason, got, tt.want)
		}
	}
	for _, y := range []float64{0.05, 0.5, 1, 4.5, 30, 1e4} {
		if got := trigammaInverse(trigamma(y)); math.Abs(got-y) > 1e-6*y {
			t.Errorf("trigammaInverse(trigamma(%v)) = %v", y, got)
		}
	}
}

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

package runner

import "testing"

// TestSteady is the warm-up rule on recorded curves: the last Stable-1 passes must not fall
// more than the tolerance below the best pass before them, and a pass without a passing
// response is never steady.
func TestSteady(t *testing.T) {
	rule := WarmRule{Tolerance: 0.05, Stable: 3}
	tests := []struct {
		reason string
		curve  []float64
		want   bool
	}{
		{"too few passes", []float64{0.2, 0.2}, false},
		{"a JVM still falling: 0.397, 0.259, 0.197, 0.149", []float64{0.397, 0.259, 0.197, 0.149}, false},
		{"fallen, then flat", []float64{0.4, 0.2, 0.150, 0.152, 0.155}, true},
		{"a warm Go target's passes, 20% up and down", []float64{0.232, 0.242, 0.192, 0.230, 0.199}, true},
		{"the last pass 6% below the best", []float64{0.160, 0.155, 0.150, 0.141}, false},
		{"a pass without a passing response", []float64{0.15, 0, 0.15, 0.15}, false},
	}
	for _, tt := range tests {
		if got := steady(tt.curve, rule); got != tt.want {
			t.Errorf("%s: steady %v, want %v", tt.reason, got, tt.want)
		}
	}
}

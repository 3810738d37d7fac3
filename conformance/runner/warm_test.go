package runner

import "testing"

// TestSteady is the warm-up rule on recorded curves: the last Stable passes must agree within
// the tolerance, and a pass without a passing response is never steady.
func TestSteady(t *testing.T) {
	rule := WarmRule{Tolerance: 0.05, Stable: 3}
	tests := []struct {
		reason string
		curve  []float64
		want   bool
	}{
		{"too few passes", []float64{0.2, 0.2}, false},
		{"a JVM still falling: 0.397, 0.259, 0.197, 0.149", []float64{0.397, 0.259, 0.197, 0.149}, false},
		{"flat within 5%", []float64{0.4, 0.2, 0.150, 0.152, 0.155}, true},
		{"the last three span 6%", []float64{0.150, 0.159, 0.155}, false},
		{"a pass without a passing response", []float64{0.15, 0, 0.15}, false},
	}
	for _, tt := range tests {
		if got := steady(tt.curve, rule); got != tt.want {
			t.Errorf("%s: steady %v, want %v", tt.reason, got, tt.want)
		}
	}
}

package stats

import (
	"errors"
	"testing"
	"time"
)

func ms(f float64) time.Duration { return time.Duration(f * float64(time.Millisecond)) }

func TestQuantile(t *testing.T) {
	tests := []struct {
		reason  string
		samples []time.Duration
		p       float64
		want    time.Duration
	}{
		{"one sample is every quantile", []time.Duration{7}, 0.99, 7},
		{"p0 is the minimum", []time.Duration{5, 1, 9}, 0, 1},
		{"p1 is the maximum", []time.Duration{5, 1, 9}, 1, 9},
		{"odd count: median is the middle value", []time.Duration{30, 10, 20}, 0.5, 20},
		{"even count: median is the mean of the two middle values (type 7, not nearest-rank's lower one)", []time.Duration{10, 40, 20, 30}, 0.5, 25},
		{"interpolation rounds to the nearest nanosecond", []time.Duration{0, 1}, 0.5, 1}, // 0.5 rounds half away from zero
		{"p95 of 1..100 is at h=94.05 between 95 and 96", seq(1, 100), 0.95, 95},          // 95 + 0.05*1 = 95.05 -> 95
		{"p99 of 1..200 interpolates at h=197.01", seq(1, 200), 0.99, 198},                // 198 + 0.01 -> 198
		{"p90 of 1..11 lands exactly on an order statistic", seq(1, 11), 0.9, 10},
		// h = 3*0.75 = 2.25, between sorted[2]=3 and sorted[3]=9: 3 + 0.25*6 = 4.5, which rounds
		// half away from zero to 5.
		{"ties do not disturb interpolation", []time.Duration{3, 3, 3, 9}, 0.75, 5},
		{"large durations do not overflow", []time.Duration{1 << 62, -(1 << 62)}, 0.5, 0},
	}
	for _, tt := range tests {
		got, err := Quantile(tt.samples, tt.p)
		if err != nil {
			t.Errorf("%s: Quantile(%v, %v) error %v", tt.reason, tt.samples, tt.p, err)
			continue
		}
		if got != tt.want {
			t.Errorf("%s: Quantile(..., %v) = %v, want %v", tt.reason, tt.p, got, tt.want)
		}
	}
}

func seq(from, to int) []time.Duration {
	var out []time.Duration
	for i := to; i >= from; i-- { // reversed, so sorting is exercised
		out = append(out, time.Duration(i))
	}
	return out
}

func TestQuantileErrors(t *testing.T) {
	tests := []struct {
		reason  string
		samples []time.Duration
		p       float64
	}{
		{"empty sample has no quantile", nil, 0.5},
		{"p above 1", []time.Duration{1}, 1.01},
		{"negative p", []time.Duration{1}, -0.1},
		{"NaN p", []time.Duration{1}, nan()},
	}
	for _, tt := range tests {
		if _, err := Quantile(tt.samples, tt.p); err == nil {
			t.Errorf("%s: Quantile(%v, %v) gave no error", tt.reason, tt.samples, tt.p)
		}
	}
	if _, err := Quantile(nil, 0.5); !errors.Is(err, ErrNoSamples) {
		t.Errorf("empty sample: error %v, want ErrNoSamples", err)
	}
	if _, err := Median([]float64{1, nan()}); err == nil {
		t.Errorf("Median with NaN gave no error")
	}
}

func TestQuantileDoesNotModifyInput(t *testing.T) {
	in := []time.Duration{3, 1, 2}
	if _, err := Quantiles(in, 0.5, 0.9); err != nil {
		t.Fatal(err)
	}
	if in[0] != 3 || in[1] != 1 || in[2] != 2 {
		t.Errorf("input reordered to %v", in)
	}
}

func TestMedianFloat(t *testing.T) {
	tests := []struct {
		reason string
		in     []float64
		want   float64
	}{
		{"odd", []float64{3, 1, 2}, 2},
		{"even takes the mean of the middle two", []float64{4, 1, 3, 2}, 2.5},
		{"the lab's six trial p50s of a cell", []float64{0.381, 0.372, 0.377, 0.379, 0.370, 0.376}, 0.3765},
	}
	for _, tt := range tests {
		got, err := Median(tt.in)
		if err != nil || !close(got, tt.want) {
			t.Errorf("%s: Median(%v) = %v, %v; want %v", tt.reason, tt.in, got, err, tt.want)
		}
	}
}

func close(a, b float64) bool { d := a - b; return d < 1e-12 && d > -1e-12 }

func nan() float64 { var z float64; return z / z }

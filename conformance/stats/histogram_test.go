package stats

import (
	"testing"
	"time"
)

func TestLogHistogramRange(t *testing.T) {
	tests := []struct {
		reason     string
		samples    []time.Duration
		lo, hi     time.Duration
		n          int
		wantEdges  []time.Duration
		wantCounts []int
		below      int
		above      int
	}{
		{
			reason:  "decades: 1us..1ms in 3 bins has edges 1, 10, 100, 1000 us",
			samples: []time.Duration{time.Microsecond, 5 * time.Microsecond, 10 * time.Microsecond, 99 * time.Microsecond, time.Millisecond},
			lo:      time.Microsecond, hi: time.Millisecond, n: 3,
			wantEdges:  []time.Duration{time.Microsecond, 10 * time.Microsecond, 100 * time.Microsecond, time.Millisecond},
			wantCounts: []int{2, 2, 1}, // an edge opens its bin; the top edge closes the last
		},
		{
			reason:  "samples outside the range are counted, not dropped",
			samples: []time.Duration{1, 50, 100, 200, 1000}, lo: 10, hi: 100, n: 1,
			wantEdges: []time.Duration{10, 100}, wantCounts: []int{2}, below: 1, above: 2,
		},
		{
			reason:  "a degenerate range has one bin",
			samples: []time.Duration{5, 5}, lo: 5, hi: 5, n: 10,
			wantEdges: []time.Duration{5, 5}, wantCounts: []int{2},
		},
	}
	for _, tt := range tests {
		h, err := LogHistogramRange(tt.samples, tt.lo, tt.hi, tt.n)
		if err != nil {
			t.Errorf("%s: error %v", tt.reason, err)
			continue
		}
		if len(h.Bins) != len(tt.wantCounts) {
			t.Errorf("%s: %d bins, want %d", tt.reason, len(h.Bins), len(tt.wantCounts))
			continue
		}
		for i, b := range h.Bins {
			if b.Lo != tt.wantEdges[i] || b.Hi != tt.wantEdges[i+1] || b.Count != tt.wantCounts[i] {
				t.Errorf("%s: bin %d = %+v, want [%v, %v) count %d", tt.reason, i, b, tt.wantEdges[i], tt.wantEdges[i+1], tt.wantCounts[i])
			}
		}
		if h.Below != tt.below || h.Above != tt.above || h.Total() != len(tt.samples) {
			t.Errorf("%s: below %d above %d total %d, want %d %d %d", tt.reason, h.Below, h.Above, h.Total(), tt.below, tt.above, len(tt.samples))
		}
	}
}

func TestLogHistogramErrors(t *testing.T) {
	tests := []struct {
		reason  string
		samples []time.Duration
		lo, hi  time.Duration
		n       int
	}{
		{"no bins", []time.Duration{1}, 1, 2, 0},
		{"zero lower edge has no logarithm", []time.Duration{1}, 0, 2, 4},
		{"inverted range", []time.Duration{1}, 5, 2, 4},
	}
	for _, tt := range tests {
		if _, err := LogHistogramRange(tt.samples, tt.lo, tt.hi, tt.n); err == nil {
			t.Errorf("%s: no error", tt.reason)
		}
	}
	if _, err := LogHistogram(nil, 4); err == nil {
		t.Errorf("empty sample: no error")
	}
	if _, err := LogHistogram([]time.Duration{-1, 5}, 4); err == nil {
		t.Errorf("negative latency: no error")
	}
}

func TestLogHistogramOwnRange(t *testing.T) {
	samples := []time.Duration{0, 0, 3, 9, 27, 81}
	h, err := LogHistogram(samples, 4)
	if err != nil {
		t.Fatal(err)
	}
	if h.Total() != len(samples) || h.Below != 0 || h.Above != 0 {
		t.Errorf("zero latencies must land in the first bin: %+v", h)
	}
	if h.Bins[0].Lo != 1 || h.Bins[len(h.Bins)-1].Hi != 81 {
		t.Errorf("range [%v, %v], want [1ns, 81ns]", h.Bins[0].Lo, h.Bins[len(h.Bins)-1].Hi)
	}
	if h.Bins[0].Count != 2 || h.Bins[1].Count != 1 || h.Bins[2].Count != 1 || h.Bins[3].Count != 2 {
		t.Errorf("counts %+v, want 2,1,1,2 (edges 1,3,9,27,81)", h.Bins)
	}
}

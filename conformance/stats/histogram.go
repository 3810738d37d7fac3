package stats

import (
	"fmt"
	"math"
	"time"
)

// Bin is one histogram bin: the samples with Lo <= latency < Hi (the last bin also holds
// latencies equal to its Hi).
type Bin struct {
	Lo, Hi time.Duration
	Count  int
}

// Histogram is a latency distribution over log-spaced bins, for charts. Log spacing gives
// each bin the same relative width, so a tail ten times the median is as legible as the
// median itself. Samples outside [Bins[0].Lo, Bins[last].Hi] are counted in Below and Above
// rather than dropped, so the counts always add up to the number of samples.
type Histogram struct {
	Bins         []Bin
	Below, Above int
}

// Total is the number of samples the histogram was built from.
func (h Histogram) Total() int {
	n := h.Below + h.Above
	for _, b := range h.Bins {
		n += b.Count
	}
	return n
}

// LogHistogram bins samples into n log-spaced bins spanning their own minimum and maximum.
// A minimum of zero (a clock too coarse to see the request) is treated as one nanosecond so
// the logarithm exists; such samples land in the first bin. Use LogHistogramRange to draw
// several cells on common bins.
func LogHistogram(samples []time.Duration, n int) (Histogram, error) {
	if len(samples) == 0 {
		return Histogram{}, ErrNoSamples
	}
	lo, hi := samples[0], samples[0]
	for _, s := range samples {
		lo, hi = min(lo, s), max(hi, s)
	}
	if lo < 0 {
		return Histogram{}, fmt.Errorf("histogram: negative latency %v", lo)
	}
	lo = max(lo, time.Nanosecond)
	hi = max(hi, lo)
	h, err := LogHistogramRange(samples, lo, hi, n)
	if err != nil {
		return Histogram{}, err
	}
	// Zero-latency samples are below the one-nanosecond floor; they belong to the first bin.
	h.Bins[0].Count += h.Below
	h.Below = 0
	return h, nil
}

// LogHistogramRange bins samples into n log-spaced bins over [lo, hi]. Bin i spans
// [lo*(hi/lo)^(i/n), lo*(hi/lo)^((i+1)/n)), with edges rounded to the nanosecond; when lo
// equals hi there is one bin whatever n is.
func LogHistogramRange(samples []time.Duration, lo, hi time.Duration, n int) (Histogram, error) {
	switch {
	case n < 1:
		return Histogram{}, fmt.Errorf("histogram: %d bins, want at least 1", n)
	case lo <= 0:
		return Histogram{}, fmt.Errorf("histogram: lower edge %v must be positive for log bins", lo)
	case hi < lo:
		return Histogram{}, fmt.Errorf("histogram: upper edge %v below lower edge %v", hi, lo)
	}
	if lo == hi {
		n = 1
	}
	edges := make([]time.Duration, n+1)
	logLo, logHi := math.Log(float64(lo)), math.Log(float64(hi))
	for i := range edges {
		edges[i] = time.Duration(math.Round(math.Exp(logLo + (logHi-logLo)*float64(i)/float64(n))))
	}
	edges[0], edges[n] = lo, hi
	h := Histogram{Bins: make([]Bin, n)}
	for i := range h.Bins {
		h.Bins[i] = Bin{Lo: edges[i], Hi: edges[i+1]}
	}
	for _, s := range samples {
		switch {
		case s < lo:
			h.Below++
		case s > hi:
			h.Above++
		default:
			h.Bins[binIndex(edges, s)].Count++
		}
	}
	return h, nil
}

// binIndex finds the bin of s within [edges[0], edges[n]] by binary search on the rounded
// edges, so that a sample equal to an edge always lands in the bin that edge opens.
func binIndex(edges []time.Duration, s time.Duration) int {
	n := len(edges) - 1
	lo, hi := 0, n // invariant: edges[lo] <= s, and s < edges[hi] unless hi == n
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if edges[mid] <= s {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

package stats

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"
)

// QuantileDefinition names the quantile estimator used by every function of this package, so
// a report can print it.
//
// Type 7 (linear interpolation between the order statistics at h = (n-1)p) is the default of
// R's quantile, NumPy's percentile and spreadsheet PERCENTILE.INC, so a reader can reproduce
// any figure from results.json with one line of either. Its p50 is the textbook median (the
// mean of the two middle values when n is even), the same median a cell takes over its
// trial p50s, so one definition serves both. Nearest-rank would always return an observed
// latency, but it jumps by whole samples as p moves, and its median of an even count is the
// lower middle value, which surprises readers of a median.
const QuantileDefinition = "Hyndman-Fan type 7: linear interpolation between order statistics at h=(n-1)p (R and NumPy default)"

// ErrNoSamples is returned when a quantile of an empty sample is asked for.
var ErrNoSamples = errors.New("no samples")

// Quantile returns the p-quantile (0 <= p <= 1) of samples by QuantileDefinition. samples
// need not be sorted and are not modified.
func Quantile(samples []time.Duration, p float64) (time.Duration, error) {
	qs, err := Quantiles(samples, p)
	if err != nil {
		return 0, err
	}
	return qs[0], nil
}

// Quantiles returns the quantiles of samples at each of ps, sorting a copy once.
func Quantiles(samples []time.Duration, ps ...float64) ([]time.Duration, error) {
	if len(samples) == 0 {
		return nil, ErrNoSamples
	}
	for _, p := range ps {
		if err := checkProb(p); err != nil {
			return nil, err
		}
	}
	sorted := slices.Clone(samples)
	slices.Sort(sorted)
	out := make([]time.Duration, len(ps))
	for i, p := range ps {
		out[i] = quantileSortedDuration(sorted, p)
	}
	return out, nil
}

// QuantileFloat is Quantile for float64 values (throughputs, ratios). NaN values are refused.
func QuantileFloat(values []float64, p float64) (float64, error) {
	if len(values) == 0 {
		return 0, ErrNoSamples
	}
	if err := checkProb(p); err != nil {
		return 0, err
	}
	sorted := slices.Clone(values)
	for _, v := range sorted {
		if math.IsNaN(v) {
			return 0, errors.New("quantile of a sample containing NaN")
		}
	}
	slices.Sort(sorted)
	return QuantileSorted(sorted, p), nil
}

// Median is QuantileFloat at 0.5.
func Median(values []float64) (float64, error) { return QuantileFloat(values, 0.5) }

// MedianDuration is Quantile at 0.5.
func MedianDuration(samples []time.Duration) (time.Duration, error) { return Quantile(samples, 0.5) }

// QuantileSorted is the type 7 quantile of values already sorted ascending, for callers that
// take many quantiles of one sample. It does not check its arguments: values must be
// non-empty and sorted, and p within [0, 1].
func QuantileSorted(sorted []float64, p float64) float64 {
	h := float64(len(sorted)-1) * p
	lo := math.Floor(h)
	i := int(lo)
	if i >= len(sorted)-1 {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (h-lo)*(sorted[i+1]-sorted[i])
}

// quantileSortedDuration interpolates in integer nanoseconds where it can, so that exact
// sample values come back exactly and only the fractional step is rounded (to the nearest
// nanosecond).
func quantileSortedDuration(sorted []time.Duration, p float64) time.Duration {
	h := float64(len(sorted)-1) * p
	lo := math.Floor(h)
	i := int(lo)
	if i >= len(sorted)-1 {
		return sorted[len(sorted)-1]
	}
	frac := h - lo
	if frac == 0 {
		return sorted[i]
	}
	gap := float64(sorted[i+1]) - float64(sorted[i]) // no int64 overflow
	return sorted[i] + time.Duration(math.Round(frac*gap))
}

func checkProb(p float64) error {
	if !(p >= 0 && p <= 1) { // also refuses NaN
		return fmt.Errorf("quantile probability %v outside [0, 1]", p)
	}
	return nil
}

package stats

import (
	"errors"
	"slices"
	"time"
)

// Cell summarises a cell (one target, operation and client count) over its trials, as
// DESIGN's measurement rules define: the median of the trial p50s with their range, the
// median trial p95, the median throughput, and totals.
type Cell struct {
	// Trials is the number of trials summarised; LatencyTrials of them had a passing
	// response and so enter the latency medians.
	Trials, LatencyTrials int
	// P50 is the median of the trial p50s; P50Min and P50Max their range.
	P50, P50Min, P50Max time.Duration
	// P95 is the median of the trial p95s.
	P95 time.Duration
	// Throughput is the median of the trial throughputs, over all trials (a trial with no
	// passing response counts as zero throughput).
	Throughput float64
	Passed     int
	Failed     int
	// Failures totals failed responses by class; nil when none failed.
	Failures map[string]int
}

// ErrNoTrials is returned when a cell has no trials to summarise.
var ErrNoTrials = errors.New("no trials")

// SummarizeCell summarises trials. Trials without a passing response contribute to the
// totals and the throughput median but not to the latency medians; if no trial had one, the
// latency fields are zero and LatencyTrials is 0.
func SummarizeCell(trials []Trial) (Cell, error) {
	if len(trials) == 0 {
		return Cell{}, ErrNoTrials
	}
	c := Cell{Trials: len(trials)}
	var p50s, p95s []time.Duration
	tputs := make([]float64, 0, len(trials))
	for _, t := range trials {
		c.Passed += t.Passed
		c.Failed += t.Failed
		for class, n := range t.Failures {
			if c.Failures == nil {
				c.Failures = make(map[string]int)
			}
			c.Failures[class] += n
		}
		tputs = append(tputs, t.Throughput)
		if t.HasLatency() {
			p50s = append(p50s, t.P50)
			p95s = append(p95s, t.P95)
		}
	}
	c.LatencyTrials = len(p50s)
	slices.Sort(tputs)
	c.Throughput = QuantileSorted(tputs, 0.5)
	if len(p50s) == 0 {
		return c, nil
	}
	slices.Sort(p50s)
	slices.Sort(p95s)
	c.P50 = quantileSortedDuration(p50s, 0.5)
	c.P50Min, c.P50Max = p50s[0], p50s[len(p50s)-1]
	c.P95 = quantileSortedDuration(p95s, 0.5)
	return c, nil
}

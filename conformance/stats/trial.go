package stats

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"time"
)

// TrialData is what the runner hands over for one trial: the latency of every passing
// response, the trial's wall time, and the failed responses, counted once each and by check
// class.
type TrialData struct {
	// Latencies holds one entry per passing response; failed responses are never timed.
	Latencies []time.Duration
	// Wall is the trial's wall time, from the first request written to the last body read.
	Wall time.Duration
	// Failed counts the responses that failed, each once however many classes it failed.
	Failed int
	// Failures counts failed responses by class (status, ids, transport, ...). A response
	// that fails several classes counts once under each, so the classes may sum to more than
	// Failed, and no class counts more than Failed.
	Failures map[string]int
}

// Trial summarises one trial. When Passed is 0 the latency fields are zero and mean nothing;
// HasLatency says so.
type Trial struct {
	P50, P95, P99, Mean, Max time.Duration
	// Throughput is passed responses per second of wall time.
	Throughput float64
	// Passed and Failed count responses: Passed + Failed is what was measured.
	Passed int
	Failed int
	// Failures counts failed responses by class, a response once under each class it
	// failed; nil when none failed.
	Failures map[string]int
}

// HasLatency reports whether the trial had at least one passing response, and so quantiles.
func (t Trial) HasLatency() bool { return t.Passed > 0 }

// SummarizeTrial computes a trial's quantiles (QuantileDefinition), mean, max and
// throughput. It refuses negative latencies, a non-positive wall time when some response
// passed, and failure counts that cannot be (negative, a class counting more responses than
// failed, failed responses in no class): those are runner bugs, not measurements.
func SummarizeTrial(d TrialData) (Trial, error) {
	t := Trial{Passed: len(d.Latencies), Failed: d.Failed}
	if d.Failed < 0 {
		return Trial{}, fmt.Errorf("trial: negative failed count %d", d.Failed)
	}
	for _, class := range slices.Sorted(maps.Keys(d.Failures)) {
		n := d.Failures[class]
		if n < 0 {
			return Trial{}, fmt.Errorf("trial: negative failure count %d for class %q", n, class)
		}
		if n > d.Failed {
			return Trial{}, fmt.Errorf("trial: %d failures of class %q among %d failed responses", n, class, d.Failed)
		}
		if n == 0 {
			continue
		}
		if t.Failures == nil {
			t.Failures = make(map[string]int)
		}
		t.Failures[class] = n
	}
	if d.Failed > 0 && t.Failures == nil {
		return Trial{}, fmt.Errorf("trial: %d failed responses in no class", d.Failed)
	}
	if d.Wall < 0 {
		return Trial{}, fmt.Errorf("trial: negative wall time %v", d.Wall)
	}
	if t.Passed == 0 {
		return t, nil
	}
	if d.Wall == 0 {
		return Trial{}, fmt.Errorf("trial: %d passing responses in zero wall time", t.Passed)
	}
	sorted := slices.Clone(d.Latencies)
	slices.Sort(sorted)
	if sorted[0] < 0 {
		return Trial{}, fmt.Errorf("trial: negative latency %v", sorted[0])
	}
	t.P50 = quantileSortedDuration(sorted, 0.50)
	t.P95 = quantileSortedDuration(sorted, 0.95)
	t.P99 = quantileSortedDuration(sorted, 0.99)
	t.Max = sorted[len(sorted)-1]
	t.Mean = meanDuration(sorted)
	t.Throughput = float64(t.Passed) / d.Wall.Seconds()
	return t, nil
}

// meanDuration averages in float64: a sum of int64 nanoseconds could overflow on long
// samples, and float64's 53-bit mantissa keeps sub-nanosecond precision for any realistic
// latency.
func meanDuration(xs []time.Duration) time.Duration {
	var sum float64
	for _, x := range xs {
		sum += float64(x)
	}
	return time.Duration(math.Round(sum / float64(len(xs))))
}

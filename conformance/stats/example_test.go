package stats_test

import (
	"fmt"
	"time"

	"github.com/conform-dev/conform/conformance/stats"
)

func ExampleSummarizeTrial() {
	// Ten passing responses and one that failed the check, in 5ms of wall time.
	us := time.Microsecond
	t, err := stats.SummarizeTrial(stats.TrialData{
		Latencies: []time.Duration{310 * us, 290 * us, 305 * us, 330 * us, 300 * us, 295 * us, 320 * us, 900 * us, 315 * us, 298 * us},
		Wall:      5 * time.Millisecond,
		Failed:    1,
		Failures:  map[string]int{"ids": 1},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println("p50", t.P50, "p95", t.P95, "p99", t.P99, "max", t.Max)
	fmt.Println("mean", t.Mean, "throughput", t.Throughput, "/s")
	fmt.Println("passed", t.Passed, "failed", t.Failed, t.Failures)
	// Output:
	// p50 307.5µs p95 643.5µs p99 848.7µs max 900µs
	// mean 366.3µs throughput 2000 /s
	// passed 10 failed 1 map[ids:1]
}

func ExampleSummarizeCell() {
	trial := func(p50 time.Duration) stats.Trial {
		return stats.Trial{P50: p50, P95: 2 * p50, Throughput: 1e9 / float64(p50), Passed: 200}
	}
	us := time.Microsecond
	c, _ := stats.SummarizeCell([]stats.Trial{trial(381 * us), trial(372 * us), trial(377 * us), trial(379 * us), trial(370 * us), trial(376 * us)})
	fmt.Printf("p50 %v (%v-%v) over %d trials, p95 %v\n", c.P50, c.P50Min, c.P50Max, c.Trials, c.P95)
	// Output:
	// p50 376.5µs (370µs-381µs) over 6 trials, p95 753µs
}

func ExampleLogHistogram() {
	us := time.Microsecond
	h, _ := stats.LogHistogram([]time.Duration{100 * us, 120 * us, 130 * us, 150 * us, 400 * us, 1600 * us}, 4)
	for _, b := range h.Bins {
		fmt.Printf("[%v, %v) %d\n", b.Lo, b.Hi, b.Count)
	}
	// Output:
	// [100µs, 200µs) 4
	// [200µs, 400µs) 0
	// [400µs, 800µs) 1
	// [800µs, 1.6ms) 1
}

func ExampleQuantile() {
	// An even count: type 7 gives the mean of the two middle values.
	p50, _ := stats.Quantile([]time.Duration{40, 10, 30, 20}, 0.5)
	fmt.Println(p50)
	// Output:
	// 25ns
}

package fuzz

import (
	"context"
	"testing"
)

// BenchmarkGenerate is the generator alone: one request per op.
func BenchmarkGenerate(b *testing.B) {
	g := defaultGenerator(b, 1)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		_ = Marshal(g.Request(i).Body)
	}
}

// BenchmarkGenerateAndCheck is a whole fuzzing step in process: generate, answer from the
// embedded oracle, answer from the embedded engine as the target, check strictly. Its rate
// is the ceiling of conform fuzz before any network.
func BenchmarkGenerateAndCheck(b *testing.B) {
	e, f := defaultEngine(b)
	g := defaultGenerator(b, 1)
	r := &runner{cfg: &Config{Gen: g, OracleIndex: f.Workload.Index, TargetIndex: f.Workload.Index, Oracle: EngineDoer(e), Target: EngineDoer(e)}}
	ctx := context.Background()
	b.ReportAllocs()
	n := 0
	for i := 0; b.Loop(); i++ {
		fd, _, err := r.one(ctx, g.Request(i))
		if err != nil || fd != nil {
			b.Fatalf("request %d: %v %v", i, err, fd)
		}
		n++
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "requests/s")
}

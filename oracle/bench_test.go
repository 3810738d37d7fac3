package oracle

import (
	"context"
	"testing"

	"github.com/conform-dev/conform/fixtures"
	"github.com/conform-dev/conform/oracle/engine"
)

// BenchmarkEmbeddedExpect measures computing every expectation of the default workload with
// the embedded engine: a fresh engine, loading the corpus, every case, and the tie probes.
// The fixtures are generated once, outside the timer.
func BenchmarkEmbeddedExpect(b *testing.B) {
	if status, _ := engine.New().Do("GET", "/", nil); status == 501 {
		b.Skip("the embedded engine is still the placeholder that answers 501")
	}
	f := fixtures.Default()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		x, err := Embedded{}.Expect(ctx, f, Settings{})
		if err != nil {
			b.Fatal(err)
		}
		if len(x.Cases) != len(f.Workload.Cases) {
			b.Fatalf("%d expectations for %d cases", len(x.Cases), len(f.Workload.Cases))
		}
	}
	b.ReportMetric(float64(len(f.Workload.Cases)), "cases/op")
}

package oracle

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/conform-dev/conform/fixtures"
)

// BenchmarkEmbeddedExpect measures computing every expectation of the default workload with
// the embedded engine: a fresh engine, loading the corpus, every case, and the tie probes.
// The fixtures are generated once, outside the timer.
func BenchmarkEmbeddedExpect(b *testing.B) {
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

// cannedDoer answers the default workload instantly with fixed bodies of realistic size, so
// BenchmarkComputeOverhead measures the oracle's own work: building requests, reading
// cursors, the tie probes and their comparison.
func cannedDoer() Doer {
	page := func(n, start int) []byte {
		b := []byte(`{"took":1,"timed_out":false,"_shards":{"total":1,"successful":1,"skipped":0,"failed":0},"hits":{"total":{"value":500,"relation":"eq"},"max_score":null,"hits":[`)
		for i := range n {
			if i > 0 {
				b = append(b, ',')
			}
			b = fmt.Appendf(b, `{"_index":"catalogue","_id":"SKU-%06d","_score":null,"_source":{"sku":"SKU-%06d","brand":"Acme","price":19.99,"tags":["a","b"]},"sort":["Acme",19.99,"SKU-%06d"]}`, start+i, start+i, start+i)
		}
		return append(b, "]}}"...)
	}
	full, wide := page(20, 0), page(21, 0)
	doc := []byte(`{"_index":"catalogue","_id":"SKU-000001","_version":1,"_seq_no":0,"_primary_term":1,"found":true,"_source":{"sku":"SKU-000001","brand":"Acme","price":19.99}}`)
	agg := []byte(`{"took":1,"timed_out":false,"_shards":{"total":1,"successful":1,"skipped":0,"failed":0},"hits":{"total":{"value":500,"relation":"eq"},"max_score":null,"hits":[]},"aggregations":{"first":{"doc_count":12},"second":{"doc_count":7}}}`)
	return func(ctx context.Context, r fixtures.Request) (int, []byte, error) {
		switch {
		case r.Op == fixtures.OpGet:
			return 200, doc, nil
		case r.Op == fixtures.OpTerms || r.Op == fixtures.OpCounts:
			return 200, agg, nil
		case bytes.Contains(r.Body, []byte(`"size":21`)):
			return 200, wide, nil
		}
		return 200, full, nil
	}
}

func BenchmarkComputeOverhead(b *testing.B) {
	f := fixtures.Default()
	do := cannedDoer()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compute(ctx, f.Workload, Settings{}, do); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(f.Workload.Cases)), "cases/op")
}

func BenchmarkHash(b *testing.B) {
	f := fixtures.Default()
	x, err := Compute(context.Background(), f.Workload, Settings{}, cannedDoer())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		x.Hash()
	}
}

package load

import (
	"testing"

	"github.com/qdrant/go-client/qdrant"

	"github.com/conform-dev/conform/fixtures"
)

// BenchmarkQdrantPayload converts default-corpus documents to go-client payloads, the
// loader's CPU work per point.
func BenchmarkQdrantPayload(b *testing.B) {
	f := fixtures.Default()
	s, err := NewQdrantSchema(f.Mapping)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m, err := s.Normalize(f.Docs[i%len(f.Docs)])
		if err != nil {
			b.Fatal(err)
		}
		if _, err := qdrant.TryValueMap(m); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCanonical canonicalises one default-corpus _source, the probe's work per sampled
// document.
func BenchmarkCanonical(b *testing.B) {
	f := fixtures.Default()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Canonical(f.Docs[i%len(f.Docs)].Source); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBulkBody writes one 1000-document _bulk body.
func BenchmarkBulkBody(b *testing.B) {
	f := fixtures.Default()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = bulkBody(f.Workload.Index, false, f.Docs[:1000])
	}
}

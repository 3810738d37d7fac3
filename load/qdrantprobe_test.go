package load

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/qdrant/go-client/qdrant"

	"github.com/conform-dev/conform/load/loadtest"
)

func TestProbeQdrant(t *testing.T) {
	f := smallDefault(t, 500)
	fq := loadtest.NewFakeQdrant()
	c := startQdrant(t, fq)
	if _, err := LoadQdrant(context.Background(), c, f, fastQdrant()); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	p, err := ProbeQdrant(ctx, c, "catalogue", f, ProbeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := ExpectedFingerprint(f, 0)
	if !p.Intact() || !p.Ready() || p.Count != 500 || p.Sample != want || p.Server.Version != "1.19.2" || p.Server.Commit != "fakecommit" {
		t.Errorf("probe = %+v", p)
	}

	// The probe asked for exactly the sampled points, by UUIDv5, with the payload fields
	// named explicitly, and counted exactly.
	coll := fq.Collection("catalogue")
	fq.Lock()
	g := fq.Gets[len(fq.Gets)-1]
	docs, _ := Sample(f, 0)
	if len(g.GetIds()) != len(docs) || g.GetIds()[0].GetUuid() != PointID(docs[0].ID) {
		t.Errorf("get ids = %d, first %v", len(g.GetIds()), g.GetIds()[0])
	}
	if !g.GetWithPayload().GetEnable() {
		t.Errorf("payload selector = %v, want the whole payload, asked for explicitly", g.GetWithPayload())
	}
	if p.Drift == nil || p.Drift.Values == 0 || p.Drift.Drifted != 0 {
		t.Errorf("drift = %+v, want doubles compared and none drifted", p.Drift)
	}
	if cnt := fq.Counts[len(fq.Counts)-1]; !cnt.GetExact() || cnt.GetFilter() != nil {
		t.Errorf("count = %v, want exact and unfiltered", cnt)
	}
	// Damage: one sampled point gone, another with the wrong _es_id.
	delete(coll.Points, PointID(docs[4].ID))
	coll.Points[PointID(docs[5].ID)]["_es_id"] = qdrant.NewValueString("someone-else")
	fq.Unlock()

	p, err = ProbeQdrant(ctx, c, "catalogue", f, ProbeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{}
	for _, pr := range p.Problems {
		kinds[pr.Kind] = pr.ID
	}
	if p.Intact() || kinds["missing"] != docs[4].ID || kinds["id"] != docs[5].ID || kinds["count"] != "" {
		t.Errorf("problems = %+v", p.Problems)
	}
	if _, ok := kinds["count"]; !ok {
		t.Errorf("a lost point must also show in the count: %+v", p.Problems)
	}
	if p.Sample.SHA256 == want.SHA256 {
		t.Error("the fingerprint did not change")
	}
}

func TestProbeQdrantMissingCollection(t *testing.T) {
	f := smallDefault(t, 10)
	c := startQdrant(t, loadtest.NewFakeQdrant())
	if _, err := ProbeQdrant(context.Background(), c, "catalogue", f, ProbeOptions{}); err == nil {
		t.Error("probing a missing collection succeeded")
	}
}

// A Qdrant that reads doubles back one ulp off (as a real one was seen to: 3.9000000953674316
// read back as 3.900000095367432) is still intact, since _source_raw is exact, but the probe
// and load --probe --qdrant say how many sampled doubles drifted, with the first.
func TestProbeQdrantReportsDoubleDrift(t *testing.T) {
	f := smallDefault(t, 500)
	fq := loadtest.NewFakeQdrant()
	c := startQdrant(t, fq)
	if _, err := LoadQdrant(context.Background(), c, f, fastQdrant()); err != nil {
		t.Fatal(err)
	}
	fq.Lock()
	fq.RoundDoubles = true
	fq.Unlock()
	p, err := ProbeQdrant(context.Background(), c, "catalogue", f, ProbeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := ExpectedFingerprint(f, 0)
	if !p.Intact() || p.Sample != want {
		t.Errorf("drifted doubles made the copy not intact: %+v", p.Problems)
	}
	d := p.Drift
	if d == nil || d.Drifted == 0 || d.Drifted > d.Values || len(d.First) == 0 {
		t.Fatalf("drift = %+v, want some of the sampled doubles drifted", d)
	}
	for _, v := range d.First {
		if v.ULPs == 0 || v.Sent == v.Read || v.ID == "" || v.Key == "" {
			t.Errorf("drifted value %+v", v)
		}
	}
	var text strings.Builder
	(&QdrantResult{Addr: "q:6334", Probe: p}).WriteText(&text)
	line := fmt.Sprintf("qdrant  payload doubles: %d of %d in the sample read back otherwise than sent, first %s; _source_raw is exact", d.Drifted, d.Values, d.First[0])
	if !strings.Contains(text.String(), line) || !strings.Contains(text.String(), ": intact") {
		t.Errorf("load --probe --qdrant's text lacks %q:\n%s", line, text.String())
	}
}

// The drift seen from a real Qdrant, one ulp.
func TestDriftedValue(t *testing.T) {
	var d PayloadDrift
	d.add("SKU-1", "rating", qdrant.NewValueDouble(3.9000000953674316), qdrant.NewValueDouble(3.900000095367432))
	d.add("SKU-1", "weight", qdrant.NewValueDouble(2.5), qdrant.NewValueDouble(2.5))
	d.add("SKU-1", "tags", qdrant.NewValueFromList(qdrant.NewValueDouble(-1.5)), qdrant.NewValueFromList(qdrant.NewValueDouble(math.Nextafter(-1.5, 0))))
	if d.Values != 3 || d.Drifted != 2 {
		t.Fatalf("drift = %+v", d)
	}
	if got, want := d.First[0].String(), "SKU-1 rating: sent 3.9000000953674316, read 3.900000095367432 (1 ulp)"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	if got, want := d.First[1].String(), "SKU-1 tags[0]: sent -1.5, read -1.4999999999999998 (1 ulp)"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	for _, tc := range []struct {
		a, b float64
		want uint64
	}{{1, 1, 0}, {1, math.Nextafter(1, 2), 1}, {-0.0, 0, 0}, {math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, 2}} {
		if got := ulps(tc.a, tc.b); got != tc.want {
			t.Errorf("ulps(%v, %v) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

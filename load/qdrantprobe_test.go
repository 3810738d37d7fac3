package load

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/qdrant/go-client/qdrant"
	"github.com/tidwall/gjson"

	"github.com/conform-dev/conform/internal/serdefloat"
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
	if !p.Intact() || !p.Ready() || p.Count != 500 || p.Sample != want || p.Server.Version != "1.17.0" || p.Server.Commit != "fakecommit" {
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
	// Every sampled point's payload was compared; the doubles drifted exactly where Qdrant's
	// JSON round trip moves them.
	schema, _ := NewQdrantSchema(f.Mapping)
	var doubles, drifting int
	for _, d := range docs {
		pl, _ := schema.Payload(d)
		for _, v := range pl {
			if x, ok := v.GetKind().(*qdrant.Value_DoubleValue); ok {
				doubles++
				if serdefloat.RoundTrip(x.DoubleValue) != x.DoubleValue {
					drifting++
				}
			}
		}
	}
	if d := p.Drift; d == nil || d.Points != len(docs) || d.Compared <= d.Values || d.Values != doubles || d.Drifted != drifting || drifting == 0 {
		t.Errorf("drift = %+v, want %d points, %d doubles of which %d drifted", p.Drift, len(docs), doubles, drifting)
	}
	if cnt := fq.Counts[len(fq.Counts)-1]; !cnt.GetExact() || cnt.GetFilter() != nil {
		t.Errorf("count = %v, want exact and unfiltered", cnt)
	}
	// Damage: one sampled point gone, another with the wrong _es_id, a third with a
	// structured value changed and a key added (its _source_raw untouched, so only the
	// payload comparison can see it).
	delete(coll.Points, PointID(docs[4].ID))
	coll.Points[PointID(docs[5].ID)]["_es_id"] = qdrant.NewValueString("someone-else")
	coll.Points[PointID(docs[6].ID)]["brand"] = qdrant.NewValueString("tampered")
	coll.Points[PointID(docs[6].ID)]["extra"] = qdrant.NewValueFromList(qdrant.NewValueDouble(1), qdrant.NewValueNull())
	fq.Unlock()

	p, err = ProbeQdrant(ctx, c, "catalogue", f, ProbeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{}
	var payload []string
	for _, pr := range p.Problems {
		kinds[pr.Kind] = pr.ID
		if pr.Kind == "payload" {
			payload = append(payload, pr.String())
		}
	}
	if p.Intact() || kinds["missing"] != docs[4].ID || kinds["id"] != docs[5].ID || kinds["count"] != "" {
		t.Errorf("problems = %+v", p.Problems)
	}
	brand := gjson.GetBytes(docs[6].Source, "brand").String()
	wantPayload := []string{
		fmt.Sprintf("payload %q brand: want %q, got \"tampered\"", docs[6].ID, brand),
		fmt.Sprintf("payload %q extra: want absent, got [1.0,null]", docs[6].ID),
	}
	if strings.Join(payload, "\n") != strings.Join(wantPayload, "\n") {
		t.Errorf("payload problems:\n%s\nwant:\n%s", strings.Join(payload, "\n"), strings.Join(wantPayload, "\n"))
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

// Qdrant reads doubles back through serde_json's text round trip, some one ulp off (a real
// 1.17.0 returned 1,240 of the designed catalogue's 28,893 so): the copy is still intact, since
// _source_raw is exact, and the probe and load --probe --qdrant say how many sampled doubles
// drifted, with the first. A Qdrant that returns them exactly drifts none.
func TestProbeQdrantReportsDoubleDrift(t *testing.T) {
	for _, exact := range []bool{false, true} {
		f := smallDefault(t, 500)
		fq := loadtest.NewFakeQdrant()
		fq.ExactDoubles = exact
		c := startQdrant(t, fq)
		if _, err := LoadQdrant(context.Background(), c, f, fastQdrant()); err != nil {
			t.Fatal(err)
		}
		p, err := ProbeQdrant(context.Background(), c, "catalogue", f, ProbeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want, _ := ExpectedFingerprint(f, 0)
		if !p.Intact() || p.Sample != want {
			t.Errorf("exact %v: drifted doubles made the copy not intact: %+v", exact, p.Problems)
		}
		d := p.Drift
		var text strings.Builder
		(&QdrantResult{Addr: "q:6334", Probe: p}).WriteText(&text)
		if exact {
			line := fmt.Sprintf("qdrant  payload doubles: the %d in the sample read back as sent (%d payload values of %d points compared)", d.Values, d.Compared, d.Points)
			if d.Drifted != 0 || !strings.Contains(text.String(), line) {
				t.Errorf("exact doubles: drift = %+v, text lacks %q:\n%s", d, line, text.String())
			}
			continue
		}
		if d == nil || d.Drifted == 0 || d.Drifted > d.Values || len(d.First) == 0 {
			t.Fatalf("drift = %+v, want some of the sampled doubles drifted", d)
		}
		for _, v := range d.First {
			if v.ULPs != 1 || v.Read != serdefloat.RoundTrip(v.Sent) || v.ID == "" || v.Key == "" {
				t.Errorf("drifted value %+v", v)
			}
		}
		line := fmt.Sprintf("qdrant  payload doubles: %d of %d in the sample read back otherwise than sent, first %s, each as Qdrant's JSON round trip reads it (%d payload values of %d points compared); _source_raw is exact", d.Drifted, d.Values, d.First[0], d.Compared, d.Points)
		if !strings.Contains(text.String(), line) || !strings.Contains(text.String(), ": intact") {
			t.Errorf("load --probe --qdrant's text lacks %q:\n%s", line, text.String())
		}
	}
}

// The drift seen from a real Qdrant: one ulp, as serde_json's round trip reads the text it
// wrote. A double off in any other way is a problem, as is any other difference.
func TestPayloadCompare(t *testing.T) {
	var d PayloadDrift
	sent := map[string]*qdrant.Value{
		"rating": qdrant.NewValueDouble(3.9000000953674316),
		"weight": qdrant.NewValueDouble(2.5),
		"price":  qdrant.NewValueFromList(qdrant.NewValueDouble(-20.900000000000002), qdrant.NewValueDouble(1.5)),
		"stock":  qdrant.NewValueInt(7),
		"dims":   qdrant.NewValueFromList(qdrant.NewValueFromFields(map[string]*qdrant.Value{"w": qdrant.NewValueInt(1)})),
		"gone":   qdrant.NewValueNull(),
	}
	read := map[string]*qdrant.Value{
		"rating": qdrant.NewValueDouble(3.900000095367432),
		"weight": qdrant.NewValueDouble(2.5),
		"price":  qdrant.NewValueFromList(qdrant.NewValueDouble(-20.9), qdrant.NewValueDouble(math.Nextafter(1.5, 2))),
		"stock":  qdrant.NewValueDouble(7),
		"dims":   qdrant.NewValueFromList(qdrant.NewValueFromFields(map[string]*qdrant.Value{"w": qdrant.NewValueInt(2)})),
	}
	ps := d.compareMaps("SKU-1", "", sent, read)
	var got []string
	for _, p := range ps {
		got = append(got, p.String())
	}
	want := []string{
		`payload "SKU-1" dims[0].w: want 1, got 2`,
		`payload "SKU-1" gone: want null, got absent`,
		`payload "SKU-1" price[1]: want 1.5, got 1.5000000000000002`,
		`payload "SKU-1" stock: want 7, got 7.0`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if d.Values != 4 || d.Drifted != 2 || d.Compared != 7 {
		t.Fatalf("drift = %+v, want 4 doubles, 2 drifted, 7 values", d)
	}
	if got, want := d.First[0].String(), "SKU-1 price[0]: sent -20.900000000000002, read -20.9 (1 ulp)"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	if got, want := d.First[1].String(), "SKU-1 rating: sent 3.9000000953674316, read 3.900000095367432 (1 ulp)"; got != want {
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

package load

import (
	"context"
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
	if inc := g.GetWithPayload().GetInclude().GetFields(); len(inc) != 2 {
		t.Errorf("payload selector = %v, want the id and source fields", g.GetWithPayload())
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

package load

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"github.com/conform-dev/conform/fixtures"
	"github.com/conform-dev/conform/load/loadtest"
)

// loadedFake is a FakeES holding f's documents in an index.
func loadedFake(f *fixtures.Fixtures, index string) *loadtest.FakeES {
	es := loadtest.NewFakeES()
	docs := map[string]string{}
	for _, d := range f.Docs {
		docs[d.ID] = string(d.Source)
	}
	es.AddIndex(index, docs)
	return es
}

func TestProbeESIntactCorpus(t *testing.T) {
	f := smallDefault(t, 1000)
	es := loadedFake(f, "catalogue")
	p, err := ProbeES(context.Background(), serveES(t, es), "catalogue", f, ProbeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := ExpectedFingerprint(f, 0)
	if !p.Intact() || p.Sample != want || p.Expected != want || p.Count != 1000 {
		t.Errorf("probe = %+v\nwant sample %+v", p, want)
	}
	for _, r := range es.Requests {
		if r[:4] != "GET " && r[:5] != "HEAD " {
			t.Errorf("a probe wrote: %s", r)
		}
	}
	// The manifest embeds the probe as JSON.
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var back Probe
	if err := json.Unmarshal(b, &back); err != nil || back.Sample != p.Sample || back.Identity != p.Identity {
		t.Errorf("probe does not round-trip through JSON: %s", b)
	}
}

func TestProbeESSeesDamage(t *testing.T) {
	f := smallDefault(t, 1000)
	docs, _ := Sample(f, 0)
	intact, _ := ExpectedFingerprint(f, 0)
	tests := []struct {
		reason string
		damage func(es *loadtest.FakeES)
		kind   string
	}{
		{"a sampled document changed", func(es *loadtest.FakeES) {
			es.AlterSource = map[string]string{docs[7].ID: `{"sku":"changed"}`}
		}, "source"},
		{"a number changed kind", func(es *loadtest.FakeES) {
			es.AlterSource = map[string]string{docs[0].ID: respell(t, docs[0].Source)}
		}, "source"},
		{"a sampled document is gone", func(es *loadtest.FakeES) {
			es.Hide = map[string]bool{docs[3].ID: true}
		}, "missing"},
		{"the count is off", func(es *loadtest.FakeES) { es.CountDelta = 1 }, "count"},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			es := loadedFake(f, "catalogue")
			tc.damage(es)
			p, err := ProbeES(context.Background(), serveES(t, es), "catalogue", f, ProbeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if p.Intact() || len(p.Problems) != 1 || p.Problems[0].Kind != tc.kind {
				t.Errorf("problems = %+v, want one %s", p.Problems, tc.kind)
			}
			if p.Sample.SHA256 == intact.SHA256 {
				t.Errorf("the fingerprint did not change")
			}
		})
	}
}

// respell turns the document's views (always an integer) into a float: same value, other kind.
func respell(t *testing.T, src []byte) string {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(src, &m); err != nil {
		t.Fatal(err)
	}
	m["views"] = json.RawMessage(string(m["views"]) + ".0")
	b, _ := json.Marshal(m)
	return string(b)
}

func TestProbeESComparesJSONValuesNotBytes(t *testing.T) {
	f := testFixtures(t, kindsMapping,
		[2]string{"a", `{"sku":"a","price":1.50,"tags":["x"]}`},
		[2]string{"b", `{"sku":"b"}`},
	)
	es := loadedFake(f, "catalogue")
	es.AlterSource = map[string]string{"a": `{ "tags" : ["x"], "price" : 15e-1, "sku" : "a" }`}
	p, err := ProbeES(context.Background(), serveES(t, es), "catalogue", f, ProbeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !p.Intact() {
		t.Errorf("same JSON values, other bytes: problems %+v", p.Problems)
	}
}

func TestProbeESIdentifiesOpenSearchAndGateways(t *testing.T) {
	f := smallDefault(t, 200)
	open := loadedFake(f, "catalogue")
	open.Distribution = "opensearch"
	p, err := ProbeES(context.Background(), serveES(t, open), "catalogue", f, ProbeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Identity.Distribution != "opensearch" || p.Identity.Version != "3.9.0" || p.Identity.Product != "" {
		t.Errorf("identity = %+v", p.Identity)
	}
	es := loadedFake(f, "catalogue")
	pe, err := ProbeES(context.Background(), serveES(t, es), "catalogue", f, ProbeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if pe.Sample != p.Sample {
		t.Errorf("the same corpus fingerprints differently on Elasticsearch and OpenSearch")
	}

	// A gateway that does not serve GET / is still probed; the identity says why it is empty.
	gw := loadedFake(f, "catalogue")
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" {
			w.WriteHeader(404)
			return
		}
		gw.ServeHTTP(w, r)
	})
	pg, err := ProbeES(context.Background(), serveES(t, h), "catalogue", f, ProbeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if pg.Identity.Error == "" || !pg.Intact() {
		t.Errorf("gateway probe = %+v", pg)
	}
}

func TestProbeESFailsWhenTheIndexIsMissing(t *testing.T) {
	f := smallDefault(t, 10)
	_, err := ProbeES(context.Background(), serveES(t, loadtest.NewFakeES()), "catalogue", f, ProbeOptions{})
	var he *HTTPError
	if err == nil || !errors.As(err, &he) || he.Status != 404 {
		t.Errorf("err = %v, want the 404 of _count", err)
	}
}

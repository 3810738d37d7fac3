package oracle

import (
	"context"
	"testing"

	"github.com/conform-dev/conform/fixtures"
	"github.com/tidwall/gjson"
)

func TestEmbeddedDefaultWorkload(t *testing.T) {
	f := fixtures.Default()
	x, err := Embedded{}.Expect(context.Background(), f, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if x.Source != "embedded" || len(x.Cases) != len(f.Workload.Cases) {
		t.Fatalf("source %q, %d expectations for %d cases", x.Source, len(x.Cases), len(f.Workload.Cases))
	}
	// The default workload sorts every page on keys ending in a unique field, so no page
	// boundary may fall inside a tie.
	if w := x.Warnings(); len(w) != 0 {
		t.Errorf("%d warnings on the default workload, want none; first: %s", len(w), w[0])
	}
	for i, c := range f.Workload.Cases {
		e := &x.Cases[i]
		switch c.Op {
		case fixtures.OpGet:
			found := gjson.GetBytes(e.Body, "found").Bool()
			if (e.Status == 200) != found || (e.Status != 200 && e.Status != 404) {
				t.Errorf("%s: status %d, found %v", c.Name, e.Status, found)
			}
		default:
			if e.Status != 200 {
				t.Errorf("%s: status %d: %s", c.Name, e.Status, e.Body)
			}
			if !gjson.GetBytes(e.Body, "hits.total.value").Exists() {
				t.Errorf("%s: no hits.total.value with track_total_hits true: %s", c.Name, e.Body)
			}
		}
		if c.Op == fixtures.OpPage && len(gjson.GetBytes(e.Body, "hits.hits").Array()) == 0 {
			t.Errorf("%s: a page with no hits", c.Name)
		}
	}
	again, err := Embedded{}.Expect(context.Background(), f, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if again.Hash() != x.Hash() {
		t.Errorf("two computations hash %s and %s: the embedded oracle is not deterministic", x.Hash(), again.Hash())
	}
}

func TestEmbeddedDisabledTotals(t *testing.T) {
	f := fixtures.Default()
	x, err := Embedded{}.Expect(context.Background(), f, Settings{TrackTotalHits: "false"})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range x.Cases {
		if e.Request.Op != fixtures.OpGet && gjson.GetBytes(e.Body, "hits.total").Exists() {
			t.Errorf("%s: hits.total present with track_total_hits false", e.Request.Case)
		}
	}
}

package clients

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/conform-dev/conform/fixtures"
	"github.com/conform-dev/conform/oracle/engine"
)

// TestGoClientsAgainstEngine runs go-elasticsearch's typed client and esapi through the subset's
// calls against the embedded engine holding the catalogue (price-double, the variant real
// Elasticsearch holds; lab/realengines TestGoClients runs the same calls against both and
// compares them), and checks what must hold whichever engine answers.
func TestGoClientsAgainstEngine(t *testing.T) {
	f := fixtures.Default()
	mapping, err := fixtures.VariantMapping(fixtures.VariantPriceDouble)
	if err != nil {
		t.Fatal(err)
	}
	e := engine.New()
	if err := e.Load(f.Workload.Index, mapping, f.Docs); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(e)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	steps, err := GoCalls(ctx, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if err := Check(steps, false); err != nil {
		t.Fatal(err)
	}
}

// TestEqualNamesTheStep is the comparison's own test: a difference names its call.
func TestEqualNamesTheStep(t *testing.T) {
	a := []Step{step("x", 1), step("y", map[string]int{"took": 3, "n": 1})}
	b := []Step{step("x", 1), step("y", map[string]int{"took": 9, "n": 1})}
	if err := Equal(a, b); err != nil {
		t.Fatalf("took must not count: %v", err)
	}
	b[1] = step("y", map[string]int{"n": 2})
	if err := Equal(a, b); err == nil {
		t.Fatal("a different result passed")
	}
	var v any
	if json.Unmarshal(a[1].Result, &v) != nil {
		t.Fatal("a step's result is not JSON")
	}
}

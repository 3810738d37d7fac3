package conformtest_test

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/conform-dev/conform/conformance/suite"
	"github.com/conform-dev/conform/conformtest"
	"github.com/conform-dev/conform/fixtures"
)

// A backend holding the price-double variant, checked against the designed fixtures: Check
// keeps the mapping finding in the run and runs the cases; RequireReady makes it an error
// before any case.
func TestCheckKeepsReadinessFindings(t *testing.T) {
	o := fixtures.DefaultOptions
	o.Variant = fixtures.VariantPriceDouble
	pd, err := fixtures.Generate(o)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "pd")
	if err := pd.Write(dir); err != nil {
		t.Fatal(err)
	}
	eng, err := suite.Engine(pd)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(eng)
	defer srv.Close()
	run, err := conformtest.Check(context.Background(), srv.URL, conformtest.Ops("counts"))
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Findings) != 1 || run.Findings[0].Kind != "mapping" || !strings.Contains(run.Findings[0].Summary, "the index holds the price-double mapping") || len(run.Cases) != 32 || run.Passed() {
		t.Errorf("findings %+v, %d cases, passed %v", run.Findings, len(run.Cases), run.Passed())
	}
	if _, err := conformtest.Check(context.Background(), srv.URL, conformtest.Ops("counts"), conformtest.RequireReady()); err == nil ||
		!strings.Contains(err.Error(), "target target is not ready: 1 finding refused at readiness (--require-ready): mapping differs") {
		t.Errorf("RequireReady: error %v", err)
	}
	// Against its own fixtures it is ready with no finding.
	run, err = conformtest.Check(context.Background(), srv.URL, conformtest.Fixtures(dir), conformtest.Ops("counts"))
	if err != nil || len(run.Findings) != 0 || !run.Passed() {
		t.Errorf("own fixtures: error %v, findings %+v, passed %v", err, run.Findings, run != nil && run.Passed())
	}
}

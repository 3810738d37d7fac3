package main

import (
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/conform-dev/conform/fixtures"
	"github.com/conform-dev/conform/oracle/engine"
)

// servedFixtures starts the embedded engine as "conform serve --fixtures DIR" does, with
// the fixtures of a variant written by "conform fixtures --variant".
func servedFixtures(t *testing.T, variant string) (dir string, url string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "fx")
	args := []string{"fixtures", "--out", dir}
	if variant != "" {
		args = append(args, "--variant", variant)
	}
	if code, _, errOut := runCLI(t, nil, args...); code != 0 {
		t.Fatalf("fixtures: exit %d: %s", code, errOut)
	}
	f, err := loadFixtures(dir)
	if err != nil {
		t.Fatal(err)
	}
	eng := engine.New()
	if err := eng.Load(f.Workload.Index, f.Mapping, f.Docs); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(eng)
	t.Cleanup(srv.Close)
	return dir, srv.URL
}

// The embedded engine serves GET /{index}/_mapping, so readiness compares a served target's
// mapping: a serve of the price-double fixtures checked against the designed ones is not
// ready, naming price, and no case is sent.
func TestCheckServedPriceDoubleAgainstDesigned(t *testing.T) {
	_, url := servedFixtures(t, fixtures.VariantPriceDouble)
	code, out, errOut := runCLI(t, nil, "check", "--target", "pd="+url)
	const why = "mapping differs from the fixtures': the index holds the price-double mapping, the fixtures are the designed mapping: price is double where the fixtures map scaled_float(100)"
	if want := "pd: index catalogue: " + why + "\nconform: target pd is not ready: " + why + "; none of the 448 cases was checked\n"; code != exitUsage || errOut != want || out != "" {
		t.Errorf("exit %d, stdout %q, stderr %q; want 2, nothing and %q", code, out, errOut, want)
	}
}

// Checked against its own fixtures, a served price-double target names its variant and
// passes readiness (the counts then pass too: the engine is the oracle's engine).
func TestCheckServedVariantNamed(t *testing.T) {
	dir, url := servedFixtures(t, fixtures.VariantPriceDouble)
	code, _, errOut := runCLI(t, nil, "check", "--fixtures", dir, "--target", "pd="+url, "--ops", "counts")
	if want := "pd: index catalogue: mapping: the price-double mapping, as the fixtures\n"; code != 0 || errOut != want {
		t.Errorf("exit %d, stderr %q; want 0 and %q", code, errOut, want)
	}
}

package main

import (
	"net/http/httptest"
	"path/filepath"
	"strings"
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
// mapping: a serve of the price-double fixtures checked against the designed ones is a
// finding that names the variant and price, printed first; the cases then run, and the
// failing ones show the sort values a double gives where scaled_float's differ (19.99 for
// 19.990000000000002). Exit 1. --require-ready refuses it instead, with no case sent.
func TestCheckServedPriceDoubleAgainstDesigned(t *testing.T) {
	_, url := servedFixtures(t, fixtures.VariantPriceDouble)
	js := filepath.Join(t.TempDir(), "check.json")
	// The sorts on price are in the page and after cases.
	code, out, errOut := runCLI(t, nil, "check", "--target", "pd="+url, "--ops", "page,after", "--json", js)
	const why = "mapping differs from the fixtures': the index holds the price-double mapping, the fixtures are the designed mapping: price is double where the fixtures map scaled_float(100)"
	if want := "pd: FINDING " + why + "\nconform: readiness made 1 finding (mapping), and 12 of 128 cases failed the strict check\n"; code != exitFail || errOut != want {
		t.Errorf("exit %d, stderr %q; want 1 and %q", code, errOut, want)
	}
	if want := "check pd (" + url + ") against oracle embedded: 128 cases, strict\n\nREADINESS FINDINGS (1; the cases ran; each finding fails the check):\n  pd: " + why + "\n\nop "; !strings.HasPrefix(out, want) {
		t.Errorf("the summary does not start with the finding:\n%s\nwant it to start:\n%s", out, want)
	}
	if !strings.Contains(out, "page/000     [sort] hits.hits[5].sort[0]: want 1.1500000000000001, got 1.15") {
		t.Errorf("the failing cases do not show the sort values that differ:\n%s", out)
	}
	r := readCheckJSON(t, js)
	if len(r.Findings) != 1 || r.Findings[0].Kind != "mapping" || r.Findings[0].Summary != why || r.FailuresByClass["sort"] != 11 || r.Cases != 128 {
		t.Errorf("JSON: findings %+v, failures by class %v, %d cases", r.Findings, r.FailuresByClass, r.Cases)
	}
	code, out, errOut = runCLI(t, nil, "check", "--target", "pd="+url, "--require-ready")
	if want := "pd: FINDING " + why + "\nconform: target pd is not ready: 1 finding refused at readiness (--require-ready): " + why + "; none of the 448 cases was checked\n"; code != exitUsage || errOut != want || out != "" {
		t.Errorf("--require-ready: exit %d, stdout %q, stderr %q; want 2, nothing and %q", code, out, errOut, want)
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

package main

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/conform-dev/conform/fixtures"
)

// ownFixtures is the catalogue's corpus joined with testdata/own-workload/workload.json, a
// conform-workload/2 of the operations' own labels (captured kinds: searches by shape, a
// _count, a terms aggregation, an _mget, an _msearch, a HEAD), the way a snapshot's files and
// a capture's workload.json make one directory: by copying them into it.
func ownFixtures(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	f := fixtures.Default()
	os.WriteFile(filepath.Join(dir, fixtures.MappingFile), f.Mapping, 0o644)
	os.WriteFile(filepath.Join(dir, fixtures.CorpusFile), f.Corpus, 0o644)
	wl, err := os.ReadFile(filepath.Join("..", "..", "testdata", "own-workload", fixtures.WorkloadFile))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, fixtures.WorkloadFile), wl, 0o644)
	return dir
}

// The embedded engine declines a wildcard query: check says how many cases need a live
// oracle or a golden file, leaves them out, and checks the rest under the workload's labels.
// (Whether it declines _mget and _msearch too depends on the engine's version: they are not
// counted on here.)
func TestCheckOwnWorkload(t *testing.T) {
	dir := ownFixtures(t)
	js := filepath.Join(t.TempDir(), "check.json")
	junit := filepath.Join(t.TempDir(), "junit.xml")
	code, out, errOut := runCLI(t, nil, "check", "--fixtures", dir, "--json", js, "--junit", junit)
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{
		"search-term-brand-sort-price      2       2       0",
		"search-relevance-should           2       2       0",
		"count-range-views                 1       1       0",
		"exists                            1       1       0",
		"NOT CHECKED: ",
		"--oracle live:URL (an Elasticsearch holding the index) or --oracle golden:FILE: the embedded engine declines ",
		"search-wildcard-brand/000: query [wildcard]",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the summary lacks %q:\n%s", want, out)
		}
	}
	var r struct {
		Cases, Passed, Declined int
		DeclinedCases           []string `json:"declined_cases"`
	}
	b, _ := os.ReadFile(js)
	if err := json.Unmarshal(b, &r); err != nil || r.Cases+r.Declined != 12 || r.Passed != r.Cases || !slices.Contains(r.DeclinedCases, "search-wildcard-brand/000") {
		t.Errorf("check.json: %s", b)
	}
	x, _ := os.ReadFile(junit)
	if !strings.Contains(string(x), `<testcase name="search-wildcard-brand/000" classname="conform.embedded.search-wildcard-brand"`) || !strings.Contains(string(x), "<skipped message=") {
		t.Errorf("junit does not skip the declined case:\n%s", x)
	}
	// --ops takes the workload's own labels; one of declined cases alone is nothing to check.
	if code, out, _ := runCLI(t, nil, "check", "--fixtures", dir, "--ops", "count-range-views"); code != exitOK || !strings.Contains(out, "count-range-views") {
		t.Errorf("--ops count-range-views: exit %d\n%s", code, out)
	}
	if code, _, errOut := runCLI(t, nil, "check", "--fixtures", dir, "--ops", "search-wildcard-brand"); code != exitUsage || !strings.Contains(errOut, "nothing to check with oracle embedded: 1 case needs --oracle live:URL") {
		t.Errorf("--ops search-wildcard-brand: exit %d, %s", code, errOut)
	}
	// explain says what a declined case needs.
	if code, _, errOut := runCLI(t, nil, "explain", "search-wildcard-brand/000", "--fixtures", dir); code != exitUsage || !strings.Contains(errOut, "explain it with --oracle live:URL") {
		t.Errorf("explain search-wildcard-brand/000: exit %d, %s", code, errOut)
	}
	if code, out, errOut := runCLI(t, nil, "explain", "search-relevance-should/001", "--fixtures", dir); code != exitOK || !strings.Contains(out, "_score") {
		t.Errorf("explain search-relevance-should/001: exit %d\n%s\n%s", code, out, errOut)
	}
}

// run times the workload with a cell per label; the declined operations are left out and
// named on stderr.
func TestRunOwnWorkloadCellsByLabel(t *testing.T) {
	dir := ownFixtures(t)
	out := filepath.Join(t.TempDir(), "run")
	code, stdout, stderr := runCLI(t, smallRun, "run", "--fixtures", dir, "--out", out, "--clients", "1", "--no-progress")
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "--oracle live:URL (an Elasticsearch holding the index) or --oracle golden:FILE: the embedded engine declines them (") || !strings.Contains(stderr, "search-wildcard-brand 1, left out of the run") {
		t.Errorf("stderr does not name the declined cases:\n%s", stderr)
	}
	r := readResults(t, out)
	var ops []string
	for _, c := range r.Cells {
		ops = append(ops, c.Op)
	}
	if got := strings.Join(r.Settings.Ops, ","); got != strings.Join(ops, ",") || !strings.HasPrefix(got, "get,search-term-brand-sort-price,search-relevance-should,count-range-views,terms-brand,") ||
		!strings.HasSuffix(got, ",exists") || strings.Contains(got, "search-wildcard-brand") {
		t.Errorf("settings.ops = %s, cells %s: want the workload's labels but the declined one", got, ops)
	}
	if !strings.Contains(stdout, "search-term-brand-sort-price") {
		t.Errorf("the table does not show the labels:\n%s", stdout)
	}
}

// A workload alone (no corpus) is checked against a live oracle; readiness says it proves
// nothing about the data; without a live oracle or target, the command says what it needs.
func TestWorkloadAloneWithLiveOracle(t *testing.T) {
	f := fixtures.Default()
	srvEngine := loadedEngine(t)
	srv := httptest.NewServer(srvEngine)
	defer srv.Close()
	dir := t.TempDir()
	wl, _ := os.ReadFile(filepath.Join("..", "..", "testdata", "own-workload", fixtures.WorkloadFile))
	os.WriteFile(filepath.Join(dir, fixtures.WorkloadFile), wl, 0o644)
	_ = f

	code, _, errOut := runCLI(t, nil, "check", "--fixtures", dir)
	if code != exitUsage || !strings.Contains(errOut, "the fixtures have no corpus, so there is no embedded engine to serve them") {
		t.Errorf("no target: exit %d, %s", code, errOut)
	}
	code, _, errOut = runCLI(t, nil, "check", "--fixtures", dir, "--target", "gw="+srv.URL)
	if code != exitUsage || !strings.Contains(errOut, "--oracle live:URL (an Elasticsearch holding the index) or --oracle golden:FILE") {
		t.Errorf("embedded oracle, no corpus: exit %d, %s", code, errOut)
	}
	code, out, errOut := runCLI(t, nil, "check", "--fixtures", dir, "--target", "gw="+srv.URL, "--oracle", "live:"+srv.URL)
	// The embedded engine is both here: it declines the wildcard query as the live oracle
	// too; a real Elasticsearch answers it (lab/realengines).
	if !strings.Contains(errOut, "gw: the fixtures have no corpus: readiness proves nothing about the data index catalogue holds") {
		t.Errorf("readiness does not say it proved nothing:\n%s", errOut)
	}
	if !strings.Contains(errOut, "the fixtures have no corpus: "+srv.URL+" answers from whatever its index catalogue holds now") {
		t.Errorf("the live oracle does not say it answers from what it holds:\n%s", errOut)
	}
	if code != exitOK || !strings.Contains(out, "search-relevance-should") {
		t.Errorf("exit %d\n%s\n%s", code, out, errOut)
	}
}

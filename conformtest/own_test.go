package conformtest_test

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/conform-dev/conform/conformtest"
	"github.com/conform-dev/conform/fixtures"
)

// A gateway's test over its own workload (testdata/own-workload, conform-workload/2) joined
// with the catalogue's corpus: subtests are named by the workload's own cases, and the cases
// the embedded oracle declines (the wildcard query) are skipped saying what would check them.
func TestOwnWorkloadThroughAGateway(t *testing.T) {
	dir := t.TempDir()
	f := fixtures.Default()
	os.WriteFile(filepath.Join(dir, fixtures.MappingFile), f.Mapping, 0o644)
	os.WriteFile(filepath.Join(dir, fixtures.CorpusFile), f.Corpus, 0o644)
	wl, err := os.ReadFile(filepath.Join("..", "testdata", "own-workload", fixtures.WorkloadFile))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, fixtures.WorkloadFile), wl, 0o644)

	backend := conformtest.NewServer(t, conformtest.Fixtures(dir))
	gw := httptest.NewServer(gateway(backend.URL, false))
	defer gw.Close()
	conformtest.Run(t, gw.URL, conformtest.Fixtures(dir))

	run, err := conformtest.Check(context.Background(), gw.URL, conformtest.Fixtures(dir), conformtest.Ops("search-relevance-should", "search-wildcard-brand"))
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Cases) != 2 || run.Cases[0].Case.Name != "search-relevance-should/000" || len(run.Declined) != 1 || run.Declined[0].Case.Name != "search-wildcard-brand/000" {
		t.Errorf("Ops(search-relevance-should, search-wildcard-brand): %d cases, %d declined", len(run.Cases), len(run.Declined))
	}
}

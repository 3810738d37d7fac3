package main

import (
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/conform-dev/conform/conformance/report"
	"github.com/conform-dev/conform/fixtures"
	"github.com/conform-dev/conform/internal/aggfault"
)

// conform fuzz through the CLI against a gateway with the three aggregation bugs found on
// the Elasticsearch-over-Qdrant gateway (a filter aggregation counting only the page, a max
// over the page only, sum_other_doc_count always 0) and the trivial one that used to swallow
// them ("aggregations": {} for "aggs": {}), a real HTTP proxy in front of the embedded
// engine: each bug has a reproducer that shows its own difference, the terms bug is one group
// listing its fields, and --save keeps a case per field.
func TestFuzzAggregationFaultsEachShowTheirDifference(t *testing.T) {
	backend := httptest.NewServer(loadedEngine(t))
	defer backend.Close()
	proxy := httptest.NewServer(aggfault.New(backend.URL, aggfault.All))
	defer proxy.Close()
	dir := filepath.Join(t.TempDir(), "regressions")
	code, out, errOut := runCLI(t, nil, "fuzz", "--target", "mut="+proxy.URL, "--n", "400", "--seed", "1", "--no-progress", "--save", dir)
	if code != exitFail {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	if strings.Contains(out, `"aggs":{}`) {
		t.Errorf("a reproducer shrank to no aggregation:\n%s", out)
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`\{"size":0,"aggs":\{"a0":\{"terms":\{"field":"\w+"\}\}\}\}[\s\S]*?aggregations\.a0\.sum_other_doc_count: want [1-9]\d*, got 0`),
		regexp.MustCompile(`\{"size":0,"aggs":\{"a0":\{"filter":[^\n]*\n[\s\S]*?aggregations\.a0\.doc_count: want [1-9]\d*, got 0`),
		regexp.MustCompile(`\{"size":0,"aggs":\{"a0":\{"max":\{"field":"\w+"\}\}\}\}[\s\S]*?aggregations\.a0\.value: want [0-9.]+, got null`),
		regexp.MustCompile(`on \d+ field sets: \w+ \(\d+ requests?\), \w+ \(`),
	} {
		if !want.MatchString(out) {
			t.Errorf("stdout lacks %s:\n%s", want, out)
		}
	}
	saved, err := fixtures.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "Saved "+report.Plural(len(saved.Workload.Cases), "minimal disagreement")) {
		t.Errorf("%d cases saved, stdout says otherwise:\n%s", len(saved.Workload.Cases), out)
	}
}

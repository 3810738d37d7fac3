package main

import (
	"os"
	"regexp"
	"testing"
)

// `conform yamltest` over the stored Elasticsearch and OpenSearch YAML tests must report no
// failure against the embedded engine: the engine answers what Elasticsearch 8.15 answers
// wherever those tests say what that is.
func TestYAMLTestSharedSuiteOnEmbeddedEngine(t *testing.T) {
	dir := ""
	for _, d := range []string{os.Getenv("CONFORM_ES_REST_TESTS"), "../../testdata/es-rest-tests"} {
		if st, err := os.Stat(d); d != "" && err == nil && st.IsDir() {
			dir = d
			break
		}
	}
	if dir == "" {
		t.Fatal("no testdata/es-rest-tests directory: set CONFORM_ES_REST_TESTS")
	}
	code, out, errs := run(t, "yamltest", dir)
	t.Log(out)
	m := regexp.MustCompile(`(?m)^(\d+) passed, (\d+) failed, (\d+) skipped(?:, \d+ excluded)?\n\z`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no summary line (exit %d): %s", code, errs)
	}
	if m[2] != "0" || code != 0 {
		t.Errorf("conform yamltest %s: %s passed, %s failed, %s skipped (exit %d); every failure is listed above", dir, m[1], m[2], m[3], code)
	}
	if m[1] == "0" {
		t.Error("nothing passed")
	}
}

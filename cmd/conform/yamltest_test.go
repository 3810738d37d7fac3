package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A tiny target: GET / and a document read that finds nothing.
func yamlTarget(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/":
			fmt.Fprint(w, `{"version":{"number":"8.15.0","build_flavor":"default"}}`)
		default:
			w.WriteHeader(404)
			fmt.Fprint(w, `{"_index":"test","_id":"1","found":false}`)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestYAMLTestCommand(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "10_get.yml")
	os.WriteFile(file, []byte(`"missing":
  - do:
      catch: missing
      get: { index: test, id: "1" }
  - match: { found: false }
---
"wrong":
  - do:
      catch: missing
      get: { index: test, id: "1" }
  - match: { found: true }
---
"later":
  - requires:
      cluster_features: [gte_v9.0.0]
      reason: newer
  - do: { info: {} }
`), 0o644)
	srv := yamlTarget(t)
	code, out, errs := run(t, "yamltest", "--target", srv.URL, dir)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (a test failed)\n%s%s", code, out, errs)
	}
	for _, want := range []string{
		"ok    10_get.yml  missing\n",
		"FAIL  10_get.yml  wrong\n      at 10_get.yml:11 (test): match: {found: true}\n      field [found] does not match the expected value\n      expected: true\n      actual:   false\n",
		"skip  10_get.yml  later\n      requires cluster_features gte_v9.0.0, which Elasticsearch 8.15.0 does not have: newer\n",
		"target " + srv.URL + ", version 8.15.0\nskipped, by what they need:\n    1  requires cluster_features gte_v9.0.0, which Elasticsearch 8.15.0 does not have\n1 passed, 1 failed, 1 skipped\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = run(t, "yamltest", "--target", srv.URL, "--run", "missing", file)
	if code != 0 || !strings.HasSuffix(out, "1 passed, 0 failed, 0 skipped\n") {
		t.Errorf("--run: exit %d\n%s", code, out)
	}
}

func TestYAMLTestUsage(t *testing.T) {
	tests := []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"yamltest"}, 2, "needs test files or directories"},
		{[]string{"yamltest", "--distribution", "solr", "x"}, 2, "--distribution must be"},
		{[]string{"yamltest", "--es-version", "eight", "x"}, 2, "--es-version"},
		{[]string{"yamltest", "--run", "(", "x"}, 2, "--run"},
		{[]string{"yamltest", "--target", "ftp://x", "x"}, 2, "not an http or https URL"},
		{[]string{"yamltest", "--target", "http://127.0.0.1:1", "/nonexistent/dir"}, 2, "no such file"},
	}
	for _, tt := range tests {
		code, _, errs := run(t, tt.args...)
		if code != tt.code || !strings.Contains(errs, tt.stderr) {
			t.Errorf("%q: exit %d stderr %q, want %d and %q", tt.args, code, errs, tt.code, tt.stderr)
		}
	}
}

// A live target that already holds documents is run anyway (the runner never deletes what it
// did not create), with a warning before any result and again by the summary.
func TestYAMLTestWarnsOfAClusterWithData(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "10_count.yml")
	os.WriteFile(file, []byte(`"count everything":
  - do: { count: {} }
  - match: { count: 0 }
`), 0o644)
	srv := httptest.NewServer(loadedEngine(t))
	defer srv.Close()
	code, out, _ := run(t, "yamltest", "--target", srv.URL, dir)
	warning := "warning: the target already holds 10000 documents before any test runs"
	if code != 1 || !strings.HasPrefix(out, warning) || strings.Count(out, warning) != 2 {
		t.Errorf("exit %d, want 1 and the warning first and by the summary:\n%s", code, out)
	}
}

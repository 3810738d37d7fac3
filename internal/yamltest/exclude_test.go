package yamltest

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/conform-dev/conform/oracle/engine"
)

func TestReadExclusions(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ExclusionsFile)
	os.WriteFile(path, []byte("# Excluded\n\nprose | with a bar\n\n| file | section | reason |\n|---|---|---|\n| a/10_x.yml | One | fails on 8.15.0 |\n| `opensearch:b/20_y.yml` | `Two` | a \\| bar |\n"), 0o644)
	ex, err := ReadExclusions(path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a/10_x.yml/One": "fails on 8.15.0", "opensearch:b/20_y.yml/Two": "a | bar"}
	if len(ex) != len(want) {
		t.Fatalf("got %v, want %v", ex, want)
	}
	for k, v := range want {
		if ex[k] != v {
			t.Errorf("%s: %q, want %q", k, ex[k], v)
		}
	}
	for name, body := range map[string]string{
		"two cells":   "| a/10_x.yml | One |\n",
		"no reason":   "| a/10_x.yml | One | |\n",
		"twice":       "| a/10_x.yml | One | r |\n| a/10_x.yml | One | r |\n",
		"four fields": "| a/10_x.yml | One | r | s |\n",
	} {
		os.WriteFile(path, []byte(body), 0o644)
		if _, err := ReadExclusions(path); err == nil || !strings.Contains(err.Error(), ExclusionsFile+":") {
			t.Errorf("%s: error %v, want one naming the file and line", name, err)
		}
	}
	if ex, err := ReadExclusions(filepath.Join(dir, "none.md")); err != nil || ex != nil {
		t.Errorf("a missing list: %v %v, want no exclusion and no error", ex, err)
	}
}

func TestFeatureGroupsReasons(t *testing.T) {
	for reason, want := range map[string]string{
		"outside the embedded engine's subset (test line 29): unsupported by conform's embedded engine: the URL parameter [version]": "declined: the URL parameter [version]",
		"needs runner feature yaml": "needs runner feature yaml",
		"requires cluster_features gte_v8.16.0, which Elasticsearch 8.15.0 does not have: query consistency bug fix": "requires cluster_features gte_v8.16.0, which Elasticsearch 8.15.0 does not have",
		"uses API snapshot.create (line 66), which this runner cannot map to HTTP":                                   "uses API snapshot.create, which this runner cannot map to HTTP",
		"requires API capabilities, which this runner does not check: bitmap terms":                                  "requires API capabilities, which this runner does not check",
	} {
		if got := Feature(reason); got != want {
			t.Errorf("Feature(%q) = %q, want %q", reason, got, want)
		}
	}
}

// An excluded section is not run; capabilities parse and skip; a HEAD request the engine
// declines is declined by name, though a HEAD answer has no body.
func TestExcludedCapabilitiesAndDeclinedHead(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "10_x.yml"), []byte(`---
"excluded":
  - do: { indices.create: { index: never } }
---
"capabilities":
  - requires:
      capabilities:
        - method: POST
          path: /_search
          capabilities: [ something ]
      reason: new
  - do: { info: {} }
---
"head declined":
  - do: { index: { index: t, id: "1", body: { a: 1 } } }
  - do: { exists: { index: t, id: "1", version: 1 } }
  - is_true: ''
`), 0o644)
	target := HandlerTarget("embedded", func() (http.Handler, error) { return engine.New(), nil })
	rep, err := Run(context.Background(), Options{Target: target, Exclusions: map[string]string{"10_x.yml/excluded": "fails there"}}, dir)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Status{"excluded": Excluded, "capabilities": Skipped, "head declined": Skipped}
	for _, r := range rep.Results {
		if r.Status != want[r.Test] {
			t.Errorf("%s: %s", r.Test, describe(r))
		}
		if r.Test == "head declined" && !strings.Contains(r.Reason, "the URL parameter [version]") {
			t.Errorf("HEAD declined without its reason: %q", r.Reason)
		}
	}
	if got := rep.Summary(); got != "0 passed, 0 failed, 2 skipped, 1 excluded" {
		t.Errorf("summary %q", got)
	}
}

// TestSuiteNameLayouts: a file is named alike in the upstream layout and in a tree of
// elasticsearch/ and opensearch/ directories, so an exclusion list matches both.
func TestSuiteNameLayouts(t *testing.T) {
	for _, tc := range []struct{ file, root, want string }{
		{"/x/elasticsearch/rest-api-spec/src/yamlRestTest/resources/rest-api-spec/test/get/20_stored_fields.yml", "/x", "get/20_stored_fields.yml"},
		{"/x/elasticsearch/get/20_stored_fields.yml", "/x", "get/20_stored_fields.yml"},
		{"/x/opensearch/search/90_search_after.yml", "/x", "search/90_search_after.yml"},
		{"/x/get/20_stored_fields.yml", "/x", "get/20_stored_fields.yml"},
		{"/x/elasticsearch/10_basic.yml", "/x", "elasticsearch/10_basic.yml"},
	} {
		if got := suiteName(tc.file, tc.root); got != tc.want {
			t.Errorf("suiteName(%s, %s) = %s, want %s", tc.file, tc.root, got, tc.want)
		}
	}
}

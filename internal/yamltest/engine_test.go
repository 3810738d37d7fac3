package yamltest

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/conform-dev/conform/oracle/engine"
)

// TestSharedRestTestsOnEmbeddedEngine is the embedded half of the real-engine suite's YAML
// check (lab/realengines/yaml_test.go), with no JVM: every section of the stored
// Elasticsearch and OpenSearch YAML tests that EXCLUDED.md does not set aside (real
// Elasticsearch 8.15.0 fails those) must pass on the embedded engine or be declined, by the
// engine (conform_unsupported_exception) or by the runner, with what it needs named. A
// section that fails is a wrong answer: Elasticsearch 8.15.0 passes it.
func TestSharedRestTestsOnEmbeddedEngine(t *testing.T) {
	dir := sharedTests(t)
	ex, err := ExclusionsFor([]string{dir}, filepath.Join("..", "..", "testdata", "es-rest-tests", ExclusionsFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(ex) == 0 {
		t.Fatal("no exclusions read from testdata/es-rest-tests/" + ExclusionsFile)
	}
	target := HandlerTarget("embedded", func() (http.Handler, error) { return engine.New(), nil })
	rep, err := Run(context.Background(), Options{Target: target, Exclusions: ex}, dir)
	if err != nil {
		t.Fatal(err)
	}
	seen, files := map[string]bool{}, map[string]bool{}
	for _, r := range rep.Results {
		seen[r.File+"/"+r.Test] = true
		files[r.File] = true
		if r.Status == Failed {
			t.Errorf("wrong answer (Elasticsearch 8.15.0 passes this section): %s", describe(r))
		}
	}
	for key := range ex {
		// The list also covers the fuller copy of Elasticsearch's tests kept outside the
		// repository (testdata/es-rest-tests/README.md): only a file at hand can be judged.
		if file := key[:strings.Index(key, ".yml/")+len(".yml")]; files[file] && !seen[key] {
			t.Errorf("EXCLUDED.md names %q, which is no section of %s", key, file)
		}
	}
	passed, failed, skipped := rep.Counts()
	t.Logf("%d passed, %d failed, %d declined, %d excluded", passed, failed, skipped, rep.Excluded())
	for _, g := range rep.SkippedByFeature() {
		t.Logf("  %3d  %s", g.Count, g.Feature)
	}
	// The repository's sections (CONFORM_ES_REST_TESTS may point at more): 45 of them pass
	// today; fewer means the engine or the runner lost ground.
	if want := 45; dir == filepath.Join("..", "..", "testdata", "es-rest-tests") && passed < want {
		t.Errorf("%d passed, want at least %d", passed, want)
	}
}

package yamltest

import (
	"context"
	"net/http"
	"testing"

	"github.com/conform-dev/conform/oracle/engine"
)

func TestSharedRestTestsOnEmbeddedEngine(t *testing.T) {
	dir := sharedTests(t)
	target := HandlerTarget("embedded", func() (http.Handler, error) { return engine.New(), nil })
	rep, err := Run(context.Background(), Options{Target: target}, dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		switch r.Status {
		case Failed:
			t.Errorf("%s", describe(r))
		case Skipped:
			t.Logf("skipped %s %q: %s", r.File, r.Test, r.Reason)
		}
	}
	passed, failed, skipped := rep.Counts()
	t.Logf("%d passed, %d failed, %d skipped", passed, failed, skipped)
	// 45 sections pass today; fewer means the engine or the runner lost ground.
	if passed < 45 || failed != 0 {
		t.Errorf("%d passed and %d failed, want at least 45 passed and none failed", passed, failed)
	}
}

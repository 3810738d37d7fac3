//go:build engine

// This test needs the real embedded engine; run it with `go test -tags engine ./internal/yamltest/`.

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
	if passed == 0 {
		t.Error("nothing passed")
	}
}

package load

import (
	"context"

	"github.com/elastic/elastic-transport-go/v8/elastictransport"
)

// ProbeIdentity asks an engine who it is (GET /, or GET /_nodes/_local where GET / is not
// served) and nothing else: the readiness of a target when the fixtures have no corpus to
// prove (a workload alone).
func ProbeIdentity(ctx context.Context, tp elastictransport.Interface) (Identity, error) {
	return esClient{tp: tp}.identity(ctx)
}

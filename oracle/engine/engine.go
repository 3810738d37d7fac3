// Package engine is conform's embedded Elasticsearch 8.15 engine for the scalar subset.
//
// PLACEHOLDER: this file only fixes the API other packages build against; the engine itself
// is being written. Every request answers 501 until then.
package engine

import (
	"net/http"

	"github.com/conform-dev/conform/fixtures"
)

// Engine holds indexes and serves the Elasticsearch HTTP API subset. It is safe for
// concurrent use.
type Engine struct{}

// New returns an empty engine.
func New() *Engine { return &Engine{} }

// Load creates index from an index-creation body (mapping) and indexes docs in order, as a
// fresh single-shard index would (document numbers follow the slice order).
func (e *Engine) Load(index string, mapping []byte, docs []fixtures.Doc) error { return nil }

// Do serves one request in process: method, target (path and optional query string, e.g.
// "/catalogue/_search?track_total_hits=false") and body. It returns the HTTP status and the
// response body exactly as it would be sent.
func (e *Engine) Do(method, target string, body []byte) (status int, resp []byte) {
	return 501, []byte(`{"error":{"root_cause":[{"type":"unsupported","reason":"engine not built yet"}],"type":"unsupported","reason":"engine not built yet"},"status":501}`)
}

// ServeHTTP serves the same API over HTTP.
func (e *Engine) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(501)
}

// Package oracle is the second stage of conform's pipeline: it turns the fixtures' workload into
// expected responses, the answers Elasticsearch 8.15 gives, before any timing starts. It takes
// the fixtures and a run's settings (index name, track_total_hits) and hands on Expectations:
// one Expected per case, in workload order, with the concrete request, the HTTP status and the
// response body, shared read-only by every client of a run.
//
// Expectations come from one of three sources behind the Source interface: the embedded engine
// (the default, package oracle/engine), a live Elasticsearch queried once per case, or a golden
// file recorded from a live Elasticsearch and tied to the fixtures' hashes. Whatever the source,
// every expectation set carries a hash over its requests and responses so results computed
// against different oracles are never combined. The package does not compare responses (the
// conformance check does) and never times anything; it flags, as warnings, the cases whose
// answer Elasticsearch itself does not fix, such as a page boundary inside a tie.
package oracle

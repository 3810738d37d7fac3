// Package conformance is conform's strict check: it compares a target's response with the
// response Elasticsearch would give (the oracle's bytes) and returns either a pass or a list of
// typed differences, each with a class, a JSON path, and the wanted and received JSON text.
//
// It sits between the oracle, which hands it expected (status, body) pairs to precompile once
// before any timing, and the runner, which calls Check on every response while clients run, so a
// passing check reads the raw bytes in a single pass without unmarshalling them and allocates
// nothing. It does not reach targets, time requests or keep statistics (the sub-packages do),
// and it never imports net/http. Differences are data; Render, Trim and Mutations are built on
// them for `conform check`, `conform explain` and the mutation suite that proves the check
// catches what it claims to catch.
package conformance

// Package yamltest runs Elasticsearch's YAML REST tests (rest-api-spec/test) against any
// Elasticsearch-compatible target: by default a fresh embedded engine per test, served in
// process, or a URL. It sits beside the oracle stage: the YAML tests are Elasticsearch's own
// statements of its behaviour, so passing them is how the embedded oracle shows that its
// answers, and the number rendering in them, are Elasticsearch's.
//
// It takes test files or directories and hands on one result per test section: passed, failed
// (the assertion, expected and actual values, and the response body) or skipped (the reason:
// a runner feature it lacks, a cluster feature or version the target does not have, behaviour
// newer than 8.15, an API it cannot map to HTTP). It follows the Java runner's semantics where
// they matter for verdicts (match compares top-level numbers of different kinds as doubles and
// nested values by kind; catch, warnings, stash), keeps YAML number kinds (int vs float), and
// does not implement node selection, YAML bodies or the Java client's randomisation.
package yamltest

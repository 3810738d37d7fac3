// Package conformtest runs conform's strict conformance suite inside a Go test, the way
// testing/fstest.TestFS checks a file system: Run(t, url) sends every case of the workload to
// url once and reports each as a subtest named like the case (page/017), failing with the
// differences by class and JSON path and a curl command that reproduces the request. NewServer
// and Handler give the embedded Elasticsearch 8.15 engine preloaded with the corpus, so a
// gateway's test can stand it in for its backend.
//
// Before the cases it probes the target's readiness as conform check does
// (conformance/lab): a target that cannot be reached, has no index or does not hold exactly
// the corpus's number of documents fails the test at once; anything else the probe finds (a
// mapping or sampled documents that are not the fixtures') is a failing subtest of its own,
// readiness/KIND, and the cases still run (RequireReady makes it fatal instead).
//
// It sits at the end of the check pipeline (fixtures, oracle, conformance/suite) and takes
// options for the fixtures, the oracle (embedded, golden:FILE, live:URL), the operations,
// track_total_hits and relaxations. It does not time anything (use `conform run`), does not
// load the corpus into a target, and never prints a credential.
package conformtest

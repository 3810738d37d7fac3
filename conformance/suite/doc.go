// Package suite is one strict pass of the workload against a target: it prepares every case's
// request from the oracle's expectations (an after case's cursor from the page it continues),
// sends each once on one connection, checks the response with conformance's strict check and
// collects the outcomes; One does the same for a single case (conform explain). A Checker
// asks the target's readiness first and reports progress; a check stops early, keeping the
// cases done and saying why, when it is cancelled or when the target goes twice its timeout
// without answering. It also
// verifies the embedded oracle against a live Elasticsearch with that same check (Verify), and
// serves the embedded engine loaded with the corpus. OracleSource resolves an oracle spec, and
// LiveOracle reaches a live one without the target's credentials (LiveTarget finds it in a
// source); ExpectCase asks an oracle what explaining one case needs, and OracleRequest is the
// request the oracle answered for it.
//
// It sits between the oracle and the reports: it takes fixtures, expectations and a target,
// and hands on a Run of Outcomes (failures are values, never errors) that conformance/report
// renders as text, JUnit or JSON and conformtest turns into subtests. It does not time
// anything (the runner does), keep statistics or write files.
package suite

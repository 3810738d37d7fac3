// Package overhead measures what conform's timed path costs: it runs wrk and each request
// layer of conformance/target through runner.RunTrial against the same loopback server, at 1
// and 8 clients, in rounds whose order reverses every other round, and reports each layer's
// median latency, throughput and CPU time per request as ratios to wrk's in the same round,
// against stated goals.
//
// The server is by default the embedded engine holding the corpus in a process of its own
// (ServeEngine), sent the workload's cases of one operation and every response checked
// strictly against the embedded oracle's answer (SuiteWorkload): the path a user times. wrk
// sends the same request bytes from a Lua request hook and checks only the status; its count
// of error statuses must match the workload's. ServerStatic (Serve, StaticWorkload) is the
// client's floor: a fixed page, a status-only check. CPU time comes from the OS: getrusage of
// the measuring process over each trial's measured phase, wrk's rusage at exit, the server's
// /proc/PID/stat over the same span.
//
// It takes a target and a wrk executable and hands on a Report (and its text); StartServer
// starts a server process. It does not decide whether wrk is installed or how the command
// line reads (cmd/conform does), and asserts nothing about speed in tests: the figures are
// measurements, not pass conditions.
package overhead

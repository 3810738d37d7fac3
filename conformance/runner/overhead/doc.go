// Package overhead measures what conform's timed path costs: it runs wrk and each request
// layer of conformance/target through runner.RunTrial against the same loopback server, at 1
// and 8 clients, in rounds whose order reverses every other round, and reports each layer's
// median latency and throughput as ratios to wrk's in the same round, against stated goals.
//
// It takes the server's URL and a wrk executable and hands on a Report (and its text); the
// server process itself is Serve, started by StartServer. It does not decide whether wrk is
// installed or how the command line reads (cmd/conform does), and asserts nothing about speed
// in tests: the figures are measurements, not pass conditions.
package overhead

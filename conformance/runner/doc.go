// Package runner drives closed-loop clients against a target and keeps the latency of the
// responses that pass. Its core, RunTrial, runs one trial: each client owns one connection
// (a target.Exchanger), sends warmup requests that are checked but not timed, then takes
// measured request numbers from a shared counter until the trial's count is reached, picking
// each request's case by its number so the mix is the same on every run. Lean connections on
// Linux (target.Async) are driven by event loops, one per CPU, each waiting on its clients'
// sockets with epoll as wrk's threads do; any other exchanger gets a goroutine per client.
// The caller's Check judges each response after the timer has stopped, on the goroutine
// driving the client; failures are counted by class and the first few of each class are kept
// whole. A trial given StallAfter ends once no client has read a response for that long (a
// run gives twice the target's timeout): a target that stopped answering costs a bounded
// time, not a timeout per request left.
//
// It takes prepared connections and a check function, and hands on raw samples (latencies of
// passing responses, failures, wall time); it computes no quantiles (conformance/stats does),
// does not know how the check works, and does not decide rounds, interleaving or readiness,
// which are the run orchestration's.
//
// The orchestration is here too: Run (readiness through a Ready hook, rotation, cells,
// results rewritten after every trial) and Experiment (paired rounds in ABBA order, with
// WritePlan for a dry run, ShellSwitch to switch a one-URL variant between rounds, and Report
// for the analysis and the report of the rounds it finished). Whether
// a target is ready is conformance/lab's decision, passed in as the hook. ProgressDisplay
// shows either's Events on a terminal, as "conform run" and "conform experiment" do.
package runner

// Package cpuset reads and sets the CPUs conform's own process may run on, so a load
// generator can be kept off the CPUs of the servers it measures (as wrk users do with taskset,
// and as the lab caps each engine at its own CPUs). The commands use it for --cpus, and the
// manifest records the affinity a run had, whoever set it.
//
// It takes and prints Linux's cpu-list syntax ("0", "0-1,3"). Pin pins every thread of the Go
// process, not just the calling one, and only narrows: it refuses a CPU that is offline or
// outside the set the process was started with (by taskset or a cgroup), rather than widen
// what someone outside decided. It does not move other processes; lab/engines.sh pins the
// engines with taskset. Outside Linux, Pin and Current return an error.
package cpuset

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"time"

	"github.com/conform-dev/conform/conformance/runner/overhead"
)

func cmdOverhead(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "overhead", "[--duration D] [--rounds N] [--layers=false] [--gate]", `
Measure what conform's timed path costs, against wrk on the same loopback server.

A minimal server answering every request with the same valid 20-hit search response runs in
a separate process (conform re-runs itself with --serve), so it does not share conform's Go
scheduler; on a small machine it still competes with both clients for the CPUs, equally.
Each round runs wrk and each of conform's request layers at 1 and 8 clients for --duration,
reversing the order every other round so drift does not favour either side. Each layer is
compared with wrk in the same round; the figure reported is the median over rounds.

Layers: lean (conform's timed path: one raw keep-alive HTTP/1.1 connection per client,
requests serialised before timing), lean+elastictransport (go-elasticsearch's transport over a
RoundTripper bound to one lean connection), net/http, and net/http+elastictransport
(go-elasticsearch's default stack); "conform run --layer" times with any of them. Goals for
lean: p50 at 1 client <= 1.15 x wrk's, throughput at 8 clients >= 0.95 x wrk's.

wrk must be installed (Debian/Ubuntu: apt-get install -y wrk); without it the command exits 2.`,
		"conform overhead",
		"conform overhead --duration 5s --rounds 5",
		"conform overhead --layers=false --gate   # lean against wrk only; exit 1 if a goal is missed",
	)
	duration := fs.Duration("duration", 2*time.Second, "length of each run, whole seconds (wrk's unit)")
	rounds := fs.Int("rounds", 3, "rounds of runs; the ratios reported are medians over rounds")
	layers := fs.Bool("layers", true, "also measure the other request layers (lean+elastictransport, net/http, net/http+elastictransport)")
	gate := fs.Bool("gate", false, "exit 1 when conform's lean path misses a goal")
	check := fs.String("check", "status", "check applied to every response: `status` (status and length) or page (gjson-free byte comparison of the whole page)")
	wrkPath := fs.String("wrk", "wrk", "wrk executable")
	wrkThreads := fs.Int("wrk-threads", 0, "wrk threads (default: 1 at 1 client, 2 at 8)")
	procs := fs.Int("gomaxprocs", 0, "GOMAXPROCS for conform's clients (default: the Go runtime's); the server process always keeps its default")
	serve := fs.Bool("serve", false, "internal: be the loopback server process (prints its URL, serves until stdin closes)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErr("overhead takes no arguments, got %q", fs.Args())
	}
	if *serve {
		return overhead.Serve(e.stdout, os.Stdin)
	}
	d := duration.Round(time.Second)
	if d < time.Second || *rounds < 1 {
		return usageErr("--duration must be at least 1s and --rounds at least 1")
	}
	if *check != "status" && *check != "page" {
		return usageErr("--check must be status or page, not %q", *check)
	}
	wrk, err := exec.LookPath(*wrkPath)
	if err != nil {
		return usageErr("wrk is needed to compare with and was not found (%v).\nInstall it: apt-get install -y wrk (Debian/Ubuntu), or brew install wrk (macOS)", err)
	}
	if *procs > 0 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(*procs))
	}
	url, stop, err := "", func() {}, error(nil)
	exe, err := os.Executable()
	if err == nil {
		url, stop, err = overhead.StartServer(exec.CommandContext(ctx, exe, "overhead", "--serve"))
	}
	if err != nil {
		return &exitError{code: exitUsage, err: fmt.Errorf("starting the loopback server: %w", err)}
	}
	defer stop()
	o := overhead.Options{URL: url, Wrk: wrk, WrkThreads: *wrkThreads, Duration: d, Rounds: *rounds, AllLayers: *layers,
		Check: *check, ServerNote: "a separate process"}
	rep, err := overhead.Measure(ctx, e.stdout, o)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	if *gate && !rep.GoalsMet() {
		return failed("conform's lean path missed an overhead goal")
	}
	return nil
}

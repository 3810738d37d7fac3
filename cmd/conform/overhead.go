package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"time"

	"github.com/conform-dev/conform/conformance/runner/overhead"
	"github.com/conform-dev/conform/conformance/target"
)

func cmdOverhead(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "overhead", "[--server engine|static | --target NAME=URL] [--op OP] [--duration D] [--rounds N] [--layers=false] [--gate]", `
Measure what conform's timed path costs, against wrk sending the same requests to the same
loopback server.

By default the server is the embedded engine holding the corpus, in a process of its own
(conform re-runs itself with --serve), and every response is checked strictly against the
embedded oracle's answer, as "conform run" checks it: the path a user times. --op chooses
the workload's operation (get by default); wrk sends the same request bytes in turn from a
Lua request hook and checks only the status. --target measures against a server of yours
holding the corpus instead (--server-pid PID to have its CPU read). --server static answers
every request with one fixed 20-hit page and checks only status and length (--check page
compares its bytes): the client's floor, labelled as such in the output, not a user's path.

Each round runs wrk and each of conform's request layers at 1 and 8 clients for --duration,
reversing the order every other round so drift does not favour either side. Each layer is
compared with wrk in the same round; the figures reported are medians over rounds. Besides
p50 and req/s, each side's CPU time per request comes from the OS's own accounting:
getrusage over conform's measured phase (its whole process: the clients, the check, the
garbage collector and the runtime), wrk's whole process from its exit status, and the
server's from /proc/PID/stat over the same span.

Layers: lean (conform's timed path: one raw keep-alive HTTP/1.1 connection per client,
requests serialised before timing, driven on Linux by event loops, one per CPU), lean+elastictransport (go-elasticsearch's transport over a
RoundTripper bound to one lean connection), net/http, and net/http+elastictransport
(go-elasticsearch's default stack); "conform run --layer" times with any of them. Goals for
lean: p50 at 1 client <= 1.15 x wrk's, throughput at 8 clients >= 0.95 x wrk's, CPU per
checked request at 8 clients <= 1.25 x wrk's.

wrk must be installed (Debian/Ubuntu: apt-get install -y wrk); without it the command exits 2.`,
		"conform overhead",
		"conform overhead --duration 5s --rounds 5 --layers=false",
		"conform overhead --op page --gate   # exit 1 if a goal is missed",
		"conform overhead --server static     # the client's floor: a fixed page, status-only check",
		"conform overhead --target gw=http://127.0.0.1:8080 --server-pid $(pgrep my-gateway)",
	)
	duration := fs.Duration("duration", 2*time.Second, "length of each run, whole seconds (wrk's unit)")
	rounds := fs.Int("rounds", 3, "rounds of runs; the ratios reported are medians over rounds")
	layers := fs.Bool("layers", true, "also measure the other request layers (lean+elastictransport, net/http, net/http+elastictransport)")
	gate := fs.Bool("gate", false, "exit 1 when conform's lean path misses a goal")
	server := fs.String("server", overhead.ServerEngine, "the loopback server conform starts: `KIND` engine (the embedded engine with the corpus, strict check) or static (a fixed page, status-only check)")
	op := fs.String("op", "get", "the workload's operation `OP` whose cases are sent (engine or --target)")
	fixturesDir := fs.String("fixtures", "", "the corpus and workload in `DIR` (default: the built-in catalogue)")
	var targets listFlag
	fs.Var(&targets, "target", "measure against a server of yours holding the corpus, as `NAME=URL`, instead of one conform starts")
	var tf targetFlags
	tf.registerAuth(fs)
	var cf checkFlags
	cf.register(fs)
	serverPID := fs.Int("server-pid", 0, "with --target: the server's process `PID`, whose CPU time is read from /proc")
	check := fs.String("check", "status", "with --server static: the check applied to every response, `status` (status and length) or page (the whole page's bytes)")
	wrkPath := fs.String("wrk", "wrk", "wrk executable")
	wrkThreads := fs.Int("wrk-threads", 0, "wrk threads (default: 1 at 1 client, 2 at 8)")
	procs := fs.Int("gomaxprocs", 0, "GOMAXPROCS for conform's clients (default: the Go runtime's), which is also the number of event loops at most; the loops run with one spare P; the server process always keeps its default")
	serve := fs.String("serve", "", "internal: be the loopback server process of `KIND` engine or static (prints its URL, serves until stdin closes)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErr("overhead takes no arguments, got %q", fs.Args())
	}
	switch *serve {
	case "":
	case overhead.ServerStatic:
		return overhead.Serve(e.stdout, os.Stdin)
	case overhead.ServerEngine:
		f, err := loadFixtures(*fixturesDir)
		if err != nil {
			return err
		}
		return overhead.ServeEngine(e.stdout, os.Stdin, f)
	default:
		return usageErr("--serve must be engine or static, not %q", *serve)
	}
	d := duration.Round(time.Second)
	if d < time.Second || *rounds < 1 {
		return usageErr("--duration must be at least 1s and --rounds at least 1")
	}
	if *server != overhead.ServerEngine && *server != overhead.ServerStatic {
		return usageErr("--server must be engine or static, not %q", *server)
	}
	if *check != "status" && *check != "page" {
		return usageErr("--check must be status or page, not %q", *check)
	}
	if len(targets) > 1 {
		return usageErr("overhead measures against one --target, not %d", len(targets))
	}
	if len(targets) == 1 && *server == overhead.ServerStatic {
		return usageErr("--target and --server static exclude each other")
	}
	if *serverPID != 0 && len(targets) == 0 {
		return usageErr("--server-pid goes with --target (conform knows the pid of a server it starts)")
	}
	wrk, err := exec.LookPath(*wrkPath)
	if err != nil {
		return usageErr("wrk is needed to compare with and was not found (%v).\nInstall it: apt-get install -y wrk (Debian/Ubuntu), or brew install wrk (macOS)", err)
	}
	copts, err := cf.options()
	if err != nil {
		return err
	}
	tf.timeout = 5 * time.Second
	topts, err := tf.options(e)
	if err != nil {
		return err
	}
	f, err := loadFixtures(*fixturesDir)
	if err != nil {
		return err
	}
	if *procs > 0 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(*procs))
	}

	o := overhead.Options{Wrk: wrk, WrkThreads: *wrkThreads, Duration: d, Rounds: *rounds, AllLayers: *layers, ServerPID: *serverPID}
	spec := ""
	if len(targets) == 1 {
		spec = targets[0]
	} else {
		exe, err := os.Executable()
		if err != nil {
			return infra(fmt.Errorf("starting the loopback server: %w", err))
		}
		cmd := exec.CommandContext(ctx, exe, "overhead", "--serve", *server)
		if *server == overhead.ServerEngine && *fixturesDir != "" {
			cmd.Args = append(cmd.Args, "--fixtures", *fixturesDir)
		}
		url, stop, err := overhead.StartServer(cmd)
		if err != nil {
			return infra(fmt.Errorf("starting the loopback server: %w", err))
		}
		defer stop()
		spec, o.ServerPID = "loopback="+url, cmd.Process.Pid
		o.ServerNote = overhead.LoopbackNote(*server, len(f.Docs))
	}
	tg, err := target.Parse(spec, topts)
	if err != nil {
		return usageErr("--target: %v", err)
	}
	o.Target = tg
	if len(targets) == 1 {
		o.ServerNote = overhead.TargetNote(tg)
	}
	if *server == overhead.ServerStatic {
		o.Workload, err = overhead.StaticWorkload(tg, *check)
	} else {
		o.Workload, err = overhead.SuiteWorkload(ctx, tg, f, *op, copts)
	}
	if err != nil {
		return usageErr("%v", err)
	}
	rep, err := overhead.Measure(ctx, e.stdout, o)
	if err != nil {
		return infra(err)
	}
	if *gate && !rep.GoalsMet() {
		return failed("conform's lean path missed an overhead goal")
	}
	return nil
}

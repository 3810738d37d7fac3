package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/conform-dev/conform/oracle/engine"
)

func cmdServe(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "serve", "[--addr HOST:PORT] [--fixtures DIR | --empty]", `
Serve conform's embedded engine over HTTP: the Elasticsearch 8.15 API subset conform checks
(GET /, index create/delete/exists, GET /{index}/_mapping, _bulk, single documents, _search,
_count, _refresh, _mget, _msearch, point in time, with typed_keys and filter_path), computed in
process with no JVM. It is the default target of "make run". It negotiates headers as
Elasticsearch 8.15 does: compatible-with=7 and 8 are accepted, 9 refused with Elasticsearch's
400, a body that is not JSON (Content-Type: text/plain) refused with its 406.

By default the built-in catalogue (10,000 documents) is preloaded into its index; --fixtures
loads a fixtures directory instead, and --empty starts with no index. It binds loopback unless
told otherwise. Requests outside the subset answer 400 with the error type
conform_unsupported_exception rather than a guess.

--delay adds a fixed wait before every search, count and document read: a stand-in for a
slower engine when trying out "conform experiment" (a gate must reject it). The wait is at
least the given time plus the kernel's timer overshoot (tens of microseconds); the wait
measured on this host is printed at start (about 80 microseconds for --delay 10us here).
--spin instead burns that much CPU before every read, exact to a microsecond: a candidate
whose code path costs more, slower by a known fraction of a sub-millisecond p50 (with more
clients than CPUs the spins queue, as extra work does).

--cpus pins the server to its own CPUs, as taskset -c would, so that on a small machine the
clients measuring it (conform run --cpus, or wrk under taskset) do not share them.`,
		"conform serve",
		"conform serve --addr 127.0.0.1:9201 --fixtures ./my-fixtures",
		"conform serve --empty",
		"conform serve --addr 127.0.0.1:9202 --delay 200us   # a deliberately slower candidate",
		"conform serve --addr 127.0.0.1:9202 --spin 5us      # 5µs more CPU per read: a known small slowdown",
		"conform serve --addr 127.0.0.1:8081 --cpus 1        # its own CPU; conform run --cpus 0 measures it",
	)
	addr := fs.String("addr", "127.0.0.1:9200", "listen address `HOST:PORT`")
	dir := fs.String("fixtures", "", "preload the fixtures in `DIR` instead of the built-in catalogue")
	empty := fs.Bool("empty", false, "start with no index")
	delay := fs.Duration("delay", 0, "wait this long before answering each read (_search, _count, _doc)")
	spin := fs.Duration("spin", 0, "burn this much CPU before answering each read (_search, _count, _doc), exact where --delay overshoots")
	var cpus cpusFlag
	cpus.register(e, fs, "serve only from these CPUs, a `LIST` such as 1 or 2-3, apart from the load generator's (conform run --cpus) so the two do not compete")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErr("serve takes no arguments, got %q", fs.Args())
	}
	if *empty && *dir != "" {
		return usageErr("--empty and --fixtures exclude each other")
	}
	eng := engine.New()
	if !*empty {
		f, err := loadFixtures(*dir)
		if err != nil {
			return err
		}
		start := time.Now()
		if err := eng.Load(f.Workload.Index, f.Mapping, f.Docs); err != nil {
			return &exitError{code: exitUsage, err: fmt.Errorf("loading fixtures: %w", err)}
		}
		fmt.Fprintf(e.stderr, "conform serve: loaded %d documents into index %q in %s\n", len(f.Docs), f.Workload.Index, time.Since(start).Round(time.Millisecond))
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return &exitError{code: exitUsage, err: fmt.Errorf("listening on %s: %w", *addr, err)}
	}
	var h http.Handler = eng
	if *delay < 0 || *spin < 0 {
		return usageErr("--delay and --spin must not be negative")
	}
	if *spin > 0 {
		h = engine.SpinReads(h, *spin)
		fmt.Fprintf(e.stderr, "conform serve: every read burns %s of CPU first\n", *spin)
	}
	if *delay > 0 {
		h = engine.DelayReads(eng, *delay)
		fmt.Fprintf(e.stderr, "conform serve: every read waits %s first (%s measured on this host)\n", *delay, engine.MeasuredDelay(*delay))
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(e.stderr, "conform serve: embedded engine (Elasticsearch %s API subset) on http://%s\n", engine.Version, ln.Addr())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case <-ctx.Done():
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
		return nil
	case err := <-done:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return &exitError{code: exitUsage, err: fmt.Errorf("serving: %w", err)}
	}
}

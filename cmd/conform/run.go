package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/conform-dev/conform/conformance/readiness"
	"github.com/conform-dev/conform/conformance/report"
	"github.com/conform-dev/conform/conformance/runner"
)

func cmdRun(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "run", "[--target NAME=URL ...] [--ops LIST] [--clients 1,8] [--requests 200] [--trials 3] [--warmup 40] [--track-total-hits true|false|N] [--oracle SPEC] [--out DIR]", `
Time the workload against one or more targets, checking every response strictly; only passing
responses are timed. For each trial, operation and concurrency level every target runs before
the next step, in a rotating order. Each trial is WARMUP checked, untimed requests and then
REQUESTS measured requests shared among closed-loop clients, one keep-alive connection each.
The expected responses are computed once, before any timing.

With no --target, conform serves its embedded Elasticsearch 8.15 engine on loopback with the
fixtures loaded and runs against it (that is "make run"). Targets must already hold the corpus
(see "conform load"); readiness is checked first: GET /, the document count, the mapping, the
corpus fingerprint, and one case through the timed path. Readiness stops the run (exit 2) only when
a target cannot be reached, its index is missing or it does not hold exactly the corpus's
number of documents; anything else it finds (a mapping that differs from the fixtures' in
meaning or cannot be read, sampled documents that differ, a GET / that is not
Elasticsearch's) is a finding: printed first, recorded in results.json, manifest.json and
at the top of the reports, and the run goes on; a finding makes the exit 1. --require-ready
refuses such a target instead (exit 2). On a small machine give conform and the
targets separate CPUs (--cpus here, taskset or conform serve --cpus for the targets): clients
sharing CPUs with the servers they time make the latencies far noisier.

Counts are of responses: passed + failed = measured, one number in every output, with the
failures by class beside (a response once under each class it failed; warmup and readiness
failures apart). A cell in which no response passed has no latency: "– (N failed)" in the
tables, null in results.json; a cell with some failures says how many passing responses its
figures rest on ("0.153 (6 of 200 passed)").

Writes into --out: results.json (docs/RESULTS.md; rewritten after every trial, so an
interrupted run leaves valid partial results), report.md, report.html, manifest.json and
benchstat.txt. Exits 1 when any response failed the check or readiness made a finding, 2 on an
infrastructure error, a target readiness stopped or refused, or an interrupted run.`,
		"conform run                                        # the embedded default, like make run",
		"conform run --target es=http://127.0.0.1:9200 --target gw=http://127.0.0.1:8080 --out results/es-vs-gw",
		"REQUESTS=200 TRIALS=3 WARMUP=40 conform run --target os=https://admin@127.0.0.1:9201 --ca ca.pem --clients 1,8",
		"conform run --target gw=http://127.0.0.1:8080/es --index products --ops page,after --track-total-hits false",
		"conform run --target gw=http://127.0.0.1:8080 --cpus 0     # conform on CPU 0, the target pinned elsewhere",
		"conform run --target gw=http://127.0.0.1:8080 --qdrant 127.0.0.1:6334 --collection catalogue --image gw=sha256:abc --limits gw='2 CPUs, 4 GiB'",
	)
	var targets listFlag
	fs.Var(&targets, "target", "a target as `NAME=URL` (repeatable); none serves the embedded engine")
	var tf targetFlags
	tf.register(fs)
	var rf runFlags
	if err := rf.register(e, fs); err != nil {
		return err
	}
	var lf labFlags
	lf.register(fs)
	fixturesDir := fs.String("fixtures", "", "read the corpus, mapping and workload from `DIR` (default: the built-in catalogue)")
	oracleSpec := fs.String("oracle", "embedded", "where expected responses come from (`SPEC`): embedded, live:URL or golden:FILE")
	out := fs.String("out", "", "write the results into `DIR` (default results/run-<time>)")
	noProgress := fs.Bool("no-progress", false, "no progress on stderr (a rewritten line on a terminal, otherwise a line every 10 s)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErr("run takes no arguments, got %q (targets are --target NAME=URL)", fs.Args())
	}
	topts, err := tf.options(e)
	if err != nil {
		return err
	}
	f, err := loadFixtures(*fixturesDir)
	if err != nil {
		return err
	}
	settings, err := rf.settings(topts.Timeout, f.Workload)
	if err != nil {
		return err
	}
	dir := *out
	if dir == "" {
		dir = filepath.Join("results", "run-"+time.Now().UTC().Format("20060102-150405"))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return infra(err)
	}

	ts, stop, err := targetsOrEmbedded(targets, topts, f)
	if err != nil {
		return err
	}
	defer stop()
	lb, err := lf.open(ctx, e, f)
	if err != nil {
		return err
	}
	defer lb.Close()

	fmt.Fprintf(e.stderr, "computing the expected responses (%s) ...\n", *oracleSpec)
	x, err := expectations(ctx, *oracleSpec, topts, f, settings.TrackTotalHits)
	if err != nil {
		return err
	}
	suite, err := runner.NewSuite(f, x, settings.Ops)
	if err != nil {
		return infra(err)
	}
	if note := suite.DeclinedNote(); note != "" {
		fmt.Fprintf(e.stderr, "warning: %s\n", note)
		settings.Ops = suite.Ops
	}
	prog := newProgress(e, *noProgress)
	started := time.Now().UTC()
	r := &runner.Run{
		Settings: settings, Suite: suite, Targets: ts, Ready: lb.Ready,
		OnTrial:  func(res *report.Results) error { return report.WriteResults(dir, res) },
		Progress: prog.Event,
	}
	res, runErr := r.Execute(ctx)
	prog.Done()
	if res == nil {
		return infra(runErr)
	}
	man := report.NewManifest("run", res, lb.Environment(ctx), started, os.Args)
	man.Trials = report.TrialRecords(res)
	if err := report.WriteAll(dir, res, man); err != nil {
		return infra(fmt.Errorf("writing results into %s: %w", dir, err))
	}
	report.RunSummary(e.stdout, res, dir)
	if runErr != nil {
		return infra(fmt.Errorf("%v; partial results in %s", runErr, dir))
	}
	n := res.Counts()
	switch {
	case len(res.Findings) > 0 && n.Any():
		return failed("readiness made %s (%s); %s; see %s", readiness.Plural(len(res.Findings), "finding"), findingKinds(res.Findings), n.Sentence(), filepath.Join(dir, report.MarkdownFile))
	case len(res.Findings) > 0:
		return failed("readiness made %s (%s); every measured response passed; see %s", readiness.Plural(len(res.Findings), "finding"), findingKinds(res.Findings), filepath.Join(dir, report.MarkdownFile))
	case n.Any():
		return failed("%s; see %s", n.Sentence(), filepath.Join(dir, report.MarkdownFile))
	}
	return nil
}

// newProgress is the progress display on stderr unless --no-progress is given (nil, which
// shows nothing): one line rewritten on a terminal, otherwise a line every 10 s, so a run in
// CI is seen moving.
func newProgress(e *env, off bool) *runner.ProgressDisplay {
	switch {
	case off:
		return nil
	case e.stderrIsTerminal:
		return runner.NewProgressDisplay(e.stderr)
	}
	return runner.NewProgressLog(e.stderr)
}

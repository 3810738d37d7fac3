package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/conform-dev/conform/conformance/experiment"
	"github.com/conform-dev/conform/conformance/report"
	"github.com/conform-dev/conform/conformance/runner"
	"github.com/conform-dev/conform/conformance/target"
)

func cmdExperiment(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "experiment", "--baseline LABEL=URL --candidate LABEL=URL [--native NAME=URL ...] [--rounds 4] [--switch-cmd CMD] [--ready-timeout 2m] [run flags] --out DIR", `
Gate a change with a paired experiment: rounds of baseline and candidate in ABBA order
(baseline, candidate, candidate, baseline, repeated), the native engines measured in every
round and interleaved with the round's variant as "conform run" interleaves targets. Every
response is checked strictly; only passing ones are timed.

Two modes: both variants live at two URLs; or one URL (give the same URL twice) whose variant a
user command switches between rounds (e.g. restarts a gateway with the other transport). CMD
runs under sh with the variant's label as $1 and in $CONFORM_VARIANT; a CMD that is just a
script's path gets the label as its argument: --switch-cmd ./switch-gateway.sh runs
"./switch-gateway.sh grpc", and --switch-cmd 'systemctl restart gw-$1' runs as written. Before
every round conform waits (up to --ready-timeout) until every target is ready and proves the
corpus is retained and untouched on each (exact count and a fingerprint over a fixed sample of
documents), and records it in the manifest.

Per cell (operation x clients) the verdict compares the variant's trial p50s over its rounds
with a test that respects the rounds and the natives as controls, Holm over all cells, and a
practical threshold. adopt: both variants passed every check, no cell regressed, at least one
improved. reject: a cell regressed (each named, with its size and p-value) or any response
failed. no-change otherwise. Writes report.md, report.html, verdict.json, results.json (all
rounds merged), manifest.json (every round) and rounds/round-N/ with each round's results.

Exit 0 adopt, 1 reject, 3 no-change, 2 error.`,
		"conform experiment --baseline rest=http://127.0.0.1:8080 --candidate grpc=http://127.0.0.1:8081 --native es=http://127.0.0.1:9200 --native os=http://127.0.0.1:9201 --out results/rest-vs-grpc",
		"conform experiment --baseline rest=http://127.0.0.1:8080 --candidate grpc=http://127.0.0.1:8080 --switch-cmd './restart-gateway.sh' --native es=http://127.0.0.1:9200 --rounds 8 --out results/switched",
		"conform experiment --baseline a=http://127.0.0.1:8080 --candidate b=http://127.0.0.1:8081 --dry-run",
		"REQUESTS=200 TRIALS=3 WARMUP=40 conform experiment --baseline a=URL --candidate a2=URL --rounds 12 --aa aa.json --out results/aa",
	)
	baseline := fs.String("baseline", "", "the baseline variant as `LABEL=URL`")
	candidate := fs.String("candidate", "", "the candidate variant as `LABEL=URL`")
	var natives listFlag
	fs.Var(&natives, "native", "a native engine measured in every round, as `NAME=URL` (repeatable)")
	rounds := fs.Int("rounds", 4, "number of rounds, a multiple of 4 (ABBA blocks)")
	switchCmd := fs.String("switch-cmd", "", "shell `CMD` run before a round whose variant differs from the last: the label is $1 and $CONFORM_VARIANT, and a bare script path gets it as its argument")
	readyTimeout := fs.Duration("ready-timeout", 2*time.Minute, "how long to wait for every target to be ready before a round")
	threshold := fs.Float64("threshold", experiment.DefaultThreshold, "practical threshold: a change of the candidate/baseline ratio below this fraction counts as none")
	alpha := fs.Float64("alpha", experiment.DefaultAlpha, "family-wise error rate over all cells (Holm)")
	nativeWeight := fs.Float64("native-weight", -1, "a fixed `WEIGHT` in [0, 1] for the natives as controls (0 ignores them), chosen before the experiment, e.g. from recorded A/A runs; by default (-1) it is estimated from the data")
	warmMax := fs.Int("warm-max", runner.DefaultWarmMaxPasses, "warm every target to a steady state before round 1: at most `N` passes (0: no warm-up)")
	warmTolerance := fs.Float64("warm-tolerance", runner.DefaultWarmTolerance, "warm-up: the agreement (a fraction) consecutive passes' p50s must reach")
	warmWindow := fs.Int("warm-window", 0, "warm-up: requests per cell per pass (default: --requests)")
	dryRun := fs.Bool("dry-run", false, "print the plan (rounds, order, interleaving, measured responses) and exit")
	aaOut := fs.String("aa", "", "also write the trial p50s of every target, cell and round as an A/A record to `FILE` (conform-aa/1), for measuring this lab's noise")
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
	out := fs.String("out", "", "write the experiment into `DIR`")
	noProgress := fs.Bool("no-progress", false, "no progress display on stderr")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErr("experiment takes no arguments, got %q", fs.Args())
	}
	if *baseline == "" || *candidate == "" {
		return usageErr("experiment needs --baseline LABEL=URL and --candidate LABEL=URL")
	}
	if *rounds < 4 || *rounds%4 != 0 {
		return usageErr("--rounds must be a positive multiple of 4 (whole ABBA blocks), not %d", *rounds)
	}
	if *threshold <= 0 || *alpha <= 0 || *alpha >= 1 || *nativeWeight > 1 || (*nativeWeight < 0 && *nativeWeight != -1) {
		return usageErr("--threshold must be positive, --alpha in (0, 1) and --native-weight in [0, 1] (or -1 to estimate it)")
	}
	if *warmMax < 0 || *warmTolerance <= 0 || *warmWindow < 0 {
		return usageErr("--warm-max and --warm-window must not be negative and --warm-tolerance must be positive")
	}
	opts := experiment.Options{Alpha: *alpha, Threshold: *threshold}
	if *nativeWeight >= 0 {
		opts.NativeWeight = experiment.Weight(*nativeWeight)
	}
	topts, err := tf.options(e)
	if err != nil {
		return err
	}
	settings, err := rf.settings(topts.Timeout)
	if err != nil {
		return err
	}
	vs, err := target.ParseAll([]string{*baseline, *candidate}, topts)
	if err != nil {
		return usageErr("--baseline/--candidate: %v", err)
	}
	base, cand := vs[0], vs[1]
	switched := base.Redacted() == cand.Redacted()
	if switched && *switchCmd == "" && !*dryRun {
		return usageErr("baseline and candidate share %s: give --switch-cmd to switch the variant between rounds, or two URLs", base.Redacted())
	}
	ns, err := target.ParseAll(natives, topts)
	if err != nil {
		return usageErr("--native: %v", err)
	}
	for _, n := range ns {
		if n.Name == base.Name || n.Name == cand.Name {
			return usageErr("native %s has a variant's name", n.Name)
		}
	}
	x := &runner.Experiment{
		Settings: settings, Order: experiment.ABBA(*rounds / 4), ReadyTimeout: *readyTimeout,
		Baseline: runner.Variant{Label: base.Name, Target: base}, Candidate: runner.Variant{Label: cand.Name, Target: cand}, Natives: ns,
		Warm: runner.WarmRule{MaxPasses: *warmMax, Tolerance: *warmTolerance, Window: *warmWindow},
		Say:  func(s string) { fmt.Fprintf(e.stderr, "experiment: %s\n", s) },
	}
	if *dryRun {
		mode := "two URLs"
		if switched {
			mode = fmt.Sprintf("one URL, switched by %q", *switchCmd)
		}
		x.WritePlan(e.stdout, mode)
		if lf.qdrant != "" {
			fmt.Fprintf(e.stdout, "Before each round the Qdrant backend at %s is probed too: health, version, collection %s green with exactly the corpus's points and a matching sample fingerprint.\n", lf.qdrant, lf.collection)
		}
		return nil
	}
	if *out == "" {
		return usageErr("experiment needs --out DIR")
	}
	f, err := loadFixtures(*fixturesDir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return infra(err)
	}
	lb, err := lf.open(ctx, e, f)
	if err != nil {
		return err
	}
	defer lb.Close()
	x.Ready = lb.Ready
	if *switchCmd != "" {
		x.Switch = runner.ShellSwitch(*switchCmd, e.stderr)
	}
	fmt.Fprintf(e.stderr, "computing the expected responses (%s) ...\n", *oracleSpec)
	exp, err := expectations(ctx, *oracleSpec, topts, f, settings.TrackTotalHits)
	if err != nil {
		return err
	}
	if x.Suite, err = runner.NewSuite(f, exp, settings.Ops); err != nil {
		return infra(err)
	}
	x.OnTrial = func(round int, res *report.Results) error { return report.WriteRoundResults(*out, round, res) }
	x.OnRound = func(round int, res *report.Results) error { return report.WriteRound(*out, round, res) }
	prog := newProgress(e, *noProgress)
	x.Progress = func(round int, ev runner.Event) {
		ev.Target = fmt.Sprintf("r%d %s", round, ev.Target)
		prog.Event(ev)
	}
	started := time.Now().UTC()
	fmt.Fprintf(e.stderr, "experiment: %d rounds (%s), %d measured responses planned\n", *rounds, x.RoundOrder(), x.PlannedResponses())
	done, runErr := x.Execute(ctx)
	prog.Done()
	if len(done) == 0 {
		if runErr == nil {
			runErr = errors.New("no round finished")
		}
		return infra(runErr)
	}
	rep, recorded, err := x.Report(done, runErr, opts)
	if err != nil {
		return infra(err)
	}
	man := report.NewManifest("experiment", rep.Results, lb.Environment(ctx), started, os.Args)
	man.Rounds = recorded
	man.WarmUps = x.WarmUps()
	if err := report.WriteExperiment(*out, rep, man); err != nil {
		return infra(err)
	}
	if *aaOut != "" {
		data, err := runner.MarshalAA(runner.AARecord(done, base.Name, fmt.Sprintf("conform experiment, %s, %s", report.HostCPU(), started.Format(time.RFC3339))))
		if err != nil {
			return infra(err)
		}
		if err := report.WriteFileAtomic(*aaOut, data); err != nil {
			return infra(err)
		}
	}
	fmt.Fprintf(e.stdout, "%s\n", rep.Analysis)
	fmt.Fprintf(e.stdout, "Report in %s: %s, %s, %s, %s, %s\n", *out, report.MarkdownFile, report.HTMLFile, report.VerdictFile, report.ResultsFile, report.ManifestFile)
	if runErr != nil {
		return infra(fmt.Errorf("%v; the rounds that finished are analysed in %s", runErr, *out))
	}
	switch rep.Analysis.Verdict {
	case experiment.Reject:
		return &exitError{code: exitFail, err: fmt.Errorf("verdict: reject %s", cand.Name)}
	case experiment.NoChangeFound:
		return &exitError{code: exitNoChange, err: fmt.Errorf("verdict: no change")}
	}
	return nil
}

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
	fs := newFlags(e, "experiment", "--baseline LABEL=URL --candidate LABEL=URL [--native NAME=URL ...] [--rounds 12] [--switch-cmd CMD] [--ready-timeout 2m] [run flags] --out DIR", `
Gate a change with a paired experiment: rounds of baseline and candidate in ABBA order
(baseline, candidate, candidate, baseline, repeated), the native engines measured in every
round and interleaved with the round's variant as "conform run" interleaves targets (their
order in a step balanced within every ABBA block). Every response is checked strictly; only
passing ones are timed.

Two modes: both variants live at two URLs; or one URL (give the same URL twice) whose variant a
user command switches between rounds (e.g. restarts a gateway with the other transport). CMD
runs under sh with the variant's label as $1 and in $CONFORM_VARIANT; a CMD that is just a
script's path gets the label as its argument: --switch-cmd ./switch-gateway.sh runs
"./switch-gateway.sh grpc", and --switch-cmd 'systemctl restart gw-$1' runs as written. Before
every round conform waits (up to --ready-timeout) until every target is ready and proves the
corpus is retained and untouched on each (exact count and a fingerprint over a fixed sample of
documents), and records it in the manifest. With two URLs the variants are two processes:
whatever differs between them, the build or the process itself, is what is measured.

The default plan is 12 rounds of 1 trial (--rounds 12, --trials 1 unless $TRIALS says
otherwise): the lab's 72,000 responses, spent on rounds, which are the unit of the test. Keep
conform off the targets' CPUs on a small machine (--cpus 0 here, conform serve --cpus 1 and
ENGINE_CPUS=1 make engines for the targets): sharing them multiplied the noise several times.

Per cell (operation x clients) the verdict compares the variant's trial p50s over its rounds
with a test that respects the rounds and the natives as controls, each cell's own noise
(moderated towards its client count's), Holm over all cells, and a practical threshold. A cell
is regressed or improved when significant with the candidate/baseline ratio beyond the
threshold, no-change when its whole interval lies within it, and undecided when the interval
reaches past it (the rounds cannot tell a change that counts from none). adopt: both variants
passed every check, no cell regressed, at least one improved. reject: a cell regressed (each
named, with its size and p-value), any response failed, or readiness made a finding on a
variant's target (its mapping or sampled documents are not the fixtures', say: a correctness
problem, so never adopt; the rounds still run, and report.md lists the findings first).
no-change otherwise, with the undecided cells counted. --require-ready makes a finding keep the
rounds waiting and then refuse the experiment instead (exit 2). Writes report.md and
report.html (their first line the verdict), verdict.json, results.json (all rounds merged),
manifest.json (every round) and rounds/round-N/ with each round's results.

Before round 1 every target is warmed to a steady state: passes of --requests per cell
(interleaved as a round interleaves them, checked, never timed into the results) until each
target's p50 stops falling (3 consecutive passes none more than --warm-tolerance below the
best pass before them, judged afresh every pass), at most --warm-max passes. The curves are
in manifest.json and report.html, and a target still falling at the cap is named. The
natives' weight as controls is estimated from the data unless --native-weight fixes it; the
report gives each native's drift from round 1 to the last.

Know the power before the run: --dry-run with --aa FILE (an A/A record written by an earlier
experiment's --aa) or with --pilot N (N rounds of the baseline with the natives, nothing
written) prints the machine's noise, each cell's noise against the average cell's (from 8
rounds on), the smallest change each cell could declare with the plan, the chance of finding a
--power-change slowdown, and the rounds a --power-change needs; from an A/A record with more
blocks of 4 rounds than the plan, it also replays the plan on the record's own rounds: the
share of A/A experiments it would reject (at most 5% is the promise) and its power there.
--sequential adds ABBA blocks, looking after each, until every cell is decided (or a cell
regressed) or --max-rounds is reached; each look tests at its share of --alpha (Lan-DeMets
O'Brien-Fleming-type spending: almost nothing at the first looks), so the family-wise error
over all looks stays at --alpha.

An experiment that stops early (Ctrl-C, a target down, a failed switch) has the verdict
"incomplete" and exit 2; its files hold the rounds that finished, with the measured count, and
are written even when it stops before round 1 (verdict.json: incomplete, 0 rounds).

Exit 0 adopt, 1 reject, 3 no-change, 2 error or incomplete.`,
		"conform experiment --baseline rest=http://127.0.0.1:8080 --candidate grpc=http://127.0.0.1:8081 --native es=http://127.0.0.1:9200 --native os=http://127.0.0.1:9201 --out results/rest-vs-grpc",
		"conform experiment --cpus 0 --baseline rest=http://127.0.0.1:8080 --candidate grpc=http://127.0.0.1:8081 --native es=http://127.0.0.1:9200 --dry-run --pilot 2",
		"conform experiment --baseline rest=http://127.0.0.1:8080 --candidate grpc=http://127.0.0.1:8080 --switch-cmd './restart-gateway.sh' --native es=http://127.0.0.1:9200 --out results/switched",
		"conform experiment --baseline a=http://127.0.0.1:8080 --candidate b=http://127.0.0.1:8081 --dry-run",
		"conform experiment --baseline a=URL --candidate a2=URL --native es=URL --rounds 48 --aa aa.json --out results/aa",
		"conform experiment --baseline a=URL --candidate b=URL --native es=URL --dry-run --aa aa.json",
		"conform experiment --baseline a=URL --candidate b=URL --native es=URL --sequential --max-rounds 24 --out results/seq",
		"REQUESTS=200 TRIALS=3 WARMUP=40 conform experiment --baseline a=URL --candidate b=URL --rounds 4 --out results/lab-shape",
	)
	baseline := fs.String("baseline", "", "the baseline variant as `LABEL=URL`")
	candidate := fs.String("candidate", "", "the candidate variant as `LABEL=URL`")
	var natives listFlag
	fs.Var(&natives, "native", "a native engine measured in every round, as `NAME=URL` (repeatable)")
	rounds := fs.Int("rounds", 12, "number of rounds, a multiple of 4 (ABBA blocks)")
	switchCmd := fs.String("switch-cmd", "", "shell `CMD` run before a round whose variant differs from the last: the label is $1 and $CONFORM_VARIANT, and a bare script path gets it as its argument")
	readyTimeout := fs.Duration("ready-timeout", 2*time.Minute, "how long to wait for every target to be ready before a round")
	threshold := fs.Float64("threshold", experiment.DefaultThreshold, "practical threshold: a change of the candidate/baseline ratio below this fraction counts as none; a cell whose interval lies within it is no-change, one whose interval reaches past it undecided")
	alpha := fs.Float64("alpha", experiment.DefaultAlpha, "family-wise error rate over all cells (Holm)")
	nativeWeight := fs.Float64("native-weight", -1, "a fixed `WEIGHT` in [0, 1] for the natives as controls (0 ignores them), chosen before the experiment, e.g. from recorded A/A runs; by default (-1) it is estimated from the data")
	warmMax := fs.Int("warm-max", runner.DefaultWarmMaxPasses, "warm every target to a steady state before round 1: at most `N` passes (0: no warm-up)")
	warmTolerance := fs.Float64("warm-tolerance", runner.DefaultWarmTolerance, "warm-up: a pass more than this fraction below the best pass before it means the target is still warming")
	warmWindow := fs.Int("warm-window", 0, "warm-up: requests per cell per pass (default: --requests)")
	dryRun := fs.Bool("dry-run", false, "print the plan (rounds, order, interleaving, measured responses) and exit; with --aa or --pilot, what the plan can declare")
	aaOut := fs.String("aa", "", "also write the trial p50s of every target, cell and round as an A/A record to `FILE` (conform-aa/1), for measuring this lab's noise; with --dry-run, read the noise from it")
	pilot := fs.Int("pilot", 0, "with --dry-run: run `N` rounds of the baseline with the natives (warmed first, nothing written) and project the plan's power from their noise")
	powerChange := fs.Float64("power-change", 0.10, "with --dry-run: the change (a fraction) the power projection plans for")
	sequential := fs.Bool("sequential", false, "add ABBA blocks, looking after each, until every cell is decided or a cell regressed, or --max-rounds; alpha is spent over the looks")
	maxRounds := fs.Int("max-rounds", 24, "with --sequential: the most rounds, a multiple of 4")
	var tf targetFlags
	tf.register(fs)
	rf := runFlags{defaultTrials: 1}
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
	if *sequential && (*maxRounds < 4 || *maxRounds%4 != 0) {
		return usageErr("--max-rounds must be a positive multiple of 4 (whole ABBA blocks), not %d", *maxRounds)
	}
	if *pilot != 0 && (!*dryRun || *pilot < 2) {
		return usageErr("--pilot N goes with --dry-run and needs at least 2 rounds to see drift, not %d", *pilot)
	}
	if *dryRun && *pilot > 0 && *aaOut != "" {
		return usageErr("--dry-run takes the noise from --aa FILE or from --pilot N, not both")
	}
	if !(*powerChange > 0 && *powerChange < 1) {
		return usageErr("--power-change must be a fraction in (0, 1), not %v", *powerChange)
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
	f, err := loadFixtures(*fixturesDir)
	if err != nil {
		return err
	}
	settings, err := rf.settings(topts.Timeout, f.Workload)
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
	order := experiment.ABBA(*rounds / 4)
	if *sequential {
		order = experiment.ABBA(*maxRounds / 4)
	}
	x := &runner.Experiment{
		Settings: settings, Order: order, ReadyTimeout: *readyTimeout,
		Baseline: runner.Variant{Label: base.Name, Target: base}, Candidate: runner.Variant{Label: cand.Name, Target: cand}, Natives: ns,
		Warm: runner.WarmRule{MaxPasses: *warmMax, Tolerance: *warmTolerance, Window: *warmWindow},
		Say:  func(s string) { fmt.Fprintf(e.stderr, "experiment: %s\n", s) },
	}
	if *sequential {
		x.Sequential = &experiment.Sequential{Alpha: *alpha, MaxBlocks: *maxRounds / 4}
		x.LookOptions = opts
	}
	plan := experiment.Plan{Rounds: *rounds, Trials: settings.Trials, Natives: len(ns), Change: *powerChange, Options: opts}
	for _, op := range settings.Ops {
		for _, n := range settings.Clients {
			plan.Keys = append(plan.Keys, experiment.CellKey{Op: op, Clients: n})
		}
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
		if *aaOut != "" {
			rec, err := readAAFile(*aaOut)
			if err != nil {
				return err
			}
			return writePower(e, plan, rec, "the A/A record "+*aaOut)
		}
		if *pilot == 0 {
			return nil
		}
	}
	if *out == "" && !*dryRun {
		return usageErr("experiment needs --out DIR")
	}
	// A wrong --oracle is a usage error, said before anything is written.
	if _, err := oracleSource(*oracleSpec, topts); err != nil {
		return err
	}
	if !*dryRun {
		if err := os.MkdirAll(*out, 0o755); err != nil {
			return infra(err)
		}
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
	started := time.Now().UTC()
	// finish analyses the rounds that finished, none when the experiment stopped before round
	// 1, and writes the experiment's files: an incomplete experiment still leaves its
	// verdict.json and reports.
	finish := func(done []runner.RoundResult, runErr error) (*report.Experiment, error) {
		rep, recorded, err := x.Report(done, runErr, opts)
		if err != nil {
			return nil, infra(err)
		}
		man := report.NewManifest("experiment", rep.Results, lb.Environment(ctx), started, os.Args)
		man.Rounds = recorded
		man.WarmUps = x.WarmUps()
		if err := report.WriteExperiment(*out, rep, man); err != nil {
			return nil, infra(err)
		}
		return rep, nil
	}
	notStarted := func(err error) error {
		if *dryRun {
			return err
		}
		if _, werr := finish(nil, err); werr != nil {
			return infra(fmt.Errorf("%v; writing %s: %v", err, *out, werr))
		}
		return infra(fmt.Errorf("%v; the experiment is incomplete, before round 1 (%s in %s)", err, report.VerdictFile, *out))
	}
	fmt.Fprintf(e.stderr, "computing the expected responses (%s) ...\n", *oracleSpec)
	exp, err := expectations(ctx, *oracleSpec, topts, f, settings.TrackTotalHits)
	if err != nil {
		return notStarted(err)
	}
	if x.Suite, err = runner.NewSuite(f, exp, settings.Ops); err != nil {
		return notStarted(err)
	}
	if note := x.Suite.DeclinedNote(); note != "" {
		fmt.Fprintf(e.stderr, "warning: %s\n", note)
		x.Settings.Ops = x.Suite.Ops
		plan.Keys = nil
		for _, op := range x.Settings.Ops {
			for _, n := range x.Settings.Clients {
				plan.Keys = append(plan.Keys, experiment.CellKey{Op: op, Clients: n})
			}
		}
	}
	if *dryRun { // a pilot: the baseline's rounds with the natives, nothing written
		p := *x
		p.Order, p.Sequential = make([]experiment.Variant, *pilot), nil
		for i := range p.Order {
			p.Order[i] = experiment.Baseline
		}
		fmt.Fprintf(e.stderr, "pilot: %d rounds of %s with the natives, to measure this machine's noise ...\n", *pilot, base.Name)
		done, err := p.Execute(ctx)
		if err != nil {
			return infra(fmt.Errorf("pilot: %w", err))
		}
		return writePower(e, plan, runner.AARecord(done, base.Name, "pilot"), fmt.Sprintf("a pilot of %d rounds", *pilot))
	}
	x.OnTrial = func(round int, res *report.Results) error { return report.WriteRoundResults(*out, round, res) }
	x.OnRound = func(round int, res *report.Results) error { return report.WriteRound(*out, round, res) }
	prog := newProgress(e, *noProgress)
	x.Progress = func(round int, ev runner.Event) {
		ev.Target = fmt.Sprintf("r%d %s", round, ev.Target)
		prog.Event(ev)
	}
	fmt.Fprintf(e.stderr, "experiment: %d rounds (%s), %d measured responses planned\n", *rounds, x.RoundOrder(), x.PlannedResponses())
	done, runErr := x.Execute(ctx)
	prog.Done()
	if len(done) == 0 && runErr == nil {
		runErr = errors.New("no round finished")
	}
	rep, err := finish(done, runErr)
	if err != nil {
		if runErr != nil {
			return infra(fmt.Errorf("%v; %v", runErr, err))
		}
		return err
	}
	if *aaOut != "" && len(done) > 0 {
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
		if len(done) == 0 {
			return infra(fmt.Errorf("%v; the experiment stopped before round 1 finished: %s in %s says incomplete, 0 rounds", runErr, report.VerdictFile, *out))
		}
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

func readAAFile(path string) (*experiment.AARecord, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, usageErr("--aa: %v", err)
	}
	defer f.Close()
	rec, err := experiment.ReadAA(f)
	if err != nil {
		return nil, usageErr("--aa %s: %v", path, err)
	}
	return rec, nil
}

// writePower prints what the plan can declare at the noise of an A/A record.
func writePower(e *env, plan experiment.Plan, rec *experiment.AARecord, source string) error {
	est, err := experiment.EstimateNoise(rec)
	if err != nil {
		return usageErr("%s: %v", source, err)
	}
	// Each cell's scale rests on the record's rounds; from a short pilot it is noise.
	if est.Rounds >= 8 {
		plan.CellScale = est.CellScale
	}
	pw, err := experiment.ProjectPower(plan, est.Noise, 0, 1)
	if err != nil {
		return infra(err)
	}
	fmt.Fprintf(e.stdout, "\nPower, from %s (%d targets, %d cells, %d rounds):\n%s", source, est.Targets, est.Cells, est.Rounds, pw)
	if est.TrialDF == 0 {
		fmt.Fprintf(e.stdout, "  (one trial per round: trial noise cannot be told apart from round drift, so the projection counts all of it as drift, which more trials per round would not reduce)\n")
	}
	if est.Rounds < 8 {
		fmt.Fprintf(e.stdout, "  (drift estimated from %d rounds is rough; a longer A/A record gives a firmer projection)\n", est.Rounds)
	}
	// The projection above assumes the noise has the simulator's shape; a long enough record
	// can be replayed as it is, whatever its shape.
	rp, err := experiment.ReplayPlanOn(rec, plan, 0, 1)
	if err != nil {
		fmt.Fprintf(e.stdout, "  (not replayed on the record's own rounds: %v; record an A/A of at least %d rounds with --aa)\n", err, plan.Rounds+4)
		return nil
	}
	fmt.Fprintf(e.stdout, "%s", rp)
	if rp.AAReject > 0.05 {
		fmt.Fprintf(e.stdout, "  warning: on this record's noise the plan rejected %.1f%% of A/A experiments, more than the 5%% it promises: the noise breaks the model's assumptions; more rounds, or the targets on CPUs of their own, may help\n", 100*rp.AAReject)
	}
	return nil
}

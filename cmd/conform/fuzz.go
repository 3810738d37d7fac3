package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/conform-dev/conform/conformance/fuzz"
	"github.com/conform-dev/conform/conformance/lab"
	"github.com/conform-dev/conform/conformance/readiness"
	"github.com/conform-dev/conform/conformance/report"
	"github.com/conform-dev/conform/conformance/suite"
	"github.com/conform-dev/conform/conformance/target"
	"github.com/conform-dev/conform/fixtures"
	"github.com/conform-dev/conform/load"
)

func cmdFuzz(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "fuzz", "[--target NAME=URL] [--oracle embedded|live:URL] [--seed S] [--n N | --duration D] [--save DIR [--force]] [--invariants]", `
Random differential testing: generate requests from a seed inside the embedded engine's
supported subset (term, terms, range on numbers and dates, exists, ids, prefix and nested bool
queries; field sorts on every type with missing values and modes, always ending in the unique
keyword; from/size, search_after continuing a page, track_total_hits, _source filtering; terms,
filter, filters and metric aggregations; _count; GET _doc), with values drawn from the corpus,
send each to the target and check its answer strictly against the oracle's (the check of
"conform check"). Request N of a seed is always the same request.

Disagreements are shrunk to minimal requests that still show the difference they were found
with, its class at its place (a filter aggregation's doc_count, a terms aggregation's
sum_other_doc_count, a metric's value; the hits, wherever they differ), not merely another
difference of the class: clauses, sort keys, aggregations, hits and options dropped, values
simplified, ranges narrowed, a sort key's options cut to {"field":"desc"} and then "asc" (never
to the bare "field" shorthand, which the generator writes on the final sku as a variation of
its own, and which is written out as {"sku":"asc"} unless it is what disagrees). Minimal
requests of the same shape, the same request but for its values (term, range and
search_after values, sizes), are one group, and groups that differ only by the fields they
name (an exists query inverted on five fields) are one, listing the fields. Groups are printed
largest first with how many of their requests the reproducer does not cover, their shape, a
name for what they exercise and one reproducer, the smallest: the request, a curl, the
expected and actual bodies around the differences, and the differences. After the first three
of each kind and difference, a disagreement that a group's reproducer fits (made of parts of
its request) and shows is counted there without shrinking.
--save DIR writes the reproducers as a fixtures directory (the corpus, the mapping and a
workload of cases named by the groups, fuzz/..., one per field of a group of several) that
"conform check --fixtures DIR" runs.
DIR must not exist or be empty (checked before fuzzing starts), unless --force is given: an
earlier session's saved cases are not replaced without a word.

Readiness probes the target as "conform run" does: it stops the fuzzing (exit 2) only when the
target cannot be reached, its index is missing or it does not hold exactly the corpus's number
of documents; anything else it finds (a mapping that differs from the fixtures' in meaning or
cannot be read, sampled documents that differ, a GET / that is not Elasticsearch's) is a
finding, printed first, and the fuzzing goes on; a finding makes the exit 1.
--require-ready refuses such a target instead (exit 2). With no --target it fuzzes the embedded
engine served on loopback. A live oracle (--oracle live:URL) is a real Elasticsearch holding
the corpus, and must be ready without a finding: expected answers are only as good as it is.
Golden files answer only their own workload, so they cannot be a fuzzing oracle.

--invariants needs no oracle: it checks what holds on any correct engine (search_after paging
visits every match once, in order; hits.total equals _count; terms buckets plus
sum_other_doc_count equal the field's value count; a filter's count plus its negation's is the
total; from/size windows concatenate into the whole result).

Progress (requests, disagreements, rate) goes to stderr. Ctrl-C stops the run and prints, and
saves with --save, what was found so far, unshrunk. Exit 0 when nothing disagreed, 1 on any
disagreement or broken invariant, 2 on a usage or infrastructure error or an interrupted run.`,
		"conform fuzz --n 100000",
		"conform fuzz --target gw=http://127.0.0.1:8080 --seed 1 --n 20000 --save regressions/gw",
		"conform fuzz --target gw=http://127.0.0.1:8080 --oracle live:http://127.0.0.1:9200 --duration 10m",
		"conform fuzz --target es=http://127.0.0.1:9200 --invariants --n 5000",
		"conform check --fixtures regressions/gw --target gw=http://127.0.0.1:8080   # the saved cases",
	)
	var targets listFlag
	fs.Var(&targets, "target", "the target as `NAME=URL`; none fuzzes the embedded engine")
	var tf targetFlags
	tf.register(fs)
	var cf checkFlags
	cf.register(fs)
	fixturesDir := fs.String("fixtures", "", "read the corpus, mapping and workload from `DIR` (default: the built-in catalogue)")
	oracleSpec := fs.String("oracle", "embedded", "where expected responses come from (`SPEC`): embedded or live:URL")
	seed := fs.Uint64("seed", 1, "the generator's `SEED`: the same seed gives the same requests")
	n := fs.Int("n", 1000, "send `N` requests (unless --duration is given)")
	duration := fs.Duration("duration", 0, "send requests for `D` (e.g. 10m) instead of a count")
	weights := fs.String("weights", "", "tune the generator: comma-separated `LIST` of name=N over the defaults ("+fuzz.DefaultWeights().String()+")")
	noTiebreak := fs.Bool("no-tiebreak", false, "let sorts end in keys that tie; tied hits then follow Lucene doc ids, which engines need not share")
	workers := fs.Int("workers", 2, "requests in flight at once (the requests and the report do not depend on it)")
	budget := fs.Int("shrink-budget", 200, "candidate requests tried when shrinking one disagreement")
	save := fs.String("save", "", "write the minimal disagreements as a fixtures directory `DIR` for conform check --fixtures")
	force := fs.Bool("force", false, "save into a --save DIR that is not empty, replacing its fixture files")
	invariants := fs.Bool("invariants", false, "check oracle-free invariants on the target instead of comparing with an oracle")
	features := fs.Bool("features", false, "also print how many requests used each feature")
	sample := fs.Int("sample", load.DefaultSampleDocs, "documents in the corpus fingerprint the target is checked against")
	requireReady := fs.Bool("require-ready", false, "refuse (exit 2) a target with any readiness finding instead of fuzzing it")
	noProgress := fs.Bool("no-progress", false, "no progress on stderr")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErr("fuzz takes no arguments, got %q", fs.Args())
	}
	if len(targets) > 1 {
		return usageErr("fuzz takes one --target; run it once per target")
	}
	if *n < 0 || *duration < 0 {
		return usageErr("--n and --duration must not be negative")
	}
	if *save != "" {
		if err := fixtures.CheckOutDir(*save, *force); err != nil {
			return usageErr("--save %v", err)
		}
	} else if *force {
		return usageErr("--force goes with --save DIR")
	}
	nSet := false
	fs.Visit(func(fl *flag.Flag) { nSet = nSet || fl.Name == "n" })
	if nSet && *duration > 0 {
		return usageErr("give --n or --duration, not both")
	}
	if *duration > 0 {
		*n = 0
	} else if *n == 0 {
		return usageErr("--n must be at least 1")
	}
	if *workers < 1 || *budget < 1 {
		return usageErr("--workers and --shrink-budget must be at least 1")
	}
	if strings.HasPrefix(*oracleSpec, "golden:") {
		return usageErr("--oracle %s: a golden file answers only the workload it was recorded for; fuzz needs embedded or live:URL", *oracleSpec)
	}
	if *invariants && *oracleSpec != "embedded" {
		return usageErr("--invariants needs no oracle; leave --oracle out")
	}
	w, err := fuzz.ParseWeights(*weights)
	if err != nil {
		return usageErr("--weights: %v", err)
	}
	topts, err := tf.options(e)
	if err != nil {
		return err
	}
	opts, err := cf.options()
	if err != nil {
		return err
	}
	var oracleDo fuzz.Doer
	oracleName := "embedded"
	var oracleTarget *target.Target
	if !*invariants && *oracleSpec != "embedded" {
		u, ok := strings.CutPrefix(*oracleSpec, "live:")
		if !ok {
			return usageErr("--oracle %q: want embedded or live:URL", *oracleSpec)
		}
		if oracleTarget, err = suite.LiveOracle(u, topts); err != nil {
			return usageErr("--oracle: %v", err)
		}
		oracleName = "live:" + oracleTarget.Redacted()
	}
	f, err := loadFixtures(*fixturesDir)
	if err != nil {
		return err
	}
	if !f.HasCorpus() {
		// The generator draws its fields and values from the mapping and the corpus.
		return usageErr("fuzz draws its requests from the corpus and its mapping, and %s has none: copy a snapshot's mapping.json, corpus.ndjson and fixtures.json in beside the workload (conform snapshot)", *fixturesDir)
	}
	if opts, err = opts.WithMapping(f.Mapping); err != nil {
		return usageErr("fixtures: %v", err)
	}
	schema, err := fuzz.NewSchema(f)
	if err != nil {
		return usageErr("fixtures: %v", err)
	}
	gen, err := fuzz.NewGenerator(schema, *seed, fuzz.Options{Weights: w, NoTiebreak: *noTiebreak})
	if err != nil {
		return usageErr("%v", err)
	}
	ts, stop, err := targetsOrEmbedded(targets, topts, f)
	if err != nil {
		return err
	}
	defer stop()
	t := ts[0]
	for _, w := range t.Warnings() {
		fmt.Fprintf(e.stderr, "warning: %s\n", w)
	}
	// The target must hold the corpus, proved as run proves it; what else readiness finds is
	// printed first and fails the run, and the fuzzing goes on.
	lb, err := lab.Open(ctx, lab.Config{SampleDocs: *sample, Log: e.stderr, RequireReady: *requireReady}, f)
	if err != nil {
		return infra(err)
	}
	defer lb.Close()
	rr, err := lb.Ready(ctx, t)
	if err != nil {
		return infra(fmt.Errorf("target %s (%s) is not ready: %w", t.Name, t.Redacted(), t.Scrub(err)))
	}
	if len(rr.Findings) > 0 {
		report.WriteFindings(e.stdout, rr.Findings, "the fuzzing goes on; each finding fails it", false)
		fmt.Fprintln(e.stdout)
	}
	opts = opts.WithIndex(rr.Index)
	targetDo, err := fuzz.TargetDoer(t)
	if err != nil {
		return infra(err)
	}
	index := f.Workload.Index
	var prog *fuzz.ProgressDisplay
	if !*noProgress {
		prog = fuzz.NewProgressDisplay(e.stderr, e.stderrIsTerminal)
	}

	if *invariants {
		rep, runErr := fuzz.RunInvariants(ctx, fuzz.InvariantConfig{Gen: gen, Index: t.IndexFor(index), Target: targetDo,
			N: *n, Duration: *duration, Progress: prog.Show})
		prog.Done()
		if rep == nil {
			return infra(runErr)
		}
		rep.Render(e.stdout, fuzz.RenderOptions{Target: t.Name + " (" + t.Redacted() + ")", Index: t.IndexFor(index), Curl: t.Curl})
		return withFindings(fuzzExit(rep.Stopped, runErr, len(rep.Violations), "broken invariant"), rr.Findings)
	}

	if oracleTarget != nil {
		ot := oracleTarget
		// The oracle's answers are the expectations: a finding on it (another mapping, other
		// documents) would make them wrong, so it refuses the oracle.
		olb, err := lab.Open(ctx, lab.Config{SampleDocs: *sample, RequireReady: true}, f)
		if err != nil {
			return infra(err)
		}
		defer olb.Close()
		orr, err := olb.Ready(ctx, ot)
		if err != nil {
			return infra(fmt.Errorf("oracle %s is not ready: %w", ot.Redacted(), ot.Scrub(err)))
		}
		// Its "gte" at exactly track_total_hits lets the target say "eq" only where its own
		// index's facts leave the count to the layout.
		opts = opts.WithOracleIndex(orr.Index)
		if oracleDo, err = fuzz.TargetDoer(ot); err != nil {
			return infra(err)
		}
	} else {
		eng, err := suite.Engine(f)
		if err != nil {
			return infra(fmt.Errorf("the embedded oracle: %w", err))
		}
		oracleDo = fuzz.EngineDoer(eng)
	}
	rep, runErr := fuzz.Run(ctx, fuzz.Config{Gen: gen, OracleIndex: index, TargetIndex: t.IndexFor(index), Oracle: oracleDo, Target: targetDo,
		Check: opts, N: *n, Duration: *duration, Workers: *workers, ShrinkBudget: *budget, Progress: prog.Show})
	prog.Done()
	if rep == nil {
		return infra(runErr)
	}
	rep.Render(e.stdout, fuzz.RenderOptions{Target: t.Name + " (" + t.Redacted() + ")", Oracle: oracleName, Index: t.IndexFor(index), Curl: t.Curl, Features: *features})
	if *save != "" && len(rep.Groups) > 0 {
		if err := fuzz.Save(*save, f, rep.Groups); err != nil {
			return infra(fmt.Errorf("saving into %s: %w", *save, err))
		}
		fmt.Fprintf(e.stdout, "\nSaved %s into %s: conform check --fixtures %s%s\n", report.Plural(fuzz.Reproducers(rep.Groups), "minimal disagreement"), *save, *save, targetArg(targets, t.Name))
	}
	return withFindings(fuzzExit(rep.Stopped, runErr, rep.Disagreements, "disagreement"), rr.Findings)
}

// withFindings fails a run whose target had readiness findings: it says them before what the
// run found, and never turns an infrastructure error (exit 2) into a failure.
func withFindings(err error, fs []readiness.Finding) error {
	if len(fs) == 0 {
		return err
	}
	said := fmt.Sprintf("readiness made %s (%s)", readiness.Plural(len(fs), "finding"), findingKinds(fs))
	var ee *exitError
	switch {
	case err == nil:
		return failed("%s", said)
	case errors.As(err, &ee) && ee.code == exitFail:
		return failed("%s, and %v", said, err)
	}
	return err
}

func targetArg(specs []string, name string) string {
	if len(specs) == 0 {
		return ""
	}
	return " --target " + name + "=URL"
}

// fuzzExit: an interrupted or broken run is exit 2 whatever it found; otherwise findings are 1.
func fuzzExit(stopped string, runErr error, findings int, what string) error {
	switch {
	case runErr != nil:
		return infra(fmt.Errorf("fuzzing stopped: %v (%s found before it, printed above)", runErr, report.Plural(findings, what)))
	case stopped != "":
		return infra(fmt.Errorf("fuzzing %s (%s found before it, printed above)", stopped, report.Plural(findings, what)))
	case findings > 0:
		return failed("%s", report.Plural(findings, what))
	}
	return nil
}

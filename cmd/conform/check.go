package main

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/conform-dev/conform/conformance/lab"
	"github.com/conform-dev/conform/conformance/readiness"
	"github.com/conform-dev/conform/conformance/report"
	"github.com/conform-dev/conform/conformance/suite"
	"github.com/conform-dev/conform/conformance/target"
	"github.com/conform-dev/conform/fixtures"
	"github.com/conform-dev/conform/load"
	"github.com/conform-dev/conform/oracle"
)

func cmdCheck(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "check", "[--target NAME=URL] [--oracle SPEC] [--fixtures DIR] [--junit FILE] [--json FILE]", `
One strict pass over every case of the workload: each request is sent once and its response
checked against the oracle's. Prints a summary per operation and failure class and the failing
cases; --junit writes one testcase per case for CI (the failure's message is its classes, its
text the differences, the request and the explain command), --json writes the failures as
records {"case","class","path","want","got"} with counts of cases and of failures by class,
in total and by operation ("by_operation", the summary's rows).

With no --target it checks conform's embedded engine, served on loopback. Nothing is timed and
nothing is written to the target. Credentials never appear in any output.

Before any case, readiness probes the target as "conform run" does. It stops the check (exit
2, no case sent) only when no result could mean anything: the target cannot be reached or
does not answer, its index is missing, or it does not hold exactly the corpus's number of
documents. Anything else it finds is a finding, printed first (on stderr as found, then at the
top of the summary), recorded in --json ("findings") and as a failing JUnit testcase of its
own (readiness/KIND), and the cases then run and classify what the target does wrong: a
mapping whose field types differ in meaning from the fixtures' or cannot be told from them
(GET /{index}/_mapping, compared by meaning, so ZincSearch's bool is boolean but its numeric
cannot say whether it is a float; the variant the index holds, designed or price-double, is
named when it can be told), a mapping that cannot be read, sampled documents (GET
/{index}/_doc/{id}) that differ from the corpus, a GET / that answers 200 with a body that is
not Elasticsearch's. --require-ready turns any finding into a refusal (exit 2), for a lab that
must not check a target holding the wrong variant.

Exit 0 when every case passes and readiness found nothing, 1 when any response differs or is
missing or readiness made a finding, 2 on a usage or infrastructure error (the target is not
ready, cannot be reached, answers none of the cases or stops answering) or an interrupted
check. Progress goes to stderr (on a terminal one line, otherwise a
line every 10 s). A target that goes twice --timeout without answering stops the check, as
Ctrl-C does: the summary, --junit and --json then hold the cases checked so far, marked
incomplete (the JUnit gets an "incomplete" error testcase), and the error says which target
and since when.`,
		"conform check",
		"conform check --target gw=http://127.0.0.1:8080 --junit junit.xml --json failures.json",
		"conform check --target os=https://127.0.0.1:9201 --user admin --ca ca.pem --oracle golden:es-8.15.golden.json",
		"conform check --target gw=http://127.0.0.1:8080/es --index products --ops get,page --relax ignore-totals-relation",
		"conform check --target os=http://127.0.0.1:9201 --relax opensearch   # OpenSearch 3.6's divergences (docs/OPENSEARCH.md)",
	)
	var targets listFlag
	fs.Var(&targets, "target", "the target as `NAME=URL`; none checks the embedded engine")
	var tf targetFlags
	tf.register(fs)
	var cf checkFlags
	cf.register(fs)
	fixturesDir := fs.String("fixtures", "", "read the corpus, mapping and workload from `DIR` (default: the built-in catalogue)")
	oracleSpec := fs.String("oracle", "embedded", "where expected responses come from (`SPEC`): embedded, live:URL or golden:FILE")
	ops := fs.String("ops", "", "comma-separated operations to check (`LIST`; default: every operation of the workload, by its own labels)")
	tth := fs.String("track-total-hits", envOr(e, "TRACK_TOTAL_HITS", "true"), "track_total_hits sent with every search: true, false or `N`")
	junit := fs.String("junit", "", "write a JUnit XML report to `FILE`, one testcase per case")
	jsonOut := fs.String("json", "", "write the failures as JSON to `FILE`")
	verbose := fs.Bool("v", false, "list every failing case with all its differences, not the first 20 cases' first difference")
	sample := fs.Int("sample", load.DefaultSampleDocs, "documents in the corpus fingerprint the target is checked against before the cases")
	requireReady := fs.Bool("require-ready", false, "refuse (exit 2) a target with any readiness finding instead of checking its cases")
	noProgress := fs.Bool("no-progress", false, "no progress on stderr")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErr("check takes no arguments, got %q", fs.Args())
	}
	if len(targets) > 1 {
		return usageErr("check takes one --target; run it once per target")
	}
	topts, err := tf.options(e)
	if err != nil {
		return err
	}
	// A bad --oracle is a usage error before anything is loaded or served.
	src, err := oracleSource(*oracleSpec, topts)
	if err != nil {
		return err
	}
	opts, err := cf.options()
	if err != nil {
		return err
	}
	if strings.TrimSpace(*ops) != "" {
		if _, err := fixtures.ParseOps(*ops); err != nil {
			return usageErr("--ops: %v", err)
		}
	}
	totalHits, err := fixtures.ParseTotalHits(*tth)
	if err != nil {
		return usageErr("--track-total-hits: %v", err)
	}
	f, err := loadFixtures(*fixturesDir)
	if err != nil {
		return err
	}
	opList, err := workloadOps(*ops, f.Workload)
	if err != nil {
		return err
	}
	embedded := len(targets) == 0
	ts, stop, err := targetsOrEmbedded(targets, topts, f)
	if err != nil {
		return err
	}
	defer stop()
	t := ts[0]
	for _, w := range t.Warnings() {
		fmt.Fprintf(e.stderr, "warning: %s\n", w)
	}
	x, err := suite.Expect(ctx, src, f, totalHits)
	if ierr := target.Interruption(ctx); err != nil && ierr != nil {
		err = fmt.Errorf("%w while computing the expected responses", ierr)
	}
	if err != nil {
		return infra(err)
	}
	for _, c := range x.Caveats {
		fmt.Fprintf(e.stderr, "warning: %s\n", c)
	}
	// The target must hold the corpus (it answers, the index exists, its exact count), proved
	// before any case is sent; what else readiness finds (the mapping by meaning, the sample
	// fingerprint, GET /) is a finding, and the cases run. The variant the index holds and
	// each finding go to stderr.
	lb, err := lab.Open(ctx, lab.Config{SampleDocs: *sample, Log: e.stderr, RequireReady: *requireReady}, f)
	if err != nil {
		return infra(err)
	}
	defer lb.Close()
	var prog *report.CheckProgress
	if !*noProgress {
		prog = report.NewCheckProgress(e.stderr, e.stderrIsTerminal)
	}
	ofacts, err := oracleIndexFacts(ctx, *oracleSpec, topts, f)
	if err != nil {
		return err
	}
	opts = opts.WithOracleIndex(ofacts)
	checker := suite.Checker{
		Ready:    lb.Ready,
		Progress: prog.Show,
	}
	run, runErr := checker.Check(ctx, t, f, x, opList, opts)
	prog.Done()
	if run == nil {
		return infra(runErr)
	}
	explain := explainCommand{target: t, embedded: embedded, tf: tf, cf: cf, fixtures: *fixturesDir, oracle: src, spec: *oracleSpec, oracleName: x.Source, tth: *tth}.forCase
	if len(run.Cases) > 0 {
		report.CheckSummary(e.stdout, run, *verbose, explain)
	}
	if *junit != "" {
		if err := report.WriteFileAtomic(*junit, report.CheckJUnit(run, explain)); err != nil {
			return infra(fmt.Errorf("writing %s: %w", *junit, err))
		}
	}
	if *jsonOut != "" {
		data, err := report.MarshalJSON(report.CheckJSON(run))
		if err != nil {
			return infra(err)
		}
		if err := report.WriteFileAtomic(*jsonOut, data); err != nil {
			return infra(fmt.Errorf("writing %s: %w", *jsonOut, err))
		}
	}
	if runErr != nil {
		// Stopped early: the files hold the cases checked, marked incomplete.
		var written []string
		for _, p := range []string{*junit, *jsonOut} {
			if p != "" {
				written = append(written, p)
			}
		}
		if len(written) > 0 && len(run.Cases) > 0 {
			return infra(fmt.Errorf("%v; the cases checked are in %s, marked incomplete", runErr, strings.Join(written, " and ")))
		}
		return infra(runErr)
	}
	if run.Responded == 0 {
		// Every case is a fault: the target is not there to be checked, which is an
		// infrastructure error rather than a verdict on it.
		first := run.Cases[0].Fault
		return infra(fmt.Errorf("target %s answered none of the %d cases (the first: %v)", t.Name, len(run.Cases), first))
	}
	findings := ""
	if n := len(run.Findings); n > 0 {
		findings = fmt.Sprintf("readiness made %s (%s)", readiness.Plural(n, "finding"), findingKinds(run.Findings))
	}
	switch {
	case run.Failed > 0 && findings != "":
		return failed("%s, and %d of %d cases failed the strict check", findings, run.Failed, len(run.Cases))
	case run.Failed > 0:
		return failed("%d of %d cases failed the strict check", run.Failed, len(run.Cases))
	case findings != "":
		return failed("%s; every case passed the strict check", findings)
	}
	return nil
}

// findingKinds names the kinds of findings, in order, each once: "mapping, sample".
func findingKinds(fs []readiness.Finding) string {
	var kinds []string
	for _, f := range fs {
		if !slices.Contains(kinds, f.Kind) {
			kinds = append(kinds, f.Kind)
		}
	}
	return strings.Join(kinds, ", ")
}

func envOr(e *env, name, def string) string {
	if v := e.getenv(name); v != "" {
		return v
	}
	return def
}

// explainCommand rebuilds the `conform explain` command line that reproduces one case of a
// check: the same target, oracle, fixtures and check options. Credentials are never part of
// it: a basic-auth user is named with --user and its password is read from the environment,
// and an API key is read from $CONFORM_API_KEY (or the --api-key-env given).
type explainCommand struct {
	target     *target.Target
	embedded   bool
	tf         targetFlags
	cf         checkFlags
	fixtures   string
	oracle     oracle.Source
	spec       string // --oracle as given
	oracleName string // redacted
	tth        string
}

func (x explainCommand) forCase(name string) string {
	args := []string{"conform", "explain", name}
	add := func(a ...string) { args = append(args, a...) }
	if !x.embedded {
		t := x.target
		add("--target", t.Name+"="+t.URL(""))
		if user := basicUser(t); user != "" {
			add("--user", user)
			if x.tf.passwordEnv != "CONFORM_PASSWORD" {
				add("--password-env", x.tf.passwordEnv)
			}
		}
		if t.Auth() == "api key" && x.tf.apiKeyEnv != "CONFORM_API_KEY" {
			add("--api-key-env", x.tf.apiKeyEnv)
		}
		if x.tf.caFile != "" {
			add("--ca", x.tf.caFile)
		}
		if x.tf.insecure {
			add("--insecure")
		}
		if x.tf.index != "" {
			add("--index", x.tf.index)
		}
	}
	switch x.oracle.(type) {
	case oracle.Embedded:
	case *oracle.Live:
		// The redacted URL: a password in it has to be typed again.
		add("--oracle", x.oracleName)
	default:
		add("--oracle", x.spec)
	}
	if x.fixtures != "" {
		add("--fixtures", x.fixtures)
	}
	if x.tth != "true" {
		add("--track-total-hits", x.tth)
	}
	if x.cf.pedantic {
		add("--pedantic")
	}
	if x.cf.relax != "" {
		add("--relax", x.cf.relax)
	}
	for i, a := range args {
		args[i] = shellWord(a)
	}
	return strings.Join(args, " ")
}

// basicUser is the basic-auth user name of a target, or "".
func basicUser(t *target.Target) string {
	if !strings.HasPrefix(t.Auth(), "basic") {
		return ""
	}
	u, err := url.Parse(t.Redacted())
	if err != nil || u.User == nil {
		return ""
	}
	return u.User.Username()
}

// shellWord quotes a word for a POSIX shell when it holds anything but plain characters.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=/.:,@%+") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

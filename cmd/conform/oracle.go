package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/conform-dev/conform/conformance/report"
	"github.com/conform-dev/conform/conformance/suite"
	"github.com/conform-dev/conform/conformance/target"
	"github.com/conform-dev/conform/fixtures"
	"github.com/conform-dev/conform/oracle"
)

func cmdOracle(ctx context.Context, e *env, args []string) error {
	usage := func(w io.Writer) {
		fmt.Fprint(w, `Usage: conform oracle <expect|record|verify> [flags]

Expected responses are Elasticsearch 8.15's answers to the workload, computed once before any
timing. They come from the embedded engine (the default), a live Elasticsearch (live:URL) or a
golden file recorded from one (golden:FILE).

Subcommands:
  expect  compute the expectations of a workload from an oracle and write them to a file
  record  record a golden file from a live Elasticsearch
  verify  compare the embedded oracle with a live Elasticsearch across the workload

Examples:
  conform oracle expect --out expected.json
  conform oracle record --es http://127.0.0.1:9200 --out golden.json
  conform oracle verify --es http://127.0.0.1:9200
  conform run --oracle golden:golden.json

Run "conform oracle <subcommand> --help" for its flags and examples.
`)
	}
	if len(args) == 0 {
		return usageLine("conform oracle: needs a subcommand: expect, record or verify; see conform oracle --help")
	}
	switch args[0] {
	case "-h", "--help", "help":
		usage(e.stdout)
		return nil
	case "expect":
		return oracleExpect(ctx, e, args[1:])
	case "record":
		return oracleRecord(ctx, e, args[1:])
	case "verify":
		return oracleVerify(ctx, e, args[1:])
	}
	what := "subcommand"
	if len(args[0]) > 0 && args[0][0] == '-' {
		what = "flag"
	}
	return unknownName("oracle", what, args[0], []string{"expect", "record", "verify"})
}

// oracleFlags are the flags every oracle subcommand shares.
type oracleFlags struct {
	fixtures, index, tth string
}

func (o *oracleFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&o.fixtures, "fixtures", "", "read the corpus, mapping and workload from `DIR` (default: the built-in catalogue)")
	fs.StringVar(&o.index, "index", "", "index `NAME` the cases read (default: the workload's index)")
	fs.StringVar(&o.tth, "track-total-hits", "true", "track_total_hits sent with every search: true, false or a threshold `N`")
}

func (o *oracleFlags) load() (*fixtures.Fixtures, oracle.Settings, error) {
	tth, err := fixtures.ParseTotalHits(o.tth)
	if err != nil {
		return nil, oracle.Settings{}, usageErr("--track-total-hits: %v", err)
	}
	f, err := loadFixtures(o.fixtures)
	if err != nil {
		return nil, oracle.Settings{}, err
	}
	return f, oracle.Settings{Index: o.index, TrackTotalHits: tth}, nil
}

func oracleExpect(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "oracle expect", "[--oracle SPEC] [--fixtures DIR] [--track-total-hits true|false|N] [--index NAME] --out FILE", `
Compute the expected response of every case of a workload, once, and write them to FILE in the
golden-file format (oracle/GOLDEN.md), marked with the oracle they came from. Prints the number
of cases, the warnings (such as a page boundary inside a tie, which Elasticsearch breaks by
Lucene doc id), the expectations' hash (the one run manifests record) and the time taken.

The oracle is the embedded engine by default; live:URL asks a running Elasticsearch that holds
the corpus (userinfo in the URL is sent as basic auth and never printed); golden:FILE reads a
recording made with "conform oracle record".`,
		"conform oracle expect --out expected.json",
		"conform oracle expect --oracle live:http://localhost:9200 --out es.json",
		"conform oracle expect --oracle golden:testdata/es-8.15.0.golden.json --track-total-hits true --out check.json",
		"conform oracle expect --fixtures ./my-fixtures --index products --track-total-hits false --out disabled.json",
	)
	var of oracleFlags
	of.register(fs)
	var tf targetFlags
	tf.registerAuth(fs)
	spec := fs.String("oracle", "embedded", "where expectations come from (`SPEC`): embedded, live:URL or golden:FILE")
	out := fs.String("out", "", "write the expectations to `FILE`")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErr("oracle expect takes no arguments, got %q", fs.Args())
	}
	if *out == "" {
		return usageErr("oracle expect needs --out FILE")
	}
	tf.timeout = target.DefaultTimeout
	topts, err := tf.options(e)
	if err != nil {
		return err
	}
	src, err := suite.OracleSource(*spec, topts)
	if err != nil {
		return usageErr("--oracle: %v", err)
	}
	f, s, err := of.load()
	if err != nil {
		return err
	}
	start := time.Now()
	x, err := src.Expect(ctx, f, s)
	if err != nil {
		return infraErr("%s: %v", src.Name(), err)
	}
	took := time.Since(start)
	var buf bytes.Buffer
	if err := oracle.WriteExpectations(&buf, x, f.Meta, time.Now()); err != nil {
		return infraErr("writing expectations: %v", err)
	}
	if err := report.WriteFileAtomic(*out, buf.Bytes()); err != nil {
		return infraErr("writing %s: %v", *out, err)
	}
	report.Expectations(e.stdout, e.stderr, x, took)
	fmt.Fprintf(e.stdout, "wrote     %s\n", *out)
	return nil
}

func oracleRecord(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "oracle record", "--es URL --out FILE [--fixtures DIR] [--track-total-hits true|false|N] [--index NAME]", `
Record a golden file from a live Elasticsearch: ask it every case of the workload, once, and
write the answers with the fixtures' hashes, the settings and the engine's GET / identity, so
CI can use --oracle golden:FILE without Elasticsearch. The index must already hold the corpus.

record refuses (exit 1) when any case has no fixed answer, listing them: a page whose boundary
falls inside a tie is answered by Lucene doc id order, which another engine or replica need
not share. It refuses (exit 2) an engine that is not Elasticsearch, and warns loudly when the
Elasticsearch is not 8.15.x. Nothing is written unless the recording is complete. Userinfo in
the URL is sent as basic auth and never printed.`,
		"conform oracle record --es http://localhost:9200 --out testdata/es-8.15.0.golden.json",
		"conform oracle record --es https://elastic:$ES_PASSWORD@es.internal:9200 --fixtures ./my-fixtures --out my.golden.json",
	)
	var of oracleFlags
	of.register(fs)
	var tf targetFlags
	tf.registerAuth(fs)
	esURL := fs.String("es", "", "the live Elasticsearch `URL`")
	out := fs.String("out", "", "write the golden file to `FILE`")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErr("oracle record takes no arguments, got %q", fs.Args())
	}
	if *esURL == "" || *out == "" {
		return usageErr("oracle record needs --es URL and --out FILE")
	}
	ep, err := liveEndpoint(e, &tf, *esURL)
	if err != nil {
		return err
	}
	f, s, err := of.load()
	if err != nil {
		return err
	}
	start := time.Now()
	var buf bytes.Buffer
	rec, err := oracle.Record(ctx, f, s, ep, &buf)
	var unsettled *oracle.UnsettledError
	switch {
	case errors.As(err, &unsettled):
		return failed("%v", err)
	case err != nil:
		return infraErr("%v", err)
	}
	for _, c := range rec.Caveats {
		fmt.Fprintf(e.stderr, "\n*** WARNING: %s ***\n\n", c)
	}
	if err := report.WriteFileAtomic(*out, buf.Bytes()); err != nil {
		return infraErr("writing %s: %v", *out, err)
	}
	report.Expectations(e.stdout, e.stderr, rec.Expectations, time.Since(start))
	fmt.Fprintf(e.stdout, "wrote     %s\n", *out)
	return nil
}

func oracleVerify(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "oracle verify", "--es URL [--fixtures DIR] [--track-total-hits true|false|N] [--index NAME] [--pedantic] [--relax LIST] [--full]", `
Compare the embedded oracle with a live Elasticsearch across the whole workload, with the
strict check: the live answer is the expected one and the embedded engine's is checked against
it, as a target's would be. Every case where they differ is listed with its request, the
differences grouped by class with their JSON paths, and both bodies trimmed around the
differences. The live index must already hold the corpus. Userinfo in the URL is sent as basic
auth and never printed. Exit status: 1 if any case differs, 0 if none, 2 when either oracle
cannot answer.

Differences of the report-only classes (key order, _shards, versions such as _seq_no, scores
under a field sort, other fields) are counted but do not make a case differ unless --pedantic
is given; a live cluster's _seq_no depends on how the corpus was loaded.`,
		"conform oracle verify --es http://localhost:9200",
		"conform oracle verify --es http://localhost:9200 --pedantic",
		"conform oracle verify --es http://localhost:9200 --track-total-hits false --full",
	)
	var of oracleFlags
	of.register(fs)
	var cf checkFlags
	cf.register(fs)
	var tf targetFlags
	tf.registerAuth(fs)
	esURL := fs.String("es", "", "the live Elasticsearch `URL`")
	full := fs.Bool("full", false, "print both bodies whole instead of trimmed around the differences")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErr("oracle verify takes no arguments, got %q", fs.Args())
	}
	if *esURL == "" {
		return usageErr("oracle verify needs --es URL")
	}
	opts, err := cf.options()
	if err != nil {
		return err
	}
	ep, err := liveEndpoint(e, &tf, *esURL)
	if err != nil {
		return err
	}
	f, s, err := of.load()
	if err != nil {
		return err
	}
	v, err := suite.Verify(ctx, f, s, &oracle.Live{Endpoint: ep}, opts)
	if err != nil {
		return infraErr("%v", err)
	}
	for _, c := range v.Live.Caveats {
		fmt.Fprintf(e.stderr, "warning: %s\n", c)
	}
	report.Verification(e.stdout, v, *full)
	if len(v.Mismatches) > 0 {
		return failed("the embedded oracle differs from %s on %s", v.Live.Source, report.Plural(len(v.Mismatches), "case"))
	}
	return nil
}

// infraErr reports an infrastructure error: exit 2.
func infraErr(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

// liveEndpoint reaches a live Elasticsearch the way targets are reached: userinfo in the URL,
// --user with $CONFORM_PASSWORD, an API key, --ca and --insecure.
func liveEndpoint(e *env, tf *targetFlags, url string) (oracle.Endpoint, error) {
	tf.timeout = target.DefaultTimeout
	o, err := tf.options(e)
	if err != nil {
		return nil, err
	}
	t, err := target.Parse("es="+url, o)
	if err != nil {
		return nil, usageErr("--es: %v", err)
	}
	return suite.Endpoint(t), nil
}

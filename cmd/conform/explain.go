package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/conform-dev/conform/conformance"
	"github.com/conform-dev/conform/conformance/lab"
	"github.com/conform-dev/conform/conformance/report"
	"github.com/conform-dev/conform/conformance/suite"
	"github.com/conform-dev/conform/conformance/target"
	"github.com/conform-dev/conform/fixtures"
	"github.com/conform-dev/conform/oracle"
)

func cmdExplain(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "explain", "CASE [--target NAME=URL] [--oracle SPEC] [--fixtures DIR] [--full]", `
Show one case whole: the request, a ready-to-paste curl for the target (and for a live oracle),
the expected and actual bodies trimmed around the differences, and every difference grouped by
class with its JSON path. Credentials never appear: curl commands read them from
$CONFORM_USER/$CONFORM_PASSWORD or $CONFORM_API_KEY.

CASE is a case name such as page/017 (conform check lists the failing ones, with the explain
command for each). With no --target it explains the case against the embedded engine. --full
prints both bodies whole. Exit 0 when the case passes, 1 when it differs or gets no response,
2 on a usage or infrastructure error.`,
		"conform explain page/017 --target gw=http://127.0.0.1:8080",
		"conform explain terms/004 --target os=https://127.0.0.1:9201 --user admin --oracle live:http://127.0.0.1:9200",
		"conform explain get/015 --target gw=http://127.0.0.1:8080 --full",
	)
	var targets listFlag
	fs.Var(&targets, "target", "the target as `NAME=URL`; none uses the embedded engine")
	var tf targetFlags
	tf.register(fs)
	var cf checkFlags
	cf.register(fs)
	fixturesDir := fs.String("fixtures", "", "read the corpus, mapping and workload from `DIR` (default: the built-in catalogue)")
	oracleSpec := fs.String("oracle", "embedded", "where the expected response comes from (`SPEC`): embedded, live:URL or golden:FILE")
	tth := fs.String("track-total-hits", envOr(e, "TRACK_TOTAL_HITS", "true"), "track_total_hits sent with every search: true, false or `N`")
	full := fs.Bool("full", false, "print both bodies whole instead of trimmed around the differences")
	// The case name may come anywhere among the flags: first, as the usage line shows, last,
	// or between them. The flag package stops at the first argument that is not a flag, so
	// parsing resumes after the name.
	var names []string
	for {
		if err := parseFlags(fs, args); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		names, args = append(names, fs.Arg(0)), fs.Args()[1:]
	}
	if len(names) > 1 {
		return usageErr("explain takes one case, got %q", names)
	}
	var name string
	if len(names) == 1 {
		name = names[0]
	}
	if name == "" {
		return usageErr("explain needs a case name, such as page/017 (conform check lists the failing ones)")
	}
	if len(targets) > 1 {
		return usageErr("explain takes one --target")
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
	totalHits, err := fixtures.ParseTotalHits(*tth)
	if err != nil {
		return usageErr("--track-total-hits: %v", err)
	}
	f, err := loadFixtures(*fixturesDir)
	if err != nil {
		return err
	}
	if opts, err = opts.WithMapping(f.Mapping); err != nil {
		return usageErr("fixtures: %v", err)
	}
	c := f.Workload.Case(name)
	if c == nil {
		return usageErr("%s", f.Workload.MissingCase(name))
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
	// The relation rule at exactly track_total_hits needs the facts of the target's index, as
	// check's readiness learns them, or the explanation would judge what check did not.
	lb, err := lab.Open(ctx, lab.Config{Log: e.stderr}, f)
	if err != nil {
		return infra(err)
	}
	defer lb.Close()
	facts, err := lb.IndexFacts(ctx, t)
	if err != nil {
		return infra(err)
	}
	opts = opts.WithIndex(facts)
	ofacts, err := oracleIndexFacts(ctx, *oracleSpec, topts, f)
	if err != nil {
		return err
	}
	opts = opts.WithOracleIndex(ofacts)
	x, err := suite.ExpectCase(ctx, src, f, c, totalHits)
	if err != nil {
		return infra(err)
	}
	want := x.Get(name)
	if want == nil {
		return infra(fmt.Errorf("the oracle %s has no expectation for %s", x.Source, name))
	}
	if x.IsDeclined(name) {
		return infra(fmt.Errorf("case %s: the oracle %s declines it (%s): explain it with --oracle live:URL (an Elasticsearch holding the index) or --oracle golden:FILE", name, x.Source, oracle.DeclinedReason(want)))
	}
	req, exp, err := suite.Prepare(t, x, c)
	if err != nil {
		return infra(err)
	}
	w := e.stdout
	fmt.Fprintf(w, "case %s (%s) on target %s (%s), oracle %s, %s\n", name, c.Op, t.Name, t.Redacted(), x.Source, opts)
	fmt.Fprintf(w, "\nrequest: %s %s\n", req.Method, t.URL(req.Path))
	if len(req.Body) > 0 {
		fmt.Fprintf(w, "%s\n", report.IndentJSON(req.Body))
	}
	if c.After != "" {
		fmt.Fprintf(w, "(search_after holds the sort values of the last hit of %s, as the oracle answered it)\n", c.After)
	}
	for _, warn := range want.Warnings {
		fmt.Fprintf(w, "oracle warning: %s\n", warn)
	}
	fmt.Fprintf(w, "\ncurl for %s:\n", t.Name)
	if setup := t.CurlSetup(target.DefaultCurlEnv); setup != "" {
		fmt.Fprintf(w, "  %s\n", setup)
	}
	fmt.Fprintf(w, "  %s\n", t.Curl(req))
	if ot, ok := suite.LiveTarget(src); ok {
		// The oracle's curl reads its credentials from variables of its own, so both commands
		// work in one shell when target and oracle need different ones.
		if oreq, err := suite.OracleRequest(x, c); err == nil {
			fmt.Fprintf(w, "curl for the oracle:\n")
			if setup := ot.CurlSetup(target.OracleCurlEnv); setup != "" {
				fmt.Fprintf(w, "  %s\n", setup)
			}
			fmt.Fprintf(w, "  %s\n", ot.CurlAs(oreq, target.OracleCurlEnv))
		}
	}

	o, err := suite.One(ctx, t, c, req, exp, opts)
	if err != nil {
		return infra(err)
	}
	if o.Fault != nil {
		fmt.Fprintf(w, "\n--- expected (%s): status %d, %d bytes\n%s\n", x.Source, want.Status, len(want.Body), report.IndentJSON(want.Body))
		fmt.Fprintf(w, "\n--- actual (%s): no response\n%s\n", t.Name, o.Fault)
		return failed("case %s: no response from %s (%s)", name, t.Name, target.ClassOf(o.Fault))
	}
	res := o.Result
	paths := res.Paths()
	show := func(title string, status int, body []byte) {
		fmt.Fprint(w, "\n--- ")
		report.ShowBody(w, title, status, body, paths, *full)
	}
	show("expected ("+x.Source+")", want.Status, want.Body)
	if len(res.Diffs) == 0 && !*full {
		fmt.Fprintf(w, "\n--- actual (%s): status %d, %d bytes, the same as expected%s\n", t.Name, o.Status, len(o.Body), report.SameNote(want.Body, o.Body))
	} else {
		show("actual ("+t.Name+")", o.Status, o.Body)
	}
	fmt.Fprintf(w, "\n--- differences\n")
	var b bytes.Buffer
	conformance.Render(&b, res)
	w.Write(b.Bytes())
	if !res.Pass {
		return failed("case %s differs: %s", name, joinClasses(res.FailingClasses()))
	}
	return nil
}

func joinClasses(cs []conformance.Class) string {
	s := make([]string, len(cs))
	for i, c := range cs {
		s[i] = string(c)
	}
	return strings.Join(s, ", ")
}

package main

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/conform-dev/conform/conformance"
	"github.com/conform-dev/conform/conformance/report"
	"github.com/conform-dev/conform/conformance/target"
	"github.com/conform-dev/conform/fixtures"
	"github.com/conform-dev/conform/oracle"
)

func cmdCheck(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "check", "[--target NAME=URL] [--oracle SPEC] [--fixtures DIR] [--junit FILE] [--json FILE]", `
One strict pass over every case of the workload: each request is sent once and its response
checked against the oracle's. Prints a summary per operation and failure class; --junit writes
one testcase per case for CI, --json the failures as records (case, class, path, want, got).

With no --target it checks conform's embedded engine, served on loopback. Nothing is timed and
nothing is written to the target. Exit 0 when every case passes, 1 when any response differs,
2 on a usage or infrastructure error (for example the target cannot be reached at all).`,
		"conform check",
		"conform check --target gw=http://127.0.0.1:8080 --junit junit.xml --json failures.json",
		"conform check --target os=https://127.0.0.1:9201 --user admin --ca ca.pem --oracle golden:es-8.15.golden.json",
		"conform check --target gw=http://127.0.0.1:8080/es --index products --ops get,page --relax ignore-totals-relation",
	)
	var targets listFlag
	fs.Var(&targets, "target", "the target as `NAME=URL`; none checks the embedded engine")
	var tf targetFlags
	tf.register(fs)
	var cf checkFlags
	cf.register(fs)
	fixturesDir := fs.String("fixtures", "", "read the corpus, mapping and workload from `DIR` (default: the built-in catalogue)")
	oracleSpec := fs.String("oracle", "embedded", "where expected responses come from (`SPEC`): embedded, live:URL or golden:FILE")
	ops := fs.String("ops", strings.Join(fixtures.Ops, ","), "comma-separated operations to check (`LIST`)")
	tth := fs.String("track-total-hits", envOr(e, "TRACK_TOTAL_HITS", "true"), "track_total_hits sent with every search: true, false or `N`")
	junit := fs.String("junit", "", "write a JUnit XML report to `FILE`")
	jsonOut := fs.String("json", "", "write the failures as JSON to `FILE`")
	verbose := fs.Bool("v", false, "print every failing case's differences, not just the first lines")
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
	opts, err := cf.options()
	if err != nil {
		return err
	}
	opList, err := parseOps(*ops)
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
	if len(targets) == 0 {
		srv, err := startEmbedded(f)
		if err != nil {
			return infra(err)
		}
		defer srv.Close()
		targets = listFlag{"embedded=" + srv.URL}
	}
	ts, err := parseTargets(targets, topts)
	if err != nil {
		return err
	}
	t := ts[0]
	x, err := expectations(ctx, e, *oracleSpec, topts, f, totalHits)
	if err != nil {
		return err
	}
	run, err := checkAll(ctx, t, f, x, opList, opts)
	if err != nil {
		return infra(err)
	}
	run.print(e.stdout, *verbose)
	if *junit != "" {
		if err := report.WriteFileAtomic(*junit, run.junit()); err != nil {
			return infra(fmt.Errorf("writing %s: %w", *junit, err))
		}
	}
	if *jsonOut != "" {
		data, err := report.MarshalJSON(run.jsonReport())
		if err != nil {
			return infra(err)
		}
		if err := report.WriteFileAtomic(*jsonOut, data); err != nil {
			return infra(fmt.Errorf("writing %s: %w", *jsonOut, err))
		}
	}
	if run.failed > 0 {
		return failed("%d of %d cases failed the strict check", run.failed, len(run.cases))
	}
	return nil
}

func envOr(e *env, name, def string) string {
	if v := e.getenv(name); v != "" {
		return v
	}
	return def
}

func parseOps(s string) ([]string, error) {
	var out []string
	for _, op := range strings.Split(s, ",") {
		op = strings.TrimSpace(op)
		if !contains(fixtures.Ops, op) {
			return nil, usageErr("--ops: unknown operation %q (want %s)", op, strings.Join(fixtures.Ops, ", "))
		}
		out = append(out, op)
	}
	return out, nil
}

// caseOutcome is one case's check.
type caseOutcome struct {
	c       *fixtures.Case
	request fixtures.Request
	status  int
	body    []byte
	fault   error // no response
	result  conformance.Result
	latency time.Duration
}

func (o *caseOutcome) pass() bool { return o.fault == nil && o.result.Pass }

// classes lists the failing classes of a case, a fault's class first.
func (o *caseOutcome) classes() []string {
	if o.fault != nil {
		return []string{target.ClassOf(o.fault)}
	}
	var out []string
	for _, c := range o.result.FailingClasses() {
		out = append(out, string(c))
	}
	return out
}

type checkRun struct {
	target   *target.Target
	oracle   string
	options  *conformance.Options
	fixtures *fixtures.Fixtures
	cases    []*caseOutcome
	failed   int
	took     time.Duration
}

// checkAll sends every case once, in workload order, on one connection, and checks it.
func checkAll(ctx context.Context, t *target.Target, f *fixtures.Fixtures, x *oracle.Expectations, ops []string, opts *conformance.Options) (*checkRun, error) {
	run := &checkRun{target: t, oracle: x.Source, options: opts, fixtures: f}
	var reqs []fixtures.Request
	var wants []*oracle.Expected
	for i := range f.Workload.Cases {
		c := &f.Workload.Cases[i]
		if !contains(ops, c.Op) {
			continue
		}
		want := x.Get(c.Name)
		if want == nil {
			return nil, fmt.Errorf("the oracle has no expectation for %s", c.Name)
		}
		var cursor []byte
		if c.After != "" {
			page := x.Get(c.After)
			if page == nil {
				return nil, fmt.Errorf("case %s continues %s, which the oracle did not answer", c.Name, c.After)
			}
			var err error
			if cursor, err = oracle.Cursor(page); err != nil {
				return nil, fmt.Errorf("case %s: %w", c.Name, err)
			}
		}
		req, err := t.Request(c, x.Settings.Index, x.Settings.TrackTotalHits, cursor)
		if err != nil {
			return nil, err
		}
		reqs, wants = append(reqs, req), append(wants, want)
		run.cases = append(run.cases, &caseOutcome{c: c, request: req})
	}
	if len(reqs) == 0 {
		return nil, errors.New("no cases to check")
	}
	prepared, err := t.PrepareAll(reqs)
	if err != nil {
		return nil, err
	}
	x0, err := t.Open(ctx, target.LayerLean, prepared)
	if err != nil {
		return nil, fmt.Errorf("target %s: %w", t.Name, t.Scrub(err))
	}
	defer x0.Close()
	start := time.Now()
	for i, o := range run.cases {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		exp, err := conformance.Compile(wants[i].Status, wants[i].Body)
		if err != nil {
			return nil, fmt.Errorf("case %s: the expected response is unusable: %w", o.c.Name, err)
		}
		ex, err := x0.Exchange(i)
		if err != nil {
			o.fault = t.Scrub(err)
			run.failed++
			continue
		}
		o.status, o.body, o.latency = ex.Status, append([]byte(nil), ex.Body...), ex.Latency()
		o.result = exp.Check(ex.Status, ex.Body, opts)
		if !o.result.Pass {
			run.failed++
		}
	}
	run.took = time.Since(start)
	return run, nil
}

func (r *checkRun) byOp() (ops []string, rows map[string]*opRow) {
	rows = map[string]*opRow{}
	for _, o := range r.cases {
		row := rows[o.c.Op]
		if row == nil {
			row = &opRow{classes: map[string]int{}}
			rows[o.c.Op] = row
			ops = append(ops, o.c.Op)
		}
		row.cases++
		if o.pass() {
			row.passed++
			continue
		}
		for _, c := range o.classes() {
			row.classes[c]++
		}
	}
	sort.SliceStable(ops, func(i, j int) bool { return opIndex(ops[i]) < opIndex(ops[j]) })
	return ops, rows
}

type opRow struct {
	cases, passed int
	classes       map[string]int
}

func opIndex(op string) int {
	for i, o := range fixtures.Ops {
		if o == op {
			return i
		}
	}
	return len(fixtures.Ops)
}

// classesText renders failures by class in the check's stable class order.
func classesText(m map[string]int) string {
	var parts []string
	for _, c := range orderedClasses(m) {
		parts = append(parts, fmt.Sprintf("%s %d", c, m[c]))
	}
	return strings.Join(parts, ", ")
}

func orderedClasses(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := conformance.Class(keys[i]).Index(), conformance.Class(keys[j]).Index()
		if a != b {
			return a < b
		}
		return keys[i] < keys[j]
	})
	return keys
}

func (r *checkRun) print(w io.Writer, verbose bool) {
	fmt.Fprintf(w, "check %s (%s) against oracle %s, %d cases, %s\n\n", r.target.Name, r.target.Redacted(), r.oracle, len(r.cases), r.options)
	ops, rows := r.byOp()
	fmt.Fprintf(w, "%-8s %6s %7s %7s  %s\n", "op", "cases", "passed", "failed", "failures by class")
	total := &opRow{classes: map[string]int{}}
	for _, op := range ops {
		row := rows[op]
		fmt.Fprintf(w, "%-8s %6d %7d %7d  %s\n", op, row.cases, row.passed, row.cases-row.passed, classesText(row.classes))
		total.cases += row.cases
		total.passed += row.passed
		for k, v := range row.classes {
			total.classes[k] += v
		}
	}
	fmt.Fprintf(w, "%-8s %6d %7d %7d  %s\n", "total", total.cases, total.passed, total.cases-total.passed, classesText(total.classes))
	if r.failed == 0 {
		fmt.Fprintf(w, "\nEvery case passed the strict check.\n")
		return
	}
	fmt.Fprintf(w, "\nFailing cases:\n")
	shown := 0
	for _, o := range r.cases {
		if o.pass() {
			continue
		}
		if !verbose && shown == 20 {
			fmt.Fprintf(w, "  … and %d more (-v lists them all)\n", r.failed-shown)
			break
		}
		shown++
		if o.fault != nil {
			fmt.Fprintf(w, "  %-12s %s: %v\n", o.c.Name, strings.Join(o.classes(), ","), o.fault)
			continue
		}
		var first *conformance.Difference
		n := 0
		for i := range o.result.Diffs {
			if o.result.Diffs[i].Fails {
				if first == nil {
					first = &o.result.Diffs[i]
				}
				n++
			}
		}
		more := ""
		if n > 1 {
			more = fmt.Sprintf(" (+%d more)", n-1)
		}
		fmt.Fprintf(w, "  %-12s %s: %s want %s got %s%s\n", o.c.Name, first.Class, pathOrBody(first.Path), clipText(first.Want, 60), clipText(first.Got, 60), more)
		if verbose {
			var b bytes.Buffer
			conformance.Render(&b, o.result)
			for _, line := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
				fmt.Fprintf(w, "      %s\n", line)
			}
		}
	}
	for _, o := range r.cases {
		if !o.pass() {
			fmt.Fprintf(w, "\nThe whole story of one: conform explain %s --target %s=URL\n", o.c.Name, r.target.Name)
			break
		}
	}
}

func pathOrBody(p string) string {
	if p == "" {
		return "(status)"
	}
	return p
}

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}

// checkJSON is --json's schema.
type checkJSON struct {
	Target          string         `json:"target"`
	URL             string         `json:"url"`
	Oracle          string         `json:"oracle"`
	Options         []string       `json:"options"`
	CorpusSHA256    string         `json:"corpus_sha256"`
	WorkloadSHA256  string         `json:"workload_sha256"`
	Cases           int            `json:"cases"`
	Passed          int            `json:"passed"`
	Failed          int            `json:"failed"`
	FailuresByClass map[string]int `json:"failures_by_class"`
	Failures        []checkFailure `json:"failures"`
}

type checkFailure struct {
	Case  string `json:"case"`
	Class string `json:"class"`
	Path  string `json:"path"`
	Want  string `json:"want"`
	Got   string `json:"got"`
}

func (r *checkRun) jsonReport() checkJSON {
	out := checkJSON{Target: r.target.Name, URL: r.target.Redacted(), Oracle: r.oracle, Options: r.options.Names(),
		CorpusSHA256: r.fixtures.Meta.SHA256.Corpus, WorkloadSHA256: r.fixtures.Meta.SHA256.Workload,
		Cases: len(r.cases), Failed: r.failed, Passed: len(r.cases) - r.failed, FailuresByClass: map[string]int{}, Failures: []checkFailure{}}
	if out.Options == nil {
		out.Options = []string{"strict"}
	}
	for _, o := range r.cases {
		if o.pass() {
			continue
		}
		for _, c := range o.classes() {
			out.FailuresByClass[c]++
		}
		if o.fault != nil {
			out.Failures = append(out.Failures, checkFailure{Case: o.c.Name, Class: target.ClassOf(o.fault), Want: "a response", Got: o.fault.Error()})
			continue
		}
		for _, d := range o.result.Diffs {
			if d.Fails {
				out.Failures = append(out.Failures, checkFailure{Case: o.c.Name, Class: string(d.Class), Path: d.Path, Want: d.Want, Got: d.Got})
			}
		}
	}
	return out
}

// JUnit XML: one testsuite per operation, one testcase per case.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

func (r *checkRun) junit() []byte {
	doc := junitSuites{Name: "conform " + r.target.Name, Time: fmt.Sprintf("%.3f", r.took.Seconds())}
	props := []junitProperty{{"target", r.target.Redacted()}, {"oracle", r.oracle}, {"options", r.options.String()},
		{"corpus_sha256", r.fixtures.Meta.SHA256.Corpus}, {"workload_sha256", r.fixtures.Meta.SHA256.Workload}}
	suites := map[string]*junitSuite{}
	var order []string
	for _, o := range r.cases {
		s := suites[o.c.Op]
		if s == nil {
			s = &junitSuite{Name: "conform." + r.target.Name + "." + o.c.Op, Properties: props}
			suites[o.c.Op] = s
			order = append(order, o.c.Op)
		}
		tc := junitCase{Name: o.c.Name, Classname: "conform." + r.target.Name + "." + o.c.Op, Time: fmt.Sprintf("%.6f", o.latency.Seconds())}
		switch {
		case o.fault != nil:
			tc.Error = &junitProblem{Message: o.fault.Error(), Type: target.ClassOf(o.fault)}
			s.Errors++
			doc.Errors++
		case !o.result.Pass:
			var b bytes.Buffer
			conformance.Render(&b, o.result)
			fmt.Fprintf(&b, "\n%s %s\n%s\n\nReproduce: conform explain %s --target %s=URL\n", o.request.Method, o.request.Path, o.request.Body, o.c.Name, r.target.Name)
			tc.Failure = &junitProblem{Message: strings.Join(o.classes(), ", "), Type: strings.Join(o.classes(), ","), Text: b.String()}
			s.Failures++
			doc.Failures++
		}
		s.Tests++
		doc.Tests++
		s.Cases = append(s.Cases, tc)
	}
	for _, op := range order {
		doc.Suites = append(doc.Suites, *suites[op])
	}
	out, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		panic(err) // the document is built from strings and numbers only
	}
	return append([]byte(xml.Header), append(out, '\n')...)
}

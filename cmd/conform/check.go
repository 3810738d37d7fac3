package main

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/url"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/conform-dev/conform/conformance"
	"github.com/conform-dev/conform/conformance/report"
	"github.com/conform-dev/conform/conformance/target"
	"github.com/conform-dev/conform/fixtures"
	"github.com/conform-dev/conform/oracle"
)

func cmdCheck(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "check", "[--target NAME=URL] [--oracle SPEC] [--fixtures DIR] [--junit FILE] [--json FILE]", `
One strict pass over every case of the workload: each request is sent once and its response
checked against the oracle's. Prints a summary per operation and failure class and the failing
cases; --junit writes one testcase per case for CI (the failure's message is its classes, its
text the differences, the request and the explain command), --json writes the failures as
records {"case","class","path","want","got"} with counts of cases and of failures by class.

With no --target it checks conform's embedded engine, served on loopback. Nothing is timed and
nothing is written to the target. Credentials never appear in any output. Exit 0 when every
case passes, 1 when any response differs or is missing, 2 on a usage or infrastructure error
(the target cannot be reached at all, or answers none of the cases).`,
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
	junit := fs.String("junit", "", "write a JUnit XML report to `FILE`, one testcase per case")
	jsonOut := fs.String("json", "", "write the failures as JSON to `FILE`")
	verbose := fs.Bool("v", false, "list every failing case with all its differences, not the first 20 cases' first difference")
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
	if _, err := oracleSource(*oracleSpec, topts); err != nil {
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
	x, err := expectations(ctx, e, *oracleSpec, topts, f, totalHits)
	if err != nil {
		return err
	}
	for _, c := range x.Caveats {
		fmt.Fprintf(e.stderr, "warning: %s\n", c)
	}
	run, err := checkAll(ctx, t, f, x, opList, opts)
	if err != nil {
		return infra(err)
	}
	run.explain = explainCommand{target: t, embedded: embedded, tf: tf, cf: cf, fixtures: *fixturesDir, oracle: *oracleSpec, oracleName: x.Source, tth: *tth}
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
	if run.responded == 0 {
		// Every case is a fault: the target is not there to be checked, which is an
		// infrastructure error rather than a verdict on it.
		first := run.cases[0].fault
		return infra(fmt.Errorf("target %s answered none of the %d cases (the first: %v)", t.Name, len(run.cases), first))
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
	want    *conformance.Expectation
	status  int
	body    []byte
	fault   error // no response; its text is scrubbed of credentials
	result  conformance.Result
	latency time.Duration
}

func (o *caseOutcome) pass() bool { return o.fault == nil && o.result.Pass }

// classes lists the failing classes of a case: a fault's class, or the check's failing
// classes in their stable order.
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

// faultText is a fault's message without the class its text starts with.
func (o *caseOutcome) faultText() string {
	s := o.fault.Error()
	if rest, ok := strings.CutPrefix(s, target.ClassOf(o.fault)+": "); ok {
		return rest
	}
	return s
}

// firstFailing is the first failing difference of a checked case, and how many more fail.
func (o *caseOutcome) firstFailing() (*conformance.Difference, int) {
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
	return first, n - 1
}

type checkRun struct {
	target   *target.Target
	oracle   string
	options  *conformance.Options
	fixtures *fixtures.Fixtures
	cases    []*caseOutcome
	// failed counts the cases that did not pass; responded those that got a response.
	failed, responded int
	took              time.Duration
	explain           explainCommand
}

// checkAll sends every case once, in workload order, on one connection, and checks it. The
// expectations are compiled first, so an unusable one stops the check before any request.
// Cancelling ctx interrupts the exchange in flight.
func checkAll(ctx context.Context, t *target.Target, f *fixtures.Fixtures, x *oracle.Expectations, ops []string, opts *conformance.Options) (*checkRun, error) {
	run := &checkRun{target: t, oracle: x.Source, options: opts, fixtures: f}
	var reqs []fixtures.Request
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
		exp, err := conformance.Compile(want.Status, want.Body)
		if err != nil {
			return nil, fmt.Errorf("case %s: the expected response is unusable: %w", c.Name, err)
		}
		reqs = append(reqs, req)
		run.cases = append(run.cases, &caseOutcome{c: c, request: req, want: exp})
	}
	if len(reqs) == 0 {
		return nil, errors.New("no cases to check")
	}
	prepared, err := t.PrepareAll(reqs)
	if err != nil {
		return nil, err
	}
	// Nothing is timed here, so the cases go through go-elasticsearch's transport (over one
	// lean keep-alive connection, whose faults are classified as on the timed path).
	conn, err := t.Open(ctx, target.LayerLeanTransport, prepared)
	if err != nil {
		return nil, fmt.Errorf("target %s: %w", t.Name, t.Scrub(err))
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, conn.Interrupt)
	defer stop()
	start := time.Now()
	for i, o := range run.cases {
		ex, err := conn.Exchange(i)
		if ctx.Err() != nil || errors.Is(err, target.ErrInterrupted) {
			return nil, fmt.Errorf("check interrupted after %d of %d cases", i, len(run.cases))
		}
		if err != nil {
			o.fault = t.Scrub(err)
			run.failed++
			continue
		}
		run.responded++
		o.status, o.body, o.latency = ex.Status, append([]byte(nil), ex.Body...), ex.Latency()
		o.result = o.want.Check(ex.Status, ex.Body, opts)
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

// reportedOnly counts, by class, the cases with differences that were reported but did not
// fail (key order, scores under a field sort, versions, ...).
func (r *checkRun) reportedOnly() map[string]int {
	out := map[string]int{}
	for _, o := range r.cases {
		seen := map[conformance.Class]bool{}
		for _, d := range o.result.Diffs {
			if !d.Fails && !seen[d.Class] {
				seen[d.Class] = true
				out[string(d.Class)]++
			}
		}
	}
	return out
}

// maxListed is how many failing cases the summary lists without -v.
const maxListed = 20

func (r *checkRun) print(w io.Writer, verbose bool) {
	fmt.Fprintf(w, "check %s (%s) against oracle %s: %d cases, %s\n\n", r.target.Name, r.target.Redacted(), r.oracle, len(r.cases), r.options)
	ops, rows := r.byOp()
	line := func(format string, args ...any) {
		fmt.Fprintln(w, strings.TrimRight(fmt.Sprintf(format, args...), " "))
	}
	line("%-8s %6s %7s %7s  %s", "op", "cases", "passed", "failed", "failing cases by class")
	total := &opRow{classes: map[string]int{}}
	for _, op := range ops {
		row := rows[op]
		line("%-8s %6d %7d %7d  %s", op, row.cases, row.passed, row.cases-row.passed, classesText(row.classes))
		total.cases += row.cases
		total.passed += row.passed
		for k, v := range row.classes {
			total.classes[k] += v
		}
	}
	line("%-8s %6d %7d %7d  %s", "total", total.cases, total.passed, total.cases-total.passed, classesText(total.classes))
	if rep := r.reportedOnly(); len(rep) > 0 {
		fmt.Fprintf(w, "\nReported, not failing (cases by class): %s\n", classesText(rep))
	}
	if r.failed == 0 {
		fmt.Fprintf(w, "\nEvery case passed the strict check.\n")
		return
	}
	fmt.Fprintf(w, "\n%s:\n", plural(r.failed, "failing case"))
	shown := 0
	var first *caseOutcome
	for _, o := range r.cases {
		if o.pass() {
			continue
		}
		if first == nil {
			first = o
		}
		if !verbose && shown == maxListed {
			fmt.Fprintf(w, "  … and %d more (-v lists them all)\n", r.failed-shown)
			break
		}
		shown++
		classes := strings.Join(o.classes(), ",")
		if o.fault != nil {
			fmt.Fprintf(w, "  %-12s [%s] %s\n", o.c.Name, classes, o.faultText())
			continue
		}
		d, more := o.firstFailing()
		extra := ""
		if more > 0 {
			extra = fmt.Sprintf(" (and %s)", plural(more, "more difference"))
		}
		fmt.Fprintf(w, "  %-12s [%s] %s: want %s, got %s%s\n", o.c.Name, classes, where(d), clipText(d.Want, 60), clipText(d.Got, 60), extra)
		if verbose {
			var b bytes.Buffer
			conformance.Render(&b, o.result)
			for _, l := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
				fmt.Fprintf(w, "      %s\n", l)
			}
		}
	}
	fmt.Fprintf(w, "\nTo see one whole: %s\n", r.explain.forCase(first.c.Name))
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// where names a difference's place as Render does: its path, the HTTP status, or the body.
func where(d *conformance.Difference) string {
	switch {
	case d.Path != "":
		return d.Path
	case d.Class == conformance.ClassStatus:
		return "HTTP status"
	}
	return "body"
}

// clipText shortens s to at most n bytes, on a rune boundary, marking the cut.
func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
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
	oracle     string // as given
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
	switch {
	case strings.HasPrefix(x.oracle, "live:"):
		// The redacted URL: a password in it has to be typed again.
		add("--oracle", x.oracleName)
	case x.oracle != "" && x.oracle != "embedded":
		add("--oracle", x.oracle)
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

// checkJSON is --json's schema. failures_by_class counts failing cases by class (a case
// counts once in each class it fails); failures lists every failing difference.
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
			out.Failures = append(out.Failures, checkFailure{Case: o.c.Name, Class: target.ClassOf(o.fault), Want: "<a response>", Got: "<" + o.faultText() + ">"})
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

// JUnit XML: one testsuite per operation, one testcase per case. A failing response is a
// <failure> and a missing one an <error>; either's message is the failing classes, its type
// the same classes comma-separated, and its text what a CI reader needs to act: the
// differences (or the fault), the request, a curl command and the explain command.
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
	Time       string          `xml:"time,attr"`
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
	doc := junitSuites{Name: "conform check " + r.target.Name, Time: fmt.Sprintf("%.3f", r.took.Seconds())}
	props := []junitProperty{{"target", r.target.Redacted()}, {"oracle", r.oracle}, {"options", r.options.String()},
		{"corpus_sha256", r.fixtures.Meta.SHA256.Corpus}, {"workload_sha256", r.fixtures.Meta.SHA256.Workload}}
	suites := map[string]*junitSuite{}
	times := map[string]time.Duration{}
	var order []string
	for _, o := range r.cases {
		classname := "conform." + r.target.Name + "." + o.c.Op
		s := suites[o.c.Op]
		if s == nil {
			s = &junitSuite{Name: classname, Properties: props}
			suites[o.c.Op] = s
			order = append(order, o.c.Op)
		}
		tc := junitCase{Name: o.c.Name, Classname: classname, Time: fmt.Sprintf("%.6f", o.latency.Seconds())}
		times[o.c.Op] += o.latency
		if !o.pass() {
			var b strings.Builder
			if o.fault != nil {
				fmt.Fprintf(&b, "No response: %s\n", o.fault)
			} else {
				conformance.Render(&b, o.result)
			}
			fmt.Fprintf(&b, "\nRequest: %s %s\n", o.request.Method, r.target.URL(o.request.Path))
			if len(o.request.Body) > 0 {
				fmt.Fprintf(&b, "%s\n", o.request.Body)
			}
			fmt.Fprintf(&b, "\nReproduce: %s\nExplain:   %s\n", r.target.Curl(o.request), r.explain.forCase(o.c.Name))
			p := &junitProblem{Message: strings.Join(o.classes(), ", "), Type: strings.Join(o.classes(), ","), Text: b.String()}
			if o.fault != nil {
				tc.Error = p
				s.Errors++
				doc.Errors++
			} else {
				tc.Failure = p
				s.Failures++
				doc.Failures++
			}
		}
		s.Tests++
		doc.Tests++
		s.Cases = append(s.Cases, tc)
	}
	for _, op := range order {
		s := suites[op]
		s.Time = fmt.Sprintf("%.3f", times[op].Seconds())
		doc.Suites = append(doc.Suites, *s)
	}
	out, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		panic(err) // the document is built from strings and numbers only
	}
	return append([]byte(xml.Header), append(out, '\n')...)
}

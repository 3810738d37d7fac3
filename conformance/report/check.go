package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/conform-dev/conform/conformance"
	"github.com/conform-dev/conform/conformance/readiness"
	"github.com/conform-dev/conform/conformance/suite"
	"github.com/conform-dev/conform/conformance/target"
)

// ExplainFunc names the command that shows one case whole (`conform explain page/017 ...`);
// the reports of a check print it next to each failing case.
type ExplainFunc func(caseName string) string

// MaxListed is how many failing cases CheckSummary lists when not verbose.
const MaxListed = 20

// CheckSummary writes a check's text summary: a row per operation with its failing cases by
// class, the reported-only classes, and the failing cases (the first MaxListed with their first
// difference, or all with all their differences when verbose).
func CheckSummary(w io.Writer, r *suite.Run, verbose bool, explain ExplainFunc) {
	cases := fmt.Sprintf("%d cases", len(r.Cases))
	if !r.Complete() {
		cases = fmt.Sprintf("%d of %d cases", len(r.Cases), r.Planned)
	}
	fmt.Fprintf(w, "check %s (%s) against oracle %s: %s, %s\n\n", r.Target.Name, r.Target.Redacted(), r.Oracle, cases, r.Options)
	if len(r.Findings) > 0 {
		WriteFindings(w, r.Findings, "the cases ran; each finding fails the check", verbose)
		fmt.Fprintln(w)
	}
	ops, rows := r.ByOp()
	line := func(format string, args ...any) {
		fmt.Fprintln(w, strings.TrimRight(fmt.Sprintf(format, args...), " "))
	}
	width := 8 // the operations' own labels may be longer than the built-in five
	for _, op := range ops {
		width = max(width, len(op))
	}
	line("%-*s %6s %7s %7s  %s", width, "op", "cases", "passed", "failed", "failing cases by class")
	total := &suite.OpRow{Classes: map[string]int{}}
	for _, op := range ops {
		row := rows[op]
		line("%-*s %6d %7d %7d  %s", width, op, row.Cases, row.Passed, row.Cases-row.Passed, ClassesText(row.Classes))
		total.Cases += row.Cases
		total.Passed += row.Passed
		for k, v := range row.Classes {
			total.Classes[k] += v
		}
	}
	line("%-*s %6d %7d %7d  %s", width, "total", total.Cases, total.Passed, total.Cases-total.Passed, ClassesText(total.Classes))
	if rep := r.ReportedOnly(); len(rep) > 0 {
		fmt.Fprintf(w, "\nReported, not failing (cases by class): %s\n", ClassesText(rep))
	}
	if d := suite.DeclinedText(r.Declined); d != "" {
		fmt.Fprintf(w, "\nNOT CHECKED: %s.\n", d)
	}
	if !r.Complete() {
		fmt.Fprintf(w, "\nINCOMPLETE: %s; the counts are of the cases checked.\n", r.Incomplete)
	}
	if r.Failed == 0 {
		but := ""
		if len(r.Findings) > 0 {
			but = fmt.Sprintf(", but readiness made %s (above)", readiness.Plural(len(r.Findings), "finding"))
		}
		if r.Complete() {
			fmt.Fprintf(w, "\nEvery case passed the strict check%s.\n", but)
		} else if len(r.Cases) > 0 {
			fmt.Fprintf(w, "\nEvery case checked passed the strict check%s.\n", but)
		}
		return
	}
	fmt.Fprintf(w, "\n%s:\n", Plural(r.Failed, "failing case"))
	shown := 0
	var first *suite.Outcome
	for _, o := range r.Cases {
		if o.Pass() {
			continue
		}
		if first == nil {
			first = o
		}
		if !verbose && shown == MaxListed {
			fmt.Fprintf(w, "  … and %d more (-v lists them all)\n", r.Failed-shown)
			break
		}
		shown++
		classes := strings.Join(o.Classes(), ",")
		if o.Fault != nil {
			fmt.Fprintf(w, "  %-12s [%s] %s\n", o.Case.Name, classes, o.FaultText())
			continue
		}
		d, more := o.FirstFailing()
		extra := ""
		if more > 0 {
			extra = fmt.Sprintf(" (and %s)", Plural(more, "more difference"))
		}
		fmt.Fprintf(w, "  %-12s [%s] %s: want %s, got %s%s\n", o.Case.Name, classes, suite.Where(d), ClipText(d.Want, 60), ClipText(d.Got, 60), extra)
		if verbose {
			var b bytes.Buffer
			conformance.Render(&b, o.Result)
			for _, l := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
				fmt.Fprintf(w, "      %s\n", l)
			}
		}
	}
	fmt.Fprintf(w, "\nTo see one whole: %s\n", explain(first.Case.Name))
}

// WriteFindings writes readiness's findings as a block a reader sees first: a heading with
// their number and what they mean (note), then each finding's summary and, indented, its
// details (the first 5 of each unless all).
func WriteFindings(w io.Writer, fs []readiness.Finding, note string, all bool) {
	fmt.Fprintf(w, "READINESS FINDINGS (%d; %s):\n", len(fs), note)
	for _, f := range fs {
		fmt.Fprintf(w, "  %s %s\n", f.Target+":", f)
		// The summary names the first few details itself; the rest follow.
		var rest []string
		for _, d := range f.Details {
			if !strings.Contains(f.Summary, d) {
				rest = append(rest, d)
			}
		}
		for i, d := range rest {
			if !all && i == 5 {
				fmt.Fprintf(w, "      … and %d more\n", len(rest)-5)
				break
			}
			fmt.Fprintf(w, "      %s\n", d)
		}
	}
}

// CaseFailure is the text a CI reader needs to act on one failing case: the differences (or
// the fault), the request, a curl command that reproduces it with no secret in it, and the
// explain command when explain is not nil.
func CaseFailure(r *suite.Run, o *suite.Outcome, explain ExplainFunc) string {
	var b strings.Builder
	if o.Fault != nil {
		fmt.Fprintf(&b, "No response: %s\n", o.Fault)
	} else {
		conformance.Render(&b, o.Result)
	}
	fmt.Fprintf(&b, "\nRequest: %s %s\n", o.Request.Method, r.Target.URL(o.Request.Path))
	if len(o.Request.Body) > 0 {
		fmt.Fprintf(&b, "%s\n", o.Request.Body)
	}
	fmt.Fprintf(&b, "\nReproduce: %s\n", r.Target.Curl(o.Request))
	if explain != nil {
		fmt.Fprintf(&b, "Explain:   %s\n", explain(o.Case.Name))
	}
	return b.String()
}

// ClassesText renders counts by class in the check's stable class order: "sort 2, totals 1".
func ClassesText(m map[string]int) string {
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

// Plural is "1 case" or "n cases".
func Plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// ClipText shortens s to at most n bytes, on a rune boundary, marking the cut.
func ClipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// IndentJSON pretty-prints JSON, or returns the bytes as they are when they are not JSON.
func IndentJSON(b []byte) string {
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return string(b)
	}
	return out.String()
}

// CheckReport is `conform check --json`'s schema. FailuresByClass counts failing cases by
// class (a case counts once in each class it fails); ByOperation gives the same counts per
// operation, in the workload's order, as the summary's table; Failures lists every failing
// difference.
type CheckReport struct {
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
	ByOperation     []CheckOpCount `json:"by_operation"`
	Failures        []CheckFailure `json:"failures"`
	// Complete is false when the check stopped early (interrupted, or the target stopped
	// answering or was not ready); Incomplete then says why, and the counts are of the
	// cases checked before, Planned of those it was to check.
	Complete   bool   `json:"complete"`
	Incomplete string `json:"incomplete,omitempty"`
	Planned    int    `json:"planned"`
	// Findings are what readiness found wrong with the target without stopping the check;
	// each fails it, as a failing case does.
	Findings []readiness.Finding `json:"findings"`
	// Declined counts the cases the oracle declined (the embedded engine's
	// conform_unsupported_exception): not checked, they need --oracle live:URL or
	// golden:FILE. DeclinedCases names them.
	Declined      int      `json:"declined"`
	DeclinedCases []string `json:"declined_cases,omitempty"`
}

// CheckOpCount is one operation's row of a check: its cases, how many passed and failed, and
// its failing cases by class.
type CheckOpCount struct {
	Op              string         `json:"op"`
	Cases           int            `json:"cases"`
	Passed          int            `json:"passed"`
	Failed          int            `json:"failed"`
	FailuresByClass map[string]int `json:"failures_by_class"`
}

// CheckFailure is one failing difference of one case, or a case's missing response.
type CheckFailure struct {
	Case  string `json:"case"`
	Class string `json:"class"`
	Path  string `json:"path"`
	Want  string `json:"want"`
	Got   string `json:"got"`
}

// CheckJSON builds a check's failure records.
func CheckJSON(r *suite.Run) CheckReport {
	out := CheckReport{Target: r.Target.Name, URL: r.Target.Redacted(), Oracle: r.Oracle, Options: r.Options.Names(),
		CorpusSHA256: r.Fixtures.Meta.SHA256.Corpus, WorkloadSHA256: r.Fixtures.Meta.SHA256.Workload,
		Complete: r.Complete(), Incomplete: r.Incomplete, Planned: r.Planned,
		Cases: len(r.Cases), Failed: r.Failed, Passed: len(r.Cases) - r.Failed, FailuresByClass: map[string]int{}, ByOperation: []CheckOpCount{}, Failures: []CheckFailure{},
		Findings: append([]readiness.Finding{}, r.Findings...)}
	if out.Options == nil {
		out.Options = []string{"strict"}
	}
	out.Declined = len(r.Declined)
	for _, d := range r.Declined {
		out.DeclinedCases = append(out.DeclinedCases, d.Case.Name)
	}
	ops, rows := r.ByOp()
	for _, op := range ops {
		row := rows[op]
		out.ByOperation = append(out.ByOperation, CheckOpCount{Op: op, Cases: row.Cases, Passed: row.Passed, Failed: row.Cases - row.Passed, FailuresByClass: row.Classes})
	}
	for _, o := range r.Failing() {
		for _, c := range o.Classes() {
			out.FailuresByClass[c]++
		}
		if o.Fault != nil {
			out.Failures = append(out.Failures, CheckFailure{Case: o.Case.Name, Class: target.ClassOf(o.Fault), Want: "<a response>", Got: "<" + o.FaultText() + ">"})
			continue
		}
		for _, d := range o.Result.Diffs {
			if d.Fails {
				out.Failures = append(out.Failures, CheckFailure{Case: o.Case.Name, Class: string(d.Class), Path: d.Path, Want: d.Want, Got: d.Got})
			}
		}
	}
	return out
}

// JUnit XML: one testsuite per operation, one testcase per case. A failing response is a
// <failure> and a missing one an <error>; either's message is the failing classes, its type
// the same classes comma-separated, and its text CaseFailure's.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr,omitempty"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr,omitempty"`
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
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
}

// junitSkipped is a case the oracle declined: not checked.
type junitSkipped struct {
	Message string `xml:"message,attr"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// CheckJUnit renders a check as a JUnit XML document.
func CheckJUnit(r *suite.Run, explain ExplainFunc) []byte {
	doc := junitSuites{Name: "conform check " + r.Target.Name, Time: fmt.Sprintf("%.3f", r.Took.Seconds())}
	props := []junitProperty{{"target", r.Target.Redacted()}, {"oracle", r.Oracle}, {"options", r.Options.String()},
		{"corpus_sha256", r.Fixtures.Meta.SHA256.Corpus}, {"workload_sha256", r.Fixtures.Meta.SHA256.Workload}}
	if len(r.Findings) > 0 {
		// Readiness's findings first, each a failing testcase of its own: a CI job sees
		// that the target's data or mapping is not the fixtures' before the cases that
		// show what it does wrong.
		classname := "conform." + r.Target.Name + ".readiness"
		s := junitSuite{Name: classname, Time: "0.000", Properties: props}
		for _, f := range r.Findings {
			text := f.Summary + "\n"
			for _, d := range f.Details {
				text += "  " + d + "\n"
			}
			s.Cases = append(s.Cases, junitCase{Name: "readiness/" + f.Kind, Classname: classname, Time: "0.000",
				Failure: &junitProblem{Message: f.Summary, Type: "finding:" + f.Kind, Text: text}})
			s.Tests++
			s.Failures++
		}
		doc.Suites = append(doc.Suites, s)
		doc.Tests += s.Tests
		doc.Failures += s.Failures
	}
	suites := map[string]*junitSuite{}
	times := map[string]time.Duration{}
	var order []string
	for _, o := range r.Cases {
		classname := "conform." + r.Target.Name + "." + o.Case.Op
		s := suites[o.Case.Op]
		if s == nil {
			s = &junitSuite{Name: classname, Properties: props}
			suites[o.Case.Op] = s
			order = append(order, o.Case.Op)
		}
		tc := junitCase{Name: o.Case.Name, Classname: classname, Time: fmt.Sprintf("%.6f", o.Latency.Seconds())}
		times[o.Case.Op] += o.Latency
		if !o.Pass() {
			p := &junitProblem{Message: strings.Join(o.Classes(), ", "), Type: strings.Join(o.Classes(), ","), Text: CaseFailure(r, o, explain)}
			if o.Fault != nil {
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
	for _, d := range r.Declined {
		// A declined case is a skipped testcase, so CI shows what was not checked.
		classname := "conform." + r.Target.Name + "." + d.Case.Op
		s := suites[d.Case.Op]
		if s == nil {
			s = &junitSuite{Name: classname, Properties: props}
			suites[d.Case.Op] = s
			order = append(order, d.Case.Op)
		}
		s.Cases = append(s.Cases, junitCase{Name: d.Case.Name, Classname: classname, Time: "0.000000",
			Skipped: &junitSkipped{Message: "not checked: the embedded engine declines it (" + d.Reason + "); check it with --oracle live:URL or --oracle golden:FILE"}})
		s.Tests++
		s.Skipped++
		doc.Tests++
		doc.Skipped++
	}
	for _, op := range order {
		s := suites[op]
		s.Time = fmt.Sprintf("%.3f", times[op].Seconds())
		doc.Suites = append(doc.Suites, *s)
	}
	if !r.Complete() {
		// A check that stopped early is an error a CI job sees, whatever the cases checked.
		classname := "conform." + r.Target.Name
		doc.Suites = append(doc.Suites, junitSuite{Name: classname, Tests: 1, Errors: 1, Time: "0.000", Properties: props,
			Cases: []junitCase{{Name: "incomplete", Classname: classname, Time: "0.000",
				Error: &junitProblem{Message: r.Incomplete, Type: "incomplete",
					Text: fmt.Sprintf("The check stopped after %d of %d cases: %s\n", len(r.Cases), r.Planned, r.Incomplete)}}}})
		doc.Tests++
		doc.Errors++
	}
	out, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		panic(err) // the document is built from strings and numbers only
	}
	return append([]byte(xml.Header), append(out, '\n')...)
}

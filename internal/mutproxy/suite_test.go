package mutproxy_test

// The end-to-end mutation suite: for every kind of mutation conformance.Mutations makes of
// the workload's answers, a mutproxy.Proxy in front of the embedded engine and the real
// `conform check` binary (built once, below) against it. A mutation that must fail makes the
// binary exit 1 with the mutation's class among the failures and the failing cases named in
// the JUnit; one that must pass (key order, whitespace, escapes, took, _shards) exits 0. One
// mutation of every class also goes through `conform run` (the cell's failures by class in
// results.json) and conformtest.Run (in a child process, where its subtests fail). A
// readiness probe that refused a faulty target, or hid a class, fails this suite.

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/conform-dev/conform/conformance"
	"github.com/conform-dev/conform/conformance/suite"
	"github.com/conform-dev/conform/conformance/target"
	"github.com/conform-dev/conform/conformtest"
	"github.com/conform-dev/conform/fixtures"
	"github.com/conform-dev/conform/internal/mutproxy"
)

var (
	bin     string // the conform binary, built once
	fxDir   string // the suite's fixtures: the default ones and two cases more
	backend string // the embedded engine holding the corpus
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	if os.Getenv(childEnv) != "" {
		// A conformtest child needs no binary: it runs one test against a proxy.
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "mutproxy-suite-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	bin = filepath.Join(dir, "conform")
	build := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", bin, "github.com/conform-dev/conform/cmd/conform")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building conform: %v\n%s", err, out)
		return 1
	}
	f, err := suiteFixtures()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fxDir = filepath.Join(dir, "fixtures")
	if err := writeFixtures(f, fxDir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	eng, err := suite.Engine(f)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	srv := httptest.NewServer(eng)
	defer srv.Close()
	backend = srv.URL
	return m.Run()
}

// suiteFixtures are the default fixtures with four cases the default workload lacks, so that
// every operator applies somewhere: a page whose sort field is not mapped (Elasticsearch
// answers 400, search_phase_execution_exception: the error operators), a page in relevance
// order (scores fail there), a terms aggregation on the float rating (keys widened from
// float32: float32-narrow) and a count with a query (the _count operators).
func suiteFixtures() (*fixtures.Fixtures, error) {
	f := *fixtures.Default()
	w := *f.Workload
	w.Cases = append(slices.Clone(w.Cases),
		fixtures.Case{Name: "page/900", Op: fixtures.OpPage, Method: "POST", Path: "/{index}/_search", Body: json.RawMessage(`{"size":3,"sort":[{"no_such_field":"asc"}]}`)},
		fixtures.Case{Name: "page/901", Op: fixtures.OpPage, Method: "POST", Path: "/{index}/_search", Body: json.RawMessage(`{"size":3,"query":{"term":{"brand":"Acme"}}}`)},
		fixtures.Case{Name: "terms/900", Op: fixtures.OpTerms, Method: "POST", Path: "/{index}/_search", Body: json.RawMessage(`{"size":0,"aggs":{"by_rating":{"terms":{"field":"rating","size":3}}}}`)},
		fixtures.Case{Name: "counts/900", Op: fixtures.OpCounts, Method: "POST", Path: "/{index}/_count", Body: json.RawMessage(`{"query":{"term":{"brand":"Acme"}}}`)},
	)
	f.Workload = &w
	return &f, nil
}

// writeFixtures writes mapping.json, corpus.ndjson and workload.json (fixtures.json is
// optional, and the workload is no longer the generator's).
func writeFixtures(f *fixtures.Fixtures, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	w, err := json.MarshalIndent(f.Workload, "", "  ")
	if err != nil {
		return err
	}
	for name, data := range map[string][]byte{fixtures.MappingFile: f.Mapping, fixtures.CorpusFile: f.Corpus, fixtures.WorkloadFile: w} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// kind is a mutation with the first operation whose answers it applies to, and how many of
// that operation's cases it applies to.
type kind struct {
	m       mutproxy.Mutation
	op      string
	applies int
	cases   int
}

// kinds lists every kind of mutation conformance.Mutations makes of the suite's expected
// answers, in a stable order: by operation (get, page, after, terms, counts), then operator
// and class.
func kinds(t *testing.T) []kind {
	t.Helper()
	f, err := fixtures.Load(fxDir)
	if err != nil {
		t.Fatal(err)
	}
	src, err := suite.OracleSource("embedded", target.Options{})
	if err != nil {
		t.Fatal(err)
	}
	x, err := suite.Expect(context.Background(), src, f, "true")
	if err != nil {
		t.Fatal(err)
	}
	byKind := map[mutproxy.Mutation]*kind{}
	casesOf := map[string]int{}
	for i, e := range x.Cases {
		op := f.Workload.Cases[i].Op
		casesOf[op]++
		ms, err := conformance.Mutations(e.Status, e.Body)
		if err != nil {
			t.Fatalf("%s: %v", f.Workload.Cases[i].Name, err)
		}
		seen := map[mutproxy.Mutation]bool{}
		for _, m := range ms {
			k := mutproxy.Of(m)
			if seen[k] {
				continue
			}
			seen[k] = true
			if byKind[k] == nil {
				byKind[k] = &kind{m: k, op: op}
			}
			if byKind[k].op == op {
				byKind[k].applies++
			}
		}
	}
	// The suite must keep reaching what the check's own mutation suite promises
	// (conformance.TestMutationSuite): a workload that lost them would prove less.
	for _, want := range []string{"float32-narrow (aggregations)", "change-score (score)", "change-error-type (error)", "change-count (totals)",
		"status-200 (status)", "flip-found (found)", "float32-widen (sort)", "int-to-float (sources)", "pretty (passes)", "reorder-keys (passes, reports key_order)"} {
		found := false
		for k := range byKind {
			found = found || k.String() == want
		}
		if !found {
			t.Errorf("no answer of the suite's workload takes the mutation %s", want)
		}
	}
	var out []kind
	for _, k := range byKind {
		k.cases = casesOf[k.op]
		out = append(out, *k)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.op != b.op {
			return slices.Index(fixtures.Ops, a.op) < slices.Index(fixtures.Ops, b.op)
		}
		return a.m.String() < b.m.String()
	})
	return out
}

// conform runs the binary and returns its exit code, stdout and stderr.
func conform(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("conform %s: no answer within 2m\n%s\n%s", strings.Join(args, " "), out.String(), errOut.String())
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("conform %s: %v", strings.Join(args, " "), err)
	}
	return code, out.String(), errOut.String()
}

// proxy serves a mutproxy in front of the backend until the test ends.
func proxy(t *testing.T, m mutproxy.Mutation, match func(method, path string, body []byte) bool) (*mutproxy.Proxy, string) {
	t.Helper()
	p := mutproxy.New(backend, m)
	p.Match = match
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	return p, srv.URL
}

// checkJSON is what the suite reads of check --json.
type checkJSON struct {
	Cases, Passed, Failed int
	FailuresByClass       map[string]int `json:"failures_by_class"`
	Failures              []struct{ Case, Class string }
	Findings              []struct{ Target, Kind, Summary string }
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// junitFailing lists the failing testcases of a JUnit file with their type (the classes).
func junitFailing(t *testing.T, path string) map[string]string {
	t.Helper()
	var doc struct {
		Suites []struct {
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Type string `xml:"type,attr"`
				} `xml:"failure"`
				Error *struct {
					Type string `xml:"type,attr"`
				} `xml:"error"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	out := map[string]string{}
	for _, s := range doc.Suites {
		for _, c := range s.Cases {
			switch {
			case c.Failure != nil:
				out[c.Name] = c.Failure.Type
			case c.Error != nil:
				out[c.Name] = c.Error.Type
			}
		}
	}
	return out
}

// row is one line of the suite's table.
type row struct {
	kind     kind
	command  string
	exit     int
	failed   int    // cases failing with the mutation's class
	first    string // the first of them
	findings string
}

// TestMutationsThroughTheBinary runs conform check against every kind of mutation, narrowed
// to the operation whose answers it first applies to, two at a time, and prints the table
// (go test -v -run TestMutationsThroughTheBinary ./internal/mutproxy).
func TestMutationsThroughTheBinary(t *testing.T) {
	ks := kinds(t)
	if len(ks) < 60 {
		t.Fatalf("only %d kinds of mutation apply to the suite's answers", len(ks))
	}
	var mu sync.Mutex
	var rows []row
	started := time.Now()
	t.Run("check", func(t *testing.T) {
		for _, k := range ks {
			t.Run(strings.ReplaceAll(k.op+"/"+k.m.String(), " ", "_"), func(t *testing.T) {
				t.Parallel()
				r := checkKind(t, k)
				mu.Lock()
				rows = append(rows, r)
				mu.Unlock()
			})
		}
	})
	sort.Slice(rows, func(i, j int) bool {
		a, b := rows[i].kind, rows[j].kind
		if a.op != b.op {
			return slices.Index(fixtures.Ops, a.op) < slices.Index(fixtures.Ops, b.op)
		}
		return a.m.String() < b.m.String()
	})
	var b strings.Builder
	fmt.Fprintf(&b, "%d kinds of mutation through conform check in %s:\n", len(rows), time.Since(started).Round(time.Second))
	fmt.Fprintf(&b, "%-48s %-7s %-9s %4s %-26s %s\n", "mutation (class it must fail with)", "op", "applies", "exit", "cases failing with it", "readiness findings")
	for _, r := range rows {
		cases := "-"
		if !r.kind.m.MustPass() {
			cases = fmt.Sprintf("%d (%s…)", r.failed, r.first)
		}
		fmt.Fprintf(&b, "%-48s %-7s %4d/%-4d %4d %-26s %s\n", r.kind.m, r.kind.op, r.kind.applies, r.kind.cases, r.exit, cases, r.findings)
	}
	fmt.Fprintf(&b, "command: %s\n", "conform check --fixtures FX --target mut=PROXY --ops OP --json J --junit X --no-progress")
	t.Log(b.String())
}

// checkKind runs check against one kind of mutation and says what it found.
func checkKind(t *testing.T, k kind) row {
	p, url := proxy(t, k.m, nil)
	dir := t.TempDir()
	js, junit := filepath.Join(dir, "check.json"), filepath.Join(dir, "junit.xml")
	args := []string{"check", "--fixtures", fxDir, "--target", "mut=" + url, "--ops", k.op, "--json", js, "--junit", junit, "--no-progress"}
	code, out, errOut := conform(t, args...)
	r := row{kind: k, command: strings.Join(args, " "), exit: code}
	if p.Altered() == 0 {
		t.Fatalf("the proxy altered no answer")
	}
	var c checkJSON
	readJSON(t, js, &c)
	var kinds []string
	for _, f := range c.Findings {
		kinds = append(kinds, f.Kind)
	}
	r.findings = strings.Join(kinds, ",")
	if k.m.MustPass() {
		if code != 0 || c.Failed != 0 || len(c.Findings) != 0 {
			t.Errorf("must pass: exit %d, %d failed, findings %v\n%s\n%s", code, c.Failed, c.Findings, out, errOut)
		}
		if rep := k.m.Reported; rep != "" && !strings.Contains(out, "Reported, not failing (cases by class): ") {
			t.Errorf("the summary does not report %s:\n%s", rep, out)
		}
		return r
	}
	class := string(k.m.Class)
	if code != 1 || c.FailuresByClass[class] == 0 {
		t.Errorf("exit %d, failures by class %v; want 1 and %s among them\n%s\n%s", code, c.FailuresByClass, class, out, errOut)
	}
	r.failed = c.FailuresByClass[class]
	failing := junitFailing(t, junit)
	named := 0
	for _, f := range c.Failures {
		if f.Class != class {
			continue
		}
		if r.first == "" {
			r.first = f.Case
		}
		if typ, ok := failing[f.Case]; ok && slices.Contains(strings.Split(typ, ","), class) {
			named++
		}
	}
	if named == 0 {
		t.Errorf("no JUnit testcase fails with %s (failing: %v)", class, failing)
	}
	return r
}

// getOnly alters only the answers to document reads: the six faults of a proxy's GET.
func getOnly(method, path string, _ []byte) bool {
	return method == http.MethodGet && strings.Contains(path, "/_doc/")
}

// The six faults of a proxy's GET that readiness used to refuse (exit 2, no case checked): a
// _source value changed, found flipped, a _source field added or dropped, 129 written as
// 129.0, 500 on every GET. Through the binary on the whole default workload, each is a
// sample finding, printed first, and the cases run: exit 1, the class counted, the get cases
// named in the JUnit, the other operations passing.
func TestGETFaultsThroughTheBinary(t *testing.T) {
	for _, tc := range []struct {
		why string
		m   mutproxy.Mutation
	}{
		{"changes one _source value", mutproxy.Mutation{Operator: "change-source-field", Class: conformance.ClassSources}},
		{"flips found", mutproxy.Mutation{Operator: "flip-found", Class: conformance.ClassFound}},
		{"adds a _source field", mutproxy.Mutation{Operator: "add-source-field", Class: conformance.ClassSources}},
		{"drops a _source field", mutproxy.Mutation{Operator: "drop-source-field", Class: conformance.ClassSources}},
		{"writes 129 as 129.0", mutproxy.Mutation{Operator: "int-to-float", Class: conformance.ClassSources}},
		{"answers 500", mutproxy.Mutation{Operator: "status-500", Class: conformance.ClassStatus}},
	} {
		t.Run(tc.why, func(t *testing.T) {
			t.Parallel()
			_, url := proxy(t, tc.m, getOnly)
			dir := t.TempDir()
			js, junit := filepath.Join(dir, "check.json"), filepath.Join(dir, "junit.xml")
			code, out, errOut := conform(t, "check", "--target", "mut="+url, "--json", js, "--junit", junit, "--no-progress")
			var c checkJSON
			readJSON(t, js, &c)
			class := string(tc.m.Class)
			if code != 1 || c.Cases != 448 || c.FailuresByClass[class] == 0 || len(c.Findings) != 1 || c.Findings[0].Kind != "sample" {
				t.Fatalf("exit %d, %d cases, failures by class %v, findings %+v\n%s\n%s", code, c.Cases, c.FailuresByClass, c.Findings, out, errOut)
			}
			if !strings.Contains(out, "READINESS FINDINGS (1; the cases ran; each finding fails the check):\n  mut: sample: ") || !strings.Contains(errOut, "mut: FINDING sample: ") {
				t.Errorf("the finding is not printed first:\n%s\n%s", out, errOut)
			}
			failing := junitFailing(t, junit)
			if typ := failing["readiness/sample"]; typ != "finding:sample" {
				t.Errorf("no failing readiness/sample testcase: %q", typ)
			}
			for name, typ := range failing {
				if !strings.HasPrefix(name, "get/") && !strings.HasPrefix(name, "readiness/") {
					t.Errorf("%s fails (%s): only the document reads are altered", name, typ)
				}
			}
			if typ := failing["get/000"]; !slices.Contains(strings.Split(typ, ","), class) {
				t.Errorf("get/000 fails with %q, want %s among its classes", typ, class)
			}
			t.Logf("%s: exit %d, %d of %d cases failed (%v), finding: %s", tc.why, code, c.Failed, c.Cases, c.FailuresByClass, c.Findings[0].Summary)
		})
	}
}

// perClass picks one kind of mutation of every failing class, and one that must pass.
func perClass(t *testing.T) []kind {
	var out []kind
	seen := map[conformance.Class]bool{}
	for _, k := range kinds(t) {
		if seen[k.m.Class] || k.m.MustPass() && k.m.Operator != "pretty" {
			continue
		}
		seen[k.m.Class] = true
		out = append(out, k)
	}
	return out
}

// One mutation of every class through conform run: the cell's failures by class in
// results.json hold the class (a passing one: exit 0, nothing failed).
func TestMutationsThroughRun(t *testing.T) {
	for _, k := range perClass(t) {
		t.Run(strings.ReplaceAll(k.op+"/"+k.m.String(), " ", "_"), func(t *testing.T) {
			t.Parallel()
			_, url := proxy(t, k.m, nil)
			out := t.TempDir()
			code, stdout, errOut := conform(t, "run", "--fixtures", fxDir, "--target", "mut="+url, "--ops", k.op, "--clients", "1",
				"--requests", fmt.Sprint(k.cases), "--trials", "1", "--warmup", "0", "--out", out, "--no-progress")
			var res struct {
				Cells []struct {
					Target, Op      string
					Failed          int
					FailuresByClass map[string]int `json:"failures_by_class"`
				}
			}
			readJSON(t, filepath.Join(out, "results.json"), &res)
			if len(res.Cells) != 1 {
				t.Fatalf("exit %d, %d cells\n%s\n%s", code, len(res.Cells), stdout, errOut)
			}
			c := res.Cells[0]
			if k.m.MustPass() {
				if code != 0 || c.Failed != 0 {
					t.Errorf("must pass: exit %d, cell %+v\n%s", code, c, errOut)
				}
				return
			}
			if code != 1 || c.FailuresByClass[string(k.m.Class)] == 0 {
				t.Errorf("exit %d, cell %s %s failures by class %v; want 1 and %s\n%s\n%s", code, c.Target, c.Op, c.FailuresByClass, k.m.Class, stdout, errOut)
			}
		})
	}
}

// childEnv carries a conformtest child's mutation: "operator,class,reported,op,backend,fixtures".
const childEnv = "MUTPROXY_CONFORMTEST_CHILD"

// TestConformtestChild is conformtest.Run against a mutating proxy; it runs only in the child
// process TestMutationsThroughConformtest starts, where a failing mutation must fail it.
func TestConformtestChild(t *testing.T) {
	spec := os.Getenv(childEnv)
	if spec == "" {
		t.Skip("runs in TestMutationsThroughConformtest's child process")
	}
	f := strings.Split(spec, ",")
	m := mutproxy.Mutation{Operator: f[0], Class: conformance.Class(f[1]), Reported: conformance.Class(f[2])}
	srv := httptest.NewServer(mutproxy.New(f[4], m))
	defer srv.Close()
	conformtest.Run(t, srv.URL, conformtest.Fixtures(f[5]), conformtest.Ops(f[3]))
}

// One mutation of every class through conformtest.Run, the library: the test fails, naming
// failing cases as subtests with the class; a passing mutation passes.
func TestMutationsThroughConformtest(t *testing.T) {
	for _, k := range perClass(t) {
		t.Run(strings.ReplaceAll(k.op+"/"+k.m.String(), " ", "_"), func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(os.Args[0], "-test.run=^TestConformtestChild$", "-test.v", "-test.count=1")
			cmd.Env = append(os.Environ(), childEnv+"="+strings.Join([]string{k.m.Operator, string(k.m.Class), string(k.m.Reported), k.op, backend, fxDir}, ","))
			out, err := cmd.CombinedOutput()
			text := string(out)
			if k.m.MustPass() {
				if err != nil {
					t.Errorf("must pass, but the test failed:\n%s", tail(text))
				}
				return
			}
			if err == nil {
				t.Fatalf("the test passed:\n%s", tail(text))
			}
			if !strings.Contains(text, "--- FAIL: TestConformtestChild/"+k.op+"/") || !strings.Contains(text, "["+string(k.m.Class)) {
				t.Errorf("no failing %s subtest with [%s]:\n%s", k.op, k.m.Class, tail(text))
			}
		})
	}
}

func tail(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > 30 {
		lines = lines[len(lines)-30:]
	}
	return strings.Join(lines, "\n")
}

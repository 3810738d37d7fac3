package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/conform-dev/conform/fixtures"
	"github.com/conform-dev/conform/load/loadtest"
)

// breakage is one deliberate way the wrong target answers one case of the default workload.
type breakage struct {
	what string
	// classes are the failing classes the check must report for the case, in the stable
	// order of conformance.Classes.
	classes []string
	// edit rewrites the engine's answer; nil with hangup.
	edit   func(t *testing.T, status int, body []byte) (int, []byte)
	hangup bool
}

// replaceOnce replaces the first match of re in body, failing the test when there is none:
// a breakage that breaks nothing would make the test pass for the wrong reason.
func replaceOnce(t *testing.T, body []byte, re, repl string) []byte {
	t.Helper()
	rx := regexp.MustCompile(re)
	loc := rx.FindSubmatchIndex(body)
	if loc == nil {
		t.Errorf("breakage: %s not found in %.200s", re, body)
		return body
	}
	out := rx.Expand(nil, []byte(repl), body, loc)
	return slices.Concat(body[:loc[0]], out, body[loc[1]:])
}

// The wrong answers of brokenServer, by case. Each is what a faulty gateway might do.
var breakages = map[string]breakage{
	"get/001": {what: "a source integer becomes a float (58000 → 58000.0)", classes: []string{"sources"},
		edit: func(t *testing.T, s int, b []byte) (int, []byte) {
			return s, replaceOnce(t, b, `"views":(\d+),`, `"views":${1}.0,`)
		}},
	"get/002": {what: "found flipped to false", classes: []string{"found"},
		edit: func(t *testing.T, s int, b []byte) (int, []byte) {
			return s, replaceOnce(t, b, `"found":true`, `"found":false`)
		}},
	"get/003": {what: "the connection closed without an answer", classes: []string{"transport"}, hangup: true},
	"page/000": {what: "the last hit dropped", classes: []string{"ids"},
		edit: func(t *testing.T, s int, b []byte) (int, []byte) {
			i, j := bytes.LastIndex(b, []byte(`,{"_index":`)), bytes.LastIndex(b, []byte(`]}}`))
			if i < 0 || j < i {
				t.Errorf("page/000 has no hits to drop: %.200s", b)
				return s, b
			}
			return s, slices.Concat(b[:i], b[j:])
		}},
	"page/002": {what: "the first sort value printed as an integer", classes: []string{"sort"},
		edit: func(t *testing.T, s int, b []byte) (int, []byte) {
			return s, replaceOnce(t, b, `"sort":\[(-?\d+)\.0,`, `"sort":[$1,`)
		}},
	// An error where a result was expected is another kind of response: it fails as status
	// and error only, not also as ids and aggregations for the hits and buckets it lacks.
	"terms/000": {what: "HTTP 500 with an error envelope", classes: []string{"status", "error"},
		edit: func(t *testing.T, s int, b []byte) (int, []byte) {
			return 500, []byte(`{"error":{"root_cause":[{"type":"null_pointer_exception","reason":"boom"}],"type":"null_pointer_exception","reason":"boom"},"status":500}`)
		}},
	"terms/001": {what: "the first two buckets swapped", classes: []string{"aggregations"},
		edit: func(t *testing.T, s int, b []byte) (int, []byte) {
			return s, replaceOnce(t, b, `"buckets":\[(\{[^{}]*\}),(\{[^{}]*\})`, `"buckets":[$2,$1`)
		}},
	"counts/000": {what: "hits.total.relation says gte", classes: []string{"totals"},
		edit: func(t *testing.T, s int, b []byte) (int, []byte) {
			return s, replaceOnce(t, b, `"relation":"eq"`, `"relation":"gte"`)
		}},
	"counts/001": {what: "an HTML error page with status 200", classes: []string{"decode"},
		edit: func(t *testing.T, s int, b []byte) (int, []byte) {
			return s, []byte("<html><body><h1>502 Bad Gateway</h1></body></html>\n")
		}},
}

// brokenServer serves the embedded engine loaded with the default fixtures, answering the
// cases in breaks wrongly. Requests are recognised by method, path and body, as the check
// sends them (track_total_hits true, the workload's index); after cases are never broken,
// since their bodies carry a cursor.
type brokenServer struct {
	t      *testing.T
	next   http.Handler
	breaks map[string]breakage // by request key
	mu     sync.Mutex
	auth   []string // the Authorization headers received
}

func requestKey(method, path string, body []byte) string {
	return method + " " + path + "\n" + string(body)
}

func newBrokenServer(t *testing.T, breaks map[string]breakage) *brokenServer {
	t.Helper()
	f := fixtures.Default()
	s := &brokenServer{t: t, next: loadedEngine(t), breaks: map[string]breakage{}}
	for name, b := range breaks {
		c := f.Workload.Case(name)
		if c == nil || c.After != "" {
			t.Fatalf("cannot break %s", name)
		}
		req, err := c.Request(f.Workload.Index, "true", nil)
		if err != nil {
			t.Fatal(err)
		}
		s.breaks[requestKey(req.Method, req.Path, req.Body)] = b
	}
	return s
}

func (s *brokenServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	s.mu.Lock()
	s.auth = append(s.auth, r.Header.Get("Authorization"))
	s.mu.Unlock()
	b, ok := s.breaks[requestKey(r.Method, r.URL.RequestURI(), body)]
	if !ok {
		s.next.ServeHTTP(w, r)
		return
	}
	if b.hangup {
		if c, _, err := w.(http.Hijacker).Hijack(); err == nil {
			c.Close()
		}
		return
	}
	rec := httptest.NewRecorder()
	s.next.ServeHTTP(rec, r)
	status, out := b.edit(s.t, rec.Code, rec.Body.Bytes())
	if bytes.Equal(out, rec.Body.Bytes()) && status == rec.Code {
		s.t.Errorf("breakage %q changed nothing", b.what)
	}
	w.Header().Set("Content-Type", rec.Header().Get("Content-Type"))
	w.WriteHeader(status)
	w.Write(out)
}

func (s *brokenServer) authHeaders() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.auth)
}

// portRE matches a loopback URL's port, the only part of check's output that varies.
var portRE = regexp.MustCompile(`127\.0\.0\.1:\d+`)

func stablePorts(s string) string { return portRE.ReplaceAllString(s, "127.0.0.1:PORT") }

// The embedded default passes every case of the default workload.
func TestCheckEmbeddedDefault(t *testing.T) {
	dir := t.TempDir()
	jsonPath, junitPath := filepath.Join(dir, "check.json"), filepath.Join(dir, "junit.xml")
	code, out, errOut := runCLI(t, nil, "check", "--json", jsonPath, "--junit", junitPath)
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	golden(t, "check-embedded.txt", stablePorts(out))
	r := readCheckJSON(t, jsonPath)
	if r.Cases != 448 || r.Passed != 448 || r.Failed != 0 || len(r.Failures) != 0 || len(r.FailuresByClass) != 0 {
		t.Errorf("JSON: %d cases, %d passed, %d failed, %v", r.Cases, r.Passed, r.Failed, r.FailuresByClass)
	}
	j := readJUnit(t, junitPath)
	if j.Tests != 448 || j.Failures != 0 || j.Errors != 0 || len(j.cases()) != 448 {
		t.Errorf("JUnit: %d tests, %d failures, %d errors, %d testcases", j.Tests, j.Failures, j.Errors, len(j.cases()))
	}
}

type checkReport struct {
	Complete        bool           `json:"complete"`
	Incomplete      string         `json:"incomplete"`
	Planned         int            `json:"planned"`
	Cases           int            `json:"cases"`
	Passed          int            `json:"passed"`
	Failed          int            `json:"failed"`
	FailuresByClass map[string]int `json:"failures_by_class"`
	ByOperation     []struct {
		Op                    string
		Cases, Passed, Failed int
		FailuresByClass       map[string]int `json:"failures_by_class"`
	} `json:"by_operation"`
	Failures []struct {
		Case, Class, Path, Want, Got string
	} `json:"failures"`
	Findings []struct {
		Target, Kind, Summary string
		Details               []string
	} `json:"findings"`
}

func readCheckJSON(t *testing.T, path string) *checkReport {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r checkReport
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&r); err != nil {
		t.Fatalf("--json output does not parse: %v\n%s", err, data)
	}
	return &r
}

// junitDoc is what the test reads back of the JUnit file, independently of check.go's types.
type junitDoc struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Errors   int      `xml:"errors,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Errors   int    `xml:"errors,attr"`
		Cases    []struct {
			Name      string `xml:"name,attr"`
			Classname string `xml:"classname,attr"`
			Failure   *struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			Error *struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
				Text    string `xml:",chardata"`
			} `xml:"error"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

type junitCaseRead struct {
	name, kind, message, typ, text string
}

func (j *junitDoc) cases() []junitCaseRead {
	var out []junitCaseRead
	for _, s := range j.Suites {
		for _, c := range s.Cases {
			r := junitCaseRead{name: c.Name}
			switch {
			case c.Failure != nil && c.Error != nil:
				r.kind = "both"
			case c.Failure != nil:
				r.kind, r.message, r.typ, r.text = "failure", c.Failure.Message, c.Failure.Type, c.Failure.Text
			case c.Error != nil:
				r.kind, r.message, r.typ, r.text = "error", c.Error.Message, c.Error.Type, c.Error.Text
			}
			out = append(out, r)
		}
	}
	return out
}

func readJUnit(t *testing.T, path string) *junitDoc {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var j junitDoc
	if err := xml.Unmarshal(data, &j); err != nil {
		t.Fatalf("JUnit output does not parse: %v", err)
	}
	return &j
}

// brokenTarget starts the wrong target of breakages on loopback.
func brokenTarget(t *testing.T) (*brokenServer, *httptest.Server) {
	t.Helper()
	s := newBrokenServer(t, breakages)
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return s, srv
}

// A target that answers wrongly in several ways: exit 1, and the summary, the JSON and the
// JUnit report name exactly the broken cases with exactly their classes.
func TestCheckBrokenTarget(t *testing.T) {
	_, srv := brokenTarget(t)
	dir := t.TempDir()
	jsonPath, junitPath := filepath.Join(dir, "check.json"), filepath.Join(dir, "junit.xml")
	code, out, errOut := runCLI(t, nil, "check", "--target", "gw="+srv.URL, "--json", jsonPath, "--junit", junitPath)
	if code != exitFail {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	golden(t, "check-broken.txt", stablePorts(out))
	// The embedded engine behind the broken server serves GET _mapping: the variant is named.
	if want := "gw: index catalogue: mapping: the designed mapping, as the fixtures\nconform: 9 of 448 cases failed the strict check\n"; errOut != want {
		t.Errorf("stderr %q, want %q", errOut, want)
	}

	// JSON: every broken case, each with exactly its classes, and nothing else.
	r := readCheckJSON(t, jsonPath)
	if r.Cases != 448 || r.Failed != len(breakages) || r.Passed != 448-len(breakages) {
		t.Errorf("JSON counts: %d cases, %d passed, %d failed", r.Cases, r.Passed, r.Failed)
	}
	gotClasses := map[string][]string{}
	for _, f := range r.Failures {
		if !slices.Contains(gotClasses[f.Case], f.Class) {
			gotClasses[f.Case] = append(gotClasses[f.Case], f.Class)
		}
		if f.Want == "" || f.Got == "" {
			t.Errorf("failure record without want or got: %+v", f)
		}
	}
	wantByClass := map[string]int{}
	for name, b := range breakages {
		got := slices.Clone(gotClasses[name])
		slices.Sort(got)
		want := slices.Sorted(slices.Values(b.classes))
		if !slices.Equal(got, want) {
			t.Errorf("%s (%s): classes %v, want %v", name, b.what, got, want)
		}
		for _, c := range b.classes {
			wantByClass[c]++
		}
	}
	for name := range gotClasses {
		if _, ok := breakages[name]; !ok {
			t.Errorf("%s fails but was not broken: %v", name, gotClasses[name])
		}
	}
	if !maps.Equal(r.FailuresByClass, wantByClass) {
		t.Errorf("failures_by_class %v, want %v", r.FailuresByClass, wantByClass)
	}
	// By operation: the summary's rows, adding up to the totals.
	wantOp := map[string]map[string]int{}
	for name, b := range breakages {
		op := strings.Split(name, "/")[0]
		if wantOp[op] == nil {
			wantOp[op] = map[string]int{}
		}
		for _, c := range b.classes {
			wantOp[op][c]++
		}
	}
	opCases, opFailed := 0, 0
	for _, row := range r.ByOperation {
		opCases, opFailed = opCases+row.Cases, opFailed+row.Failed
		if row.Passed+row.Failed != row.Cases || !maps.Equal(row.FailuresByClass, wantOp[row.Op]) && len(row.FailuresByClass)+len(wantOp[row.Op]) > 0 {
			t.Errorf("by_operation %s: %d cases, %d passed, %d failed, %v; want failures %v", row.Op, row.Cases, row.Passed, row.Failed, row.FailuresByClass, wantOp[row.Op])
		}
	}
	if len(r.ByOperation) != 5 || r.ByOperation[0].Op != "get" || opCases != r.Cases || opFailed != r.Failed {
		t.Errorf("by_operation %+v: %d cases, %d failed; want the 5 operations adding up to %d and %d", r.ByOperation, opCases, opFailed, r.Cases, r.Failed)
	}
	// Paths and values of the plain breakages, as a user reads them.
	for _, want := range []struct{ c, class, path, want, got string }{
		{"get/001", "sources", "_source.views", "58000", "58000.0"},
		{"get/002", "found", "found", "true", "false"},
		{"page/000", "ids", "hits.hits", "<20 elements>", "<19 elements>"},
		{"counts/000", "totals", "hits.total.relation", `"eq"`, `"gte"`},
		{"terms/000", "status", "", "200", "500"},
	} {
		found := false
		for _, f := range r.Failures {
			found = found || f.Case == want.c && f.Class == want.class && f.Path == want.path && f.Want == want.want && f.Got == want.got
		}
		if !found {
			t.Errorf("no failure record %+v", want)
		}
	}

	// JUnit: one testcase per case in workload order; a failure or an error on exactly the
	// broken cases, typed with their classes.
	j := readJUnit(t, junitPath)
	cases := j.cases()
	f := fixtures.Default()
	if len(cases) != len(f.Workload.Cases) || j.Tests != len(cases) {
		t.Fatalf("JUnit has %d testcases (tests=%d), the workload %d cases", len(cases), j.Tests, len(f.Workload.Cases))
	}
	failures, errors := 0, 0
	for i, c := range cases {
		if c.name != f.Workload.Cases[i].Name {
			t.Fatalf("testcase %d is %s, want %s", i, c.name, f.Workload.Cases[i].Name)
		}
		b, broken := breakages[c.name]
		switch {
		case !broken && c.kind != "":
			t.Errorf("%s passed the check but has a JUnit %s", c.name, c.kind)
		case !broken:
		case b.hangup && c.kind != "error", !b.hangup && c.kind != "failure":
			t.Errorf("%s (%s): JUnit %q, want %s", c.name, b.what, c.kind, map[bool]string{true: "error", false: "failure"}[b.hangup])
		default:
			if c.typ != strings.Join(b.classes, ",") || c.message != strings.Join(b.classes, ", ") {
				t.Errorf("%s: type %q and message %q, want the classes %v", c.name, c.typ, c.message, b.classes)
			}
			for _, want := range []string{"Request: ", "Reproduce: curl -sS", "Explain:   conform explain " + c.name + " --target gw=" + srv.URL} {
				if !strings.Contains(c.text, want) {
					t.Errorf("%s: JUnit text lacks %q:\n%s", c.name, want, c.text)
				}
			}
			if b.hangup {
				failures--
				errors++
			}
			failures++
		}
	}
	if j.Failures != failures || j.Errors != errors || failures+errors != len(breakages) {
		t.Errorf("JUnit failures=%d errors=%d, counted %d and %d", j.Failures, j.Errors, failures, errors)
	}
	for _, c := range cases {
		if c.name == "get/001" && !strings.Contains(c.text, "_source.views: want 58000, got 58000.0 (same value; integer vs float)") {
			t.Errorf("get/001's JUnit text does not render the difference:\n%s", c.text)
		}
	}

	// -v renders every failing case's differences under its line.
	code, verbose, _ := runCLI(t, nil, "check", "--target", "gw="+srv.URL, "-v")
	if code != exitFail {
		t.Fatalf("-v: exit %d", code)
	}
	for _, want := range []string{
		"      aggregations.by_category.buckets[1].key: want \"auto\", got \"audio\"",
		"      ids: fails",
		"      error: fails",
		"      _source.views: want 58000, got 58000.0 (same value; integer vs float)",
	} {
		if !strings.Contains(verbose, want) {
			t.Errorf("-v output lacks %q:\n%s", want, verbose)
		}
	}
}

// Without -v the summary lists 20 failing cases and says how many more; -v lists them all.
func TestCheckListsTwentyWithoutVerbose(t *testing.T) {
	srv := httptest.NewServer(&corrupting{next: loadedEngine(t), every: 1})
	defer srv.Close()
	code, out, _ := runCLI(t, nil, "check", "--target", "gw="+srv.URL, "--ops", "page,terms")
	if code != exitFail {
		t.Fatalf("exit %d", code)
	}
	if n := strings.Count(out, "[totals] hits.total.relation: want \"eq\", got \"gte\""); n != 20 {
		t.Errorf("%d failing cases listed without -v, want 20:\n%s", n, out)
	}
	if !strings.Contains(out, "96 failing cases:") || !strings.Contains(out, "  … and 76 more (-v lists them all)") {
		t.Errorf("the summary does not say how many are not listed:\n%s", out)
	}
	_, out, _ = runCLI(t, nil, "check", "--target", "gw="+srv.URL, "--ops", "page,terms", "-v")
	if n := strings.Count(out, "[totals] hits.total.relation: want \"eq\", got \"gte\""); n != 96 {
		t.Errorf("%d failing cases listed with -v, want 96", n)
	}
	if strings.Contains(out, "more (-v lists them all)") {
		t.Error("-v still elides cases")
	}
}

// A target that cannot be reached, or answers nothing, is an infrastructure error (exit 2),
// not a verdict.
func TestCheckUnreachableTarget(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	code, out, errOut := runCLI(t, nil, "check", "--target", "gw=http://alice:pw-unreachable-s3cret@"+addr)
	if code != exitUsage || !strings.Contains(errOut, "target gw is not ready: ") || !strings.Contains(errOut, "connection refused") {
		t.Errorf("closed port: exit %d, stderr %q", code, errOut)
	}
	if strings.Contains(out+errOut, "s3cret") {
		t.Errorf("the password appears in the output: %s %s", out, errOut)
	}

	// Accepts connections, answers none: readiness fails, and the JSON says why.
	hangup := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c, _, err := w.(http.Hijacker).Hijack(); err == nil {
			c.Close()
		}
	}))
	defer hangup.Close()
	jsonPath := filepath.Join(t.TempDir(), "check.json")
	code, _, errOut = runCLI(t, nil, "check", "--target", "gw="+hangup.URL, "--ops", "counts", "--json", jsonPath)
	if code != exitUsage || !strings.Contains(errOut, "target gw is not ready: GET /: EOF; none of the 32 cases was checked") {
		t.Errorf("hang-up server: exit %d, stderr %q", code, errOut)
	}
	if r := readCheckJSON(t, jsonPath); r.Complete || r.Planned != 32 || r.Cases != 0 || !strings.Contains(r.Incomplete, "is not ready") {
		t.Errorf("the JSON of a target that answers nothing: %+v", r)
	}
}

func TestCheckUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"check", "extra"}, "check takes no arguments"},
		{[]string{"check", "--target", "a=http://127.0.0.1:1", "--target", "b=http://127.0.0.1:2"}, "check takes one --target"},
		{[]string{"check", "--ops", "mget"}, `--ops: the workload has no "mget" cases (its operations: get, page, after, terms, counts)`},
		{[]string{"check", "--relax", "everything"}, `unknown relaxation "everything"`},
		{[]string{"check", "--track-total-hits", "maybe"}, "--track-total-hits"},
		{[]string{"check", "--user", "alice"}, "--user alice needs a password in $CONFORM_PASSWORD"},
		{[]string{"check", "--oracle", "mystery"}, "--oracle"},
	}
	for _, tc := range tests {
		code, _, errOut := runCLI(t, nil, tc.args...)
		if code != exitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
}

// --relax is read by conformance.ParseRelaxations, the CLI's only parser of it: an empty name
// between commas is skipped, not an unknown relaxation "".
func TestRelaxList(t *testing.T) {
	for _, tc := range []struct {
		reason, relax string
		want          string // the options' description, or the error's text
	}{
		{"no relaxation", "", "strict"},
		{"only commas", ",", "strict"},
		{"an empty name between known ones", "float32-equal,,ignore-number-kind", "strict, relaxed: ignore-number-kind, float32-equal"},
		{"spaces around a name", " ignore-totals-relation ", "strict, relaxed: ignore-totals-relation"},
		{"unknown names around an empty one: the first unknown is named", "a,,b", `--relax: unknown relaxation "a" (known: `},
	} {
		cf := checkFlags{relax: tc.relax}
		o, err := cf.options()
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			got = o.String()
		}
		if !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s: --relax %q gives %q, want %q", tc.reason, tc.relax, got, tc.want)
		}
	}
	// The same through the command line: check runs and its header names the relaxations.
	code, out, errOut := runCLI(t, nil, "check", "--ops", "get", "--relax", "float32-equal,,ignore-number-kind")
	if code != exitOK || !strings.Contains(out, "strict, relaxed: ignore-number-kind, float32-equal") {
		t.Errorf("check --relax float32-equal,,ignore-number-kind: exit %d\n%s\n%s", code, out, errOut)
	}
	if code, _, errOut := runCLI(t, nil, "check", "--relax", "a,,b"); code != exitUsage || !strings.Contains(errOut, `unknown relaxation "a"`) {
		t.Errorf("check --relax a,,b: exit %d, stderr %q; want 2 and the unknown relaxation \"a\"", code, errOut)
	}
}

// Credentials given in the URL, with --user and $CONFORM_PASSWORD, or in $CONFORM_API_KEY
// reach the server and appear nowhere in check's or explain's output, JSON or JUnit.
func TestCheckAndExplainNeverShowCredentials(t *testing.T) {
	s := newBrokenServer(t, map[string]breakage{"counts/000": breakages["counts/000"]})
	srv := httptest.NewServer(s)
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	basic := func(user, pw string) string {
		return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pw))
	}
	tests := []struct {
		name     string
		env      map[string]string
		args     []string
		secrets  []string
		header   string
		curlAuth string
		explain  string
	}{
		{"url", nil, []string{"--target", "gw=http://alice:pw-in-url-s3cret@" + host},
			[]string{"pw-in-url-s3cret"}, basic("alice", "pw-in-url-s3cret"), `-u "$CONFORM_USER:$CONFORM_PASSWORD"`, "--target gw=" + srv.URL + " --user alice\n"},
		{"user-and-env", map[string]string{"CONFORM_PASSWORD": "pw-in-env-s3cret"}, []string{"--target", "gw=" + srv.URL, "--user", "bob"},
			[]string{"pw-in-env-s3cret"}, basic("bob", "pw-in-env-s3cret"), `-u "$CONFORM_USER:$CONFORM_PASSWORD"`, "--target gw=" + srv.URL + " --user bob\n"},
		{"api-key", map[string]string{"CONFORM_API_KEY": "a2V5aWQ6YXBpa2V5-s3cret"}, []string{"--target", "gw=" + srv.URL},
			[]string{"a2V5aWQ6YXBpa2V5-s3cret"}, "ApiKey a2V5aWQ6YXBpa2V5-s3cret", `-H "Authorization: ApiKey $CONFORM_API_KEY"`, "--target gw=" + srv.URL + "\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			secrets := append(slices.Clone(tc.secrets), strings.TrimPrefix(strings.TrimPrefix(tc.header, "Basic "), "ApiKey "))
			dir := t.TempDir()
			jsonPath, junitPath := filepath.Join(dir, "check.json"), filepath.Join(dir, "junit.xml")
			before := len(s.authHeaders())
			code, out, errOut := runCLI(t, tc.env, append([]string{"check", "--ops", "counts", "-v", "--json", jsonPath, "--junit", junitPath}, tc.args...)...)
			if code != exitFail {
				t.Fatalf("exit %d, want 1 (counts/000 is broken)\n%s\n%s", code, out, errOut)
			}
			got := s.authHeaders()[before:]
			if len(got) <= 32 {
				t.Errorf("the server got %d requests, want the readiness probe's and the 32 cases'", len(got))
			}
			for _, h := range got {
				if h != tc.header {
					t.Fatalf("the server got Authorization %q, want %q", h, tc.header)
				}
			}
			jsonData, _ := os.ReadFile(jsonPath)
			junitData, _ := os.ReadFile(junitPath)
			code, explain, explainErr := runCLI(t, tc.env, append([]string{"explain", "counts/000"}, tc.args...)...)
			if code != exitFail {
				t.Errorf("explain: exit %d, want 1\n%s", code, explainErr)
			}
			if !strings.Contains(explain, tc.curlAuth) {
				t.Errorf("explain's curl does not read the credentials from the environment (%s):\n%s", tc.curlAuth, explain)
			}
			if !strings.Contains(out, "To see one whole: conform explain counts/000 "+tc.explain) {
				t.Errorf("check's explain command lacks %q:\n%s", tc.explain, out)
			}
			for name, text := range map[string]string{"check stdout": out, "check stderr": errOut, "JSON": string(jsonData),
				"JUnit": string(junitData), "explain stdout": explain, "explain stderr": explainErr} {
				for _, sec := range secrets {
					if strings.Contains(text, sec) {
						t.Errorf("%s contains the secret %q:\n%s", name, sec, text)
					}
				}
			}
		})
	}
}

// Ctrl-C during a check interrupts the exchange in flight rather than waiting for the target.
func TestCheckInterrupted(t *testing.T) {
	release := make(chan struct{})
	arrived := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/_mapping") {
			http.NotFound(w, r) // not compared; the cases come next
			return
		}
		select {
		case arrived <- struct{}{}:
		default:
		}
		<-release
	}))
	defer srv.Close()
	defer close(release)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-arrived
		cancel()
	}()
	var stdout, stderr bytes.Buffer
	e := &env{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
	code := conform(ctx, e, []string{"check", "--target", "gw=" + srv.URL, "--ops", "counts", "--timeout", "1m"})
	if code != exitUsage || !strings.Contains(stderr.String(), "interrupted while asking whether target gw is ready; none of the 32 cases was checked") {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
}

// Ctrl-C during readiness (the first request is GET /, then the mapping) says so, not
// "context canceled".
func TestCheckInterruptedReadingTheMapping(t *testing.T) {
	release := make(chan struct{})
	arrived := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case arrived <- struct{}{}:
		default:
		}
		<-release
	}))
	defer srv.Close()
	defer close(release)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-arrived
		cancel()
	}()
	var stdout, stderr bytes.Buffer
	e := &env{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
	code := conform(ctx, e, []string{"check", "--target", "gw=" + srv.URL, "--ops", "counts", "--timeout", "1m"})
	if code != exitUsage || stderr.String() != "conform: interrupted while asking whether target gw is ready; none of the 32 cases was checked\n" {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
}

// A target whose index holds the price-double variant is checked against the designed
// fixtures: the mapping is a finding (the JSON's findings, a failing JUnit testcase of its
// own, readiness/mapping, first), and every case is sent. With --require-ready it is refused
// before any case, naming the variant and the field, exit 2. An index without the corpus's
// count is refused either way.
func TestCheckAnotherMappingVariantIsAFinding(t *testing.T) {
	f := fixtures.Default()
	docs := map[string]string{}
	for _, d := range f.Docs {
		docs[d.ID] = string(d.Source)
	}
	es := loadtest.NewFakeES()
	es.AddIndex("catalogue", docs)
	pd, err := fixtures.VariantMapping(fixtures.VariantPriceDouble)
	if err != nil {
		t.Fatal(err)
	}
	es.SetMapping("catalogue", string(pd))
	srv := httptest.NewServer(es)
	defer srv.Close()
	dir := t.TempDir()
	js, junit := filepath.Join(dir, "check.json"), filepath.Join(dir, "junit.xml")
	const why = "mapping differs from the fixtures': the index holds the price-double mapping, the fixtures are the designed mapping: price is double where the fixtures map scaled_float(100)"
	code, out, errOut := runCLI(t, nil, "check", "--target", "es="+srv.URL, "--ops", "counts", "--json", js, "--junit", junit)
	if code != exitFail || !strings.HasPrefix(errOut, "es: FINDING "+why+"\n") || !strings.Contains(out, "READINESS FINDINGS (1; the cases ran; each finding fails the check):\n  es: "+why+"\n") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if n := es.RequestCount("POST /catalogue/_search"); n != 32 {
		t.Errorf("check sent %d searches, want the 32 counts cases", n)
	}
	if r := readCheckJSON(t, js); len(r.Findings) != 1 || r.Findings[0].Target != "es" || r.Findings[0].Summary != why || r.Cases != 32 {
		t.Errorf("JSON: findings %+v, %d cases", r.Findings, r.Cases)
	}
	j := readJUnit(t, junit)
	if first := j.cases()[0]; first.name != "readiness/mapping" || first.kind != "failure" || first.message != why || first.typ != "finding:mapping" ||
		!strings.Contains(first.text, "price is double where the fixtures map scaled_float(100)") || j.Tests != 33 {
		t.Errorf("JUnit: %d tests, the first %+v", j.Tests, first)
	}

	code, out, errOut = runCLI(t, nil, "check", "--target", "es="+srv.URL, "--require-ready")
	if want := "es: FINDING " + why + "\nconform: target es is not ready: 1 finding refused at readiness (--require-ready): " + why + "; none of the 448 cases was checked\n"; code != exitUsage || errOut != want || out != "" {
		t.Errorf("--require-ready: exit %d, stdout %q, stderr %q; want 2, nothing and %q", code, out, errOut, want)
	}
	if n := es.RequestCount("POST /catalogue/_search"); n != 32 {
		t.Errorf("--require-ready sent %d more searches to a target it refused", n-32)
	}

	empty := loadtest.NewFakeES()
	empty.AddIndex("catalogue", nil)
	empty.SetMapping("catalogue", string(f.Mapping))
	esrv := httptest.NewServer(empty)
	defer esrv.Close()
	code, _, errOut = runCLI(t, nil, "check", "--target", "es="+esrv.URL)
	if code != exitUsage || !strings.Contains(errOut, "conform: target es is not ready: the corpus on es is not the fixtures' corpus: index catalogue holds 0 documents, the corpus 10000; none of the 448 cases was checked") {
		t.Errorf("an empty index: exit %d, stderr %q", code, errOut)
	}
}

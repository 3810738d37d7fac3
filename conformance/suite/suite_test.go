package suite_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/conform-dev/conform/conformance"
	"github.com/conform-dev/conform/conformance/suite"
	"github.com/conform-dev/conform/conformance/target"
	"github.com/conform-dev/conform/fixtures"
	"github.com/conform-dev/conform/oracle"
)

// small is a workload small enough to check many times: 300 documents, 14 cases.
var small = sync.OnceValues(func() (*fixtures.Fixtures, error) {
	o := fixtures.DefaultOptions
	o.Documents = 300
	o.Cases = fixtures.CaseCounts{Get: 4, Page: 3, After: 3, Terms: 2, Counts: 2}
	return fixtures.Generate(o)
})

func smallFixtures(t *testing.T) *fixtures.Fixtures {
	t.Helper()
	f, err := small()
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// fault rewrites the answer to one case's request, as a broken gateway would.
type fault func(w http.ResponseWriter, status int, body []byte)

// faulty serves the embedded engine, with f applied to the answers of requests whose path
// and body contain match.
func faulty(t *testing.T, fx *fixtures.Fixtures, match func(r *http.Request, body []byte) bool, f fault) *httptest.Server {
	t.Helper()
	eng, err := suite.Engine(fx)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if f == nil || !match(r, body) {
			r.Body = io.NopCloser(bytes.NewReader(body))
			eng.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		r.Body = io.NopCloser(bytes.NewReader(body))
		eng.ServeHTTP(rec, r)
		f(w, rec.Code, rec.Body.Bytes())
	}))
	t.Cleanup(srv.Close)
	return srv
}

// expect computes the embedded oracle's expectations of fx.
func expect(t *testing.T, fx *fixtures.Fixtures) *oracle.Expectations {
	t.Helper()
	src, err := suite.OracleSource("embedded", target.Options{})
	if err != nil {
		t.Fatal(err)
	}
	x, err := suite.Expect(context.Background(), src, fx, fixtures.TotalHits("true"))
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func parse(t *testing.T, url string) *target.Target {
	t.Helper()
	tg, err := target.Parse("gw="+url, target.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

func caseNames(os []*suite.Outcome) []string {
	var out []string
	for _, o := range os {
		out = append(out, o.Case.Name)
	}
	return out
}

// The embedded engine checked against its own expectations passes every case, in workload
// order, with ops narrowing the cases.
func TestCheckEmbeddedPassesEveryCase(t *testing.T) {
	fx := smallFixtures(t)
	x := expect(t, fx)
	tg := parse(t, faulty(t, fx, nil, nil).URL)
	for _, tc := range []struct {
		ops  []string
		want int
		why  string
	}{
		{nil, 14, "no ops: every case"},
		{[]string{"get"}, 4, "one operation"},
		{[]string{"page", "after"}, 6, "an after case continues a page the oracle answered"},
		{[]string{"after"}, 3, "after cases alone: their cursors come from the oracle's pages, not from the run"},
		{[]string{"counts", "terms"}, 4, "the order of ops does not reorder the cases"},
	} {
		name := strings.Join(tc.ops, ",")
		if name == "" {
			name = "all"
		}
		t.Run(name, func(t *testing.T) {
			run, err := suite.Check(context.Background(), tg, fx, x, tc.ops, &conformance.Options{})
			if err != nil {
				t.Fatalf("%s: %v", tc.why, err)
			}
			if len(run.Cases) != tc.want || run.Failed != 0 || run.Responded != tc.want {
				t.Fatalf("%s: %d cases, %d failed, %d responded; want %d, 0, %d", tc.why, len(run.Cases), run.Failed, run.Responded, tc.want, tc.want)
			}
			var want []string
			for _, c := range fx.Workload.Cases {
				if len(tc.ops) == 0 || slices.Contains(tc.ops, c.Op) {
					want = append(want, c.Name)
				}
			}
			if got := caseNames(run.Cases); !slices.Equal(got, want) {
				t.Errorf("%s: cases %v, want workload order %v", tc.why, got, want)
			}
			for _, o := range run.Cases {
				if !o.Pass() || o.Status == 0 || len(o.Body) == 0 || o.Request.Case != o.Case.Name || o.Latency <= 0 {
					t.Errorf("%s: case %s: pass %v, status %d, %d bytes, request %q, latency %s", tc.why, o.Case.Name, o.Pass(), o.Status, len(o.Body), o.Request.Case, o.Latency)
				}
			}
			if len(run.Failing()) != 0 {
				t.Errorf("%s: Failing lists %v", tc.why, caseNames(run.Failing()))
			}
			if run.Oracle != x.Source || run.Target != tg || run.Fixtures != fx {
				t.Errorf("%s: the run does not record its oracle, target and fixtures", tc.why)
			}
		})
	}
}

// A fault injected into one case's answer fails that case alone, with the class and path of
// the difference, and the other cases still pass.
func TestCheckInjectedFaults(t *testing.T) {
	fx := smallFixtures(t)
	x := expect(t, fx)
	getPath := func(r *http.Request, _ []byte) bool {
		return r.Method == http.MethodGet && strings.Contains(r.URL.Path, "/_doc/")
	}
	search := func(r *http.Request, _ []byte) bool { return strings.HasSuffix(r.URL.Path, "/_search") }
	replace := func(old, new string) fault {
		return func(w http.ResponseWriter, status int, body []byte) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			w.Write(bytes.Replace(body, []byte(old), []byte(new), 1))
		}
	}
	for _, tc := range []struct {
		name    string
		ops     []string
		match   func(*http.Request, []byte) bool
		f       fault
		classes []string
		path    string // of the first failing difference; "" for a fault
		faulted bool
	}{
		{"a total that is a lower bound", []string{"page"}, search, replace(`"relation":"eq"`, `"relation":"gte"`), []string{"totals"}, "hits.total.relation", false},
		{"a document not found", []string{"get"}, getPath, func(w http.ResponseWriter, _ int, body []byte) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			w.Write(bytes.Replace(body, []byte(`"found":true`), []byte(`"found":false`), 1))
		}, []string{"status", "found"}, "", false},
		{"an aggregation's count off by one thousand", []string{"counts"}, search, replace(`"doc_count":`, `"doc_count":1000`), []string{"aggregations"}, "aggregations.first.doc_count", false},
		{"a body that is not JSON", []string{"get"}, getPath, func(w http.ResponseWriter, status int, _ []byte) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			io.WriteString(w, "<html>gateway error</html>")
		}, []string{"decode"}, "", false},
		{"a connection closed without an answer", []string{"get"}, getPath, func(w http.ResponseWriter, _ int, _ []byte) {
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				conn.Close()
			}
		}, []string{"transport"}, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Only the first matching request is broken.
			var once sync.Once
			match := func(r *http.Request, b []byte) bool {
				hit := false
				if tc.match(r, b) {
					once.Do(func() { hit = true })
				}
				return hit
			}
			tg := parse(t, faulty(t, fx, match, tc.f).URL)
			run, err := suite.Check(context.Background(), tg, fx, x, tc.ops, &conformance.Options{})
			if err != nil {
				t.Fatal(err)
			}
			failing := run.Failing()
			if len(failing) != 1 || run.Failed != 1 {
				t.Fatalf("failing cases %v (Failed %d), want exactly the first %s case", caseNames(failing), run.Failed, tc.ops[0])
			}
			o := failing[0]
			if o.Case != run.Cases[0].Case {
				t.Errorf("case %s failed, want the first one, %s", o.Case.Name, run.Cases[0].Case.Name)
			}
			if got := o.Classes(); !slices.Equal(got, tc.classes) {
				t.Errorf("classes %v, want %v", got, tc.classes)
			}
			class := tc.classes[0]
			if tc.faulted {
				if o.Fault == nil || o.Status != 0 || run.Responded != len(run.Cases)-1 {
					t.Fatalf("fault %v, status %d, responded %d of %d; want a fault and no response", o.Fault, o.Status, run.Responded, len(run.Cases))
				}
				if o.FaultText() == "" || strings.HasPrefix(o.FaultText(), class+": ") {
					t.Errorf("FaultText %q should be the fault's message without its class", o.FaultText())
				}
				return
			}
			d, more := o.FirstFailing()
			if d == nil {
				t.Fatalf("no failing difference in %+v", o.Result)
			}
			if string(d.Class) != class || d.Path != tc.path {
				t.Errorf("first failing difference %s at %q (and %d more), want %s at %q", d.Class, d.Path, more, class, tc.path)
			}
			ops, rows := run.ByOp()
			if !slices.Equal(ops, tc.ops) || rows[tc.ops[0]].Passed != rows[tc.ops[0]].Cases-1 || rows[tc.ops[0]].Classes[class] != 1 {
				t.Errorf("ByOp: %v %+v, want %s with one %s failure", ops, rows[tc.ops[0]], tc.ops[0], class)
			}
		})
	}
}

// The report-only classes are counted by ReportedOnly and fail only under Pedantic.
func TestCheckReportedOnly(t *testing.T) {
	fx := smallFixtures(t)
	x := expect(t, fx)
	search := func(r *http.Request, _ []byte) bool { return strings.HasSuffix(r.URL.Path, "/_search") }
	shards := func(w http.ResponseWriter, status int, body []byte) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write(bytes.Replace(body, []byte(`"total":1,`), []byte(`"total":2,`), 1))
	}
	tg := parse(t, faulty(t, fx, search, shards).URL)
	for _, tc := range []struct {
		opts   conformance.Options
		failed int
		why    string
	}{
		{conformance.Options{}, 0, "_shards is reported, not failed"},
		{conformance.Options{Pedantic: true}, 3, "pedantic fails the report-only classes"},
	} {
		run, err := suite.Check(context.Background(), tg, fx, x, []string{"page"}, &tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		if run.Failed != tc.failed {
			t.Errorf("%s: %d failed, want %d", tc.why, run.Failed, tc.failed)
		}
		if got := run.ReportedOnly()["shards"]; tc.failed == 0 && got != 3 {
			t.Errorf("%s: ReportedOnly %v, want shards on 3 cases", tc.why, run.ReportedOnly())
		}
	}
}

// What cannot be checked is an error, not a failed case.
func TestCheckErrors(t *testing.T) {
	fx := smallFixtures(t)
	x := expect(t, fx)
	srv := faulty(t, fx, nil, nil)
	tg := parse(t, srv.URL)

	if _, err := suite.Check(context.Background(), tg, fx, x, []string{"nothing"}, &conformance.Options{}); err == nil || err.Error() != "no cases to check" {
		t.Errorf("ops matching no case: %v, want no cases to check", err)
	}

	partial := oracle.NewExpectations(x.Source, x.Settings,
		slices.DeleteFunc(slices.Clone(x.Cases), func(e oracle.Expected) bool { return e.Request.Op == "page" }))
	_, err := suite.Check(context.Background(), tg, fx, partial, []string{"after"}, &conformance.Options{})
	if err == nil || !strings.Contains(err.Error(), "which the oracle did not answer") {
		t.Errorf("an after case whose page has no expectation: %v", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := suite.Check(ctx, tg, fx, x, nil, &conformance.Options{}); err == nil {
		t.Error("a cancelled check returned no error")
	}

	srv.Close()
	_, err = suite.Check(context.Background(), tg, fx, x, []string{"get"}, &conformance.Options{})
	if err == nil || !strings.HasPrefix(err.Error(), "target gw: transport: dial ") {
		t.Errorf("a target that cannot be dialled: %v, want target gw: transport: dial ...", err)
	}

	if _, _, err := suite.Prepare(tg, partial, fx.Workload.Case("page/000")); err == nil || err.Error() != "the oracle has no expectation for page/000" {
		t.Errorf("Prepare without an expectation: %v", err)
	}
}

// Prepare makes the concrete request: the index substituted, track_total_hits added to a
// search, and an after case's search_after taken from the oracle's answer to its page.
func TestPrepare(t *testing.T) {
	fx := smallFixtures(t)
	x := expect(t, fx)
	tg := parse(t, "http://127.0.0.1:1")
	for _, tc := range []struct {
		name     string
		path     string
		contains []string
	}{
		{"get/000", "/" + fx.Workload.Index + "/_doc/", nil},
		{"page/000", "/" + fx.Workload.Index + "/_search", []string{`"track_total_hits":true`}},
		{"after/000", "/" + fx.Workload.Index + "/_search", []string{`"track_total_hits":true`, `"search_after":[`}},
	} {
		req, exp, err := suite.Prepare(tg, x, fx.Workload.Case(tc.name))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if exp == nil || req.Case != tc.name || !strings.HasPrefix(req.Path, tc.path) {
			t.Errorf("%s: request %s %s, expectation %v", tc.name, req.Method, req.Path, exp)
		}
		for _, want := range tc.contains {
			if !bytes.Contains(req.Body, []byte(want)) {
				t.Errorf("%s: body %s lacks %s", tc.name, req.Body, want)
			}
		}
	}
}

// OracleRequest is the request the oracle answered: the same as Prepare's for a target that
// keeps the workload's index, the cursor of an after case included, and the workload's index
// when the target uses another.
func TestOracleRequest(t *testing.T) {
	fx := smallFixtures(t)
	x := expect(t, fx)
	same := parse(t, "http://127.0.0.1:1")
	other, err := target.Parse("gw=http://127.0.0.1:1", target.Options{Index: "products"})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"get/000", "page/000", "after/000"} {
		c := fx.Workload.Case(name)
		oreq, err := suite.OracleRequest(x, c)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		req, _, err := suite.Prepare(same, x, c)
		if err != nil {
			t.Fatal(err)
		}
		if oreq.Method != req.Method || oreq.Path != req.Path || !bytes.Equal(oreq.Body, req.Body) {
			t.Errorf("%s: the oracle was asked %s %s %s, the target %s %s %s", name, oreq.Method, oreq.Path, oreq.Body, req.Method, req.Path, req.Body)
		}
		if name == "after/000" && !bytes.Contains(oreq.Body, []byte(`"search_after":[`)) {
			t.Errorf("%s: no cursor in %s", name, oreq.Body)
		}
		greq, _, err := suite.Prepare(other, x, c)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(oreq.Path, "/"+fx.Workload.Index+"/") || !strings.HasPrefix(greq.Path, "/products/") || !bytes.Equal(oreq.Body, greq.Body) {
			t.Errorf("%s: with the target's index products, the oracle's path is %s and the target's %s", name, oreq.Path, greq.Path)
		}
	}
	partial := oracle.NewExpectations(x.Source, x.Settings,
		slices.DeleteFunc(slices.Clone(x.Cases), func(e oracle.Expected) bool { return e.Request.Op == "page" }))
	if _, err := suite.OracleRequest(partial, fx.Workload.Case("after/000")); err == nil || !strings.Contains(err.Error(), "which the oracle did not answer") {
		t.Errorf("an after case whose page has no expectation: %v", err)
	}
}

// One sends one case and checks it; a closed connection is a fault in the outcome.
func TestOne(t *testing.T) {
	fx := smallFixtures(t)
	x := expect(t, fx)
	c := fx.Workload.Case("page/000")
	hangUp := func(w http.ResponseWriter, _ int, _ []byte) {
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			conn.Close()
		}
	}
	relation := func(w http.ResponseWriter, status int, body []byte) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write(bytes.Replace(body, []byte(`"relation":"eq"`), []byte(`"relation":"gte"`), 1))
	}
	all := func(*http.Request, []byte) bool { return true }
	for _, tc := range []struct {
		why     string
		f       fault
		pass    bool
		classes []string
	}{
		{"the engine itself", nil, true, nil},
		{"a wrong relation", relation, false, []string{"totals"}},
		{"no answer", hangUp, false, []string{"transport"}},
	} {
		tg := parse(t, faulty(t, fx, all, tc.f).URL)
		req, exp, err := suite.Prepare(tg, x, c)
		if err != nil {
			t.Fatal(err)
		}
		o, err := suite.One(context.Background(), tg, c, req, exp, &conformance.Options{})
		if err != nil {
			t.Fatalf("%s: %v", tc.why, err)
		}
		if o.Pass() != tc.pass || !slices.Equal(o.Classes(), tc.classes) || o.Case != c {
			t.Errorf("%s: pass %v, classes %v; want %v, %v", tc.why, o.Pass(), o.Classes(), tc.pass, tc.classes)
		}
	}
	srv := faulty(t, fx, nil, nil)
	tg := parse(t, srv.URL)
	req, exp, _ := suite.Prepare(tg, x, c)
	srv.Close()
	if _, err := suite.One(context.Background(), tg, c, req, exp, &conformance.Options{}); err == nil || !strings.HasPrefix(err.Error(), "target gw: ") {
		t.Errorf("a target that cannot be dialled: %v", err)
	}
}

package yamltest

import (
	"bytes"
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

func runAll(t *testing.T, opt Options, paths ...string) map[string]Result {
	t.Helper()
	rep, err := Run(context.Background(), opt, paths...)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]Result{}
	for _, r := range rep.Results {
		out[r.File+"/"+r.Test] = r
	}
	return out
}

func describe(r Result) string {
	var b bytes.Buffer
	WriteResult(&b, r, 300)
	return b.String()
}

func TestPassingTests(t *testing.T) {
	target, made := fakeTarget(t, "8.15.0")
	results := runAll(t, Options{Target: target}, "testdata/pass.yml")
	if len(results) != 7 {
		t.Errorf("%d results, want the 7 tests of pass.yml", len(results))
	}
	for name, r := range results {
		if r.Status != Passed {
			t.Errorf("%s: %s", name, describe(r))
		}
	}
	// One fresh cluster to read GET / and one per test.
	if len(*made) != 8 {
		t.Errorf("%d clusters started, want 1 + one per test", len(*made))
	}
	// The bulk body given as a list sent one line per element, strings as written.
	var sawBulk bool
	for _, f := range *made {
		for _, r := range f.requests {
			if strings.HasPrefix(r, "POST /test/_bulk?refresh=true") {
				sawBulk = true
			}
		}
	}
	// The teardown ran after every test, on that test's cluster.
	for i, f := range (*made)[1:] {
		if last := f.requests[len(f.requests)-1]; last != "DELETE /other" {
			t.Errorf("cluster %d: last request %q, want the teardown's DELETE /other", i+1, last)
		}
	}
	if !sawBulk {
		t.Error("no POST /test/_bulk?refresh=true request: bulk did not route with its index and parameters")
	}
}

func TestSkippedTests(t *testing.T) {
	target, _ := fakeTarget(t, "8.15.0")
	results := runAll(t, Options{Target: target}, "testdata/skip.yml")
	want := map[string]string{
		"runner feature":          "needs runner feature transform_and_set",
		"requires runner feature": "needs runner feature yaml",
		"unknown cluster feature": "requires cluster_features some.future.feature, unknown to this runner and taken as absent: not yet",
		"newer than 8.15":         "requires cluster_features search.sort.int_sort_for_int_short_byte_fields: behaviour newer than 8.15",
		"version all":             `skipped on versions "all", the target is 8.15.0: muted`,
		"version range":           `skipped on versions "- 7.9.99, 8.10.0 - 8.16.0", the target is 8.15.0: broken there`,
		"awaits fix":              "awaits fix https://github.com/elastic/elasticsearch/issues/1: flaky",
		"cluster feature present": "skipped when the cluster has feature gte_v8.0.0: changed in 8.0",
		"unknown api":             "uses API snapshot.create (line 66), which this runner cannot map to HTTP",
		"unknown step":            `step "is_after" is not supported by this runner (line 75)`,
	}
	if len(results) != len(want) {
		t.Errorf("%d results, want %d", len(results), len(want))
	}
	for test, reason := range want {
		r, ok := results["skip.yml/"+test]
		if !ok {
			t.Errorf("no result for %q", test)
			continue
		}
		if r.Status != Skipped || !strings.Contains(r.Reason, reason) {
			t.Errorf("%q: %s reason %q, want skipped with %q", test, r.Status, r.Reason, reason)
		}
	}
}

func TestFailingTests(t *testing.T) {
	target, _ := fakeTarget(t, "8.15.0")
	results := runAll(t, Options{Target: target}, "testdata/fail.yml", "testdata/setupfail.yml")
	tests := []struct {
		test, phase, step, message, expected, actual string
		line                                         int
	}{
		{"nested kinds differ", "test", "match: {_source: {\"price\":19.0,\"ratio\":2.0,\"tags\":[\"a\"]}}", "does not match the expected value",
			`{"price":19.0,"ratio":2.0,"tags":["a"]}`, `{"price":19,"ratio":2.0,"tags":["a"]}`, 15},
		{"wrong value", "test", "match: {_source.price: 20}", "field [_source.price] does not match the expected value", "20", "19", 23},
		{"wrong length", "test", "length: {_source.tags: 2}", "field [_source.tags] doesn't have length 2", "2", "1", 31},
		{"is_true on a missing field", "test", "is_true: _source.nothing", "doesn't have a true value", `"a true value"`, "null", 39},
		{"catch without an error", "test", "do get (catch: missing)", "expected [404] status code but api [get] returned [200 OK]", "404", "200", 43},
		{"catch of the wrong status", "test", "do get (catch: bad_request)", "expected [400] status code but api [get] returned [404 Not Found]", "400", "404", 51},
		{"error without catch", "test", "do get", "expected [2xx] status code but api [get] returned [404 Not Found]", "2xx", "404", 59},
		{"regex catch that does not match", "test", "do indices.create (catch: /some other reason/)", "the error message was expected to match the provided regex",
			"/some other reason/", "{root_cause=[{type=resource_already_exists_exception, reason=index [test/xyz] already exists}], type=resource_already_exists_exception, reason=index [test/xyz] already exists}", 66},
		{"unexpected warning", "test", "do raw", `got unexpected warning headers ["299 Elasticsearch-8.15.0-abcdef1 \"surprise\""]`, "[]", "", 73},
		{"missing warning", "test", "do raw", `did not get expected warning headers ["expected one"]`, `["expected one"]`, "[]", 81},
		{"gt", "test", "gt: {_source.price: 19}", "field [_source.price] is not gt 19", "19", "19", 94},
		{"index already exists", "test", "do indices.create", "returned [400 Bad Request]", "2xx", "400", 98},
	}
	for _, tt := range tests {
		r := results["fail.yml/"+tt.test]
		if r.Status != Failed || r.Failure == nil {
			t.Errorf("%q: %s, want failed", tt.test, describe(r))
			continue
		}
		f := r.Failure
		if f.Phase != tt.phase || f.Step != tt.step || !strings.Contains(f.Message, tt.message) || f.Line != tt.line ||
			f.Expected != tt.expected || (tt.actual != "" && f.Actual != tt.actual) {
			t.Errorf("%q failed as\n%s\nwant phase %s line %d step %q message %q expected %q actual %q",
				tt.test, describe(r), tt.phase, tt.line, tt.step, tt.message, tt.expected, tt.actual)
		}
		if f.Response == "" {
			t.Errorf("%q: the failure has no response body", tt.test)
		}
	}
	r := results["setupfail.yml/needs its setup"]
	if r.Status != Failed || r.Failure.Phase != "setup" || !strings.Contains(r.Failure.Message, "[404 Not Found]") {
		t.Errorf("setup failure: %s", describe(r))
	}
}

func TestDivergenceNewerThan815(t *testing.T) {
	target, _ := fakeTarget(t, "8.15.0")
	results := runAll(t, Options{Target: target}, "testdata/rest-api-spec")
	r := results["search/630_format_sort_missing_dates.yml/Format sort values for missing dates"]
	if r.Status != Skipped || !strings.Contains(r.Reason, "behaviour newer than 8.15") {
		t.Errorf("630 on 8.15: %s", describe(r))
	}
	target, _ = fakeTarget(t, "9.3.0")
	results = runAll(t, Options{Target: target}, "testdata/rest-api-spec")
	if r := results["search/630_format_sort_missing_dates.yml/Format sort values for missing dates"]; r.Status != Passed {
		t.Errorf("630 on 9.3.0 should run: %s", describe(r))
	}
}

func TestOpenSearchSuite(t *testing.T) {
	target, _ := fakeTarget(t, "8.15.0")
	results := runAll(t, Options{Target: target}, "testdata/opensearch")
	// Against Elasticsearch the file runs: its gate counts OpenSearch versions.
	r := results["opensearch:10_os.yml/Gated on OpenSearch versions"]
	if r.Status != Passed {
		t.Errorf("OpenSearch test on Elasticsearch: %s", describe(r))
	}
	os := HandlerTarget("os", func() (http.Handler, error) {
		f := newFakeES()
		f.version, f.dist = "2.11.0", "opensearch"
		return f, nil
	})
	results = runAll(t, Options{Target: os}, "testdata/opensearch")
	if r := results["opensearch:10_os.yml/Gated on OpenSearch versions"]; r.Status != Skipped {
		t.Errorf("OpenSearch 2.11 is inside the gate, the test must be skipped: %s", describe(r))
	}
	// Forcing the distribution reads the file's gates as Elasticsearch versions.
	results = runAll(t, Options{Target: target, Distribution: "elasticsearch"}, "testdata/opensearch")
	if r := results["opensearch:10_os.yml/Gated on OpenSearch versions"]; r.Status != Skipped {
		t.Errorf("forced: %s", describe(r))
	}
}

func TestMalformedFile(t *testing.T) {
	target, _ := fakeTarget(t, "8.15.0")
	results := runAll(t, Options{Target: target}, "testdata/malformed.yml")
	r := results["malformed.yml/(file)"]
	if r.Status != Failed || !strings.Contains(r.Failure.Message, "testdata/malformed.yml") || !strings.Contains(r.Failure.Message, "did not find expected") {
		t.Errorf("malformed file: %s", describe(r))
	}
}

func TestURLTargetCleansUp(t *testing.T) {
	srv, f := fakeServer(t)
	target, err := URLTarget(strings.Replace(srv.URL, "http://", "http://elastic:s3cret@", 1), nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(target.Name(), "s3cret") || !strings.Contains(target.Name(), "***@") {
		t.Errorf("target name %q shows credentials", target.Name())
	}
	rep, err := Run(context.Background(), Options{Target: target, Run: regexp.MustCompile(`match, length|stash|search parameters`)}, "testdata/pass.yml")
	if err != nil {
		t.Fatal(err)
	}
	if p, fl, s := rep.Counts(); p != 3 || fl != 0 || s != 0 {
		for _, r := range rep.Results {
			t.Log(describe(r))
		}
		t.Fatalf("%s, want 3 passed", rep.Summary())
	}
	if len(f.indices) != 0 {
		t.Errorf("indices left behind: %v", f.indices)
	}
	var deletes []string
	for _, r := range f.requests {
		if strings.HasPrefix(r, "DELETE ") {
			deletes = append(deletes, r)
		}
	}
	// Per test: the teardown deletes other, then the cleanup deletes every index the test
	// created (other again, answered 404 and tolerated, and test).
	perTest := []string{"DELETE /other", "DELETE /other", "DELETE /test"}
	var want []string
	for range 3 {
		want = append(want, perTest...)
	}
	if strings.Join(deletes, ",") != strings.Join(want, ",") {
		t.Errorf("delete requests %q, want %q", deletes, want)
	}
}

func TestVersionNeeded(t *testing.T) {
	broken := HandlerTarget("broken", func() (http.Handler, error) {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(501) }), nil
	})
	_, err := Run(context.Background(), Options{Target: broken}, "testdata/pass.yml")
	if err == nil || !strings.Contains(err.Error(), "HTTP 501") || !strings.Contains(err.Error(), "--es-version") {
		t.Fatalf("err = %v, want a request for --es-version", err)
	}
	target, _ := fakeTarget(t, "not a version")
	rep, err := Run(context.Background(), Options{Target: target, Version: "8.15.0", Run: regexp.MustCompile("gates")}, "testdata/pass.yml")
	if err != nil || rep.Version != "8.15.0" {
		t.Fatalf("override: %v, version %q", err, rep.Version)
	}
}

func TestReportText(t *testing.T) {
	rep := &Report{Results: []Result{
		{File: "a.yml", Test: "one", Status: Passed},
		{File: "a.yml", Test: "two", Status: Skipped, Reason: "needs runner feature yaml"},
		{File: "a.yml", Test: "three", Status: Failed, Failure: &Failure{Phase: "test", Line: 12, Step: "match: {a: 1}",
			Message: "field [a] doesn't match the expected value", Expected: "1", Actual: "2", Response: `{"a":2,"padding":"xxxxxxxxxx"}`}},
	}}
	var b bytes.Buffer
	for _, r := range rep.Results {
		WriteResult(&b, r, 10)
	}
	want := `ok    a.yml  one
skip  a.yml  two
      needs runner feature yaml
FAIL  a.yml  three
      at a.yml:12 (test): match: {a: 1}
      field [a] doesn't match the expected value
      expected: 1
      actual:   2
      response: {"a":2,"pa… (20 more bytes)
`
	if b.String() != want {
		t.Errorf("report text:\n%s\nwant:\n%s", b.String(), want)
	}
	if got := rep.Summary(); got != "1 passed, 1 failed, 1 skipped" {
		t.Errorf("summary %q", got)
	}
}

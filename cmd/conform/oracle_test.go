package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/conform-dev/conform/fixtures"
	"github.com/conform-dev/conform/oracle"
)

// run runs one conform command line in process.
func run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{stdout: &out, stderr: &errb, getenv: func(string) string { return "" }}
	code = conform(context.Background(), e, args)
	return code, out.String(), errb.String()
}

// smallFixtures writes a small generated fixtures directory.
func smallFixtures(t *testing.T) (string, *fixtures.Fixtures) {
	t.Helper()
	f, err := fixtures.Generate(fixtures.Options{Seed: 7, Documents: 200,
		Cases: fixtures.CaseCounts{Get: 4, Page: 3, After: 3, Terms: 1, Counts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := f.Write(dir); err != nil {
		t.Fatal(err)
	}
	return dir, f
}

// fakeES answers any workload generically: GET /, _count, documents found by id, and searches
// whose hits are positions in an imaginary result list of 100 matches, each sorted on its
// position (or on half of it with ties, so every page boundary is a tie).
type fakeES struct {
	index   string
	docs    int
	version string
	ties    bool
	// sourceNumber is the number every document's _source carries, to make two engines differ.
	sourceNumber string
}

func (f *fakeES) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	body, _ := io.ReadAll(r.Body)
	path := r.URL.Path
	switch {
	case path == "/":
		v := f.version
		if v == "" {
			v = "8.15.0"
		}
		fmt.Fprintf(w, `{"name":"fake","version":{"number":%q,"build_flavor":"default"},"tagline":"You Know, for Search"}`, v)
	case path == "/"+f.index+"/_count":
		fmt.Fprintf(w, `{"count":%d,"_shards":{"total":1,"successful":1,"skipped":0,"failed":0}}`, f.docs)
	case strings.HasPrefix(path, "/"+f.index+"/_doc/"):
		n := f.sourceNumber
		if n == "" {
			n = "129"
		}
		fmt.Fprintf(w, `{"_index":%q,"_id":%q,"_version":1,"_seq_no":0,"_primary_term":1,"found":true,"_source":{"n":%s}}`, f.index, strings.TrimPrefix(path, "/"+f.index+"/_doc/"), n)
	case path == "/"+f.index+"/_search":
		var q struct {
			Size        *int  `json:"size"`
			From        int   `json:"from"`
			SearchAfter []int `json:"search_after"`
		}
		if err := json.Unmarshal(body, &q); err != nil {
			w.WriteHeader(400)
			fmt.Fprintf(w, `{"error":{"type":"parsing_exception","reason":%q},"status":400}`, err.Error())
			return
		}
		size := 10
		if q.Size != nil {
			size = *q.Size
		}
		start := q.From
		if len(q.SearchAfter) > 0 {
			start = q.SearchAfter[0] + 1
		}
		var hits []string
		for pos := start; pos < start+size && pos < 100; pos++ {
			key := pos
			if f.ties {
				key = (pos + 1) / 2
			}
			hits = append(hits, fmt.Sprintf(`{"_index":%q,"_id":"d%d","_score":null,"_source":{},"sort":[%d]}`, f.index, pos, key))
		}
		fmt.Fprintf(w, `{"took":%d,"timed_out":false,"_shards":{"total":1,"successful":1,"skipped":0,"failed":0},"hits":{"total":{"value":100,"relation":"eq"},"max_score":null,"hits":[%s]}}`,
			len(body)%5, strings.Join(hits, ","))
	default:
		w.WriteHeader(404)
		fmt.Fprint(w, `{"error":{"type":"index_not_found_exception","reason":"no such index"},"status":404}`)
	}
}

func fakeServerFor(t *testing.T, f *fixtures.Fixtures, edit func(*fakeES)) *httptest.Server {
	t.Helper()
	fe := &fakeES{index: f.Workload.Index, docs: len(f.Docs)}
	if edit != nil {
		edit(fe)
	}
	srv := httptest.NewServer(fe)
	t.Cleanup(srv.Close)
	return srv
}

var hashLine = regexp.MustCompile(`(?m)^hash +sha256 ([0-9a-f]{64})$`)

func TestOracleRecordThenExpectFromGolden(t *testing.T) {
	dir, f := smallFixtures(t)
	srv := fakeServerFor(t, f, nil)
	golden := filepath.Join(t.TempDir(), "es.golden.json")
	code, out, errs := run(t, "oracle", "record", "--es", srv.URL, "--fixtures", dir, "--out", golden)
	if code != 0 {
		t.Fatalf("record exit %d\n%s%s", code, out, errs)
	}
	for _, want := range []string{"oracle    live:" + srv.URL, "engine    Elasticsearch 8.15.0 (default)",
		"cases     12 (get 4, page 3, after 3, terms 1, counts 1)", "warnings  0", "wrote     " + golden} {
		if !strings.Contains(out, want) {
			t.Errorf("record output lacks %q:\n%s", want, out)
		}
	}
	recorded := hashLine.FindStringSubmatch(out)
	if recorded == nil {
		t.Fatalf("no hash line in:\n%s", out)
	}
	expected := filepath.Join(t.TempDir(), "expected.json")
	code, out, errs = run(t, "oracle", "expect", "--oracle", "golden:"+golden, "--fixtures", dir, "--out", expected)
	if code != 0 {
		t.Fatalf("expect exit %d\n%s%s", code, out, errs)
	}
	got := hashLine.FindStringSubmatch(out)
	if got == nil || got[1] != recorded[1] {
		t.Errorf("expect from the golden file printed hash %v, the recording %s", got, recorded[1])
	}
	data, err := os.ReadFile(expected)
	if err != nil {
		t.Fatal(err)
	}
	h, x, err := oracle.ReadExpectations(expected, data)
	if err != nil {
		t.Fatal(err)
	}
	if h.Source != "golden:"+golden || x.Hash() != recorded[1] {
		t.Errorf("expect wrote source %q hash %s", h.Source, x.Hash())
	}
	// A different track_total_hits is refused by the golden oracle (exit 2).
	code, _, errs = run(t, "oracle", "expect", "--oracle", "golden:"+golden, "--fixtures", dir, "--track-total-hits", "false", "--out", expected)
	if code != 2 || !strings.Contains(errs, "recorded with track_total_hits true, this run uses false") {
		t.Errorf("golden with other settings: exit %d, stderr %s", code, errs)
	}
}

func TestOracleRecordRefusesTies(t *testing.T) {
	dir, f := smallFixtures(t)
	srv := fakeServerFor(t, f, func(fe *fakeES) { fe.ties = true })
	golden := filepath.Join(t.TempDir(), "es.golden.json")
	code, _, errs := run(t, "oracle", "record", "--es", srv.URL, "--fixtures", dir, "--out", golden)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (refused)\n%s", code, errs)
	}
	for _, page := range []string{"page/000: page boundary inside a tie", "page/001", "page/002"} {
		if !strings.Contains(errs, page) {
			t.Errorf("the refusal does not list %s:\n%s", page, errs)
		}
	}
	if _, err := os.Stat(golden); !os.IsNotExist(err) {
		t.Errorf("a golden file was written despite the refusal (%v)", err)
	}
}

func TestOracleRecordWarnsLoudlyOnOtherVersions(t *testing.T) {
	dir, f := smallFixtures(t)
	srv := fakeServerFor(t, f, func(fe *fakeES) { fe.version = "8.17.1" })
	code, _, errs := run(t, "oracle", "record", "--es", srv.URL, "--fixtures", dir, "--out", filepath.Join(t.TempDir(), "g.json"))
	if code != 0 || !strings.Contains(errs, "*** WARNING: ") || !strings.Contains(errs, "Elasticsearch 8.17.1, not 8.15.x") {
		t.Errorf("exit %d, stderr:\n%s", code, errs)
	}
}

func TestOracleVerify(t *testing.T) {
	dir, f := smallFixtures(t)
	live := fakeServerFor(t, f, nil)
	defer func(old oracle.Source) { embeddedOracle = old }(embeddedOracle)
	setEmbedded := func(srv *httptest.Server) {
		ep, err := oracle.NewHTTPEndpoint(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		embeddedOracle = &oracle.Live{Endpoint: ep}
	}

	setEmbedded(fakeServerFor(t, f, nil))
	code, out, errs := run(t, "oracle", "verify", "--es", live.URL, "--fixtures", dir)
	if code != 0 || !strings.Contains(out, "0 of 12 cases differ") {
		t.Errorf("identical oracles: exit %d\n%s%s", code, out, errs)
	}

	setEmbedded(fakeServerFor(t, f, func(fe *fakeES) { fe.sourceNumber = "129.0" }))
	code, out, errs = run(t, "oracle", "verify", "--es", live.URL, "--fixtures", dir)
	if code != 1 {
		t.Fatalf("differing oracles: exit %d, want 1\n%s%s", code, out, errs)
	}
	for _, want := range []string{"--- get/000", "_source.n: live 129, embedded 129.0 (integer and floating point differ)",
		`live      200 {"_index"`, "4 of 12 cases differ"} {
		if !strings.Contains(out, want) {
			t.Errorf("verify output lacks %q:\n%s", want, out)
		}
	}

	down := fakeServerFor(t, f, nil)
	down.Close()
	code, _, errs = run(t, "oracle", "verify", "--es", down.URL, "--fixtures", dir)
	if code != 2 {
		t.Errorf("unreachable live oracle: exit %d, want 2\n%s", code, errs)
	}
}

func TestOracleUsage(t *testing.T) {
	tests := []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"oracle"}, 2, "needs a subcommand"},
		{[]string{"oracle", "bogus"}, 2, `unknown oracle subcommand "bogus"`},
		{[]string{"oracle", "expect"}, 2, "needs --out FILE"},
		{[]string{"oracle", "expect", "--out", "x", "--oracle", "mystery"}, 2, "unknown oracle"},
		{[]string{"oracle", "expect", "--out", "x", "--track-total-hits", "maybe"}, 2, "--track-total-hits"},
		{[]string{"oracle", "record", "--out", "x"}, 2, "needs --es URL and --out FILE"},
		{[]string{"oracle", "record", "--es", "ftp://x", "--out", "x"}, 2, "scheme must be http or https"},
		{[]string{"oracle", "verify"}, 2, "needs --es URL"},
		{[]string{"oracle", "--help"}, 0, ""},
		{[]string{"oracle", "verify", "--help"}, 0, ""},
	}
	for _, tt := range tests {
		code, _, errs := run(t, tt.args...)
		if code != tt.code || !strings.Contains(errs, tt.stderr) {
			t.Errorf("%q: exit %d stderr %q, want %d and %q", tt.args, code, errs, tt.code, tt.stderr)
		}
	}
}

func TestInterimCompare(t *testing.T) {
	tests := []struct {
		want, got string
		diffs     []string
		reason    string
	}{
		{`{"a":1,"b":[1,2]}`, `{"b":[1,2],"a":1}`, nil, "key order is not compared"},
		{`{"took":3,"a":1}`, `{"took":9,"a":1}`, nil, "took is a measurement"},
		{`{"n":129}`, `{"n":129.0}`, []string{"n: live 129, embedded 129.0 (integer and floating point differ)"}, "kind matters"},
		{`{"n":4.1}`, `{"n":4.099999904632568}`, []string{"n: live 4.1, embedded 4.099999904632568"}, "float text of another value"},
		{`{"n":1.0E20}`, `{"n":1e20}`, nil, "same double, different text"},
		{`{"s":"007"}`, `{"s":7}`, []string{`s: live "007", embedded 7`}, "string and number"},
		{`{"n":9223372036854775807}`, `{"n":9223372036854775806}`, []string{"n: live 9223372036854775807, embedded 9223372036854775806"}, "longs compared exactly"},
		{`{"a":[1,2]}`, `{"a":[1]}`, []string{"a: live has 2 elements, embedded 1"}, "array length"},
		{`{"a":1}`, `{"b":1}`, []string{"a: missing from embedded (live 1)", "b: only in embedded (1)"}, "keys"},
		{`{"h":{"total":null}}`, `{"h":{}}`, []string{"h.total: missing from embedded (live null)"}, "null is not absent"},
	}
	for _, tt := range tests {
		got := interimCompare(&oracle.Expected{Status: 200, Body: []byte(tt.want)}, &oracle.Expected{Status: 200, Body: []byte(tt.got)})
		if strings.Join(got, "|") != strings.Join(tt.diffs, "|") {
			t.Errorf("%s vs %s: %q, want %q (%s)", tt.want, tt.got, got, tt.diffs, tt.reason)
		}
	}
	if d := interimCompare(&oracle.Expected{Status: 200, Body: []byte(`{}`)}, &oracle.Expected{Status: 404, Body: []byte(`{}`)}); len(d) != 1 || d[0] != "status: live 200, embedded 404" {
		t.Errorf("status difference: %q", d)
	}
}

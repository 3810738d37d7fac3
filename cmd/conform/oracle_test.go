package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
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

// liveES answers GET / as Elasticsearch 8.15.0 does, and everything else through next.
type liveES struct{ next http.Handler }

func (l liveES) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Elastic-Product", "Elasticsearch")
	if r.URL.Path == "/" && r.Method == http.MethodGet {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{
  "name" : "es01",
  "cluster_name" : "docker-cluster",
  "cluster_uuid" : "aT7aQ0lTRbmtu1hfHl2dCw",
  "version" : {
    "number" : "8.15.0",
    "build_flavor" : "default",
    "build_type" : "docker",
    "build_hash" : "1a77947f34deddb41af25e6f0ddb8e830159c179",
    "build_date" : "2024-08-05T10:05:34.233336849Z",
    "build_snapshot" : false,
    "lucene_version" : "9.11.1",
    "minimum_wire_compatibility_version" : "7.17.0",
    "minimum_index_compatibility_version" : "7.0.0"
  },
  "tagline" : "You Know, for Search"
}
`)
		return
	}
	l.next.ServeHTTP(w, r)
}

// swapFirstHits swaps the first two hits of a search response in place of their bytes.
func swapFirstHits(t *testing.T, s int, b []byte) (int, []byte) {
	i := bytes.Index(b, []byte(`"hits":[{`))
	if i < 0 {
		t.Errorf("no hits to swap in %.200s", b)
		return s, b
	}
	i += len(`"hits":[`)
	var h0, h1 json.RawMessage
	if err := json.NewDecoder(bytes.NewReader(b[i:])).Decode(&h0); err != nil {
		t.Error(err)
	}
	j := i + len(h0) + 1
	if err := json.NewDecoder(bytes.NewReader(b[j:])).Decode(&h1); err != nil {
		t.Error(err)
	}
	return s, slices.Concat(b[:i], h1, []byte(","), h0, b[j+len(h1):])
}

// The live-oracle breakages: page/005 and terms/002 are wrong, get/004 differs only in a
// report-only field.
var (
	liveSwapHits = breakage{what: "the first two hits swapped", classes: []string{"ids"}, edit: swapFirstHits}
	liveDocCount = breakage{what: "a bucket's doc_count changed", classes: []string{"aggregations"},
		edit: func(t *testing.T, s int, b []byte) (int, []byte) {
			return s, replaceOnce(t, b, `"doc_count":(\d+)`, `"doc_count":1$1`)
		}}
	liveSeqNo = breakage{what: "another _seq_no", classes: nil,
		edit: func(t *testing.T, s int, b []byte) (int, []byte) {
			return s, replaceOnce(t, b, `"_seq_no":\d+`, `"_seq_no":999999`)
		}}
)

func liveServer(t *testing.T, breaks map[string]breakage) (*brokenServer, *httptest.Server) {
	t.Helper()
	b := newBrokenServer(t, breaks)
	srv := httptest.NewServer(liveES{next: b})
	t.Cleanup(srv.Close)
	return b, srv
}

// verify with the strict check: a live Elasticsearch that answers as the embedded engine does
// passes; one that is wrong on two cases is listed on exactly those, with the differences.
func TestOracleVerify(t *testing.T) {
	// Identical answers, credentials in the URL: exit 0, the password never shown.
	same, srv := liveServer(t, nil)
	host := strings.TrimPrefix(srv.URL, "http://")
	code, out, errs := run(t, "oracle", "verify", "--es", "http://elastic:pw-verify-s3cret@"+host)
	if code != 0 || !strings.Contains(out, "0 of 448 cases differ between the embedded oracle (hash ") ||
		!strings.Contains(out, ") and live:http://elastic:***@"+host+" (hash ") || !strings.HasSuffix(out, "), strict check\n") {
		t.Errorf("identical oracles: exit %d\n%s%s", code, out, errs)
	}
	if strings.Contains(out+errs, "s3cret") {
		t.Errorf("the password appears in the output:\n%s%s", out, errs)
	}
	if auth := same.authHeaders(); len(auth) < 448 || auth[0] != "Basic "+base64.StdEncoding.EncodeToString([]byte("elastic:pw-verify-s3cret")) {
		t.Errorf("the live oracle got %d requests, the first with Authorization %q", len(auth), auth[0])
	}

	// Wrong on page/005 and terms/002, and a report-only difference on get/004.
	_, srv = liveServer(t, map[string]breakage{"page/005": liveSwapHits, "terms/002": liveDocCount, "get/004": liveSeqNo})
	code, out, errs = run(t, "oracle", "verify", "--es", srv.URL)
	if code != 1 {
		t.Fatalf("differing oracles: exit %d, want 1\n%s%s", code, out, errs)
	}
	listed := regexp.MustCompile(`(?m)^--- (\S+) \[(.*)\]$`).FindAllStringSubmatch(out, -1)
	if len(listed) != 2 || listed[0][1] != "page/005" || listed[0][2] != "ids" || listed[1][1] != "terms/002" || listed[1][2] != "aggregations" {
		t.Errorf("listed %q, want page/005 [ids] and terms/002 [aggregations]\n%s", listed, out)
	}
	for _, want := range []string{
		"request: POST /catalogue/_search {",
		"FAIL: 2 failing differences (ids 2)\nids: fails\n  hits.hits[0]._id: want ",
		"aggregations: fails\n  aggregations.",
		".doc_count: want 1",
		"live (expected): status 200, ",
		"embedded (checked): status 200, ",
		", trimmed around the differences\n",
		"2 of 448 cases differ between the embedded oracle",
		"reported, not failing (cases by class): version 1\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("verify output lacks %q:\n%s", want, out)
		}
	}
	if want := "conform: the embedded oracle differs from live:" + srv.URL + " on 2 cases\n"; errs != want {
		t.Errorf("stderr %q, want %q", errs, want)
	}

	// --pedantic fails the report-only difference too.
	_, srv = liveServer(t, map[string]breakage{"get/004": liveSeqNo})
	code, out, _ = run(t, "oracle", "verify", "--es", srv.URL, "--pedantic")
	if code != 1 || !strings.Contains(out, "--- get/004 [version]\n") || !strings.Contains(out, "_seq_no: want ") || !strings.Contains(out, "1 of 448 cases differ") {
		t.Errorf("--pedantic: exit %d\n%s", code, out)
	}

	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	code, _, errs = run(t, "oracle", "verify", "--es", down.URL)
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
		{[]string{"oracle", "bogus"}, 2, `conform oracle: unknown subcommand "bogus"; see conform oracle --help`},
		{[]string{"oracle", "expect"}, 2, "needs --out FILE"},
		{[]string{"oracle", "expect", "--out", "x", "--oracle", "mystery"}, 2, "unknown oracle"},
		{[]string{"oracle", "expect", "--out", "x", "--track-total-hits", "maybe"}, 2, "--track-total-hits"},
		{[]string{"oracle", "record", "--out", "x"}, 2, "needs --es URL and --out FILE"},
		{[]string{"oracle", "record", "--es", "ftp://x", "--out", "x"}, 2, "is not http or https"},
		{[]string{"oracle", "verify"}, 2, "needs --es URL"},
		{[]string{"oracle", "verify", "--es", "http://127.0.0.1:1", "--relax", "all"}, 2, `unknown relaxation "all"`},
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

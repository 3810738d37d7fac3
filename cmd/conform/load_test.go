package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/conform-dev/conform/fixtures"
	"github.com/conform-dev/conform/load/loadtest"
)

// runConform runs one command line in process.
func runConform(t *testing.T, environ map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{stdout: &out, stderr: &errb, getenv: func(k string) string { return environ[k] }}
	code = conform(context.Background(), e, args)
	return code, out.String(), errb.String()
}

// smallFixturesDir writes a 300-document catalogue and returns its directory.
func smallFixturesDir(t *testing.T) (string, *fixtures.Fixtures) {
	t.Helper()
	o := fixtures.DefaultOptions
	o.Documents = 300
	o.Cases = fixtures.CaseCounts{Get: 4, Page: 2, After: 2, Terms: 1, Counts: 1}
	f, err := fixtures.Generate(o)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := f.Write(dir); err != nil {
		t.Fatal(err)
	}
	return dir, f
}

func TestLoadUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		reason string
		args   []string
		want   string
	}{
		{"nothing to load", []string{"load"}, "needs --target"},
		{"a target that is not a URL", []string{"load", "--target", "es=127.0.0.1:9200"}, "URL needs a scheme"},
		{"the same target twice", []string{"load", "--target", "es=http://a:1", "--target", "es=http://b:2"}, `two targets are named "es"`},
		{"a collection without qdrant", []string{"load", "--target", "es=http://a:1", "--collection", "c"}, "need --qdrant"},
		{"an unset key variable", []string{"load", "--qdrant", "127.0.0.1:6334", "--qdrant-api-key-env", "NOPE"}, "NOPE is empty or unset"},
		{"a bad qdrant address", []string{"load", "--qdrant", "localhost"}, "not HOST:PORT"},
		{"--bulk-index-in-action with --probe", []string{"load", "--probe", "--bulk-index-in-action", "--target", "es=http://a:1"}, "needs a --target to load"},
		{"--bulk-index-in-action for qdrant", []string{"load", "--bulk-index-in-action", "--qdrant", "127.0.0.1:6334"}, "needs a --target to load"},
	} {
		code, _, stderr := runConform(t, nil, tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want 2 and %q", tc.reason, code, stderr, tc.want)
		}
	}
	// A malformed spec echoed in an error hides its credentials.
	_, _, stderr := runConform(t, nil, "load", "--target", "es=ftp://user:hunter2@host:1")
	if strings.Contains(stderr, "hunter2") {
		t.Errorf("the password leaked: %q", stderr)
	}
}

func TestLoadHelp(t *testing.T) {
	code, stdout, _ := runConform(t, nil, "load", "--help")
	if code != exitOK || !strings.Contains(stdout, "--qdrant-api-key-env VAR") || !strings.Contains(stdout, "--recreate") ||
		!strings.Contains(stdout, "--bulk-index-in-action") || !strings.Contains(stdout, "ZincSearch needs it") {
		t.Errorf("exit %d, help:\n%s", code, stdout)
	}
	if _, stdout, _ := runConform(t, nil, "--help"); !strings.Contains(stdout, "  load ") {
		t.Errorf("load is not listed:\n%s", stdout)
	}
}

func TestLoadTargetsAndProbe(t *testing.T) {
	dir, f := smallFixturesDir(t)
	es, os := loadtest.NewFakeES(), loadtest.NewFakeES()
	os.Distribution = "opensearch"
	var auth []string
	withAuth := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth = append(auth, r.Header.Get("Authorization"))
		es.ServeHTTP(w, r)
	})
	esSrv, osSrv := httptest.NewServer(withAuth), httptest.NewServer(os)
	defer esSrv.Close()
	defer osSrv.Close()
	// Credentials in a URL become basic auth and never reach the output.
	esURL := strings.Replace(esSrv.URL, "http://", "http://elastic:hunter2@", 1)

	code, stdout, stderr := runConform(t, nil, "load", "--fixtures", dir, "--target", "es="+esURL, "--target", "os="+osSrv.URL)
	if code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"es  http://elastic:***@127.0.0.1:", "index catalogue: loaded 300 documents in 1 batches", "elasticsearch 8.15.0, index catalogue: count 300", "opensearch 3.9.0", ": intact"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout+stderr, "hunter2") {
		t.Errorf("the password leaked:\n%s\n%s", stdout, stderr)
	}
	if want := "Basic " + base64.StdEncoding.EncodeToString([]byte("elastic:hunter2")); len(auth) == 0 || auth[0] != want {
		t.Errorf("authorization = %q, want basic auth from the URL", auth[:min(1, len(auth))])
	}
	if !strings.Contains(stderr, "es: creating index catalogue") || !strings.Contains(stderr, "os: bulk batch 1") {
		t.Errorf("progress lines are not prefixed by target:\n%s", stderr)
	}

	// A second load refuses to touch the now non-empty index.
	code, _, stderr = runConform(t, nil, "load", "--fixtures", dir, "--target", "es="+esSrv.URL)
	if code != exitUsage || !strings.Contains(stderr, "--recreate") {
		t.Errorf("reload without --recreate: exit %d, stderr %q", code, stderr)
	}
	if code, _, stderr := runConform(t, nil, "load", "--fixtures", dir, "--target", "es="+esSrv.URL, "--recreate"); code != exitOK {
		t.Errorf("reload with --recreate: exit %d, stderr %q", code, stderr)
	}

	// --probe writes nothing and prints JSON a manifest can embed.
	before := len(es.Requests)
	code, stdout, stderr = runConform(t, nil, "load", "--probe", "--json", "--fixtures", dir, "--target", "es="+esSrv.URL, "--target", "os="+osSrv.URL)
	if code != exitOK {
		t.Fatalf("probe: exit %d, stderr %q", code, stderr)
	}
	for _, r := range es.Requests[before:] {
		if !strings.HasPrefix(r, "GET ") {
			t.Errorf("--probe sent %s", r)
		}
	}
	var out struct {
		Corpus  string `json:"corpus_sha256"`
		Targets []struct {
			Name  string `json:"name"`
			Probe struct {
				Count  int64 `json:"count"`
				Sample struct {
					SHA256 string `json:"sha256"`
				} `json:"sample"`
				Expected struct {
					SHA256 string `json:"sha256"`
				} `json:"expected"`
			} `json:"probe"`
		} `json:"targets"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("--json output: %v\n%s", err, stdout)
	}
	if out.Corpus != f.Meta.SHA256.Corpus || len(out.Targets) != 2 {
		t.Fatalf("output = %+v", out)
	}
	for _, tg := range out.Targets {
		if tg.Probe.Count != 300 || tg.Probe.Sample.SHA256 == "" || tg.Probe.Sample.SHA256 != tg.Probe.Expected.SHA256 {
			t.Errorf("%s probe = %+v", tg.Name, tg.Probe)
		}
	}

	// A damaged copy fails the probe with exit 1.
	es.CountDelta = -2
	code, stdout, _ = runConform(t, nil, "load", "--probe", "--fixtures", dir, "--target", "es="+esSrv.URL)
	if code != exitFail || !strings.Contains(stdout, "NOT INTACT: count: want 300, got 298") {
		t.Errorf("damaged probe: exit %d\n%s", code, stdout)
	}
}

func TestLoadVerifyFailureExitsOne(t *testing.T) {
	dir, _ := smallFixturesDir(t)
	es := loadtest.NewFakeES()
	es.CountDelta = 1
	srv := httptest.NewServer(es)
	defer srv.Close()
	code, _, stderr := runConform(t, nil, "load", "--fixtures", dir, "--target", "es="+srv.URL)
	if code != exitFail || !strings.Contains(stderr, "not intact") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

func TestLoadQdrant(t *testing.T) {
	dir, _ := smallFixturesDir(t)
	fq := loadtest.NewFakeQdrant()
	fq.APIKey = "qdrant-s3cret"
	addr, err := fq.Start(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer fq.Close()
	environ := map[string]string{"LAB_QDRANT_KEY": "qdrant-s3cret"}
	code, stdout, stderr := runConform(t, environ, "load", "--fixtures", dir, "--qdrant", addr, "--collection", "products", "--qdrant-api-key-env", "LAB_QDRANT_KEY")
	if code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"collection products: loaded 300 points in 3 batches of 128, 15 payload indexes", "qdrant 1.17.0, collection products green: count 300", ": intact"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout+stderr, "qdrant-s3cret") {
		t.Errorf("the API key leaked")
	}
	if fq.Collection("products") == nil {
		t.Fatal("no collection products")
	}
	// Reloading needs --recreate; probing needs nothing.
	if code, _, stderr := runConform(t, environ, "load", "--fixtures", dir, "--qdrant", addr, "--collection", "products", "--qdrant-api-key-env", "LAB_QDRANT_KEY"); code != exitUsage || !strings.Contains(stderr, "--recreate") {
		t.Errorf("reload: exit %d, stderr %q", code, stderr)
	}
	if code, stdout, stderr := runConform(t, environ, "load", "--probe", "--fixtures", dir, "--qdrant", addr, "--collection", "products", "--qdrant-api-key-env", "LAB_QDRANT_KEY"); code != exitOK || !strings.Contains(stdout, "intact") {
		t.Errorf("probe: exit %d, %s %s", code, stdout, stderr)
	}
	// Without the key, the server refuses and conform says so (exit 2).
	if code, _, stderr := runConform(t, nil, "load", "--probe", "--fixtures", dir, "--qdrant", addr, "--collection", "products"); code != exitUsage || !strings.Contains(stderr, "PermissionDenied") {
		t.Errorf("no key: exit %d, stderr %q", code, stderr)
	}
}

// A ZincSearch-like engine: short items unless every action line names _index.
func TestLoadWarnsOverAShortBulkReplyAndProvesTheCorpus(t *testing.T) {
	dir, _ := smallFixturesDir(t)
	zinc := loadtest.NewFakeES()
	zinc.BulkItems, zinc.FullWhenIndexInAction = 7, true
	srv := httptest.NewServer(zinc)
	defer srv.Close()
	code, stdout, stderr := runConform(t, nil, "load", "--fixtures", dir, "--target", "zinc="+srv.URL)
	if code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	warning := "bulk batch 1: 7 items in the reply for 300 documents; sent again with _index in every action line, the reply listed all 300: naming _index for the rest of the load (--bulk-index-in-action starts that way)"
	for _, want := range []string{"loaded 300 documents in 1 batches (0 retries, action lines name _index)", "zinc  warning: " + warning, "count 300", ": intact"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "zinc: warning: "+warning) {
		t.Errorf("stderr lacks the warning as it happened:\n%s", stderr)
	}

	// With the flag, the first request names _index and nothing is odd.
	zinc2 := loadtest.NewFakeES()
	zinc2.BulkItems, zinc2.FullWhenIndexInAction = 7, true
	srv2 := httptest.NewServer(zinc2)
	defer srv2.Close()
	code, stdout, stderr = runConform(t, nil, "load", "--json", "--bulk-index-in-action", "--fixtures", dir, "--target", "zinc="+srv2.URL)
	if code != exitOK || strings.Contains(stdout+stderr, "warning") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if len(zinc2.BulkIndexInAction) != 1 || !zinc2.BulkIndexInAction[0] {
		t.Errorf("requests named _index: %v", zinc2.BulkIndexInAction)
	}
	var out struct {
		Targets []struct {
			Load struct {
				IndexInAction bool     `json:"index_in_action"`
				Warnings      []string `json:"warnings"`
			} `json:"load"`
		} `json:"targets"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil || len(out.Targets) != 1 || !out.Targets[0].Load.IndexInAction {
		t.Errorf("--json: %v\n%s", err, stdout)
	}
}

func TestLoadOverOddRepliesFailsOnlyWhenTheCorpusIsNotIntact(t *testing.T) {
	dir, f := smallFixturesDir(t)
	lost := f.Docs[3*(len(f.Docs)/100)].ID // a sampled document
	for _, tc := range []struct {
		reason string
		fake   func(es *loadtest.FakeES)
		code   int
		stdout []string
		stderr []string
	}{
		{"no items, all stored", func(es *loadtest.FakeES) { es.BulkNoItems = true }, exitOK,
			[]string{"gw  warning: bulk batch 1: no items list in the reply for 300 documents; sent again with _index in every action line: no items list", ": intact"}, nil},
		// The count looks right (a stray document makes up for the lost one), so it is judged at
		// once; the sample finds the loss and names the document.
		{"no items, one lost", func(es *loadtest.FakeES) {
			es.BulkNoItems, es.Drop, es.CountDelta = true, map[string]bool{lost: true}, 1
		}, exitFail,
			[]string{"gw  warning: bulk batch 1: no items list", "count 300", "NOT INTACT: missing \"" + lost + "\": want found, got 404"},
			[]string{"not intact on gw"}},
		// A rejected document is counted, not fatal: the load goes on and says what it holds.
		{"an item reports an error", func(es *loadtest.FakeES) {
			es.BulkItems = 10
			es.ItemFaults = map[string]*loadtest.ItemFault{f.Docs[2].ID: {Status: 400, Type: "mapper_parsing_exception", Reason: "failed to parse field [price]"}}
		}, exitFail,
			[]string{`gw  holds 299 of 300 documents; 1 rejected, first: "` + f.Docs[2].ID + `": 400 mapper_parsing_exception: failed to parse field [price]`},
			[]string{`gw: bulk batch 1: 1 document(s) rejected (first "` + f.Docs[2].ID + `": 400 mapper_parsing_exception: failed to parse field [price]); going on`, "not intact on gw"}},
	} {
		t.Run(tc.reason, func(t *testing.T) {
			es := loadtest.NewFakeES()
			tc.fake(es)
			srv := httptest.NewServer(es)
			defer srv.Close()
			code, stdout, stderr := runConform(t, nil, "load", "--fixtures", dir, "--target", "gw="+srv.URL)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, stdout, stderr)
			}
			for _, want := range tc.stdout {
				if !strings.Contains(stdout, want) {
					t.Errorf("stdout lacks %q:\n%s", want, stdout)
				}
			}
			for _, want := range tc.stderr {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr)
				}
			}
		})
	}
}

func TestLoadAwaitsAnAsynchronousCount(t *testing.T) {
	dir, _ := smallFixturesDir(t)
	es := loadtest.NewFakeES()
	es.CountStep = 150 // 150, then 300: one poll interval of waiting
	srv := httptest.NewServer(es)
	defer srv.Close()
	code, stdout, stderr := runConform(t, nil, "load", "--fixtures", dir, "--target", "es="+srv.URL)
	if code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "es: count of catalogue is 150 of 300 after ") || !strings.Contains(stderr, "es: count of catalogue reached 300 after ") {
		t.Errorf("no progress on stderr:\n%s", stderr)
	}
	if !strings.Contains(stdout, "waited ") || !strings.Contains(stdout, "for the count), ") || !strings.Contains(stdout, ": intact") {
		t.Errorf("stdout:\n%s", stdout)
	}
}

// A ZincSearch-like engine (no _count, bulk replies rejecting every day-only date) behind a
// password: load counts with _search, says how many documents the engine holds and why the
// rest are not there, exits 1, and never prints the password.
func TestLoadZincSearchLikeEngine(t *testing.T) {
	dir, f := smallFixturesDir(t)
	dayOnly := regexp.MustCompile(`"released":"\d{4}-\d{2}-\d{2}"`)
	rejected := 0
	for _, d := range f.Docs {
		if dayOnly.Match(d.Source) {
			rejected++
		}
	}
	es := loadtest.NewFakeES()
	es.NoCount = true
	es.Reject = func(id string, src []byte) string {
		if dayOnly.Match(src) {
			return "released: unsupported date format"
		}
		return ""
	}
	srv := httptest.NewServer(es)
	defer srv.Close()
	u := strings.Replace(srv.URL, "http://", "http://admin:zinc-s3cret@", 1)
	code, stdout, stderr := runConform(t, nil, "load", "--fixtures", dir, "--target", "zinc="+u)
	want := fmt.Sprintf("zinc  holds %d of %d documents; %d rejected, first: ", len(f.Docs)-rejected, len(f.Docs), rejected)
	if code != exitFail || !strings.Contains(stdout, want) || !strings.Contains(stderr, "counting with POST /catalogue/_search") {
		t.Errorf("exit %d, want 1 and %q\nstdout:\n%s\nstderr:\n%s", code, want, stdout, stderr)
	}
	if strings.Contains(stdout+stderr, "zinc-s3cret") {
		t.Errorf("the password appears in the output")
	}
}

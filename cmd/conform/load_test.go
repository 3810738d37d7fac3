package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
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
	if code != exitOK || !strings.Contains(stdout, "--qdrant-api-key-env VAR") || !strings.Contains(stdout, "--recreate") {
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
	for _, want := range []string{"collection products: loaded 300 points in 3 batches of 128, 15 payload indexes", "qdrant 1.19.2, collection products green: count 300", ": intact"} {
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

package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/conform-dev/conform/fixtures"
	"github.com/conform-dev/conform/load/loadtest"
)

func TestSnapshotUsageErrors(t *testing.T) {
	full := t.TempDir()
	os.WriteFile(filepath.Join(full, "x"), nil, 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"snapshot", "--index", "i", "--out", "o"}, "snapshot needs --from URL"},
		{[]string{"snapshot", "--from", "http://127.0.0.1:1", "--out", "o"}, "snapshot needs --index NAME"},
		{[]string{"snapshot", "--from", "http://127.0.0.1:1", "--index", "i"}, "snapshot needs --out DIR"},
		{[]string{"snapshot", "--from", "http://127.0.0.1:1", "--index", "i", "--out", "o", "--method", "dump"}, "--method must be auto, pit or scroll"},
		{[]string{"snapshot", "--from", "http://127.0.0.1:1", "--index", "i", "--out", "o", "--page-size", "-1"}, "--page-size must be 0 (sized by the documents) or 1 to 10000"},
		{[]string{"snapshot", "--from", "127.0.0.1:9200", "--index", "i", "--out", "o"}, "--from: target"},
		{[]string{"snapshot", "--from", "http://127.0.0.1:1", "--index", "i", "--out", full}, "is not empty"},
		{[]string{"snapshot", "--from", "http://127.0.0.1:1", "--index", "I*", "--out", "o"}, "--index:"},
	} {
		code, _, errOut := runCLI(t, nil, tc.args...)
		if code != exitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
}

// A snapshot through the real command: credentials in the URL are used and never written;
// the directory then loads as fixtures and says what it is.
func TestSnapshotCommand(t *testing.T) {
	fake := loadtest.NewFakeSnapshotES("products", 1200)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != "reader" || p != "s3cret-pw" {
			w.WriteHeader(401)
			return
		}
		fake.ServeHTTP(w, r)
	}))
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "snap")
	from := strings.Replace(srv.URL, "http://", "http://reader:s3cret-pw@", 1)
	code, stdout, stderr := runCLI(t, nil, "snapshot", "--from", from, "--index", "products", "--out", out, "--page-size", "500")
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"snapshot of products on " + srv.URL + " (Elasticsearch 8.15.0)", "documents  1200", "pit+search_after(_shard_doc), 3 pages of up to 500 documents", "unchanged"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	for _, name := range []string{fixtures.MappingFile, fixtures.CorpusFile, fixtures.MetaFile} {
		b, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "s3cret") || strings.Contains(string(b), "reader") {
			t.Errorf("%s holds the credentials", name)
		}
	}
	if strings.Contains(stdout+stderr, "s3cret") {
		t.Error("the output shows the password")
	}
	code, stdout, stderr = runCLI(t, nil, "fixtures", "--fixtures", out)
	if code != exitOK || !strings.Contains(stdout, "snapshot  of products on "+srv.URL+" (Elasticsearch 8.15.0)") || !strings.Contains(stdout, "workload  none") {
		t.Errorf("fixtures of the snapshot: exit %d\n%s\n%s", code, stdout, stderr)
	}
	// A snapshot alone has no cases: check says what to do.
	code, _, stderr = runCLI(t, nil, "check", "--fixtures", out)
	if code != exitUsage || !strings.Contains(stderr, "no workload.json") {
		t.Errorf("check of a snapshot alone: exit %d, %s", code, stderr)
	}
}

// An engine that stops answering mid-snapshot ends it within --timeout, with no corpus that
// looks complete and the documents read so far kept aside.
func TestSnapshotHangIsBounded(t *testing.T) {
	fake := loadtest.NewFakeSnapshotES("products", 300)
	fake.HangPage = 2
	srv := httptest.NewServer(fake)
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "snap")
	code, _, stderr := runCLI(t, nil, "snapshot", "--from", srv.URL, "--index", "products", "--out", out, "--page-size", "100", "--timeout", "300ms", "--no-progress")
	if code != exitUsage || !strings.Contains(stderr, "100 documents were read before it stopped") {
		t.Fatalf("exit %d, %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, fixtures.CorpusFile)); !os.IsNotExist(err) {
		t.Error("corpus.ndjson written for an unfinished snapshot")
	}
}

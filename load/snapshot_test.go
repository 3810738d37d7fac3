package load

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/conform-dev/conform/fixtures"
	"github.com/conform-dev/conform/load/loadtest"
	"github.com/elastic/elastic-transport-go/v8/elastictransport"
	"github.com/tidwall/gjson"
)

func snapTransport(t *testing.T, url_ string, timeout time.Duration) elastictransport.Interface {
	t.Helper()
	u, _ := url.Parse(url_)
	tp, err := elastictransport.New(elastictransport.Config{URLs: []*url.URL{u}, DisableRetry: true,
		Transport: &http.Transport{ResponseHeaderTimeout: timeout}})
	if err != nil {
		t.Fatal(err)
	}
	return tp
}

func runSnapshot(t *testing.T, e *loadtest.FakeSnapshotES, o SnapshotOptions) (*SnapshotReport, string, error) {
	t.Helper()
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	if o.Dir == "" {
		o.Dir = t.TempDir()
	}
	if o.Index == "" {
		o.Index = e.Index
	}
	o.From = srv.URL
	var log bytes.Buffer
	o.Log = &log
	rep, err := Snapshot(context.Background(), snapTransport(t, srv.URL, 2*time.Second), o)
	return rep, o.Dir, err
}

func TestSnapshotWritesFixtures(t *testing.T) {
	for _, tc := range []struct {
		dialect, method string
		closed          string
	}{
		{"es", SnapshotPIT, "pit pit-2"},
		{"os", SnapshotPIT, "pit pit-2"},
		{"scroll", SnapshotScroll, "scroll"},
	} {
		t.Run(tc.dialect, func(t *testing.T) {
			e := loadtest.NewFakeSnapshotES("products", 2503)
			e.Dialect = tc.dialect
			e.Docs[7][1] = "{ \"n\" : 7 ,\n  \"s\":\"a\\nb\" }" // stored across lines
			var seen []SnapshotProgress
			rep, dir, err := runSnapshot(t, e, SnapshotOptions{PageSize: 1000, Progress: func(p SnapshotProgress) { seen = append(seen, p) }})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Method != tc.method || rep.Documents != 2503 || rep.Reflowed != 1 || rep.Changed != "" {
				t.Errorf("report %+v", rep)
			}
			if len(e.Closed) != 1 || e.Closed[0] != tc.closed {
				t.Errorf("closed %q, want %q (the last id the engine gave)", e.Closed, tc.closed)
			}
			if len(seen) != 3 || seen[2].Documents != 2503 || seen[0].Total != 2503 {
				t.Errorf("progress %+v", seen)
			}
			f, err := fixtures.Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(f.Docs) != 2503 || f.HasWorkload() || f.Workload.Index != "products" {
				t.Fatalf("fixtures: %d docs, workload %v", len(f.Docs), f.HasWorkload())
			}
			for i, d := range f.Docs {
				want := e.Docs[i][1]
				if i == 7 {
					want = "{ \"n\" : 7 ,  \"s\":\"a\\nb\" }" // the line break between tokens is gone, the escaped one kept
				}
				if d.ID != e.Docs[i][0] || string(d.Source) != want {
					t.Fatalf("doc %d: %s %s, want %s %s", i, d.ID, d.Source, e.Docs[i][0], want)
				}
			}
			// The settings that change answers are kept, as the engine wrote them; the
			// cluster's own are left out and named.
			if got := gjson.GetBytes(f.Mapping, "settings.index").Raw; !strings.Contains(got, `"number_of_shards": "1"`) || !strings.Contains(got, `"analysis"`) || strings.Contains(got, "uuid") {
				t.Errorf("settings %s", got)
			}
			if !strings.Contains(strings.Join(rep.Warnings, "\n"), "index.routing, index.provided_name, index.creation_date, index.uuid, index.version") {
				t.Errorf("warnings %q", rep.Warnings)
			}
			sn := f.Meta.Snapshot
			if sn == nil || sn.From == "" || sn.Engine == "" || sn.Method != tc.method || sn.Index != "products" || sn.Started == "" {
				t.Errorf("snapshot meta %+v", sn)
			}
			if _, err := os.Stat(filepath.Join(dir, fixtures.CorpusFile+".partial")); !os.IsNotExist(err) {
				t.Errorf("a temporary file is left: %v", err)
			}
		})
	}
}

// Pages of a point in time are sized by the documents read: the first asks 1000, the next as
// many as make about PageBytes (at most 10,000).
func TestSnapshotSizesPages(t *testing.T) {
	e := loadtest.NewFakeSnapshotES("products", 12500)
	rep, _, err := runSnapshot(t, e, SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Pages != 3 || rep.MaxPage != 10000 || rep.Documents != 12500 {
		t.Errorf("pages %d, largest %d, documents %d; want 3 (1000, 10000, 1500), 10000, 12500", rep.Pages, rep.MaxPage, rep.Documents)
	}
	e = loadtest.NewFakeSnapshotES("products", 1200)
	e.Dialect = "scroll"
	if rep, _, err = runSnapshot(t, e, SnapshotOptions{}); err != nil || rep.Pages != 2 || rep.MaxPage != 1000 {
		t.Errorf("a scroll asks 1000 a page: %+v, %v", rep, err)
	}
}

func TestSnapshotSaysWhenTheIndexChanged(t *testing.T) {
	e := loadtest.NewFakeSnapshotES("products", 1500)
	e.WriteDuring = true
	rep, dir, err := runSnapshot(t, e, SnapshotOptions{PageSize: 1000})
	if err != nil {
		t.Fatal(err)
	}
	want := "count 1500 before, 1501 after; shard 0 max_seq_no 1499 before, 1500 after (the pit+search_after(_shard_doc) read one state of the index, but it is not the state after)"
	if rep.Changed != want {
		t.Errorf("changed %q\nwant %q", rep.Changed, want)
	}
	f, err := fixtures.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if f.Meta.Snapshot.Changed != want {
		t.Errorf("fixtures.json does not record it: %+v", f.Meta.Snapshot)
	}
}

func TestSnapshotFaults(t *testing.T) {
	for _, tc := range []struct {
		why   string
		setup func(e *loadtest.FakeSnapshotES)
		o     SnapshotOptions
		want  string
		// partial: the documents read before the fault are kept in corpus.ndjson.partial.
		partial bool
	}{
		{"a page fails", func(e *loadtest.FakeSnapshotES) { e.FailPage = 2 }, SnapshotOptions{PageSize: 100},
			"POST /_search (a page of the point in time): HTTP 500", true},
		{"a page never comes", func(e *loadtest.FakeSnapshotES) { e.HangPage = 3 }, SnapshotOptions{PageSize: 100},
			"timeout awaiting response headers", true},
		{"no _source", func(e *loadtest.FakeSnapshotES) { e.NoSource = true }, SnapshotOptions{},
			`document "d-00000" has no _source (is _source disabled in the mapping?)`, false},
		{"an alias of two indices", func(e *loadtest.FakeSnapshotES) { e.Aliases = map[string][]string{"all": {"b", "a"}} }, SnapshotOptions{Index: "all"},
			"all names 2 indices (a, b): a snapshot is of one index; name one of them", false},
		{"no such index", func(e *loadtest.FakeSnapshotES) {}, SnapshotOptions{Index: "nope"}, "GET /nope/_mapping: HTTP 404", false},
		{"a point in time forced where there is none", func(e *loadtest.FakeSnapshotES) { e.Dialect = "scroll" }, SnapshotOptions{Method: SnapshotPIT},
			"no point in time: POST /products/_pit answered HTTP 400", false},
		{"an empty index", func(e *loadtest.FakeSnapshotES) { e.Docs = nil }, SnapshotOptions{}, "index products holds no documents", false},
	} {
		t.Run(tc.why, func(t *testing.T) {
			e := loadtest.NewFakeSnapshotES("products", 450)
			tc.setup(e)
			rep, dir, err := runSnapshot(t, e, tc.o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, %+v; want an error containing %q", err, rep, tc.want)
			}
			if _, err := os.Stat(filepath.Join(dir, fixtures.CorpusFile)); !os.IsNotExist(err) {
				t.Errorf("a corpus.ndjson was written for a snapshot that failed")
			}
			_, perr := os.Stat(filepath.Join(dir, fixtures.CorpusFile+".partial"))
			if tc.partial != (perr == nil) {
				t.Errorf("partial corpus kept = %v, want %v", perr == nil, tc.partial)
			}
			if tc.partial && !strings.Contains(err.Error(), "documents were read before it stopped, in ") {
				t.Errorf("the error does not say where the partial read is: %v", err)
			}
			for _, c := range e.Closed {
				if !strings.HasPrefix(c, "pit") && c != "scroll" {
					t.Errorf("closed %q", c)
				}
			}
			if tc.partial && len(e.Closed) != 1 {
				t.Errorf("the point in time was not closed after the fault: %q", e.Closed)
			}
		})
	}
}

// A routed document's _routing is kept in its action line as bulk spells it, "routing", and
// read back into fixtures.Doc; the others' action lines are as before (no routing key).
func TestSnapshotKeepsRouting(t *testing.T) {
	e := loadtest.NewFakeSnapshotES("products", 20)
	e.Routed = true
	rep, dir, err := runSnapshot(t, e, SnapshotOptions{PageSize: 6})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Routed != 7 || strings.Contains(strings.Join(rep.Warnings, "\n"), "_routing") {
		t.Errorf("routed %d, warnings %q; want 7 and no warning about routing", rep.Routed, rep.Warnings)
	}
	corpus, err := os.ReadFile(filepath.Join(dir, fixtures.CorpusFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(corpus), "\n")
	if want := `{"index":{"_id":"d-00000","routing":"r\"é0"}}`; lines[0] != want {
		t.Errorf("first action line %s, want %s", lines[0], want)
	}
	if want := `{"index":{"_id":"d-00001"}}`; lines[2] != want {
		t.Errorf("second action line %s, want %s", lines[2], want)
	}
	f, err := fixtures.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range f.Docs {
		want := ""
		if i%3 == 0 {
			want = loadtest.RoutingOf(i)
		}
		if d.Routing != want {
			t.Errorf("doc %d (%s): routing %q, want %q", i, d.ID, d.Routing, want)
		}
	}
}

func TestOneLine(t *testing.T) {
	for in, want := range map[string]string{
		"{\n\"a\":1\r\n}":             `{"a":1}`,
		`{"a":"x\ny"}`:                `{"a":"x\ny"}`,
		"{\"a\":\"q\\\"\",\n\"b\":2}": `{"a":"q\"","b":2}`,
		"{\"a\":\"\\\\\"\n}":          `{"a":"\\"}`,
	} {
		if got := string(oneLine([]byte(in))); got != want {
			t.Errorf("oneLine(%q) = %q, want %q", in, got, want)
		}
		if !json.Valid(oneLine([]byte(in))) {
			t.Errorf("oneLine(%q) is not JSON", in)
		}
	}
}

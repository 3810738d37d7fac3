//go:build realengines

package realengines

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/conform-dev/conform/fixtures"
)

// deleteIndex removes a scratch index of this file's tests (the YAML tests count whatever the
// cluster holds, so nothing is left behind).
func deleteIndex(t *testing.T, url, index string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodDelete, url+"/"+index+"?ignore_unavailable=true", nil)
	if resp, err := http.DefaultClient.Do(req); err != nil {
		t.Errorf("DELETE /%s: %v", index, err)
	} else {
		resp.Body.Close()
	}
}

// TestSnapshotRoundTrip loads the catalogue into real Elasticsearch 8.15.0 (the price-double
// variant: its zip has no scaled_float) and real OpenSearch 3.6.0 (the designed catalogue),
// takes a conform snapshot of each, and requires the snapshot to hold the same documents as
// the fixtures they were loaded from, _id for _id and _source byte for byte; then loads the
// snapshot back into another index, which load proves intact (count and sample).
func TestSnapshotRoundTrip(t *testing.T) {
	st := state(t)
	fx := priceDouble(t)
	designed := filepath.Join(t.TempDir(), "fixtures-designed")
	mustConform(t, "fixtures", "--out", designed)
	for _, tc := range []struct {
		engine, url, fixtures, method string
	}{
		{"es", st["ES_URL"], fx, "pit+search_after(_shard_doc)"},
		{"os", st["OS_URL"], designed, "pit+search_after(_shard_doc)"},
		{"es-scroll", st["ES_URL"], fx, "scroll(_doc)"},
	} {
		t.Run(tc.engine, func(t *testing.T) {
			src, back := "snap-src-"+tc.engine, "snap-back-"+tc.engine
			defer deleteIndex(t, tc.url, src)
			defer deleteIndex(t, tc.url, back)
			mustConform(t, "load", "--target", "e="+tc.url, "--fixtures", tc.fixtures, "--index", src, "--recreate")
			out := filepath.Join(t.TempDir(), "snap")
			args := []string{"snapshot", "--from", tc.url, "--index", src, "--out", out, "--page-size", "700", "--no-progress"}
			if strings.HasSuffix(tc.engine, "-scroll") {
				args = append(args, "--method", "scroll")
			}
			log := mustConform(t, args...)
			for _, l := range strings.Split(log, "\n") {
				if strings.Contains(l, "documents  ") || strings.Contains(l, "took  ") {
					t.Log(strings.TrimSpace(l))
				}
			}
			want, err := fixtures.Load(tc.fixtures)
			if err != nil {
				t.Fatal(err)
			}
			got, err := fixtures.Load(out)
			if err != nil {
				t.Fatalf("the snapshot does not read as fixtures: %v", err)
			}
			if got.Meta.Snapshot == nil || got.Meta.Snapshot.Method != tc.method || got.Meta.Snapshot.Changed != "" || got.Meta.Snapshot.Index != src {
				t.Errorf("fixtures.json: %+v", got.Meta.Snapshot)
			}
			if len(got.Docs) != len(want.Docs) {
				t.Fatalf("the snapshot holds %d documents, the fixtures %d", len(got.Docs), len(want.Docs))
			}
			byID := make(map[string][]byte, len(want.Docs))
			for _, d := range want.Docs {
				byID[d.ID] = d.Source
			}
			for _, d := range got.Docs {
				w, ok := byID[d.ID]
				if !ok {
					t.Fatalf("the snapshot holds %q, which the fixtures do not", d.ID)
				}
				if string(w) != string(d.Source) {
					t.Fatalf("_source of %s differs:\n fixtures %s\n snapshot %s", d.ID, w, d.Source)
				}
				delete(byID, d.ID)
			}
			if len(byID) != 0 {
				t.Fatalf("%d documents of the fixtures are not in the snapshot", len(byID))
			}
			if got.Meta.SHA256.Corpus == want.Meta.SHA256.Corpus {
				t.Logf("corpus.ndjson is byte for byte the fixtures' (sha256 %s): the engine returned the documents in load order", got.Meta.SHA256.Corpus[:12])
			}
			// The mapping: the fixtures' field types, and the settings that matter.
			var m struct {
				Settings struct{ Index map[string]json.RawMessage } `json:"settings"`
			}
			if err := json.Unmarshal(got.Mapping, &m); err != nil || string(m.Settings.Index["number_of_shards"]) != `"1"` {
				t.Errorf("mapping.json settings: %s", got.Mapping)
			}
			// Loaded back, the snapshot is the same corpus: load proves count and sample.
			mustConform(t, "load", "--target", "e="+tc.url, "--fixtures", out, "--index", back, "--recreate")
			mustConform(t, "load", "--probe", "--target", "e="+tc.url, "--fixtures", tc.fixtures, "--index", back)
		})
	}
}

// TestOwnWorkloadOnRealEngines checks testdata/own-workload (a conform-workload/2 of the
// operations' own labels, with an _mget, an _msearch, a _count, relevance-ordered searches,
// a wildcard query and a HEAD) joined with the price-double corpus: against real
// Elasticsearch with itself as the live oracle every case passes, the wildcard query the
// embedded oracle declines included; against
// OpenSearch 3.6.0 holding the same documents the relevance cases fail on their scores only
// (OpenSearch scores term queries on keywords otherwise), and --relax ignore-scores passes
// them, the hits and their order being the same.
func TestOwnWorkloadOnRealEngines(t *testing.T) {
	st := state(t)
	es, os_ := st["ES_URL"], st["OS_URL"]
	fx := priceDouble(t)
	dir := filepath.Join(t.TempDir(), "own")
	os.MkdirAll(dir, 0o755)
	for _, name := range []string{fixtures.MappingFile, fixtures.CorpusFile} {
		b, _ := os.ReadFile(filepath.Join(fx, name))
		os.WriteFile(filepath.Join(dir, name), b, 0o644)
	}
	wl, err := os.ReadFile(filepath.Join(root, "testdata", "own-workload", fixtures.WorkloadFile))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, fixtures.WorkloadFile), wl, 0o644)
	// Elasticsearch holds it under the workload's own index, catalogue (as TestElasticsearch
	// leaves it), and is the live oracle; OpenSearch, whose catalogue is the designed one,
	// holds it as own-catalogue.
	const osIndex = "own-catalogue"
	defer deleteIndex(t, os_, osIndex)
	mustConform(t, "load", "--target", "es="+es, "--fixtures", dir, "--recreate")
	mustConform(t, "load", "--target", "os="+os_, "--fixtures", dir, "--index", osIndex, "--recreate")

	check := func(target string, args ...string) (int, checkResult) {
		t.Helper()
		js := filepath.Join(t.TempDir(), "check.json")
		code, out := conform(t, append([]string{"check", "--fixtures", dir, "--target", target, "--oracle", "live:" + es, "--json", js}, args...)...)
		var r checkResult
		b, _ := os.ReadFile(js)
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatalf("check.json: %v\n%s", err, tail(out))
		}
		r.out = out
		return code, r
	}
	code, r := check("es=" + es)
	if code != 0 || r.Cases != 12 || r.Passed != 12 || r.Declined != 0 {
		t.Fatalf("Elasticsearch against itself: exit %d, %d of %d passed, %d declined\n%s", code, r.Passed, r.Cases, r.Declined, tail(r.out))
	}
	code, r = check("os="+os_, "--index", osIndex)
	for class := range r.FailuresByClass {
		if class != "score" && class != "sort" {
			t.Errorf("OpenSearch fails class %s besides the scores:\n%s", class, tail(r.out))
		}
	}
	if code != 1 || r.Failed == 0 {
		t.Errorf("OpenSearch strict: exit %d, %d failed; its term-query scores differ from Elasticsearch's\n%s", code, r.Failed, tail(r.out))
	}
	for _, f := range r.Failures {
		if f.Class == "sort" && !strings.HasSuffix(f.Path, ".sort[0]") {
			t.Errorf("a sort difference that is not a _score key's: %+v", f)
		}
	}
	code, r = check("os="+os_, "--index", osIndex, "--relax", "ignore-scores")
	if code != 0 || r.Passed != 12 {
		t.Errorf("OpenSearch with ignore-scores: exit %d, %d of %d passed\n%s", code, r.Passed, r.Cases, tail(r.out))
	}
	if !strings.Contains(r.out, "relaxed: ignore-scores") {
		t.Errorf("the report header does not name the relaxation:\n%s", tail(r.out))
	}
}

type checkResult struct {
	Cases, Passed, Failed, Declined int
	FailuresByClass                 map[string]int `json:"failures_by_class"`
	Failures                        []struct{ Case, Class, Path string }
	out                             string
}

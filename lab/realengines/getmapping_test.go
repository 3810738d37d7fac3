//go:build realengines

package realengines

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/conform-dev/conform/oracle/engine"
)

// TestElasticsearchGetMapping creates each mapping of oracle/engine/testdata/mapping on real
// Elasticsearch 8.15.0 (put-NAME.json as the index body, doc-NAME.json as a first document
// into a missing index; scratch indices rec-NAME, deleted afterwards) and requires GET
// /rec-NAME/_mapping to be byte for byte the embedded engine's answer and the recorded one.
func TestElasticsearchGetMapping(t *testing.T) {
	es := state(t)["ES_URL"]
	client := &http.Client{Timeout: time.Minute}
	call := func(method, path string, body []byte) (int, []byte) {
		t.Helper()
		req, _ := http.NewRequest(method, es+path, strings.NewReader(string(body)))
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		return resp.StatusCode, b
	}
	dir := filepath.Join("..", "..", "oracle", "engine", "testdata", "mapping")
	files, _ := filepath.Glob(filepath.Join(dir, "*-*.json"))
	n := 0
	for _, path := range files {
		base := filepath.Base(path)
		kind, name, _ := strings.Cut(strings.TrimSuffix(base, ".json"), "-")
		if kind != "put" && kind != "doc" || name == "scaled" { // scaled_float: not in 8.15's zip
			continue
		}
		n++
		t.Run(base, func(t *testing.T) {
			body, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			index := "rec-" + name
			target := "/" + index
			if kind == "doc" {
				target += "/_doc/1?refresh=true"
			}
			call("DELETE", "/"+index+"?ignore_unavailable=true", nil)
			defer call("DELETE", "/"+index, nil)
			emb := engine.New()
			if st, b := call("PUT", target, body); st/100 != 2 {
				t.Fatalf("ES PUT %s: %d %s", target, st, b)
			}
			if st, b := emb.Do("PUT", target, body); st/100 != 2 {
				t.Fatalf("embedded PUT %s: %d %s", target, st, b)
			}
			st, live := call("GET", "/"+index+"/_mapping", nil)
			est, got := emb.Do("GET", "/"+index+"/_mapping", nil)
			if st != est || string(live) != string(got) {
				t.Errorf("GET /%s/_mapping:\n ES       %d %s\n embedded %d %s", index, st, live, est, got)
			}
			rec, err := os.ReadFile(filepath.Join(dir, "es-"+kind+"-"+name+".json"))
			if err != nil || strings.TrimSpace(string(rec)) != string(live) {
				t.Errorf("the recording es-%s-%s.json is not what ES answers now (%v):\n %s", kind, name, err, live)
			}
		})
	}
	if n < 5 {
		t.Fatalf("found %d mappings under %s, want at least 5", n, dir)
	}
}

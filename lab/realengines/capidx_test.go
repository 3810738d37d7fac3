//go:build realengines

package realengines

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/conform-dev/conform/conformance"
	"github.com/elastic/go-elasticsearch/v8"
	"github.com/elastic/go-elasticsearch/v8/esapi"
)

// tieDocs are 60 documents whose keyword g takes three values (20 ties each) and whose n is
// unique: a sort on g has long ties, one on n none.
func tieDocs() []string {
	var docs []string
	for i := range 60 {
		docs = append(docs, fmt.Sprintf(`{"g":"g%d","n":%d,"t":"w%d"}`, i%3, i, i%7))
	}
	return docs
}

// loadTies creates index on url with a one-shard keyword/integer mapping and bulk-loads the
// documents in the given order (ids d00..d59 by position in tieDocs), refreshed.
func loadTies(t *testing.T, url, index string, reverse bool) {
	t.Helper()
	deleteIndex(t, url, index)
	mustHTTP(t, "PUT", url+"/"+index, `{"settings":{"number_of_shards":1,"number_of_replicas":0},"mappings":{"properties":{"g":{"type":"keyword"},"n":{"type":"integer"},"t":{"type":"keyword"}}}}`)
	docs := tieDocs()
	var b strings.Builder
	for k := range docs {
		i := k
		if reverse {
			i = len(docs) - 1 - k
		}
		fmt.Fprintf(&b, "{\"index\":{\"_id\":\"d%02d\"}}\n%s\n", i, docs[i])
	}
	mustHTTP(t, "POST", url+"/"+index+"/_bulk?refresh=true", b.String())
	t.Cleanup(func() { deleteIndex(t, url, index) })
}

// mustHTTP sends a request with a JSON (or NDJSON for _bulk and _msearch) body and fails the
// test on a status above 299 or an error item.
func mustHTTP(t *testing.T, method, url, body string) []byte {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	ct := "application/json"
	if strings.Contains(url, "/_bulk") || strings.Contains(url, "/_msearch") {
		ct = "application/x-ndjson"
	}
	req.Header.Set("Content-Type", ct)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode > 299 || bytes.Contains(b, []byte(`"errors":true`)) {
		t.Fatalf("%s %s: %d %s", method, url, resp.StatusCode, b)
	}
	return b
}

// TestShadowMsearchTiesRealEngines: conform shadow with real Elasticsearch 8.15.0 as the
// primary and real OpenSearch 3.6.0 as the candidate, both holding the same documents, and an
// _msearch (sent through the shadow by go-elasticsearch) whose items sort on a keyword with long ties. Each
// layout is run: the same load order on both engines, and OpenSearch loaded in the reverse
// order (another segment layout, as a cluster built otherwise has). Under shadow's default
// tie-order the read passes; with --strict-ties it fails as ids exactly when the engines
// order a tie differently, which the test measures itself: it sends the same _msearch to
// both and checks OpenSearch's answer against Elasticsearch's in process, and requires the
// relaxations it reports (by item path) to be the reason, never a test that cannot fail.
func TestShadowMsearchTiesRealEngines(t *testing.T) {
	st := state(t)
	es, os_ := st["ES_URL"], st["OS_URL"]
	const index = "capidx-ties"
	body := "{\"index\":\"" + index + "\"}\n{\"sort\":[\"g\"],\"size\":10}\n" + // open at the page end
		"{}\n{\"query\":{\"term\":{\"g\":\"g1\"}},\"sort\":[\"g\"],\"from\":5,\"size\":5}\n" + // open at both edges
		"{\"index\":[\"" + index + "\"]}\n{\"sort\":[\"n\"],\"size\":5}\n" + // no ties
		"{}\n{\"sort\":[{\"g\":\"desc\"},\"t\"],\"size\":25}\n" + // ties on the tuple only
		"{}\n{\"query\":{\"match_all\":{}},\"size\":8}\n" // relevance order: every score 1.0
	for _, layout := range []struct {
		name    string
		reverse bool
	}{{"same-load-order", false}, {"opensearch-reversed", true}} {
		t.Run(layout.name, func(t *testing.T) {
			loadTies(t, es, index, false)
			loadTies(t, os_, index, layout.reverse)
			pStatus, pBody := 200, mustHTTP(t, "POST", es+"/"+index+"/_msearch", body)
			cStatus, cBody := 200, mustHTTP(t, "POST", os_+"/"+index+"/_msearch", body)
			x, err := conformance.CompileAny(pStatus, pBody)
			if err != nil || x.Kind() != conformance.KindMsearch {
				t.Fatalf("Elasticsearch's answer: %v %s", err, pBody)
			}
			x.ForRequest([]byte(body))
			strict := x.Check(cStatus, cBody, nil)
			relaxed := x.Check(cStatus, cBody, &conformance.Options{Relax: []conformance.Relaxation{conformance.RelaxTieOrder}})
			var paths []string
			for _, d := range relaxed.Diffs {
				if d.Relaxed == conformance.RelaxTieOrder {
					paths = append(paths, d.Path)
				}
			}
			t.Logf("%s: strict pass %v (failing %v), tie-order pass %v, relaxed %d: %v", layout.name, strict.Pass, strict.FailingClasses(), relaxed.Pass, len(paths), paths)
			if !relaxed.Pass {
				t.Fatalf("OpenSearch's _msearch fails under tie-order:\n%s", relaxed)
			}
			if strict.Pass != (len(paths) == 0) {
				t.Fatalf("strict pass %v but %d relaxations:\n%s", strict.Pass, len(paths), relaxed)
			}
			if fc := strict.FailingClasses(); !strict.Pass && (len(fc) != 1 || fc[0] != conformance.ClassIDs) {
				t.Errorf("the strict check fails beyond ids:\n%s", strict)
			}
			for _, p := range paths {
				if !strings.HasPrefix(p, "responses[") || strings.HasPrefix(p, "responses[2].") {
					t.Errorf("relaxation at %s: not an item's, or in the item without ties", p)
				}
			}
			if layout.reverse && len(paths) == 0 {
				t.Errorf("OpenSearch loaded in reverse order orders every tie as Elasticsearch does: the layout did not change")
			}

			for _, strictTies := range []bool{false, true} {
				dir := filepath.Join(t.TempDir(), "shadow")
				args := []string{"shadow", "--primary", es, "--candidate", os_, "--out", dir}
				if strictTies {
					args = append(args, "--strict-ties")
				}
				p := startProxy(t, args...)
				msearchVia(t, p.url, index, body)
				code := p.stop(t)
				var r shadowReport
				b, _ := os.ReadFile(filepath.Join(dir, "shadow.json"))
				if err := json.Unmarshal(b, &r); err != nil {
					t.Fatalf("shadow exit %d, no shadow.json: %v\n%s", code, err, p.stderr.String())
				}
				t.Logf("--strict-ties %v: %d checked, %d passed, %d failed %v (%s), exit %d", strictTies, r.Checked, r.Passed, r.Failed, r.FailedByClass, r.Check, code)
				wantPass := !strictTies || strict.Pass
				if r.Checked != 1 || (r.Passed == 1) != wantPass || (code == 0) != wantPass {
					t.Errorf("--strict-ties %v: want pass %v\n%s\n%s", strictTies, wantPass, b, p.stderr.String())
				}
				if !wantPass && r.FailedByClass["ids"] != 1 {
					t.Errorf("--strict-ties fails otherwise than as ids: %v", r.FailedByClass)
				}
				if !wantPass {
					// The failing read is a replayable case with the primary's answer: checked
					// again against OpenSearch with the relaxation named, it passes.
					js := filepath.Join(t.TempDir(), "check.json")
					code, out := conform(t, "check", "--fixtures", dir, "--oracle", "golden:"+filepath.Join(dir, "golden.json"),
						"--target", "os="+os_, "--relax", "tie-order", "--json", js)
					if code != 0 {
						t.Errorf("the shadow's failing _msearch replayed with --relax tie-order: exit %d\n%s", code, tail(out))
					}
				}
			}
		})
	}
}

// msearchVia sends the _msearch with go-elasticsearch (which reaches only Elasticsearch, or a
// proxy in front of it: it refuses another product) and returns the answer.
func msearchVia(t *testing.T, url, index, body string) (int, []byte) {
	t.Helper()
	c, err := elasticsearch.NewClient(elasticsearch.Config{Addresses: []string{url}, DisableRetry: true})
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Msearch(strings.NewReader(body), c.Msearch.WithIndex(index))
	if err != nil {
		t.Fatalf("msearch on %s: %v", url, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 || bytes.Count(b, []byte(`"status":200`)) != 5 {
		t.Fatalf("msearch on %s: %d %s", url, res.StatusCode, b)
	}
	return res.StatusCode, b
}

// TestCaptureMsearchMgetOtherIndex: a go-elasticsearch session of _msearch and _mget against
// real Elasticsearch index capidx-a, naming the index in the bodies (header lines, docs) as
// clients do, is captured; the workload says {index} there. Joined with a snapshot of the
// index and checked against Elasticsearch holding the same documents as capidx-b only
// (--index capidx-b, the embedded engine as the oracle), every case passes. The same workload
// with the name written literally, as capture wrote it before, still runs and fails exactly
// the cases that name it in the body: the replacement is what makes the workload portable.
func TestCaptureMsearchMgetOtherIndex(t *testing.T) {
	es := state(t)["ES_URL"]
	loadTies(t, es, "capidx-a", false)
	t.Cleanup(func() { deleteIndex(t, es, "capidx-b") })
	capDir := filepath.Join(t.TempDir(), "captured")
	p := startProxy(t, "capture", "--upstream", es, "--out", capDir)
	c, err := elasticsearch.NewClient(elasticsearch.Config{Addresses: []string{p.url}, DisableRetry: true})
	if err != nil {
		t.Fatal(err)
	}
	do := func(name string, res *esapi.Response, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode != 200 || bytes.Contains(b, []byte(`"error"`)) {
			t.Fatalf("%s: %d %s", name, res.StatusCode, b)
		}
	}
	// The first read names its index only in the body: it becomes the workload's.
	res, err := c.Msearch(strings.NewReader("{\"index\":\"capidx-a\"}\n{\"query\":{\"term\":{\"g\":\"g1\"}},\"sort\":[\"n\"],\"size\":5}\n" +
		"{\"index\":[\"capidx-a\"],\"preference\":\"capidx-a\"}\n{\"sort\":[{\"n\":\"desc\"}],\"size\":3}\n" +
		"{\"index\":\"capidx-a\"}\n{\"query\":{\"term\":{\"t\":\"capidx-a\"}},\"size\":3}\n"))
	do("msearch", res, err)
	// An empty first header line names the path's index (Elasticsearch 8 reads it as a
	// header); capture keeps it as {}.
	res, err = c.Msearch(strings.NewReader("\n{\"sort\":[\"n\"],\"size\":2}\n{}\n{\"query\":{\"range\":{\"n\":{\"gte\":50}}},\"sort\":[\"n\"]}\n"), c.Msearch.WithIndex("capidx-a"))
	do("msearch-path", res, err)
	res, err = c.Mget(strings.NewReader(`{"docs":[{"_index":"capidx-a","_id":"d01"},{"_index":"capidx-a","_id":"nope"},{"_index":"capidx-a","_id":"d59","_source":["n"]}]}`))
	do("mget", res, err)
	res, err = c.Mget(strings.NewReader(`{"ids":["d02","d03"]}`), c.Mget.WithIndex("capidx-a"))
	do("mget-ids", res, err)
	if code := p.stop(t); code != 0 {
		t.Fatalf("capture exit %d\n%s", code, p.stderr.String())
	}
	wl, err := os.ReadFile(filepath.Join(capDir, "workload.json"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("captured:\n%s", wl)
	var w struct {
		Index string
		Cases []struct {
			Name, Path string
			Body       json.RawMessage
			NDJSON     []json.RawMessage
		}
	}
	if err := json.Unmarshal(wl, &w); err != nil || w.Index != "capidx-a" || len(w.Cases) != 4 {
		t.Fatalf("workload: index %q, %d cases, %v", w.Index, len(w.Cases), err)
	}
	for _, cs := range w.Cases {
		var b strings.Builder
		b.Write(cs.Body)
		for _, l := range cs.NDJSON {
			b.Write(l)
		}
		// Only the value of t ("capidx-a" as a term) and the preference keep the name.
		if n := strings.Count(b.String(), `"capidx-a"`); n != strings.Count(b.String(), `"t":"capidx-a"`)+strings.Count(b.String(), `"preference":"capidx-a"`) {
			t.Errorf("%s names the index literally: %s", cs.Name, b.String())
		}
	}

	// Joined with a snapshot of capidx-a, loaded as capidx-b; capidx-a is then gone.
	fx := filepath.Join(t.TempDir(), "fx")
	mustConform(t, "snapshot", "--from", es, "--index", "capidx-a", "--out", fx)
	if err := os.WriteFile(filepath.Join(fx, "workload.json"), wl, 0o644); err != nil {
		t.Fatal(err)
	}
	mustConform(t, "load", "--target", "es="+es, "--fixtures", fx, "--index", "capidx-b", "--recreate")
	deleteIndex(t, es, "capidx-a")

	check := func(dir string) *checkReport {
		js := filepath.Join(t.TempDir(), "check.json")
		code, out := conform(t, "check", "--fixtures", dir, "--target", "es="+es, "--index", "capidx-b", "--json", js)
		r := &checkReport{out: out}
		b, _ := os.ReadFile(js)
		if err := json.Unmarshal(b, r); err != nil {
			t.Fatalf("check exit %d, no JSON report: %v\n%s", code, err, tail(out))
		}
		return r
	}
	r := check(fx)
	t.Logf("capidx-b, workload with {index}: %d cases, %d passed, %d failed\n%s", r.Cases, r.Passed, r.Failed, tail(r.out))
	if r.Cases != 4 || r.Passed != 4 {
		t.Errorf("against capidx-b: %d of %d passed\n%s", r.Passed, r.Cases, tail(r.out))
	}

	// The workload as capture wrote it before: the name literal in the bodies.
	old := filepath.Join(t.TempDir(), "fx-literal")
	if err := os.MkdirAll(old, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"mapping.json", "corpus.ndjson", "fixtures.json"} {
		b, err := os.ReadFile(filepath.Join(fx, f))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(old, f), b, 0o644)
	}
	lines := strings.Split(string(wl), "\n")
	for i := 1; i < len(lines); i++ { // the header line keeps its index; paths keep {index}
		lines[i] = strings.ReplaceAll(lines[i], `"_index":"{index}"`, `"_index":"capidx-a"`)
		lines[i] = strings.ReplaceAll(lines[i], `{"index":"{index}"}`, `{"index":"capidx-a"}`)
		lines[i] = strings.ReplaceAll(lines[i], `{"index":["{index}"]`, `{"index":["capidx-a"]`)
		lines[i] = strings.ReplaceAll(lines[i], `?index={index}`, `?index=capidx-a`) // the path's index wins there
	}
	os.WriteFile(filepath.Join(old, "workload.json"), []byte(strings.Join(lines, "\n")), 0o644)
	lr := check(old)
	failing := lr.failing()
	t.Logf("capidx-b, workload with the name literal: %d cases, %d passed, %d failed %v", lr.Cases, lr.Passed, lr.Failed, failing)
	if lr.Cases != 4 || lr.Failed != 2 || !failing["msearch/000"] || !failing["mget/000"] {
		t.Errorf("the literal workload: want msearch/000 and mget/000 failing (they name capidx-a, gone), the others passing\n%s", tail(lr.out))
	}
}

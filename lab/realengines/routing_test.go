//go:build realengines

package realengines

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/conform-dev/conform/fixtures"
)

// httpDo sends one request to a real engine and returns its status and body.
func httpDo(t *testing.T, method, url, contentType, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// routingWorkload is a conform-workload/2 over the routed index: searches returning the routed
// documents (all of them, the exists query on _routing, an ids query), a get of a routed
// document with its routing, a HEAD, and an _mget naming one document's routing.
const routingWorkload = `{"format":"conform-workload/2","index":"routing-src","cases":[
{"name":"search-all/000","op":"search-all","method":"POST","path":"/{index}/_search","body":{"query":{"match_all":{}},"sort":[{"n":"asc"}],"size":30}},
{"name":"search-routed/000","op":"search-routed","method":"POST","path":"/{index}/_search","body":{"query":{"exists":{"field":"_routing"}},"sort":[{"n":"asc"}]}},
{"name":"search-ids/000","op":"search-ids","method":"POST","path":"/{index}/_search","body":{"query":{"ids":{"values":["d00","d01","d03","d19"]}},"sort":[{"n":"asc"}]}},
{"name":"get-routed/000","op":"get-routed","method":"GET","path":"/{index}/_doc/d00?routing=r"},
{"name":"get-routed/001","op":"get-routed","method":"GET","path":"/{index}/_doc/d03?routing=s"},
{"name":"get-plain/000","op":"get-plain","method":"GET","path":"/{index}/_doc/d01"},
{"name":"mget/000","op":"mget","method":"POST","path":"/{index}/_mget","body":{"docs":[{"_id":"d00","routing":"r"},{"_id":"d01"}]}}
]}
`

// TestRoutingSnapshotRoundTrip indexes 20 documents on real Elasticsearch 8.15.0, 7 of them
// with a custom routing, snapshots the index, loads the snapshot into another index there and
// into OpenSearch 3.6.0, and checks it with the embedded oracle: every case passes, as it
// must since the target is Elasticsearch itself. The same check with the routing stripped
// from corpus.ndjson (the snapshot's old behaviour) fails on every answer showing a routed
// document. A second index whose mapping requires routing goes the same way, with a get
// without routing (routing_missing_exception) among its cases.
func TestRoutingSnapshotRoundTrip(t *testing.T) {
	st := state(t)
	es, os_ := st["ES_URL"], st["OS_URL"]
	const src, cp, req, reqCopy = "routing-src", "routing-copy", "routing-req", "routing-req-copy"
	for _, ix := range []string{src, cp, req, reqCopy} {
		deleteIndex(t, es, ix)
		defer deleteIndex(t, es, ix)
	}
	deleteIndex(t, os_, cp)
	defer deleteIndex(t, os_, cp)

	// routed is d00, d03, ..., d18: "r" for the even ones, "s" for the odd.
	routing := func(i int) string {
		if i%3 != 0 {
			return ""
		}
		return []string{"r", "s"}[i%2]
	}
	index := func(name, mapping string, all bool) {
		t.Helper()
		if code, body := httpDo(t, "PUT", es+"/"+name, "application/json", `{"settings":{"number_of_shards":1,"number_of_replicas":0},"mappings":`+mapping+`}`); code != 200 {
			t.Fatalf("creating %s: %d %s", name, code, body)
		}
		var b strings.Builder
		for i := 0; i < 20; i++ {
			r := routing(i)
			if all && r == "" {
				r = "t"
			}
			if r != "" {
				fmt.Fprintf(&b, `{"index":{"_id":"d%02d","routing":%q}}`+"\n", i, r)
			} else {
				fmt.Fprintf(&b, `{"index":{"_id":"d%02d"}}`+"\n", i)
			}
			fmt.Fprintf(&b, `{"n":%d,"k":"v%d"}`+"\n", i, i%4)
		}
		if code, body := httpDo(t, "POST", es+"/"+name+"/_bulk?refresh=true", "application/x-ndjson", b.String()); code != 200 || strings.Contains(body, `"errors":true`) {
			t.Fatalf("bulk into %s: %d %s", name, code, body)
		}
	}
	index(src, `{"properties":{"n":{"type":"long"},"k":{"type":"keyword"}}}`, false)

	snap := filepath.Join(t.TempDir(), "snap")
	log := mustConform(t, "snapshot", "--from", es, "--index", src, "--out", snap, "--no-progress")
	if !strings.Contains(log, "routed     7 documents") || strings.Contains(log, "does not keep") {
		t.Errorf("the snapshot's report does not count the 7 routed documents:\n%s", log)
	}
	corpus, err := os.ReadFile(filepath.Join(snap, fixtures.CorpusFile))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(corpus), `,"routing":"`); n != 7 {
		t.Errorf("corpus.ndjson holds %d routings, want 7:\n%s", n, corpus)
	}
	f, err := fixtures.Load(snap)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range f.Docs {
		var i int
		fmt.Sscanf(d.ID, "d%d", &i)
		if d.Routing != routing(i) {
			t.Errorf("%s: routing %q, want %q", d.ID, d.Routing, routing(i))
		}
	}
	if err := os.WriteFile(filepath.Join(snap, fixtures.WorkloadFile), []byte(routingWorkload), 0o644); err != nil {
		t.Fatal(err)
	}

	// Loaded back (load proves count and sample, reading each routed document with its routing).
	mustConform(t, "load", "--target", "es="+es, "--fixtures", snap, "--index", cp, "--recreate")
	mustConform(t, "load", "--target", "os="+os_, "--fixtures", snap, "--index", cp, "--recreate")
	for name, url := range map[string]string{"Elasticsearch": es, "OpenSearch": os_} {
		code, body := httpDo(t, "GET", url+"/"+cp+"/_doc/d03?routing=s", "", "")
		if code != 200 || !strings.Contains(body, `"_routing":"s"`) {
			t.Errorf("%s %s/_doc/d03?routing=s: %d %s", name, cp, code, body)
		}
	}

	check := func(dir string, args ...string) (int, checkResult) {
		t.Helper()
		js := filepath.Join(t.TempDir(), "check.json")
		code, out := conform(t, append([]string{"check", "--fixtures", dir, "--json", js, "--no-progress"}, args...)...)
		var r checkResult
		b, _ := os.ReadFile(js)
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatalf("check.json: %v\n%s", err, tail(out))
		}
		r.out = out
		return code, r
	}
	// --pedantic fails the report-only classes too, _routing's ("other") among them; on the
	// workload's own index only, since another name differs in every _index (class other).
	for _, ix := range []string{src, cp} {
		modes := []string{"--strict", "--pedantic"}
		if ix != src {
			modes = modes[:1]
		}
		for _, mode := range modes {
			args := []string{"--target", "es=" + es, "--index", ix}
			if mode == "--pedantic" {
				args = append(args, mode)
			}
			code, r := check(snap, args...)
			if code != 0 || r.Cases != 7 || r.Passed != 7 || r.Declined != 0 {
				t.Errorf("Elasticsearch %s %s, embedded oracle: exit %d, %d of %d passed, %d declined\n%s", ix, mode, code, r.Passed, r.Cases, r.Declined, tail(r.out))
			}
			t.Logf("check of %s %s (embedded oracle): %d of %d passed, %d failed", ix, mode, r.Passed, r.Cases, r.Failed)
		}
	}
	code, r := check(snap, "--target", "os="+os_, "--index", cp, "--relax", "opensearch")
	t.Logf("check of OpenSearch %s (embedded oracle, --relax opensearch): exit %d, %d of %d passed, %d failed %v", cp, code, r.Passed, r.Cases, r.Failed, r.FailuresByClass)

	// The old behaviour: the routing stripped from the corpus (fixtures.json's corpus hash left
	// out, since the bytes changed). The target holds the routed documents, the oracle not.
	stripped := filepath.Join(t.TempDir(), "stripped")
	os.MkdirAll(stripped, 0o755)
	for _, name := range []string{fixtures.MappingFile, fixtures.WorkloadFile} {
		b, _ := os.ReadFile(filepath.Join(snap, name))
		os.WriteFile(filepath.Join(stripped, name), b, 0o644)
	}
	os.WriteFile(filepath.Join(stripped, fixtures.CorpusFile), regexp.MustCompile(`,"routing":"[^"]*"`).ReplaceAll(corpus, nil), 0o644)
	// By default a hit's or a get's extra _routing is class other, reported, not failing; the
	// exists query on _routing finds nothing in the oracle and fails (ids, totals).
	code, r = check(stripped, "--target", "es="+es, "--index", src)
	if code != 1 || r.Failed != 1 || r.Failures[0].Case != "search-routed/000" {
		t.Errorf("with the routing stripped the exists query on _routing should fail alone: exit %d, %d failed\n%s", code, r.Failed, tail(r.out))
	}
	t.Logf("routing stripped from corpus.ndjson (the old snapshot), strict: exit %d, %d of %d cases failed, failures by class %v", code, r.Failed, r.Cases, r.FailuresByClass)
	// Under --pedantic every case whose answer shows a routed document fails: all but the get
	// of the unrouted d01.
	code, r = check(stripped, "--target", "es="+es, "--index", src, "--pedantic")
	if code != 1 || r.Failed != 6 {
		t.Errorf("with the routing stripped, --pedantic should fail 6 cases: exit %d, %d failed\n%s", code, r.Failed, tail(r.out))
	}
	t.Logf("routing stripped from corpus.ndjson (the old snapshot), pedantic: exit %d, %d of %d cases failed, failures by class %v", code, r.Failed, r.Cases, r.FailuresByClass)

	// _routing.required: kept in mapping.json, loaded back, and answered as Elasticsearch does.
	index(req, `{"_routing":{"required":true},"properties":{"n":{"type":"long"},"k":{"type":"keyword"}}}`, true)
	snapReq := filepath.Join(t.TempDir(), "snap-req")
	mustConform(t, "snapshot", "--from", es, "--index", req, "--out", snapReq, "--no-progress")
	mapping, _ := os.ReadFile(filepath.Join(snapReq, fixtures.MappingFile))
	var m struct {
		Mappings struct {
			Routing struct{ Required bool } `json:"_routing"`
		}
	}
	if err := json.Unmarshal(mapping, &m); err != nil || !m.Mappings.Routing.Required {
		t.Errorf("mapping.json lost _routing.required: %s", mapping)
	}
	wl := strings.Replace(routingWorkload, `"index":"routing-src"`, `"index":"`+req+`"`, 1)
	wl = strings.Replace(wl, `"path":"/{index}/_doc/d01"}`, `"path":"/{index}/_doc/d01"},
{"name":"get-missing-routing/000","op":"get-missing-routing","method":"GET","path":"/{index}/_doc/d00"},
{"name":"get-plain/001","op":"get-plain","method":"GET","path":"/{index}/_doc/d01?routing=t"}`, 1)
	if err := os.WriteFile(filepath.Join(snapReq, fixtures.WorkloadFile), []byte(wl), 0o644); err != nil {
		t.Fatal(err)
	}
	mustConform(t, "load", "--target", "es="+es, "--fixtures", snapReq, "--index", reqCopy, "--recreate")
	for _, ix := range []string{req, reqCopy} {
		args := []string{"--target", "es=" + es, "--index", ix}
		if ix == req {
			args = append(args, "--pedantic")
		}
		code, r := check(snapReq, args...)
		if code != 0 || r.Cases != 9 || r.Passed != 9 || r.Declined != 0 {
			t.Errorf("Elasticsearch %s (routing required), embedded oracle: exit %d, %d of %d passed, %d declined\n%s", ix, code, r.Passed, r.Cases, r.Declined, tail(r.out))
		}
		t.Logf("check of %s (routing required, embedded oracle) %q: %d of %d passed, %d failed", ix, args[4:], r.Passed, r.Cases, r.Failed)
	}
}

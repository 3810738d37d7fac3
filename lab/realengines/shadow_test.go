//go:build realengines

package realengines

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/conform-dev/conform/conformance/proxy/proxytest"
	"github.com/elastic/go-elasticsearch/v8"
	"github.com/elastic/go-elasticsearch/v8/esapi"
)

// answer is one request of a scripted client session and what came back.
type answer struct {
	Name   string          `json:"name"`
	Status int             `json:"status"`
	Body   json.RawMessage `json:"body"`
}

var shadowTookRE = regexp.MustCompile(`"took":\s*\d+`)

// same compares two runs of a session answer by answer; took is a measurement, not an answer.
func same(t *testing.T, client string, direct, proxied []answer) {
	t.Helper()
	if len(direct) != len(proxied) {
		t.Fatalf("%s: %d answers directly, %d through the proxy", client, len(direct), len(proxied))
	}
	for i := range direct {
		d, p := shadowTookRE.ReplaceAllString(string(direct[i].Body), `"took":0`), shadowTookRE.ReplaceAllString(string(proxied[i].Body), `"took":0`)
		if direct[i].Name != proxied[i].Name || direct[i].Status != proxied[i].Status || d != p {
			t.Errorf("%s %s: directly %d %s\nthrough the proxy %d %s", client, direct[i].Name, direct[i].Status, d, proxied[i].Status, p)
		}
	}
}

// goSession runs a scripted session of go-elasticsearch's esapi against url: the reads a
// catalogue application makes (including the requests OpenSearch 3.6 answers otherwise,
// docs/OPENSEARCH.md), and one write to a scratch index.
func goSession(t *testing.T, url, scratch string) []answer {
	t.Helper()
	es, err := elasticsearch.NewClient(elasticsearch.Config{Addresses: []string{url}, DisableRetry: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var out []answer
	do := func(name string, res *esapi.Response, err error) {
		if err != nil {
			t.Fatalf("go session %s on %s: %v", name, url, err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if len(b) == 0 {
			b = []byte("null")
		}
		out = append(out, answer{Name: name, Status: res.StatusCode, Body: b})
	}
	search := func(name, body string) {
		res, err := es.Search(es.Search.WithContext(ctx), es.Search.WithIndex("catalogue"), es.Search.WithBody(strings.NewReader(body)))
		do(name, res, err)
	}
	search("search-term", `{"query":{"term":{"brand":"acme"}},"sort":[{"price":"desc"},"sku"],"size":10}`)
	search("filtered-page", `{"query":{"bool":{"filter":[{"range":{"rating":{"gte":3}}},{"terms":{"category":["garden","toys"]}}]}},"sort":[{"views":"desc"},"sku"],"size":20}`)
	search("int-sort-missing", `{"sort":[{"stock":{"missing":"_first"}},"sku"],"size":5}`)
	search("sort-mode-avg", `{"sort":[{"stock":{"mode":"avg"}},"sku"],"size":5}`)
	search("null-keyword-after", `{"sort":["tags","sku"],"track_total_hits":false,"search_after":[null,"SKU-48164"],"size":5}`)
	search("after-aggs", `{"query":{"ids":{"values":["SKU-33107"]}},"sort":["views","sku"],"track_total_hits":false,"aggs":{"a0":{"terms":{"field":"sku"}}},"search_after":[399000,"SKU-09836"]}`)
	search("terms", `{"size":0,"aggs":{"brands":{"terms":{"field":"brand"}}}}`)
	res, err := es.Count(es.Count.WithIndex("catalogue"), es.Count.WithBody(strings.NewReader(`{"query":{"range":{"views":{"gte":1000}}}}`)))
	do("count", res, err)
	res, err = es.Get("catalogue", "SKU-33107")
	do("get", res, err)
	res, err = es.Get("catalogue", "no-such-doc")
	do("get-missing", res, err)
	res, err = es.Exists("catalogue", "SKU-33107")
	do("exists", res, err)
	res, err = es.Mget(strings.NewReader(`{"ids":["SKU-33107","SKU-09836","nope"]}`), es.Mget.WithIndex("catalogue"))
	do("mget", res, err)
	res, err = es.Msearch(strings.NewReader("{\"index\":\"catalogue\"}\n{\"query\":{\"term\":{\"brand\":\"acme\"}},\"sort\":[\"sku\"],\"size\":2}\n{\"index\":\"catalogue\"}\n{\"size\":0,\"track_total_hits\":true}\n"))
	do("msearch", res, err)
	res, err = es.Index(scratch, strings.NewReader(`{"a":1}`), es.Index.WithDocumentID("1"), es.Index.WithRefresh("true"))
	do("write", res, err)
	search("search-term-again", `{"query":{"term":{"brand":"acme"}},"sort":[{"price":"desc"},"sku"],"size":10}`)
	if res, err := es.Indices.Delete([]string{scratch}); err == nil {
		res.Body.Close()
	}
	return out
}

// pythonSession runs testdata/session.py with the Python elasticsearch client 8.15 that
// lab/clients/install.sh installs; it skips, but under CI=true fails, when Python or pip cannot
// provide one.
func pythonSession(t *testing.T, url, scratch string) []answer {
	t.Helper()
	py := pythonClient(t)
	cmd := exec.Command(py, filepath.Join(root, "lab", "realengines", "testdata", "session.py"), url, scratch)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("python session on %s: %v\n%s", url, err, stderr.String())
	}
	var out []answer
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var a answer
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			t.Fatalf("python session line %q: %v", sc.Text(), err)
		}
		out = append(out, a)
	}
	return out
}

// pythonClient is the Python elasticsearch 8.15 client's interpreter, from the venv
// lab/clients/install.sh keeps under .engines/clients (the one TestPythonClient uses).
func pythonClient(t *testing.T) string {
	t.Helper()
	return filepath.Join(installClients(t), "py8", "bin", "python")
}

// freeAddr is a loopback address nobody listens on now.
func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// proxyProcess is conform capture or shadow running as its own process.
type proxyProcess struct {
	cmd    *exec.Cmd
	url    string
	stdout bytes.Buffer
	stderr bytes.Buffer
}

func startProxy(t *testing.T, args ...string) *proxyProcess {
	t.Helper()
	addr := freeAddr(t)
	p := &proxyProcess{url: "http://" + addr}
	p.cmd = exec.Command(bin, append(args, "--listen", addr)...)
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.cmd.Process.Kill(); p.cmd.Wait() })
	deadline := time.Now().Add(30 * time.Second)
	for {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("conform %s never listened:\n%s", args[0], p.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stop interrupts it as Ctrl-C does and returns its exit status.
func (p *proxyProcess) stop(t *testing.T) int {
	t.Helper()
	p.cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(60 * time.Second):
		t.Fatalf("conform did not end within 60 s of Ctrl-C:\n%s", p.stderr.String())
		return -1
	}
}

// priceDoubleDir is the fixtures loadBoth loaded last.
var priceDoubleDir string

// loadBoth loads the price-double catalogue into Elasticsearch and OpenSearch alike: the same
// documents and the same mapping on both sides of a shadow.
func loadBoth(t *testing.T) (es, os_ string) {
	st := state(t)
	es, os_ = st["ES_URL"], st["OS_URL"]
	fx := priceDouble(t)
	priceDoubleDir = fx
	mustConform(t, "load", "--target", "es="+es, "--target", "os="+os_, "--fixtures", fx, "--recreate")
	return es, os_
}

// documented are the classes OpenSearch 3.6's documented divergences fail with
// (docs/OPENSEARCH.md): int sort values (sort), HTTP 500s (status, error), aggregations over
// a pruned set.
var documented = map[string]bool{"sort": true, "status": true, "error": true, "aggregations": true, "ids": true, "sources": true}

// TestCaptureRealClients: go-elasticsearch and the Python client run a scripted session
// through conform capture in front of real Elasticsearch 8.15.0 and get the answers they get
// directly; each captured workload checks clean against Elasticsearch (--oracle live:).
// Against OpenSearch, the Go client's workload fails where docs/OPENSEARCH.md says it does
// and passes with --relax opensearch once joined with the corpus and mapping the engines
// hold (a capture holds no mapping for the relaxations to read); the Python client's, which
// sends Elasticsearch 8's compatibility media type, OpenSearch refuses with HTTP 406.
func TestCaptureRealClients(t *testing.T) {
	es, os_ := loadBoth(t)
	goDir := filepath.Join(t.TempDir(), "captured-go")
	p := startProxy(t, "capture", "--upstream", es, "--out", goDir)
	same(t, "go-elasticsearch", goSession(t, es, "scratch-direct"), goSession(t, p.url, "scratch-direct"))
	if code := p.stop(t); code != 0 {
		t.Fatalf("capture exit %d\n%s", code, p.stderr.String())
	}
	t.Logf("capture of the Go session:\n%s", p.stdout.String())
	if !strings.Contains(p.stdout.String(), "writes: 2 passed through, not recorded (doc 1, index 1): a snapshot taken before them is stale") {
		t.Errorf("the summary does not count the writes:\n%s", p.stdout.String())
	}
	var sum struct {
		Reads, Recorded, Writes int64
		Cases                   int
	}
	b, _ := os.ReadFile(filepath.Join(goDir, "capture.json"))
	if err := json.Unmarshal(b, &sum); err != nil || sum.Reads == 0 || sum.Recorded != sum.Reads || sum.Writes != 2 {
		t.Fatalf("capture.json: %v\n%s", err, b)
	}

	t.Run("check-elasticsearch", func(t *testing.T) {
		r := captureCheck(t, goDir, es, "es="+es, "")
		if r.Failed != 0 || r.Passed != sum.Cases {
			t.Errorf("against Elasticsearch itself: %d of %d passed\n%s", r.Passed, r.Cases, tail(r.out))
		}
	})
	t.Run("check-opensearch", func(t *testing.T) {
		r := captureCheck(t, goDir, es, "os="+os_, "")
		failing := r.failing()
		for class := range r.FailuresByClass {
			if !documented[class] {
				t.Errorf("OpenSearch fails class %s, outside the documented divergences:\n%s", class, tail(r.out))
			}
		}
		for _, want := range []string{"search-sort-stock-missing_first", "search-sort-tags-sort-sku-after-tth_false"} {
			found := false
			for c := range failing {
				found = found || strings.HasPrefix(c, want)
			}
			if !found {
				t.Errorf("no failing case %s*: %v\n%s", want, failing, tail(r.out))
			}
		}
		// Joined with the corpus and mapping the engines hold, as a snapshot of the index
		// would give them: the request-aware relaxations read the field types there.
		for _, f := range []string{"mapping.json", "corpus.ndjson"} {
			data, err := os.ReadFile(filepath.Join(priceDoubleDir, f))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(goDir, f), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		relaxed := captureCheck(t, goDir, es, "os="+os_, "opensearch")
		if relaxed.Failed != 0 || relaxed.Cases != r.Cases {
			t.Errorf("--relax opensearch: %d of %d failed\n%s", relaxed.Failed, relaxed.Cases, tail(relaxed.out))
		}
		t.Logf("OpenSearch 3.6.0: strict %d of %d passed (failing %v); --relax opensearch %d of %d", r.Passed, r.Cases, failing, relaxed.Passed, relaxed.Cases)
	})

	t.Run("python", func(t *testing.T) {
		pyDir := filepath.Join(t.TempDir(), "captured-py")
		direct := pythonSession(t, es, "scratch-py")
		p := startProxy(t, "capture", "--upstream", es, "--out", pyDir)
		same(t, "python elasticsearch", direct, pythonSession(t, p.url, "scratch-py"))
		if code := p.stop(t); code != 0 {
			t.Fatalf("capture exit %d\n%s", code, p.stderr.String())
		}
		r := captureCheck(t, pyDir, es, "es="+es, "")
		if r.Failed != 0 || r.Cases == 0 {
			t.Errorf("against Elasticsearch itself: %d of %d passed\n%s", r.Passed, r.Cases, tail(r.out))
		}
		o := captureCheck(t, pyDir, es, "os="+os_, "")
		for class := range o.FailuresByClass {
			if class != "status" && class != "error" {
				t.Errorf("OpenSearch fails the Python workload with class %s:\n%s", class, tail(o.out))
			}
		}
		if !strings.Contains(o.out, "got 406") {
			t.Errorf("OpenSearch did not refuse the compatibility media type:\n%s", tail(o.out))
		}
		t.Logf("Python workload: %d cases pass on Elasticsearch; on OpenSearch %d fail (406 for compatible-with=8), %d pass", r.Passed, o.Failed, o.Passed)
	})
}

// captureCheck checks a captured workload with Elasticsearch as the live oracle.
func captureCheck(t *testing.T, dir, es, target, relax string) *checkReport {
	t.Helper()
	js := filepath.Join(t.TempDir(), "check.json")
	args := []string{"check", "--fixtures", dir, "--oracle", "live:" + es, "--target", target, "--json", js}
	if relax != "" {
		args = append(args, "--relax", relax)
	}
	code, out := conform(t, args...)
	r := &checkReport{out: out}
	b, _ := os.ReadFile(js)
	if err := json.Unmarshal(b, r); err != nil {
		t.Fatalf("check %s exit %d, no JSON report: %v\n%s", target, code, err, tail(out))
	}
	return r
}

// shadowReport is what the tests read of shadow.json.
type shadowReport struct {
	Requests, Reads, Checked, Passed, Failed, Dropped int64
	Check                                             string
	FailedByClass                                     map[string]int64 `json:"failed_by_class"`
	Groups                                            []struct {
		Label   string
		Failed  int64
		ByClass map[string]int64 `json:"by_class"`
	}
	PrimaryLatency   *struct{ N int } `json:"primary_latency"`
	CandidateLatency *struct{ N int } `json:"candidate_latency"`
}

func runShadow(t *testing.T, primary, candidate string, extra ...string) (*shadowReport, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "shadow")
	p := startProxy(t, append([]string{"shadow", "--primary", primary, "--candidate", candidate, "--out", dir}, extra...)...)
	goSession(t, p.url, "scratch-shadow")
	code := p.stop(t)
	var r shadowReport
	b, _ := os.ReadFile(filepath.Join(dir, "shadow.json"))
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("shadow exit %d, no shadow.json: %v\n%s", code, err, p.stderr.String())
	}
	if (r.Failed > 0) != (code == 1) || code > 1 {
		t.Errorf("shadow exit %d with %d failed", code, r.Failed)
	}
	return &r, p.stdout.String()
}

// TestShadowRealEngines: conform shadow with real Elasticsearch as the primary and real
// OpenSearch as the candidate, the same data on both, finds the divergences docs/OPENSEARCH.md
// lists for the session's requests, and nothing else; with --relax opensearch none fails.
func TestShadowRealEngines(t *testing.T) {
	es, os_ := loadBoth(t)
	r, report := runShadow(t, es, os_)
	t.Logf("shadow Elasticsearch -> OpenSearch:\n%s", report)
	if r.Checked == 0 || r.Dropped != 0 || r.Check != "strict, relaxed: tie-order" {
		t.Fatalf("shadow: %+v", r)
	}
	byLabel := map[string]map[string]int64{}
	for _, g := range r.Groups {
		byLabel[g.Label] = g.ByClass
		for class := range g.ByClass {
			if !documented[class] {
				t.Errorf("%s fails class %s, outside the documented divergences", g.Label, class)
			}
		}
	}
	// The session's requests that OpenSearch 3.6 answers otherwise whatever its segments:
	// label prefix and the class its divergence fails with. Two more depend on the segments
	// (sort mode avg, and the aggregations beside a search_after, which passed right after a
	// reload in one run and failed in later ones): they are logged, not required.
	want := map[string]string{
		"search-sort-stock-missing_first": "sort",   // opensearch-int-sort
		"search-sort-tags-sort-sku-after": "status", // opensearch-search-after-null-keyword
	}
	for _, prefix := range []string{"search-sort-stock-mode_avg", "search-ids-terms-agg-sku"} {
		for label, classes := range byLabel {
			if strings.HasPrefix(label, prefix) {
				t.Logf("segment-dependent divergence shown: %s %v", label, classes)
			}
		}
	}
	for prefix, class := range want {
		found := false
		for label, classes := range byLabel {
			if strings.HasPrefix(label, prefix) && classes[class] > 0 {
				found = true
			}
		}
		if !found {
			t.Errorf("no failure %s* of class %s: %v", prefix, class, byLabel)
		}
	}
	relaxed, _ := runShadow(t, es, os_, "--relax", "opensearch")
	if relaxed.Failed != 0 {
		t.Errorf("--relax opensearch: %d failed: %v", relaxed.Failed, relaxed.FailedByClass)
	}
}

// TestShadowMutatingCandidate: a candidate that is Elasticsearch behind a proxy altering its
// answers (conformance.Mutations) fails exactly the altered answers, each with the mutation's
// class.
func TestShadowMutatingCandidate(t *testing.T) {
	es, _ := loadBoth(t)
	up, _ := url.Parse(es)
	for _, op := range []string{"drop-hit", "swap-hits", "change-id", "change-sort-value", "change-source-field", "flip-relation",
		"change-doc-count", "drop-bucket", "flip-found", "status-500", "change-count"} {
		t.Run(op, func(t *testing.T) {
			m := &proxytest.Mutating{Upstream: up, Operator: op}
			c := httptest.NewServer(m)
			defer c.Close()
			r, _ := runShadow(t, es, c.URL)
			applied, _, class := m.Counts()
			if applied == 0 {
				t.Fatalf("%s altered no answer of the session", op)
			}
			if r.Failed != int64(applied) || r.FailedByClass[string(class)] != int64(applied) {
				t.Errorf("%s altered %d answers (class %s); shadow failed %d: %v", op, applied, class, r.Failed, r.FailedByClass)
			}
			t.Logf("%s: %d altered, found as %v", op, applied, r.FailedByClass)
		})
	}
}

//go:build realengines

package realengines

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/conform-dev/conform/conformtest"
	"github.com/conform-dev/conform/internal/aggfault"
)

// TestWordsOnElasticsearch loads the catalogue once into real Elasticsearch 8.15.0 for issue
// 27's parts that meet a real engine: fuzz's shrinking, check's counts by operation and an
// experiment interrupted before round 1.
func TestWordsOnElasticsearch(t *testing.T) {
	es := state(t)["ES_URL"]
	fx := priceDouble(t)
	mustConform(t, "load", "--target", "es="+es, "--fixtures", fx, "--recreate")
	t.Run("fuzz aggregation faults", func(t *testing.T) { fuzzAggregationFaults(t, es, fx) })
	t.Run("check by operation", func(t *testing.T) { checkByOperation(t, es, fx) })
	t.Run("experiment interrupted while warming", func(t *testing.T) { experimentInterruptedWhileWarming(t, es, fx) })
}

// fuzzAggregationFaults: the aggregation faults of the Qdrant gateway,
// made by a proxy in front of real Elasticsearch 8.15.0 and checked against it as a live
// oracle, each come out of conform fuzz as a reproducer showing its own difference, none as
// the trivial {"size":0,"aggs":{}}. That Elasticsearch answers "aggs": {} without an
// "aggregations" key (what the proxy's trivial fault contradicts) is asserted first.
func fuzzAggregationFaults(t *testing.T, es, fx string) {

	resp, err := http.Post(es+"/catalogue/_search", "application/json", strings.NewReader(`{"size":0,"aggs":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || bytes.Contains(body, []byte(`"aggregations"`)) {
		t.Fatalf("Elasticsearch on \"aggs\": {}: HTTP %d %s; the proxy's empty-aggs fault assumes no aggregations key", resp.StatusCode, body)
	}

	proxy := httptest.NewServer(aggfault.New(es, aggfault.All))
	defer proxy.Close()
	code, out := conform(t, "fuzz", "--target", "mut="+proxy.URL, "--oracle", "live:"+es, "--fixtures", fx, "--n", "400", "--seed", "1", "--no-progress")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, tail(out))
	}
	if strings.Contains(out, `"aggs":{}`) {
		t.Errorf("a reproducer shrank to no aggregation:\n%s", out)
	}
	for _, want := range []string{`aggregations\.a0\.sum_other_doc_count: want [1-9]\d*, got 0`, `aggregations\.a0\.doc_count: want [1-9]\d*, got 0`, `aggregations\.a0\.value: want [0-9.E]+, got null`} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("no reproducer shows %s:\n%s", want, tail(out))
		}
	}
	t.Log(strings.SplitN(out, "\n", 2)[0])
}

// checkByOperation: check --json's counts by operation on the real engine,
// the summary's rows adding up to 448 passed.
func checkByOperation(t *testing.T, es, fx string) {
	js := filepath.Join(t.TempDir(), "check.json")
	mustConform(t, "check", "--target", "es="+es, "--fixtures", fx, "--json", js)
	var r struct {
		Cases       int
		ByOperation []struct {
			Op                    string
			Cases, Passed, Failed int
		} `json:"by_operation"`
	}
	b, _ := os.ReadFile(js)
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	sum := 0
	for _, row := range r.ByOperation {
		sum += row.Passed
		if row.Failed != 0 || row.Passed != row.Cases {
			t.Errorf("by_operation %s: %+v", row.Op, row)
		}
	}
	if len(r.ByOperation) != 5 || sum != 448 || r.Cases != 448 {
		t.Errorf("by_operation %+v, want 5 operations passing 448 cases", r.ByOperation)
	}
}

// experimentInterruptedWhileWarming: Ctrl-C while the experiment warms real
// Elasticsearch (a native) before round 1 still leaves verdict.json, incomplete with no
// rounds, and reports whose first line says so.
func experimentInterruptedWhileWarming(t *testing.T, es, fx string) {
	a := conformtest.NewServer(t, conformtest.Fixtures(fx))
	b := conformtest.NewServer(t, conformtest.Fixtures(fx))
	dir := t.TempDir()
	cmd := exec.Command(bin, "experiment", "--baseline", "rest="+a.URL, "--candidate", "grpc="+b.URL, "--native", "es="+es,
		"--fixtures", fx, "--ops", "get,page", "--clients", "1", "--rounds", "4", "--requests", "500", "--no-progress", "--out", dir)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Interrupt once the warm-up has begun (its first pass is said on stderr).
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(out.String(), "warm-up pass 1") && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
		t.Fatalf("exit %v, want 2\n%s", err, tail(out.String()))
	}
	var v struct {
		Verdict           string
		Rounds            []json.RawMessage
		PlannedRounds     int `json:"planned_rounds"`
		MeasuredResponses int `json:"measured_responses"`
	}
	data, err := os.ReadFile(filepath.Join(dir, "verdict.json"))
	if err != nil {
		t.Fatalf("no verdict.json: %v\n%s", err, tail(out.String()))
	}
	if err := json.Unmarshal(data, &v); err != nil || v.Verdict != "incomplete" || len(v.Rounds) != 0 || v.PlannedRounds != 4 || v.MeasuredResponses != 0 {
		t.Errorf("verdict.json %s (%v)", data, err)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	if !bytes.HasPrefix(md, []byte("# INCOMPLETE: 0 of 4 rounds finished, nothing decided: ")) || !bytes.Contains(md[:bytes.IndexByte(md, '\n')], []byte("interrupted (Ctrl-C)")) {
		t.Errorf("report.md begins %.200s", md)
	}
}

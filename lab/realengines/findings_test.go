//go:build realengines

package realengines

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/conform-dev/conform/conformance"
	"github.com/conform-dev/conform/internal/mutproxy"
)

// findingsReport is what these tests read of check --json.
type findingsReport struct {
	Cases, Passed, Failed int
	FailuresByClass       map[string]int `json:"failures_by_class"`
	Failures              []struct{ Case, Class, Path, Want, Got string }
	Findings              []struct {
		Target, Kind, Summary string
		Details               []string
	}
}

// checkJSON runs conform check with args and --json, and reads the report.
func checkJSON(t *testing.T, args ...string) (int, string, *findingsReport) {
	t.Helper()
	js := filepath.Join(t.TempDir(), "check.json")
	code, out := conform(t, append(append([]string{"check"}, args...), "--json", js, "--no-progress")...)
	r := &findingsReport{}
	b, err := os.ReadFile(js)
	if err != nil || json.Unmarshal(b, r) != nil {
		t.Fatalf("conform check %s: exit %d, no JSON report (%v)\n%s", strings.Join(args, " "), code, err, tail(out))
	}
	return code, out, r
}

// TestFindingsElasticsearch: real Elasticsearch 8.15.0 holding the price-double variant passes
// 448/448 with no finding against its own fixtures; against the designed fixtures its mapping
// is a finding that names the variant and the field, every case runs, and the failing ones
// show the sort values a double gives where scaled_float(100)'s differ (exit 1);
// --require-ready refuses it before any case (exit 2). Behind a proxy that alters every GET,
// the cases classify the fault and the sample is a finding, where readiness used to refuse.
func TestFindingsElasticsearch(t *testing.T) {
	es := state(t)["ES_URL"]
	fx := priceDouble(t)
	mustConform(t, "load", "--target", "es="+es, "--fixtures", fx, "--recreate")

	code, out, r := checkJSON(t, "--target", "es="+es, "--fixtures", fx)
	if code != 0 || r.Passed != 448 || len(r.Findings) != 0 {
		t.Fatalf("price-double fixtures: exit %d, %d of %d passed, findings %+v\n%s", code, r.Passed, r.Cases, r.Findings, tail(out))
	}

	code, out, r = checkJSON(t, "--target", "es="+es)
	const why = "mapping differs from the fixtures': the index holds the price-double mapping, the fixtures are the designed mapping: price is double where the fixtures map scaled_float(100)"
	if code != 1 || len(r.Findings) != 1 || r.Findings[0].Kind != "mapping" || r.Findings[0].Summary != why || r.Cases != 448 {
		t.Fatalf("designed fixtures: exit %d, %d cases, findings %+v\n%s", code, r.Cases, r.Findings, tail(out))
	}
	if !strings.Contains(out, "READINESS FINDINGS (1; the cases ran; each finding fails the check):\n  es: "+why) {
		t.Errorf("the finding is not printed first:\n%s", tail(out))
	}
	if r.FailuresByClass["sort"] == 0 {
		t.Fatalf("no sort failure: %v\n%s", r.FailuresByClass, tail(out))
	}
	shown := 0
	for _, f := range r.Failures {
		if f.Class != "sort" {
			continue
		}
		w, werr := strconv.ParseFloat(f.Want, 64)
		g, gerr := strconv.ParseFloat(f.Got, 64)
		if werr == nil && gerr == nil && w != g && shown < 3 {
			shown++
			t.Logf("%s %s: want %s (scaled_float(100)), got %s (double)", f.Case, f.Path, f.Want, f.Got)
		}
	}
	if shown == 0 {
		t.Errorf("no sort failure shows two price values that differ: %+v", r.Failures[:min(5, len(r.Failures))])
	}
	t.Logf("Elasticsearch 8.15.0 holding price-double, designed fixtures: exit %d, %d of %d passed, %v", code, r.Passed, r.Cases, r.FailuresByClass)

	code, out = conform(t, "check", "--target", "es="+es, "--require-ready", "--no-progress")
	if code != 2 || !strings.Contains(out, "1 finding refused at readiness (--require-ready): "+why+"; none of the 448 cases was checked") {
		t.Errorf("--require-ready: exit %d\n%s", code, tail(out))
	}

	for _, m := range []mutproxy.Mutation{
		{Operator: "flip-found", Class: conformance.ClassFound},
		{Operator: "int-to-float", Class: conformance.ClassSources},
		{Operator: "status-500", Class: conformance.ClassStatus},
	} {
		srv := httptest.NewServer(mutproxy.New(es, m))
		code, out, r := checkJSON(t, "--target", "mut="+srv.URL, "--fixtures", fx, "--ops", "get")
		srv.Close()
		if code != 1 || r.FailuresByClass[string(m.Class)] == 0 || len(r.Findings) != 1 || r.Findings[0].Kind != "sample" {
			t.Errorf("%s in front of Elasticsearch: exit %d, %v, findings %+v\n%s", m, code, r.FailuresByClass, r.Findings, tail(out))
			continue
		}
		t.Logf("%s in front of Elasticsearch: exit %d, %d of %d get cases failed (%v), finding: %.80s…", m, code, r.Failed, r.Cases, r.FailuresByClass, r.Findings[0].Summary)
	}
}

// TestFindingsOpenSearch: real OpenSearch 3.6.0 holding the designed catalogue, checked
// against the price-double fixtures: the finding names the designed variant it holds and
// price, and the cases run (exit 1).
func TestFindingsOpenSearch(t *testing.T) {
	os_ := state(t)["OS_URL"]
	fx := priceDouble(t)
	mustConform(t, "load", "--target", "os="+os_, "--recreate")
	code, out, r := checkJSON(t, "--target", "os="+os_, "--fixtures", fx, "--relax", "opensearch")
	const why = "mapping differs from the fixtures': the index holds the designed mapping, the fixtures are the price-double mapping: price is scaled_float(100) where the fixtures map double"
	if code != 1 || len(r.Findings) != 1 || r.Findings[0].Summary != why || r.Cases != 448 {
		t.Fatalf("exit %d, %d cases, findings %+v\n%s", code, r.Cases, r.Findings, tail(out))
	}
	t.Logf("OpenSearch 3.6.0 holding the designed catalogue, price-double fixtures: exit %d, %d of %d passed, %v", code, r.Passed, r.Cases, r.FailuresByClass)
}

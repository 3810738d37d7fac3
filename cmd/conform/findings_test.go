package main

// Readiness findings through every command that checks: a probe stops a command only for an
// unreachable target, a missing index or another document count; anything else it finds is
// a finding, printed first, and the command goes on and fails (exit 1); --require-ready
// refuses instead (exit 2). And an error that quotes a target's body quotes one line of it.

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/conform-dev/conform/conformance/report"
	"github.com/conform-dev/conform/fixtures"
)

// htmlPage is a proxy's 9-line error page.
const htmlPage = "<!DOCTYPE html>\n<html>\n<head>\n<title>502 Bad Gateway</title>\n</head>\n<body>\n<h1>Bad Gateway</h1>\n</body>\n</html>\n"

// inFront serves next, except for the paths answer takes over.
func inFront(t *testing.T, next http.Handler, answer func(w http.ResponseWriter, r *http.Request) bool) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !answer(w, r) {
			next.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// A GET / that answers 200 with a page that is not Elasticsearch's (a UI, a login page) is
// named at readiness, quoting one line of it, and the cases run and pass: exit 1 for the
// finding alone.
func TestCheckGETRootNotElasticsearch(t *testing.T) {
	url := inFront(t, loadedEngine(t), func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path != "/" {
			return false
		}
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, htmlPage)
		return true
	})
	js := filepath.Join(t.TempDir(), "check.json")
	code, out, errOut := runCLI(t, nil, "check", "--target", "ui="+url, "--ops", "counts", "--json", js)
	const finding = "GET / answered 200 with a body that is not Elasticsearch's (no JSON object with version.number): <!DOCTYPE html>… (9 lines, 113 bytes)"
	if code != exitFail || !strings.Contains(errOut, "ui: FINDING identity: "+finding+"\n") ||
		!strings.HasSuffix(errOut, "conform: readiness made 1 finding (identity); every case passed the strict check\n") ||
		!strings.Contains(out, "Every case passed the strict check, but readiness made 1 finding (above).") {
		t.Errorf("exit %d\n%s\n%s", code, out, errOut)
	}
	if r := readCheckJSON(t, js); len(r.Findings) != 1 || r.Findings[0].Kind != "identity" || r.Findings[0].Summary != finding || r.Passed != 32 {
		t.Errorf("JSON: %+v", r)
	}
}

// A count answered with a 9-line HTML page stops the run (the corpus cannot be proved), and
// the error quotes one line of the page, on stderr and in results.json.
func TestRunQuotesOneLineOfABody(t *testing.T) {
	url := inFront(t, loadedEngine(t), func(w http.ResponseWriter, r *http.Request) bool {
		if !strings.HasSuffix(r.URL.Path, "/_count") && !strings.HasSuffix(r.URL.Path, "/_search") {
			return false
		}
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway)
		io.WriteString(w, htmlPage)
		return true
	})
	dir := t.TempDir()
	code, _, errOut := runCLI(t, smallRun, "run", "--target", "gw="+url, "--out", dir, "--ops", "get", "--clients", "1")
	const quoted = "HTTP 502: <!DOCTYPE html>… (9 lines, 113 bytes)"
	if code != exitUsage || strings.Count(errOut, "\n") > 2 || !strings.Contains(errOut, quoted) {
		t.Errorf("exit %d, stderr %q; want 2 and one line quoting %q", code, errOut, quoted)
	}
	r := readResults(t, dir)
	if strings.Contains(r.Incomplete, "\n") || !strings.Contains(r.Incomplete, quoted) {
		t.Errorf("results.json: incomplete %q", r.Incomplete)
	}
}

// fuzz goes on against a target with a finding, prints the finding before its report, and
// exits 1 for it even when nothing disagreed; --require-ready refuses the target.
func TestFuzzGoesOnWithAFinding(t *testing.T) {
	_, url := servedFixtures(t, fixtures.VariantPriceDouble)
	code, out, errOut := runCLI(t, nil, "fuzz", "--target", "pd="+url, "--n", "20", "--weights", "get=1,search=0,after=0,aggs=0,count=0", "--no-progress")
	const why = "mapping differs from the fixtures': the index holds the price-double mapping, the fixtures are the designed mapping: price is double where the fixtures map scaled_float(100)"
	if code != exitFail || !strings.HasPrefix(out, "READINESS FINDINGS (1; the fuzzing goes on; each finding fails it):\n  pd: "+why+"\n") ||
		!strings.Contains(errOut, "conform: readiness made 1 finding (mapping)") {
		t.Errorf("exit %d\n%s\n%s", code, out, errOut)
	}
	code, _, errOut = runCLI(t, nil, "fuzz", "--target", "pd="+url, "--n", "20", "--require-ready", "--no-progress")
	if code != exitUsage || !strings.Contains(errOut, "is not ready: 1 finding refused at readiness (--require-ready): "+why) {
		t.Errorf("--require-ready: exit %d, %q", code, errOut)
	}
}

// An experiment whose candidate holds another mapping variant runs its rounds and rejects the
// candidate for the finding (a correctness problem, never adopt), which report.md lists first.
func TestExperimentRejectsACandidateWithAFinding(t *testing.T) {
	base := httptest.NewServer(loadedEngine(t))
	defer base.Close()
	_, cand := servedFixtures(t, fixtures.VariantPriceDouble)
	dir := t.TempDir()
	code, out, errOut := runCLI(t, experimentEnv, "experiment", "--baseline", "a="+base.URL, "--candidate", "b="+cand,
		"--ops", "get", "--clients", "1", "--rounds", "4", "--warm-max", "1", "--out", dir, "--no-progress")
	if code != exitFail || !strings.Contains(errOut, "b: FINDING mapping differs") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	v := readVerdict(t, dir)
	reasons := strings.Join(v.Reasons, "\n")
	if v.Verdict != "reject" || !strings.Contains(reasons, "candidate: 1 finding at readiness: mapping differs from the fixtures'") {
		t.Errorf("verdict %s, reasons:\n%s", v.Verdict, reasons)
	}
	md, _ := os.ReadFile(filepath.Join(dir, report.MarkdownFile))
	if !strings.Contains(string(md), "## Readiness findings\n\n1 finding: the run went on, and each fails it.\n\n- **b** mapping: mapping differs") {
		t.Errorf("report.md does not list the finding:\n%s", md)
	}
}

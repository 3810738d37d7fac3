package main

import (
	"encoding/base64"
	"strings"
	"testing"
)

// A failing case explained whole: the request, the curl, both bodies trimmed around the
// difference and the differences by class.
func TestExplainFailingCase(t *testing.T) {
	_, srv := brokenTarget(t)
	code, out, errOut := runCLI(t, nil, "explain", "get/001", "--target", "gw="+srv.URL)
	if code != exitFail {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	golden(t, "explain-get-001.txt", stablePorts(out))
	if errOut != "conform: case get/001 differs: sources\n" {
		t.Errorf("stderr %q", errOut)
	}
}

func TestExplainCases(t *testing.T) {
	_, srv := brokenTarget(t)
	tests := []struct {
		args   []string
		code   int
		stdout []string
		stderr string
	}{
		{[]string{"page/001"}, exitOK, []string{
			"case page/001 (page) on target gw (" + srv.URL + "), oracle embedded, strict\n",
			"request: POST " + srv.URL + "/catalogue/_search\n{\n  \"size\": 20,",
			"curl for gw:\n  curl -sS -X 'POST' '" + srv.URL + "/catalogue/_search' -H 'Content-Type: application/json' -d '{\"size\":20,",
			"--- expected (embedded): status 200,",
			// took may differ between the oracle's answer and the target's.
			"bytes, the same as expected (byte for byte",
			"--- differences\nPASS\n",
		}, ""},
		{[]string{"page/000"}, exitFail, []string{
			", trimmed around the differences\n",
			"      [19] : <absent>\n",
			"ids: fails\n  hits.hits: want <20 elements>, got <19 elements>\n  hits.hits[19]\n",
		}, "conform: case page/000 differs: ids\n"},
		{[]string{"terms/001"}, exitFail, []string{
			"          \"key\" : \"auto\",\n          … 1 more key\n",
			"        … 22 more elements\n",
			"aggregations: fails\n  aggregations.by_category.buckets[0].key: want \"audio\", got \"auto\"\n  aggregations.by_category.buckets[1].key: want \"auto\", got \"audio\"\n",
		}, "conform: case terms/001 differs: aggregations\n"},
		{[]string{"terms/000"}, exitFail, []string{
			"--- actual (gw): status 500, 137 bytes, trimmed around the differences\n",
			"  \"error\" : <absent>,\n",
			"status: fails\n  HTTP status: want 200, got 500\n",
			"error: fails\n",
		}, "conform: case terms/000 differs: status, error\n"},
		{[]string{"counts/001"}, exitFail, []string{
			"--- actual (gw): status 200, 51 bytes, not JSON\n<html><body><h1>502 Bad Gateway</h1></body></html>\n\n--- differences\n",
			"decode: fails\n  body: want <valid JSON>, got <invalid JSON at byte 0:",
		}, "conform: case counts/001 differs: decode\n"},
		{[]string{"get/003"}, exitFail, []string{
			"--- expected (embedded): status 200, 313 bytes\n{\n  \"_index\": \"catalogue\",\n  \"_id\": \"SKU-80270\",",
			"--- actual (gw): no response\ntransport: read status line: connection closed by the server",
		}, "conform: case get/003: no response from gw (transport)\n"},
		{[]string{"after/000"}, exitOK, []string{
			"  \"search_after\": [\n    1.95,\n    \"SKU-85016\"\n  ]\n}\n(search_after holds the sort values of the last hit of page/000, as the oracle answered it)\n",
			"\"search_after\":[1.95,\"SKU-85016\"]}'\n",
		}, ""},
		// --full prints both bodies whole, and the case name may follow the flags.
		{[]string{"--full", "page/000"}, exitFail, []string{
			"--- actual (gw): status 200, 6293 bytes\n{\n  \"took\": ",
			"\"_id\": \"SKU-61372\",",
		}, "conform: case page/000 differs: ids\n"},
	}
	for _, tc := range tests {
		code, out, errOut := runCLI(t, nil, append(append([]string{"explain"}, tc.args...), "--target", "gw="+srv.URL)...)
		if code != tc.code || errOut != tc.stderr {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, errOut, tc.code, tc.stderr)
		}
		for _, want := range tc.stdout {
			if !strings.Contains(out, want) {
				t.Errorf("%v: the output lacks %q:\n%s", tc.args, want, out)
			}
		}
	}
}

// With no --target explain uses the embedded engine, which passes.
func TestExplainEmbedded(t *testing.T) {
	code, out, errOut := runCLI(t, nil, "explain", "counts/003")
	if code != exitOK || !strings.Contains(out, "on target embedded (http://127.0.0.1:") || !strings.HasSuffix(out, "--- differences\nPASS\n") {
		t.Errorf("exit %d\n%s\n%s", code, out, errOut)
	}
}

func TestExplainUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"explain"}, "explain needs a case name, such as page/017"},
		{[]string{"explain", "page/17"}, `no case "page/17" in the workload; did you mean page/017?`},
		{[]string{"explain", "get/7"}, "did you mean get/007?"},
		{[]string{"explain", "nosuch"}, `no case "nosuch" in the workload; its cases are get/000 … get/255, page/000 … page/063, after/000 … after/063, terms/000 … terms/031, counts/000 … counts/031`},
		{[]string{"explain", "page/999"}, "its cases are get/000 … get/255,"},
		{[]string{"explain", "page/001", "page/002"}, `explain takes one case, got ["page/001" "page/002"]`},
		{[]string{"explain", "page/001", "--target", "a=http://127.0.0.1:1", "--target", "b=http://127.0.0.1:2"}, "explain takes one --target"},
		{[]string{"explain", "page/001", "--relax", "all"}, `unknown relaxation "all"`},
	}
	for _, tc := range tests {
		code, _, errOut := runCLI(t, nil, tc.args...)
		if code != exitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
}

// With a live oracle, explain asks it only for the case (and its page), prints a curl for it
// as well, and never shows the oracle's password.
func TestExplainLiveOracle(t *testing.T) {
	_, srv := brokenTarget(t)
	live, liveSrv := liveServer(t, nil)
	host := strings.TrimPrefix(liveSrv.URL, "http://")
	code, out, errOut := runCLI(t, nil, "explain", "after/000", "--target", "gw="+srv.URL, "--oracle", "live:http://elastic:pw-oracle-s3cret@"+host)
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{
		"oracle live:http://elastic:***@" + host + ", strict\n",
		// The oracle's curl has credential variables of its own, and says what to set.
		"curl for the oracle:\n  export CONFORM_ORACLE_USER='elastic' CONFORM_ORACLE_PASSWORD='<password>'\n" +
			"  curl -sS -X 'POST' '" + liveSrv.URL + "/catalogue/_search' -u \"$CONFORM_ORACLE_USER:$CONFORM_ORACLE_PASSWORD\" -H 'Content-Type: application/json' -d '{\"size\":20,",
		"\"search_after\":[1.95,\"SKU-85016\"]}'\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out+errOut, "s3cret") {
		t.Errorf("the oracle's password appears in the output:\n%s%s", out, errOut)
	}
	// GET /, the _count probe, page/000, after/000, and whatever the tie check asks.
	auth := live.authHeaders()
	if len(auth) < 4 || len(auth) > 10 {
		t.Errorf("the live oracle was asked %d requests to explain one case", len(auth))
	}
	for _, h := range auth {
		if h != "Basic "+base64.StdEncoding.EncodeToString([]byte("elastic:pw-oracle-s3cret")) {
			t.Errorf("the live oracle got Authorization %q", h)
			break
		}
	}
}

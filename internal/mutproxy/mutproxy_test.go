package mutproxy_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/conform-dev/conform/conformance"
	"github.com/conform-dev/conform/internal/mutproxy"
)

func TestWorkloadRequest(t *testing.T) {
	for _, tc := range []struct {
		method, path, body string
		want               bool
		why                string
	}{
		{"GET", "/catalogue/_doc/SKU-1", "", true, "a document read"},
		{"POST", "/catalogue/_search", `{"size":0}`, true, "a search"},
		{"POST", "/catalogue/_search?typed_keys=true", `{"size":0}`, true, "a search with a query string"},
		{"POST", "/catalogue/_count", `{"query":{"match_all":{}}}`, true, "a count case"},
		{"GET", "/catalogue/_count", "", false, "readiness's count"},
		{"POST", "/catalogue/_search", "", false, "a search without a body (a count fallback asks with one; a case always has one)"},
		{"GET", "/catalogue/_mapping", "", false, "readiness's mapping"},
		{"GET", "/", "", false, "the identity"},
	} {
		if got := mutproxy.WorkloadRequest(tc.method, tc.path, []byte(tc.body)); got != tc.want {
			t.Errorf("%s: %s %s = %v, want %v", tc.why, tc.method, tc.path, got, tc.want)
		}
	}
}

// The proxy alters what it matches with the first mutation of its kind, passes the rest
// unchanged, and counts what it altered.
func TestProxyAltersWhatItMatches(t *testing.T) {
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Elastic-Product", "Elasticsearch")
		switch r.URL.Path {
		case "/":
			io.WriteString(w, `{"version":{"number":"8.15.0"}}`)
		default:
			io.WriteString(w, `{"_index":"c","_id":"1","_version":1,"found":true,"_source":{"stock":129,"sku":"a"}}`)
		}
	}))
	defer backend.Close()
	p := mutproxy.New(backend.URL, mutproxy.Mutation{Operator: "int-to-float", Class: conformance.ClassSources})
	srv := httptest.NewServer(p)
	defer srv.Close()
	get := func(path string) (int, string, http.Header) {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), resp.Header
	}
	if st, b, h := get("/c/_doc/1"); st != 200 || !strings.Contains(b, `"stock":129.0`) || h.Get("X-Elastic-Product") != "Elasticsearch" || h.Get("Content-Length") != "86" {
		t.Errorf("the document read: %d %s %v", st, b, h)
	}
	if _, b, _ := get("/"); b != `{"version":{"number":"8.15.0"}}` {
		t.Errorf("GET / was altered: %s", b)
	}
	if p.Altered() != 1 {
		t.Errorf("altered %d answers, want 1", p.Altered())
	}
}

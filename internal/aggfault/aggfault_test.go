package aggfault

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"

	"github.com/conform-dev/conform/conformtest"
	"github.com/tidwall/gjson"
)

func post(t *testing.T, url, body string) []byte {
	t.Helper()
	resp, err := http.Post(url+"/catalogue/_search", "application/json", bytes.NewReader([]byte(body)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		t.Fatalf("HTTP %d: %s", resp.StatusCode, out)
	}
	return out
}

// tookRE matches "took", which varies between two answers to one request.
var tookRE = regexp.MustCompile(`"took":\d+,`)

// TestFaults checks each fault against the engine it fronts: the faulty value where the
// fault applies, the engine's bytes everywhere else.
func TestFaults(t *testing.T) {
	backend := conformtest.NewServer(t)
	proxy := httptest.NewServer(New(backend.URL, All))
	defer proxy.Close()
	clean := httptest.NewServer(New(backend.URL, Faults{}))
	defer clean.Close()

	tests := []struct {
		name, body, path string
		// want compares the proxy's value at path with the engine's.
		want func(engine, proxied gjson.Result) bool
	}{
		{"filter counts the page", `{"size":3,"sort":["sku"],"aggs":{"a0":{"filter":{"match_all":{}}}}}`, "aggregations.a0.doc_count",
			func(e, p gjson.Result) bool { return e.Int() == 10000 && p.Int() == 3 }},
		{"filter at size 0 counts nothing", `{"size":0,"aggs":{"a0":{"filter":{"match_all":{}}}}}`, "aggregations.a0.doc_count",
			func(e, p gjson.Result) bool { return e.Int() == 10000 && p.Raw == "0" }},
		{"max over the page", `{"size":1,"sort":[{"price":"asc"},"sku"],"aggs":{"a0":{"max":{"field":"price"}}}}`, "aggregations.a0.value",
			func(e, p gjson.Result) bool { return p.Float() < e.Float() }},
		{"sum_other_doc_count 0", `{"size":0,"aggs":{"a0":{"terms":{"field":"brand","size":1}}}}`, "aggregations.a0.sum_other_doc_count",
			func(e, p gjson.Result) bool { return e.Int() > 0 && p.Raw == "0" }},
		{"empty aggregations answered", `{"size":0,"aggs":{}}`, "aggregations",
			func(e, p gjson.Result) bool { return !e.Exists() && p.Raw == "{}" }},
		{"min untouched", `{"size":0,"aggs":{"a0":{"min":{"field":"price"}}}}`, "aggregations.a0.value",
			func(e, p gjson.Result) bool { return e.Raw == p.Raw }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, p := post(t, backend.URL, tt.body), post(t, proxy.URL, tt.body)
			if !tt.want(gjson.GetBytes(e, tt.path), gjson.GetBytes(p, tt.path)) {
				t.Errorf("at %s engine %s, proxy %s\nengine: %.400s\nproxy:  %.400s", tt.path, gjson.GetBytes(e, tt.path).Raw, gjson.GetBytes(p, tt.path).Raw, e, p)
			}
			if !gjson.ValidBytes(p) {
				t.Errorf("proxy answered invalid JSON: %s", p)
			}
			if c := post(t, clean.URL, tt.body); !bytes.Equal(tookRE.ReplaceAll(c, nil), tookRE.ReplaceAll(e, nil)) {
				t.Errorf("without faults the proxy changed the answer:\n%s\n%s", c, e)
			}
		})
	}
}

func TestParseFaults(t *testing.T) {
	if f, err := ParseFaults("filter-page,other-zero"); err != nil || !f.FilterPage || !f.OtherZero || f.MaxPage || f.EmptyAggs {
		t.Errorf("ParseFaults = %+v, %v", f, err)
	}
	if f, _ := ParseFaults("all"); f != All {
		t.Errorf("all = %+v", f)
	}
	if _, err := ParseFaults("max-pgae"); err == nil {
		t.Error("an unknown fault was accepted")
	}
}

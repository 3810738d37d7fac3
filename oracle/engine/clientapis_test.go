package engine

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/conform-dev/conform/fixtures"
)

// TestClientAPIsRecorded replays, on the embedded engine holding the price-double catalogue, the
// fixed requests of the real-engine suite's TestClientAPIs (typed_keys, filter_path, _mget,
// _msearch, point-in-time errors, the compatibility headers) and wants Elasticsearch 8.15.0's
// recorded answers byte for byte: status, Content-Type and body, took set to 0. The recording is
// rewritten by go test -tags realengines -run TestClientAPIs ./lab/realengines -args
// -record-clientapis (check the diff).
func TestClientAPIsRecorded(t *testing.T) {
	b, err := os.ReadFile("testdata/clientapis-es-8.15.0.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Group, Method, Path, Body, Answer string
		Headers                           map[string]string
		Status                            int
		CType                             string `json:"content_type"`
	}
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 190 {
		t.Fatalf("only %d recorded requests", len(cases))
	}
	f := fixtures.Default()
	mapping, err := fixtures.VariantMapping(fixtures.VariantPriceDouble)
	if err != nil {
		t.Fatal(err)
	}
	e := New()
	if err := e.Load(f.Workload.Index, mapping, f.Docs); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(e)
	defer srv.Close()
	took := regexp.MustCompile(`"took":\d+`)
	groups := map[string]int{}
	for _, c := range cases {
		var body io.Reader
		if c.Body != "" {
			body = strings.NewReader(c.Body)
		}
		req, _ := http.NewRequest(c.Method, srv.URL+c.Path, body)
		for k, v := range c.Headers {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		got = took.ReplaceAll(got, []byte(`"took":0`))
		if resp.StatusCode != c.Status || resp.Header.Get("Content-Type") != c.CType || string(got) != c.Answer {
			t.Errorf("%s: %s %s %v %.200s\nElasticsearch 8.15.0: %d %s\n%s\nembedded:             %d %s\n%s", c.Group, c.Method, c.Path, c.Headers, c.Body,
				c.Status, c.CType, c.Answer, resp.StatusCode, resp.Header.Get("Content-Type"), got)
		}
		groups[c.Group]++
	}
	t.Logf("%d recorded answers of Elasticsearch 8.15.0 matched byte for byte: %v", len(cases), groups)
}

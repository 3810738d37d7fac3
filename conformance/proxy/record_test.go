package proxy

import (
	"net/http"
	"strings"
	"testing"

	"github.com/conform-dev/conform/fixtures"
)

func readReq(method, target, body string, h ...string) (Endpoint, *Request) {
	path, query, _ := strings.Cut(target, "?")
	hd := http.Header{}
	for i := 0; i+1 < len(h); i += 2 {
		hd.Set(h[i], h[i+1])
	}
	var b []byte
	if body != "" {
		b = []byte(body)
	}
	return Classify(method, path, query), &Request{Method: method, Path: path, Query: query, Header: hd, Body: b}
}

// TestBook: cases are named and labelled by shape, identical requests are one case with its
// count, the workload's index is written {index}, and the workload reads back.
func TestBook(t *testing.T) {
	b := NewBook("")
	reqs := []struct {
		method, target, body string
		headers              []string
		name                 string // the case it must land in, or "" when not recorded
		reason               string
	}{
		{"POST", "/catalogue/_search", `{"query":{"term":{"brand":"acme"}},"sort":[{"price":"desc"},"sku"]}`, nil,
			"search-term-brand-sort-price-desc-sort-sku/000", ""},
		{"POST", "/catalogue/_search", "{ \"query\": {\"term\":{\"brand\":\"acme\"}},\n \"sort\":[{\"price\":\"desc\"},\"sku\"]}", nil,
			"search-term-brand-sort-price-desc-sort-sku/000", ""}, // the same request, other white space
		{"POST", "/catalogue/_search", `{"query":{"term":{"brand":"zeta"}},"sort":[{"price":"desc"},"sku"]}`, nil,
			"search-term-brand-sort-price-desc-sort-sku/001", ""}, // same shape, another value
		{"POST", "/catalogue/_search", `{"query":{"term":{"brand":"acme"}},"sort":[{"price":"desc"},"sku"],"size":0}`, nil,
			"search-term-brand-sort-price-desc-sort-sku-size0/000", ""},
		{"POST", "/catalogue/_search", `{"query":{"term":{"brand":"acme"}},"sort":[{"price":"desc"},"sku"],"size":5}`, nil,
			"search-term-brand-sort-price-desc-sort-sku-2/000", ""}, // same words, another shape
		{"GET", "/catalogue/_doc/SKU-1", "", nil, "get/000", ""},
		{"GET", "/catalogue/_doc/SKU-1", "", []string{"Authorization", "Basic c2VjcmV0", "Cookie", "session=abc"}, "get/000", ""},
		{"GET", "/catalogue/_doc/SKU-2", `{"x":1}`, nil, "get-doc/000", ""},
		{"HEAD", "/catalogue/_doc/SKU-1", "", nil, "exists/000", ""},
		{"GET", "/other/_doc/SKU-1", "", nil, "get-2/000", ""},
		{"POST", "/catalogue/_count", `{"query":{"range":{"views":{"gte":10}}}}`, nil, "count-range-views-gte/000", ""},
		{"POST", "/catalogue/_mget", `{"ids":["a","b"]}`, nil, "mget/000", ""},
		{"POST", "/_msearch", "{\"index\":\"catalogue\"}\n{\"size\":1}\n", []string{"Content-Type", "application/x-ndjson"}, "msearch/000", ""},
		{"POST", "/catalogue/_search", `{"size":1}`, []string{"Accept", "application/vnd.elasticsearch+json; compatible-with=8", "Content-Type", "application/json"}, "search/000", ""},
		{"POST", "/catalogue/_search", `{"size":1}`, []string{"Content-Type", "application/json"}, "search/001", ""},
		{"GET", "/catalogue/_search", "q=brand:acme", nil, "", ""},
		{"POST", "/catalogue/_search", "scroll=1m", nil, "", "scroll"},
		{"POST", "/_search", `{"pit":{"id":"abc"},"size":1}`, nil, "", "pit"},
		{"POST", "/catalogue/_search", `[1,2]`, nil, "", "body not a JSON object"},
		{"POST", "/catalogue/_msearch", "{\"index\":\n", nil, "", "body not NDJSON"},
	}
	for _, r := range reqs {
		target, body := r.target, r.body
		if r.name == "" && r.reason == "" { // a query-string search
			target, body = r.target+"?"+r.body, ""
		}
		if r.reason == "scroll" {
			target, body = r.target+"?"+r.body, ""
		}
		ep, req := readReq(r.method, target, body, r.headers...)
		c, _, _, reason := b.Record(ep, req)
		switch {
		case r.reason != "":
			if reason != r.reason || c != nil {
				t.Errorf("%s %s %s: recorded %v, reason %q; want reason %q", r.method, target, body, c, reason, r.reason)
			}
		case r.name == "":
			if c == nil || c.Name != "search-q/000" {
				t.Errorf("%s %s: got %v %q", r.method, target, c, reason)
			}
		case c == nil || c.Name != r.name:
			name := ""
			if c != nil {
				name = c.Name
			}
			t.Errorf("%s %s %s: case %q (reason %q), want %q", r.method, target, body, name, reason, r.name)
		}
	}
	data := b.Marshal()
	for _, secret := range []string{"c2VjcmV0", "session", "Authorization", "Cookie"} {
		if strings.Contains(string(data), secret) {
			t.Errorf("the workload holds %q:\n%s", secret, data)
		}
	}
	w, err := fixtures.ParseWorkload("workload.json", data)
	if err != nil {
		t.Fatalf("the workload does not read back: %v\n%s", err, data)
	}
	if w.Index != "catalogue" || w.Format != fixtures.WorkloadFormat2 {
		t.Errorf("index %q format %q", w.Index, w.Format)
	}
	byName := map[string]*fixtures.Case{}
	for i := range w.Cases {
		byName[w.Cases[i].Name] = &w.Cases[i]
	}
	checks := []struct {
		name, what string
		ok         bool
	}{
		{"search-term-brand-sort-price-desc-sort-sku/000", "count 2", byName["search-term-brand-sort-price-desc-sort-sku/000"].Count == 2},
		{"get/000", "count 2, {index} in the path", byName["get/000"].Count == 2 && byName["get/000"].Path == "/{index}/_doc/SKU-1"},
		{"get-2/000", "another index kept literally, another shape", byName["get-2/000"].Path == "/other/_doc/SKU-1"},
		{"search/000", "the compatibility Accept kept, plain JSON Content-Type not", byName["search/000"].Headers["Accept"] != "" && byName["search/000"].Headers["Content-Type"] == ""},
		{"msearch/000", "NDJSON lines", len(byName["msearch/000"].NDJSON) == 2 && byName["msearch/000"].Headers == nil},
		{"search-q/000", "query string kept", byName["search-q/000"].Path == "/{index}/_search?q=brand:acme"},
		{"search-term-brand-sort-price-desc-sort-sku-2/000", "shape with a size", strings.Contains(byName["search-term-brand-sort-price-desc-sort-sku-2/000"].Shape, `"size":<num>`)},
		{"mget/000", "shape without the ids", byName["mget/000"].Shape == `POST /{index}/_mget {"ids":[<str>]}`},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("%s: want %s:\n%s", c.name, c.what, data)
		}
	}
}

// TestBookMax: past Max distinct cases a label's new requests are counted, not kept; an
// already kept case still counts its repeats.
func TestBookMax(t *testing.T) {
	b := NewBook("catalogue")
	b.Max = 2
	for i, id := range []string{"a", "b", "c", "a", "d"} {
		ep, req := readReq("GET", "/catalogue/_doc/"+id, "")
		c, lbl, _, _ := b.Record(ep, req)
		if lbl != "get" || (i < 2 || id == "a") != (c != nil) {
			t.Errorf("request %d (%s): case %v label %q", i, id, c, lbl)
		}
	}
	if b.Len() != 2 || b.Dropped != 2 || b.Cases()[0].Count != 2 {
		t.Errorf("len %d dropped %d count %d", b.Len(), b.Dropped, b.Cases()[0].Count)
	}
}

func TestLabel(t *testing.T) {
	for _, c := range []struct {
		words []string
		want  string
	}{
		{[]string{"search", "term", "Brand.Keyword"}, "search-term-brand_keyword"},
		{[]string{"search", strings.Repeat("x", 70)}, "search"},
		{[]string{strings.Repeat("y", 70)}, strings.Repeat("y", maxLabel)},
		{[]string{"_", "9a"}, "read"},
	} {
		if got := label(c.words); got != c.want || !fixtures.ValidOp(got) {
			t.Errorf("label(%q) = %q, want %q (a valid op label)", c.words, got, c.want)
		}
	}
}

// TestBookIndexInBody: the workload's index in an _msearch's header lines and an _mget's docs
// is written {index} (only where it is exactly that index), a session naming its index only
// there makes it the workload's, an empty header line is kept as {}, and the request
// builder puts another index back in those places alone.
func TestBookIndexInBody(t *testing.T) {
	b := NewBook("")
	ms := "{\"index\":\"products\"}\n{\"query\":{\"term\":{\"index\":\"products\"}}}\n" +
		"\n{\"size\":1}\n" +
		"{\"index\":[\"products\"],\"preference\":\"products\"}\n{}\n" +
		"{\"index\":\"other\"}\n{}\n" +
		"{\"index\":\"products,other\"}\n{}\n"
	ep, req := readReq("POST", "/_msearch", ms, "Content-Type", "application/x-ndjson")
	c, _, _, reason := b.Record(ep, req)
	if c == nil {
		t.Fatalf("msearch not recorded: %s", reason)
	}
	if b.Index() != "products" {
		t.Fatalf("the workload's index is %q, want the one the header names", b.Index())
	}
	var lines []string
	for _, l := range c.NDJSON {
		lines = append(lines, string(l))
	}
	want := []string{`{"index":"{index}"}`, `{"query":{"term":{"index":"products"}}}`, `{}`, `{"size":1}`,
		`{"index":["{index}"],"preference":"products"}`, `{}`, `{"index":"other"}`, `{}`, `{"index":"products,other"}`, `{}`}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("msearch lines:\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if !strings.HasPrefix(c.Shape, `POST /_msearch {"index":"{index}"}`) || !strings.Contains(c.Shape, `{"index":["{index}"],"preference":<str>}`) {
		t.Errorf("shape %s", c.Shape)
	}
	r, err := c.Request("capidx-b", "true", nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := "{\"index\":\"capidx-b\"}\n{\"query\":{\"term\":{\"index\":\"products\"}}}\n{}\n{\"size\":1}\n" +
		"{\"index\":[\"capidx-b\"],\"preference\":\"products\"}\n{}\n{\"index\":\"other\"}\n{}\n{\"index\":\"products,other\"}\n{}\n"; string(r.Body) != want {
		t.Errorf("replayed msearch body:\n%s\nwant\n%s", r.Body, want)
	}

	ep, req = readReq("POST", "/_mget", `{"docs":[{"_index":"products","_id":"products"},{"_index":"other","_id":"b"}]}`)
	c, _, _, reason = b.Record(ep, req)
	if c == nil {
		t.Fatalf("mget not recorded: %s", reason)
	}
	if got := string(c.Body); got != `{"docs":[{"_index":"{index}","_id":"products"},{"_index":"other","_id":"b"}]}` {
		t.Errorf("mget body %s", got)
	}
	if r, _ := c.Request("capidx-b", "true", nil); string(r.Body) != `{"docs":[{"_index":"capidx-b","_id":"products"},{"_index":"other","_id":"b"}]}` {
		t.Errorf("replayed mget body %s", r.Body)
	}

	// go-elasticsearch's _msearch of an index names it in the path and the query string.
	ep, req = readReq("POST", "/products/_msearch?index=products&typed_keys=true", "{}\n{}\n")
	if c, _, _, _ = b.Record(ep, req); c == nil || c.Path != "/{index}/_msearch?index={index}&typed_keys=true" {
		t.Errorf("msearch with ?index=: %+v", c)
	} else if r, _ := c.Request("capidx-b", "true", nil); r.Path != "/capidx-b/_msearch?index=capidx-b&typed_keys=true" {
		t.Errorf("replayed path %s", r.Path)
	}
	ep, req = readReq("POST", "/products/_msearch?index=other", "{}\n{}\n")
	if c, _, _, _ = b.Record(ep, req); c == nil || c.Path != "/{index}/_msearch?index=other" {
		t.Errorf("msearch with another ?index=: %+v", c)
	}

	// A session starting with an _mget names the workload's index there too.
	b2 := NewBook("")
	ep, req = readReq("POST", "/_mget", `{"docs":[{"_id":"a"},{"_index":"catalogue","_id":"b"}]}`)
	if c, _, _, _ := b2.Record(ep, req); c == nil || b2.Index() != "catalogue" || !strings.Contains(string(c.Body), `"_index":"{index}"`) {
		t.Errorf("mget first: index %q, case %v", b2.Index(), c)
	}

	// An empty search body line: Elasticsearch refuses it, and the lines could not say it.
	ep, req = readReq("POST", "/_msearch", "{}\n\n", "Content-Type", "application/x-ndjson")
	if c, _, _, reason := b.Record(ep, req); c != nil || reason != "body not NDJSON" {
		t.Errorf("an empty body line: case %v, reason %q", c, reason)
	}
}

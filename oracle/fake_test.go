package oracle

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/conform-dev/conform/fixtures"
)

// fakeDoc is a document of the fake engine: an id, a group a term query can select, and the
// keys a sorted search orders it by. Equal keys tie, and ties keep document order, as doc ids
// do in Elasticsearch.
type fakeDoc struct {
	id    string
	group string
	key   []int
}

// fakeEngine answers a tiny subset of the Elasticsearch API over fakeDocs: GET /, get by id,
// _count, and _search with a term query on group, size, from, a sort flag and search_after.
// It records every request it answers.
type fakeEngine struct {
	index string
	docs  []fakeDoc
	// root is the GET / body; empty means an Elasticsearch 8.15.0.
	root string

	mu       sync.Mutex
	requests []fixtures.Request
}

const es815Root = `{"name":"n","cluster_name":"c","version":{"number":"8.15.0","build_flavor":"default","build_type":"docker"},"tagline":"You Know, for Search"}`

func (f *fakeEngine) do(ctx context.Context, r fixtures.Request) (int, []byte, error) {
	f.mu.Lock()
	f.requests = append(f.requests, r)
	f.mu.Unlock()
	status, body := f.answer(r.Method, r.Path, r.Body)
	return status, []byte(body), nil
}

func (f *fakeEngine) searches() []fixtures.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []fixtures.Request
	for _, r := range f.requests {
		if strings.HasSuffix(r.Path, "/_search") {
			out = append(out, r)
		}
	}
	return out
}

func errorBody(status int, typ, reason string) string {
	return fmt.Sprintf(`{"error":{"root_cause":[{"type":%q,"reason":%q}],"type":%q,"reason":%q},"status":%d}`, typ, reason, typ, reason, status)
}

func (f *fakeEngine) answer(method, target string, body []byte) (int, string) {
	path, _, _ := strings.Cut(target, "?")
	switch {
	case method == "GET" && path == "/":
		if f.root != "" {
			return 200, f.root
		}
		return 200, es815Root
	case path == "/"+f.index+"/_count":
		return 200, fmt.Sprintf(`{"count":%d,"_shards":{"total":1,"successful":1,"skipped":0,"failed":0}}`, len(f.docs))
	case strings.HasPrefix(path, "/"+f.index+"/_doc/"):
		id := strings.TrimPrefix(path, "/"+f.index+"/_doc/")
		for _, d := range f.docs {
			if d.id == id {
				return 200, fmt.Sprintf(`{"_index":%q,"_id":%q,"_version":1,"_seq_no":0,"_primary_term":1,"found":true,"_source":{"group":%q}}`, f.index, id, d.group)
			}
		}
		return 404, fmt.Sprintf(`{"_index":%q,"_id":%q,"found":false}`, f.index, id)
	case path == "/"+f.index+"/_search":
		return f.search(body)
	}
	return 404, errorBody(404, "index_not_found_exception", "no such index ["+path+"]")
}

func (f *fakeEngine) search(body []byte) (int, string) {
	var req struct {
		Size  *int `json:"size"`
		From  int  `json:"from"`
		Query struct {
			Term map[string]string `json:"term"`
		} `json:"query"`
		Sort        json.RawMessage `json:"sort"`
		SearchAfter []int           `json:"search_after"`
		Fail        string          `json:"fail"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return 400, errorBody(400, "parsing_exception", err.Error())
	}
	if req.Fail != "" {
		return 400, errorBody(400, "illegal_argument_exception", req.Fail)
	}
	size := 10
	if req.Size != nil {
		size = *req.Size
	}
	var match []fakeDoc
	for _, d := range f.docs {
		if g, ok := req.Query.Term["group"]; !ok || g == d.group {
			match = append(match, d)
		}
	}
	sorted := req.Sort != nil
	if sorted {
		sort.SliceStable(match, func(i, j int) bool { return less(match[i].key, match[j].key) })
	}
	if req.SearchAfter != nil {
		var rest []fakeDoc
		for _, d := range match {
			if less(req.SearchAfter, d.key) {
				rest = append(rest, d)
			}
		}
		match = rest
	}
	total := len(match)
	if req.SearchAfter != nil {
		total = -1 // not used by the tests
	}
	page := match[min(req.From, len(match)):]
	page = page[:min(size, len(page))]
	var hits []string
	for _, d := range page {
		h := fmt.Sprintf(`{"_index":%q,"_id":%q,`, f.index, d.id)
		if sorted {
			k, _ := json.Marshal(d.key)
			h += fmt.Sprintf(`"_score":null,"_source":{"group":%q},"sort":%s}`, d.group, k)
		} else {
			h += fmt.Sprintf(`"_score":0.0,"_source":{"group":%q}}`, d.group)
		}
		hits = append(hits, h)
	}
	return 200, fmt.Sprintf(`{"took":%d,"timed_out":false,"hits":{"total":{"value":%d,"relation":"eq"},"hits":[%s]}}`,
		len(body)%7, total, strings.Join(hits, ","))
}

func less(a, b []int) bool {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return len(a) < len(b)
}

// fakeDocs are ten documents: group A has unique keys; group B has keys with ties at
// positions 2|3 and 4|5 (1-based) of its sorted order.
func fakeDocs() []fakeDoc {
	return []fakeDoc{
		{"a1", "A", []int{1, 1}}, {"a2", "A", []int{2, 2}}, {"a3", "A", []int{3, 3}}, {"a4", "A", []int{4, 4}},
		{"b1", "B", []int{10}}, {"b2", "B", []int{20}}, {"b3", "B", []int{20}}, {"b4", "B", []int{30}},
		{"b5", "B", []int{40}}, {"b6", "B", []int{40}},
	}
}

const searchPath = "/{index}/_search"

func searchCase(name, body, after string) fixtures.Case {
	op := strings.Split(name, "/")[0]
	return fixtures.Case{Name: name, Op: op, Method: "POST", Path: searchPath, Body: json.RawMessage(body), After: after}
}

// fakeWorkload has every kind of case; its after case comes before its page on purpose.
func fakeWorkload() *fixtures.Workload {
	return &fixtures.Workload{Format: fixtures.WorkloadFormat, Index: "cat", Cases: []fixtures.Case{
		{Name: "get/000", Op: "get", Method: "GET", Path: "/{index}/_doc/a1"},
		{Name: "get/001", Op: "get", Method: "GET", Path: "/{index}/_doc/nope"},
		searchCase("after/000", `{"size":2,"query":{"term":{"group":"A"}},"sort":[{"k":"asc"}]}`, "page/000"),
		searchCase("page/000", `{"size":2,"query":{"term":{"group":"A"}},"sort":[{"k":"asc"}]}`, ""),
		searchCase("counts/000", `{"size":0,"query":{"term":{"group":"B"}}}`, ""),
	}}
}

func fakeFixtures(w *fixtures.Workload, docs []fakeDoc) *fixtures.Fixtures {
	f := &fixtures.Fixtures{Mapping: []byte(`{"mappings":{"properties":{"group":{"type":"keyword"}}}}`), Workload: w}
	for _, d := range docs {
		f.Docs = append(f.Docs, fixtures.Doc{ID: d.id, Source: []byte(`{"group":"` + d.group + `"}`)})
	}
	f.WorkloadBytes, _ = w.Marshal()
	f.Meta = fixtures.Meta{Format: fixtures.MetaFormat, Index: w.Index, Documents: len(docs), Cases: w.CountByOp(),
		SHA256: fixtures.Hashes{Mapping: fixtures.SHA256(f.Mapping), Corpus: fixtures.SHA256([]byte(fmt.Sprint(docs))), Workload: fixtures.SHA256(f.WorkloadBytes)}}
	return f
}

// fakeServer serves a fakeEngine over HTTP, requiring basic auth user:secret when auth is set,
// under an optional path prefix.
func fakeServer(t *testing.T, fe *fakeEngine, prefix string, auth bool) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if auth {
			if u, p, ok := r.BasicAuth(); !ok || u != "user" || p != "s3cret" {
				w.WriteHeader(401)
				fmt.Fprint(w, errorBody(401, "security_exception", "missing authentication credentials"))
				return
			}
		}
		if !strings.HasPrefix(r.URL.Path, prefix) {
			w.WriteHeader(404)
			return
		}
		body, _ := io.ReadAll(r.Body)
		if len(body) == 0 {
			body = nil
		}
		target := strings.TrimPrefix(r.URL.Path, prefix)
		if r.URL.RawQuery != "" {
			target += "?" + r.URL.RawQuery
		}
		status, resp, _ := fe.do(r.Context(), fixtures.Request{Method: r.Method, Path: target, Body: body})
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write(resp)
	}))
	t.Cleanup(srv.Close)
	return srv
}

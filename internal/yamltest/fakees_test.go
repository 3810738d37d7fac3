package yamltest

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// fakeES is a tiny in-memory Elasticsearch for the runner's tests: index creation and
// deletion, documents by id, bulk, refresh, and searches with a term or match query, one sort
// key, size, from and track_total_hits. A few paths misbehave on purpose: /_echo returns the
// request's headers, /_warn answers with Warning headers, /_boom answers 500 and /_busy 503.
type fakeES struct {
	version string
	dist    string

	mu       sync.Mutex
	indices  map[string]*fakeIndex
	requests []string // "METHOD path?query"
}

type fakeIndex struct {
	docs []fakeDocument
}

type fakeDocument struct {
	id     string
	source []byte
	parsed *Object
}

func newFakeES() *fakeES { return &fakeES{version: "8.15.0", indices: map[string]*fakeIndex{}} }

func esError(w http.ResponseWriter, status int, typ, reason string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"error":{"root_cause":[{"type":%q,"reason":%q}],"type":%q,"reason":%q},"status":%d}`, typ, reason, typ, reason, status)
}

func (f *fakeES) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	body, _ := io.ReadAll(r.Body)
	f.requests = append(f.requests, r.Method+" "+r.URL.RequestURI())
	w.Header().Set("Content-Type", "application/json")
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	q := r.URL.Query()
	switch {
	case r.URL.Path == "/":
		if f.dist != "" {
			fmt.Fprintf(w, `{"version":{"distribution":%q,"number":%q}}`, f.dist, f.version)
			return
		}
		fmt.Fprintf(w, `{"name":"fake","version":{"number":%q,"build_flavor":"default"},"tagline":"You Know, for Search"}`, f.version)
	case r.URL.Path == "/_echo":
		var keys []string
		for k := range r.Header {
			if strings.HasPrefix(k, "X-") || k == "Authorization" {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		var kv []string
		for _, k := range keys {
			kv = append(kv, fmt.Sprintf("%q:%q", k, r.Header.Get(k)))
		}
		fmt.Fprintf(w, `{"headers":{%s}}`, strings.Join(kv, ","))
	case r.URL.Path == "/_warn":
		for _, m := range strings.Split(strings.Join(q["msg"], ","), ",") {
			if m == "" {
				continue
			}
			w.Header().Add("Warning", `299 Elasticsearch-8.15.0-abcdef1 "`+strings.ReplaceAll(m, `"`, `\"`)+`"`)
		}
		fmt.Fprint(w, `{"acknowledged":true}`)
	case r.URL.Path == "/_boom":
		esError(w, 500, "null_pointer_exception", "boom")
	case r.URL.Path == "/_busy":
		esError(w, 503, "unavailable_shards_exception", "busy")
	case r.URL.Path == "/_refresh" || len(parts) == 2 && parts[1] == "_refresh":
		fmt.Fprint(w, `{"_shards":{"total":1,"successful":1,"failed":0}}`)
	case r.URL.Path == "/_bulk" || len(parts) == 2 && parts[1] == "_bulk":
		def := ""
		if len(parts) == 2 {
			def = parts[0]
		}
		f.bulk(w, def, body)
	case len(parts) == 2 && (parts[1] == "_search" || parts[1] == "_count") || r.URL.Path == "/_search" || r.URL.Path == "/_count":
		names := "_all"
		op := parts[0]
		if len(parts) == 2 {
			names, op = parts[0], parts[1]
		}
		f.search(w, op, names, q, body)
	case len(parts) == 1 && r.Method == "PUT":
		if _, ok := f.indices[parts[0]]; ok {
			esError(w, 400, "resource_already_exists_exception", "index ["+parts[0]+"/xyz] already exists")
			return
		}
		f.indices[parts[0]] = &fakeIndex{}
		fmt.Fprintf(w, `{"acknowledged":true,"shards_acknowledged":true,"index":%q}`, parts[0])
	case len(parts) == 1 && r.Method == "DELETE":
		if _, ok := f.indices[parts[0]]; !ok {
			esError(w, 404, "index_not_found_exception", "no such index ["+parts[0]+"]")
			return
		}
		delete(f.indices, parts[0])
		fmt.Fprint(w, `{"acknowledged":true}`)
	case len(parts) >= 2 && (parts[1] == "_doc" || parts[1] == "_create"):
		id := ""
		if len(parts) == 3 {
			id = parts[2]
		}
		if r.Method == "GET" {
			f.get(w, parts[0], id)
			return
		}
		status, resp := f.index(parts[0], id, body, parts[1] == "_create")
		w.WriteHeader(status)
		w.Write(resp)
	default:
		esError(w, 400, "illegal_argument_exception", "no handler for "+r.Method+" "+r.URL.Path)
	}
}

func (f *fakeES) index(name, id string, source []byte, create bool) (int, []byte) {
	idx, ok := f.indices[name]
	if !ok {
		idx = &fakeIndex{}
		f.indices[name] = idx
	}
	parsed, err := decodeJSON(source)
	obj, isObj := parsed.(*Object)
	if err != nil || !isObj {
		return 400, []byte(`{"error":{"type":"mapper_parsing_exception","reason":"failed to parse"},"status":400}`)
	}
	if id == "" {
		id = "auto" + strconv.Itoa(len(idx.docs))
	}
	for i, d := range idx.docs {
		if d.id == id {
			if create {
				return 409, []byte(fmt.Sprintf(`{"error":{"type":"version_conflict_engine_exception","reason":"[%s]: version conflict, document already exists"},"status":409}`, id))
			}
			idx.docs[i] = fakeDocument{id: id, source: bytes.TrimSpace(source), parsed: obj}
			return 200, []byte(fmt.Sprintf(`{"_index":%q,"_id":%q,"result":"updated"}`, name, id))
		}
	}
	idx.docs = append(idx.docs, fakeDocument{id: id, source: bytes.TrimSpace(source), parsed: obj})
	return 201, []byte(fmt.Sprintf(`{"_index":%q,"_id":%q,"_version":1,"result":"created"}`, name, id))
}

func (f *fakeES) get(w http.ResponseWriter, name, id string) {
	idx, ok := f.indices[name]
	if !ok {
		esError(w, 404, "index_not_found_exception", "no such index ["+name+"]")
		return
	}
	for _, d := range idx.docs {
		if d.id == id {
			fmt.Fprintf(w, `{"_index":%q,"_id":%q,"_version":1,"_seq_no":0,"_primary_term":1,"found":true,"_source":%s}`, name, id, d.source)
			return
		}
	}
	w.WriteHeader(404)
	fmt.Fprintf(w, `{"_index":%q,"_id":%q,"found":false}`, name, id)
}

func (f *fakeES) bulk(w http.ResponseWriter, def string, body []byte) {
	sc := bufio.NewScanner(bytes.NewReader(body))
	var items []string
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		action, err := decodeJSON(line)
		ao, ok := action.(*Object)
		if err != nil || !ok || len(ao.Keys) != 1 {
			esError(w, 400, "illegal_argument_exception", "Malformed action/metadata line")
			return
		}
		meta, _ := ao.Map[ao.Keys[0]].(*Object)
		name, id := def, ""
		if meta != nil {
			if v, ok := meta.Get("_index"); ok {
				name = javaString(v)
			}
			if v, ok := meta.Get("_id"); ok {
				id = javaString(v)
			}
		}
		if !sc.Scan() {
			esError(w, 400, "illegal_argument_exception", "source missing")
			return
		}
		status, resp := f.index(name, id, append([]byte(nil), sc.Bytes()...), ao.Keys[0] == "create")
		items = append(items, fmt.Sprintf(`{%q:{"status":%d,"result":%s}}`, ao.Keys[0], status, resp))
	}
	fmt.Fprintf(w, `{"took":1,"errors":false,"items":[%s]}`, strings.Join(items, ","))
}

func (f *fakeES) search(w http.ResponseWriter, op, names string, q map[string][]string, body []byte) {
	var docs []fakeDocument
	var idxOf []string
	var list []string
	if names == "_all" {
		for n := range f.indices {
			list = append(list, n)
		}
		sort.Strings(list)
	} else {
		list = strings.Split(names, ",")
	}
	for _, n := range list {
		idx, ok := f.indices[n]
		if !ok {
			esError(w, 404, "index_not_found_exception", "no such index ["+n+"]")
			return
		}
		for _, d := range idx.docs {
			docs, idxOf = append(docs, d), append(idxOf, n)
		}
	}
	req := newObject()
	if len(bytes.TrimSpace(body)) > 0 {
		v, err := decodeJSON(body)
		o, ok := v.(*Object)
		if err != nil || !ok {
			esError(w, 400, "parsing_exception", "request body is not an object")
			return
		}
		req = o
	}
	// The query: match_all, or term/match on one field.
	type hit struct {
		d     fakeDocument
		index string
	}
	var hits []hit
	query, _ := req.Get("query")
	for i, d := range docs {
		if matches(query, d.parsed) {
			hits = append(hits, hit{d, idxOf[i]})
		}
	}
	if op == "_count" {
		fmt.Fprintf(w, `{"count":%d,"_shards":{"total":1,"successful":1,"skipped":0,"failed":0}}`, len(hits))
		return
	}
	sortField, desc := "", false
	if s, ok := req.Get("sort"); ok {
		if l, ok := s.([]any); ok && len(l) > 0 {
			if so, ok := l[0].(*Object); ok {
				sortField = so.Keys[0]
				desc = javaString(so.Map[sortField]) == "desc"
			}
		}
	}
	if sortField != "" {
		sort.SliceStable(hits, func(i, j int) bool {
			a, _ := hits[i].d.parsed.Get(sortField)
			b, _ := hits[j].d.parsed.Get(sortField)
			c, _ := compareOrdered(a, b)
			if desc {
				return c > 0
			}
			return c < 0
		})
	}
	size, from := 10, 0
	if v, ok := req.Get("size"); ok {
		size, _ = strconv.Atoi(javaString(v))
	}
	if v := q["size"]; len(v) > 0 {
		size, _ = strconv.Atoi(v[0])
	}
	if v, ok := req.Get("from"); ok {
		from, _ = strconv.Atoi(javaString(v))
	}
	tth := "true"
	if v := q["track_total_hits"]; len(v) > 0 {
		tth = v[0]
	}
	if v, ok := req.Get("track_total_hits"); ok {
		tth = javaString(v)
	}
	asInt := len(q["rest_total_hits_as_int"]) > 0 && q["rest_total_hits_as_int"][0] == "true"
	if n, err := strconv.Atoi(tth); err == nil && n < -1 {
		esError(w, 400, "illegal_argument_exception", fmt.Sprintf("[track_total_hits] parameter must be positive or equals to -1, got %d", n))
		return
	}
	var total string
	switch {
	case tth == "false" && asInt:
		total = `"total":-1,`
	case tth == "false":
	case asInt:
		total = fmt.Sprintf(`"total":%d,`, len(hits))
	default:
		total = fmt.Sprintf(`"total":{"value":%d,"relation":"eq"},`, len(hits))
	}
	page := hits[min(from, len(hits)):]
	page = page[:min(size, len(page))]
	var out []string
	for _, h := range page {
		s := fmt.Sprintf(`{"_index":%q,"_id":%q,"_score":1.0,"_source":%s`, h.index, h.d.id, h.d.source)
		if sortField != "" {
			v, _ := h.d.parsed.Get(sortField)
			s += `,"sort":[` + display(v) + `]`
		}
		out = append(out, s+"}")
	}
	fmt.Fprintf(w, `{"took":1,"timed_out":false,"_shards":{"total":1,"successful":1,"skipped":0,"failed":0},"hits":{%s"max_score":1.0,"hits":[%s]}}`, total, strings.Join(out, ","))
}

func matches(query any, doc *Object) bool {
	q, ok := query.(*Object)
	if !ok || len(q.Keys) == 0 {
		return true
	}
	switch q.Keys[0] {
	case "term", "match":
		cond, ok := q.Map[q.Keys[0]].(*Object)
		if !ok || len(cond.Keys) != 1 {
			return false
		}
		want := cond.Map[cond.Keys[0]]
		got, ok := doc.Get(cond.Keys[0])
		return ok && javaString(got) == javaString(want)
	}
	return true
}

// fakeTarget runs tests against a fresh fakeES per test, the way the embedded engine runs.
func fakeTarget(t *testing.T, version string) (Target, *[]*fakeES) {
	t.Helper()
	var made []*fakeES
	return HandlerTarget("fake", func() (http.Handler, error) {
		f := newFakeES()
		f.version = version
		made = append(made, f)
		return f, nil
	}), &made
}

// fakeServer serves one shared fakeES over loopback HTTP.
func fakeServer(t *testing.T) (*httptest.Server, *fakeES) {
	t.Helper()
	f := newFakeES()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return srv, f
}

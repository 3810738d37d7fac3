// Package loadtest holds test doubles for package load: FakeES, an http.Handler serving the few
// Elasticsearch endpoints the loader and probes call, and FakeQdrant, an in-process gRPC server
// built on go-client's generated service interfaces. Both record what they were sent and can be
// told to misbehave. They are fakes for tests, not engines: they implement only what the loader
// needs and check what the real engines are documented to reject.
package loadtest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
)

// FakeES is an Elasticsearch (or OpenSearch) double for GET /, HEAD/PUT/DELETE /{index},
// POST /{index}/_bulk, POST /{index}/_refresh, GET /{index}/_count, POST /{index}/_search
// (only size 0 with track_total_hits true: a count), GET /{index}/_mapping (the mappings the
// index was created with; 405 for an index added without one), GET /{index}/_stats/docs
// (the documents stored, and Deleted) and GET /{index}/_doc/{id}.
// Like Elasticsearch, _count sees only documents indexed before the last refresh, while a
// GET by id sees every document.
type FakeES struct {
	mu      sync.Mutex
	indexes map[string]*fakeIndex

	// Distribution "opensearch" answers like OpenSearch (no product header); anything else
	// like Elasticsearch 8.15.0.
	Distribution string
	// Bulk429 answers the next Bulk429 _bulk requests with 429 Too Many Requests.
	Bulk429 int
	// ItemFaults refuses the named documents in _bulk responses.
	ItemFaults map[string]*ItemFault
	// CountDelta is added to every _count answer.
	CountDelta int64
	// AlterSource makes GET /{index}/_doc/{id} return this _source for the id.
	AlterSource map[string]string
	// Hide makes GET /{index}/_doc/{id} answer 404 for the id.
	Hide map[string]bool

	// The knobs below imitate imperfect peers: gateways under development and engines such
	// as ZincSearch whose bulk replies do not account for every document.

	// BulkItems, when positive, lists only the first BulkItems items in each _bulk reply; every
	// document is still stored.
	BulkItems int
	// BulkNoItems leaves the items list out of _bulk replies; BulkGarbage answers 200 with a
	// body that is not JSON. Either way every document is stored.
	BulkNoItems bool
	BulkGarbage bool
	// BulkTopError adds a top-level "error" string to _bulk replies, as ZincSearch does when
	// it stopped partway.
	BulkTopError string
	// FullWhenIndexInAction limits the knobs above to requests whose action lines do not all
	// name _index: a request that names it in every action line gets a complete reply.
	FullWhenIndexInAction bool
	// Reject, when set, refuses each document for which it returns a reason: status 400 with
	// the reason as a bare string error, as engines other than Elasticsearch may answer.
	Reject func(id string, source []byte) string
	// Drop accepts the named documents in the reply (status 201) but never stores them.
	Drop map[string]bool
	// NoCount answers GET /{index}/_count with 404, as ZincSearch's Elasticsearch API does (it
	// has no _count); POST /{index}/_search with size 0 and track_total_hits true still counts.
	NoCount bool
	// NoMappingAPI answers GET /{index}/_mapping with 405, as a gateway without the API may.
	NoMappingAPI bool
	// Deleted is the deleted documents GET /{index}/_stats/docs reports; NoStats answers it
	// with 405, as a gateway without the API may.
	Deleted int64
	NoStats bool
	// CountStep, when positive, makes the index asynchronous: after a refresh, each _count
	// request sees at most CountStep more of the refreshed documents than the one before.
	CountStep int

	// Requests is every request, as "METHOD /path" (escaped path).
	Requests []string
	// BulkDocs is the number of documents in each _bulk request, in order.
	BulkDocs []int
	// BulkIndexInAction says, for each _bulk request, whether every action line named _index.
	BulkIndexInAction []bool
	// ContentTypes maps "METHOD /path" to the last Content-Type sent.
	ContentTypes map[string]string
}

// ItemFault refuses a document in _bulk with Status. Times bounds how often (0: always).
type ItemFault struct {
	Status int
	Type   string
	Reason string
	Times  int
	used   int
}

type fakeIndex struct {
	mapping []byte
	docs    map[string][]byte
	order   []string
	visible int // documents visible to _count: len(order) at the last refresh
	target  int // with CountStep, len(order) at the last refresh, which visible rises to
}

// NewFakeES returns an empty fake.
func NewFakeES() *FakeES {
	return &FakeES{indexes: map[string]*fakeIndex{}, ContentTypes: map[string]string{}}
}

// AddIndex creates an index holding docs (id → source), all visible to _count.
func (f *FakeES) AddIndex(name string, docs map[string]string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	ix := &fakeIndex{mapping: []byte(`{}`), docs: map[string][]byte{}}
	for id, src := range docs {
		ix.docs[id] = []byte(src)
		ix.order = append(ix.order, id)
	}
	ix.visible = len(ix.order)
	f.indexes[name] = ix
}

// Index returns the index's mapping and documents, or ok false if it does not exist.
func (f *FakeES) Index(name string) (mapping []byte, docs map[string][]byte, ok bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	ix := f.indexes[name]
	if ix == nil {
		return nil, nil, false
	}
	docs = make(map[string][]byte, len(ix.docs))
	for k, v := range ix.docs {
		docs[k] = v
	}
	return ix.mapping, docs, true
}

// RequestCount counts recorded requests starting with prefix (e.g. "POST /catalogue/_bulk").
func (f *FakeES) RequestCount(prefix string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, r := range f.Requests {
		if strings.HasPrefix(r, prefix) {
			n++
		}
	}
	return n
}

func (f *FakeES) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	key := r.Method + " " + r.URL.EscapedPath()
	f.Requests = append(f.Requests, key)
	if ct := r.Header.Get("Content-Type"); ct != "" {
		f.ContentTypes[key] = ct
	}
	w.Header().Set("Content-Type", "application/json")
	if f.Distribution != "opensearch" {
		w.Header().Set("X-Elastic-Product", "Elasticsearch")
	}
	var segs []string
	for _, s := range strings.Split(strings.Trim(r.URL.EscapedPath(), "/"), "/") {
		if s == "" {
			continue
		}
		u, err := url.PathUnescape(s)
		if err != nil {
			writeErr(w, 400, "bad path")
			return
		}
		segs = append(segs, u)
	}
	switch {
	case len(segs) == 0 && r.Method == http.MethodGet:
		f.root(w)
	case len(segs) == 1:
		f.index(w, r, segs[0])
	case len(segs) == 2 && segs[1] == "_bulk" && r.Method == http.MethodPost:
		f.bulk(w, r, segs[0])
	case len(segs) == 2 && segs[1] == "_refresh" && r.Method == http.MethodPost:
		ix := f.indexes[segs[0]]
		if ix == nil {
			writeErr(w, 404, "index_not_found_exception")
			return
		}
		if f.CountStep > 0 {
			ix.target = len(ix.order)
		} else {
			ix.visible = len(ix.order)
		}
		fmt.Fprint(w, `{"_shards":{"total":1,"successful":1,"failed":0}}`)
	case len(segs) == 2 && segs[1] == "_count" && r.Method == http.MethodGet:
		if f.NoCount {
			// ZincSearch's answer to a path it does not route.
			w.WriteHeader(404)
			fmt.Fprint(w, `{"error":"Not Found"}`)
			return
		}
		n, ok := f.count(w, segs[0])
		if ok {
			fmt.Fprintf(w, `{"count":%d,"_shards":{"total":1,"successful":1,"skipped":0,"failed":0}}`, n)
		}
	case len(segs) == 2 && segs[1] == "_search" && r.Method == http.MethodPost:
		var q struct {
			Size           *int `json:"size"`
			TrackTotalHits bool `json:"track_total_hits"`
		}
		if err := json.NewDecoder(r.Body).Decode(&q); err != nil || q.Size == nil || *q.Size != 0 || !q.TrackTotalHits {
			writeErr(w, 400, "unsupported by FakeES: only a size 0, track_total_hits true search")
			return
		}
		n, ok := f.count(w, segs[0])
		if ok {
			fmt.Fprintf(w, `{"took":1,"timed_out":false,"hits":{"total":{"value":%d,"relation":"eq"},"max_score":null,"hits":[]}}`, n)
		}
	case len(segs) == 3 && segs[1] == "_stats" && segs[2] == "docs" && r.Method == http.MethodGet && !f.NoStats:
		ix := f.indexes[segs[0]]
		if ix == nil {
			writeErr(w, 404, "index_not_found_exception")
			return
		}
		docs := fmt.Sprintf(`{"docs":{"count":%d,"deleted":%d}}`, len(ix.docs), f.Deleted)
		fmt.Fprintf(w, `{"_shards":{"total":1,"successful":1,"failed":0},"_all":{"primaries":%s,"total":%s},"indices":{%q:{"primaries":%s,"total":%s}}}`,
			docs, docs, segs[0], docs, docs)
	case len(segs) == 2 && segs[1] == "_mapping" && r.Method == http.MethodGet:
		f.mapping(w, segs[0])
	case len(segs) == 3 && segs[1] == "_doc" && r.Method == http.MethodGet:
		f.get(w, segs[0], segs[2])
	default:
		writeErr(w, 405, "unsupported by FakeES: "+key)
	}
}

// count answers the index's visible documents, or writes a 404 when there is no index.
func (f *FakeES) count(w http.ResponseWriter, name string) (int64, bool) {
	ix := f.indexes[name]
	if ix == nil {
		writeErr(w, 404, "index_not_found_exception")
		return 0, false
	}
	if f.CountStep > 0 && ix.visible < ix.target {
		ix.visible = min(ix.visible+f.CountStep, ix.target)
	}
	return int64(ix.visible) + f.CountDelta, true
}

// SetMapping replaces an index's mapping with an index-creation body ({"mappings":...}), as
// if it had been created with it.
func (f *FakeES) SetMapping(name, body string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.indexes[name].mapping = []byte(body)
}

func (f *FakeES) mapping(w http.ResponseWriter, name string) {
	ix := f.indexes[name]
	if ix == nil {
		writeErr(w, 404, "index_not_found_exception")
		return
	}
	var m struct {
		Mappings json.RawMessage `json:"mappings"`
	}
	if f.NoMappingAPI || json.Unmarshal(ix.mapping, &m) != nil || m.Mappings == nil {
		writeErr(w, 405, "unsupported by FakeES: GET _mapping")
		return
	}
	fmt.Fprintf(w, `{%q:{"mappings":%s}}`, name, m.Mappings)
}

func (f *FakeES) root(w http.ResponseWriter) {
	if f.Distribution == "opensearch" {
		fmt.Fprint(w, `{"name":"os-node","cluster_name":"lab","cluster_uuid":"os-uuid","version":{"distribution":"opensearch","number":"3.9.0","build_type":"tar","build_hash":"abc","lucene_version":"10.3.0","minimum_wire_compatibility_version":"2.19.0"},"tagline":"The OpenSearch Project: https://opensearch.org/"}`)
		return
	}
	fmt.Fprint(w, `{"name":"es-node","cluster_name":"lab","cluster_uuid":"es-uuid","version":{"number":"8.15.0","build_flavor":"default","build_type":"docker","build_hash":"1a77947f34deddb41af25e6f0ddb8e830159c179","lucene_version":"9.11.1"},"tagline":"You Know, for Search"}`)
}

func (f *FakeES) index(w http.ResponseWriter, r *http.Request, name string) {
	ix := f.indexes[name]
	switch r.Method {
	case http.MethodHead:
		if ix == nil {
			w.WriteHeader(404)
			return
		}
		w.WriteHeader(200)
	case http.MethodDelete:
		if ix == nil {
			writeErr(w, 404, "index_not_found_exception")
			return
		}
		delete(f.indexes, name)
		fmt.Fprint(w, `{"acknowledged":true}`)
	case http.MethodPut:
		if ix != nil {
			writeErr(w, 400, "resource_already_exists_exception")
			return
		}
		var body bytes.Buffer
		body.ReadFrom(r.Body)
		var m struct {
			Mappings json.RawMessage `json:"mappings"`
		}
		if err := json.Unmarshal(body.Bytes(), &m); err != nil || m.Mappings == nil {
			writeErr(w, 400, "mapper_parsing_exception")
			return
		}
		f.indexes[name] = &fakeIndex{mapping: body.Bytes(), docs: map[string][]byte{}}
		fmt.Fprintf(w, `{"acknowledged":true,"shards_acknowledged":true,"index":%q}`, name)
	default:
		writeErr(w, 405, "method")
	}
}

func (f *FakeES) bulk(w http.ResponseWriter, r *http.Request, name string) {
	if f.Bulk429 > 0 {
		f.Bulk429--
		writeErr(w, 429, "es_rejected_execution_exception")
		return
	}
	ix := f.indexes[name]
	if ix == nil {
		// Elasticsearch would auto-create it; the loader must never rely on that.
		writeErr(w, 404, "index_not_found_exception: the loader sent _bulk before creating the index")
		return
	}
	sc := bufio.NewScanner(r.Body)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	type item struct {
		id, index string
		src       []byte
	}
	var items []item
	named := true
	for sc.Scan() {
		action := append([]byte(nil), sc.Bytes()...)
		if !sc.Scan() {
			writeErr(w, 400, "action without a source line")
			return
		}
		var a map[string]struct {
			ID    string `json:"_id"`
			Index string `json:"_index"`
		}
		if err := json.Unmarshal(action, &a); err != nil || len(a) != 1 {
			writeErr(w, 400, "bad action line")
			return
		}
		op, ok := a["index"]
		if !ok {
			writeErr(w, 400, "only index actions are expected")
			return
		}
		// Like Elasticsearch, an _index in the action line overrides the one in the path.
		if op.Index == "" {
			named = false
			op.Index = name
		}
		if f.indexes[op.Index] == nil {
			writeErr(w, 404, "index_not_found_exception: the action line names an index that does not exist")
			return
		}
		items = append(items, item{id: op.ID, index: op.Index, src: append([]byte(nil), sc.Bytes()...)})
	}
	f.BulkDocs = append(f.BulkDocs, len(items))
	f.BulkIndexInAction = append(f.BulkIndexInAction, named && len(items) > 0)
	errors := false
	var body bytes.Buffer
	listed := 0
	for _, it := range items {
		var line string
		reject := ""
		if f.Reject != nil {
			reject = f.Reject(it.id, it.src)
		}
		if fault := f.ItemFaults[it.id]; fault != nil && (fault.Times == 0 || fault.used < fault.Times) {
			fault.used++
			errors = true
			line = fmt.Sprintf(`{"index":{"_index":%q,"_id":%q,"status":%d,"error":{"type":%q,"reason":%q}}}`, it.index, it.id, fault.Status, fault.Type, fault.Reason)
		} else if reject != "" {
			errors = true
			line = fmt.Sprintf(`{"index":{"_index":%q,"_id":%q,"status":400,"error":%q}}`, it.index, it.id, reject)
		} else {
			status := 201
			ix := f.indexes[it.index]
			if _, ok := ix.docs[it.id]; ok {
				status = 200
			} else if !f.Drop[it.id] {
				ix.order = append(ix.order, it.id)
			}
			if !f.Drop[it.id] {
				ix.docs[it.id] = it.src
			}
			line = fmt.Sprintf(`{"index":{"_index":%q,"_id":%q,"_version":1,"result":"created","status":%d}}`, it.index, it.id, status)
		}
		if f.BulkItems > 0 && listed == f.BulkItems && !(f.FullWhenIndexInAction && named) {
			continue
		}
		if listed > 0 {
			body.WriteByte(',')
		}
		body.WriteString(line)
		listed++
	}
	odd := !(f.FullWhenIndexInAction && named)
	switch {
	case odd && f.BulkGarbage:
		w.Write([]byte("<html>bulk accepted</html>\n"))
	case odd && f.BulkNoItems:
		fmt.Fprintf(w, `{"took":1,"errors":%t}`, errors)
	case odd && f.BulkTopError != "":
		fmt.Fprintf(w, `{"took":1,"errors":%t,"error":%q,"items":[%s]}`, errors, f.BulkTopError, body.String())
	default:
		fmt.Fprintf(w, `{"took":1,"errors":%t,"items":[%s]}`, errors, body.String())
	}
}

func (f *FakeES) get(w http.ResponseWriter, name, id string) {
	ix := f.indexes[name]
	if ix == nil {
		writeErr(w, 404, "index_not_found_exception")
		return
	}
	src, ok := ix.docs[id]
	if alt, alter := f.AlterSource[id]; alter {
		src = []byte(alt)
	}
	if !ok || f.Hide[id] {
		w.WriteHeader(404)
		fmt.Fprintf(w, `{"_index":%q,"_id":%q,"found":false}`, name, id)
		return
	}
	fmt.Fprintf(w, `{"_index":%q,"_id":%q,"_version":1,"_seq_no":0,"_primary_term":1,"found":true,"_source":%s}`, name, id, src)
}

func writeErr(w http.ResponseWriter, status int, typ string) {
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"error":{"root_cause":[{"type":%q,"reason":%q}],"type":%q,"reason":%q},"status":%d}`, typ, typ, typ, typ, status)
}

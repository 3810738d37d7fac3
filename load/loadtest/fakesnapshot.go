package loadtest

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/tidwall/gjson"
)

// FakeSnapshotES is an Elasticsearch double for what conform snapshot reads, from a list of
// documents in index order: GET /, the mapping, the settings, _count, shard stats, a point in time as Elasticsearch
// (POST /{index}/_pit) or OpenSearch (POST /{index}/_search/point_in_time) names it with
// search_after on _shard_doc, and a scroll. Knobs make it misbehave.
type FakeSnapshotES struct {
	mu    sync.Mutex
	Index string
	Docs  [][2]string // id, raw source, in index order
	// Dialect is "es", "os" (no /_pit; /_search/point_in_time) or "scroll" (neither).
	Dialect string
	// Aliases maps an alias to the concrete indices it names.
	Aliases map[string][]string
	// WriteDuring adds a document after the first page is served.
	WriteDuring bool
	// FailPage answers the page with this number (from 1) with HTTP 500.
	FailPage int
	// HangPage never answers the page with this number, until the client gives up.
	HangPage int
	// NoSource leaves _source out of every hit.
	NoSource bool
	// Routed gives every third document (d-00000, d-00003, ...) the _routing RoutingOf(i).
	Routed bool

	pages    int
	frozen   [][2]string // the documents when the point in time opened, as a real one keeps them
	seqNo    int64
	requests []string
	// Closed lists what was closed: "pit ID" (the last id handed out) or "scroll".
	Closed []string
}

// RoutingOf is the _routing a Routed fake gives its i-th document: a quote and a non-ASCII
// letter in it, so the corpus writer's escaping is tested too.
func RoutingOf(i int) string { return fmt.Sprintf("r\"\u00e9%d", i%2) }

// NewFakeSnapshotES holds n documents d-00000... with small sources.
func NewFakeSnapshotES(index string, n int) *FakeSnapshotES {
	e := &FakeSnapshotES{Index: index, Dialect: "es"}
	for i := 0; i < n; i++ {
		e.Docs = append(e.Docs, [2]string{fmt.Sprintf("d-%05d", i), fmt.Sprintf(`{"n":%d,"s":"v\u00fc%d"}`, i, i%7)})
	}
	e.seqNo = int64(n - 1)
	return e
}

// ServeHTTP serves the endpoints.
func (e *FakeSnapshotES) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	e.mu.Lock()
	e.requests = append(e.requests, r.Method+" "+r.URL.Path)
	e.mu.Unlock()
	body, _ := io.ReadAll(r.Body)
	segs := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	w.Header().Set("Content-Type", "application/json")
	if e.Dialect != "os" {
		w.Header().Set("X-Elastic-Product", "Elasticsearch")
	}
	write := func(status int, s string) { w.WriteHeader(status); io.WriteString(w, s) }
	resolve := func(name string) []string {
		if ix, ok := e.Aliases[name]; ok {
			return ix
		}
		if name == e.Index {
			return []string{name}
		}
		return nil
	}
	switch {
	case r.URL.Path == "/":
		dist := ""
		if e.Dialect == "os" {
			dist = `,"distribution":"opensearch"`
		}
		write(200, `{"name":"n","cluster_name":"c","version":{"number":"8.15.0"`+dist+`}}`)
	case len(segs) == 2 && segs[1] == "_mapping":
		ix := resolve(segs[0])
		if ix == nil {
			write(404, `{"error":{"type":"index_not_found_exception"},"status":404}`)
			return
		}
		var parts []string
		for _, i := range ix {
			parts = append(parts, strconv.Quote(i)+`:{"mappings":{"dynamic":"strict","properties":{"n":{"type":"long"},"s":{"type":"keyword"}}}}`)
		}
		write(200, "{"+strings.Join(parts, ",")+"}")
	case len(segs) == 2 && segs[1] == "_settings":
		write(200, `{"`+e.Index+`":{"settings":{"index":{"routing":{"allocation":{"include":{"_tier_preference":"data_content"}}},"number_of_shards":"1","provided_name":"x","creation_date":"1","analysis":{"analyzer":{"a":{"type":"standard"}}},"number_of_replicas":"0","uuid":"u","version":{"created":"8512000"}}}}}`)
	case len(segs) == 2 && segs[1] == "_count":
		e.mu.Lock()
		n := len(e.Docs)
		e.mu.Unlock()
		write(200, fmt.Sprintf(`{"count":%d,"_shards":{"total":1,"successful":1,"skipped":0,"failed":0}}`, n))
	case len(segs) == 3 && segs[1] == "_stats":
		e.mu.Lock()
		seq := e.seqNo
		e.mu.Unlock()
		write(200, fmt.Sprintf(`{"indices":{%q:{"shards":{"0":[{"routing":{"primary":true},"seq_no":{"max_seq_no":%d}},{"routing":{"primary":false},"seq_no":{"max_seq_no":%d}}]}}}}`, e.Index, seq, seq-5))
	case len(segs) == 2 && segs[1] == "_pit" && r.Method == http.MethodPost && e.Dialect == "es":
		write(200, `{"id":"pit-1"}`)
	case len(segs) == 3 && segs[1] == "_search" && segs[2] == "point_in_time" && r.Method == http.MethodPost && e.Dialect == "os":
		write(200, `{"pit_id":"ospit-1","_shards":{"total":1,"successful":1,"skipped":0,"failed":0},"creation_time":1}`)
	case r.URL.Path == "/_pit" && r.Method == http.MethodDelete:
		e.mu.Lock()
		e.Closed = append(e.Closed, "pit "+gjson.GetBytes(body, "id").Str)
		e.mu.Unlock()
		write(200, `{"succeeded":true,"num_freed":1}`)
	case r.URL.Path == "/_search/point_in_time" && r.Method == http.MethodDelete:
		e.mu.Lock()
		e.Closed = append(e.Closed, "pit "+gjson.GetBytes(body, "pit_id.0").Str)
		e.mu.Unlock()
		write(200, `{"pits":[]}`)
	case r.URL.Path == "/_search/scroll" && r.Method == http.MethodDelete:
		e.mu.Lock()
		e.Closed = append(e.Closed, "scroll")
		e.mu.Unlock()
		write(200, `{"succeeded":true}`)
	case r.URL.Path == "/_search" && r.Method == http.MethodPost && gjson.GetBytes(body, "pit").Exists():
		from := 0
		if sa := gjson.GetBytes(body, "search_after.0"); sa.Exists() {
			from = int(sa.Int()) + 1
		}
		if gjson.GetBytes(body, "sort.0").Str != "_shard_doc" {
			write(400, `{"error":{"type":"x"},"status":400}`)
			return
		}
		e.page(w, r, from, int(gjson.GetBytes(body, "size").Int()), `"pit_id":"pit-2",`, true)
	case len(segs) == 2 && segs[1] == "_search" && r.URL.Query().Get("scroll") != "":
		e.page(w, r, 0, int(gjson.GetBytes(body, "size").Int()), `"_scroll_id":"0",`, false)
	case r.URL.Path == "/_search/scroll" && r.Method == http.MethodPost:
		from, _ := strconv.Atoi(gjson.GetBytes(body, "scroll_id").Str)
		e.page(w, r, from, 1000, fmt.Sprintf(`"_scroll_id":"%d",`, from), false)
	default:
		write(400, `{"error":"no handler found for uri [`+r.URL.Path+`] and method [`+r.Method+`]"}`)
	}
}

// page answers one page from document number from; a scroll's next id is from+size.
func (e *FakeSnapshotES) page(w http.ResponseWriter, r *http.Request, from, size int, head string, pit bool) {
	e.mu.Lock()
	e.pages++
	n := e.pages
	if e.frozen == nil {
		e.frozen = e.Docs
	}
	docs := e.frozen
	if e.WriteDuring && n == 1 {
		e.Docs = append(e.Docs[:len(e.Docs):len(e.Docs)], [2]string{"late", `{"n":-1}`})
		e.seqNo++
	}
	e.mu.Unlock()
	if n == e.FailPage {
		w.WriteHeader(500)
		io.WriteString(w, `{"error":{"type":"search_phase_execution_exception"},"status":500}`)
		return
	}
	if n == e.HangPage {
		<-r.Context().Done()
		return
	}
	if !pit {
		head = strings.Replace(head, strconv.Itoa(from), strconv.Itoa(from+size), 1)
	}
	var b strings.Builder
	b.WriteString(`{` + head + `"took":1,"timed_out":false,"hits":{"max_score":null,"hits":[`)
	for i := from; i < from+size && i < len(docs); i++ {
		if i > from {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"_index":%q,"_id":%q,"_score":null`, e.Index, docs[i][0])
		if e.Routed && i%3 == 0 {
			fmt.Fprintf(&b, `,"_routing":%q`, RoutingOf(i))
		}
		if !e.NoSource {
			b.WriteString(`,"_source":` + docs[i][1])
		}
		if pit {
			fmt.Fprintf(&b, `,"sort":[%d]`, i)
		}
		b.WriteByte('}')
	}
	b.WriteString(`]}}`)
	io.WriteString(w, b.String())
}

package load

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/elastic/elastic-transport-go/v8/elastictransport"

	"github.com/conform-dev/conform/fixtures"
)

// ESOptions configure LoadES. The zero value loads into the workload's index in batches of
// 1000 documents or 5 MiB.
type ESOptions struct {
	// Index is the index to create; empty means the workload's index.
	Index string
	// Recreate deletes an existing non-empty index first. Without it LoadES refuses to touch
	// one (an existing empty index is replaced: nothing is lost).
	Recreate bool
	// BatchDocs and BatchBytes bound each _bulk request (defaults 1000 and 5 MiB).
	BatchDocs  int
	BatchBytes int
	// MaxRetries bounds how often one batch is retried after 429 Too Many Requests, whole or
	// per item (default 8). Backoff is the wait before retry n (from 1); the default doubles
	// from 250ms up to 10s.
	MaxRetries int
	Backoff    func(retry int) time.Duration
	// SampleDocs is the size of the verification sample (default DefaultSampleDocs).
	SampleDocs int
	// IndexInAction names _index in every bulk action line, not only in the path. ZincSearch
	// needs it to answer with one item per document. Without it, the first short reply makes
	// LoadES send that batch again naming _index, and keep doing so if the reply is then whole.
	IndexInAction bool
	// After the refresh, LoadES polls _count every PollInterval (default 500ms) until it
	// reaches the corpus size, for engines that index asynchronously. It stops waiting after
	// CountWait (default: the context's deadline less a reserve for the verification, or 10
	// minutes without a deadline), or once the count has not moved for CountStall (default 1
	// minute), and then lets the verification judge the count.
	PollInterval time.Duration
	CountWait    time.Duration
	CountStall   time.Duration
	// Log receives one line per step, and each warning; nil discards them.
	Log io.Writer
}

// ESReport is what LoadES did.
type ESReport struct {
	Index string `json:"index"`
	// Replaced is "" for a new index, "empty" when an existing empty index was replaced, or
	// "recreated" when --recreate deleted an existing non-empty one.
	Replaced  string        `json:"replaced,omitempty"`
	Documents int           `json:"documents"`
	Batches   int           `json:"batches"`
	Retries   int           `json:"retries"` // 429 retries, whole batches and items
	Took      time.Duration `json:"took_ns"`
	// IndexInAction is set when the action lines named _index: by the option, or from the
	// batch whose short reply made LoadES try it.
	IndexInAction bool `json:"index_in_action,omitempty"`
	// CountWaited is how long the count took to reach the corpus size after the refresh (zero
	// when it was there at once), or how long LoadES waited before it gave up.
	CountWaited time.Duration `json:"count_waited_ns,omitempty"`
	// Warnings say what was odd on the way, such as bulk replies that did not account for
	// every document; they do not fail the load, the verification does.
	Warnings []string `json:"warnings,omitempty"`
	// Rejected counts the documents bulk replies refused for good (an item error other than
	// 429, or 429 after every retry); FirstRejected keeps the first few with id and reason.
	// They do not stop the load: the verification then fails it, saying how many the engine
	// holds.
	Rejected      int         `json:"rejected,omitempty"`
	FirstRejected []ItemError `json:"first_rejected,omitempty"`
	// Probe is the verification after loading: identity, count and sample fingerprint.
	Probe *Probe `json:"probe"`
}

// NotEmptyError is an existing index or collection that holds documents, which a load will
// not touch without Recreate.
type NotEmptyError struct {
	What  string // "index" or "collection"
	Name  string
	Count int64
}

func (e *NotEmptyError) Error() string {
	return fmt.Sprintf("%s %q already holds %d documents; conform load leaves it alone unless you pass --recreate", e.What, e.Name, e.Count)
}

// ItemError is one document the _bulk API refused. ID is empty when the reply neither named
// the document nor listed one item per document; Item is the item's place in the reply.
type ItemError struct {
	ID     string `json:"id"`
	Item   int    `json:"item"` // 1-based
	Status int    `json:"status"`
	Type   string `json:"type"`
	Reason string `json:"reason"`
}

// RejectedLine says how many documents the engine holds and how many it rejected, with the
// first few: "holds 87 of 10000 documents; 9,913 rejected, first: "SKU-1": 400 ...". It is
// "" when nothing was rejected or there is no count yet.
func (r *ESReport) RejectedLine() string {
	if r == nil || r.Rejected == 0 || r.Probe == nil {
		return ""
	}
	var first []string
	for _, it := range r.FirstRejected {
		first = append(first, it.String())
	}
	return fmt.Sprintf("holds %d of %d documents; %s rejected, first: %s", r.Probe.Count, r.Documents, thousands(r.Rejected), strings.Join(first, "; "))
}

// thousands writes n with a comma every three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// String is the item as reports show it: "SKU-1": 400 mapper_parsing_exception: reason.
func (it ItemError) String() string {
	var b strings.Builder
	if it.ID != "" {
		fmt.Fprintf(&b, "%q", it.ID)
	} else {
		fmt.Fprintf(&b, "item %d (no _id)", it.Item)
	}
	fmt.Fprintf(&b, ": %d", it.Status)
	if it.Type != "" {
		fmt.Fprintf(&b, " %s", it.Type)
	}
	fmt.Fprintf(&b, ": %s", it.Reason)
	return b.String()
}

func (o *ESOptions) defaults(f *fixtures.Fixtures) {
	if o.Index == "" {
		o.Index = f.Workload.Index
	}
	if o.BatchDocs <= 0 {
		o.BatchDocs = 1000
	}
	if o.BatchBytes <= 0 {
		o.BatchBytes = 5 << 20
	}
	if o.MaxRetries <= 0 {
		o.MaxRetries = 8
	}
	if o.Backoff == nil {
		o.Backoff = defaultBackoff
	}
	if o.PollInterval <= 0 {
		o.PollInterval = 500 * time.Millisecond
	}
	if o.CountStall <= 0 {
		o.CountStall = time.Minute
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
}

// esLoader is one LoadES call: its options, the report it fills, and what it learned about
// the engine's bulk replies on the way.
type esLoader struct {
	c   esClient
	o   ESOptions
	rep *ESReport
	// resent is set once a short reply has been answered by sending its batch again with
	// _index named; that is tried once per load.
	resent bool
	// searchCount is set once the count came from _search because _count is not served.
	searchCount bool
}

// firstRejected is how many rejected documents a report keeps whole (with id and reason).
const firstRejected = 5

// reject records the documents a batch's reply refused for good: they are counted and the
// first few kept, and the load goes on, so the end can say how many the engine holds and
// why the rest are not there (ZincSearch refuses day-only dates, for one).
func (l *esLoader) reject(n int, items []ItemError) {
	l.rep.Rejected += len(items)
	for _, it := range items {
		if len(l.rep.FirstRejected) == firstRejected {
			break
		}
		l.rep.FirstRejected = append(l.rep.FirstRejected, it)
	}
	fmt.Fprintf(l.o.Log, "bulk batch %d: %d document(s) rejected (first %s); going on\n", n, len(items), items[0])
}

// warn records a warning in the report and logs it as it happens.
func (l *esLoader) warn(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	l.rep.Warnings = append(l.rep.Warnings, msg)
	fmt.Fprintf(l.o.Log, "warning: %s\n", msg)
}

func defaultBackoff(retry int) time.Duration {
	d := 250 * time.Millisecond << min(retry-1, 6)
	return min(d, 10*time.Second)
}

// LoadES creates the index from the mapping, bulk-loads the corpus, refreshes, waits for the
// count to reach the corpus size, and verifies the count and a sample of documents. The proof
// that the corpus is intact is that verification, not the shape of the bulk replies: a reply
// that does not account for every document is a warning in the report, while an item that
// reports an error is a BulkError. tp must not insist on Elasticsearch's product header
// (an *elastictransport.Client does not), so OpenSearch, gateways and the embedded engine
// load too. A VerifyError means the load ran but the engine does not hold the corpus.
func LoadES(ctx context.Context, tp elastictransport.Interface, f *fixtures.Fixtures, o ESOptions) (*ESReport, error) {
	o.defaults(f)
	start := time.Now()
	c := esClient{tp}
	rep := &ESReport{Index: o.Index, IndexInAction: o.IndexInAction}
	l := &esLoader{c: c, o: o, rep: rep}

	exists, err := c.indexExists(ctx, o.Index)
	if err != nil {
		return nil, err
	}
	if exists {
		n, err := c.count(ctx, o.Index)
		if err != nil {
			return nil, err
		}
		if n > 0 && !o.Recreate {
			return nil, &NotEmptyError{What: "index", Name: o.Index, Count: n}
		}
		rep.Replaced = "empty"
		if n > 0 {
			rep.Replaced = "recreated"
		}
		fmt.Fprintf(o.Log, "deleting existing index %s (%d documents)\n", o.Index, n)
		if r, err := c.do(ctx, http.MethodDelete, []string{o.Index}, nil, nil, ""); err != nil {
			return nil, err
		} else if r.Status != http.StatusOK {
			return nil, httpErr(opName("DELETE", o.Index), r)
		}
	}
	fmt.Fprintf(o.Log, "creating index %s\n", o.Index)
	r, err := c.do(ctx, http.MethodPut, []string{o.Index}, nil, f.Mapping, "application/json")
	if err != nil {
		return nil, err
	}
	if r.Status != http.StatusOK {
		return nil, httpErr(opName("PUT", o.Index), r)
	}

	for i, batch := range esBatches(f.Docs, o.BatchDocs, o.BatchBytes) {
		if err := l.bulk(ctx, i+1, batch); err != nil {
			return nil, err
		}
		rep.Batches++
		rep.Documents += len(batch)
		fmt.Fprintf(o.Log, "bulk batch %d: %d documents (%d/%d)\n", i+1, len(batch), rep.Documents, len(f.Docs))
	}

	if r, err := c.do(ctx, http.MethodPost, []string{o.Index, "_refresh"}, nil, nil, ""); err != nil {
		return nil, err
	} else if r.Status != http.StatusOK {
		return nil, httpErr(opName("POST", o.Index, "_refresh"), r)
	}

	// Rejected documents will never be counted: wait for the rest only.
	w, err := l.awaitCount(ctx, int64(len(f.Docs)-rep.Rejected))
	if err != nil {
		return nil, fmt.Errorf("waiting for the count of %s: %w", o.Index, err)
	}
	rep.CountWaited = w.waited
	p, err := ProbeES(ctx, tp, o.Index, f, ProbeOptions{SampleDocs: o.SampleDocs})
	if err != nil {
		return nil, fmt.Errorf("verifying %s: %w", o.Index, err)
	}
	rep.Probe = p
	rep.Took = time.Since(start)
	if !p.Intact() {
		return rep, &VerifyError{Engine: "index " + o.Index, Problems: p.Problems, Note: w.note, Rejected: rep.RejectedLine()}
	}
	fmt.Fprintf(o.Log, "verified %s: %d documents, sample %s\n", o.Index, p.Count, p.Sample.SHA256[:12])
	return rep, nil
}

func (c esClient) indexExists(ctx context.Context, index string) (bool, error) {
	r, err := c.do(ctx, http.MethodHead, []string{index}, nil, nil, "")
	if err != nil {
		return false, err
	}
	switch r.Status {
	case http.StatusOK:
		return true, nil
	case http.StatusNotFound:
		return false, nil
	}
	return false, httpErr(opName("HEAD", index), r)
}

func (c esClient) count(ctx context.Context, index string) (int64, error) {
	n, _, err := c.countVia(ctx, index)
	return n, err
}

// countSearch is the count asked of an engine without _count: a search for no hits whose
// total is exact.
var countSearch = []byte(`{"size":0,"track_total_hits":true}`)

// countVia counts the index's documents with GET /{index}/_count or, where that answers 404
// (not an index_not_found_exception) or 405 (ZincSearch's Elasticsearch API has no _count), with POST /{index}/_search {"size":0,
// "track_total_hits":true}; via says which, as "METHOD /path".
func (c esClient) countVia(ctx context.Context, index string) (n int64, via string, err error) {
	via = opName("GET", index, "_count")
	r, err := c.do(ctx, http.MethodGet, []string{index, "_count"}, nil, nil, "")
	if err != nil {
		return 0, via, err
	}
	// A missing index is a 404 too, but one that says so: only an unrouted _count falls back.
	missing := bytes.Contains(r.Body, []byte("index_not_found_exception"))
	if r.Status == http.StatusMethodNotAllowed || r.Status == http.StatusNotFound && !missing {
		countErr := httpErr(via, r)
		via = opName("POST", index, "_search")
		s, err := c.do(ctx, http.MethodPost, []string{index, "_search"}, nil, countSearch, "application/json")
		if err != nil {
			return 0, via, err
		}
		if s.Status != http.StatusOK {
			// The index is missing, or neither API counts: say both.
			return 0, via, fmt.Errorf("%v; %v", countErr, httpErr(via, s))
		}
		n, err := searchTotal(s.Body)
		if err != nil {
			return 0, via, fmt.Errorf("%s (counting, as %s answered %d): %w", via, countErr.Op, countErr.Status, err)
		}
		return n, via, nil
	}
	if missing {
		return 0, via, fmt.Errorf("there is no index %s (%w)", index, httpErr(via, r))
	}
	if r.Status != http.StatusOK {
		return 0, via, httpErr(via, r)
	}
	var body struct {
		Count *int64 `json:"count"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil || body.Count == nil {
		return 0, via, fmt.Errorf("%s: no count in %s", via, snippet(r.Body))
	}
	return *body.Count, via, nil
}

// searchTotal reads an exact hits.total from a search reply: {"value":N,"relation":"eq"}, or a
// bare number as engines answering rest_total_hits_as_int style send.
func searchTotal(body []byte) (int64, error) {
	var b struct {
		Hits *struct {
			Total json.RawMessage `json:"total"`
		} `json:"hits"`
	}
	if err := json.Unmarshal(body, &b); err != nil || b.Hits == nil || len(b.Hits.Total) == 0 {
		return 0, fmt.Errorf("no hits.total in %s", snippet(body))
	}
	var n int64
	if json.Unmarshal(b.Hits.Total, &n) == nil {
		return n, nil
	}
	var t struct {
		Value    *int64 `json:"value"`
		Relation string `json:"relation"`
	}
	if err := json.Unmarshal(b.Hits.Total, &t); err != nil || t.Value == nil {
		return 0, fmt.Errorf("hits.total is not a count: %s", snippet(b.Hits.Total))
	}
	if t.Relation != "" && t.Relation != "eq" {
		return 0, fmt.Errorf("hits.total is a lower bound (relation %q), not an exact count: %s", t.Relation, snippet(b.Hits.Total))
	}
	return *t.Value, nil
}

// esBatches splits the corpus into batches of at most maxDocs documents and, unless a single
// document is larger, maxBytes of bulk body.
func esBatches(docs []fixtures.Doc, maxDocs, maxBytes int) [][]fixtures.Doc {
	var out [][]fixtures.Doc
	start, size := 0, 0
	for i, d := range docs {
		n := len(d.Source) + len(d.ID) + 32
		if i > start && (i-start >= maxDocs || size+n > maxBytes) {
			out = append(out, docs[start:i])
			start, size = i, 0
		}
		size += n
	}
	if start < len(docs) {
		out = append(out, docs[start:])
	}
	return out
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

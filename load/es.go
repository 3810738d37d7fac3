package load

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
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

// BulkError is a batch with documents refused for good (not 429, or still 429 after the
// retries). Items lists every refused document of the batch.
type BulkError struct {
	Index string
	Batch int // 1-based
	Items []ItemError
}

func (e *BulkError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "bulk batch %d into %q: %d document(s) refused", e.Batch, e.Index, len(e.Items))
	for i, it := range e.Items {
		if i == 5 {
			fmt.Fprintf(&b, "; and %d more", len(e.Items)-5)
			break
		}
		if it.ID != "" {
			fmt.Fprintf(&b, "; %q", it.ID)
		} else {
			fmt.Fprintf(&b, "; item %d (no _id)", it.Item)
		}
		fmt.Fprintf(&b, ": %d", it.Status)
		if it.Type != "" {
			fmt.Fprintf(&b, " %s", it.Type)
		}
		fmt.Fprintf(&b, ": %s", it.Reason)
	}
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

	w, err := l.awaitCount(ctx, int64(len(f.Docs)))
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
		return rep, &VerifyError{Engine: "index " + o.Index, Problems: p.Problems, Note: w.note}
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
	r, err := c.do(ctx, http.MethodGet, []string{index, "_count"}, nil, nil, "")
	if err != nil {
		return 0, err
	}
	if r.Status != http.StatusOK {
		return 0, httpErr(opName("GET", index, "_count"), r)
	}
	var body struct {
		Count *int64 `json:"count"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil || body.Count == nil {
		return 0, fmt.Errorf("GET /%s/_count: no count in %s", index, snippet(r.Body))
	}
	return *body.Count, nil
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

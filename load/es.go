package load

import (
	"bytes"
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
	// Log receives one line per step; nil discards them.
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

// ItemError is one document the _bulk API refused.
type ItemError struct {
	ID     string `json:"id"`
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
		fmt.Fprintf(&b, "; %q: %d %s: %s", it.ID, it.Status, it.Type, it.Reason)
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
	if o.Log == nil {
		o.Log = io.Discard
	}
}

func defaultBackoff(retry int) time.Duration {
	d := 250 * time.Millisecond << min(retry-1, 6)
	return min(d, 10*time.Second)
}

// LoadES creates the index from the mapping, bulk-loads the corpus, refreshes, and verifies
// the count and a sample of documents. tp must not insist on Elasticsearch's product header
// (an *elastictransport.Client does not), so OpenSearch, gateways and the embedded engine
// load too. A VerifyError means the load ran but the engine does not hold the corpus.
func LoadES(ctx context.Context, tp elastictransport.Interface, f *fixtures.Fixtures, o ESOptions) (*ESReport, error) {
	o.defaults(f)
	start := time.Now()
	c := esClient{tp}
	rep := &ESReport{Index: o.Index}

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
		retries, err := c.bulk(ctx, o, i+1, batch)
		rep.Retries += retries
		if err != nil {
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

	p, err := ProbeES(ctx, tp, o.Index, f, ProbeOptions{SampleDocs: o.SampleDocs})
	if err != nil {
		return nil, fmt.Errorf("verifying %s: %w", o.Index, err)
	}
	rep.Probe = p
	rep.Took = time.Since(start)
	if !p.Intact() {
		return rep, &VerifyError{Engine: "index " + o.Index, Problems: p.Problems}
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

func bulkBody(docs []fixtures.Doc) []byte {
	var b bytes.Buffer
	for _, d := range docs {
		b.WriteString(`{"index":{"_id":`)
		b.Write(canonicalString(d.ID))
		b.WriteString("}}\n")
		b.Write(d.Source)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

type bulkResponse struct {
	Items []map[string]bulkItemReply `json:"items"`
}

type bulkItemReply struct {
	ID     string `json:"_id"`
	Status int    `json:"status"`
	Error  *struct {
		Type   string `json:"type"`
		Reason string `json:"reason"`
	} `json:"error"`
}

// bulk sends one batch, retrying the whole request on 429 and, after a partial success, only
// the items refused with 429. Other refusals fail the batch with every refused item listed.
func (c esClient) bulk(ctx context.Context, o ESOptions, n int, docs []fixtures.Doc) (retries int, err error) {
	op := opName("POST", o.Index, "_bulk")
	pending := docs
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			retries++
			if err := sleep(ctx, o.Backoff(attempt)); err != nil {
				return retries, err
			}
		}
		r, err := c.do(ctx, http.MethodPost, []string{o.Index, "_bulk"}, nil, bulkBody(pending), "application/x-ndjson")
		if err != nil {
			return retries, err
		}
		if r.Status == http.StatusTooManyRequests {
			if attempt == o.MaxRetries {
				return retries, fmt.Errorf("%s batch %d: still 429 Too Many Requests after %d retries", op, n, attempt)
			}
			fmt.Fprintf(o.Log, "bulk batch %d: 429, retrying (%d)\n", n, attempt+1)
			continue
		}
		if r.Status != http.StatusOK {
			return retries, httpErr(op, r)
		}
		var br bulkResponse
		if err := json.Unmarshal(r.Body, &br); err != nil {
			return retries, fmt.Errorf("%s batch %d: unreadable response: %v", op, n, err)
		}
		if len(br.Items) != len(pending) {
			return retries, fmt.Errorf("%s batch %d: %d items in the response for %d documents", op, n, len(br.Items), len(pending))
		}
		// Items are read even when "errors" is false: a gateway may get that flag wrong.
		var again []fixtures.Doc
		var refused []ItemError
		for i, item := range br.Items {
			var it bulkItemReply
			for _, v := range item {
				it = v
			}
			if it.Status >= 200 && it.Status < 300 {
				continue
			}
			ie := ItemError{ID: pending[i].ID, Status: it.Status}
			if it.Error != nil {
				ie.Type, ie.Reason = it.Error.Type, it.Error.Reason
			}
			if it.Status == http.StatusTooManyRequests && attempt < o.MaxRetries {
				again = append(again, pending[i])
				continue
			}
			refused = append(refused, ie)
		}
		if len(refused) > 0 {
			return retries, &BulkError{Index: o.Index, Batch: n, Items: refused}
		}
		if len(again) == 0 {
			return retries, nil
		}
		fmt.Fprintf(o.Log, "bulk batch %d: %d item(s) got 429, retrying them (%d)\n", n, len(again), attempt+1)
		pending = again
	}
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

package load

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/conform-dev/conform/fixtures"
	"github.com/elastic/elastic-transport-go/v8/elastictransport"
	"github.com/tidwall/gjson"
)

// Snapshot methods: how the documents are read.
const (
	// SnapshotPIT is a point in time with search_after on _shard_doc, the way Elasticsearch
	// 7.12+ documents for reading a whole index ("Paginate search results": a PIT and the
	// implicit _shard_doc tiebreaker), and OpenSearch 2.4+ offers under
	// /{index}/_search/point_in_time.
	SnapshotPIT = "pit+search_after(_shard_doc)"
	// SnapshotScroll is a scroll sorted by _doc, for engines without a point in time.
	SnapshotScroll = "scroll(_doc)"
)

// SnapshotOptions say what Snapshot reads and where it writes.
type SnapshotOptions struct {
	// Index is the index (or an alias of exactly one index) to read.
	Index string
	// Dir receives mapping.json, corpus.ndjson and fixtures.json. Files are written under
	// temporary names and renamed at the end, so a snapshot cut short never leaves a corpus
	// that looks complete.
	Dir string
	// From is the engine's URL as recorded: without credentials.
	From string
	// PageSize is the documents asked for per request. 0 sizes the pages of a point in time
	// by the documents read so far, about PageBytes each (within 100 to 10,000 documents,
	// Elasticsearch's default max_result_window), starting at 1000; a scroll asks 1000.
	PageSize int
	// KeepAlive is how long the point in time or scroll lives between two pages (default
	// 5 minutes).
	KeepAlive time.Duration
	// Method forces SnapshotPIT or SnapshotScroll; empty tries a point in time (as
	// Elasticsearch, then as OpenSearch, names it) and falls back to a scroll.
	Method string
	// Progress, when set, is called after every page.
	Progress func(SnapshotProgress)
	// Log receives one line per notable step (the method chosen, a fallback); nil discards.
	Log io.Writer
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// SnapshotProgress is how far a snapshot is.
type SnapshotProgress struct {
	Documents, Total int64 // read so far; the count when the reading began
	Bytes            int64 // written to corpus.ndjson
	Elapsed          time.Duration
}

// SnapshotReport is what a snapshot did.
type SnapshotReport struct {
	Index    string // the concrete index read
	Identity Identity
	Method   string
	// Pages is the number of pages read, and MaxPage the most documents one of them held.
	Pages, MaxPage int
	Documents      int64
	Bytes          int64 // the size of corpus.ndjson
	// Reflowed counts the sources stored with line breaks between their tokens: bulk NDJSON
	// needs one line per source, so they were written without those line breaks (nothing
	// else in their bytes changes). Every other source is written byte for byte as stored.
	Reflowed int64
	// Routed counts the documents with a custom _routing, kept as "routing" in their action line.
	Routed int64
	// Changed says how the index changed while it was read, or is empty.
	Changed string
	Took    time.Duration
	Meta    fixtures.Meta
	// Warnings are caveats the user can act on (settings left out, routing, reflowed sources).
	Warnings []string
}

// snapshotSettings are the index settings a snapshot keeps in mapping.json: the ones that
// change what a search answers (scores and tie order by shard, analysis, index sorting,
// similarity, windows and limits), and the replica count the index was made with. The rest
// (uuid, creation date, versions, allocation, refresh, blocks) describe the cluster the index
// lives in, not its answers, and an index-creation body may not set several of them.
var snapshotSettings = []string{
	"number_of_shards", "number_of_replicas", "number_of_routing_shards", "routing_partition_size",
	"analysis", "similarity", "sort", "mapping", "query",
	"max_result_window", "max_inner_result_window", "max_rescore_window", "max_docvalue_fields_search",
	"max_script_fields", "max_terms_count", "max_regex_length", "max_ngram_diff", "max_shingle_diff",
}

// Snapshot exports one index of a live Elasticsearch or OpenSearch into a fixtures directory:
// mapping.json (an index-creation body of its settings that matter and its mappings, from
// GET /{index}/_settings and GET /{index}/_mapping), corpus.ndjson (every document's _id and
// _source bytes as stored, in bulk format) and fixtures.json (counts, hashes, where and when).
// It streams: one page of documents is in memory at a time, whatever the index's size.
// It says, in SnapshotReport.Changed, when the index's count or sequence numbers moved while
// it was read. The transport carries the engine's address, credentials and TLS; nothing of
// them is written.
func Snapshot(ctx context.Context, tp elastictransport.Interface, o SnapshotOptions) (*SnapshotReport, error) {
	if o.PageSize < 0 {
		o.PageSize = 0
	}
	if o.KeepAlive <= 0 {
		o.KeepAlive = 5 * time.Minute
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	switch o.Method {
	case "", SnapshotPIT, SnapshotScroll:
	default:
		return nil, fmt.Errorf("unknown snapshot method %q (want %q or %q)", o.Method, SnapshotPIT, SnapshotScroll)
	}
	c := esClient{tp: tp}
	start := o.Now()
	rep := &SnapshotReport{}
	id, err := c.identity(ctx)
	if err != nil {
		return nil, err
	}
	rep.Identity = id

	index, mapping, skipped, err := c.snapshotMapping(ctx, o.Index)
	if err != nil {
		return nil, err
	}
	rep.Index = index
	if len(skipped) > 0 {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("index settings left out of mapping.json (they describe the cluster, not the answers): %s", strings.Join(skipped, ", ")))
	}
	if err := fixtures.ValidateMapping(mapping); err != nil {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("conform's fixtures reader refuses this mapping (%v): the snapshot is written, but other commands will not read it until the mapping is edited", err))
	}
	before, err := c.indexState(ctx, index)
	if err != nil {
		return nil, err
	}

	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return nil, err
	}
	tmpCorpus := filepath.Join(o.Dir, fixtures.CorpusFile+".partial")
	file, err := os.Create(tmpCorpus)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	hash := sha256.New()
	w := &corpusWriter{w: bufio.NewWriterSize(io.MultiWriter(file, hash), 1<<20)}

	r := &reader{c: c, index: index, o: o}
	progress := func() {
		if o.Progress != nil {
			o.Progress(SnapshotProgress{Documents: w.docs, Total: before.count, Bytes: w.bytes, Elapsed: o.Now().Sub(start)})
		}
	}
	rep.Method, err = r.run(ctx, func(page []byte) error {
		rep.Pages++
		if err := w.page(page); err != nil {
			return err
		}
		progress()
		return nil
	})
	if err == nil {
		err = w.w.Flush()
	}
	if err == nil {
		err = file.Close()
	}
	if err != nil {
		if w.docs > 0 {
			err = fmt.Errorf("%w; %d documents were read before it stopped, in %s (not a fixtures file)", err, w.docs, tmpCorpus)
		} else {
			os.Remove(tmpCorpus)
		}
		return nil, err
	}
	rep.Documents, rep.Bytes, rep.Reflowed, rep.Routed, rep.MaxPage = w.docs, w.bytes, w.reflowed, w.routed, r.maxPage
	if rep.Documents == 0 {
		os.Remove(tmpCorpus)
		return nil, fmt.Errorf("index %s holds no documents: a snapshot needs at least one", index)
	}
	after, err := c.indexState(ctx, index)
	if err != nil {
		return nil, err
	}
	rep.Changed = changed(before, after, rep.Documents, rep.Method)
	if rep.Reflowed > 0 {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("%d documents' _source held line breaks between their tokens: written without them, since bulk NDJSON needs one line per source (no other byte differs)", rep.Reflowed))
	}

	finished := o.Now()
	rep.Took = finished.Sub(start)
	rep.Meta = fixtures.Meta{
		Format: fixtures.MetaFormat, Index: index, Documents: int(rep.Documents), Cases: map[string]int{},
		SHA256: fixtures.Hashes{Mapping: fixtures.SHA256(mapping), Corpus: hex.EncodeToString(hash.Sum(nil))},
		Snapshot: &fixtures.Snapshot{From: o.From, Engine: id.String(), Index: index,
			Started: stamp(start), Finished: stamp(finished), Method: rep.Method, Changed: rep.Changed},
	}
	meta, err := json.MarshalIndent(rep.Meta, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := writeFile(filepath.Join(o.Dir, fixtures.MappingFile), mapping); err != nil {
		return nil, err
	}
	if err := os.Rename(tmpCorpus, filepath.Join(o.Dir, fixtures.CorpusFile)); err != nil {
		return nil, err
	}
	if err := writeFile(filepath.Join(o.Dir, fixtures.MetaFile), append(meta, '\n')); err != nil {
		return nil, err
	}
	return rep, nil
}

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z07:00") }

// writeFile writes a file under a temporary name and renames it into place.
func writeFile(path string, data []byte) error {
	tmp := path + ".partial"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// String names the engine: "Elasticsearch 8.15.0", "OpenSearch 3.6.0", or what is known.
func (id Identity) String() string {
	name := "unknown engine"
	switch {
	case id.Distribution == "opensearch":
		name = "OpenSearch"
	case id.Distribution == "elasticsearch" || id.Product == "Elasticsearch":
		name = "Elasticsearch"
	case id.Distribution != "":
		name = id.Distribution
	}
	if id.Version != "" {
		name += " " + id.Version
	}
	return name
}

// snapshotMapping reads the index's settings and mappings and makes the index-creation body.
// An alias must name exactly one index.
func (c esClient) snapshotMapping(ctx context.Context, name string) (index string, body []byte, skipped []string, err error) {
	m, err := c.do(ctx, http.MethodGet, []string{name, "_mapping"}, nil, nil, "")
	if err != nil {
		return "", nil, nil, err
	}
	if m.Status != http.StatusOK {
		return "", nil, nil, httpErr(opName("GET", name, "_mapping"), m)
	}
	mroot := gjson.ParseBytes(m.Body)
	if !gjson.ValidBytes(m.Body) || !mroot.IsObject() {
		return "", nil, nil, fmt.Errorf("GET /%s/_mapping: not a JSON object: %s", name, snippet(m.Body))
	}
	var names []string
	mroot.ForEach(func(k, _ gjson.Result) bool { names = append(names, k.Str); return true })
	switch len(names) {
	case 0:
		return "", nil, nil, fmt.Errorf("GET /%s/_mapping names no index", name)
	case 1:
	default:
		sort.Strings(names)
		return "", nil, nil, fmt.Errorf("%s names %d indices (%s): a snapshot is of one index; name one of them", name, len(names), strings.Join(names, ", "))
	}
	index = names[0]
	mappings := mroot.Get(gjson.Escape(index) + ".mappings")
	if !mappings.IsObject() {
		return "", nil, nil, fmt.Errorf("GET /%s/_mapping: no mappings object for %s", name, index)
	}
	s, err := c.do(ctx, http.MethodGet, []string{index, "_settings"}, nil, nil, "")
	if err != nil {
		return "", nil, nil, err
	}
	if s.Status != http.StatusOK {
		return "", nil, nil, httpErr(opName("GET", index, "_settings"), s)
	}
	settings := gjson.GetBytes(s.Body, gjson.Escape(index)+".settings.index")
	if !settings.IsObject() {
		return "", nil, nil, fmt.Errorf("GET /%s/_settings: no settings.index object for %s: %s", index, index, snippet(s.Body))
	}
	var kept bytes.Buffer
	kept.WriteByte('{')
	settings.ForEach(func(k, v gjson.Result) bool {
		keep := false
		for _, s := range snapshotSettings {
			if k.Str == s {
				keep = true
			}
		}
		if !keep {
			skipped = append(skipped, "index."+k.Str)
			return true
		}
		if kept.Len() > 1 {
			kept.WriteByte(',')
		}
		key, _ := json.Marshal(k.Str)
		kept.Write(key)
		kept.WriteByte(':')
		kept.WriteString(v.Raw)
		return true
	})
	kept.WriteByte('}')
	var raw bytes.Buffer
	raw.WriteString(`{"settings":{"index":`)
	raw.Write(kept.Bytes())
	raw.WriteString(`},"mappings":`)
	raw.WriteString(mappings.Raw)
	raw.WriteString("}")
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, raw.Bytes(), "", "  "); err != nil {
		return "", nil, nil, fmt.Errorf("index %s: the settings and mappings do not make JSON: %w", index, err)
	}
	pretty.WriteByte('\n')
	return index, pretty.Bytes(), skipped, nil
}

// indexState is what says whether an index changed: its count and each primary shard's
// max_seq_no (a write of any kind moves it). An engine without the stats API gives the
// count alone.
type indexState struct {
	count  int64
	seqNos map[string]int64 // shard number -> max_seq_no of its primary; nil when not served
}

func (c esClient) indexState(ctx context.Context, index string) (indexState, error) {
	var st indexState
	n, _, err := c.countVia(ctx, index)
	if err != nil {
		return st, err
	}
	st.count = n
	r, err := c.do(ctx, http.MethodGet, []string{index, "_stats", "docs"}, url.Values{"level": {"shards"}}, nil, "")
	if err != nil || r.Status != http.StatusOK {
		return st, nil
	}
	shards := gjson.GetBytes(r.Body, "indices."+gjson.Escape(index)+".shards")
	if !shards.IsObject() {
		return st, nil
	}
	st.seqNos = map[string]int64{}
	shards.ForEach(func(k, copies gjson.Result) bool {
		for _, cp := range copies.Array() {
			if cp.Get("routing.primary").Bool() {
				if v := cp.Get("seq_no.max_seq_no"); v.Exists() {
					st.seqNos[k.Str] = v.Int()
				}
			}
		}
		return true
	})
	if len(st.seqNos) == 0 {
		st.seqNos = nil
	}
	return st, nil
}

// changed says how the index moved between before and after, and whether the documents read
// differ from the count at the start; "" when nothing moved.
func changed(before, after indexState, read int64, method string) string {
	var parts []string
	if before.count != after.count {
		parts = append(parts, fmt.Sprintf("count %d before, %d after", before.count, after.count))
	}
	if read != before.count {
		parts = append(parts, fmt.Sprintf("%d documents read where the count was %d at the start", read, before.count))
	}
	if before.seqNos != nil && after.seqNos != nil {
		var shards []string
		for s := range before.seqNos {
			shards = append(shards, s)
		}
		sort.Strings(shards)
		for _, s := range shards {
			if a, ok := after.seqNos[s]; ok && a != before.seqNos[s] {
				parts = append(parts, fmt.Sprintf("shard %s max_seq_no %d before, %d after", s, before.seqNos[s], a))
			}
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, "; ") + fmt.Sprintf(" (the %s read one state of the index, but it is not the state after)", method)
}

// PageBytes is about how many bytes of response an automatically sized page holds: large
// enough that the requests' own cost is small, small enough that a page of large documents
// stays a few megabytes in memory.
const PageBytes = 4 << 20

// reader pages through every document of an index.
type reader struct {
	c       esClient
	index   string
	o       SnapshotOptions
	maxPage int
}

// size is the documents to ask for in the next page, after a page of n documents in b bytes
// (n 0 before the first).
func (r *reader) size(n, b int) int {
	if r.o.PageSize > 0 {
		return r.o.PageSize
	}
	if n == 0 {
		return 1000
	}
	return min(10000, max(100, PageBytes*n/max(b, 1)))
}

// errNoPIT is a point in time the engine does not offer.
var errNoPIT = errors.New("no point in time")

// run reads every page, handing each response body to page, and returns the method used.
func (r *reader) run(ctx context.Context, page func([]byte) error) (string, error) {
	if r.o.Method != SnapshotScroll {
		err := r.pit(ctx, page)
		if err == nil {
			return SnapshotPIT, nil
		}
		if !errors.Is(err, errNoPIT) || r.o.Method == SnapshotPIT {
			return SnapshotPIT, err
		}
		fmt.Fprintf(r.o.Log, "snapshot: %v; reading with a scroll instead\n", err)
	}
	return SnapshotScroll, r.scroll(ctx, page)
}

func (r *reader) keepAlive() string {
	return strconv.FormatInt(int64(r.o.KeepAlive/time.Second), 10) + "s"
}

// pit opens a point in time (Elasticsearch's POST /{index}/_pit, else OpenSearch's POST
// /{index}/_search/point_in_time), pages with search_after on _shard_doc, and closes it.
func (r *reader) pit(ctx context.Context, page func([]byte) error) error {
	q := url.Values{"keep_alive": {r.keepAlive()}}
	id, openSearch := "", false
	res, err := r.c.do(ctx, http.MethodPost, []string{r.index, "_pit"}, q, nil, "")
	if err != nil {
		return err
	}
	if res.Status == http.StatusOK {
		id = gjson.GetBytes(res.Body, "id").Str
	} else {
		alt, err := r.c.do(ctx, http.MethodPost, []string{r.index, "_search", "point_in_time"}, q, nil, "")
		if err != nil {
			return err
		}
		if alt.Status != http.StatusOK {
			return fmt.Errorf("%w: POST /%s/_pit answered HTTP %d, POST /%s/_search/point_in_time HTTP %d", errNoPIT, r.index, res.Status, r.index, alt.Status)
		}
		id, openSearch = gjson.GetBytes(alt.Body, "pit_id").Str, true
	}
	if id == "" {
		return fmt.Errorf("%w: the engine opened a point in time without an id", errNoPIT)
	}
	if r.o.PageSize > 0 {
		fmt.Fprintf(r.o.Log, "snapshot: reading %s with a point in time, search_after on _shard_doc, %d documents a page\n", r.index, r.o.PageSize)
	} else {
		fmt.Fprintf(r.o.Log, "snapshot: reading %s with a point in time, search_after on _shard_doc, pages of about %d MiB (100 to 10000 documents)\n", r.index, PageBytes>>20)
	}
	size := r.size(0, 0)
	defer func() {
		// Closed even when the read failed or was interrupted, on a context of its own.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		if openSearch {
			body, _ := json.Marshal(map[string][]string{"pit_id": {id}})
			r.c.do(cctx, http.MethodDelete, []string{"_search", "point_in_time"}, nil, body, "application/json")
		} else {
			body, _ := json.Marshal(map[string]string{"id": id})
			r.c.do(cctx, http.MethodDelete, []string{"_pit"}, nil, body, "application/json")
		}
	}()
	var after string
	first := true
	for {
		var b bytes.Buffer
		fmt.Fprintf(&b, `{"size":%d,"pit":{"id":%s,"keep_alive":%q},"sort":["_shard_doc"],"track_total_hits":false`, size, jsonString(id), r.keepAlive())
		if after != "" {
			b.WriteString(`,"search_after":`)
			b.WriteString(after)
		}
		b.WriteByte('}')
		res, err := r.c.do(ctx, http.MethodPost, []string{"_search"}, nil, b.Bytes(), "application/json")
		if err != nil {
			return err
		}
		if res.Status != http.StatusOK {
			if first && res.Status == http.StatusBadRequest {
				// An engine with a point in time but no _shard_doc (Elasticsearch before
				// 7.12) reads with a scroll instead.
				return fmt.Errorf("%w with _shard_doc: %v", errNoPIT, httpErr("POST /_search", res))
			}
			return httpErr("POST /_search (a page of the point in time)", res)
		}
		first = false
		hits := gjson.GetBytes(res.Body, "hits.hits")
		if !hits.IsArray() {
			return fmt.Errorf("POST /_search (a page of the point in time): no hits.hits in the answer: %s", snippet(res.Body))
		}
		n := len(hits.Array())
		if n == 0 {
			return nil
		}
		r.maxPage = max(r.maxPage, n)
		if err := page(res.Body); err != nil {
			return err
		}
		size = r.size(n, len(res.Body))
		last := hits.Get(strconv.Itoa(n-1) + ".sort")
		if !last.IsArray() {
			return fmt.Errorf("POST /_search (a page of the point in time): the last hit has no sort values to continue from")
		}
		after = last.Raw
		if nid := gjson.GetBytes(res.Body, "pit_id").Str; nid != "" {
			id = nid
		}
	}
}

// scroll pages with a scroll sorted by _doc and clears it.
func (r *reader) scroll(ctx context.Context, page func([]byte) error) error {
	size := r.size(0, 0)
	fmt.Fprintf(r.o.Log, "snapshot: reading %s with a scroll sorted by _doc, %d documents a page\n", r.index, size)
	body := []byte(fmt.Sprintf(`{"size":%d,"sort":["_doc"]}`, size))
	res, err := r.c.do(ctx, http.MethodPost, []string{r.index, "_search"}, url.Values{"scroll": {r.keepAlive()}}, body, "application/json")
	if err != nil {
		return err
	}
	var id string
	defer func() {
		if id == "" {
			return
		}
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		b, _ := json.Marshal(map[string][]string{"scroll_id": {id}})
		r.c.do(cctx, http.MethodDelete, []string{"_search", "scroll"}, nil, b, "application/json")
	}()
	for {
		if res.Status != http.StatusOK {
			return httpErr("scroll", res)
		}
		id = gjson.GetBytes(res.Body, "_scroll_id").Str
		hits := gjson.GetBytes(res.Body, "hits.hits")
		if !hits.IsArray() {
			return fmt.Errorf("scroll: no hits.hits in the answer: %s", snippet(res.Body))
		}
		n := len(hits.Array())
		if n == 0 {
			return nil
		}
		r.maxPage = max(r.maxPage, n)
		if err := page(res.Body); err != nil {
			return err
		}
		if id == "" {
			return errors.New("scroll: the answer has no _scroll_id to continue from")
		}
		b, _ := json.Marshal(map[string]string{"scroll": r.keepAlive(), "scroll_id": id})
		if res, err = r.c.do(ctx, http.MethodPost, []string{"_search", "scroll"}, nil, b, "application/json"); err != nil {
			return err
		}
	}
}

func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// corpusWriter writes hits as bulk NDJSON: an index action naming the _id (and the routing of
// a routed document), then the _source bytes as the engine returned them (which are the bytes
// it stored, unless the mapping filters _source).
type corpusWriter struct {
	w                             *bufio.Writer
	docs, bytes, reflowed, routed int64
	line                          []byte
}

func (cw *corpusWriter) page(body []byte) error {
	var err error
	gjson.GetBytes(body, "hits.hits").ForEach(func(_, hit gjson.Result) bool {
		id := hit.Get("_id")
		if id.Type != gjson.String || id.Str == "" {
			err = fmt.Errorf("a hit without an _id: %s", snippet([]byte(hit.Raw)))
			return false
		}
		src := hit.Get("_source")
		if !src.IsObject() {
			err = fmt.Errorf("document %q has no _source (is _source disabled in the mapping?): a snapshot needs every document's source", id.String())
			return false
		}
		cw.line = append(cw.line[:0], `{"index":{"_id":`...)
		cw.line = append(cw.line, jsonString(id.String())...)
		// A custom routing is kept in the action line, as bulk spells it ("routing"): loaded
		// back, the document is routed as it was and shows the same _routing in every answer.
		if r := hit.Get("_routing"); r.Exists() {
			if r.Type != gjson.String || r.Str == "" {
				err = fmt.Errorf("document %q has a _routing that is not a non-empty string: %s", id.String(), r.Raw)
				return false
			}
			cw.line = append(cw.line, `,"routing":`...)
			cw.line = append(cw.line, jsonString(r.Str)...)
			cw.routed++
		}
		cw.line = append(cw.line, "}}\n"...)
		raw := []byte(src.Raw)
		if bytes.ContainsAny(raw, "\r\n") {
			raw = oneLine(raw)
			cw.reflowed++
		}
		cw.line = append(cw.line, raw...)
		cw.line = append(cw.line, '\n')
		var n int
		n, err = cw.w.Write(cw.line)
		cw.bytes += int64(n)
		cw.docs++
		return err == nil
	})
	return err
}

// oneLine removes line breaks between JSON tokens (a JSON string holds none unescaped), so a
// source written across lines fits bulk NDJSON's one line; no other byte changes.
func oneLine(src []byte) []byte {
	out := make([]byte, 0, len(src))
	inString, escaped := false, false
	for _, c := range src {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '\n' || c == '\r':
			continue
		}
		out = append(out, c)
	}
	return out
}

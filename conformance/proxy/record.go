package proxy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/conform-dev/conform/conformance/fuzz"
	"github.com/conform-dev/conform/fixtures"
)

// Case is one distinct read request, in the form workload.json holds it
// (conform-workload/2, the fixtures package's reader): the op is a label of the request's
// shape, the name the op and a number in the order first seen.
type Case = fixtures.Case

// Request is a read request as the proxy saw it: the method, the escaped path and raw query
// as sent, the headers and the body (decoded when it came gzip-compressed).
type Request struct {
	Method, Path, Query string
	Header              http.Header
	Body                []byte
}

// Target is the path with its query string, as sent.
func (r *Request) Target() string {
	if r.Query == "" {
		return r.Path
	}
	return r.Path + "?" + r.Query
}

// recorded is a read request reduced to what a case keeps, before it has a name.
type recorded struct {
	key     string // identity: method, path, canonical body, kept headers
	method  string
	path    string // literal, with the query string
	index   string // the index the path names, if one
	body    []byte // compact JSON object, or nil
	ndjson  [][]byte
	headers map[string]string
	words   []string // the label's words, from the request's shape
	shape   string   // with the index as {index} when it is the workload's
}

// decodeBody returns the body a request carries, gunzipped when its Content-Encoding says
// gzip; limit bounds what is read.
func decodeBody(h http.Header, body []byte, limit int64) ([]byte, error) {
	return decodeAnswer(h, body, limit)
}

var errTooLarge = errors.New("too large")

// keptHeaders are the request headers that can change an answer and are replayed: Accept and
// Content-Type when they ask for something other than plain JSON (Elasticsearch's
// compatibility media types). Credentials, cookies and everything else are never kept.
var keptHeaders = []string{"Accept", "Content-Type"}

func keepHeaders(h http.Header) map[string]string {
	var out map[string]string
	for _, name := range keptHeaders {
		v := strings.TrimSpace(h.Get(name))
		if v == "" {
			continue
		}
		mt, _, err := mime.ParseMediaType(v)
		if err == nil && (mt == "application/json" || mt == "application/x-ndjson" || mt == "*/*") {
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[name] = v
	}
	return out
}

// reduce turns a read request into what a case keeps, or says why it cannot be replayed.
// index is the workload's index ("" while none is known): the shape writes it as {index}.
func reduce(ep Endpoint, r *Request, index string) (*recorded, string) {
	if ep.Unreplayable != "" {
		return nil, ep.Unreplayable
	}
	rec := &recorded{method: r.Method, path: r.Target(), index: ep.Index, headers: keepHeaders(r.Header)}
	body := bytes.TrimSpace(r.Body)
	var tree any
	switch {
	case len(body) == 0:
	case ep.Name == "msearch":
		// Lines alternate, a header then a search body, and an empty line is an empty
		// header, the first line too (Elasticsearch 8.15's
		// MultiSearchRequest#readMultiLineFormat outside the 7.x compatibility API): it is
		// kept as {}, which Elasticsearch reads alike, so the pairs stay aligned. An empty
		// body line Elasticsearch refuses; it has no place in a case's lines.
		for i, line := range msearchLines(r.Body) {
			line = bytes.TrimSpace(line)
			if len(line) == 0 {
				if i%2 == 1 {
					return nil, "body not NDJSON"
				}
				line = []byte("{}")
			}
			var c bytes.Buffer
			if err := json.Compact(&c, line); err != nil {
				return nil, "body not NDJSON"
			}
			rec.ndjson = append(rec.ndjson, c.Bytes())
		}
	default:
		var c bytes.Buffer
		if err := json.Compact(&c, body); err != nil || c.Len() == 0 || c.Bytes()[0] != '{' {
			return nil, "body not a JSON object"
		}
		rec.body = c.Bytes()
		t, err := fuzz.Parse(rec.body)
		if err != nil {
			return nil, "body not a JSON object"
		}
		tree = t
		if o, ok := t.(*fuzz.Object); ok {
			if _, pit := o.Get("pit"); pit {
				return nil, "pit"
			}
		}
	}
	var k strings.Builder
	k.WriteString(rec.method + "\x00" + rec.path + "\x00")
	k.Write(rec.body)
	for _, l := range rec.ndjson {
		k.Write(l)
		k.WriteByte('\n')
	}
	names := make([]string, 0, len(rec.headers))
	for n := range rec.headers {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		k.WriteString("\x00" + n + ": " + rec.headers[n])
	}
	rec.key = k.String()
	rec.words, rec.shape = describe(ep, r, tree, rec.ndjson, index)
	if index != "" {
		// The workload's index in the body, where the request builder puts the target's
		// back (fixtures.Case.Request): an _msearch header's index, an _mget doc's _index.
		for i := 0; i < len(rec.ndjson); i += 2 {
			rec.ndjson[i] = fixtures.ReplaceMsearchHeaderIndex(rec.ndjson[i], index, fixtures.IndexPlaceholder)
		}
		if ep.Name == "mget" && rec.body != nil {
			rec.body = fixtures.ReplaceMgetIndex(rec.body, index, fixtures.IndexPlaceholder)
		}
	}
	if ep.Name == "get" && (rec.body != nil || strings.HasPrefix(rec.path, "/_")) {
		// The built-in get reads one document of an index without a body; this one is
		// a captured kind of its own.
		rec.words = []string{"get", "doc"}
	}
	return rec, ""
}

// describe names a request's shape: the label's words and the shape itself, the request
// with its values left out (conformance/fuzz's reduction for search and count bodies, the
// types of the values for the others).
func describe(ep Endpoint, r *Request, tree any, ndjson [][]byte, index string) ([]string, string) {
	path := placeholderPath(r.Path, index)
	if i := strings.Index(path, "/_doc/"); i >= 0 {
		path = path[:i+len("/_doc/")] + "<id>"
	} else if i := strings.Index(path, "/_source/"); i >= 0 {
		path = path[:i+len("/_source/")] + "<id>"
	}
	if r.Query != "" {
		path += "?" + shapeQuery(r.Query)
	}
	words := []string{ep.Name}
	var shape string
	switch ep.Name {
	case "search", "count":
		c := fuzz.Case{Method: r.Method, Path: path, Body: tree}
		shape = c.Shape()
		if tree != nil {
			var d []string
			for _, w := range strings.Split(c.Describe(""), "-") {
				if w != "bare" { // "sort-price-bare": a sort key named bare, the usual case
					d = append(d, w)
				}
			}
			if ep.Name == "count" && len(d) > 0 && d[0] == "count" {
				d = d[1:]
			}
			words = append(words, d...)
		} else if hasParam(r.Query, "q") {
			words = append(words, "q")
		}
		if len(words) > 1 && words[1] == "search" {
			words = words[:1]
		}
	case "msearch":
		var b strings.Builder
		b.WriteString(r.Method + " " + path)
		for _, l := range ndjson {
			t, err := fuzz.Parse(l)
			if err != nil {
				continue
			}
			b.WriteByte(' ')
			if o, ok := t.(*fuzz.Object); ok && isSearchBody(o) {
				b.WriteString(strings.TrimSpace((&fuzz.Case{Body: t}).Shape()))
			} else {
				typeShape(&b, t, index)
			}
		}
		shape = b.String()
	default:
		var b strings.Builder
		b.WriteString(r.Method + " " + path)
		if tree != nil {
			b.WriteByte(' ')
			typeShape(&b, tree, index)
		}
		shape = b.String()
	}
	return words, shape
}

// isSearchBody tells an msearch search body from its header line: a header holds only
// index, routing, preference and the like.
func isSearchBody(o *fuzz.Object) bool {
	for _, k := range o.Keys {
		switch k {
		case "query", "aggs", "aggregations", "sort", "size", "from", "track_total_hits", "_source", "search_after", "post_filter":
			return true
		}
	}
	return len(o.Keys) == 0
}

// typeShape writes a JSON value with its scalars as their types; object keys stay, an
// array is the distinct shapes of its elements, and the workload's index name stays as
// {index}.
func typeShape(b *strings.Builder, v any, index string) {
	switch x := v.(type) {
	case *fuzz.Object:
		b.WriteByte('{')
		for i, k := range x.Keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(fuzz.Marshal(k))
			b.WriteByte(':')
			if k == "index" || k == "indices" || k == "_index" {
				v := x.Vals[i]
				if a, ok := v.([]any); ok && len(a) == 1 && k != "_index" {
					v = a[0]
				}
				if s, ok := v.(string); ok && s == index && index != "" {
					if _, arr := x.Vals[i].([]any); arr {
						b.WriteString(`["{index}"]`)
					} else {
						b.WriteString(`"{index}"`)
					}
					continue
				}
			}
			typeShape(b, x.Vals[i], index)
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		seen := map[string]bool{}
		for _, e := range x {
			var s strings.Builder
			typeShape(&s, e, index)
			if !seen[s.String()] {
				if len(seen) > 0 {
					b.WriteByte(',')
				}
				seen[s.String()] = true
				b.WriteString(s.String())
			}
		}
		b.WriteByte(']')
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString("<bool>")
	case json.Number:
		b.WriteString("<num>")
	case string:
		b.WriteString("<str>")
	}
}

// shapeQuery keeps a query string's parameter names and leaves out their values.
func shapeQuery(q string) string {
	parts := strings.Split(q, "&")
	for i, kv := range parts {
		if k, _, ok := strings.Cut(kv, "="); ok {
			parts[i] = k + "=<v>"
		}
	}
	return strings.Join(parts, "&")
}

// placeholderPath writes the workload's index as {index} where the path names exactly it,
// and where a query string's "index" parameter does: Elasticsearch reads that parameter as
// the path's index (the path's winning), and go-elasticsearch sends both for an _msearch of an
// index. fixtures.Case.Request replaces {index} in the whole path, query string included.
func placeholderPath(path, index string) string {
	if index == "" {
		return path
	}
	p, q, hasQuery := strings.Cut(path, "?")
	if p == "/"+index || strings.HasPrefix(p, "/"+index+"/") {
		p = "/" + fixtures.IndexPlaceholder + p[len(index)+1:]
	}
	if !hasQuery {
		return p
	}
	params := strings.Split(q, "&")
	for i, kv := range params {
		if k, v, ok := strings.Cut(kv, "="); ok && k == "index" {
			if u, err := url.QueryUnescape(v); err == nil && u == index {
				params[i] = "index=" + fixtures.IndexPlaceholder
			}
		}
	}
	return p + "?" + strings.Join(params, "&")
}

// label makes an op label from words: lower case, [a-z0-9_], joined by '-', at most 64
// characters cut at a word, starting with a letter.
func label(words []string) string {
	var b strings.Builder
	for _, w := range words {
		w = strings.Map(func(r rune) rune {
			switch {
			case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_':
				return r
			case r >= 'A' && r <= 'Z':
				return r + 'a' - 'A'
			}
			return '_'
		}, w)
		w = strings.Trim(w, "_")
		if w == "" {
			continue
		}
		if b.Len() > 0 && b.Len()+1+len(w) > maxLabel {
			break
		}
		if b.Len() > 0 {
			b.WriteByte('-')
		}
		if b.Len() == 0 && len(w) > maxLabel {
			w = w[:maxLabel]
		}
		b.WriteString(w)
	}
	if b.Len() == 0 || b.String()[0] < 'a' || b.String()[0] > 'z' {
		return "read"
	}
	return b.String()
}

// maxLabel leaves room in the contract's 64 characters for a "-NN" that tells apart two
// shapes with the same words.
const maxLabel = 60

// Book keeps the distinct cases in the order first seen, each with its count, and gives each
// shape one label: two shapes whose words coincide get "-2", "-3" after the second.
type Book struct {
	index  string
	cases  []*Case
	byKey  map[string]*Case
	labels map[string]string   // shape -> label
	shapes map[string][]string // base label -> shapes, in order
	next   map[string]int      // label -> next case number
	// Max bounds how many distinct cases a label keeps (0: no bound); Dropped counts the
	// requests of cases left out by it.
	Max     int
	Dropped int
}

// NewBook starts an empty book for the workload's index ("" to take the first index a read
// request names).
func NewBook(index string) *Book {
	return &Book{index: index, byKey: map[string]*Case{}, labels: map[string]string{},
		shapes: map[string][]string{}, next: map[string]int{}}
}

// Index is the workload's index.
func (b *Book) Index() string { return b.index }

// Record counts a read request: it returns its case, its label and whether the case is new,
// or, for a request that cannot be replayed (a scroll, a point in time, a body that is not
// JSON), the reason. The first index a read names becomes the workload's when none was
// given. A request of a new case beyond Max for its label is counted in Dropped and returns
// no case, but its label.
func (b *Book) Record(ep Endpoint, r *Request) (c *Case, label string, isNew bool, reason string) {
	if b.index == "" {
		if name := namedIndex(ep, r); name != "" && !strings.ContainsAny(name, ",*") {
			b.index = name
		}
	}
	rec, reason := reduce(ep, r, b.index)
	if rec == nil {
		return nil, "", false, reason
	}
	c, label, isNew = b.add(rec)
	return c, label, isNew, ""
}

// msearchLines splits an _msearch body into its lines, each ended by a newline as
// Elasticsearch reads them: what follows the last newline is not a line when it is blank,
// and blank lines at the end in a header's position are dropped (a header without a search
// body after it is no search).
func msearchLines(body []byte) [][]byte {
	lines := bytes.Split(body, []byte("\n"))
	if len(bytes.TrimSpace(lines[len(lines)-1])) == 0 {
		lines = lines[:len(lines)-1]
	}
	for len(lines) > 0 && len(lines)%2 == 1 && len(bytes.TrimSpace(lines[len(lines)-1])) == 0 {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// namedIndex is the index a read names: its path's, or else the first index an _msearch's
// header lines name, or an _mget's docs (a client such as go-elasticsearch sends both to
// /_msearch and /_mget, naming the index only in the body).
func namedIndex(ep Endpoint, r *Request) string {
	if ep.Index != "" {
		return ep.Index
	}
	switch ep.Name {
	case "msearch":
		for i, line := range msearchLines(r.Body) {
			if i%2 == 0 {
				if name := fixtures.MsearchHeaderIndex(bytes.TrimSpace(line)); name != "" {
					return name
				}
			}
		}
	case "mget":
		return fixtures.MgetIndex(r.Body)
	}
	return ""
}

func (b *Book) add(rec *recorded) (*Case, string, bool) {
	if c := b.byKey[rec.key]; c != nil {
		c.Count++
		return c, c.Op, false
	}
	shape := rec.shape
	lbl, ok := b.labels[shape]
	if !ok {
		base := label(rec.words)
		b.shapes[base] = append(b.shapes[base], shape)
		lbl = base
		if n := len(b.shapes[base]); n > 1 {
			lbl = fmt.Sprintf("%s-%d", base, n)
		}
		b.labels[shape] = lbl
	}
	if b.Max > 0 && b.next[lbl] >= b.Max {
		b.Dropped++
		return nil, lbl, false
	}
	n := b.next[lbl]
	b.next[lbl] = n + 1
	c := &Case{Name: fmt.Sprintf("%s/%03d", lbl, n), Op: lbl, Method: rec.method,
		Path: placeholderPath(rec.path, b.index), Count: 1, Shape: shape, Headers: rec.headers}
	if rec.body != nil {
		c.Body = rec.body
	}
	for _, l := range rec.ndjson {
		c.NDJSON = append(c.NDJSON, l)
	}
	b.cases = append(b.cases, c)
	b.byKey[rec.key] = c
	return c, lbl, true
}

// Len is the number of distinct cases.
func (b *Book) Len() int { return len(b.cases) }

// Cases returns the cases in the order first seen. They are the book's own: read them only
// while nothing is added.
func (b *Book) Cases() []*Case { return b.cases }

// Marshal writes the workload (conform-workload/2): a header line, then one case per line.
func (b *Book) Marshal() []byte {
	w := fixtures.Workload{Format: fixtures.WorkloadFormat2, Index: b.index, Cases: make([]fixtures.Case, len(b.cases))}
	for i, c := range b.cases {
		w.Cases[i] = *c
	}
	out, err := w.Marshal()
	if err != nil {
		// Every case was made from a compact JSON body or compact NDJSON lines.
		panic("proxy: a captured case does not marshal: " + err.Error())
	}
	return out
}

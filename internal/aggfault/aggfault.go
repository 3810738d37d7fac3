// Package aggfault is an HTTP proxy in front of an Elasticsearch-compatible engine that
// answers aggregations wrongly, the way a gateway over another engine was found to: a filter
// aggregation that counts only the page of hits, a max aggregation over the page only, a
// terms aggregation whose sum_other_doc_count is always 0, and "aggregations": {} where a
// search asked for none ("aggs": {}, which Elasticsearch answers without the key). Everything
// else passes through byte for byte.
//
// It exists to test conform fuzz's shrinking: each fault must come out as a reproducer that
// shows its own difference, not the trivial one they share once every aggregation is dropped.
// It is a test helper (a real HTTP hop, so the CLI is tested as a user runs it), not a product.
package aggfault

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"

	"github.com/tidwall/gjson"
)

// Faults selects what the proxy gets wrong.
type Faults struct {
	// FilterPage: a top-level filter aggregation (with its sub-aggregations) is computed over
	// the page of hits the response returns, not over every match.
	FilterPage bool
	// MaxPage: a top-level max aggregation is computed over the page of hits only.
	MaxPage bool
	// OtherZero: a top-level terms aggregation's sum_other_doc_count is always 0.
	OtherZero bool
	// EmptyAggs: a search that asked for no aggregations ("aggs": {}) answers with
	// "aggregations": {}, where Elasticsearch 8.15 leaves the key out.
	EmptyAggs bool
}

// All is every fault.
var All = Faults{FilterPage: true, MaxPage: true, OtherZero: true, EmptyAggs: true}

// ParseFaults reads a comma-separated list of fault names (filter-page, max-page,
// other-zero, empty-aggs, or all).
func ParseFaults(s string) (Faults, error) {
	var f Faults
	for _, name := range strings.Split(s, ",") {
		switch strings.TrimSpace(name) {
		case "":
		case "all":
			f = All
		case "filter-page":
			f.FilterPage = true
		case "max-page":
			f.MaxPage = true
		case "other-zero":
			f.OtherZero = true
		case "empty-aggs":
			f.EmptyAggs = true
		default:
			return Faults{}, fmt.Errorf("unknown fault %q (want filter-page, max-page, other-zero, empty-aggs or all)", name)
		}
	}
	return f, nil
}

// Proxy forwards every request to Backend and alters the answers to searches as Faults say.
type Proxy struct {
	Backend string // base URL, e.g. http://127.0.0.1:9200
	Faults  Faults
	Client  *http.Client
}

// New returns a proxy to backend with the given faults.
func New(backend string, f Faults) *Proxy {
	return &Proxy{Backend: strings.TrimRight(backend, "/"), Faults: f, Client: &http.Client{}}
}

func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	status, header, out, err := p.send(r.Method, r.URL.RequestURI(), r.Header.Get("Content-Type"), body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	if status == http.StatusOK && strings.HasSuffix(r.URL.Path, "/_search") && len(body) > 0 {
		index := strings.TrimPrefix(strings.TrimSuffix(r.URL.Path, "/_search"), "/")
		if altered, err := p.alter(index, body, out); err == nil {
			out = altered
		} else {
			http.Error(w, "aggfault: "+err.Error(), http.StatusBadGateway)
			return
		}
	}
	for _, k := range []string{"Content-Type", "X-Elastic-Product", "Warning"} {
		if v := header.Values(k); len(v) > 0 {
			w.Header()[k] = v
		}
	}
	w.Header().Set("Content-Length", fmt.Sprint(len(out)))
	w.WriteHeader(status)
	w.Write(out)
}

func (p *Proxy) send(method, uri, contentType string, body []byte) (int, http.Header, []byte, error) {
	req, err := http.NewRequest(method, p.Backend+uri, bytes.NewReader(body))
	if err != nil {
		return 0, nil, nil, err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	} else if len(body) > 0 {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := p.Client.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, out, err
}

// splice is one replacement of the bytes [start, end) of a response.
type splice struct {
	start, end int
	with       []byte
}

// alter applies the faults to one search answer.
func (p *Proxy) alter(index string, reqBody, resp []byte) ([]byte, error) {
	req := gjson.ParseBytes(reqBody)
	aggs := req.Get("aggs")
	if !aggs.Exists() {
		aggs = req.Get("aggregations")
	}
	if !aggs.IsObject() {
		return resp, nil
	}
	defs := aggs.Map()
	got := gjson.GetBytes(resp, "aggregations")
	if len(defs) == 0 && !got.Exists() && p.Faults.EmptyAggs {
		end := bytes.LastIndexByte(resp, '}')
		if end < 0 {
			return nil, fmt.Errorf("the answer is not an object: %.200s", resp)
		}
		return append(append(append([]byte{}, resp[:end]...), `,"aggregations":{}`...), resp[end:]...), nil
	}
	if !got.Exists() {
		return resp, nil
	}
	var page []string
	for _, h := range gjson.GetBytes(resp, "hits.hits").Array() {
		page = append(page, h.Get("_id").String())
	}
	var edits []splice
	var err error
	got.ForEach(func(name, val gjson.Result) bool {
		def := defs[name.String()]
		switch {
		case p.Faults.FilterPage && def.Get("filter").Exists(), p.Faults.MaxPage && def.Get("max").Exists():
			var raw []byte
			if raw, err = p.overPage(index, name.String(), def.Raw, page); err != nil {
				return false
			}
			edits = append(edits, splice{val.Index, val.Index + len(val.Raw), raw})
		case p.Faults.OtherZero && def.Get("terms").Exists():
			if o := val.Get("sum_other_doc_count"); o.Exists() && o.Raw != "0" {
				start := o.Index // absolute: Result.Get adds its parent's offset
				edits = append(edits, splice{start, start + len(o.Raw), []byte("0")})
			}
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	return apply(resp, edits), nil
}

// overPage computes one aggregation over the documents of the page only.
func (p *Proxy) overPage(index, name, def string, page []string) ([]byte, error) {
	ids, _ := json.Marshal(append([]string{}, page...))
	nameJSON, _ := json.Marshal(name)
	body := fmt.Sprintf(`{"size":0,"track_total_hits":false,"query":{"ids":{"values":%s}},"aggs":{%s:%s}}`, ids, nameJSON, def)
	status, _, out, err := p.send("POST", "/"+index+"/_search", "application/json", []byte(body))
	if err != nil {
		return nil, err
	}
	if status != http.StatusOK {
		return nil, fmt.Errorf("the page's aggregation answered HTTP %d: %.200s", status, out)
	}
	r := gjson.GetBytes(out, "aggregations."+gjson.Escape(name))
	if !r.Exists() {
		return nil, fmt.Errorf("the page's aggregation has no %s: %.200s", name, out)
	}
	return []byte(r.Raw), nil
}

func apply(b []byte, edits []splice) []byte {
	sort.Slice(edits, func(i, j int) bool { return edits[i].start > edits[j].start })
	out := append([]byte{}, b...)
	for _, e := range edits {
		out = append(out[:e.start], append(append([]byte{}, e.with...), out[e.end:]...)...)
	}
	return out
}

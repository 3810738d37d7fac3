package engine

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tidwall/gjson"

	"github.com/conform-dev/conform/fixtures"
)

// Version is the Elasticsearch version the engine emulates.
const Version = "8.15.0"

// Engine holds indexes and serves the Elasticsearch HTTP API subset. It is safe for
// concurrent use: searches take read locks on the indexes they read, writes a write lock on
// the one index they change.
type Engine struct {
	mu      sync.RWMutex
	indices map[string]*index
	pit     pits
}

// New returns an empty engine.
func New() *Engine { return &Engine{indices: map[string]*index{}} }

// Load creates index from an index-creation body (mapping) and indexes docs in order, as a
// fresh single-shard index would (document numbers follow the slice order). The engine keeps
// the documents' Source bytes without copying them, so they must not change afterwards.
// Every document is visible to searches when Load returns.
func (e *Engine) Load(name string, mapping []byte, docs []fixtures.Doc) error {
	ix, err := e.createIndex(name, mapping)
	if err != nil {
		return fmt.Errorf("creating index %s: %s", name, err.reason)
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	for i, d := range docs {
		if err := ix.routingMissing(d.ID, d.Routing); err != nil {
			return fmt.Errorf("indexing document %d (id %q): %s", i, d.ID, err.reason)
		}
		if _, _, _, err := ix.indexDoc(d.ID, d.Source, false); err != nil {
			return fmt.Errorf("indexing document %d (id %q): %s", i, d.ID, err.reason)
		}
		// A corpus document's routing is kept as an index request's is (see the PUT below):
		// GET, search hits and the exists query on _routing show it.
		ix.docs[len(ix.docs)-1].routing = d.Routing
	}
	ix.publish()
	return nil
}

func (e *Engine) createIndex(name string, body []byte) (*index, *esError) {
	if err := validIndexName(name); err != nil {
		return nil, err
	}
	m, err := parseIndexBody(body)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if old := e.indices[name]; old != nil {
		return nil, newErr(400, "resource_already_exists_exception", "index [%s/%s] already exists", name, old.uuid).
			with("index_uuid", jsonString(old.uuid)).with("index", jsonString(name))
	}
	ix := newIndex(name, m)
	e.indices[name] = ix
	return ix, nil
}

func validIndexName(name string) *esError {
	bad := func(why string) *esError {
		return newErr(400, "invalid_index_name_exception", "Invalid index name [%s], %s", name, why).
			with("index_uuid", `"_na_"`).with("index", jsonString(name))
	}
	switch {
	case name == "" || name == "." || name == "..":
		return bad("must not be '.' or '..'")
	case strings.ToLower(name) != name:
		return bad("must be lowercase")
	case strings.ContainsAny(name, `\/*?"<>| ,#:`):
		return bad(`must not contain the following characters [ , ", *, \, <, |, ,, >, /, ?]`)
	case strings.HasPrefix(name, "_") || strings.HasPrefix(name, "-") || strings.HasPrefix(name, "+"):
		return bad("must not start with '_', '-', or '+'")
	case len(name) > 255:
		return bad("index name is too long")
	}
	return nil
}

// Do serves one request in process: method, target (path and optional query string, e.g.
// "/catalogue/_search?track_total_hits=false") and body. It returns the HTTP status and the
// response body exactly as it would be sent. No header is involved: the request is JSON and the
// response JSON (ServeHTTP negotiates media types as Elasticsearch does).
func (e *Engine) Do(method, target string, body []byte) (status int, resp []byte) {
	status, _, resp = e.handle(method, target, nil, body)
	return status, resp
}

// ServeHTTP serves the same API over HTTP.
func (e *Engine) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body []byte
	if r.Body != nil {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, "reading request body: "+err.Error(), http.StatusBadRequest)
			return
		}
		body = b
	}
	if enc := r.Header.Get("Content-Encoding"); enc != "" && enc != "identity" {
		err := errUnsupportedf("Content-Encoding [%s]", enc)
		writeResp(w, r, err.status, "application/json", err.body())
		return
	}
	target := r.URL.EscapedPath()
	if r.URL.RawQuery != "" {
		target += "?" + r.URL.RawQuery
	}
	status, ctype, resp := e.handle(r.Method, target, r.Header, body)
	writeResp(w, r, status, ctype, resp)
}

func writeResp(w http.ResponseWriter, r *http.Request, status int, ctype string, resp []byte) {
	h := w.Header()
	h.Set("Content-Type", ctype)
	// Elasticsearch 8 marks every response with its product header; clients such as
	// go-elasticsearch check it.
	h.Set("X-Elastic-Product", "Elasticsearch")
	h.Set("Content-Length", strconv.Itoa(len(resp)))
	if r.Method == http.MethodHead && IsUnsupported(status, resp) {
		h.Set(UnsupportedHeader, strings.Map(func(c rune) rune {
			if c < ' ' || c > '~' {
				return '?'
			}
			return c
		}, gjson.GetBytes(resp, "error.reason").String()))
	}
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(resp)
	}
}

func errResp(err *esError) (int, []byte) { return err.status, err.body() }

// allowedParams lists the URL parameters each endpoint accepts; others are refused as
// Elasticsearch refuses unrecognised parameters.
var commonParams = []string{"pretty", "human", "error_trace", "filter_path", "format"}

func checkParams(path string, params url.Values, allowed ...string) *esError {
	var bad []string
	for k := range params {
		ok := false
		for _, a := range append(allowed, commonParams...) {
			if k == a {
				ok = true
				break
			}
		}
		if !ok {
			bad = append(bad, k)
		}
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		return errIllegalArg("request [%s] contains unrecognized parameter%s: [%s]", path, plural(len(bad)), strings.Join(bad, ", "))
	}
	return nil
}

func plural(n int) string {
	if n > 1 {
		return "s"
	}
	return ""
}

func (e *Engine) route(method, path string, params url.Values, body []byte, start time.Time) (int, []byte) {
	segs := splitPath(path)
	methodErr := func(allowed ...string) (int, []byte) {
		b := []byte(`{"error":"Incorrect HTTP method for uri [` + path + `] and method [` + method + `], allowed: [` + strings.Join(allowed, ", ") + `]","status":405}`)
		return 405, b
	}
	switch {
	case len(segs) == 0:
		if method != "GET" && method != "HEAD" {
			return methodErr("GET", "HEAD")
		}
		return 200, rootInfo()
	case len(segs) == 1 && segs[0] == "_search", len(segs) == 2 && segs[1] == "_search":
		if method != "GET" && method != "POST" {
			return methodErr("POST", "GET")
		}
		expr, params := indexExpr(segs, params)
		return e.handleSearch(path, expr, params, body, false, start)
	case len(segs) == 1 && segs[0] == "_count", len(segs) == 2 && segs[1] == "_count":
		if method != "GET" && method != "POST" {
			return methodErr("POST", "GET")
		}
		expr, params := indexExpr(segs, params)
		return e.handleSearch(path, expr, params, body, true, start)
	case len(segs) == 1 && segs[0] == "_bulk", len(segs) == 2 && segs[1] == "_bulk":
		if method != "POST" && method != "PUT" {
			return methodErr("POST", "PUT")
		}
		def := ""
		if len(segs) == 2 {
			def = segs[0]
		}
		return e.handleBulk(path, def, params, body, start)
	case len(segs) == 1 && segs[0] == "_refresh", len(segs) == 2 && segs[1] == "_refresh":
		if method != "GET" && method != "POST" {
			return methodErr("POST", "GET")
		}
		expr := ""
		if len(segs) == 2 {
			expr = segs[0]
		}
		ixs, err := e.resolveIndices(expr)
		if err != nil {
			return errResp(err)
		}
		total, ok := 0, 0
		for _, ix := range ixs {
			ix.mu.Lock()
			ix.publish()
			total += 1 + ix.m.replicas
			ok++
			ix.mu.Unlock()
		}
		return 200, []byte(fmt.Sprintf(`{"_shards":{"total":%d,"successful":%d,"failed":0}}`, total, ok))
	case len(segs) == 1 && segs[0] == "_mget", len(segs) == 2 && segs[1] == "_mget" && !strings.HasPrefix(segs[0], "_"):
		def, params := indexExpr(segs, params)
		return e.handleMget(method, path, def, params, body)
	case len(segs) == 1 && segs[0] == "_msearch", len(segs) == 2 && segs[1] == "_msearch" && !strings.HasPrefix(segs[0], "_"):
		def, params := indexExpr(segs, params)
		return e.handleMsearch(method, path, def, params, body, start)
	case len(segs) == 1 && segs[0] == "_pit":
		if method == "POST" {
			return e.handleOpenPIT(method, path, "", params)
		}
		return e.handleClosePIT(method, path, params, body)
	case len(segs) == 2 && segs[1] == "_pit" && !strings.HasPrefix(segs[0], "_"):
		return e.handleOpenPIT(method, path, segs[0], params)
	case len(segs) == 2 && segs[0] == "_cluster" && segs[1] == "health":
		return 200, e.health()
	case len(segs) == 2 && segs[1] == "_mapping" && !strings.HasPrefix(segs[0], "_"):
		return e.handleGetMapping(method, path, segs[0], params)
	case len(segs) == 1 && !strings.HasPrefix(segs[0], "_"):
		return e.handleIndex(method, path, segs[0], params, body)
	case len(segs) >= 2 && (segs[1] == "_doc" || segs[1] == "_create") && !strings.HasPrefix(segs[0], "_"):
		return e.handleDoc(method, path, segs, params, body)
	}
	return errResp(errUnsupportedf("the endpoint [%s %s]", method, path))
}

// indexExpr is the index expression of a request to /{index}/_search, _count, _mget or
// _msearch, or to the same without an index: the path's, else the query's "index" parameter.
// Elasticsearch puts a path's parameters among the query's, the path's winning (RestRequest,
// PathTrie), and those four actions read request.param("index"), so the query's "index" is
// the index when the path names none and is consumed, never unrecognized, when it does.
// go-elasticsearch sends both for an _msearch of an index. Measured on 8.15.0:
// /_msearch?index=catalogue and /_search?index=catalogue search catalogue,
// /capidx-zzz/_msearch?index=catalogue fails on capidx-zzz, /catalogue/_search?index=capidx-zzz
// searches catalogue. The returned parameters are without "index".
func indexExpr(segs []string, params url.Values) (string, url.Values) {
	expr := ""
	if len(segs) == 2 {
		expr = segs[0]
	}
	if !params.Has("index") {
		return expr, params
	}
	if len(segs) == 1 {
		expr = params.Get("index")
	}
	rest := make(url.Values, len(params))
	for k, v := range params {
		if k != "index" {
			rest[k] = v
		}
	}
	return expr, rest
}

func splitPath(p string) []string {
	var out []string
	for _, s := range strings.Split(p, "/") {
		if s == "" {
			continue
		}
		if u, err := url.PathUnescape(s); err == nil {
			s = u
		}
		out = append(out, s)
	}
	return out
}

func rootInfo() []byte {
	return []byte(`{
  "name" : "conform-embedded",
  "cluster_name" : "conform",
  "cluster_uuid" : "c0nf0rm-embedded-engine",
  "version" : {
    "number" : "` + Version + `",
    "build_flavor" : "conform-embedded",
    "build_type" : "embedded",
    "build_hash" : "none",
    "build_date" : "1970-01-01T00:00:00.000Z",
    "build_snapshot" : false,
    "lucene_version" : "none",
    "minimum_wire_compatibility_version" : "7.17.0",
    "minimum_index_compatibility_version" : "7.0.0"
  },
  "tagline" : "conform's embedded engine emulating Elasticsearch ` + Version + ` for a scalar subset; it is not Elasticsearch"
}
`)
}

func (e *Engine) health() []byte {
	e.mu.RLock()
	defer e.mu.RUnlock()
	status, shards, unassigned := "green", 0, 0
	for _, ix := range e.indices {
		shards++
		unassigned += ix.m.replicas
	}
	if unassigned > 0 {
		status = "yellow"
	}
	pct := 100.0
	if shards+unassigned > 0 {
		pct = 100 * float64(shards) / float64(shards+unassigned)
	}
	return []byte(fmt.Sprintf(`{"cluster_name":"conform","status":"%s","timed_out":false,"number_of_nodes":1,"number_of_data_nodes":1,"active_primary_shards":%d,"active_shards":%d,"relocating_shards":0,"initializing_shards":0,"unassigned_shards":%d,"unassigned_primary_shards":0,"delayed_unassigned_shards":0,"number_of_pending_tasks":0,"number_of_in_flight_fetch":0,"task_max_waiting_in_queue_millis":0,"active_shards_percent_as_number":%s}`,
		status, shards, shards, unassigned, javaDouble(pct)))
}

func (e *Engine) handleIndex(method, path, name string, params url.Values, body []byte) (int, []byte) {
	switch method {
	case "PUT":
		if err := checkParams(path, params, "wait_for_active_shards", "timeout", "master_timeout"); err != nil {
			return errResp(err)
		}
		if _, err := e.createIndex(name, body); err != nil {
			return errResp(err)
		}
		return 200, []byte(`{"acknowledged":true,"shards_acknowledged":true,"index":` + jsonString(name) + `}`)
	case "DELETE":
		if strings.ContainsAny(name, "*,") || name == "_all" {
			return errResp(errUnsupportedf("deleting indices by pattern"))
		}
		e.mu.Lock()
		_, ok := e.indices[name]
		delete(e.indices, name)
		e.mu.Unlock()
		if !ok {
			return errResp(errIndexNotFound(name))
		}
		return 200, []byte(`{"acknowledged":true}`)
	case "HEAD":
		e.mu.RLock()
		_, ok := e.indices[name]
		e.mu.RUnlock()
		if !ok {
			return 404, nil
		}
		return 200, nil
	}
	return errResp(errUnsupportedf("the endpoint [%s %s]", method, path))
}

var searchParams = []string{"track_total_hits", "rest_total_hits_as_int", "size", "from", "_source", "_source_includes",
	"_source_excludes", "track_scores", "version", "seq_no_primary_term", "search_type", "request_cache", "allow_partial_search_results",
	"timeout", "pre_filter_shard_size", "max_concurrent_shard_requests", "batched_reduce_size", "ccs_minimize_roundtrips",
	"ignore_unavailable", "allow_no_indices", "expand_wildcards", "ignore_throttled", "typed_keys", "routing", "preference", "q", "sort",
	"terminate_after", "explain", "stored_fields", "docvalue_fields", "analyzer", "analyze_wildcard", "default_operator", "df",
	"lenient", "scroll", "min_compatible_shard_node", "force_synthetic_source", "include_named_queries_score", "stats",
	"suggest_field", "suggest_mode", "suggest_size", "suggest_text"}

// countParams are RestCountAction's; q's parameters only without a body (it reads them from
// urlParamsToQueryBuilder only then, and leaves them unconsumed otherwise).
var countParams = []string{"terminate_after", "routing", "preference", "ignore_unavailable", "allow_no_indices",
	"expand_wildcards", "ignore_throttled", "min_score"}

func (e *Engine) handleSearch(path, expr string, params url.Values, body []byte, count bool, start time.Time) (int, []byte) {
	var r *searchReq
	var err *esError
	if count {
		r, err = countRequest(path, params, body)
	} else {
		r, err = searchRequest(path, params, body)
	}
	if err != nil {
		return errResp(err)
	}
	if err := r.validateShardDoc(); err != nil {
		return errResp(err)
	}
	if r.pit != nil {
		ixs, err := e.pitIndices(r, expr, params)
		if err != nil {
			return errResp(err)
		}
		return e.search(ixs, r, start)
	}
	ixs, err := e.resolveIndices(expr)
	if err != nil {
		return errResp(err)
	}
	r.preFilter = preFilterParam(params)
	return e.search(ixs, r, start)
}

// preFilterParam is the request's pre_filter_shard_size, 0 when it is not set or not a
// number (its validation comes first).
func preFilterParam(params url.Values) int {
	n, err := strconv.Atoi(params.Get("pre_filter_shard_size"))
	if err != nil || n < 1 {
		return 0
	}
	return n
}

// countRequest reads a _count request in RestCountAction#prepareRequest's order: index
// options, the body or else q and its parameters, routing, min_score, preference,
// terminate_after; unrecognized parameters last.
func countRequest(path string, params url.Values, body []byte) (*searchReq, *esError) {
	rp := restParams{path: path, p: params}
	if err := checkIndicesOptions(rp); err != nil {
		return nil, err
	}
	allowed := countParams
	if len(trimSpace(body)) == 0 {
		if err := rp.checkQueryStringParams(); err != nil {
			return nil, err
		}
		allowed = append(append([]string{"q"}, queryStringParams...), countParams...)
	}
	r, err := parseSearchBody(body, true)
	if err != nil {
		return nil, err
	}
	for _, p := range []string{"q", "min_score", "terminate_after"} {
		if params.Has(p) && contains(allowed, p) {
			return nil, errUnsupportedf("the URL parameter [%s]", p)
		}
	}
	if err := checkRouting(params); err != nil {
		return nil, err
	}
	if err := checkParams(path, params, allowed...); err != nil {
		return nil, err
	}
	if err := declineIndicesOptions(params); err != nil {
		return nil, err
	}
	return r, nil
}

// searchRequest reads a _search request in RestSearchAction#parseSearchRequest's order:
// min_compatible_shard_node, the body, batched_reduce_size, pre_filter_shard_size,
// max_concurrent_shard_requests, allow_partial_search_results, search_type, the search source
// parameters (parseSearchSource), request_cache, scroll, routing, preference, index options,
// rest_total_hits_as_int, ccs_minimize_roundtrips; unrecognized parameters last.
func searchRequest(path string, params url.Values, body []byte) (*searchReq, *esError) {
	rp := restParams{path: path, p: params}
	if err := rp.minCompatibleShardNode(); err != nil {
		return nil, err
	}
	r, err := parseSearchBody(body, false)
	if err != nil {
		return nil, err
	}
	// SearchRequest's setters refuse these values. At or above the bounds they change nothing
	// on a one-shard index: the pre-filter round runs only when there are more shards than
	// pre_filter_shard_size (TransportSearchAction#shouldPreFilterSearchShards), batched
	// reduction needs more shard results than batched_reduce_size, one shard needs one
	// concurrent request.
	for _, b := range []struct {
		name, field string
		min         int
	}{{"batched_reduce_size", "batchedReduceSize", 2}, {"pre_filter_shard_size", "preFilterShardSize", 1},
		{"max_concurrent_shard_requests", "maxConcurrentShardRequests", 1}} {
		n, ok, err := rp.integer(b.name)
		if err != nil {
			return nil, err
		}
		if ok && n < b.min {
			return nil, errIllegalArg("%s must be >= %d", b.field, b.min)
		}
	}
	if params.Has("allow_partial_search_results") {
		if params.Get("allow_partial_search_results") == "" {
			// The boxed flag is null and Elasticsearch 8.15.0 unboxes it: a 500
			// null_pointer_exception (measured), not worth reproducing.
			return nil, errUnsupportedf("an empty allow_partial_search_results")
		}
		if _, err := rp.boxedFlag("allow_partial_search_results"); err != nil {
			return nil, err
		}
	}
	if params.Has("search_type") {
		switch st := params.Get("search_type"); st {
		case "query_then_fetch":
		case "dfs_query_then_fetch":
			return nil, errUnsupportedf("search_type [%s]", st)
		default:
			return nil, errIllegalArg("No search type for [%s]", st)
		}
	}
	if err := rp.checkQueryStringParams(); err != nil {
		return nil, err
	}
	if err := applySearchParams(r, params); err != nil {
		return nil, err
	}
	if err := rp.checkSuggestParams(); err != nil {
		return nil, err
	}
	if _, err := rp.boxedFlag("request_cache"); err != nil {
		return nil, err
	}
	if err := rp.duration("scroll"); err != nil {
		return nil, err
	}
	if err := checkRouting(params); err != nil {
		return nil, err
	}
	if err := checkIndicesOptions(rp); err != nil {
		return nil, err
	}
	if err := checkTotalHitsAsInt(r, params); err != nil {
		return nil, err
	}
	for _, f := range []string{"ccs_minimize_roundtrips", "force_synthetic_source", "include_named_queries_score"} {
		if _, err := rp.flag(f, false); err != nil {
			return nil, err
		}
	}
	// Elasticsearch 8.15.0 synthesizes hits' _source even on an index that stores it
	// (measured: arrays sorted and deduplicated, keys sorted); the engine has no synthetic source.
	if on, _ := rp.flag("force_synthetic_source", false); on {
		return nil, errUnsupportedf("force_synthetic_source (synthetic _source)")
	}
	if err := checkParams(path, params, searchParams...); err != nil {
		return nil, err
	}
	for _, p := range []string{"q", "sort", "terminate_after", "stored_fields", "scroll"} {
		if params.Has(p) {
			return nil, errUnsupportedf("the URL parameter [%s]", p)
		}
	}
	if b, _ := rp.boxedFlag("explain"); b != nil && *b {
		return nil, errUnsupportedf("the URL parameter [explain]")
	}
	// RestSearchAction adds docvalue_fields only when the value has text.
	if strings.TrimSpace(params.Get("docvalue_fields")) != "" {
		return nil, errUnsupportedf("the URL parameter [docvalue_fields]")
	}
	if err := declineIndicesOptions(params); err != nil {
		return nil, err
	}
	return r, nil
}

// checkRouting declines an empty routing, which Elasticsearch 8.15.0 answers over no shard
// at all (_shards.total 0, measured); any other value picks the one shard.
func checkRouting(params url.Values) *esError {
	if params.Has("routing") && params.Get("routing") == "" {
		return errUnsupportedf("an empty routing")
	}
	return nil
}

// checkIndicesOptions reads the index options as IndicesOptions#fromRequest does; the values
// themselves are declined later (declineIndicesOptions), after the other parameters' errors.
func checkIndicesOptions(rp restParams) *esError {
	for _, f := range []string{"ignore_unavailable", "allow_no_indices", "ignore_throttled"} {
		if err := rp.indicesFlag(f); err != nil {
			return err
		}
	}
	// IndicesOptions.WildcardOptions#parseParameter: a comma-separated list of states.
	if v := rp.p.Get("expand_wildcards"); v != "" {
		for _, w := range strings.Split(v, ",") {
			switch w {
			case "open", "closed", "hidden", "none", "all":
			default:
				return errIllegalArg("No valid expand wildcard value [%s]", w)
			}
		}
	}
	return nil
}

// declineIndicesOptions declines index options other than their defaults: they change which
// indices a search covers and what a missing or closed one answers
// (search/80_indices_options.yml: ignore_unavailable turns a 404 into an empty answer), which
// the engine does not model. ignore_throttled only skips frozen indices, which the engine has
// none of, so either value is the default's answer.
func declineIndicesOptions(params url.Values) *esError {
	for _, o := range []struct{ p, def string }{{"ignore_unavailable", "false"}, {"allow_no_indices", "true"}, {"expand_wildcards", "open"}} {
		if params.Has(o.p) && params.Get(o.p) != o.def {
			return errUnsupportedf("the URL parameter [%s] other than [%s]", o.p, o.def)
		}
	}
	return nil
}

// applySearchParams applies URL parameters, which override the body, as RestSearchAction's
// parseSearchSource reads them: from, size, explain, version, seq_no_primary_term, timeout,
// terminate_after, _source, track_scores, track_total_hits; and typed_keys, a response
// parameter. _msearch applies its typed_keys and rest_total_hits_as_int to each item here too.
func applySearchParams(r *searchReq, p url.Values) *esError {
	rp := restParams{p: p}
	if n, ok, err := rp.integer("from"); err != nil {
		return err
	} else if ok {
		if n < 0 {
			// SearchSourceBuilder#from's message.
			return errIllegalArg("[from] parameter cannot be negative but was [%d]", n)
		}
		r.from = n
	}
	if n, ok, err := rp.integer("size"); err != nil {
		return err
	} else if ok {
		if n < 0 {
			return errIllegalArg("[size] parameter cannot be negative, found [%d]", n)
		}
		r.size = n
	}
	if _, err := rp.boxedFlag("explain"); err != nil {
		return err
	}
	// version and seq_no_primary_term are boxed flags: "" leaves the body's choice.
	if b, err := rp.boxedFlag("version"); err != nil {
		return err
	} else if b != nil {
		r.version = *b
	}
	if b, err := rp.boxedFlag("seq_no_primary_term"); err != nil {
		return err
	} else if b != nil {
		r.seqNo = *b
	}
	if err := rp.duration("timeout"); err != nil {
		return err
	}
	if _, _, err := rp.integer("terminate_after"); err != nil {
		return err
	}
	if p.Has("_source") {
		switch v := p.Get("_source"); v {
		case "true", "":
			r.source = sourceFilter{}
		case "false":
			r.source = sourceFilter{disabled: true}
		default:
			r.source = sourceFilter{includes: strings.Split(v, ",")}
		}
	}
	if p.Has("_source_includes") {
		r.source.disabled = false
		r.source.includes = strings.Split(p.Get("_source_includes"), ",")
	}
	if p.Has("_source_excludes") {
		r.source.disabled = false
		r.source.excludes = strings.Split(p.Get("_source_excludes"), ",")
	}
	if p.Has("track_scores") {
		b, err := rp.flag("track_scores", false)
		if err != nil {
			return err
		}
		r.trackScores = b
	}
	if p.Has("track_total_hits") {
		// A boolean sets tracking on or off; anything else is read as an int
		// (parseSearchSource, Booleans#isBoolean).
		switch v := p.Get("track_total_hits"); v {
		case "true":
			r.tth, r.tthParam = trackAccurate, true
		case "false":
			r.tth, r.tthParam = trackDisabled, true
		default:
			n, _, err := rp.integer("track_total_hits")
			if err != nil {
				return err
			}
			if n < trackDisabled {
				return errIllegalArg("[track_total_hits] parameter must be positive or equals to -1, got %d", n)
			}
			r.tth, r.tthParam = n, true
		}
	}
	// RestSearchAction reads typed_keys with paramAsBoolean: "" and "true" are true.
	if v := p.Get("typed_keys"); p.Has("typed_keys") {
		switch v {
		case "", "true":
			r.typedKeys = true
		case "false":
		default:
			// Elasticsearch 8.15.0 drops the connection here (the exception escapes).
			return errUnsupportedf("typed_keys [%s]", v)
		}
	}
	return nil
}

// checkTotalHitsAsInt is RestSearchAction#checkRestTotalHits: rest_total_hits_as_int makes
// tracking accurate unless the request set it, and refuses a threshold.
func checkTotalHitsAsInt(r *searchReq, p url.Values) *esError {
	asInt, err := restParams{p: p}.flag("rest_total_hits_as_int", false)
	if err != nil {
		return err
	}
	if !asInt || r.intTotal {
		return nil
	}
	r.intTotal = true
	if !r.tthParam && r.tth == trackDefault {
		r.tth = trackAccurate
	} else if r.tth != trackAccurate && r.tth != trackDisabled {
		return errIllegalArg("[rest_total_hits_as_int] cannot be used if the tracking of total hits is not accurate, got %d", r.tth)
	}
	return nil
}

// --- documents ---

// docParams are a write's (RestIndexAction, RestDeleteAction), getParams a get's
// (RestGetAction, RestGetSourceAction's exists).
var docParams = []string{"refresh", "routing", "timeout", "op_type", "version", "version_type", "if_seq_no", "if_primary_term",
	"pipeline", "wait_for_active_shards", "require_alias", "require_data_stream"}

var getParams = []string{"refresh", "routing", "preference", "realtime", "stored_fields", "version", "version_type",
	"_source", "_source_includes", "_source_excludes", "force_synthetic_source"}

func (e *Engine) handleDoc(method, path string, segs []string, params url.Values, body []byte) (int, []byte) {
	rp := restParams{path: path, p: params}
	if method == "GET" || method == "HEAD" {
		if err := checkGetParams(rp, method == "HEAD", false); err != nil {
			return errResp(err)
		}
		if err := checkParams(path, params, getParams...); err != nil {
			return errResp(err)
		}
	} else {
		if err := checkWriteParams(rp, false); err != nil {
			return errResp(err)
		}
		if err := checkParams(path, params, docParams...); err != nil {
			return errResp(err)
		}
		for _, p := range []string{"version", "version_type", "if_seq_no", "if_primary_term"} {
			if params.Has(p) {
				return errResp(errUnsupportedf("the URL parameter [%s]", p))
			}
		}
	}

	name := segs[0]
	create := segs[1] == "_create" || params.Get("op_type") == "create"
	var id string
	switch {
	case len(segs) == 3:
		id = segs[2]
	case len(segs) == 2 && segs[1] == "_doc" && method == "POST":
		id = newID()
	default:
		return errResp(errUnsupportedf("the endpoint [%s %s]", method, path))
	}
	switch method {
	case "GET", "HEAD":
		if segs[1] != "_doc" {
			return errResp(errUnsupportedf("the endpoint [%s %s]", method, path))
		}
		return e.getDoc(method, name, id, params)
	case "PUT", "POST":
		if msg := idTooLong(id); msg != "" {
			return errResp(validationFailed([]string{msg}))
		}
		ix, err := e.indexForWrite(name)
		if err != nil {
			return errResp(err)
		}
		if ix.m.routingRequired && params.Get("routing") == "" {
			if len(segs) != 3 {
				// Which id the error would name for a generated one is not measured.
				return errResp(errUnsupportedf("a document with a generated id and no routing, in an index whose mapping requires routing"))
			}
			return errResp(ix.routingMissing(id, ""))
		}
		ix.mu.Lock()
		version, seq, created, err := ix.indexDoc(id, append([]byte(nil), trimSpace(body)...), create)
		if err == nil {
			// One shard: the routing picks no shard, but the document keeps it as
			// _routing, which gets, search hits and the exists query show.
			ix.docs[len(ix.docs)-1].routing = params.Get("routing")
		}
		if err == nil && params.Has("refresh") && params.Get("refresh") != "false" {
			ix.publish()
		}
		replicas := ix.m.replicas
		ix.mu.Unlock()
		if err != nil {
			return errResp(err)
		}
		result, status := "updated", 200
		if created {
			result, status = "created", 201
		}
		b := writeResult(nil, name, id, version, result, forcedRefresh(params), replicas, seq)
		return status, b
	case "DELETE":
		e.mu.RLock()
		ix := e.indices[name]
		e.mu.RUnlock()
		if ix == nil {
			return errResp(errIndexNotFound(name))
		}
		if err := ix.routingMissing(id, params.Get("routing")); err != nil {
			return errResp(err)
		}
		ix.mu.Lock()
		version, seq, found := ix.deleteDoc(id)
		replicas := ix.m.replicas
		ix.mu.Unlock()
		result, status := "deleted", 200
		if !found {
			result, status = "not_found", 404
		}
		return status, writeResult(nil, name, id, version, result, forcedRefresh(params), replicas, seq)
	}
	return errResp(errUnsupportedf("the endpoint [%s %s]", method, path))
}

// routingMissing is the error of a document write or get without a routing ("" is none:
// IndexRequest#routing and GetRequest#routing keep null for it) on an index whose mapping sets
// _routing.required (RoutingMissingException, thrown from TransportGetAction#resolveRequest and
// the bulk action's item preparation; its message and fields measured on 8.15.0), or nil.
func (ix *index) routingMissing(id, routing string) *esError {
	if !ix.m.routingRequired || routing != "" {
		return nil
	}
	return newErr(400, "routing_missing_exception", "routing is required for [%s]/[%s]", ix.name, id).
		with("index_uuid", `"_na_"`).with("index", jsonString(ix.name))
}

func forcedRefresh(p url.Values) bool {
	v, ok := p["refresh"]
	return ok && (len(v) == 0 || v[0] == "" || v[0] == "true")
}

// writeResult renders a document write response (DocWriteResponse order).
func writeResult(b []byte, index, id string, version int64, result string, forced bool, replicas int, seq int64) []byte {
	b = append(b, `{"_index":`...)
	b = appendJSONString(b, index)
	b = append(b, `,"_id":`...)
	b = appendJSONString(b, id)
	b = append(b, `,"_version":`...)
	b = appendInt(b, version)
	b = append(b, `,"result":"`...)
	b = append(b, result...)
	b = append(b, '"')
	if forced {
		b = append(b, `,"forced_refresh":true`...)
	}
	b = append(b, `,"_shards":{"total":`...)
	b = appendInt(b, int64(1+replicas))
	b = append(b, `,"successful":1,"failed":0},"_seq_no":`...)
	b = appendInt(b, seq)
	b = append(b, `,"_primary_term":1}`...)
	return b
}

// indexForWrite returns an index, creating it with dynamic mappings when absent
// (action.auto_create_index defaults to true).
func (e *Engine) indexForWrite(name string) (*index, *esError) {
	e.mu.RLock()
	ix := e.indices[name]
	e.mu.RUnlock()
	if ix != nil {
		return ix, nil
	}
	ix, err := e.createIndex(name, nil)
	if err != nil && err.typ == "resource_already_exists_exception" {
		e.mu.RLock()
		ix = e.indices[name]
		e.mu.RUnlock()
		return ix, nil
	}
	return ix, err
}

func newID() string {
	var b [15]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

func (e *Engine) getDoc(method, name, id string, params url.Values) (int, []byte) {
	e.mu.RLock()
	ix := e.indices[name]
	e.mu.RUnlock()
	if ix == nil {
		if method == "HEAD" {
			return 404, nil
		}
		return errResp(errIndexNotFound(name))
	}
	if err := ix.routingMissing(id, params.Get("routing")); err != nil {
		if method == "HEAD" {
			return err.status, nil
		}
		return errResp(err)
	}
	var src sourceFilter
	if params.Has("_source") {
		switch v := params.Get("_source"); v {
		case "false":
			src.disabled = true
		case "true", "":
		default:
			src.includes = strings.Split(v, ",")
		}
	}
	if params.Has("_source_includes") {
		src.includes = strings.Split(params.Get("_source_includes"), ",")
	}
	if params.Has("_source_excludes") {
		src.excludes = strings.Split(params.Get("_source_excludes"), ",")
	}
	realtime := params.Get("realtime") != "false"
	if params.Has("refresh") && params.Get("refresh") != "false" {
		// A get with refresh refreshes the shard first (ShardGetService).
		ix.mu.Lock()
		ix.publish()
		ix.mu.Unlock()
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	d, ok := ix.ids[id]
	if !realtime {
		var known bool
		if d, ok, known = ix.searcherDoc(id); !known {
			return errResp(errUnsupportedf("a realtime=false get on index [%s], written since its last refresh and refreshed on a timer", name))
		}
	}
	if !ok {
		if method == "HEAD" {
			return 404, nil
		}
		b := []byte(`{"_index":`)
		b = appendJSONString(b, name)
		b = append(b, `,"_id":`...)
		b = appendJSONString(b, id)
		return 404, append(b, `,"found":false}`...)
	}
	if method == "HEAD" {
		return 200, nil
	}
	m := &ix.docs[d]
	b := make([]byte, 0, 128+len(m.source))
	b = append(b, `{"_index":`...)
	b = appendJSONString(b, name)
	b = append(b, `,"_id":`...)
	b = appendJSONString(b, id)
	b = append(b, `,"_version":`...)
	b = appendInt(b, m.version)
	b = append(b, `,"_seq_no":`...)
	b = appendInt(b, m.seqNo)
	// No _ignored here, unlike a search hit: from 8.15 the _ignored field is kept in doc
	// values, not stored, and a get returns stored metadata only (measured on 8.15.0 for
	// keyword ignore_above and ip and long ignore_malformed).
	b = append(b, `,"_primary_term":1`...)
	if m.routing != "" {
		b = append(b, `,"_routing":`...)
		b = appendJSONString(b, m.routing)
	}
	b = append(b, `,"found":true`...)
	if !src.disabled {
		b = append(b, `,"_source":`...)
		var err *esError
		if b, err = appendSource(b, m.source, src); err != nil {
			return errResp(err)
		}
	}
	return 200, append(b, '}')
}

// --- bulk ---

func (e *Engine) handleBulk(path, defIndex string, params url.Values, body []byte, start time.Time) (int, []byte) {
	if err := checkWriteParams(restParams{path: path, p: params}, true); err != nil {
		return errResp(err)
	}
	if err := checkParams(path, params, "refresh", "routing", "timeout", "wait_for_active_shards", "pipeline", "require_alias",
		"_source", "_source_includes", "_source_excludes", "list_executed_pipelines", "require_data_stream"); err != nil {
		return errResp(err)
	}
	if len(body) > 0 && body[len(body)-1] != '\n' {
		return errResp(errIllegalArg("The bulk request must be terminated by a newline [\\n]"))
	}
	type op struct {
		action, index, id string
		idGiven           bool // "_id" was in the action line, perhaps empty
		routing           string
		source            []byte
		// ifSeqNo and ifPrimaryTerm are the action line's compare-and-set condition, set
		// when cas is (InternalEngine#planIndexingAsPrimary and #planDeletionAsPrimary).
		ifSeqNo, ifPrimaryTerm int64
		cas, hasSeq, hasTerm   bool
	}
	var ops []op
	lines := bytes.Split(body, []byte("\n"))
	// validation collects every item's request validation errors in item order, as
	// BulkRequest#validate adds each request's ActionRequestValidationException: a
	// missing index, a delete's missing id, an id over 512 bytes (IndexRequest#validate).
	var validation []string
	for i := 0; i < len(lines); i++ {
		line := trimSpace(lines[i])
		if len(line) == 0 {
			continue
		}
		if !gjson.ValidBytes(line) || !gjson.ParseBytes(line).IsObject() {
			return errResp(errIllegalArg("Malformed action/metadata line [%d], expected START_OBJECT or END_OBJECT but found [VALUE_STRING]", i+1))
		}
		// The URL's routing is every item's default (BulkRequestParser#parse starts each
		// action from defaultRouting; measured on 8.15.0: the document shows it as _routing).
		o := op{routing: params.Get("routing")}
		var perr *esError
		n := 0
		gjson.ParseBytes(line).ForEach(func(k, v gjson.Result) bool {
			n++
			o.action = k.String()
			if !v.IsObject() {
				perr = errIllegalArg("Malformed action/metadata line [%d], expected START_OBJECT but found [%s]", i+1, tokenName(v))
				return false
			}
			v.ForEach(func(mk, mv gjson.Result) bool {
				switch mk.String() {
				case "_index":
					o.index = mv.String()
				case "_id":
					o.id, o.idGiven = scalarText(mv), true
				case "op_type":
					// BulkRequestParser: an index action with op_type "create" (exactly) is a
					// create; any other op_type changes nothing (measured on 8.15.0: "CREATE"
					// and "foo" index, a create with op_type index still creates).
					if o.action == "index" && mv.String() == "create" {
						o.action = "create"
					}
				case "routing":
					o.routing = mv.String()
				case "if_seq_no":
					o.ifSeqNo, o.cas, o.hasSeq = casNumber(mv), true, true
				case "if_primary_term":
					o.ifPrimaryTerm, o.cas, o.hasTerm = casNumber(mv), true, true
				case "require_alias", "dynamic_templates", "version", "version_type", "retry_on_conflict",
					"pipeline", "_source", "require_data_stream", "list_executed_pipelines":
					// The rest of BulkRequestParser's action-line parameters (8.15): accepted by
					// Elasticsearch, each with its own validation and effect, not modelled.
					perr = errUnsupportedf("bulk action-line parameter [%s]", mk.String())
				default:
					perr = errIllegalArg("Action/metadata line [%d] contains an unknown parameter [%s]", i+1, mk.String())
				}
				return perr == nil
			})
			return perr == nil
		})
		if perr != nil {
			return errResp(perr)
		}
		if n == 0 {
			// An empty action line {}: BulkRequestParser expects the action's name first
			// (measured on Elasticsearch 8.15.0).
			return errResp(errIllegalArg("Malformed action/metadata line [%d], expected FIELD_NAME but found [END_OBJECT]", i+1))
		}
		if n != 1 {
			return errResp(errIllegalArg("Malformed action/metadata line [%d], expected a simple value for field [%s] but found [START_OBJECT]", i+1, o.action))
		}
		switch o.action {
		case "index", "create":
			i++
			if i >= len(lines) || len(trimSpace(lines[i])) == 0 && i == len(lines)-1 {
				return errResp(errIllegalArg("The bulk request must be terminated by a newline [\\n]"))
			}
			o.source = append([]byte(nil), trimSpace(lines[i])...)
		case "delete":
		case "update":
			return errResp(errUnsupportedf("bulk [update] actions"))
		default:
			return errResp(errIllegalArg("Malformed action/metadata line [%d], expected field [create], [delete], [index] or [update] but found [%s]", i+1, o.action))
		}
		if o.cas {
			// Only the plain form is modelled: both given as non-negative integers, the
			// primary term at least 1, on an index (not create) or delete with an id. The
			// other forms are IndexRequest#validate / DeleteRequest#validate failures
			// ("ifSeqNo is unassigned, but primary term is [1]", "create operations do not
			// support compare and set. use index instead", "sequence numbers must be non
			// negative. got [-1].") whose order among other validation errors is not modelled.
			if !o.hasSeq || !o.hasTerm || o.ifSeqNo < 0 || o.ifPrimaryTerm < 1 || o.action == "create" || o.action == "update" || o.id == "" {
				return errResp(errUnsupportedf("bulk [if_seq_no] and [if_primary_term] other than both as non-negative integers, the primary term at least 1, on an index or delete action with an _id"))
			}
		}
		if o.index == "" {
			o.index = defIndex
		}
		if o.index == "" {
			validation = append(validation, "index is missing")
		}
		if o.action == "delete" && o.id == "" {
			validation = append(validation, "id is missing")
		}
		if o.action != "delete" {
			if msg := idTooLong(o.id); msg != "" {
				validation = append(validation, msg)
			}
		}
		ops = append(ops, o)
	}
	if len(validation) > 0 {
		return errResp(validationFailed(validation))
	}
	if len(ops) == 0 {
		return errResp(newErr(400, "action_request_validation_exception", "Validation Failed: 1: no requests added;"))
	}
	for _, o := range ops {
		e.mu.RLock()
		ix := e.indices[o.index]
		e.mu.RUnlock()
		if ix != nil && ix.m.routingRequired && o.routing == "" && o.id == "" && !o.idGiven {
			// Which id the item's routing_missing_exception would name for a generated one
			// is not measured: declined before any item is written.
			return errResp(errUnsupportedf("a bulk item with a generated id and no routing, in an index whose mapping requires routing"))
		}
	}
	forced := forcedRefresh(params)
	errorsSeen := false
	items := make([]byte, 0, 128*len(ops))
	touched := map[*index]bool{}
	for i, o := range ops {
		if i > 0 {
			items = append(items, ',')
		}
		items = append(items, `{"`...)
		items = append(items, o.action...)
		items = append(items, `":`...)
		fail := func(status int, err *esError) {
			errorsSeen = true
			items = append(items, `{"_index":`...)
			items = appendJSONString(items, o.index)
			items = append(items, `,"_id":`...)
			if o.id == "" && !o.idGiven {
				items = append(items, "null"...)
			} else {
				items = appendJSONString(items, o.id)
			}
			items = append(items, `,"status":`...)
			items = appendInt(items, int64(status))
			items = append(items, `,"error":`...)
			items = err.appendCause(items)
			items = append(items, "}}"...)
		}
		if err := validIndexName(o.index); err != nil {
			fail(err.status, err)
			continue
		}
		var ix *index
		var err *esError
		if o.action == "delete" {
			e.mu.RLock()
			ix = e.indices[o.index]
			e.mu.RUnlock()
			if ix == nil {
				fail(404, errIndexNotFound(o.index))
				continue
			}
		} else if ix, err = e.indexForWrite(o.index); err != nil {
			fail(err.status, err)
			continue
		}
		if err := ix.routingMissing(o.id, o.routing); err != nil {
			fail(400, err)
			continue
		}
		ix.mu.Lock()
		touched[ix] = true
		var version, seq int64
		result, status := "created", 201
		if o.cas {
			if err := ix.casConflict(o.id, o.ifSeqNo, o.ifPrimaryTerm); err != nil {
				ix.mu.Unlock()
				fail(409, err)
				continue
			}
		}
		switch o.action {
		case "delete":
			var found bool
			version, seq, found = ix.deleteDoc(o.id)
			result, status = "deleted", 200
			if !found {
				result, status = "not_found", 404
			}
		default:
			id := o.id
			if id == "" && o.idGiven {
				// IndexRequest#autoGenerateId: "_id":"" is an item failure, not a request
				// for a generated id (measured on Elasticsearch 8.15.0, create included).
				ix.mu.Unlock()
				fail(400, errIllegalArg("if _id is specified it must not be empty"))
				continue
			}
			if id == "" {
				id = newID()
				o.id = id
			}
			var created bool
			version, seq, created, err = ix.indexDoc(id, o.source, o.action == "create")
			if err == nil {
				ix.docs[len(ix.docs)-1].routing = o.routing
			}
			if err == nil && !created {
				result, status = "updated", 200
			}
		}
		replicas := ix.m.replicas
		ix.mu.Unlock()
		if err != nil {
			fail(err.status, err)
			continue
		}
		w := writeResult(nil, o.index, o.id, version, result, forced, replicas, seq)
		items = append(items, w[:len(w)-1]...)
		items = append(items, `,"status":`...)
		items = appendInt(items, int64(status))
		items = append(items, "}}"...)
	}
	if forced || params.Get("refresh") == "wait_for" {
		for ix := range touched {
			ix.mu.Lock()
			ix.publish()
			ix.mu.Unlock()
		}
	}
	b := make([]byte, 0, len(items)+64)
	b = append(b, `{"errors":`...)
	b = strconv.AppendBool(b, errorsSeen)
	b = append(b, `,"took":`...)
	b = appendInt(b, time.Since(start).Milliseconds())
	b = append(b, `,"items":[`...)
	b = append(b, items...)
	return 200, append(b, "]}"...)
}

// casNumber is an if_seq_no or if_primary_term value from an action line: a JSON integer, or
// -1 (declined) for any other form (Elasticsearch also takes numeric strings; not modelled).
func casNumber(v gjson.Result) int64 {
	if v.Type != gjson.Number || !isIntegerLiteral(v.Raw) {
		return -1
	}
	n, err := strconv.ParseInt(v.Raw, 10, 64)
	if err != nil {
		return -1
	}
	return n
}

// prettyJSON indents a response the way Elasticsearch's ?pretty does ("key" : value).
func prettyJSON(b []byte) []byte {
	if len(b) == 0 || !gjson.ValidBytes(b) {
		return b
	}
	var out []byte
	indent := 0
	nl := func() {
		out = append(out, '\n')
		for i := 0; i < indent; i++ {
			out = append(out, ' ', ' ')
		}
	}
	inStr := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inStr {
			out = append(out, c)
			if c == '\\' && i+1 < len(b) {
				i++
				out = append(out, b[i])
			} else if c == '"' {
				inStr = false
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
			out = append(out, c)
		case '{', '[':
			if i+1 < len(b) && (b[i+1] == '}' || b[i+1] == ']') {
				out = append(out, c, ' ', b[i+1])
				i++
				continue
			}
			out = append(out, c)
			indent++
			nl()
		case '}', ']':
			indent--
			nl()
			out = append(out, c)
		case ',':
			out = append(out, c)
			nl()
		case ':':
			out = append(out, ' ', ':', ' ')
		default:
			out = append(out, c)
		}
	}
	return append(out, '\n')
}

// maxIDBytes is IndexRequest.MAX_DOCUMENT_ID_LENGTH_IN_BYTES.
const maxIDBytes = 512

// idTooLong is IndexRequest#validate's message for an id over 512 UTF-8 bytes, or "".
func idTooLong(id string) string {
	if len(id) <= maxIDBytes {
		return ""
	}
	return fmt.Sprintf("id [%s] is too long, must be no longer than %d bytes but was: %d", id, maxIDBytes, len(id))
}

// validationFailed is an ActionRequestValidationException: each error numbered from 1.
func validationFailed(errs []string) *esError {
	var msg strings.Builder
	msg.WriteString("Validation Failed: ")
	for i, e := range errs {
		fmt.Fprintf(&msg, "%d: %s;", i+1, e)
	}
	return newErr(400, "action_request_validation_exception", "%s", msg.String())
}

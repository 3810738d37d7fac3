//go:build realengines

package realengines

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// paramsIndex is this test's scratch index on both engines.
const paramsIndex = "params-x"

// paramProbe is one URL parameter of one endpoint and the values tried: a valid one, then
// values Elasticsearch refuses for some parameters (not a boolean, not a number, negative, zero).
type paramProbe struct {
	method, path, body string
	params             []string
}

// paramValue is a value Elasticsearch accepts for the parameter (the Python client 8.15's
// documented type), used first for every parameter.
func paramValue(p string) string {
	switch p {
	case "allow_no_indices", "allow_partial_search_results", "analyze_wildcard", "ccs_minimize_roundtrips", "error_trace",
		"force_synthetic_source", "human", "ignore_throttled", "ignore_unavailable", "include_named_queries_score", "lenient",
		"pretty", "request_cache", "rest_total_hits_as_int", "typed_keys", "realtime", "refresh", "version", "require_alias",
		"track_scores", "seq_no_primary_term", "explain", "track_total_hits", "require_data_stream", "list_executed_pipelines":
		return "true"
	case "batched_reduce_size", "max_concurrent_shard_requests", "pre_filter_shard_size", "max_concurrent_searches",
		"terminate_after", "min_score", "size", "from", "if_seq_no", "if_primary_term", "suggest_size":
		return "5"
	}
	v, ok := map[string]string{"expand_wildcards": "open", "default_operator": "OR", "search_type": "query_then_fetch",
		"suggest_mode": "missing", "version_type": "internal", "op_type": "index", "wait_for_active_shards": "1", "timeout": "1m",
		"scroll": "1m", "filter_path": "hits", "preference": "_local", "routing": "r", "min_compatible_shard_node": "8.0.0",
		"sort": "n:asc", "_source": "true", "stored_fields": "k", "docvalue_fields": "k", "df": "k", "analyzer": "standard", "q": "k:a",
		"_source_includes": "k", "_source_excludes": "k", "suggest_field": "k", "suggest_text": "a", "pipeline": "p", "stats": "s",
		"index": paramsIndex}[p]
	if !ok {
		return "x"
	}
	return v
}

// paramValues are the values tried for p. wait_for_active_shards gets no count above the
// one active copy (Elasticsearch would wait its minute out for the replica).
func paramValues(p string) []string {
	if p == "wait_for_active_shards" {
		return []string{"1", "x", "0"}
	}
	vs := []string{paramValue(p)}
	for _, v := range []string{"x", "-1", "0", "false", ""} {
		if v != vs[0] {
			vs = append(vs, v)
		}
	}
	return vs
}

func paramProbes() []paramProbe {
	search := strings.Fields(`_source _source_excludes _source_includes allow_no_indices allow_partial_search_results
		analyze_wildcard analyzer batched_reduce_size ccs_minimize_roundtrips default_operator df error_trace expand_wildcards
		filter_path force_synthetic_source human ignore_throttled ignore_unavailable include_named_queries_score lenient
		max_concurrent_shard_requests min_compatible_shard_node pre_filter_shard_size preference pretty q request_cache
		rest_total_hits_as_int routing scroll search_type sort suggest_field suggest_mode suggest_size suggest_text typed_keys
		size from track_total_hits track_scores version seq_no_primary_term explain stored_fields docvalue_fields
		terminate_after stats timeout`)
	count := strings.Fields(`allow_no_indices analyze_wildcard analyzer default_operator df error_trace expand_wildcards
		filter_path human ignore_throttled ignore_unavailable lenient min_score preference pretty q routing terminate_after`)
	msearch := strings.Fields(`allow_no_indices ccs_minimize_roundtrips error_trace expand_wildcards filter_path human
		ignore_throttled ignore_unavailable include_named_queries_score max_concurrent_searches max_concurrent_shard_requests
		pre_filter_shard_size pretty rest_total_hits_as_int routing search_type typed_keys index`)
	mget := strings.Fields(`_source _source_excludes _source_includes error_trace filter_path force_synthetic_source human
		preference pretty realtime refresh routing stored_fields`)
	get := append(append([]string{}, mget...), "version", "version_type")
	bulk := strings.Fields(`_source _source_excludes _source_includes error_trace filter_path human pipeline pretty refresh
		require_alias routing timeout wait_for_active_shards require_data_stream list_executed_pipelines`)
	put := strings.Fields(`error_trace filter_path human if_primary_term if_seq_no op_type pipeline pretty refresh
		require_alias routing timeout version version_type wait_for_active_shards require_data_stream`)
	ms := "{}\n{\"query\":{\"match_all\":{}}}\n"
	return []paramProbe{
		{"GET", "/" + paramsIndex + "/_search", "", search},
		{"GET", "/_search", "", search},
		{"GET", "/" + paramsIndex + "/_count", "", count},
		{"GET", "/_count", "", count},
		{"POST", "/" + paramsIndex + "/_msearch", ms, msearch},
		{"POST", "/_msearch", "{\"index\":\"" + paramsIndex + "\"}\n{\"query\":{\"match_all\":{}}}\n", msearch},
		{"POST", "/" + paramsIndex + "/_mget", `{"ids":["1"]}`, mget},
		{"GET", "/" + paramsIndex + "/_doc/1", "", get},
		{"HEAD", "/" + paramsIndex + "/_doc/1", "", get},
		{"POST", "/" + paramsIndex + "/_bulk", "{\"index\":{\"_id\":\"b@\"}}\n{\"k\":\"b\"}\n", bulk},
		{"PUT", "/" + paramsIndex + "/_doc/w@", `{"k":"c"}`, put},
	}
}

// paramOrderProbes are requests whose answer depends on which check Elasticsearch makes
// first: a parameter error against a missing index, an unknown parameter, a bad body.
func paramOrderProbes() []paramProbe {
	return []paramProbe{
		{"GET", "/params-missing/_search", "", []string{"pre_filter_shard_size=0", "analyzer=standard", "size=x",
			"batched_reduce_size=1", "max_concurrent_shard_requests=0", "foo=1", "foo=1&analyzer=standard",
			"foo=1&size=x", "suggest_mode=missing&analyzer=standard", "df=k&analyzer=standard&lenient=true&default_operator=OR&analyze_wildcard=true",
			"suggest_text=a&suggest_size=3&suggest_mode=missing", "track_scores=x&size=x", "size=x&track_scores=x",
			"timeout=x", "allow_partial_search_results=x", "request_cache=x"}},
		{"POST", "/" + paramsIndex + "/_count", `{"query":{"match_all":{}}}`, []string{"analyzer=x", "q=k:a", "error_trace=true&pretty=x"}},
		{"GET", "/params-missing/_count", "", []string{"analyzer=standard", "foo=1&df=k", "ignore_throttled=x", "lenient=x"}},
		{"POST", "/params-missing/_msearch", "{}\n{}\n", []string{"pre_filter_shard_size=0", "max_concurrent_searches=0", "foo=1"}},
		{"GET", "/params-missing/_doc/1", "", []string{"realtime=x", "version=x", "foo=1", "force_synthetic_source=x"}},
		{"POST", "/params-missing/_mget", `{"ids":["1"]}`, []string{"realtime=x", "foo=1", "force_synthetic_source=x"}},
		{"GET", "/" + paramsIndex + "/_search", `{"size":-2}`, []string{"foo=1", "size=x", "analyzer=standard", "pre_filter_shard_size=0"}},
		{"GET", "/" + paramsIndex + "/_search", `{"query":{"match_all":{}},"size":2}`, []string{"size=1", "include_named_queries_score=true", "force_synthetic_source=true"}},
	}
}

// TestParamsAgainstElasticsearch sends every URL parameter the Python client 8.15 knows for
// _search, _count, _msearch, _mget, GET/HEAD _doc, _bulk and PUT _doc, with values
// Elasticsearch accepts and values it refuses, to real Elasticsearch 8.15.0 and to
// `conform serve --empty`, and requires the same status and body from both (took and _seq_no
// aside), unless the engine declines (conform_unsupported_exception).
func TestParamsAgainstElasticsearch(t *testing.T) {
	es := state(t)["ES_URL"]
	en := startServeWith(t, "--empty")
	for _, base := range []string{es, en} {
		deleteIndex(t, base, paramsIndex)
		mustHTTP(t, "PUT", base+"/"+paramsIndex, `{"mappings":{"properties":{"k":{"type":"keyword"},"n":{"type":"long"}}}}`)
		mustHTTP(t, "PUT", base+"/"+paramsIndex+"/_doc/1?refresh=true", `{"k":"a","n":1}`)
	}
	t.Cleanup(func() { deleteIndex(t, es, paramsIndex) })

	// Reads first, then the parameter-order probes, then writes: a write one engine refuses
	// and the other makes would change later counts.
	type query struct {
		pr paramProbe
		q  string
	}
	var queries, writes []query
	for _, pr := range paramProbes() {
		for _, p := range pr.params {
			for _, v := range paramValues(p) {
				q := query{pr, p + "=" + url.QueryEscape(v)}
				if pr.method == "PUT" || strings.HasSuffix(pr.path, "/_bulk") {
					writes = append(writes, q)
				} else {
					queries = append(queries, q)
				}
			}
		}
	}
	for _, pr := range paramOrderProbes() {
		for _, q := range pr.params {
			queries = append(queries, query{pr, q})
		}
	}
	queries = append(queries, writes...)
	diffs, declined := 0, 0
	for n, c := range queries {
		path := strings.ReplaceAll(c.pr.path, "@", fmt.Sprint(n))
		body := strings.ReplaceAll(c.pr.body, "@", fmt.Sprint(n))
		target := path + "?" + c.q
		esStatus, esBody := probeHTTP(t, c.pr.method, es+target, body)
		enStatus, enBody := probeHTTP(t, c.pr.method, en+target, body)
		if strings.Contains(enBody, "conform_unsupported_exception") {
			declined++
			continue
		}
		// Without an index Elasticsearch searches every index of the cluster (other tests'
		// too): its refusals must be the engine's, its answers only answers.
		if !strings.Contains(path, paramsIndex) && !strings.Contains(path, "params-missing") && esStatus < 300 && enStatus < 300 {
			continue
		}
		if esStatus != enStatus || normParamBody(esBody) != normParamBody(enBody) {
			diffs++
			t.Errorf("%s %s\n  es     %d %s\n  engine %d %s", c.pr.method, target, esStatus, esBody, enStatus, enBody)
		}
	}
	t.Logf("%d requests, %d differences, %d declined by the engine", len(queries), diffs, declined)
}

var paramVolatile = regexp.MustCompile(`"(took|_seq_no)"\s*:\s*\d+`)

// normParamBody hides what differs between any two runs: took, and _seq_no (a write the
// engine declines still counts on Elasticsearch's shard).
func normParamBody(b string) string {
	return paramVolatile.ReplaceAllString(b, `"$1":0`)
}

func probeHTTP(t *testing.T, method, target, body string) (int, string) {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, target, r)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		ct := "application/json"
		if strings.Contains(body, "\n") {
			ct = "application/x-ndjson"
		}
		req.Header.Set("Content-Type", ct)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, target, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	// A HEAD the engine declines says so in a header: it has no body.
	if why := resp.Header.Get("X-Conform-Unsupported"); why != "" && len(b) == 0 {
		return resp.StatusCode, "conform_unsupported_exception: " + why
	}
	return resp.StatusCode, string(b)
}

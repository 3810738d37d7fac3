package engine

import (
	"strings"
	"testing"
)

// TestParamsAsElasticsearch checks URL parameters against Elasticsearch 8.15.0's answers,
// recorded with curl from a real 8.15.0 node on 2026-12-06 (index params-x: k keyword, n long,
// one document {"k":"a","n":1}; params-missing absent). The real-engine suite
// (lab/realengines TestParamsAgainstElasticsearch) sends every parameter to both.
func TestParamsAsElasticsearch(t *testing.T) {
	e := New()
	if st, b := e.Do("PUT", "/params-x", []byte(`{"mappings":{"properties":{"k":{"type":"keyword"},"n":{"type":"long"}}}}`)); st != 200 {
		t.Fatalf("create: %d %s", st, b)
	}
	if st, b := e.Do("PUT", "/params-x/_doc/1?refresh=true", []byte(`{"k":"a","n":1}`)); st != 201 {
		t.Fatalf("index: %d %s", st, b)
	}
	for _, c := range []struct {
		method, target string
		status         int
		want           string
	}{
		{"GET", "/params-x/_search?analyzer=standard&filter_path=hits.total", 400, `{"error":{"root_cause":[{"type":"illegal_argument_exception","reason":"request [/params-x/_search] contains parameters [analyzer] but missing query string parameter 'q'."}],"type":"illegal_argument_exception","reason":"request [/params-x/_search] contains parameters [analyzer] but missing query string parameter 'q'."},"status":400}`},
		{"GET", "/params-x/_search?df=k&lenient=true&analyze_wildcard=true", 400, `{"error":{"root_cause":[{"type":"illegal_argument_exception","reason":"request [/params-x/_search] contains parameters [df, analyze_wildcard, lenient] but missing query string parameter 'q'."}],"type":"illegal_argument_exception","reason":"request [/params-x/_search] contains parameters [df, analyze_wildcard, lenient] but missing query string parameter 'q'."},"status":400}`},
		{"GET", "/params-missing/_search?pre_filter_shard_size=0", 400, `{"error":{"root_cause":[{"type":"illegal_argument_exception","reason":"preFilterShardSize must be >= 1"}],"type":"illegal_argument_exception","reason":"preFilterShardSize must be >= 1"},"status":400}`},
		{"GET", "/params-x/_search?pre_filter_shard_size=1&filter_path=hits.total", 200, `{"hits":{"total":{"value":1,"relation":"eq"}}}`},
		{"GET", "/params-x/_search?batched_reduce_size=1", 400, `{"error":{"root_cause":[{"type":"illegal_argument_exception","reason":"batchedReduceSize must be >= 2"}],"type":"illegal_argument_exception","reason":"batchedReduceSize must be >= 2"},"status":400}`},
		{"GET", "/params-x/_search?max_concurrent_shard_requests=0", 400, `{"error":{"root_cause":[{"type":"illegal_argument_exception","reason":"maxConcurrentShardRequests must be >= 1"}],"type":"illegal_argument_exception","reason":"maxConcurrentShardRequests must be >= 1"},"status":400}`},
		{"GET", "/params-x/_search?size=x", 400, `{"error":{"root_cause":[{"type":"illegal_argument_exception","reason":"Failed to parse int parameter [size] with value [x]"}],"type":"illegal_argument_exception","reason":"Failed to parse int parameter [size] with value [x]","caused_by":{"type":"number_format_exception","reason":"For input string: \"x\""}},"status":400}`},
		{"GET", "/params-x/_search?from=-1", 400, `{"error":{"root_cause":[{"type":"illegal_argument_exception","reason":"[from] parameter cannot be negative but was [-1]"}],"type":"illegal_argument_exception","reason":"[from] parameter cannot be negative but was [-1]"},"status":400}`},
		{"GET", "/params-x/_search?track_total_hits=x", 400, `{"error":{"root_cause":[{"type":"illegal_argument_exception","reason":"Failed to parse int parameter [track_total_hits] with value [x]"}],"type":"illegal_argument_exception","reason":"Failed to parse int parameter [track_total_hits] with value [x]","caused_by":{"type":"number_format_exception","reason":"For input string: \"x\""}},"status":400}`},
		{"GET", "/params-x/_search?track_scores=x", 400, `{"error":{"root_cause":[{"type":"illegal_argument_exception","reason":"Failed to parse value [x] as only [true] or [false] are allowed."}],"type":"illegal_argument_exception","reason":"Failed to parse value [x] as only [true] or [false] are allowed."},"status":400}`},
		{"GET", "/params-x/_search?timeout=x", 400, `{"error":{"root_cause":[{"type":"illegal_argument_exception","reason":"failed to parse setting [timeout] with value [x] as a time value: unit is missing or unrecognized"}],"type":"illegal_argument_exception","reason":"failed to parse setting [timeout] with value [x] as a time value: unit is missing or unrecognized"},"status":400}`},
		{"GET", "/params-x/_search?search_type=", 400, `{"error":{"root_cause":[{"type":"illegal_argument_exception","reason":"No search type for []"}],"type":"illegal_argument_exception","reason":"No search type for []"},"status":400}`},
		{"GET", "/params-x/_search?suggest_text=a&suggest_mode=missing", 400, `{"error":{"root_cause":[{"type":"illegal_argument_exception","reason":"request [/params-x/_search] contains parameters [suggest_text, suggest_mode] but missing 'suggest_field' parameter."}],"type":"illegal_argument_exception","reason":"request [/params-x/_search] contains parameters [suggest_text, suggest_mode] but missing 'suggest_field' parameter."},"status":400}`},
		{"GET", "/params-x/_search?ignore_throttled=x", 400, `{"error":{"root_cause":[{"type":"illegal_argument_exception","reason":"Could not convert [ignore_throttled] to boolean"}],"type":"illegal_argument_exception","reason":"Could not convert [ignore_throttled] to boolean","caused_by":{"type":"illegal_argument_exception","reason":"Failed to parse value [x] as only [true] or [false] are allowed."}},"status":400}`},
		{"GET", "/params-x/_search?expand_wildcards=open,x", 400, `{"error":{"root_cause":[{"type":"illegal_argument_exception","reason":"No valid expand wildcard value [x]"}],"type":"illegal_argument_exception","reason":"No valid expand wildcard value [x]"},"status":400}`},
		{"GET", "/params-x/_search?ignore_throttled=true&filter_path=hits.total", 200, `{"hits":{"total":{"value":1,"relation":"eq"}}}`},
		{"GET", "/params-x/_search?include_named_queries_score=true&filter_path=hits.total", 200, `{"hits":{"total":{"value":1,"relation":"eq"}}}`},
		{"GET", "/params-x/_search?min_compatible_shard_node=8.0.0&stats=s&filter_path=hits.total", 200, `{"hits":{"total":{"value":1,"relation":"eq"}}}`},
		{"GET", "/params-missing/_search?min_compatible_shard_node=x", 400, `{"error":{"root_cause":[{"type":"illegal_argument_exception","reason":"the version needs to contain major, minor, and revision, and optionally the build: x"}],"type":"illegal_argument_exception","reason":"the version needs to contain major, minor, and revision, and optionally the build: x"},"status":400}`},
		{"GET", "/params-missing/_search?foo=1&analyzer=standard", 400, `{"error":{"root_cause":[{"type":"illegal_argument_exception","reason":"request [/params-missing/_search] contains parameters [analyzer] but missing query string parameter 'q'."}],"type":"illegal_argument_exception","reason":"request [/params-missing/_search] contains parameters [analyzer] but missing query string parameter 'q'."},"status":400}`},
		{"GET", "/params-missing/_search?error_trace=x", 400, `{"error":"Failed to parse value [x] as only [true] or [false] are allowed.","status":400}`},
		{"GET", "/params-missing/_search?pretty=x", 400, `{"error":{"root_cause":[{"type":"illegal_argument_exception","reason":"Failed to parse value [x] as only [true] or [false] are allowed."}],"type":"illegal_argument_exception","reason":"Failed to parse value [x] as only [true] or [false] are allowed."},"status":400}`},
		{"GET", "/params-x/_count?lenient=true", 400, `{"error":{"root_cause":[{"type":"illegal_argument_exception","reason":"request [/params-x/_count] contains parameters [lenient] but missing query string parameter 'q'."}],"type":"illegal_argument_exception","reason":"request [/params-x/_count] contains parameters [lenient] but missing query string parameter 'q'."},"status":400}`},
		{"GET", "/params-missing/_count?ignore_throttled=x", 400, `{"error":{"root_cause":[{"type":"illegal_argument_exception","reason":"Could not convert [ignore_throttled] to boolean"}],"type":"illegal_argument_exception","reason":"Could not convert [ignore_throttled] to boolean","caused_by":{"type":"illegal_argument_exception","reason":"Failed to parse value [x] as only [true] or [false] are allowed."}},"status":400}`},
		{"POST", "/params-missing/_msearch?max_concurrent_searches=0", 400, `{"error":{"root_cause":[{"type":"illegal_argument_exception","reason":"maxConcurrentSearchRequests must be positive"}],"type":"illegal_argument_exception","reason":"maxConcurrentSearchRequests must be positive"},"status":400}`},
		{"GET", "/params-x/_doc/1?realtime=x", 400, `{"error":{"root_cause":[{"type":"illegal_argument_exception","reason":"Failed to parse value [x] as only [true] or [false] are allowed."}],"type":"illegal_argument_exception","reason":"Failed to parse value [x] as only [true] or [false] are allowed."},"status":400}`},
		{"GET", "/params-x/_doc/1?force_synthetic_source=false", 200, `{"_index":"params-x","_id":"1","_version":1,"_seq_no":0,"_primary_term":1,"found":true,"_source":{"k":"a","n":1}}`},
		{"POST", "/params-x/_mget?force_synthetic_source=x", 400, `{"error":{"root_cause":[{"type":"illegal_argument_exception","reason":"Failed to parse value [x] as only [true] or [false] are allowed."}],"type":"illegal_argument_exception","reason":"Failed to parse value [x] as only [true] or [false] are allowed."},"status":400}`},
		{"POST", "/params-x/_bulk?require_data_stream=x", 400, `{"error":{"root_cause":[{"type":"illegal_argument_exception","reason":"Failed to parse value [x] as only [true] or [false] are allowed."}],"type":"illegal_argument_exception","reason":"Failed to parse value [x] as only [true] or [false] are allowed."},"status":400}`},
		{"POST", "/params-x/_bulk?refresh=x", 400, `{"error":{"root_cause":[{"type":"illegal_argument_exception","reason":"Unknown value for refresh: [x]."}],"type":"illegal_argument_exception","reason":"Unknown value for refresh: [x]."},"status":400}`},
		{"POST", "/params-x/_bulk?wait_for_active_shards=x", 400, `{"error":{"root_cause":[{"type":"illegal_argument_exception","reason":"cannot parse ActiveShardCount[x]"}],"type":"illegal_argument_exception","reason":"cannot parse ActiveShardCount[x]","caused_by":{"type":"number_format_exception","reason":"For input string: \"x\""}},"status":400}`},
		{"PUT", "/params-x/_doc/2?op_type=x", 400, `{"error":{"root_cause":[{"type":"illegal_argument_exception","reason":"opType must be 'create' or 'index', found: [x]"}],"type":"illegal_argument_exception","reason":"opType must be 'create' or 'index', found: [x]"},"status":400}`},
		{"PUT", "/params-x/_doc/2?timeout=x", 400, `{"error":{"root_cause":[{"type":"illegal_argument_exception","reason":"failed to parse setting [timeout] with value [x] as a time value: unit is missing or unrecognized"}],"type":"illegal_argument_exception","reason":"failed to parse setting [timeout] with value [x] as a time value: unit is missing or unrecognized"},"status":400}`},
	} {
		var body []byte
		switch {
		case c.method == "PUT":
			body = []byte(`{"k":"c"}`)
		case strings.Contains(c.target, "_msearch"):
			body = []byte("{}\n{}\n")
		case strings.Contains(c.target, "_mget"):
			body = []byte(`{"ids":["1"]}`)
		case strings.Contains(c.target, "_bulk"):
			body = []byte("{\"index\":{\"_id\":\"2\"}}\n{\"k\":\"b\"}\n")
		}
		st, got := e.Do(c.method, c.target, body)
		if st != c.status || string(got) != c.want {
			t.Errorf("%s %s:\n got %d %s\nwant %d %s", c.method, c.target, st, got, c.status, c.want)
		}
	}
}

// TestParamsDeclined lists parameters whose effect the engine does not model: it must decline
// them, never answer as if they changed nothing.
func TestParamsDeclined(t *testing.T) {
	e := New()
	e.Do("PUT", "/params-x", []byte(`{"mappings":{"properties":{"k":{"type":"keyword"}}}}`))
	e.Do("PUT", "/params-x/_doc/1?refresh=true", []byte(`{"k":"a"}`))
	for _, c := range []struct{ method, target, why string }{
		{"GET", "/params-x/_search?force_synthetic_source=true", "8.15.0 synthesizes _source on a stored-source index too"},
		{"GET", "/params-x/_doc/1?force_synthetic_source=", "an empty flag is true"},
		{"POST", "/params-x/_mget?force_synthetic_source=true", "synthetic _source"},
		{"GET", "/params-x/_search?error_trace=true&size=x", "an error body with error_trace has stack traces"},
		{"GET", "/params-x/_search?allow_partial_search_results=", "8.15.0 answers a 500 null_pointer_exception"},
		{"GET", "/params-x/_search?min_compatible_shard_node=8.16.0", "a version above the node's fails every shard"},
		{"GET", "/params-x/_search?routing=", "an empty routing searches no shard"},
		{"GET", "/params-x/_search?suggest_field=k", "suggesters"},
		{"POST", "/params-x/_bulk?require_data_stream=true", "a plain index is not a data stream"},
		{"POST", "/params-x/_bulk?list_executed_pipelines=true", "adds executed pipelines to items"},
		{"PUT", "/params-x/_doc/2?wait_for_active_shards=all", "waits for a replica a one-node cluster lacks"},
	} {
		body := []byte(`{"k":"b"}`)
		if strings.Contains(c.target, "_bulk") {
			body = []byte("{\"index\":{\"_id\":\"3\"}}\n{\"k\":\"b\"}\n")
		} else if strings.Contains(c.target, "_mget") {
			body = []byte(`{"ids":["1"]}`)
		} else if c.method == "GET" {
			body = nil
		}
		if st, got := e.Do(c.method, c.target, body); !IsUnsupported(st, got) {
			t.Errorf("%s %s (%s): got %d %s, want a decline", c.method, c.target, c.why, st, got)
		}
	}
}

package engine

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// URL parameters are read the way Elasticsearch 8.15's RestRequest reads them, each handler
// in its own order (RestSearchAction#parseSearchRequest, RestGetAction, RestBulkAction...),
// all inside prepareRequest: so a parameter's error comes before an unrecognized parameter
// (BaseRestHandler#handleRequest checks those after prepareRequest) and before the index is
// resolved (the transport action does that). Messages measured on Elasticsearch 8.15.0.

// restParams reads one request's URL parameters.
type restParams struct {
	path string
	p    url.Values
}

// errNotBoolean is Booleans#parseBoolean's refusal.
func errNotBoolean(v string) *esError {
	return errIllegalArg("Failed to parse value [%s] as only [true] or [false] are allowed.", v)
}

// flag is RestRequest#paramAsBoolean(key, boolean default): absent is def, "" is true (the
// parameter's presence turns it on), else exactly "true" or "false".
func (r restParams) flag(name string, def bool) (bool, *esError) {
	if !r.p.Has(name) {
		return def, nil
	}
	switch v := r.p.Get(name); v {
	case "", "true":
		return true, nil
	case "false":
		return false, nil
	default:
		return false, errNotBoolean(v)
	}
}

// boxedFlag is RestRequest#paramAsBoolean(key, Boolean default) with a null default: absent
// and "" are unset (nil), else exactly "true" or "false".
func (r restParams) boxedFlag(name string) (*bool, *esError) {
	v := r.p.Get(name)
	switch v {
	case "":
		return nil, nil
	case "true", "false":
		b := v == "true"
		return &b, nil
	}
	return nil, errNotBoolean(v)
}

// integer is RestRequest#paramAsInt: Integer.parseInt, its NumberFormatException the cause.
func (r restParams) integer(name string) (int, bool, *esError) {
	if !r.p.Has(name) {
		return 0, false, nil
	}
	v := r.p.Get(name)
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil || strings.HasPrefix(v, "+") && len(v) == 1 {
		e := errIllegalArg("Failed to parse int parameter [%s] with value [%s]", name, v)
		e.causedBy = newErr(400, "number_format_exception", "For input string: %s", jsonString(v))
		return 0, true, e
	}
	return int(n), true, nil
}

// timeUnit matches what TimeValue#parseTimeValue reads: a whole number and a unit.
var timeUnit = regexp.MustCompile(`^[0-9]+(nanos|micros|ms|s|m|h|d)$`)

// duration is RestRequest#paramAsTime. "-1" and "0" need no unit; anything else without one
// is refused with TimeValue's message. Forms the engine has not measured (fractions,
// negative durations, spaces) are declined rather than guessed.
func (r restParams) duration(name string) *esError {
	if !r.p.Has(name) {
		return nil
	}
	v := strings.ToLower(r.p.Get(name))
	if v == "-1" || v == "0" || timeUnit.MatchString(v) {
		return nil
	}
	if strings.HasSuffix(v, "nanos") || strings.HasSuffix(v, "micros") || strings.HasSuffix(v, "ms") || strings.HasSuffix(v, "s") ||
		strings.HasSuffix(v, "m") || strings.HasSuffix(v, "h") || strings.HasSuffix(v, "d") {
		return errUnsupportedf("the time value [%s] for [%s]", r.p.Get(name), name)
	}
	return errIllegalArg("failed to parse setting [%s] with value [%s] as a time value: unit is missing or unrecognized", name, r.p.Get(name))
}

// indicesFlag is IndicesOptions#fromParameters's reading of a boolean index option
// (XContentMapValues#nodeBooleanValue): a refusal names the option, Booleans's message the
// cause.
func (r restParams) indicesFlag(name string) *esError {
	if !r.p.Has(name) {
		return nil
	}
	switch v := r.p.Get(name); v {
	case "true", "false":
		return nil
	default:
		e := errIllegalArg("Could not convert [%s] to boolean", name)
		e.causedBy = errNotBoolean(v)
		return e
	}
}

// checkResponseFlags checks the boolean parameters every endpoint reads before its handler:
// error_trace (RestController, which answers a plain {"error":"...","status":400} when it is
// not a boolean), then pretty and human (the channel's XContentBuilder).
func checkResponseFlags(p url.Values) (int, []byte) {
	r := restParams{p: p}
	if _, err := r.flag("error_trace", false); err != nil {
		return 400, []byte(`{"error":` + jsonString(err.reason) + `,"status":400}`)
	}
	for _, name := range []string{"pretty", "human"} {
		if _, err := r.flag(name, false); err != nil {
			return errResp(err)
		}
	}
	return 0, nil
}

// minCompatibleVersion is RestSearchAction's min_compatible_shard_node, read first of all:
// Version#fromString refuses a value without major, minor and revision; a version above the
// node's fails every shard (500 version_mismatch_exception, not modelled, so declined); any
// other has no effect on a one-node 8.15.0 cluster.
var versionForm = regexp.MustCompile(`^([0-9]+)\.([0-9]+)\.([0-9]+)$`)

func (r restParams) minCompatibleShardNode() *esError {
	v := r.p.Get("min_compatible_shard_node")
	if v == "" {
		return nil
	}
	m := versionForm.FindStringSubmatch(v)
	if m == nil {
		if strings.Count(v, ".") < 2 {
			return errIllegalArg("the version needs to contain major, minor, and revision, and optionally the build: %s", v)
		}
		return errUnsupportedf("the min_compatible_shard_node [%s]", v)
	}
	part := func(i int) int { n, _ := strconv.Atoi(m[i]); return n }
	if n := part(1)*1_000_000 + part(2)*1_000 + part(3); n > 8_015_000 {
		return errUnsupportedf("a min_compatible_shard_node [%s] above the node's version %s", v, Version)
	}
	return nil
}

// queryStringParams are RestActions#urlParamsToQueryBuilder's parameters of q, in the order
// its refusal lists them when q is absent.
var queryStringParams = []string{"df", "analyzer", "analyze_wildcard", "lenient", "default_operator"}

// checkQueryStringParams refuses q's parameters without q.
func (r restParams) checkQueryStringParams() *esError {
	if r.p.Has("q") {
		return nil
	}
	var given []string
	for _, k := range queryStringParams {
		if r.p.Has(k) {
			given = append(given, k)
		}
	}
	if len(given) > 0 {
		return errIllegalArg("request [%s] contains parameters [%s] but missing query string parameter 'q'.", r.path, strings.Join(given, ", "))
	}
	return nil
}

// suggestParams are RestSearchAction's parameters of suggest_field, in its refusal's order.
var suggestParams = []string{"suggest_text", "suggest_size", "suggest_mode"}

func (r restParams) checkSuggestParams() *esError {
	if r.p.Has("suggest_field") {
		return errUnsupportedf("the URL parameter [suggest_field] (suggesters)")
	}
	var given []string
	for _, k := range suggestParams {
		if r.p.Has(k) {
			given = append(given, k)
		}
	}
	if len(given) > 0 {
		return errIllegalArg("request [%s] contains parameters [%s] but missing 'suggest_field' parameter.", r.path, strings.Join(given, ", "))
	}
	return nil
}

// checkGetParams reads a get's parameters in RestGetAction's (and, without version,
// RestMultiGetAction's) order: refresh, routing, preference, realtime, stored_fields,
// version, version_type, _source, force_synthetic_source. head is an exists request, whose
// answer no fetch option changes.
func checkGetParams(rp restParams, head, multi bool) *esError {
	for _, f := range []string{"refresh", "realtime"} {
		if _, err := rp.flag(f, false); err != nil {
			return err
		}
	}
	if err := checkRouting(rp.p); err != nil {
		return err
	}
	if rp.p.Has("stored_fields") && !head {
		// stored_fields leaves _source out unless asked for, and returns stored fields.
		return errUnsupportedf("the URL parameter [stored_fields]")
	}
	if !multi {
		if rp.p.Has("version") {
			return errUnsupportedf("the URL parameter [version]")
		}
		// version_type matters only with a version (GetRequest#validate,
		// VersionType#isVersionConflictForReads); the default is read as it is.
		if rp.p.Has("version_type") && rp.p.Get("version_type") != "internal" {
			return errUnsupportedf("the URL parameter [version_type] other than [internal]")
		}
	}
	synthetic, err := rp.flag("force_synthetic_source", false)
	if err != nil {
		return err
	}
	// Elasticsearch 8.15.0 synthesizes the _source of an index that stores it too (measured:
	// {"n":1,"k":["b","a","b"]} comes back as {"k":["a","b"],"n":1}); the engine has no
	// synthetic source.
	if synthetic && !head {
		return errUnsupportedf("force_synthetic_source (synthetic _source)")
	}
	return nil
}

// checkWriteParams reads the parameters of an index request (RestIndexAction) or a bulk
// (RestBulkAction): timeout, refresh, require_alias, require_data_stream,
// list_executed_pipelines (bulk), wait_for_active_shards, op_type (index).
func checkWriteParams(rp restParams, bulk bool) *esError {
	if err := checkRouting(rp.p); err != nil {
		return err
	}
	if rp.p.Has("pipeline") {
		return errUnsupportedf("the URL parameter [pipeline] (ingest pipelines)")
	}
	if err := rp.duration("timeout"); err != nil {
		return err
	}
	// WriteRequest.RefreshPolicy#parse.
	switch v := rp.p.Get("refresh"); {
	case !rp.p.Has("refresh"), v == "", v == "true", v == "false", v == "wait_for":
	default:
		return errIllegalArg("Unknown value for refresh: [%s].", v)
	}
	names := []string{"require_alias", "require_data_stream"}
	if bulk {
		names = append(names, "list_executed_pipelines")
	}
	for _, f := range names {
		on, err := rp.flag(f, false)
		if err != nil {
			return err
		}
		// require_alias and require_data_stream fail a write to a plain index, and
		// list_executed_pipelines adds each item's pipelines: none of them modelled.
		if on {
			return errUnsupportedf("the URL parameter [%s]", f)
		}
	}
	if rp.p.Has("wait_for_active_shards") {
		// ActiveShardCount#parseString. Up to one copy is what a one-node cluster has;
		// more waits for the timeout.
		switch v := rp.p.Get("wait_for_active_shards"); v {
		case "0", "1", "default", "index-setting":
		default:
			if _, err := strconv.Atoi(v); err != nil && v != "all" {
				e := errIllegalArg("cannot parse ActiveShardCount[%s]", v)
				e.causedBy = newErr(400, "number_format_exception", "For input string: %s", jsonString(v))
				return e
			}
			return errUnsupportedf("wait_for_active_shards [%s]", v)
		}
	}
	if !bulk && rp.p.Has("op_type") {
		if v := rp.p.Get("op_type"); v != "index" && v != "create" {
			if strings.EqualFold(v, "index") || strings.EqualFold(v, "create") {
				return errUnsupportedf("op_type [%s]", v)
			}
			return errIllegalArg("opType must be 'create' or 'index', found: [%s]", v)
		}
	}
	return nil
}

// checkMsearchParams reads RestMultiSearchAction's parameters in its order: index options,
// max_concurrent_searches, pre_filter_shard_size, max_concurrent_shard_requests (each search
// of a one-shard index is unchanged by them at or above their bounds), then the flags.
func checkMsearchParams(rp restParams) *esError {
	if err := checkIndicesOptions(rp); err != nil {
		return err
	}
	for _, b := range []struct {
		name, msg string
		min       int
	}{{"max_concurrent_searches", "maxConcurrentSearchRequests must be positive", 1},
		{"pre_filter_shard_size", "preFilterShardSize must be >= 1", 1},
		{"max_concurrent_shard_requests", "maxConcurrentShardRequests must be >= 1", 1}} {
		n, ok, err := rp.integer(b.name)
		if err != nil {
			return err
		}
		if ok && n < b.min {
			return errIllegalArg("%s", b.msg)
		}
	}
	for _, f := range []string{"ccs_minimize_roundtrips", "include_named_queries_score", "rest_total_hits_as_int"} {
		if _, err := rp.flag(f, false); err != nil {
			return err
		}
	}
	return checkRouting(rp.p)
}

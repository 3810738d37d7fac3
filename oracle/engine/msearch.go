package engine

import (
	"bytes"
	"net/url"
	"strings"
	"time"

	"github.com/tidwall/gjson"
)

// _msearch follows Elasticsearch 8.15's RestMultiSearchAction and
// MultiSearchRequest.readMultiLineFormat
// (server/src/main/java/org/elasticsearch/rest/action/search/RestMultiSearchAction.java,
// action/search/MultiSearchRequest.java): NDJSON pairs of a header line ({} or empty for the
// defaults, even as the first line; index, search_type, preference, routing, request_cache and the index options; any
// other key fails the request with "key [k] is not supported in the metadata section") and a
// search body line. A body that does not parse fails the whole request, as a _search would; a
// search that fails after parsing is that item's error envelope ({"error":{...},"status":N})
// and the others are answered. The response is {"took":N,"responses":[...]}, each search
// response followed by "status":200. typed_keys and rest_total_hits_as_int apply to every
// search. Measured on real Elasticsearch 8.15.0 (lab/realengines TestClientAPIs, msearch).

// msearchItem is one parsed search of an _msearch body.
type msearchItem struct {
	indices string
	req     *searchReq
}

func (e *Engine) handleMsearch(method, path, defIndex string, params url.Values, body []byte, start time.Time) (int, []byte) {
	if method != "GET" && method != "POST" {
		return methodNotAllowed(path, method, "GET", "POST")
	}
	if err := checkMsearchParams(restParams{path: path, p: params}); err != nil {
		return errResp(err)
	}
	if err := checkParams(path, params, "max_concurrent_searches", "max_concurrent_shard_requests", "pre_filter_shard_size",
		"rest_total_hits_as_int", "typed_keys", "ccs_minimize_roundtrips", "search_type", "ignore_unavailable",
		"allow_no_indices", "expand_wildcards", "ignore_throttled", "routing", "preference", "include_named_queries_score"); err != nil {
		return errResp(err)
	}
	if params.Has("search_type") {
		switch st := params.Get("search_type"); st {
		case "query_then_fetch":
		case "dfs_query_then_fetch":
			return errResp(errUnsupportedf("search_type [%s]", st))
		default:
			return errResp(errIllegalArg("No search type for [%s]", st))
		}
	}
	if err := declineIndicesOptions(params); err != nil {
		return errResp(err)
	}
	if len(body) == 0 {
		return errResp(newErr(400, "parse_exception", "request body or source parameter is required"))
	}
	itemParams := url.Values{}
	for _, k := range []string{"typed_keys", "rest_total_hits_as_int"} {
		if params.Has(k) {
			itemParams[k] = params[k]
		}
	}
	var items []msearchItem
	from := 0
	for {
		next := bytes.IndexByte(body[from:], '\n')
		if next < 0 {
			break
		}
		next += from
		it := msearchItem{indices: defIndex}
		if header := trimSpace(body[from:next]); len(header) > 0 {
			if err := parseMsearchHeader(header, &it); err != nil {
				return errResp(err)
			}
		}
		from = next + 1
		next = bytes.IndexByte(body[from:], '\n')
		if next < 0 {
			break
		}
		next += from
		if len(trimSpace(body[from:next])) == 0 {
			return errResp(newErr(400, "parsing_exception", "Expected [START_OBJECT] but found [null]").with("line", "1").with("col", "0"))
		}
		r, err := parseSearchBody(body[from:next], false)
		if err != nil {
			return errResp(err)
		}
		if err := applySearchParams(r, itemParams); err != nil {
			return errResp(err)
		}
		if err := checkTotalHitsAsInt(r, itemParams); err != nil {
			return errResp(err)
		}
		if err := r.validateShardDoc(); err != nil {
			return errResp(err)
		}
		it.req = r
		items = append(items, it)
		from = next + 1
	}
	if len(trimSpace(body[from:])) > 0 {
		return errResp(errIllegalArg("The msearch request must be terminated by a newline [\n]"))
	}
	if len(items) == 0 {
		return errResp(newErr(400, "action_request_validation_exception", "Validation Failed: 1: no requests added;"))
	}
	b := []byte(`{"took":`)
	mark := len(b)
	b = append(b, `,"responses":[`...)
	for i, it := range items {
		if i > 0 {
			b = append(b, ',')
		}
		var status int
		var resp []byte
		var ixs []*index
		var err *esError
		if it.req.pit != nil {
			ixs, err = e.pitIndices(it.req, it.indices, nil)
		} else {
			ixs, err = e.resolveIndices(it.indices)
		}
		if err != nil {
			status, resp = errResp(err)
		} else {
			it.req.preFilter = preFilterParam(params) // RestMultiSearchAction sets it on every item
			status, resp = e.search(ixs, it.req, time.Now())
		}
		if IsUnsupported(status, resp) {
			return status, resp
		}
		if isErrorBody(status, resp) {
			b = append(b, resp...)
			continue
		}
		b = append(b, resp[:len(resp)-1]...)
		b = append(b, `,"status":`...)
		b = appendInt(b, int64(status))
		b = append(b, '}')
	}
	took := appendInt(nil, time.Since(start).Milliseconds())
	b = append(b[:mark], append(took, b[mark:]...)...)
	return 200, append(b, "]}"...)
}

// parseMsearchHeader reads a header line into it.
func parseMsearchHeader(line []byte, it *msearchItem) *esError {
	if !gjson.ValidBytes(line) || !gjson.ParseBytes(line).IsObject() {
		return errUnsupportedf("an _msearch header line that is not a JSON object")
	}
	var err *esError
	gjson.ParseBytes(line).ForEach(func(k, v gjson.Result) bool {
		switch key := k.String(); key {
		case "index", "indices":
			if v.IsArray() {
				var names []string
				for _, x := range v.Array() {
					names = append(names, x.String())
				}
				it.indices = strings.Join(names, ",")
			} else {
				it.indices = v.String()
			}
		case "search_type", "searchType":
			if st := v.String(); st != "query_then_fetch" {
				err = errUnsupportedf("search_type [%s]", st)
			}
		case "preference", "routing", "request_cache", "requestCache", "allow_partial_search_results",
			"ccs_minimize_roundtrips", "ccsMinimizeRoundtrips":
		case "expand_wildcards", "expandWildcards", "ignore_unavailable", "ignoreUnavailable",
			"allow_no_indices", "allowNoIndices", "ignore_throttled", "ignoreThrottled":
			err = errUnsupportedf("the _msearch header key [%s]", key)
		default:
			err = errIllegalArg("key [%s] is not supported in the metadata section", key)
		}
		return err == nil
	})
	return err
}

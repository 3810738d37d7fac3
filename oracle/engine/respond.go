package engine

import (
	"bytes"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/tidwall/gjson"
)

// handle serves one request: the media types negotiated from the headers (h is nil for an
// in-process call, which is JSON both ways), the endpoint, then what Elasticsearch's REST layer
// does to every response: REST API compatibility with 7.x, filter_path, pretty.
func (e *Engine) handle(method, target string, h http.Header, body []byte) (status int, ctype string, resp []byte) {
	start := time.Now()
	path, rawQuery, _ := strings.Cut(target, "?")
	params, perr := url.ParseQuery(rawQuery)
	neg := negotiation{contentType: "application/json"}
	if h != nil {
		var st int
		var refusal []byte
		neg, st, refusal = negotiate(h, len(body) > 0, params.Get("format"))
		if refusal != nil {
			return st, "application/json", refusal
		}
	}
	if perr != nil {
		err := errIllegalArg("invalid query string: %s", perr.Error())
		return err.status, neg.contentType, err.body()
	}
	if st, b := checkResponseFlags(params); b != nil {
		return st, neg.contentType, b
	}
	status, resp = e.route(method, path, params, body, start)
	// error_trace adds each exception's Java stack trace to an error body, which the engine
	// cannot write.
	if trace, _ := (restParams{p: params}).flag("error_trace", false); trace && isErrorBody(status, resp) && !IsUnsupported(status, resp) {
		status, resp = errResp(errUnsupportedf("error_trace on an error response (Java stack traces)"))
	}
	kind := endpointKind(method, splitPath(path))
	if neg.v7 && !isErrorBody(status, resp) {
		resp = addTypes(kind, resp)
	}
	if fp := parseFilterPath(params.Get("filter_path")); fp != nil && !isErrorBody(status, resp) {
		filtered, err := fp.apply(resp, sourcePaths[kind])
		if err != nil {
			status, resp = err.status, err.body()
		} else {
			resp = filtered
		}
	}
	if params.Get("pretty") == "true" || params.Has("pretty") && params.Get("pretty") == "" {
		resp = prettyJSON(resp)
	}
	return status, neg.contentType, resp
}

// isErrorBody reports an error envelope, which Elasticsearch builds with newErrorBuilder: never
// filtered, never given types.
func isErrorBody(status int, b []byte) bool {
	return status >= 400 && bytes.HasPrefix(b, []byte(`{"error":`))
}

// endpointKind names the response shape of an endpoint, for the rewrites that depend on it.
func endpointKind(method string, segs []string) string {
	if len(segs) == 0 {
		return ""
	}
	switch last := segs[len(segs)-1]; {
	case last == "_search":
		return "search"
	case last == "_msearch":
		return "msearch"
	case last == "_mget":
		return "mget"
	case last == "_bulk":
		return "bulk"
	}
	if len(segs) >= 2 && (segs[1] == "_doc" || segs[1] == "_create") && !strings.HasPrefix(segs[0], "_") {
		if method == http.MethodGet || method == http.MethodHead {
			return "get"
		}
		return "write"
	}
	return ""
}

// sourcePaths are where each kind of response holds documents' _source ("[]": every element).
var sourcePaths = map[string][]string{
	"search":  {"hits.hits.[]._source"},
	"msearch": {"responses.[].hits.hits.[]._source"},
	"get":     {"_source"},
	"mget":    {"docs.[]._source"},
}

// REST API compatibility with 7.x adds "_type":"_doc" to documents, as 8.15's toXContent
// methods do under RestApiVersion.V_7 (measured on real Elasticsearch 8.15.0): after _index in
// a get result, an mget item (found, missing or failed) and a search hit; after _primary_term,
// at the end of a write result (document index and delete, bulk items; after _index in a failed
// bulk item).
var typePaths = map[string][]struct {
	path  string
	after string // the member _type follows; "" for the end of the object
}{
	"search":  {{"hits.hits.[]", "_index"}},
	"msearch": {{"responses.[].hits.hits.[]", "_index"}},
	"get":     {{"", "_index"}},
	"mget":    {{"docs.[]", "_index"}},
	"write":   {{"", ""}},
	"bulk":    {{"items.[].*", "_primary_term"}},
}

func addTypes(kind string, b []byte) []byte {
	ps := typePaths[kind]
	if len(ps) == 0 || !gjson.ValidBytes(b) {
		return b
	}
	v := gjson.ParseBytes(b)
	return rewriteObjects(nil, v, "", func(at string, obj gjson.Result) ([]byte, bool) {
		for _, p := range ps {
			if !pathMatch(p.path, at) {
				continue
			}
			if p.after == "" {
				raw := strings.TrimRight(obj.Raw, " ")
				return append([]byte(raw[:len(raw)-1]), `,"_type":"_doc"}`...), true
			}
			after := p.after
			if after == "_primary_term" && !obj.Get(after).Exists() {
				// A failed bulk item has no write result: _type follows _index.
				after = "_index"
			}
			if !obj.Get(after).Exists() {
				return nil, false
			}
			var out []byte
			out = append(out, '{')
			i := 0
			obj.ForEach(func(k, x gjson.Result) bool {
				if i > 0 {
					out = append(out, ',')
				}
				i++
				out = append(out, k.Raw...)
				out = append(out, ':')
				out = append(out, x.Raw...)
				if k.String() == after {
					out = append(out, `,"_type":"_doc"`...)
				}
				return true
			})
			return append(out, '}'), true
		}
		return nil, false
	})
}

// pathMatch matches a dotted path where a "*" segment of the pattern stands for any name (a bulk
// item is {"index":{...}}, whatever its action).
func pathMatch(pattern, at string) bool {
	if pattern == at {
		return true
	}
	ps, as := strings.Split(pattern, "."), strings.Split(at, ".")
	if len(ps) != len(as) {
		return false
	}
	for i := range ps {
		if ps[i] != "*" && ps[i] != as[i] {
			return false
		}
	}
	return true
}

// rewriteObjects copies v, letting fn replace any object (at is its path, "[]" for an array
// element).
func rewriteObjects(b []byte, v gjson.Result, at string, fn func(at string, obj gjson.Result) ([]byte, bool)) []byte {
	switch {
	case v.IsObject():
		if out, ok := fn(at, v); ok {
			return append(b, out...)
		}
		b = append(b, '{')
		i := 0
		v.ForEach(func(k, x gjson.Result) bool {
			if i > 0 {
				b = append(b, ',')
			}
			i++
			b = append(b, k.Raw...)
			b = append(b, ':')
			b = rewriteObjects(b, x, join(at, k.String()), fn)
			return true
		})
		return append(b, '}')
	case v.IsArray():
		b = append(b, '[')
		for i, x := range v.Array() {
			if i > 0 {
				b = append(b, ',')
			}
			b = rewriteObjects(b, x, join(at, "[]"), fn)
		}
		return append(b, ']')
	}
	return append(b, v.Raw...)
}

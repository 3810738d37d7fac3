package engine

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// _mget follows Elasticsearch 8.15's RestMultiGetAction and MultiGetRequest
// (server/src/main/java/org/elasticsearch/rest/action/document/RestMultiGetAction.java,
// action/get/MultiGetRequest.java): the body is {"docs":[...]} or {"ids":[...]} (both may be
// given, docs first), the index comes from the path or each doc's _index, _source from each doc
// or else from the URL's _source, _source_includes and _source_excludes. Each item is answered
// as GET /{index}/_doc/{id} would be, in order, inside {"docs":[...]}: the document, a missing
// document ({"_index","_id","found":false}), or a failure ({"_index","_id","error":{...}}, the
// error without its status, for an index that does not exist). Parsing errors fail the whole
// request; then MultiGetRequest.validate lists every doc without an index or an id, numbered
// from 0. Every answer here was measured on real Elasticsearch 8.15.0 (lab/realengines
// TestClientAPIs, mget). stored_fields, version and version_type are declined.

type mgetItem struct {
	index, id string
	hasIndex  bool
	hasID     bool
	source    url.Values // the _source parameters of this doc's get
	sourceSet bool
	// routing is the doc's own "routing", which replaces the URL's for it.
	routing    string
	hasRouting bool
}

func (e *Engine) handleMget(method, path, defIndex string, params url.Values, body []byte) (int, []byte) {
	if method != "GET" && method != "POST" {
		return methodNotAllowed(path, method, "GET", "POST")
	}
	if err := checkGetParams(restParams{path: path, p: params}, false, true); err != nil {
		return errResp(err)
	}
	if err := checkParams(path, params, "stored_fields", "preference", "realtime", "refresh", "routing",
		"_source", "_source_includes", "_source_excludes", "force_synthetic_source"); err != nil {
		return errResp(err)
	}
	body = trimSpace(body)
	if len(body) == 0 {
		return errResp(newErr(400, "parse_exception", "request body or source parameter is required"))
	}
	if !gjson.ValidBytes(body) {
		return errResp(errUnsupportedf("an _mget body that is not valid JSON (Elasticsearch's parser error is not reproduced)"))
	}
	root := gjson.ParseBytes(body)
	if !root.IsObject() {
		return errResp(errUnsupportedf("an _mget body that is not an object"))
	}
	defaults := url.Values{}
	for _, k := range []string{"_source", "_source_includes", "_source_excludes", "realtime", "refresh", "routing", "preference"} {
		if params.Has(k) {
			defaults[k] = params[k]
		}
	}
	var items []mgetItem
	var err *esError
	root.ForEach(func(k, v gjson.Result) bool {
		name := k.String()
		if !v.IsArray() {
			err = errParsing(v.Index, "unexpected token [%s], expected [FIELD_NAME] or [START_ARRAY]", tokenName(v))
			return false
		}
		switch name {
		case "docs":
			for _, d := range v.Array() {
				if !d.IsObject() {
					err = errIllegalArg("docs array element should include an object")
					return false
				}
				it, e2 := parseMgetDoc(d, defIndex)
				if e2 != nil {
					err = e2
					return false
				}
				items = append(items, it)
			}
		case "ids":
			for _, d := range v.Array() {
				if d.IsObject() || d.IsArray() {
					err = errIllegalArg("ids array element should only contain ids")
					return false
				}
				it := mgetItem{index: defIndex, hasIndex: defIndex != ""}
				if d.Type != gjson.Null {
					it.id, it.hasID = scalarText(d), true
				}
				items = append(items, it)
			}
		default:
			err = errParsing(v.Index, "unknown key [%s] for a START_ARRAY, expected [docs] or [ids]", name)
			return false
		}
		return true
	})
	if err != nil {
		return errResp(err)
	}
	if len(items) == 0 {
		return errResp(newErr(400, "action_request_validation_exception", "Validation Failed: 1: no documents to get;"))
	}
	var msg strings.Builder
	n := 0
	for i, it := range items {
		if !it.hasIndex {
			n++
			msg.WriteString(strconv.Itoa(n) + ": index is missing for doc " + strconv.Itoa(i) + ";")
		}
		if !it.hasID {
			n++
			msg.WriteString(strconv.Itoa(n) + ": id is missing for doc " + strconv.Itoa(i) + ";")
		}
	}
	if n > 0 {
		return errResp(newErr(400, "action_request_validation_exception", "Validation Failed: %s", msg.String()))
	}
	b := []byte(`{"docs":[`)
	for i, it := range items {
		if i > 0 {
			b = append(b, ',')
		}
		p := url.Values{}
		for k, v := range defaults {
			p[k] = v
		}
		if it.sourceSet {
			delete(p, "_source")
			delete(p, "_source_includes")
			delete(p, "_source_excludes")
			for k, v := range it.source {
				p[k] = v
			}
		}
		if it.hasRouting {
			p.Set("routing", it.routing)
		}
		status, doc := e.getDoc("GET", it.index, it.id, p)
		if isErrorBody(status, doc) {
			// A missing index and a missing required routing fail the doc, not the request
			// (TransportMultiGetAction; the doc's error measured on 8.15.0 for both).
			errObj := gjson.GetBytes(doc, "error")
			if t := errObj.Get("type").String(); t != "index_not_found_exception" && t != "routing_missing_exception" {
				return status, doc
			}
			b = append(b, `{"_index":`...)
			b = appendJSONString(b, it.index)
			b = append(b, `,"_id":`...)
			b = appendJSONString(b, it.id)
			b = append(b, `,"error":`...)
			b = append(b, errObj.Raw...)
			b = append(b, '}')
			continue
		}
		b = append(b, doc...)
	}
	return 200, append(b, "]}"...)
}

// parseMgetDoc reads one element of "docs".
func parseMgetDoc(d gjson.Result, defIndex string) (mgetItem, *esError) {
	it := mgetItem{index: defIndex, hasIndex: defIndex != ""}
	var err *esError
	d.ForEach(func(k, v gjson.Result) bool {
		switch name := k.String(); name {
		case "_index":
			if v.Type != gjson.Null {
				it.index, it.hasIndex = scalarText(v), true
			}
		case "_id":
			if v.Type != gjson.Null {
				it.id, it.hasID = scalarText(v), true
			}
		case "routing":
			if v.Type != gjson.Null {
				it.routing, it.hasRouting = scalarText(v), true
			}
		case "stored_fields", "version", "version_type":
			err = errUnsupportedf("the _mget doc field [%s]", name)
		case "_source":
			it.sourceSet = true
			it.source = url.Values{}
			switch {
			case v.Type == gjson.True:
			case v.Type == gjson.False:
				it.source.Set("_source", "false")
			case v.Type == gjson.String:
				it.source.Set("_source_includes", v.Str)
			case v.IsArray():
				var inc []string
				for _, x := range v.Array() {
					inc = append(inc, x.String())
				}
				if len(inc) > 0 {
					it.source.Set("_source_includes", strings.Join(inc, ","))
				}
			case v.IsObject():
				v.ForEach(func(sk, sv gjson.Result) bool {
					var list []string
					if sv.IsArray() {
						for _, x := range sv.Array() {
							list = append(list, x.String())
						}
					} else {
						list = []string{sv.String()}
					}
					switch sk.String() {
					case "includes", "include":
						it.source.Set("_source_includes", strings.Join(list, ","))
					case "excludes", "exclude":
						it.source.Set("_source_excludes", strings.Join(list, ","))
					default:
						err = errUnsupportedf("the _mget _source key [%s]", sk.String())
					}
					return err == nil
				})
			default:
				err = errUnsupportedf("an _mget _source of type %s", tokenName(v))
			}
		default:
			if v.IsObject() || v.IsArray() {
				err = errUnsupportedf("the _mget doc field [%s]", name)
			} else {
				err = newErr(400, "parse_exception", "failed to parse multi get request. unknown field [%s]", name)
			}
		}
		return err == nil
	})
	return it, err
}

// methodNotAllowed is RestController's answer to a known path with another method.
func methodNotAllowed(path, method string, allowed ...string) (int, []byte) {
	return 405, []byte(`{"error":"Incorrect HTTP method for uri [` + path + `] and method [` + method + `], allowed: [` + strings.Join(allowed, ", ") + `]","status":405}`)
}

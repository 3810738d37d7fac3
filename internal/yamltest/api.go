package yamltest

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// apiPath is one URL form of an API: the methods it accepts and a path template whose
// {parts} come from the do section's parameters.
type apiPath struct {
	methods []string
	path    string
}

func (p apiPath) parts() []string {
	var out []string
	rest := p.path
	for {
		i := strings.IndexByte(rest, '{')
		if i < 0 {
			return out
		}
		j := strings.IndexByte(rest[i:], '}')
		out = append(out, rest[i+1:i+j])
		rest = rest[i+j+1:]
	}
}

type bodyKind int

const (
	bodyJSON   bodyKind = iota // one JSON value
	bodyNDJSON                 // newline-delimited JSON (bulk, msearch)
)

type api struct {
	paths []apiPath // most specific first
	body  bodyKind
}

func p(path string, methods ...string) apiPath { return apiPath{methods: methods, path: path} }

// apis maps Elasticsearch REST API spec names to HTTP requests: every API the stored tests in
// /work/shared/es-rest-tests use, and the common document, index and search APIs. Paths and
// methods follow rest-api-spec/src/main/resources/rest-api-spec/api/*.json.
var apis = map[string]api{
	"info": {paths: []apiPath{p("/", "GET")}},
	"ping": {paths: []apiPath{p("/", "HEAD")}},

	"indices.create":         {paths: []apiPath{p("/{index}", "PUT")}},
	"indices.delete":         {paths: []apiPath{p("/{index}", "DELETE")}},
	"indices.exists":         {paths: []apiPath{p("/{index}", "HEAD")}},
	"indices.get":            {paths: []apiPath{p("/{index}", "GET")}},
	"indices.refresh":        {paths: []apiPath{p("/{index}/_refresh", "POST", "GET"), p("/_refresh", "POST", "GET")}},
	"indices.close":          {paths: []apiPath{p("/{index}/_close", "POST")}},
	"indices.open":           {paths: []apiPath{p("/{index}/_open", "POST")}},
	"indices.flush":          {paths: []apiPath{p("/{index}/_flush", "POST", "GET"), p("/_flush", "POST", "GET")}},
	"indices.forcemerge":     {paths: []apiPath{p("/{index}/_forcemerge", "POST"), p("/_forcemerge", "POST")}},
	"indices.put_mapping":    {paths: []apiPath{p("/{index}/_mapping", "PUT", "POST")}},
	"indices.get_mapping":    {paths: []apiPath{p("/{index}/_mapping", "GET"), p("/_mapping", "GET")}},
	"indices.put_settings":   {paths: []apiPath{p("/{index}/_settings", "PUT"), p("/_settings", "PUT")}},
	"indices.get_settings":   {paths: []apiPath{p("/{index}/_settings/{name}", "GET"), p("/{index}/_settings", "GET"), p("/_settings/{name}", "GET"), p("/_settings", "GET")}},
	"indices.stats":          {paths: []apiPath{p("/{index}/_stats/{metric}", "GET"), p("/{index}/_stats", "GET"), p("/_stats/{metric}", "GET"), p("/_stats", "GET")}},
	"indices.put_alias":      {paths: []apiPath{p("/{index}/_alias/{name}", "PUT", "POST")}},
	"indices.update_aliases": {paths: []apiPath{p("/_aliases", "POST")}},

	"cluster.health":       {paths: []apiPath{p("/_cluster/health/{index}", "GET"), p("/_cluster/health", "GET")}},
	"cluster.put_settings": {paths: []apiPath{p("/_cluster/settings", "PUT")}},
	"cluster.get_settings": {paths: []apiPath{p("/_cluster/settings", "GET")}},

	"index":      {paths: []apiPath{p("/{index}/_doc/{id}", "PUT", "POST"), p("/{index}/_doc", "POST")}},
	"create":     {paths: []apiPath{p("/{index}/_create/{id}", "PUT", "POST")}},
	"get":        {paths: []apiPath{p("/{index}/_doc/{id}", "GET")}},
	"exists":     {paths: []apiPath{p("/{index}/_doc/{id}", "HEAD")}},
	"get_source": {paths: []apiPath{p("/{index}/_source/{id}", "GET")}},
	"delete":     {paths: []apiPath{p("/{index}/_doc/{id}", "DELETE")}},
	"update":     {paths: []apiPath{p("/{index}/_update/{id}", "POST")}},
	"mget":       {paths: []apiPath{p("/{index}/_mget", "GET", "POST"), p("/_mget", "GET", "POST")}},
	"bulk":       {paths: []apiPath{p("/{index}/_bulk", "POST", "PUT"), p("/_bulk", "POST", "PUT")}, body: bodyNDJSON},

	"search":              {paths: []apiPath{p("/{index}/_search", "GET", "POST"), p("/_search", "GET", "POST")}},
	"msearch":             {paths: []apiPath{p("/{index}/_msearch", "GET", "POST"), p("/_msearch", "GET", "POST")}, body: bodyNDJSON},
	"count":               {paths: []apiPath{p("/{index}/_count", "POST", "GET"), p("/_count", "POST", "GET")}},
	"explain":             {paths: []apiPath{p("/{index}/_explain/{id}", "GET", "POST")}},
	"field_caps":          {paths: []apiPath{p("/{index}/_field_caps", "GET", "POST"), p("/_field_caps", "GET", "POST")}},
	"delete_by_query":     {paths: []apiPath{p("/{index}/_delete_by_query", "POST")}},
	"update_by_query":     {paths: []apiPath{p("/{index}/_update_by_query", "POST")}},
	"open_point_in_time":  {paths: []apiPath{p("/{index}/_pit", "POST")}},
	"close_point_in_time": {paths: []apiPath{p("/_pit", "DELETE")}},
	"scroll":              {paths: []apiPath{p("/_search/scroll", "GET", "POST")}},
	"clear_scroll":        {paths: []apiPath{p("/_search/scroll", "DELETE")}},
}

// httpCall is a do section made concrete.
type httpCall struct {
	api    string
	method string
	path   string // escaped
	query  url.Values
	body   []byte
	ndjson bool
}

// paramString renders a parameter value as the Java client does: lists joined by commas.
func paramString(v any) string {
	if list, ok := v.([]any); ok {
		parts := make([]string, len(list))
		for i, e := range list {
			parts[i] = paramString(e)
		}
		return strings.Join(parts, ",")
	}
	return javaString(v)
}

// route builds the HTTP call for an API and its parameters (body excluded). The path chosen
// is the most specific one whose parts are all given; the method is the path's first, except
// that a body goes by POST (or PUT) when the first is neither and the path accepts it. Every other parameter goes
// into the query string.
func route(name string, params *Object, hasBody bool) (*httpCall, error) {
	if name == "raw" {
		return rawRoute(params)
	}
	a, ok := apis[name]
	if !ok {
		return nil, fmt.Errorf("API %s is not one this runner can map to HTTP", name)
	}
	for _, ap := range a.paths {
		parts := ap.parts()
		complete := true
		for _, part := range parts {
			if _, ok := params.Get(part); !ok {
				complete = false
				break
			}
		}
		if !complete {
			continue
		}
		path := ap.path
		used := map[string]bool{}
		for _, part := range parts {
			v, _ := params.Get(part)
			path = strings.Replace(path, "{"+part+"}", escapePathPart(paramString(v)), 1)
			used[part] = true
		}
		method := ap.methods[0]
		if hasBody && method != "PUT" && method != "POST" {
			for _, m := range []string{"POST", "PUT"} {
				if slices.Contains(ap.methods, m) {
					method = m
					break
				}
			}
		}
		q := url.Values{}
		for _, k := range params.Keys {
			if !used[k] {
				q.Add(k, paramString(params.Map[k]))
			}
		}
		return &httpCall{api: name, method: method, path: path, query: q, ndjson: a.body == bodyNDJSON}, nil
	}
	var need []string
	for _, ap := range a.paths {
		need = append(need, ap.path)
	}
	return nil, fmt.Errorf("API %s needs the parameters of one of %s", name, strings.Join(need, ", "))
}

// rawRoute is the runner's raw API: method and path given outright.
func rawRoute(params *Object) (*httpCall, error) {
	m, _ := params.Get("method")
	pth, _ := params.Get("path")
	method, _ := m.(string)
	path, _ := pth.(string)
	if method == "" || path == "" {
		return nil, fmt.Errorf("raw needs method and path")
	}
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	q := url.Values{}
	for _, k := range params.Keys {
		if k != "method" && k != "path" {
			q.Add(k, paramString(params.Map[k]))
		}
	}
	return &httpCall{api: "raw", method: strings.ToUpper(method), path: path, query: q}, nil
}

// escapePathPart percent-encodes a path part, keeping the commas and wildcards of index lists.
func escapePathPart(s string) string {
	return strings.NewReplacer("%2C", ",", "%2A", "*").Replace(url.PathEscape(s))
}

package proxy

import (
	"net/http"
	"strings"
)

// Endpoint is what a request is, as far as capture and shadow care.
type Endpoint struct {
	// Kind is Read (recorded and shadowed), Write (passed through and counted: it makes a
	// snapshot of the index stale) or Other (passed through: cluster and index metadata,
	// refresh, scroll and point-in-time bookkeeping).
	Kind Kind
	// Name is the endpoint: "search", "count", "get", "exists", "source", "source-exists",
	// "mget", "msearch" for reads; "bulk", "doc", "update", "delete_by_query", ... for writes.
	Name string
	// Index is the index or indices the path names ("" for none, "a,b" for several).
	Index string
	// Unreplayable says why a read cannot be replayed later, if it cannot: a scroll or a
	// point in time, whose ids expire.
	Unreplayable string
}

// Kind sorts requests.
type Kind int

const (
	Other Kind = iota
	Read
	Write
)

// readEndpoints are the final path segments of the read APIs capture records, by method.
var readEndpoints = map[string]string{
	"_search":  "search",
	"_count":   "count",
	"_mget":    "mget",
	"_msearch": "msearch",
}

// writeEndpoints are the path segments of the APIs that change documents or indices when
// POSTed; PUT, DELETE and PATCH change something wherever they go (but for the cleanup of a
// scroll or a point in time).
var writeEndpoints = map[string]string{
	"_bulk": "bulk", "_doc": "doc", "_create": "create", "_update": "update",
	"_delete_by_query": "delete_by_query", "_update_by_query": "update_by_query",
	"_reindex": "reindex", "_aliases": "aliases", "_rollover": "rollover", "_split": "split",
	"_shrink": "shrink", "_clone": "clone", "_close": "close", "_open": "open",
	"_forcemerge": "forcemerge", "_mapping": "mapping", "_settings": "settings",
}

// Classify says what a request is from its method and escaped path (without the query).
// query is the raw query string, which marks a scroll.
func Classify(method, path, query string) Endpoint {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	if len(segs) == 1 && segs[0] == "" {
		segs = nil
	}
	index := ""
	if len(segs) > 0 && !strings.HasPrefix(segs[0], "_") {
		index = segs[0]
	}
	rest := segs
	if index != "" {
		rest = segs[1:]
	}
	get := method == http.MethodGet || method == http.MethodPost
	switch {
	case len(rest) == 1 && get && readEndpoints[rest[0]] != "":
		e := Endpoint{Kind: Read, Name: readEndpoints[rest[0]], Index: index}
		if e.Name == "search" && hasParam(query, "scroll") {
			e.Unreplayable = "scroll"
		}
		return e
	case len(rest) >= 2 && rest[0] == "_search" && rest[1] == "scroll":
		return Endpoint{Kind: Other, Name: "scroll", Unreplayable: "scroll"}
	case index != "" && len(rest) == 2 && (rest[0] == "_doc" || rest[0] == "_source") &&
		(method == http.MethodGet || method == http.MethodHead):
		name := "get"
		if rest[0] == "_source" {
			name = "source"
		}
		if method == http.MethodHead {
			name = map[string]string{"get": "exists", "source": "source-exists"}[name]
		}
		return Endpoint{Kind: Read, Name: name, Index: index}
	case len(rest) >= 1 && (rest[0] == "_pit" || rest[0] == "_search" && len(rest) > 1):
		// Opening or closing a point in time, templates, scroll: bookkeeping, not data.
		return Endpoint{Kind: Other, Name: strings.TrimPrefix(rest[0], "_"), Index: index}
	}
	switch method {
	case http.MethodPut, http.MethodDelete, http.MethodPatch:
		name := "index"
		if len(rest) > 0 {
			name = strings.TrimPrefix(rest[0], "_")
		}
		if index == "" && len(rest) == 0 {
			name = "root"
		}
		return Endpoint{Kind: Write, Name: name, Index: index}
	case http.MethodPost:
		for _, s := range rest {
			if w := writeEndpoints[s]; w != "" {
				return Endpoint{Kind: Write, Name: w, Index: index}
			}
		}
		if index != "" && len(rest) == 0 {
			return Endpoint{Kind: Write, Name: "index", Index: index}
		}
	}
	name := "other"
	if len(rest) > 0 {
		name = strings.TrimPrefix(rest[0], "_")
	} else if index == "" {
		name = "root"
	}
	return Endpoint{Kind: Other, Name: name, Index: index}
}

func hasParam(query, name string) bool {
	for _, kv := range strings.Split(query, "&") {
		if k, _, _ := strings.Cut(kv, "="); k == name {
			return true
		}
	}
	return false
}

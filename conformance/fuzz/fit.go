package fuzz

import (
	"fmt"
	"strings"
)

// atoms are the parts a request is made of, as far as shrinking keeps them: the kind of
// request, each query leaf with its field (and each range operator), bool and its
// occurrences, each aggregation with its field and options, each sort field with its bare
// form, descending direction, missing and mode, and the top-level options. Shrinking only
// drops parts or simplifies values, so a minimal request's atoms are among its original's,
// but for size 0, which dropping a sorted search's hits adds (sorted counts as size0 here),
// and a filter aggregation, which a filters one of one filter becomes (a filters
// aggregation counts as a filter one too).
func (c *Case) atoms() map[string]bool {
	a := map[string]bool{}
	switch {
	case c.Method == "GET" && strings.Contains(c.Path, "/_doc/"):
		a["get"] = true
	case strings.HasSuffix(c.Path, "/_count"):
		a["count"] = true
	default:
		a["search"] = true
	}
	o, ok := c.Body.(*Object)
	if !ok {
		return a
	}
	if q, ok := o.Get("query"); ok {
		queryAtoms(a, q)
	}
	for _, k := range []string{"aggs", "aggregations"} {
		if v, ok := o.Get(k); ok {
			aggAtoms(a, v)
		}
	}
	if s, ok := o.Get("sort"); ok {
		a["size0"] = true
		keys, _ := s.([]any)
		if keys == nil {
			keys = []any{s}
		}
		for _, k := range keys {
			sortAtoms(a, k)
		}
	}
	if sz, ok := o.Get("size"); ok && fmt.Sprint(sz) == "0" {
		a["size0"] = true
	}
	for _, k := range []string{"search_after", "from"} {
		if _, ok := o.Get(k); ok {
			a[k] = true
		}
	}
	if v, ok := o.Get("track_total_hits"); ok {
		if b, ok := v.(bool); ok {
			a[fmt.Sprintf("tth:%v", b)] = true
		} else {
			a["tth:limit"] = true
		}
	}
	if v, ok := o.Get("_source"); ok {
		switch x := v.(type) {
		case bool:
			a[fmt.Sprintf("source:%v", x)] = true
		case string:
			a["source:field"] = true
		case []any:
			a["source:list"] = true
		case *Object:
			for _, k := range x.Keys {
				a["source:"+k] = true
			}
		}
	}
	return a
}

func shapeString(f func(*shaper, any), v any) string {
	var b shaper
	f(&b, v)
	return b.String()
}

func queryAtoms(a map[string]bool, v any) {
	o, ok := v.(*Object)
	if !ok {
		return
	}
	for i, kind := range o.Keys {
		body, _ := o.Vals[i].(*Object)
		switch kind {
		case "bool":
			a["bool"] = true
			if body == nil {
				continue
			}
			for j, occ := range body.Keys {
				a["bool:"+occ] = true
				cl, ok := body.Vals[j].([]any)
				if !ok {
					cl = []any{body.Vals[j]}
				}
				for _, q := range cl {
					queryAtoms(a, q)
				}
			}
		case "exists":
			a["exists:"+shapeString(shapeOpt, o.Vals[i])] = true
		case "ids", "match_all", "match_none":
			a[kind] = true
		default:
			a[kind] = true
			if body == nil {
				continue
			}
			for j, field := range body.Keys {
				a[kind+":"+field] = true
				if r, ok := body.Vals[j].(*Object); ok && kind == "range" {
					for _, op := range r.Keys {
						a[kind+":"+field+":"+op] = true
					}
				}
			}
		}
	}
}

func aggAtoms(a map[string]bool, v any) {
	o, ok := v.(*Object)
	if !ok {
		return
	}
	for _, av := range o.Vals {
		ao, ok := av.(*Object)
		if !ok {
			continue
		}
		for i, kind := range ao.Keys {
			body, _ := ao.Vals[i].(*Object)
			switch kind {
			case "aggs", "aggregations":
				a["agg:sub"] = true
				aggAtoms(a, ao.Vals[i])
			case "filter":
				a["agg:filter"] = true
				queryAtoms(a, ao.Vals[i])
			case "filters":
				// Shrinking may make a filters aggregation of one filter a filter one.
				a["agg:filters"], a["agg:filter"] = true, true
				if body == nil {
					continue
				}
				for j, k := range body.Keys {
					switch fs := body.Vals[j].(type) {
					case *Object:
						a["agg:filters:keyed"] = true
						for _, q := range fs.Vals {
							queryAtoms(a, q)
						}
					case []any:
						for _, q := range fs {
							queryAtoms(a, q)
						}
					default:
						a["agg:filters:"+k] = true
					}
				}
			default:
				a["agg:"+kind] = true
				if body == nil {
					continue
				}
				field := ""
				if f, ok := body.Get("field"); ok {
					field = fmt.Sprint(f)
					a["agg:"+kind+":"+field] = true
				}
				for _, k := range body.Keys {
					if k != "field" {
						a["agg:"+kind+":"+field+":"+k] = true
					}
				}
			}
		}
	}
}

func sortAtoms(a map[string]bool, v any) {
	switch x := v.(type) {
	case string:
		a["sort:"+x] = true
		a["sort:"+x+":bare"] = true
	case *Object:
		if x.Len() != 1 {
			return
		}
		f := x.Keys[0]
		a["sort:"+f] = true
		switch opts := x.Vals[0].(type) {
		case string:
			a["sort:"+f+":"+opts] = true
		case *Object:
			for i, k := range opts.Keys {
				switch k {
				case "order":
					a["sort:"+f+":"+fmt.Sprint(opts.Vals[i])] = true
				case "missing":
					m := "custom"
					if s, ok := opts.Vals[i].(string); ok && (s == "_first" || s == "_last") {
						m = s
					}
					a["sort:"+f+":missing"] = true
					a["sort:"+f+":missing:"+m] = true
				default:
					a["sort:"+f+":"+k+":"+shapeString(shapeOpt, opts.Vals[i])] = true
				}
			}
		}
	}
}

// fits reports whether a minimal request could have been shrunk from original: its atoms
// are among the original's, an ascending sort key aside (shrinking makes a descending one
// ascending).
func fits(minimal, original map[string]bool) bool {
	for k := range minimal {
		if !original[k] && !strings.HasSuffix(k, ":asc") {
			return false
		}
	}
	return true
}

package fuzz

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Shape is a request with its values left out: disagreements whose minimal requests have the
// same shape are grouped, as one cause. It keeps what says what the request exercises: the
// method and path (a document id left out), every key (query, aggregation and option names,
// field names, range operators), field names wherever they are values (exists, an
// aggregation's field, _source), sort fields in order with their direction, mode and
// _first/_last, booleans and a zero size, from or min_doc_count among the options. It leaves
// out the values a query, cursor or missing setting carries (term, terms, range, prefix and
// ids values, search_after, a custom missing value, minimum_should_match), written as their
// JSON type (<str>, <num>, <bool>, null; a list as the types in it, [] when empty), other
// numbers (<num>: a size, a threshold), and the names a request gives its aggregations
// (<agg>) and keyed filters (<key>). Order is kept: the generator writes keys in one order
// and shrinking only drops them.
//
// So two requests differing only in a search_after value or a term's value share a shape;
// requests on different fields, with another sort direction, size 0 against a page of hits,
// or track_total_hits false against true do not.
func (c *Case) Shape() string {
	var b strings.Builder
	b.WriteString(c.Method)
	b.WriteByte(' ')
	p := c.Path
	if i := strings.Index(p, "/_doc/"); i >= 0 {
		p = p[:i+len("/_doc/")] + "<id>"
	}
	b.WriteString(p)
	if c.Body != nil {
		b.WriteByte(' ')
		shapeBody(&b, c.Body)
	}
	return b.String()
}

// shapeBody writes a search or count body: each top-level key by what it holds.
func shapeBody(b *strings.Builder, v any) {
	o, ok := v.(*Object)
	if !ok {
		shapeOpt(b, v)
		return
	}
	shapeObject(b, o, quoted, func(k string, v any) {
		switch k {
		case "query", "post_filter":
			shapeQuery(b, v)
		case "aggs", "aggregations":
			shapeAggs(b, v)
		case "sort":
			shapeSort(b, v)
		case "search_after":
			shapeValue(b, v)
		default: // size, from, track_total_hits, _source, ...
			shapeOpt(b, v)
		}
	})
}

// shapeObject writes an object, each key renamed by key and each value by val.
func shapeObject(b *strings.Builder, o *Object, key func(string) string, val func(string, any)) {
	b.WriteByte('{')
	for i, k := range o.Keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(key(k))
		b.WriteByte(':')
		val(k, o.Vals[i])
	}
	b.WriteByte('}')
}

func quoted(k string) string { return string(Marshal(k)) }

// shapeOpt writes an option as it is, but for a non-zero number: zero and non-zero sizes,
// froms or min_doc_counts differ in kind, 5 and 7 do not.
func shapeOpt(b *strings.Builder, v any) {
	switch x := v.(type) {
	case json.Number:
		if f, err := x.Float64(); err == nil && f == 0 {
			b.WriteString("0")
		} else {
			b.WriteString("<num>")
		}
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			shapeOpt(b, e)
		}
		b.WriteByte(']')
	case *Object:
		shapeObject(b, x, quoted, func(_ string, v any) { shapeOpt(b, v) })
	default:
		b.Write(Marshal(v))
	}
}

// valueType is a scalar value's placeholder.
func valueType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "<bool>"
	case json.Number:
		return "<num>"
	case string:
		return "<str>"
	}
	return fmt.Sprintf("<%T>", v)
}

// shapeValue writes a value by its type: a list as the distinct types in it, in order, so
// terms of two values and of three share a shape; an object keeps its keys.
func shapeValue(b *strings.Builder, v any) {
	switch x := v.(type) {
	case []any:
		b.WriteByte('[')
		seen := map[string]bool{}
		n := 0
		for _, e := range x {
			var s strings.Builder
			shapeValue(&s, e)
			if seen[s.String()] {
				continue
			}
			seen[s.String()] = true
			if n > 0 {
				b.WriteByte(',')
			}
			b.WriteString(s.String())
			n++
		}
		b.WriteByte(']')
	case *Object:
		shapeObject(b, x, quoted, func(_ string, v any) { shapeValue(b, v) })
	default:
		b.WriteString(valueType(v))
	}
}

// shapeQuery writes a query: its type and field names stay, its values go.
func shapeQuery(b *strings.Builder, v any) {
	o, ok := v.(*Object)
	if !ok {
		shapeValue(b, v)
		return
	}
	shapeObject(b, o, quoted, func(kind string, v any) {
		switch kind {
		case "bool":
			bo, ok := v.(*Object)
			if !ok {
				shapeValue(b, v)
				return
			}
			shapeObject(b, bo, quoted, func(occ string, v any) {
				switch occ {
				case "must", "filter", "should", "must_not":
					if cl, ok := v.([]any); ok {
						b.WriteByte('[')
						for i, q := range cl {
							if i > 0 {
								b.WriteByte(',')
							}
							shapeQuery(b, q)
						}
						b.WriteByte(']')
					} else {
						shapeQuery(b, v)
					}
				default: // minimum_should_match, boost
					shapeValue(b, v)
				}
			})
		case "exists", "match_all", "match_none":
			shapeOpt(b, v) // a field name, or nothing
		default: // term, terms, range, prefix, ids and the rest: {field: values}
			shapeValue(b, v)
		}
	})
}

// shapeAggs writes named aggregations, the names left out.
func shapeAggs(b *strings.Builder, v any) {
	o, ok := v.(*Object)
	if !ok {
		shapeValue(b, v)
		return
	}
	shapeObject(b, o, func(string) string { return "<agg>" }, func(_ string, v any) {
		a, ok := v.(*Object)
		if !ok {
			shapeValue(b, v)
			return
		}
		shapeObject(b, a, quoted, func(kind string, v any) {
			switch kind {
			case "aggs", "aggregations":
				shapeAggs(b, v)
			case "filter":
				shapeQuery(b, v)
			case "filters":
				shapeFilters(b, v)
			case "meta":
				shapeValue(b, v)
			default: // terms and metrics: {field, size, order, min_doc_count, missing}
				p, ok := v.(*Object)
				if !ok {
					shapeValue(b, v)
					return
				}
				shapeObject(b, p, quoted, func(k string, v any) {
					if k == "missing" || k == "include" || k == "exclude" {
						shapeValue(b, v)
					} else {
						shapeOpt(b, v)
					}
				})
			}
		})
	})
}

// shapeFilters writes a filters aggregation's body: keyed filters lose their keys.
func shapeFilters(b *strings.Builder, v any) {
	o, ok := v.(*Object)
	if !ok {
		shapeValue(b, v)
		return
	}
	shapeObject(b, o, quoted, func(k string, v any) {
		switch k {
		case "filters":
			switch fs := v.(type) {
			case *Object:
				shapeObject(b, fs, func(string) string { return "<key>" }, func(_ string, q any) { shapeQuery(b, q) })
			case []any:
				b.WriteByte('[')
				for i, q := range fs {
					if i > 0 {
						b.WriteByte(',')
					}
					shapeQuery(b, q)
				}
				b.WriteByte(']')
			default:
				shapeValue(b, v)
			}
		case "other_bucket_key":
			shapeValue(b, v)
		default:
			shapeOpt(b, v)
		}
	})
}

// shapeSort writes a sort: fields, directions, modes and _first/_last stay; a custom missing
// value goes.
func shapeSort(b *strings.Builder, v any) {
	key := func(v any) {
		o, ok := v.(*Object)
		if !ok {
			shapeOpt(b, v) // a bare field name
			return
		}
		shapeObject(b, o, quoted, func(_ string, v any) {
			opts, ok := v.(*Object)
			if !ok {
				shapeOpt(b, v) // "asc" or "desc"
				return
			}
			shapeObject(b, opts, quoted, func(k string, v any) {
				if s, _ := v.(string); k == "missing" && s != "_first" && s != "_last" {
					shapeValue(b, v)
				} else {
					shapeOpt(b, v)
				}
			})
		})
	}
	arr, ok := v.([]any)
	if !ok {
		key(v)
		return
	}
	b.WriteByte('[')
	for i, e := range arr {
		if i > 0 {
			b.WriteByte(',')
		}
		key(e)
	}
	b.WriteByte(']')
}

// maxNameLen bounds a case name's description; longer ones are cut at a word.
const maxNameLen = 64

// Describe names what a case exercises, from its shape, for a saved case's name: the query's
// leaves with their fields ("range-price-gt", "bool-must_not-exists-color"), the aggregations
// ("terms-agg-brand", "avg-agg-price", "filters-agg-keyed-term-color"), each sort key but a
// final ascending tiebreak ("sort-rating-desc-missing_last", "sort-price-bare"), then
// "after", "from", "size0", "tth_false" and the _source option; "count-" starts a _count and
// "get-doc" is a document read. tiebreak is the unique sort field ("" for none).
func (c *Case) Describe(tiebreak string) string {
	var t []string
	switch {
	case c.Method == "GET" && strings.Contains(c.Path, "/_doc/"):
		t = append(t, "get", "doc")
	case strings.HasSuffix(c.Path, "/_count"):
		t = append(t, "count")
	}
	if o, ok := c.Body.(*Object); ok {
		t = append(t, describeBody(o, tiebreak)...)
	}
	if len(t) == 0 {
		t = append(t, "search")
	}
	var b strings.Builder
	for _, w := range t {
		w = nameWord(w)
		if b.Len() > 0 && b.Len()+1+len(w) > maxNameLen {
			break
		}
		if b.Len() > 0 {
			b.WriteByte('-')
		}
		b.WriteString(w)
	}
	return b.String()
}

// nameWord keeps the characters a case name allows (letters, digits, _ and .).
func nameWord(w string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '.':
			return r
		}
		return '_'
	}, w)
}

func describeBody(o *Object, tiebreak string) []string {
	var t []string
	if q, ok := o.Get("query"); ok {
		t = append(t, describeQuery(q)...)
	}
	for _, k := range []string{"aggs", "aggregations"} {
		if a, ok := o.Get(k); ok {
			t = append(t, describeAggs(a)...)
		}
	}
	if s, ok := o.Get("sort"); ok {
		keys, _ := s.([]any)
		if keys == nil {
			keys = []any{s}
		}
		for _, k := range keys {
			t = append(t, describeSortKey(k, tiebreak)...)
		}
	}
	if _, ok := o.Get("search_after"); ok {
		t = append(t, "after")
	}
	if _, ok := o.Get("from"); ok {
		t = append(t, "from")
	}
	if sz, ok := o.Get("size"); ok && fmt.Sprint(sz) == "0" {
		t = append(t, "size0")
	}
	if v, ok := o.Get("track_total_hits"); ok {
		switch v.(type) {
		case bool:
			t = append(t, fmt.Sprintf("tth_%v", v))
		default:
			t = append(t, "tth_limit")
		}
	}
	if v, ok := o.Get("_source"); ok {
		switch x := v.(type) {
		case bool:
			t = append(t, fmt.Sprintf("source_%v", x))
		case string:
			t = append(t, "source_field")
		case []any:
			t = append(t, "source_list")
		case *Object:
			for _, k := range x.Keys {
				t = append(t, "source_"+k)
			}
		}
	}
	return t
}

func describeQuery(v any) []string {
	o, ok := v.(*Object)
	if !ok {
		return nil
	}
	var t []string
	for i, kind := range o.Keys {
		body, _ := o.Vals[i].(*Object)
		switch kind {
		case "bool":
			t = append(t, "bool")
			if body == nil {
				continue
			}
			for j, occ := range body.Keys {
				if occ == "minimum_should_match" {
					t = append(t, "msm")
					continue
				}
				t = append(t, occ)
				cl, ok := body.Vals[j].([]any)
				if !ok {
					cl = []any{body.Vals[j]}
				}
				for _, q := range cl {
					t = append(t, describeQuery(q)...)
				}
			}
		case "exists":
			t = append(t, kind)
			if body != nil {
				if f, ok := body.Get("field"); ok {
					t = append(t, fmt.Sprint(f))
				}
			}
		case "ids", "match_all", "match_none":
			t = append(t, kind)
		default: // {field: value}; a range also names its operators
			t = append(t, kind)
			if body == nil {
				continue
			}
			for j, field := range body.Keys {
				t = append(t, field)
				if r, ok := body.Vals[j].(*Object); ok && kind == "range" {
					t = append(t, r.Keys...)
				}
			}
		}
	}
	return t
}

func describeAggs(v any) []string {
	o, ok := v.(*Object)
	if !ok {
		return nil
	}
	var t []string
	for _, a := range o.Vals {
		ao, ok := a.(*Object)
		if !ok {
			continue
		}
		for i, kind := range ao.Keys {
			body, _ := ao.Vals[i].(*Object)
			switch kind {
			case "aggs", "aggregations":
				t = append(t, "sub")
				t = append(t, describeAggs(ao.Vals[i])...)
			case "filter":
				t = append(t, "filter", "agg")
				t = append(t, describeQuery(ao.Vals[i])...)
			case "filters":
				t = append(t, "filters", "agg")
				if body == nil {
					continue
				}
				fs, _ := body.Get("filters")
				switch x := fs.(type) {
				case *Object:
					t = append(t, "keyed")
					for _, q := range x.Vals {
						t = append(t, describeQuery(q)...)
					}
				case []any:
					for _, q := range x {
						t = append(t, describeQuery(q)...)
					}
				}
				for _, k := range body.Keys {
					if k != "filters" {
						t = append(t, k)
					}
				}
			default: // terms and metrics
				t = append(t, kind, "agg")
				if body == nil {
					continue
				}
				if f, ok := body.Get("field"); ok {
					t = append(t, fmt.Sprint(f))
				}
				if ord, ok := body.Get("order"); ok {
					if oo, ok := ord.(*Object); ok && oo.Len() == 1 {
						t = append(t, "order"+oo.Keys[0]+"_"+fmt.Sprint(oo.Vals[0]))
					}
				}
				for _, k := range []string{"min_doc_count", "missing"} {
					if _, ok := body.Get(k); ok {
						t = append(t, k)
					}
				}
			}
		}
	}
	return t
}

func describeSortKey(v any, tiebreak string) []string {
	switch x := v.(type) {
	case string:
		return []string{"sort", x, "bare"}
	case *Object:
		if x.Len() != 1 {
			return nil
		}
		field := x.Keys[0]
		t := []string{"sort", field}
		switch opts := x.Vals[0].(type) {
		case string:
			if opts == "asc" && field == tiebreak {
				return nil
			}
			if opts != "asc" {
				t = append(t, opts)
			}
		case *Object:
			if ord, ok := opts.Get("order"); ok && ord != "asc" {
				t = append(t, fmt.Sprint(ord))
			}
			if m, ok := opts.Get("missing"); ok {
				switch m {
				case "_first", "_last":
					t = append(t, "missing"+m.(string))
				default:
					t = append(t, "missing")
				}
			}
			if m, ok := opts.Get("mode"); ok {
				t = append(t, "mode_"+fmt.Sprint(m))
			}
			if len(t) == 2 && field == tiebreak {
				return nil
			}
		}
		return t
	}
	return nil
}

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

func shapeString(f func(*strings.Builder, any), v any) string {
	var b strings.Builder
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

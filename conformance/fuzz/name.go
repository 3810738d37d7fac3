package fuzz

import (
	"fmt"
	"strings"
)

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

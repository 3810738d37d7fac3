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
	var b shaper
	c.writeShape(&b)
	return b.String()
}

// FieldShape is Shape with every field name written as <field>, but keep (the unique
// tiebreak) as a sort key, and the names it stands for, in order: requests that differ only
// by the fields they name (an exists query inverted on five fields) share a field shape.
func (c *Case) FieldShape(keep string) (string, []string) {
	b := shaper{abstract: true, keep: keep}
	c.writeShape(&b)
	return b.String(), b.fields
}

// shaper writes a shape; with abstract, field names become <field> and are collected.
type shaper struct {
	strings.Builder
	abstract bool
	keep     string
	fields   []string
}

// fieldName writes a field name where it is a key or a value.
func (b *shaper) fieldName(name string) string {
	if !b.abstract {
		return quoted(name)
	}
	b.fields = append(b.fields, name)
	return "<field>"
}

// sortField writes a sort key's field name: the tiebreak every sort ends in stays itself.
func (b *shaper) sortField(name string) string {
	if name == b.keep {
		return quoted(name)
	}
	return b.fieldName(name)
}

// fieldValue writes a value that names a field (exists, an aggregation's field, a bare sort
// key, _source), or the value's shape when it is not a string.
func (b *shaper) fieldValue(v any) {
	switch x := v.(type) {
	case string:
		b.WriteString(b.fieldName(x))
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			b.fieldValue(e)
		}
		b.WriteByte(']')
	default:
		shapeOpt(b, v)
	}
}

func (c *Case) writeShape(b *shaper) {
	b.WriteString(c.Method)
	b.WriteByte(' ')
	p := c.Path
	if i := strings.Index(p, "/_doc/"); i >= 0 {
		p = p[:i+len("/_doc/")] + "<id>"
	}
	b.WriteString(p)
	if c.Body != nil {
		b.WriteByte(' ')
		shapeBody(b, c.Body)
	}
}

// shapeBody writes a search or count body: each top-level key by what it holds.
func shapeBody(b *shaper, v any) {
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
		case "_source":
			shapeSource(b, v)
		default: // size, from, track_total_hits, ...
			shapeOpt(b, v)
		}
	})
}

// shapeObject writes an object, each key renamed by key and each value by val.
func shapeObject(b *shaper, o *Object, key func(string) string, val func(string, any)) {
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
func shapeOpt(b *shaper, v any) {
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
func shapeValue(b *shaper, v any) {
	switch x := v.(type) {
	case []any:
		b.WriteByte('[')
		seen := map[string]bool{}
		n := 0
		for _, e := range x {
			s := shaper{abstract: b.abstract, keep: b.keep}
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
func shapeQuery(b *shaper, v any) {
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
		case "exists":
			if eo, ok := v.(*Object); ok {
				shapeObject(b, eo, quoted, func(k string, v any) {
					if k == "field" {
						b.fieldValue(v)
					} else {
						shapeOpt(b, v)
					}
				})
			} else {
				shapeOpt(b, v)
			}
		case "match_all", "match_none":
			shapeOpt(b, v) // nothing, or a boost
		case "ids":
			shapeValue(b, v)
		default: // term, terms, range, prefix and the rest: {field: values}
			if fo, ok := v.(*Object); ok {
				shapeObject(b, fo, b.fieldName, func(_ string, v any) { shapeValue(b, v) })
			} else {
				shapeValue(b, v)
			}
		}
	})
}

// shapeAggs writes named aggregations, the names left out.
func shapeAggs(b *shaper, v any) {
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
					switch k {
					case "field":
						b.fieldValue(v)
					case "missing", "include", "exclude":
						shapeValue(b, v)
					default:
						shapeOpt(b, v)
					}
				})
			}
		})
	})
}

// shapeFilters writes a filters aggregation's body: keyed filters lose their keys.
func shapeFilters(b *shaper, v any) {
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
func shapeSort(b *shaper, v any) {
	key := func(v any) {
		o, ok := v.(*Object)
		if !ok {
			if f, ok := v.(string); ok {
				b.WriteString(b.sortField(f)) // a bare field name
			} else {
				shapeOpt(b, v)
			}
			return
		}
		shapeObject(b, o, b.sortField, func(_ string, v any) {
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

// shapeSource writes a _source option: its field names and patterns stay, as fields.
func shapeSource(b *shaper, v any) {
	o, ok := v.(*Object)
	if !ok {
		b.fieldValue(v)
		return
	}
	shapeObject(b, o, quoted, func(_ string, v any) { b.fieldValue(v) })
}

package engine

import (
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// GET /{index}/_mapping, rendered as Elasticsearch 8.15.0 renders a mapping: it serialises
// its mappers, not the body it was given. Properties (and multi-fields) are sorted by name;
// each field writes "type" first, then the parameters its mapper declares, in the mapper's
// declaration order (FieldMapper.Builder.getParameters), each only when it differs from its
// default, or, for the Explicit ones (coerce, ignore_malformed), when it was given at all;
// values are written as the mapper holds them (ignore_above "256" as 256, a keyword's
// null_value 5 as "5", a float's as a Java float, a half_float's rounded to half precision).
// The orders below were read off real 8.15.0 with PUT-created mappings
// (testdata/mapping/es-put-*.json); scaled_float, absent from 8.15's integ-test zip, follows
// modules/mapper-extras/src/main/java/org/elasticsearch/index/mapper/extras/ScaledFloatFieldMapper.java:
// getParameters() is List.of(indexed, hasDocValues, stored, ignoreMalformed, meta,
// scalingFactor, coerce, nullValue, metric), scaling_factor is a Parameter<Double> with no
// default (so always written, 100 as 100.0) and null_value a Parameter<Double>.
//
// A parameter the renderer does not know the place or form of (meta, copy_to, locale, ...)
// and any type outside the subset make the answer the subset's unsupported error rather than
// a guess.

// fieldParamOrder is each type's parameters in its mapper's order. "fields" marks where the
// multi-fields go: after every parameter for most mappers (FieldMapper.doXContentBody), before
// norms and the analyzers for text.
var fieldParamOrder = map[ftype][]string{
	tKeyword:     {"index", "doc_values", "store", "null_value", "eager_global_ordinals", "ignore_above", "fields"},
	tText:        {"index", "store", "fields", "norms", "analyzer", "search_analyzer"},
	tLong:        numberParams,
	tInteger:     numberParams,
	tShort:       numberParams,
	tByte:        numberParams,
	tDouble:      numberParams,
	tFloat:       numberParams,
	tHalfFloat:   numberParams,
	tScaledFloat: {"index", "doc_values", "store", "ignore_malformed", "scaling_factor", "coerce", "null_value", "fields"},
	tDate:        dateParams,
	tDateNanos:   dateParams,
	tBoolean:     {"doc_values", "index", "null_value", "store", "fields"},
}

var (
	numberParams = []string{"index", "doc_values", "store", "ignore_malformed", "coerce", "null_value", "fields"}
	dateParams   = []string{"index", "doc_values", "store", "format", "null_value", "ignore_malformed", "fields"}
)

// handleGetMapping answers GET /{index}/_mapping for one concrete index.
func (e *Engine) handleGetMapping(method, path, expr string, params url.Values) (int, []byte) {
	if method != "GET" {
		return errResp(errUnsupportedf("the endpoint [%s %s]", method, path))
	}
	if err := checkParams(path, params, "master_timeout", "local", "ignore_unavailable", "allow_no_indices", "expand_wildcards"); err != nil {
		return errResp(err)
	}
	for _, p := range []string{"local", "ignore_unavailable", "allow_no_indices", "expand_wildcards"} {
		if params.Has(p) {
			return errResp(errUnsupportedf("the URL parameter [%s]", p))
		}
	}
	if expr == "" || expr == "_all" || strings.ContainsAny(expr, "*,") || strings.HasPrefix(expr, "-") {
		return errResp(errUnsupportedf("GET _mapping of more than one index ([%s])", path))
	}
	e.mu.RLock()
	ix := e.indices[expr]
	e.mu.RUnlock()
	if ix == nil {
		return errResp(errIndexNotFound(expr))
	}
	ix.mu.RLock()
	body, err := renderMapping(ix.m)
	ix.mu.RUnlock()
	if err != nil {
		return errResp(err)
	}
	b := append([]byte(`{`), appendJSONString(nil, ix.name)...)
	b = append(b, `:{"mappings":`...)
	b = append(b, body...)
	return 200, append(b, "}}"...)
}

// mnode is one node of the mapping tree: a field (nil for an object a dotted name implies)
// and its properties.
type mnode struct {
	f    *field
	kids map[string]*mnode
}

func (n *mnode) child(name string) *mnode {
	if n.kids == nil {
		n.kids = map[string]*mnode{}
	}
	c := n.kids[name]
	if c == nil {
		c = &mnode{}
		n.kids[name] = c
	}
	return c
}

func renderMapping(m *mapping) ([]byte, *esError) {
	root := &mnode{}
	for _, f := range m.order {
		if f.parent != nil {
			continue
		}
		n := root
		for _, seg := range strings.Split(f.name, ".") {
			n = n.child(seg)
		}
		n.f = f
	}
	w := &objWriter{b: []byte{'{'}}
	if m.given.dynamic {
		w.key("dynamic")
		w.b = appendJSONString(w.b, m.dynamic)
	}
	if m.given.meta != "" {
		return nil, errUnsupportedf("rendering the mapping's [%s] in GET _mapping", m.given.meta)
	}
	if m.given.dynamicDates.Exists() {
		w.key("dynamic_date_formats")
		w.b = append(w.b, '[')
		for i, s := range m.given.dynamicDates.Array() {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			w.b = appendJSONString(w.b, s.String())
		}
		w.b = append(w.b, ']')
	}
	if m.given.dateDetection {
		w.key("date_detection")
		w.b = strconv.AppendBool(w.b, m.dateDetection)
	}
	if m.given.numericDetection {
		w.key("numeric_detection")
		w.b = strconv.AppendBool(w.b, m.numericDetect)
	}
	if m.hasTemplates {
		return nil, errUnsupportedf("rendering dynamic_templates in GET _mapping")
	}
	if err := w.properties(root); err != nil {
		return nil, err
	}
	return append(w.b, '}'), nil
}

// objWriter writes the members of one JSON object.
type objWriter struct {
	b []byte
	n int
}

func (w *objWriter) key(k string) {
	if w.n > 0 {
		w.b = append(w.b, ',')
	}
	w.n++
	w.b = appendJSONString(w.b, k)
	w.b = append(w.b, ':')
}

func (w *objWriter) properties(n *mnode) *esError {
	if len(n.kids) == 0 {
		return nil
	}
	w.key("properties")
	return w.members(n.kids, func(c *mnode) *esError { return w.node(c) })
}

func (w *objWriter) members(kids map[string]*mnode, each func(*mnode) *esError) *esError {
	names := make([]string, 0, len(kids))
	for k := range kids {
		names = append(names, k)
	}
	sort.Strings(names)
	w.b = append(w.b, '{')
	for i, k := range names {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.b = appendJSONString(w.b, k)
		w.b = append(w.b, ':')
		if err := each(kids[k]); err != nil {
			return err
		}
	}
	w.b = append(w.b, '}')
	return nil
}

func (w *objWriter) node(n *mnode) *esError {
	sub := &objWriter{b: w.b}
	sub.b = append(sub.b, '{')
	var err *esError
	if n.f == nil || n.f.typ == tObject {
		err = sub.object(n)
	} else {
		err = sub.leaf(n.f)
	}
	w.b = append(sub.b, '}')
	return err
}

// object writes an object mapper as ObjectMapper.toXContent does: "type":"object" only when
// it has no properties, then dynamic when set, then the properties.
func (w *objWriter) object(n *mnode) *esError {
	if len(n.kids) == 0 {
		w.key("type")
		w.b = append(w.b, `"object"`...)
	}
	if n.f != nil {
		for _, p := range n.f.given {
			// enabled is only ever true here (false is refused at PUT): the default, not written.
			if p.key != "dynamic" && p.key != "type" && p.key != "properties" && p.key != "enabled" {
				return errUnsupportedf("rendering the parameter [%s] of object [%s] in GET _mapping", p.key, n.f.name)
			}
		}
		if n.f.dynamic != "" {
			w.key("dynamic")
			w.b = appendJSONString(w.b, n.f.dynamic)
		}
	}
	return w.properties(n)
}

func (w *objWriter) leaf(f *field) *esError {
	order, ok := fieldParamOrder[f.typ]
	if !ok {
		return errUnsupportedf("rendering a field of type [%s] ([%s]) in GET _mapping", f.typeName, f.name)
	}
	given := map[string]gjson.Result{}
	for _, p := range f.given {
		if p.key == "type" {
			continue
		}
		if !contains(order, p.key) {
			return errUnsupportedf("rendering the parameter [%s] of field [%s] in GET _mapping", p.key, f.name)
		}
		given[p.key] = p.val
	}
	w.key("type")
	w.b = appendJSONString(w.b, f.typeName)
	for _, k := range order {
		if k == "fields" {
			if len(f.subfields) == 0 {
				continue
			}
			kids := map[string]*mnode{}
			for _, s := range f.subfields {
				kids[s.name[len(f.name)+1:]] = &mnode{f: s}
			}
			w.key("fields")
			if err := w.members(kids, func(c *mnode) *esError { return w.node(c) }); err != nil {
				return err
			}
			continue
		}
		v, ok := given[k]
		if !ok {
			continue
		}
		if err := w.param(f, k, v); err != nil {
			return err
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// param writes one given parameter as the mapper holds it, or nothing when it is the
// default (the Explicit parameters coerce and ignore_malformed are written whenever given).
func (w *objWriter) param(f *field, k string, v gjson.Result) *esError {
	switch k {
	case "index", "doc_values", "store", "norms", "eager_global_ordinals":
		def := map[string]bool{"index": true, "doc_values": true, "store": false, "norms": true, "eager_global_ordinals": false}[k]
		if v.Bool() != def {
			w.key(k)
			w.b = strconv.AppendBool(w.b, v.Bool())
		}
	case "coerce", "ignore_malformed":
		w.key(k)
		w.b = strconv.AppendBool(w.b, v.Bool())
	case "ignore_above":
		if n := v.Int(); n != 2147483647 {
			w.key(k)
			w.b = appendInt(w.b, n)
		}
	case "scaling_factor":
		w.key(k)
		w.b = append(w.b, javaDouble(v.Float())...)
	case "format":
		if s := v.String(); s != defaultDateFormat {
			w.key(k)
			w.b = appendJSONString(w.b, s)
		}
	case "analyzer":
		// TextFieldMapper writes the index analyzer when it was set, as "default" when only
		// the search analyzer was; a search_analyzer equal to it is not written.
		w.key(k)
		w.b = appendJSONString(w.b, v.String())
	case "search_analyzer":
		an := "default"
		for _, p := range f.given {
			if p.key == "analyzer" {
				an = p.val.String()
			}
		}
		if v.String() != an {
			if an == "default" && !hasGiven(f, "analyzer") {
				w.key("analyzer")
				w.b = append(w.b, `"default"`...)
			}
			w.key(k)
			w.b = appendJSONString(w.b, v.String())
		}
	case "null_value":
		if v.Type == gjson.Null {
			return nil
		}
		w.key(k)
		switch {
		case f.typ == tKeyword, f.typ == tDate, f.typ == tDateNanos:
			w.b = appendJSONString(w.b, v.String())
		case f.typ == tBoolean:
			w.b = strconv.AppendBool(w.b, v.Bool())
		case f.typ.isIntegerFamily():
			n, err := strconv.ParseInt(v.String(), 10, 64)
			if err != nil {
				return errUnsupportedf("rendering the null_value [%s] of field [%s] in GET _mapping", v.Raw, f.name)
			}
			w.b = appendInt(w.b, n)
		case f.typ == tFloat:
			w.b = append(w.b, javaFloat(float32(v.Float()))...)
		case f.typ == tHalfFloat:
			w.b = append(w.b, javaFloat(toHalf(float32(v.Float())))...)
		default:
			w.b = append(w.b, javaDouble(v.Float())...)
		}
	}
	return nil
}

func hasGiven(f *field, k string) bool {
	for _, p := range f.given {
		if p.key == k {
			return true
		}
	}
	return false
}

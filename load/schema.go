package load

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/qdrant/go-client/qdrant"

	"github.com/conform-dev/conform/fixtures"
)

// Reserved payload keys. load/QDRANT.md documents them; a gateway reads them.
const (
	// PayloadID holds the document's Elasticsearch _id (keyword-indexed).
	PayloadID = "_es_id"
	// PayloadSource holds the document's _source exactly as in the corpus (not indexed), so a
	// gateway can return it byte for byte: gRPC loses key order and number spelling.
	PayloadSource = "_source_raw"
	// PayloadEpochMillis is an object mirroring the date fields, each as epoch milliseconds
	// (integer-indexed), for facets, histograms and exact millisecond ranges.
	PayloadEpochMillis = "_epoch_ms"
)

// fieldKind is how a mapped field's values are converted.
type fieldKind int

const (
	kindOther   fieldKind = iota // kept as JSON (numbers by their literal), no index
	kindObject                   // an object or nested field with sub-properties
	kindKeyword                  // string
	kindInteger                  // int64 within the type's range
	kindFloat                    // float64 holding the value Elasticsearch indexes
	kindDate                     // RFC 3339 string, plus an epoch-millis shadow
	kindBool                     // bool
)

// field is one property of the mapping.
type field struct {
	path   string // Elasticsearch's dotted name, e.g. "dims.width"
	key    string // the Qdrant payload key, e.g. "dims.width" or "parts[].sku" under nested
	esType string
	kind   fieldKind

	intMin, intMax int64                 // integer types
	round          func(float64) float64 // floating types: the value Elasticsearch indexes
	ignoreAbove    int                   // keyword: longer values are kept in _source only
	dateFormats    []string              // date
	children       map[string]*field     // object and nested
	nested         bool
}

// PayloadIndex is one payload index the loader creates before uploading.
type PayloadIndex struct {
	Key    string                     `json:"key"`     // payload key, e.g. "price" or "_epoch_ms.released"
	Field  string                     `json:"field"`   // the Elasticsearch field it serves
	ESType string                     `json:"es_type"` // that field's mapping type ("_id" for PayloadID)
	Type   qdrant.FieldType           `json:"-"`
	Params *qdrant.PayloadIndexParams `json:"-"`
}

// TypeName is the Qdrant name of the index type (keyword, integer, float, datetime, bool).
func (p PayloadIndex) TypeName() string {
	return strings.TrimPrefix(strings.ToLower(p.Type.String()), "fieldtype")
}

// QdrantSchema turns an Elasticsearch mapping into Qdrant payloads and payload indexes. It is
// the payload contract documented in load/QDRANT.md.
type QdrantSchema struct {
	root    map[string]*field
	indexes []PayloadIndex
	// Warnings name mapped fields the loader stores but does not index or convert.
	Warnings []string
}

// integer bounds of Elasticsearch's integer types.
var integerTypes = map[string][2]int64{
	"long":    {math.MinInt64, math.MaxInt64},
	"integer": {math.MinInt32, math.MaxInt32},
	"short":   {math.MinInt16, math.MaxInt16},
	"byte":    {math.MinInt8, math.MaxInt8},
}

func isIntegerType(t string) bool {
	_, ok := integerTypes[t]
	return ok
}

// NewQdrantSchema reads an index-creation body (fixtures.Fixtures.Mapping).
func NewQdrantSchema(mapping []byte) (*QdrantSchema, error) {
	var body struct {
		Mappings struct {
			Properties map[string]json.RawMessage `json:"properties"`
		} `json:"mappings"`
	}
	if err := json.Unmarshal(mapping, &body); err != nil {
		return nil, fmt.Errorf("mapping: %w", err)
	}
	if body.Mappings.Properties == nil {
		return nil, fmt.Errorf("mapping: mappings.properties is missing")
	}
	for _, reserved := range []string{PayloadID, PayloadSource, PayloadEpochMillis} {
		if _, ok := body.Mappings.Properties[reserved]; ok {
			return nil, fmt.Errorf("mapping: field %q collides with a payload key the Qdrant loader reserves", reserved)
		}
	}
	s := &QdrantSchema{}
	var err error
	if s.root, err = s.parseProperties("", "", body.Mappings.Properties); err != nil {
		return nil, err
	}
	s.indexes = append([]PayloadIndex{{
		Key: PayloadID, Field: "_id", ESType: "_id",
		Type: qdrant.FieldType_FieldTypeKeyword,
	}}, s.indexes...)
	return s, nil
}

// parseProperties reads one level of properties; indexes are appended in sorted path order.
// The keys of an object's fields go through "[]": the payload holds every object of an
// object or nested field in an array (field.normalize), because Qdrant's key a.b does not
// look into an array at a and a[].b looks only into one (load/QDRANT.md, Q4).
func (s *QdrantSchema) parseProperties(pathPrefix, keyPrefix string, props map[string]json.RawMessage) (map[string]*field, error) {
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make(map[string]*field, len(props))
	for _, name := range names {
		var def struct {
			Type          string                     `json:"type"`
			Properties    map[string]json.RawMessage `json:"properties"`
			ScalingFactor *float64                   `json:"scaling_factor"`
			Format        string                     `json:"format"`
			IgnoreAbove   *int                       `json:"ignore_above"`
		}
		path := pathPrefix + name
		if err := json.Unmarshal(props[name], &def); err != nil {
			return nil, fmt.Errorf("mapping: field %s: %w", path, err)
		}
		key := name
		if keyPrefix != "" {
			key = keyPrefix + "[]." + name
		}
		f := &field{path: path, key: key, esType: def.Type}
		switch {
		case def.Properties != nil:
			if def.Type != "" && def.Type != "object" && def.Type != "nested" {
				return nil, fmt.Errorf("mapping: field %s: type %q cannot have properties", path, def.Type)
			}
			f.kind, f.nested = kindObject, def.Type == "nested"
			var err error
			if f.children, err = s.parseProperties(path+".", key, def.Properties); err != nil {
				return nil, err
			}
		case def.Type == "keyword":
			f.kind = kindKeyword
			if def.IgnoreAbove != nil {
				f.ignoreAbove = *def.IgnoreAbove
			}
			s.addIndex(f, qdrant.FieldType_FieldTypeKeyword, nil)
		case isIntegerType(def.Type):
			f.kind = kindInteger
			f.intMin, f.intMax = integerTypes[def.Type][0], integerTypes[def.Type][1]
			s.addIndex(f, qdrant.FieldType_FieldTypeInteger, integerIndexParams())
		case def.Type == "double" || def.Type == "float" || def.Type == "half_float" || def.Type == "scaled_float":
			f.kind = kindFloat
			switch def.Type {
			case "double":
				f.round = func(v float64) float64 { return v }
			case "float":
				f.round = roundFloat32
			case "half_float":
				f.round = roundHalfFloat
			case "scaled_float":
				if def.ScalingFactor == nil || *def.ScalingFactor <= 0 || math.IsInf(*def.ScalingFactor, 0) {
					return nil, fmt.Errorf("mapping: field %s: scaled_float needs a positive scaling_factor", path)
				}
				factor := *def.ScalingFactor
				f.round = func(v float64) float64 { return roundScaled(v, factor) }
			}
			s.addIndex(f, qdrant.FieldType_FieldTypeFloat, nil)
		case def.Type == "date":
			f.kind = kindDate
			formats, err := dateFormats(def.Format)
			if err != nil {
				return nil, fmt.Errorf("mapping: field %s: %w", path, err)
			}
			f.dateFormats = formats
			s.addIndex(f, qdrant.FieldType_FieldTypeDatetime, nil)
			s.indexes = append(s.indexes, PayloadIndex{
				Key: PayloadEpochMillis + "." + path, Field: path, ESType: def.Type,
				Type: qdrant.FieldType_FieldTypeInteger, Params: integerIndexParams(),
			})
		case def.Type == "boolean":
			f.kind = kindBool
			s.addIndex(f, qdrant.FieldType_FieldTypeBool, nil)
		default:
			f.kind = kindOther
			s.Warnings = append(s.Warnings, fmt.Sprintf("field %s: type %q is stored as JSON, without a payload index", path, def.Type))
		}
		out[name] = f
	}
	return out, nil
}

func (s *QdrantSchema) addIndex(f *field, t qdrant.FieldType, params *qdrant.PayloadIndexParams) {
	s.indexes = append(s.indexes, PayloadIndex{Key: f.key, Field: f.path, ESType: f.esType, Type: t, Params: params})
}

// integerIndexParams asks for both index structures: lookup serves match and facet, range
// serves range filters and order_by (load/QDRANT.md, Q2 and Q3).
func integerIndexParams() *qdrant.PayloadIndexParams {
	return qdrant.NewPayloadIndexParamsInt(&qdrant.IntegerIndexParams{Lookup: qdrant.PtrOf(true), Range: qdrant.PtrOf(true)})
}

// Indexes returns the payload indexes to create: PayloadID first, then the mapped fields in
// path order, each date followed by its epoch-millis shadow.
func (s *QdrantSchema) Indexes() []PayloadIndex {
	return append([]PayloadIndex(nil), s.indexes...)
}

// DocError is a document the loader cannot convert.
type DocError struct {
	ID    string
	Field string // dotted path; empty for the whole document
	Msg   string
}

func (e *DocError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("document %q: %s", e.ID, e.Msg)
	}
	return fmt.Sprintf("document %q: field %s: %s", e.ID, e.Field, e.Msg)
}

// Normalize decodes a document's source (numbers kept as literals) and converts each mapped
// field to its payload form. The result holds only nil, bool, int64, float64, string, []any
// and map[string]any, plus the reserved keys.
func (s *QdrantSchema) Normalize(d fixtures.Doc) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(d.Source))
	dec.UseNumber()
	var src map[string]any
	if err := dec.Decode(&src); err != nil {
		return nil, &DocError{ID: d.ID, Msg: "source is not a JSON object: " + err.Error()}
	}
	if src == nil {
		return nil, &DocError{ID: d.ID, Msg: "source is null, not an object"}
	}
	for _, reserved := range []string{PayloadID, PayloadSource, PayloadEpochMillis} {
		if _, ok := src[reserved]; ok {
			return nil, &DocError{ID: d.ID, Field: reserved, Msg: "collides with a payload key the Qdrant loader reserves"}
		}
	}
	sh := shadows{}
	out, err := normalizeObject(s.root, src, "", &sh)
	if err != nil {
		err.ID = d.ID
		return nil, err
	}
	out[PayloadID] = d.ID
	out[PayloadSource] = string(d.Source)
	if len(sh) > 0 {
		out[PayloadEpochMillis] = sh.tree()
	}
	return out, nil
}

// Payload is Normalize converted to go-client values.
func (s *QdrantSchema) Payload(d fixtures.Doc) (map[string]*qdrant.Value, error) {
	m, err := s.Normalize(d)
	if err != nil {
		return nil, err
	}
	p, err := qdrant.TryValueMap(m)
	if err != nil {
		return nil, &DocError{ID: d.ID, Msg: err.Error()}
	}
	return p, nil
}

func normalizeObject(fields map[string]*field, src map[string]any, pathPrefix string, sh *shadows) (map[string]any, *DocError) {
	out := make(map[string]any, len(src)+3)
	for k, v := range src {
		f := fields[k]
		var (
			nv  any
			err *DocError
		)
		if f == nil {
			nv, err = generic(v, pathPrefix+k)
		} else {
			nv, err = f.normalize(v, sh, false)
		}
		if err != nil {
			return nil, err
		}
		out[k] = nv
	}
	return out, nil
}

// normalize converts one value of f. Arrays stay arrays and nulls stay null, at any depth.
func (f *field) normalize(v any, sh *shadows, inArray bool) (any, *DocError) {
	bad := func(format string, args ...any) *DocError {
		return &DocError{Field: f.path, Msg: fmt.Sprintf(format, args...)}
	}
	switch x := v.(type) {
	case nil:
		return nil, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			var err *DocError
			if out[i], err = f.normalize(e, sh, true); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	switch f.kind {
	case kindObject:
		m, ok := v.(map[string]any)
		if !ok {
			return nil, bad("is %s, want an object", jsonKind(v))
		}
		obj, err := normalizeObject(f.children, m, f.path+".", sh)
		if err != nil || inArray {
			return obj, err
		}
		// A lone object is stored as an array of one, so that one key, a[].b, reaches its
		// fields as it reaches those of an array of objects (parseProperties).
		return []any{obj}, nil
	case kindKeyword:
		var s string
		switch x := v.(type) {
		case string:
			s = x
		case json.Number:
			// Elasticsearch indexes a number in a keyword field as its text: 1.50 is the
			// term "1.50" (seen on Elasticsearch 8.15.0, a terms aggregation's key).
			s = x.String()
		case bool:
			s = fmt.Sprint(x)
		default:
			return nil, bad("is %s, want a string", jsonKind(v))
		}
		if f.ignoreAbove > 0 && utf16Len(s) > f.ignoreAbove {
			// Elasticsearch keeps the value in _source but does not index it; the payload
			// holds what can be searched.
			return nil, nil
		}
		return s, nil
	case kindInteger:
		n, err := coerceInteger(v, f.intMin, f.intMax)
		if err != nil {
			return nil, bad("%v", err)
		}
		return n, nil
	case kindFloat:
		x, err := coerceFloat(v)
		if err != nil {
			return nil, bad("%v", err)
		}
		r := f.round(x)
		if math.IsInf(r, 0) || math.IsNaN(r) {
			return nil, bad("%v is out of range for %s", x, f.esType)
		}
		return r, nil
	case kindDate:
		ms, err := parseDate(v, f.dateFormats)
		if err != nil {
			return nil, bad("%v", err)
		}
		s, err := formatDate(ms)
		if err != nil {
			return nil, bad("%v", err)
		}
		sh.add(f.path, ms, inArray)
		return s, nil
	case kindBool:
		switch x := v.(type) {
		case bool:
			return x, nil
		case string:
			// Elasticsearch accepts the strings "true", "false" and "" (false).
			switch x {
			case "true":
				return true, nil
			case "false", "":
				return false, nil
			}
			return nil, bad("%q is not a boolean", x)
		}
		return nil, bad("is %s, want a boolean", jsonKind(v))
	}
	return generic(v, f.path)
}

// generic converts an unmapped or unconverted value: integer literals that fit become int64,
// other numbers float64 (as Qdrant's own JSON conversion would).
func generic(v any, path string) (any, *DocError) {
	switch x := v.(type) {
	case json.Number:
		if isIntegerLiteral(x.String()) {
			if n, err := x.Int64(); err == nil {
				return n, nil
			}
		}
		f, err := x.Float64()
		if err != nil || math.IsInf(f, 0) {
			return nil, &DocError{Field: path, Msg: fmt.Sprintf("number %s is out of range", x)}
		}
		return f, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			var err *DocError
			if out[i], err = generic(e, path); err != nil {
				return nil, err
			}
		}
		return out, nil
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			var err *DocError
			if out[k], err = generic(e, path+"."+k); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	return v, nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// shadows collects the epoch-millis values of date fields by dotted path.
type shadows map[string]*shadow

type shadow struct {
	values []int64
	multi  bool // the field was an array, or under one: the shadow is a list
}

func (s shadows) add(path string, ms int64, inArray bool) {
	sh := s[path]
	if sh == nil {
		sh = &shadow{}
		s[path] = sh
	}
	sh.values = append(sh.values, ms)
	sh.multi = sh.multi || inArray || len(sh.values) > 1
}

// tree builds the PayloadEpochMillis object: {"released": 1577836800000, "dims": {"at": [..]}}.
func (s shadows) tree() map[string]any {
	root := map[string]any{}
	for path, sh := range s {
		parts := strings.Split(path, ".")
		m := root
		for _, p := range parts[:len(parts)-1] {
			next, ok := m[p].(map[string]any)
			if !ok {
				next = map[string]any{}
				m[p] = next
			}
			m = next
		}
		var v any = sh.values[0]
		if sh.multi {
			list := make([]any, len(sh.values))
			for i, x := range sh.values {
				list[i] = x
			}
			v = list
		}
		m[parts[len(parts)-1]] = v
	}
	return root
}

// valuesAt returns the values a payload holds at an index key, the way Qdrant's is_empty sees
// them: a missing key or null gives none, an array at the end gives its elements (nulls
// included). On the way, "a.b" looks into an object at a and not into an array, "a[].b" into
// each element of an array at a and not into an object (seen on Qdrant 1.17.0,
// load/QDRANT.md Q4).
func valuesAt(payload map[string]any, key string) []any {
	cur := []any{payload}
	for _, seg := range strings.Split(key, ".") {
		name, each := strings.CutSuffix(seg, "[]")
		var next []any
		for _, v := range cur {
			m, ok := v.(map[string]any)
			if !ok {
				continue
			}
			c, ok := m[name]
			switch {
			case !ok:
			case !each:
				next = append(next, c)
			default:
				if l, ok := c.([]any); ok {
					next = append(next, l...)
				}
			}
		}
		cur = next
	}
	var out []any
	for _, v := range cur {
		switch x := v.(type) {
		case nil:
		case []any:
			out = append(out, x...)
		default:
			out = append(out, x)
		}
	}
	return out
}

// fieldCounts says how many documents an index key should cover.
type fieldCounts struct {
	// Present counts documents where is_empty is false: the key holds a non-null value or a
	// non-empty array.
	Present uint64 `json:"present"`
	// Indexed counts documents with at least one non-null value at the key, which is what a
	// payload index can hold.
	Indexed uint64 `json:"indexed"`
}

func (c *fieldCounts) observe(vals []any) {
	if len(vals) == 0 {
		return
	}
	c.Present++
	for _, v := range vals {
		if v != nil {
			c.Indexed++
			return
		}
	}
}

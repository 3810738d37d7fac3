package engine

import (
	"sort"
	"strconv"
	"strings"

	"github.com/conform-dev/conform/fixtures"
	"github.com/tidwall/gjson"
)

// ftype is a field type of the scalar subset.
type ftype uint8

const (
	tOpaque ftype = iota // a type outside the subset: kept in _source, refused in requests
	tObject
	tKeyword
	tText
	tLong
	tInteger
	tShort
	tByte
	tDouble
	tFloat
	tHalfFloat
	tScaledFloat
	tDate
	tDateNanos
	tBoolean
)

var typeNames = map[string]ftype{
	"object": tObject, "keyword": tKeyword, "text": tText, "long": tLong, "integer": tInteger,
	"short": tShort, "byte": tByte, "double": tDouble, "float": tFloat, "half_float": tHalfFloat,
	"scaled_float": tScaledFloat, "date": tDate, "date_nanos": tDateNanos, "boolean": tBoolean,
}

func (t ftype) String() string {
	for k, v := range typeNames {
		if v == t {
			return k
		}
	}
	return "unknown"
}

// isLongType reports the types whose doc values are longs and that sort as LONG in 8.15.
func (t ftype) isLongType() bool {
	switch t {
	case tLong, tInteger, tShort, tByte, tDate, tDateNanos, tBoolean:
		return true
	}
	return false
}

func (t ftype) isIntegerFamily() bool {
	switch t {
	case tLong, tInteger, tShort, tByte:
		return true
	}
	return false
}

func (t ftype) isNumeric() bool {
	switch t {
	case tLong, tInteger, tShort, tByte, tDouble, tFloat, tHalfFloat, tScaledFloat:
		return true
	}
	return false
}

func (t ftype) isFloating() bool {
	switch t {
	case tDouble, tFloat, tHalfFloat, tScaledFloat:
		return true
	}
	return false
}

// field is one mapped field (a multi-field is a field of its own, named parent.sub).
type field struct {
	name        string
	typ         ftype
	typeName    string // as written, for opaque types
	scaling     float64
	dateFmt     *dateFormat
	ignoreAbove int // keyword; 0 means none
	nullValue   *gjson.Result
	coerce      bool
	ignoreMal   bool
	docValues   bool
	indexed     bool
	analyzer    string // text: "" or "standard" are supported
	// unanalysable is set when a text value fell outside what standardTokens reproduces
	// exactly; full-text queries on the field are then refused.
	unanalysable bool
	subfields    []*field
	parent       *field // for a multi-field
	dynamic      string // objects: "", "true", "false", "strict", "runtime"
	data         *fieldData
	ord          int // creation order
	// given is the field's mapping parameters as written (or as dynamic mapping sets them),
	// for GET _mapping.
	given []mparam
}

// mparam is one mapping parameter as given.
type mparam struct {
	key string
	val gjson.Result
}

// mapping is an index's mapping.
type mapping struct {
	dynamic         string // "true", "false", "strict" or "runtime"
	dateDetection   bool
	numericDetect   bool
	dynamicDates    []*dateFormat
	hasTemplates    bool
	fields          map[string]*field // every leaf, object and multi-field by full path
	order           []*field
	maxResultWindow int
	replicas        int
	refreshInterval string // index.refresh_interval as given; "" when not set
	// routingRequired is _routing.required: every document write and get must name a routing.
	routingRequired bool
	// given records which root parameters the mapping set explicitly, for GET _mapping
	// (which writes them only then).
	given struct {
		dynamic, dateDetection, numericDetection bool
		dynamicDates                             gjson.Result
		meta                                     string // _meta or _routing, which GET _mapping does not render
	}
}

func newMapping() *mapping {
	m := &mapping{dynamic: "true", dateDetection: true, fields: map[string]*field{}, maxResultWindow: 10000, replicas: 1}
	// RootObjectMapper.Defaults.DYNAMIC_DATE_TIME_FORMATTERS, as GET _mapping shows them on
	// real 8.15.0 for fields they mapped.
	f1, _ := parseDateFormat(defaultDateFormat)
	f2, _ := parseDateFormat("yyyy/MM/dd HH:mm:ss||yyyy/MM/dd||epoch_millis")
	m.dynamicDates = []*dateFormat{f1, f2}
	return m
}

func (m *mapping) add(f *field) {
	f.ord = len(m.order)
	m.fields[f.name] = f
	m.order = append(m.order, f)
	f.data = newFieldData(f)
}

// parseIndexBody reads an index-creation body: settings, mappings and aliases.
func parseIndexBody(body []byte) (*mapping, *esError) {
	m := newMapping()
	body = trimSpace(body)
	if len(body) == 0 {
		return m, nil
	}
	if !gjson.ValidBytes(body) {
		return nil, errXContent(-1, "Failed to parse content to map")
	}
	root := gjson.ParseBytes(body)
	if !root.IsObject() {
		return nil, errParsing(-1, "Failed to parse content to map")
	}
	var err *esError
	root.ForEach(func(k, v gjson.Result) bool {
		switch k.String() {
		case "settings":
			err = m.parseSettings(v, "")
		case "mappings":
			err = wrapMappingErr(m.parseMappings(v))
		case "aliases":
			if v.IsObject() && len(v.Map()) > 0 {
				err = errUnsupportedf("index aliases")
			}
		default:
			err = errParsing(-1, "unknown key [%s] for create index", k.String())
		}
		return err == nil
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// wrapMappingErr wraps a mapping's mapper_parsing_exception the way Elasticsearch 8.15 does
// (MapperService.parseMapping): the top error's reason is "Failed to parse mapping: " and the
// original's, the original is its caused_by and the root cause. Checked on real 8.15.0 with
// PUT /x {"mappings":{"properties":{"a":{"type":"keywrd"}}}}.
func wrapMappingErr(e *esError) *esError {
	if e == nil || e.typ != "mapper_parsing_exception" || strings.HasPrefix(e.reason, "Failed to parse mapping: ") {
		return e
	}
	return &esError{status: e.status, typ: e.typ, reason: "Failed to parse mapping: " + e.reason,
		rootCauses: []*esError{e}, causedBy: e}
}

func (m *mapping) parseSettings(v gjson.Result, prefix string) *esError {
	if !v.IsObject() {
		return errIllegalArg("settings must be an object")
	}
	var err *esError
	v.ForEach(func(k, val gjson.Result) bool {
		key := prefix + k.String()
		if val.IsObject() {
			err = m.parseSettings(val, key+".")
			return err == nil
		}
		key = strings.TrimPrefix(key, "index.")
		switch key {
		case "number_of_shards":
			if n, e := strconv.Atoi(val.String()); e != nil || n != 1 {
				if e == nil && n < 1 {
					err = errIllegalArg("Failed to parse value [%s] for setting [index.number_of_shards] must be >= 1", val.String())
				} else {
					err = errUnsupportedf("indexes with more than one shard (number_of_shards %s)", val.String())
				}
			}
		case "number_of_replicas":
			n, e := strconv.Atoi(val.String())
			if e != nil || n < 0 {
				err = errIllegalArg("Failed to parse value [%s] for setting [index.number_of_replicas] must be >= 0", val.String())
			} else {
				m.replicas = n
			}
		case "max_result_window":
			n, e := strconv.Atoi(val.String())
			if e != nil || n < 1 {
				err = errIllegalArg("Failed to parse value [%s] for setting [index.max_result_window] must be >= 1", val.String())
			} else {
				m.maxResultWindow = n
			}
		case "refresh_interval":
			// Set explicitly, it turns off search-idle refreshes: searches see writes only
			// after an explicit refresh (or, for a positive interval, on a timer), which
			// index.publish and index.searcherDoc follow.
			m.refreshInterval = val.String()
		case "number_of_routing_shards", "auto_expand_replicas":
			// These do not change answers on one shard.
		default:
			err = errUnsupportedf("index setting [index.%s]", key)
		}
		return err == nil
	})
	return err
}

func (m *mapping) parseMappings(v gjson.Result) *esError {
	if !v.IsObject() {
		return newErr(400, "mapper_parsing_exception", "Failed to parse mapping: mappings must be an object")
	}
	// A typed mapping ({"_doc": {...}}) is refused by 8.x.
	var err *esError
	v.ForEach(func(k, val gjson.Result) bool {
		switch k.String() {
		case "properties":
			err = m.parseProperties("", val)
		case "dynamic":
			m.given.dynamic = true
			m.dynamic = strings.ToLower(val.String())
			if m.dynamic == "runtime" {
				err = errUnsupportedf("dynamic runtime fields")
			}
		case "date_detection":
			m.given.dateDetection = true
			m.dateDetection = val.Bool()
		case "numeric_detection":
			m.given.numericDetection = true
			m.numericDetect = val.Bool()
		case "dynamic_date_formats":
			m.given.dynamicDates = val
			m.dynamicDates = nil
			for _, s := range val.Array() {
				f, e := parseDateFormat(s.String())
				if e != nil {
					err = asES(e)
					return false
				}
				m.dynamicDates = append(m.dynamicDates, f)
			}
		case "dynamic_templates":
			if len(val.Array()) > 0 {
				m.hasTemplates = true
			}
		case "_source":
			if en := val.Get("enabled"); en.Exists() && !en.Bool() {
				err = errUnsupportedf("_source disabled")
			} else if val.Get("includes").Exists() || val.Get("excludes").Exists() {
				err = errUnsupportedf("_source includes/excludes in the mapping")
			}
		case "_meta", "_routing":
			m.given.meta = k.String()
			if k.String() == "_routing" {
				// RoutingFieldMapper's one parameter: a document written without a routing
				// is refused, and a get without one answers routing_missing_exception.
				m.routingRequired = val.Get("required").Bool()
			}
		default:
			err = newErr(400, "mapper_parsing_exception", "Root mapping definition has unsupported parameters:  [%s : %s]", k.String(), val.Raw)
		}
		return err == nil
	})
	return err
}

func asES(e error) *esError {
	if x, ok := e.(*esError); ok {
		return x
	}
	return newErr(400, "mapper_parsing_exception", "%s", e.Error())
}

func (m *mapping) parseProperties(prefix string, props gjson.Result) *esError {
	if !props.IsObject() {
		return newErr(400, "mapper_parsing_exception", "Expected map for property [properties] on field [%s] but got a class java.lang.String", strings.TrimSuffix(prefix, "."))
	}
	var err *esError
	props.ForEach(func(k, v gjson.Result) bool {
		if err = unknownType(k.String(), v, "No"); err != nil {
			return false
		}
		_, err = m.parseField(prefix+k.String(), v, nil)
		return err == nil
	})
	return err
}

// unknownType refuses a field type Elasticsearch 8.15 has no mapper for (fixtures.KnownFieldType)
// with its error: "No handler for type [keywrd] declared on field [a]", naming the property as
// written, not its full path. Multi-fields are parsed by other code that writes "no" in lower
// case (checked on real 8.15.0). The engine keeps known types outside its subset as opaque.
func unknownType(local string, v gjson.Result, no string) *esError {
	t := v.Get("type")
	if !v.IsObject() || !t.Exists() || t.String() == "" || fixtures.KnownFieldType(t.String()) {
		return nil
	}
	return newErr(400, "mapper_parsing_exception", "%s handler for type [%s] declared on field [%s]", no, t.String(), local)
}

// typeParams lists, per field type of the subset, the mapping parameters Elasticsearch 8.15
// accepts (measured on 8.15.0 by creating an index with each candidate parameter, December
// 2026; scaled_float is absent from that server and kept as the engine had it). Any other is
// refused as Elasticsearch refuses it; an accepted one the engine does not model is declined.
var typeParams = func() map[ftype]map[string]bool {
	set := func(names ...string) map[string]bool {
		m := map[string]bool{}
		for _, n := range names {
			m[n] = true
		}
		return m
	}
	leaf := []string{"copy_to", "doc_values", "fields", "index", "meta", "null_value", "on_script_error", "store", "script"}
	number := append([]string{"coerce", "ignore_malformed", "time_series_dimension", "time_series_metric"}, leaf...)
	date := append([]string{"format", "ignore_malformed", "locale"}, leaf...)
	out := map[ftype]map[string]bool{
		tText: set("analyzer", "search_analyzer", "search_quote_analyzer", "copy_to", "eager_global_ordinals", "fielddata",
			"fielddata_frequency_filter", "fields", "index", "index_options", "index_phrases", "index_prefixes", "meta",
			"norms", "position_increment_gap", "similarity", "store", "term_vector"),
		tKeyword: set(append([]string{"eager_global_ordinals", "ignore_above", "index_options", "norms", "similarity",
			"split_queries_on_whitespace", "time_series_dimension", "normalizer"}, leaf...)...),
		tDate:        set(date...),
		tDateNanos:   set(date...),
		tBoolean:     set(append([]string{"ignore_malformed"}, leaf...)...),
		tObject:      set("dynamic", "enabled", "properties", "subobjects", "store_array_source", "include_in_all"),
		tScaledFloat: set(append([]string{"scaling_factor"}, number...)...),
	}
	for _, t := range []ftype{tLong, tInteger, tShort, tByte, tDouble, tFloat, tHalfFloat} {
		out[t] = set(number...)
	}
	return out
}()

// unknownMappingParams is Elasticsearch's refusal of parameters a mapper does not know. A leaf
// names the first with its type ("unknown parameter [foo] on mapper [b] of type [long]"),
// except boost, removed in 8.0 with its own message; an object lists them all with their
// values as Java prints a map ("Mapping definition for [b] has unsupported parameters:  [foo :
// 1]"). Both name the field by its last path segment (measured on 8.15.0).
func unknownMappingParams(name string, t ftype, typeName string, unknown []mparam) *esError {
	local := name[strings.LastIndexByte(name, '.')+1:]
	if t != tObject {
		if unknown[0].key == "boost" {
			return newErr(400, "mapper_parsing_exception", "Unknown parameter [boost] on mapper [%s]", local)
		}
		return newErr(400, "mapper_parsing_exception", "unknown parameter [%s] on mapper [%s] of type [%s]", unknown[0].key, local, typeName)
	}
	// Several are listed in an order not modelled, and decimals print as Java doubles.
	if len(unknown) > 1 || strings.ContainsAny(unknown[0].val.Raw, ".eE") {
		return errUnsupportedf("unsupported parameters on object mapping [%s]", name)
	}
	return newErr(400, "mapper_parsing_exception", "Mapping definition for [%s] has unsupported parameters:  [%s : %s]", local, unknown[0].key, javaMapString(unknown[0].val))
}

// plainMeta reports a [meta] object the engine can take without checking Elasticsearch's
// limits on it: at most 5 entries, keys up to 20 characters, string values up to 50.
func plainMeta(v gjson.Result) bool {
	if !v.IsObject() {
		return false
	}
	ok, n := true, 0
	v.ForEach(func(k, x gjson.Result) bool {
		n++
		ok = n <= 5 && len(k.String()) <= 20 && x.Type == gjson.String && len(x.String()) <= 50 && x.String() != ""
		return ok
	})
	return ok
}

func (m *mapping) parseField(name string, v gjson.Result, parent *field) (*field, *esError) {
	if !v.IsObject() {
		return nil, newErr(400, "mapper_parsing_exception", "Expected map for property [fields] on field [%s] but got a class java.lang.String", name)
	}
	typeName := v.Get("type").String()
	if typeName == "" {
		// A property without a type is an object only when it has properties or is just
		// {"enabled": ...}; otherwise 8.15 refuses it naming the property as written, with
		// another message for a multi-field (both checked on real 8.15.0).
		local := name[strings.LastIndexByte(name, '.')+1:]
		switch {
		case parent != nil:
			return nil, newErr(400, "mapper_parsing_exception", "no type specified for property [%s]", local)
		case v.Get("properties").Exists() || len(v.Map()) == 1 && v.Get("enabled").Exists():
			typeName = "object"
		default:
			return nil, newErr(400, "mapper_parsing_exception", "No type specified for field [%s]", local)
		}
	}
	t, known := typeNames[typeName]
	if !known {
		t = tOpaque
	}
	f := &field{name: name, typ: t, typeName: typeName, coerce: true, docValues: true, indexed: true, parent: parent}
	var err *esError
	var unknown []mparam // parameters Elasticsearch does not know for this type
	oddNorms := false
	v.ForEach(func(k, p gjson.Result) bool {
		key := k.String()
		f.given = append(f.given, mparam{key, p})
		if key != "type" && t != tOpaque && !typeParams[t][key] {
			unknown = append(unknown, mparam{key, p})
			// A leaf mapper fails at its first unknown parameter, in document order
			// (FieldMapper.Builder#parse); an object reports all of them after its own
			// parameters and properties (ObjectMapper.TypeParser, checkNoRemainingFields).
			return t == tObject
		}
		switch key {
		case "type":
		case "properties":
			if t != tObject {
				if t == tOpaque {
					return true
				}
				err = newErr(400, "mapper_parsing_exception", "unknown parameter [properties] on mapper [%s] of type [%s]", name, typeName)
				return false
			}
			err = m.parseProperties(name+".", p)
		case "dynamic":
			f.dynamic = strings.ToLower(p.String())
		case "enabled":
			if !p.Bool() {
				err = errUnsupportedf("disabled object [%s]", name)
			}
		case "fields":
			if t == tOpaque {
				return true
			}
			p.ForEach(func(sk, sv gjson.Result) bool {
				if err = unknownType(sk.String(), sv, "no"); err != nil {
					return false
				}
				sub, e := m.parseField(name+"."+sk.String(), sv, f)
				if e != nil {
					err = e
					return false
				}
				f.subfields = append(f.subfields, sub)
				return true
			})
		case "format":
			if t == tDate || t == tDateNanos {
				df, e := parseDateFormat(p.String())
				if e != nil {
					err = asES(e)
					if err.typ != UnsupportedType {
						err = newErr(400, "mapper_parsing_exception", "Invalid format: [%s]: %s", p.String(), e.Error())
					}
					return false
				}
				f.dateFmt = df
			}
		case "scaling_factor":
			f.scaling = p.Float()
		case "ignore_above":
			f.ignoreAbove = int(p.Int())
		case "null_value":
			nv := p
			f.nullValue = &nv
		case "coerce":
			f.coerce = p.Bool()
		case "ignore_malformed":
			f.ignoreMal = p.Bool()
		case "doc_values":
			f.docValues = p.Bool()
		case "index":
			f.indexed = p.Bool()
		case "analyzer", "search_analyzer":
			if s := p.String(); s != "standard" && s != "default" {
				f.analyzer = s
			}
		case "normalizer":
			err = errUnsupportedf("keyword normalizers (field [%s])", name)
		case "locale":
			if s := strings.ToLower(p.String()); s != "root" && s != "en" && s != "en-us" && s != "und" {
				err = errUnsupportedf("date locale [%s]", p.String())
			}
		case "copy_to", "script":
			err = errUnsupportedf("[%s] on field [%s]", key, name)
		case "store", "eager_global_ordinals", "term_vector", "position_increment_gap":
			// No effect on what the engine answers: stored fields are not served, phrase
			// queries (where the gap matters) are declined.
		case "norms":
			// Norms change BM25 scores: on by default for text, off for keyword. Checked
			// after the loop, as they matter only on an indexed field.
			oddNorms = p.Bool() != (t == tText)
		case "index_options":
			// The default (positions for text, docs for keyword) is what the scoring models.
			if def := map[ftype]string{tText: "positions", tKeyword: "docs"}[t]; p.String() != def {
				err = errUnsupportedf("[index_options] %s on field [%s] of type [%s]", p.Raw, name, typeName)
			}
		case "fielddata", "split_queries_on_whitespace", "time_series_dimension":
			// Each makes a feature work that the engine answers as if it were off
			// (aggregations and sorts on text, whitespace splitting in match queries on
			// keyword, time series dimensions).
			if p.Type != gjson.False {
				err = errUnsupportedf("[%s] %s on field [%s]", key, p.Raw, name)
			}
		case "time_series_metric":
			if p.Type != gjson.Null {
				err = errUnsupportedf("[%s] %s on field [%s]", key, p.Raw, name)
			}
		case "meta":
			if !plainMeta(p) {
				err = errUnsupportedf("[meta] other than up to 5 short string values on field [%s]", name)
			}
		case "similarity":
			if p.String() != "BM25" {
				err = errUnsupportedf("similarity [%s]", p.String())
			}
		case "search_quote_analyzer":
			if s := p.String(); s != "standard" && s != "default" {
				err = errUnsupportedf("search_quote_analyzer [%s] on field [%s]", s, name)
			}
		default:
			if t == tOpaque {
				// A type outside the subset keeps whatever it is given; it is refused in
				// requests that touch it.
				return true
			}
			// Parameters Elasticsearch 8.15 accepts for this type that the engine does not
			// model (measured by creating an index with each on 8.15.0): declined.
			err = errUnsupportedf("mapping parameter [%s] on field [%s] of type [%s]", key, name, typeName)
		}
		return err == nil
	})
	if err == nil && len(unknown) > 0 {
		err = unknownMappingParams(name, t, typeName, unknown)
	}
	if err == nil && oddNorms && f.indexed {
		err = errUnsupportedf("[norms] other than the default on the indexed field [%s] of type [%s]", name, typeName)
	}
	if err != nil {
		return nil, err
	}
	if t == tScaledFloat && !(f.scaling > 0) {
		return nil, newErr(400, "mapper_parsing_exception", "Field [scaling_factor] is required")
	}
	if (t == tDate || t == tDateNanos) && f.dateFmt == nil {
		f.dateFmt, _ = parseDateFormat(defaultDateFormat)
	}
	if t == tText {
		f.docValues = false
	}
	if f.nullValue != nil && f.nullValue.Type == gjson.Null {
		f.nullValue = nil
	}
	if f.nullValue != nil && t != tKeyword && t != tOpaque {
		// Elasticsearch parses a number, date or boolean null_value when the mapping is
		// created and refuses one that does not parse, with messages per type (8.15.0: "For
		// input string: \"x\"" for numbers); the engine declines where its own parse fails.
		probe := *f
		probe.ignoreMal = false
		// A numeric string is parsed whatever coerce says (NumberFieldMapper's null_value,
		// measured: "5" on a long with coerce false is taken); a decimal part on an integer
		// type is left to the decline, its handling not being measured.
		probe.coerce = true
		decimal := t.isIntegerFamily() && strings.ContainsAny(f.nullValue.Raw, ".eE")
		if decimal || (&docParser{}).scalar(&probe, *f.nullValue) != nil {
			return nil, errUnsupportedf("[null_value] %s that does not parse as a value of field [%s] of type [%s]", f.nullValue.Raw, name, typeName)
		}
		// The parsed number is what a document's null indexes, so coerce false, which refuses
		// a string in a document, does not refuse it (8.15.0: a long with coerce false and
		// null_value "5" indexes {"n":null} and matches a term on 5).
		if t.isNumeric() && f.nullValue.Type == gjson.String {
			if nv := gjson.Parse(f.nullValue.Str); nv.Type == gjson.Number {
				f.nullValue = &nv
			}
		}
	}
	m.add(f)
	return f, nil
}

// dynamicFor returns the dynamic setting that applies to a new field at path: the nearest
// enclosing object's, else the root's.
func (m *mapping) dynamicFor(path string) string {
	for {
		i := strings.LastIndexByte(path, '.')
		if i < 0 {
			return m.dynamic
		}
		path = path[:i]
		if f, ok := m.fields[path]; ok && f.dynamic != "" {
			return f.dynamic
		}
	}
}

// leafNames returns every queryable field name, sorted.
func (m *mapping) leafNames() []string {
	var out []string
	for n, f := range m.fields {
		if f.typ != tObject {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

func trimSpace(b []byte) []byte {
	i, j := 0, len(b)
	for i < j && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t') {
		i++
	}
	for j > i && (b[j-1] == ' ' || b[j-1] == '\n' || b[j-1] == '\r' || b[j-1] == '\t') {
		j--
	}
	return b[i:j]
}

package engine

import (
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// Total-hits thresholds (§6.1).
const (
	trackDefault  = 10000
	trackAccurate = math.MaxInt32
	trackDisabled = -1
)

// searchReq is a parsed search body with the URL parameters applied.
type searchReq struct {
	query       qnode
	postFilter  qnode
	from, size  int
	sorts       []*sortSpec
	relevance   bool // no field sort: hits ordered by score
	searchAfter []gjson.Result
	hasAfter    bool
	tth         int
	tthParam    bool // track_total_hits given as a URL parameter
	intTotal    bool
	source      sourceFilter
	aggs        []*aggSpec
	trackScores bool
	version     bool
	seqNo       bool
	count       bool // a _count request
	noWindow    bool // skip the result-window check (tie probes read one past the page)
	typedKeys   bool // typed_keys: aggregation names prefixed with their type
	pit         *pitRef
	preFilter   int // pre_filter_shard_size, 0 when not set (prefilter.go)
}

type sourceFilter struct {
	disabled           bool
	includes, excludes []string
}

func (s sourceFilter) filtering() bool { return len(s.includes) > 0 || len(s.excludes) > 0 }

// sortSpec is one parsed sort key.
type sortSpec struct {
	field        string // "_score", "_doc" or a field
	desc         bool
	mode         string
	missing      gjson.Result
	unmappedType string
	format       string
	numericType  string
	pit          bool // a _shard_doc sort within a point in time
}

var searchBodyUnsupported = map[string]bool{
	"highlight": true, "suggest": true, "rescore": true, "collapse": true, "script_fields": true,
	"docvalue_fields": true, "stored_fields": true, "fields": true, "slice": true,
	"runtime_mappings": true, "indices_boost": true, "min_score": true, "explain": true,
	"terminate_after": true, "knn": true, "rank": true, "retriever": true, "profile": true, "stats": true,
	"ext": true, "sub_searches": true,
}

// parseSearchBody parses a _search (or, with count set, a _count) body.
func parseSearchBody(body []byte, count bool) (*searchReq, *esError) {
	r := &searchReq{from: -1, size: -1, tth: trackDefault, relevance: true, count: count}
	body = trimSpace(body)
	if len(body) == 0 {
		return r, nil
	}
	if !gjson.ValidBytes(body) {
		return nil, errXContent(-1, "Unexpected character: the request body is not valid JSON")
	}
	root := gjson.ParseBytes(body)
	if !root.IsObject() {
		return nil, errParsing(0, "Unexpected token: the request body must be an object")
	}
	var err *esError
	root.ForEach(func(k, v gjson.Result) bool {
		key := k.String()
		if count {
			switch key {
			case "query":
				r.query, err = parseQuery(v)
			default:
				err = errParsing(k.Index, "request does not support [%s]", key)
			}
			return err == nil
		}
		switch key {
		case "query":
			r.query, err = parseQuery(v)
		case "post_filter":
			r.postFilter, err = parseQuery(v)
		case "from":
			n, e := intParam(v, "from")
			if e != nil {
				err = e
			} else if n < 0 {
				err = errIllegalArg("[from] parameter cannot be negative, found [%d]", n)
			} else {
				r.from = n
			}
		case "size":
			n, e := intParam(v, "size")
			if e != nil {
				err = e
			} else if n < 0 {
				err = errIllegalArg("[size] parameter cannot be negative, found [%d]", n)
			} else {
				r.size = n
			}
		case "sort":
			r.sorts, err = parseSorts(v)
		case "search_after":
			if !v.IsArray() {
				err = errParsing(v.Index, "Unknown key for a %s in [search_after].", tokenName(v))
				return false
			}
			vals := v.Array()
			for _, x := range vals {
				if x.IsArray() || x.IsObject() {
					err = errParsing(x.Index, "Unknown key for a %s in [search_after].", tokenName(x))
					return false
				}
			}
			if len(vals) == 0 {
				err = errIllegalArg("Values must contains at least one value.")
				return false
			}
			r.searchAfter, r.hasAfter = vals, true
		case "track_total_hits":
			r.tth, err = parseTrackTotalHits(v.Raw)
		case "_source":
			r.source, err = parseSourceFilter(v)
		case "aggs", "aggregations":
			r.aggs, err = parseAggs(v)
		case "track_scores":
			r.trackScores = v.Bool()
		case "version":
			r.version = v.Bool()
		case "seq_no_primary_term":
			r.seqNo = v.Bool()
		case "timeout":
		case "pit":
			r.pit, err = parsePITRef(v, body)
		default:
			if searchBodyUnsupported[key] {
				err = errUnsupportedf("search option [%s]", key)
			} else {
				err = errParsing(k.Index, "Unknown key for a %s in [%s].", tokenName(v), key)
			}
		}
		return err == nil
	})
	if err != nil {
		return nil, err
	}
	if r.pit != nil && len(r.sorts) > 0 {
		// RestSearchAction.preparePointInTime: a sort without _shard_doc gets it as the
		// tiebreaker, ascending.
		tie := true
		for _, s := range r.sorts {
			if s.field == "_shard_doc" {
				s.pit, tie = true, false
			}
		}
		if tie {
			r.sorts = append(r.sorts, &sortSpec{field: "_shard_doc", pit: true})
		}
	}
	r.relevance = relevanceOnly(r.sorts)
	return r, nil
}

func tokenName(v gjson.Result) string {
	switch {
	case v.IsObject():
		return "START_OBJECT"
	case v.IsArray():
		return "START_ARRAY"
	case v.Type == gjson.String:
		return "VALUE_STRING"
	case v.Type == gjson.Number:
		return "VALUE_NUMBER"
	case v.Type == gjson.True || v.Type == gjson.False:
		return "VALUE_BOOLEAN"
	}
	return "VALUE_NULL"
}

func intParam(v gjson.Result, name string) (int, *esError) {
	switch v.Type {
	case gjson.Number:
		if !isIntegerLiteral(v.Raw) {
			f := v.Float()
			if f != math.Trunc(f) {
				return 0, errXContent(v.Index, "[%s] failed to parse field: value [%s] has a decimal part", name, v.Raw)
			}
			return int(f), nil
		}
		n, err := strconv.ParseInt(v.Raw, 10, 32)
		if err != nil {
			return 0, errXContent(v.Index, "Numeric value (%s) out of range of int", v.Raw)
		}
		return int(n), nil
	case gjson.String:
		n, err := strconv.Atoi(v.Str)
		if err != nil {
			return 0, errXContent(v.Index, "For input string: \"%s\"", v.Str)
		}
		return n, nil
	}
	return 0, errParsing(v.Index, "[%s] must be a number", name)
}

// parseTrackTotalHits reads true, false or an integer threshold (§6.1).
func parseTrackTotalHits(s string) (int, *esError) {
	s = strings.Trim(strings.TrimSpace(s), `"`)
	switch s {
	case "true":
		return trackAccurate, nil
	case "false":
		return trackDisabled, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, errIllegalArg("Failed to parse value [%s] as only [true] or [false] are allowed.", s)
	}
	if n < trackDisabled {
		return 0, errIllegalArg("[track_total_hits] parameter must be positive or equals to -1, got %d", n)
	}
	return n, nil
}

func parseSourceFilter(v gjson.Result) (sourceFilter, *esError) {
	var s sourceFilter
	strs := func(x gjson.Result) ([]string, *esError) {
		if x.Type == gjson.String {
			return []string{x.Str}, nil
		}
		if !x.IsArray() {
			return nil, errParsing(x.Index, "Expected one of [VALUE_STRING, START_ARRAY] but found [%s]", tokenName(x))
		}
		var out []string
		for _, e := range x.Array() {
			out = append(out, e.String())
		}
		return out, nil
	}
	var err *esError
	switch {
	case v.Type == gjson.True:
	case v.Type == gjson.False:
		s.disabled = true
	case v.Type == gjson.String || v.IsArray():
		s.includes, err = strs(v)
	case v.IsObject():
		v.ForEach(func(k, x gjson.Result) bool {
			switch k.String() {
			case "includes", "include":
				s.includes, err = strs(x)
			case "excludes", "exclude":
				s.excludes, err = strs(x)
			default:
				err = errParsing(k.Index, "Unknown key for a %s in [%s].", tokenName(x), k.String())
			}
			return err == nil
		})
	default:
		err = errParsing(v.Index, "Unexpected token %s for [_source]", tokenName(v))
	}
	return s, err
}

func parseSorts(v gjson.Result) ([]*sortSpec, *esError) {
	var out []*sortSpec
	one := func(x gjson.Result) *esError {
		switch {
		case x.Type == gjson.String:
			out = append(out, &sortSpec{field: x.Str, desc: x.Str == "_score"})
			return nil
		case x.IsObject():
			var err *esError
			x.ForEach(func(k, o gjson.Result) bool {
				name := k.String()
				switch name {
				case "_geo_distance", "_script":
					err = errUnsupportedf("sort [%s]", name)
					return false
				}
				s := &sortSpec{field: name, desc: name == "_score"}
				if o.Type == gjson.String {
					err = setOrder(s, o)
				} else if o.IsObject() {
					o.ForEach(func(pk, pv gjson.Result) bool {
						switch pk.String() {
						case "order":
							err = setOrder(s, pv)
						case "mode":
							s.mode = strings.ToLower(pv.String())
							switch s.mode {
							case "min", "max", "sum", "avg", "median":
							default:
								err = errIllegalArg("Unknown MultiValueMode [%s]", pv.String())
							}
						case "missing":
							s.missing = pv
						case "unmapped_type":
							s.unmappedType = pv.String()
						case "format":
							s.format = pv.String()
						case "numeric_type":
							s.numericType = pv.String()
						case "nested", "nested_path", "nested_filter":
							err = errUnsupportedf("nested sorts")
						default:
							err = errParsing(pk.Index, "[field_sort] unknown field [%s]", pk.String())
						}
						return err == nil
					})
				} else {
					err = errParsing(o.Index, "[field_sort] unexpected token %s", tokenName(o))
				}
				out = append(out, s)
				return err == nil
			})
			return err
		}
		return errParsing(x.Index, "[sort] unexpected token %s", tokenName(x))
	}
	if v.IsArray() {
		for _, x := range v.Array() {
			if err := one(x); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	return out, one(v)
}

func setOrder(s *sortSpec, v gjson.Result) *esError {
	switch strings.ToLower(v.String()) {
	case "asc":
		s.desc = false
	case "desc":
		s.desc = true
	default:
		return errIllegalArg("Unknown SortOrder [%s]", v.String())
	}
	return nil
}

// relevanceOnly reports a sort that is no field sort: none, or only _score descending.
func relevanceOnly(s []*sortSpec) bool {
	return len(s) == 0 || len(s) == 1 && s[0].field == "_score" && s[0].desc
}

// --- sort keys on one index ---

type cmpType uint8

const (
	ctLong cmpType = iota
	ctDouble
	ctFloat
	ctString
	ctScore
	ctDoc
)

// sortKey is a sort spec resolved on one index: a per-document column in the comparator's
// representation, with missing values already replaced by their sentinel (§3.3).
type sortKey struct {
	spec   *sortSpec
	ct     cmpType
	f      *field // nil when unmapped or _score/_doc
	nanos  bool   // date values in nanoseconds
	fmt    *dateFormat
	ints   []int64   // ctLong values; ctString codes (2×ord+1, missing at either end)
	flts   []float64 // ctDouble and ctFloat values
	missS  *string   // a custom missing keyword
	missC  int64     // the code of a missing keyword
	parseF *dateFormat
}

// keyCache is a computed column shared by requests until the next write.
type keyCache struct {
	ints  []int64
	flts  []float64
	missC int64
}

func (c *execCtx) resolveSort(s *sortSpec) (*sortKey, *esError) {
	k := &sortKey{spec: s}
	switch s.field {
	case "_score":
		k.ct = ctScore
		return k, nil
	case "_doc":
		k.ct = ctDoc
		return k, nil
	case "_id":
		return nil, errIllegalArg("Fielddata access on the _id field is disallowed, you can re-enable it by updating the dynamic cluster setting: indices.id_field_data.enabled")
	case "_shard_doc":
		if s.pit {
			// ShardDocSortField: (shard request index << 32) | document number; the engine's
			// points in time are over one single-shard index, so the document number.
			k.ct = ctDoc
			return k, nil
		}
		return nil, errIllegalArg("[_shard_doc] sort field cannot be used without [point in time]")
	}
	if strings.HasPrefix(s.field, "_") && c.ix.m.fields[s.field] == nil {
		return nil, errUnsupportedf("sorting on metadata field [%s]", s.field)
	}
	f := c.ix.m.fields[s.field]
	var t ftype
	switch {
	case f != nil && f.typ == tOpaque:
		return nil, errUnsupportedf("sorting on field [%s] of type [%s]", s.field, f.typeName)
	case f != nil && f.typ == tText:
		return nil, errIllegalArg("Text fields are not optimised for operations that require per-document field data like aggregations and sorting, so these operations are disabled by default. Please use a keyword field instead. Alternatively, set fielddata=true on [%s] in order to load field data by uninverting the inverted index. Note that this can use significant memory.", s.field)
	case f != nil && f.typ == tObject:
		return nil, c.shardErr("No mapping found for [%s] in order to sort on", s.field)
	case f != nil:
		if !f.docValues {
			return nil, errIllegalArg("Can't load fielddata on [%s] because fielddata is unsupported on fields of type [%s]. Use doc values instead.", s.field, f.typ)
		}
		t = f.typ
	case s.unmappedType != "":
		ut, ok := typeNames[s.unmappedType]
		if !ok || ut == tObject || ut == tText {
			return nil, errUnsupportedf("unmapped_type [%s]", s.unmappedType)
		}
		t = ut
	default:
		return nil, c.shardErr("No mapping found for [%s] in order to sort on", s.field)
	}
	k.f = f
	switch {
	case t == tKeyword:
		k.ct = ctString
	case t.isLongType():
		k.ct = ctLong
		k.nanos = t == tDateNanos
	case t == tDouble || t == tScaledFloat:
		// ScaledFloatIndexFieldData: getNumericType DOUBLE and sortRequiresCustomComparator, so
		// scaled_float sorts (and renders sort values) as the doubles long × (1d / scalingFactor).
		k.ct = ctDouble
	default:
		k.ct = ctFloat
	}
	if s.mode == "sum" || s.mode == "avg" || s.mode == "median" {
		// FieldSortBuilder.build refuses these modes when the field data is not an
		// IndexNumericFieldData; date, date_nanos and boolean field data are numeric there
		// (NumericType DATE, DATE_NANOSECONDS, BOOLEAN), so they sort by the mode's long, as
		// real Elasticsearch 8.15.0 does (fuzz-regressions page/031, page/034).
		if !t.isNumeric() && !t.isLongType() {
			return nil, errIllegalArg("we only support AVG, MEDIAN and SUM on number based fields")
		}
	}
	if t == tDate || t == tDateNanos {
		if f != nil {
			k.parseF = f.dateFmt
		} else {
			k.parseF, _ = parseDateFormat(defaultDateFormat)
		}
	}
	if s.numericType != "" {
		switch {
		case s.numericType == "date_nanos" && (t == tDate || t == tDateNanos):
			k.nanos = true
		case s.numericType == "date" && (t == tDate || t == tDateNanos):
			k.nanos = false
		case s.numericType == "long" && k.ct == ctLong, s.numericType == "double" && k.ct == ctDouble:
		default:
			return nil, errUnsupportedf("numeric_type [%s] on field [%s] of type [%s]", s.numericType, s.field, t)
		}
	}
	if s.format != "" {
		if t != tDate && t != tDateNanos {
			return nil, errIllegalArg("Can only format sort values of date fields, field [%s] has type [%s]", s.field, t)
		}
		df, err := parseDateFormat(s.format)
		if err != nil {
			return nil, asES(err)
		}
		k.fmt, k.parseF = df, df
	}
	if err := c.fillKey(k, t); err != nil {
		return nil, err
	}
	return k, nil
}

// missingFirstNatural reports whether missing values sit at the low end of the natural order:
// Lucene sorts missing first for _first ascending or _last descending (§3.3).
func missingLow(s *sortSpec) bool {
	first := s.missing.Exists() && s.missing.Type == gjson.String && s.missing.Str == "_first"
	return first != s.desc
}

func customMissing(s *sortSpec) bool {
	if !s.missing.Exists() {
		return false
	}
	return !(s.missing.Type == gjson.String && (s.missing.Str == "_first" || s.missing.Str == "_last"))
}

// javaToString is what Elasticsearch's missingObject sees of a JSON value: its toString.
func javaToString(v gjson.Result) string {
	if v.Type == gjson.Number && !isIntegerLiteral(v.Raw) {
		return javaDouble(v.Float())
	}
	if v.Type == gjson.Number {
		return v.Raw
	}
	return v.String()
}

func (c *execCtx) fillKey(k *sortKey, t ftype) *esError {
	s := k.spec
	mode := s.mode
	if mode == "" {
		mode = "min"
		if s.desc {
			mode = "max"
		}
	}
	low := missingLow(s)
	custom := customMissing(s)
	key := "sort\x00" + s.field + "\x00" + strconv.Itoa(int(k.ct)) + "\x00" + mode + "\x00" + s.missing.Raw + "\x00" + strconv.FormatBool(low) + strconv.FormatBool(k.nanos)
	if k.f == nil {
		key += "\x00unmapped"
	}
	if v, ok := c.ix.caches.Load(key); ok {
		kc := v.(*keyCache)
		k.ints, k.flts, k.missC = kc.ints, kc.flts, kc.missC
		if custom && k.ct == ctString {
			ms := javaToString(s.missing)
			k.missS = &ms
		}
		return nil
	}
	n := c.n
	var d *fieldData
	if k.f != nil {
		d = k.f.data
	}
	span := func(doc int) (int, int) {
		if d == nil {
			return 0, 0
		}
		return d.span(doc)
	}
	kc := &keyCache{}
	switch k.ct {
	case ctLong:
		var miss int64
		if custom {
			v, err := strconv.ParseInt(strings.TrimPrefix(javaToString(s.missing), "+"), 10, 64)
			if err != nil {
				return newErr(400, "number_format_exception", "For input string: \"%s\"", javaToString(s.missing))
			}
			miss = v
		} else if t == tDateNanos || k.nanos && t == tDate {
			// DateUtils.MAX_NANOSECOND high, 0 low (§3.3, date_nanos row).
			if low {
				miss = 0
			} else {
				miss = math.MaxInt64
			}
		} else if low {
			miss = math.MinInt64
		} else {
			miss = math.MaxInt64
		}
		out := make([]int64, n)
		conv := func(x int64) int64 { return x }
		if t == tDate && k.nanos {
			conv = func(x int64) int64 {
				if x > math.MaxInt64/1_000_000 {
					return math.MaxInt64
				}
				if x < 0 {
					return 0
				}
				return x * 1_000_000
			}
		} else if t == tDateNanos && !k.nanos {
			conv = func(x int64) int64 { return floorDiv(x, 1_000_000) }
		}
		for doc := 0; doc < n; doc++ {
			lo, hi := span(doc)
			if lo == hi {
				out[doc] = miss
				continue
			}
			out[doc] = conv(pickLong(d.i64[lo:hi], mode))
		}
		kc.ints = out
	case ctDouble, ctFloat:
		var miss float64
		if custom {
			bits := 64
			if k.ct == ctFloat {
				bits = 32
			}
			v, err := strconv.ParseFloat(strings.TrimSpace(javaToString(s.missing)), bits)
			if err != nil && !isRangeErr(err) {
				return newErr(400, "number_format_exception", "For input string: \"%s\"", javaToString(s.missing))
			}
			miss = v
		} else if low {
			miss = math.Inf(-1)
		} else {
			miss = math.Inf(1)
		}
		out := make([]float64, n)
		var vals []float64
		for doc := 0; doc < n; doc++ {
			lo, hi := span(doc)
			if lo == hi {
				out[doc] = miss
				continue
			}
			if t == tScaledFloat {
				inv := 1 / k.f.scaling
				vals = vals[:0]
				for _, l := range d.i64[lo:hi] {
					vals = append(vals, float64(l)*inv)
				}
			} else {
				vals = d.f64[lo:hi]
			}
			v := pickDouble(vals, mode)
			if k.ct == ctFloat {
				v = float64(float32(v))
			}
			out[doc] = v
		}
		kc.flts = out
	case ctString:
		var terms []string
		var ordOf []uint32
		var byOrd []uint32
		if d != nil {
			terms, ordOf, byOrd = d.terms, d.ordOf, d.byOrd
		}
		var miss int64
		if custom {
			ms := javaToString(s.missing)
			k.missS = &ms
			miss = stringCode(ms, terms, byOrd)
		} else if low {
			miss = -1
		} else {
			miss = math.MaxInt64
		}
		out := make([]int64, n)
		for doc := 0; doc < n; doc++ {
			lo, hi := span(doc)
			if lo == hi {
				out[doc] = miss
				continue
			}
			best := ordOf[d.ids[lo]]
			for _, id := range d.ids[lo+1 : hi] {
				o := ordOf[id]
				if mode == "max" && o > best || mode != "max" && o < best {
					best = o
				}
			}
			out[doc] = 2*int64(best) + 1
		}
		kc.ints, kc.missC = out, miss
	}
	c.ix.caches.Store(key, kc)
	k.ints, k.flts, k.missC = kc.ints, kc.flts, kc.missC
	return nil
}

// stringCode places a string in a keyword field's ordinal space: 2×ord+1 for a term of the
// field, an even number between its neighbours otherwise.
func stringCode(s string, terms []string, byOrd []uint32) int64 {
	r := sort.Search(len(byOrd), func(i int) bool { return terms[byOrd[i]] >= s })
	if r < len(byOrd) && terms[byOrd[r]] == s {
		return 2*int64(r) + 1
	}
	return 2 * int64(r)
}

// pickLong applies a sort mode to a document's sorted long values as MultiValueMode does.
func pickLong(v []int64, mode string) int64 {
	switch mode {
	case "max":
		return v[len(v)-1]
	case "sum":
		var t int64
		for _, x := range v {
			t += x
		}
		return t
	case "avg":
		var t int64
		for _, x := range v {
			t += x
		}
		if len(v) > 1 {
			return javaRound(float64(t) / float64(len(v)))
		}
		return t
	case "median":
		n := len(v)
		if n%2 == 0 {
			return javaRound((float64(v[n/2-1]) + float64(v[n/2])) / 2)
		}
		return v[n/2]
	}
	return v[0]
}

func pickDouble(v []float64, mode string) float64 {
	switch mode {
	case "max":
		return v[len(v)-1]
	case "sum":
		var t float64
		for _, x := range v {
			t += x
		}
		return t
	case "avg":
		var t float64
		for _, x := range v {
			t += x
		}
		return t / float64(len(v))
	case "median":
		n := len(v)
		if n%2 == 0 {
			return (v[n/2-1] + v[n/2]) / 2
		}
		return v[n/2]
	}
	return v[0]
}

// sortCtx compares documents of one index by the resolved keys, then by document number.
type sortCtx struct {
	keys   []*sortKey
	scores *qres
}

// cmpDocs returns <0 when a sorts before b.
func (s *sortCtx) cmpDocs(a, b int) int {
	for _, k := range s.keys {
		c := 0
		switch k.ct {
		case ctLong, ctString:
			x, y := k.ints[a], k.ints[b]
			if x < y {
				c = -1
			} else if x > y {
				c = 1
			}
		case ctDouble, ctFloat:
			c = cmpFloat(k.flts[a], k.flts[b])
		case ctScore:
			c = cmpFloat(float64(s.scores.score(a)), float64(s.scores.score(b)))
		case ctDoc:
			c = a - b
		}
		if c != 0 {
			if k.spec.desc {
				return -c
			}
			return c
		}
	}
	return a - b
}

func cmpFloat(x, y float64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	case x == y:
		return 0
	}
	// NaN sorts after everything, as Double.compare does.
	xn, yn := math.IsNaN(x), math.IsNaN(y)
	switch {
	case xn && yn:
		return 0
	case xn:
		return 1
	}
	return -1
}

// afterVal is a search_after value converted to a key's representation.
type afterVal struct {
	i int64
	f float64
}

// convertAfter converts search_after values per key (§4.5).
func (c *execCtx) convertAfter(keys []*sortKey, vals []gjson.Result) ([]afterVal, *esError) {
	out := make([]afterVal, len(keys))
	for i, k := range keys {
		v := vals[i]
		fail := func() *esError {
			e := errIllegalArg("Failed to parse search_after value for field [%s].", k.spec.field)
			return e
		}
		if v.Type == gjson.Null {
			if k.ct == ctString {
				out[i].i = k.missC
				continue
			}
			return nil, errUnsupportedf("a null search_after value for the numeric sort field [%s] (Elasticsearch fails with a server error)", k.spec.field)
		}
		switch k.ct {
		case ctLong:
			if v.Type == gjson.Number {
				if x, err := strconv.ParseInt(v.Raw, 10, 64); err == nil {
					out[i].i = x
				} else {
					out[i].i = javaDoubleToLong(v.Float())
				}
				continue
			}
			s := v.String()
			if v.Type == gjson.True || v.Type == gjson.False {
				s = v.Raw
			}
			if k.f != nil && k.f.typ == tBoolean || k.f == nil && k.spec.unmappedType == "boolean" {
				switch s {
				case "true":
					out[i].i = 1
				case "false":
					out[i].i = 0
				default:
					return nil, fail()
				}
				continue
			}
			if k.parseF != nil {
				x, err := k.parseF.parse(s, false, nil, k.nanos)
				if err != nil {
					return nil, newErr(400, "parse_exception", "failed to parse date field [%s] with format [%s]: [failed to parse date field [%s] with format [%s]]", s, k.parseF.spec, s, k.parseF.spec)
				}
				out[i].i = x
				continue
			}
			if x, err := strconv.ParseInt(s, 10, 64); err == nil {
				out[i].i = x
				continue
			}
			d, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return nil, fail()
			}
			out[i].i = javaDoubleToLong(math.Floor(d))
		case ctDouble, ctFloat, ctScore:
			var d float64
			var err error
			bits := 64
			if k.ct != ctDouble {
				bits = 32
			}
			switch v.Type {
			case gjson.Number:
				d, err = strconv.ParseFloat(v.Raw, 64)
				if bits == 32 {
					d = float64(float32(d))
				}
			case gjson.String:
				d, err = parseJavaDouble(v.Str, bits)
			default:
				return nil, fail()
			}
			if err != nil && !isRangeErr(err) {
				return nil, fail()
			}
			out[i].f = d
		case ctDoc:
			var d int64
			if v.Type == gjson.Number {
				d = int64(int32(javaDoubleToLong(v.Float())))
				if x, err := strconv.ParseInt(v.Raw, 10, 64); err == nil {
					d = int64(int32(x))
				}
			} else {
				x, err := strconv.ParseInt(v.String(), 10, 32)
				if err != nil {
					return nil, fail()
				}
				d = x
			}
			out[i].i = d
		case ctString:
			s := javaToString(v)
			if v.Type == gjson.True || v.Type == gjson.False {
				s = v.Raw
			}
			var terms []string
			var byOrd []uint32
			if k.f != nil {
				terms, byOrd = k.f.data.terms, k.f.data.byOrd
			}
			out[i].i = stringCode(s, terms, byOrd)
		}
	}
	return out, nil
}

// parseJavaDouble accepts what Double.parseDouble does for the forms clients send, including
// "Infinity", "-Infinity" and "NaN".
func parseJavaDouble(s string, bits int) (float64, error) {
	t := strings.TrimSpace(s)
	switch t {
	case "Infinity", "+Infinity":
		return math.Inf(1), nil
	case "-Infinity":
		return math.Inf(-1), nil
	case "NaN":
		return math.NaN(), nil
	}
	if strings.ContainsAny(t, "iInN_xXpP") {
		return 0, strconv.ErrSyntax
	}
	t = strings.TrimRight(t, "dDfF")
	return strconv.ParseFloat(t, bits)
}

// afterCmp compares a document with the search_after tuple: >0 when the document sorts after.
func (s *sortCtx) afterCmp(doc int, after []afterVal) int {
	for i, k := range s.keys {
		c := 0
		switch k.ct {
		case ctLong, ctString:
			x, y := k.ints[doc], after[i].i
			if x < y {
				c = -1
			} else if x > y {
				c = 1
			}
		case ctDouble, ctFloat:
			c = cmpFloat(k.flts[doc], after[i].f)
		case ctScore:
			c = cmpFloat(float64(s.scores.score(doc)), after[i].f)
		case ctDoc:
			c = doc - int(after[i].i)
		}
		if c != 0 {
			if k.spec.desc {
				return -c
			}
			return c
		}
	}
	// Equal on every key: the cursor's document id is Integer.MAX_VALUE, so the document is
	// not after it (§4.3).
	return -1
}

// topK returns the k best documents of bits in order, using cmp (<0: a first).
func topK(bits bitset, k int, cmp func(a, b int) int, accept func(int) bool) []int32 {
	if k <= 0 {
		return nil
	}
	h := make([]int32, 0, min(k, 1024))
	// h is a heap with the worst document at the root.
	worse := func(i, j int) bool { return cmp(int(h[i]), int(h[j])) > 0 }
	down := func(i int) {
		n := len(h)
		for {
			l := 2*i + 1
			if l >= n {
				return
			}
			w := l
			if r := l + 1; r < n && worse(r, l) {
				w = r
			}
			if !worse(w, i) {
				return
			}
			h[i], h[w] = h[w], h[i]
			i = w
		}
	}
	up := func(i int) {
		for i > 0 {
			p := (i - 1) / 2
			if !worse(i, p) {
				return
			}
			h[i], h[p] = h[p], h[i]
			i = p
		}
	}
	forEach(bits, func(d int) {
		if accept != nil && !accept(d) {
			return
		}
		if len(h) < k {
			h = append(h, int32(d))
			up(len(h) - 1)
			return
		}
		if cmp(d, int(h[0])) < 0 {
			h[0] = int32(d)
			down(0)
		}
	})
	sort.Slice(h, func(i, j int) bool { return cmp(int(h[i]), int(h[j])) < 0 })
	return h
}

package engine

import (
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// aggSpec is one parsed aggregation.
type aggSpec struct {
	name string
	typ  string
	meta gjson.Result

	// terms
	field            string
	size, shardSize  int
	minDocCount      int64
	shardMinDocCount int64
	order            []orderSpec
	missing          gjson.Result
	valueType        string
	include, exclude []string
	showErr          bool

	// filter, filters
	filter      qnode
	keyed       bool
	keys        []string
	filters     []qnode
	otherBucket bool
	otherKey    string

	subs []*aggSpec
}

type orderSpec struct {
	path string // "_count", "_key", or a sub-aggregation path
	desc bool
}

var unsupportedAggs = map[string]bool{
	"histogram": true, "date_histogram": true, "range": true, "date_range": true, "cardinality": true,
	"stats": true, "extended_stats": true, "percentiles": true, "percentile_ranks": true, "top_hits": true,
	"composite": true, "nested": true, "reverse_nested": true, "global": true, "missing": true,
	"significant_terms": true, "rare_terms": true, "multi_terms": true, "auto_date_histogram": true,
	"variable_width_histogram": true, "ip_range": true, "geo_distance": true, "geohash_grid": true,
	"geotile_grid": true, "adjacency_matrix": true, "sampler": true, "diversified_sampler": true,
	"scripted_metric": true, "weighted_avg": true, "median_absolute_deviation": true, "geo_bounds": true,
	"geo_centroid": true, "string_stats": true, "boxplot": true, "t_test": true, "top_metrics": true,
	"matrix_stats": true, "bucket_sort": true, "bucket_selector": true, "bucket_script": true,
	"avg_bucket": true, "max_bucket": true, "min_bucket": true, "sum_bucket": true, "stats_bucket": true,
	"cumulative_sum": true, "derivative": true, "moving_fn": true, "serial_diff": true, "random_sampler": true,
	"categorize_text": true, "frequent_item_sets": true, "significant_text": true, "children": true, "parent": true,
}

func parseAggs(v gjson.Result) ([]*aggSpec, *esError) {
	if !v.IsObject() {
		return nil, errParsing(v.Index, "Expected [START_OBJECT] under [aggs], but got a [%s]", tokenName(v))
	}
	var out []*aggSpec
	var err *esError
	v.ForEach(func(k, body gjson.Result) bool {
		var a *aggSpec
		a, err = parseAgg(k.String(), body)
		if err == nil {
			out = append(out, a)
		}
		return err == nil
	})
	return out, err
}

func parseAgg(name string, body gjson.Result) (*aggSpec, *esError) {
	if !body.IsObject() {
		return nil, errParsing(body.Index, "Expected [START_OBJECT] under [%s], but got a [%s] in [%s]", name, tokenName(body), name)
	}
	a := &aggSpec{name: name}
	var err *esError
	var def gjson.Result
	body.ForEach(func(k, v gjson.Result) bool {
		key := k.String()
		switch key {
		case "aggs", "aggregations":
			a.subs, err = parseAggs(v)
		case "meta":
			a.meta = v
		default:
			if a.typ != "" {
				err = errParsing(k.Index, "Found two aggregation type definitions in [%s]: [%s] and [%s]", name, a.typ, key)
				return false
			}
			a.typ, def = key, v
		}
		return err == nil
	})
	if err != nil {
		return nil, err
	}
	if a.typ == "" {
		return nil, errParsing(body.Index, "Missing definition for aggregation [%s]", name)
	}
	switch a.typ {
	case "terms":
		err = a.parseTerms(def)
	case "filter":
		a.filter, err = parseQuery(def)
	case "filters":
		err = a.parseFilters(def)
	case "value_count", "min", "max", "sum", "avg":
		err = a.parseMetric(def)
	default:
		if unsupportedAggs[a.typ] {
			return nil, errUnsupportedf("aggregation [%s]", a.typ)
		}
		return nil, errParsing(body.Index, "Unknown aggregation type [%s]", a.typ)
	}
	if err != nil {
		return nil, err
	}
	if len(a.subs) > 0 && a.typ != "terms" && a.typ != "filter" && a.typ != "filters" {
		return nil, errParsing(body.Index, "Aggregator [%s] of type [%s] cannot accept sub-aggregations", name, a.typ)
	}
	if a.typ == "filter" || a.typ == "filters" {
		names := make([]string, len(a.subs))
		for i, s := range a.subs {
			names[i] = s.name
		}
		if _, ok := filterBucketOrder(names); !ok {
			return nil, errUnsupportedf("the order of %d sub-aggregations under [%s] aggregation [%s]: confirmed up to %d names without a hash chain of %d", len(names), a.typ, name, maxFilterSubAggs, hashChainLimit)
		}
	}
	return a, nil
}

func wrapFieldErr(agg string, field string, pos int, cause *esError) *esError {
	e := errXContent(pos, "[%s] failed to parse field [%s]", agg, field)
	e.causedBy = cause
	return e
}

func (a *aggSpec) parseTerms(def gjson.Result) *esError {
	if !def.IsObject() {
		return errParsing(def.Index, "[terms] expected an object")
	}
	a.size, a.shardSize, a.minDocCount = 10, -1, 1
	var err *esError
	def.ForEach(func(k, v gjson.Result) bool {
		switch k.String() {
		case "field":
			a.field = v.String()
		case "size":
			n, e := intParam(v, "size")
			if e != nil {
				err = e
			} else if n <= 0 {
				err = wrapFieldErr("terms", "size", v.Index, errIllegalArg("[size] must be greater than 0. Found [%d] in [%s]", n, a.name))
			} else {
				a.size = n
			}
		case "shard_size":
			n, e := intParam(v, "shard_size")
			if e != nil {
				err = e
			} else if n <= 0 {
				err = wrapFieldErr("terms", "shard_size", v.Index, errIllegalArg("[shardSize] must be greater than 0. Found [%d] in [%s]", n, a.name))
			} else {
				a.shardSize = n
			}
		case "min_doc_count":
			n, e := intParam(v, "min_doc_count")
			if e != nil {
				err = e
			} else if n < 0 {
				err = wrapFieldErr("terms", "min_doc_count", v.Index, errIllegalArg("[minDocCount] must be greater than or equal to 0. Found [%d] in [%s]", n, a.name))
			} else {
				a.minDocCount = int64(n)
			}
		case "shard_min_doc_count":
			n, e := intParam(v, "shard_min_doc_count")
			if e != nil {
				err = e
			} else {
				a.shardMinDocCount = int64(n)
			}
		case "order":
			a.order, err = parseOrder(v)
		case "missing":
			a.missing = v
		case "value_type":
			a.valueType = v.String()
		case "show_term_doc_count_error":
			a.showErr = v.Bool()
		case "include", "exclude":
			var vals []string
			if v.IsArray() {
				for _, x := range v.Array() {
					vals = append(vals, scalarText(x))
				}
			} else {
				err = errUnsupportedf("terms [%s] patterns and partitions", k.String())
				return false
			}
			if k.String() == "include" {
				a.include = vals
			} else {
				a.exclude = vals
			}
		case "execution_hint", "collect_mode", "format":
			if k.String() == "format" {
				err = errUnsupportedf("terms [format]")
			}
		case "script":
			err = errUnsupportedf("scripts")
		default:
			err = errParsing(k.Index, "[terms] unknown field [%s]", k.String())
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	if a.field == "" {
		return errIllegalArg("Required one of fields [field, script], but none were specified. ")
	}
	return nil
}

func parseOrder(v gjson.Result) ([]orderSpec, *esError) {
	var out []orderSpec
	var err *esError
	one := func(o gjson.Result) {
		if !o.IsObject() {
			err = errParsing(o.Index, "Order elements must be objects")
			return
		}
		o.ForEach(func(k, d gjson.Result) bool {
			p := k.String()
			if p == "_term" || p == "_time" {
				err = errUnsupportedf("deprecated order [%s]", p)
				return false
			}
			switch strings.ToLower(d.String()) {
			case "asc":
				out = append(out, orderSpec{path: p})
			case "desc":
				out = append(out, orderSpec{path: p, desc: true})
			default:
				err = errParsing(d.Index, "Unknown terms order direction [%s]", d.String())
			}
			return err == nil
		})
	}
	if v.IsArray() {
		for _, o := range v.Array() {
			one(o)
			if err != nil {
				break
			}
		}
	} else {
		one(v)
	}
	return out, err
}

func (a *aggSpec) parseFilters(def gjson.Result) *esError {
	if !def.IsObject() {
		return errParsing(def.Index, "[filters] expected an object")
	}
	var err *esError
	seenFilters := false
	def.ForEach(func(k, v gjson.Result) bool {
		switch k.String() {
		case "filters":
			seenFilters = true
			if v.IsObject() {
				a.keyed = true
				type kf struct {
					k string
					q qnode
				}
				var list []kf
				v.ForEach(func(fk, fv gjson.Result) bool {
					q, e := parseQuery(fv)
					if e != nil {
						err = e
						return false
					}
					list = append(list, kf{fk.String(), q})
					return true
				})
				// Keyed filters are sorted by key with Java's String.compareTo (§9.3).
				sort.SliceStable(list, func(i, j int) bool { return utf16Less(list[i].k, list[j].k) })
				for _, x := range list {
					a.keys = append(a.keys, x.k)
					a.filters = append(a.filters, x.q)
				}
			} else if v.IsArray() {
				for _, fv := range v.Array() {
					q, e := parseQuery(fv)
					if e != nil {
						err = e
						return false
					}
					a.filters = append(a.filters, q)
				}
			} else {
				err = errParsing(v.Index, "Unknown token %s in [filters].", tokenName(v))
			}
		case "other_bucket":
			a.otherBucket = v.Bool()
		case "other_bucket_key":
			a.otherKey = v.String()
			a.otherBucket = true
		case "keyed":
			err = errUnsupportedf("filters [keyed] parameter")
		default:
			err = errParsing(k.Index, "Unknown key for a %s in [%s]: [%s].", tokenName(v), a.name, k.String())
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	if !seenFilters || len(a.filters) == 0 {
		return errIllegalArg("[filters] cannot be empty.")
	}
	if a.otherKey == "" {
		a.otherKey = "_other_"
	}
	return nil
}

// utf16Less orders strings by UTF-16 code units, as Java's String.compareTo does.
func utf16Less(a, b string) bool {
	ra, rb := []rune(a), []rune(b)
	unit := func(r rune) (uint16, uint16) {
		if r >= 0x10000 {
			r -= 0x10000
			return uint16(0xD800 + (r >> 10)), uint16(0xDC00 + (r & 0x3FF))
		}
		return uint16(r), 0
	}
	var ua, ub []uint16
	for _, r := range ra {
		x, y := unit(r)
		ua = append(ua, x)
		if y != 0 {
			ua = append(ua, y)
		}
	}
	for _, r := range rb {
		x, y := unit(r)
		ub = append(ub, x)
		if y != 0 {
			ub = append(ub, y)
		}
	}
	for i := 0; i < len(ua) && i < len(ub); i++ {
		if ua[i] != ub[i] {
			return ua[i] < ub[i]
		}
	}
	return len(ua) < len(ub)
}

func (a *aggSpec) parseMetric(def gjson.Result) *esError {
	if !def.IsObject() {
		return errParsing(def.Index, "[%s] expected an object", a.typ)
	}
	var err *esError
	def.ForEach(func(k, v gjson.Result) bool {
		switch k.String() {
		case "field":
			a.field = v.String()
		case "missing":
			a.missing = v
		case "value_type":
			a.valueType = v.String()
		case "script", "format":
			err = errUnsupportedf("[%s] in [%s] aggregations", k.String(), a.typ)
		default:
			err = errParsing(k.Index, "[%s] unknown field [%s]", a.typ, k.String())
		}
		return err == nil
	})
	if err == nil && a.field == "" {
		err = errIllegalArg("Required one of fields [field, script], but none were specified. ")
	}
	return err
}

// --- shard-level collection ---

type keyKind uint8

const (
	kString keyKind = iota
	kLong
	kDouble
)

type akey struct {
	kind keyKind
	s    string
	i    int64
	f    float64
}

func (k akey) less(o akey) bool {
	switch {
	case k.kind == kString:
		return k.s < o.s
	case k.kind == kLong && o.kind == kLong:
		return k.i < o.i
	}
	return k.float() < o.float()
}

func (k akey) float() float64 {
	if k.kind == kLong {
		return float64(k.i)
	}
	return k.f
}

// keyFormat says how a terms key prints: raw, boolean (1/0 with "true"/"false") or a date.
type keyFormat struct {
	kind  byte // 'r', 'b', 'd'
	date  *dateFormat
	nanos bool
}

// aggRes is an aggregation's result on one index, and after reduction.
type aggRes struct {
	spec *aggSpec

	// metrics
	count     int64
	sum, comp float64
	min, max  float64
	valFmt    keyFormat

	// filter
	docCount int64
	subs     []*aggRes

	// filters: one bucket per filter, then the other bucket
	buckets []*aggBucket

	// terms
	tb        []*aggBucket
	other     int64
	shardSize int
	errBound  int64
	keyFmt    keyFormat
	unmapped  bool
	termsKind keyKind // the keys' kind by the field's type, which typed_keys names
}

type aggBucket struct {
	key      akey
	docCount int64
	docErr   int64
	subs     []*aggRes
	bits     bitset
}

// aggCtx collects aggregations on one index.
type aggCtx struct {
	*execCtx
}

func (c aggCtx) collect(specs []*aggSpec, docs bitset) ([]*aggRes, *esError) {
	out := make([]*aggRes, 0, len(specs))
	for _, a := range specs {
		var r *aggRes
		var err *esError
		switch a.typ {
		case "terms":
			r, err = c.terms(a, docs)
		case "filter":
			r, err = c.filterAgg(a, docs)
		case "filters":
			r, err = c.filtersAgg(a, docs)
		default:
			r, err = c.metric(a, docs)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

func and(a, b bitset) bitset {
	out := make(bitset, len(a))
	for i := range out {
		if i < len(b) {
			out[i] = a[i] & b[i]
		}
	}
	return out
}

func (c aggCtx) filterAgg(a *aggSpec, docs bitset) (*aggRes, *esError) {
	q, err := c.run(a.filter)
	if err != nil {
		return nil, err
	}
	b := and(docs, q.bits)
	r := &aggRes{spec: a, docCount: int64(popcount(b))}
	if r.subs, err = c.collect(a.subs, b); err != nil {
		return nil, err
	}
	return r, nil
}

func (c aggCtx) filtersAgg(a *aggSpec, docs bitset) (*aggRes, *esError) {
	r := &aggRes{spec: a}
	var union bitset
	if a.otherBucket {
		union = newBitset(c.n)
	}
	for _, f := range a.filters {
		q, err := c.run(f)
		if err != nil {
			return nil, err
		}
		b := and(docs, q.bits)
		bk := &aggBucket{docCount: int64(popcount(b))}
		if bk.subs, err = c.collect(a.subs, b); err != nil {
			return nil, err
		}
		r.buckets = append(r.buckets, bk)
		if union != nil {
			for i := range union {
				union[i] |= q.bits[i]
			}
		}
	}
	if a.otherBucket {
		b := make(bitset, len(docs))
		for i := range b {
			b[i] = docs[i] &^ union[i]
		}
		bk := &aggBucket{docCount: int64(popcount(b))}
		var err *esError
		if bk.subs, err = c.collect(a.subs, b); err != nil {
			return nil, err
		}
		r.buckets = append(r.buckets, bk)
	}
	return r, nil
}

// valuesSource resolves an aggregation's field on this index.
func (c aggCtx) valuesSource(a *aggSpec) (*field, ftype, *esError) {
	if a.field == "_index" {
		return nil, tKeyword, nil
	}
	if a.field == "_id" {
		return nil, 0, errIllegalArg("Fielddata access on the _id field is disallowed, you can re-enable it by updating the dynamic cluster setting: indices.id_field_data.enabled")
	}
	f := c.ix.m.fields[a.field]
	if f == nil {
		if strings.HasPrefix(a.field, "_") {
			return nil, 0, errUnsupportedf("aggregations on metadata field [%s]", a.field)
		}
		if a.valueType != "" {
			t, ok := map[string]ftype{"string": tKeyword, "keyword": tKeyword, "long": tLong, "double": tDouble, "date": tDate, "boolean": tBoolean, "numeric": tDouble, "number": tDouble}[a.valueType]
			if !ok {
				return nil, 0, errUnsupportedf("value_type [%s]", a.valueType)
			}
			return nil, t, nil
		}
		return nil, 0, nil
	}
	switch f.typ {
	case tOpaque:
		return nil, 0, errUnsupportedf("aggregations on field [%s] of type [%s]", a.field, f.typeName)
	case tText:
		return nil, 0, errIllegalArg("Text fields are not optimised for operations that require per-document field data like aggregations and sorting, so these operations are disabled by default. Please use a keyword field instead. Alternatively, set fielddata=true on [%s] in order to load field data by uninverting the inverted index. Note that this can use significant memory.", a.field)
	case tObject:
		return nil, 0, errIllegalArg("Field [%s] of type [object] is not supported for aggregation [%s]", a.field, a.typ)
	case tDateNanos:
		return nil, 0, errUnsupportedf("aggregations on date_nanos field [%s]", a.field)
	}
	if !f.docValues {
		return nil, 0, errIllegalArg("Can't load fielddata on [%s] because fielddata is unsupported on fields of type [%s]. Use doc values instead.", a.field, f.typ)
	}
	return f, f.typ, nil
}

// termsKindOf is the kind of terms keys a field type gives: keyword strings, longs for the long
// family, dates and booleans, doubles for floating-point types.
func termsKindOf(t ftype) keyKind {
	switch {
	case t == tKeyword || t == 0:
		return kString
	case t.isLongType():
		return kLong
	}
	return kDouble
}

func fmtFor(f *field, t ftype) keyFormat {
	switch t {
	case tBoolean:
		return keyFormat{kind: 'b'}
	case tDate, tDateNanos:
		df, _ := parseDateFormat(defaultDateFormat)
		if f != nil {
			df = f.dateFmt
		}
		return keyFormat{kind: 'd', date: df, nanos: t == tDateNanos}
	}
	return keyFormat{kind: 'r'}
}

// missingKey converts a terms missing value to a key of type t.
func missingKey(a *aggSpec, f *field, t ftype) (akey, *esError) {
	v := a.missing
	switch {
	case t == tKeyword:
		return akey{kind: kString, s: scalarText(v)}, nil
	case t == tBoolean:
		x, ok := parseBoolValue(v)
		if !ok {
			return akey{}, errIllegalArg("Can't parse boolean value [%s], expected [true] or [false]", scalarText(v))
		}
		return akey{kind: kLong, i: x}, nil
	case t == tDate:
		df, _ := parseDateFormat(defaultDateFormat)
		if f != nil {
			df = f.dateFmt
		}
		x, err := df.parse(scalarText(v), false, nil, false)
		if err != nil {
			return akey{}, newErr(400, "parse_exception", "failed to parse date field [%s] with format [%s]", scalarText(v), df.spec)
		}
		return akey{kind: kLong, i: x}, nil
	case t.isIntegerFamily():
		x, err := strconv.ParseInt(scalarText(v), 10, 64)
		if err != nil {
			d, e2 := strconv.ParseFloat(scalarText(v), 64)
			if e2 != nil {
				return akey{}, newErr(400, "number_format_exception", "For input string: \"%s\"", scalarText(v))
			}
			x = int64(d)
		}
		return akey{kind: kLong, i: x}, nil
	}
	d, err := strconv.ParseFloat(scalarText(v), 64)
	if err != nil {
		return akey{}, newErr(400, "number_format_exception", "For input string: \"%s\"", scalarText(v))
	}
	// A missing value stays a double even on a float field: Elasticsearch 8.15.0 gives it a
	// bucket of its own (key 1.2 beside the field's 1.2000000476837158), found by conform fuzz.
	return akey{kind: kDouble, f: d}, nil
}

// includeKey converts an include or exclude value like a missing value, rounded to the
// field's float precision so that it names the field's own keys.
func includeKey(a *aggSpec, f *field, t ftype) (akey, *esError) {
	k, err := missingKey(a, f, t)
	if err == nil && k.kind == kDouble && (t == tFloat || t == tHalfFloat) {
		k.f = float64(float32(k.f))
	}
	return k, err
}

// docKeys appends the distinct keys of doc for field f of type t.
func docKeys(f *field, t ftype, doc int, out []akey) []akey {
	d := f.data
	lo, hi := d.span(doc)
	switch {
	case t == tKeyword:
		for _, id := range d.ids[lo:hi] {
			out = append(out, akey{kind: kString, s: d.terms[id]})
		}
	case t == tScaledFloat:
		// ScaledFloatLeafFieldData.getDoubleValues: the stored long times scalingFactorInverse
		// = 1d / scalingFactor, in doubles; the field data's numeric type is DOUBLE, so terms
		// keys and metrics are doubles (ScaledFloatFieldMapper.java, Elasticsearch 8.15).
		inv := 1 / f.scaling
		for k := lo; k < hi; k++ {
			if k > lo && d.i64[k] == d.i64[k-1] {
				continue
			}
			out = append(out, akey{kind: kDouble, f: float64(d.i64[k]) * inv})
		}
	case t.isLongType():
		for k := lo; k < hi; k++ {
			if k > lo && d.i64[k] == d.i64[k-1] {
				continue
			}
			out = append(out, akey{kind: kLong, i: d.i64[k]})
		}
	default:
		for k := lo; k < hi; k++ {
			if k > lo && d.f64[k] == d.f64[k-1] {
				continue
			}
			out = append(out, akey{kind: kDouble, f: d.f64[k]})
		}
	}
	return out
}

func (c aggCtx) terms(a *aggSpec, docs bitset) (*aggRes, *esError) {
	f, t, err := c.valuesSource(a)
	if err != nil {
		return nil, err
	}
	r := &aggRes{spec: a, keyFmt: fmtFor(f, t)}
	order := effectiveOrder(a.order)
	defer func() { r.termsKind = termsKindOf(t) }()
	r.shardSize = a.shardSize
	if r.shardSize < 0 {
		if isKeyOrder(order) {
			r.shardSize = a.size
		} else {
			r.shardSize = int(math.Min(math.MaxInt32, float64(a.size)*1.5+10))
		}
	}
	if r.shardSize < a.size {
		r.shardSize = a.size
	}
	hasMissing := a.missing.Exists() && a.missing.Type != gjson.Null
	if f == nil && a.field != "_index" && hasMissing && t == 0 {
		// An unmapped field with a missing value aggregates as keyword, the terms default.
		t = tKeyword
	}
	if f == nil && a.field != "_index" && !hasMissing {
		r.unmapped = true
		return r, nil
	}
	var mkey akey
	if hasMissing {
		if mkey, err = missingKey(a, f, t); err != nil {
			return nil, err
		}
	}
	// Count documents per key, and keep each key's documents when sub-aggregations need them.
	type entry struct {
		key   akey
		count int64
		bits  bitset
	}
	index := map[akey]*entry{}
	var entries []*entry
	needBits := len(a.subs) > 0
	get := func(k akey) *entry {
		if k.kind == kDouble && k.f == 0 {
			k.f = 0 // -0.0 and 0.0 are one key
		}
		e := index[k]
		if e == nil {
			e = &entry{key: k}
			if needBits {
				e.bits = newBitset(c.n)
			}
			index[k] = e
			entries = append(entries, e)
		}
		return e
	}
	if f != nil && t == tKeyword && !needBits {
		// Fast path: count term ids, and documents without a value for the missing bucket.
		d := f.data
		counts := make([]int64, len(d.terms))
		var none int64
		forEach(docs, func(doc int) {
			lo, hi := d.span(doc)
			if lo == hi {
				none++
			}
			for _, id := range d.ids[lo:hi] {
				counts[id]++
			}
		})
		for id, n := range counts {
			if n > 0 || a.minDocCount == 0 {
				e := get(akey{kind: kString, s: d.terms[id]})
				e.count += n
			}
		}
		if hasMissing && (none > 0 || a.minDocCount == 0) {
			// At min_doc_count 0 the missing value is a bucket even when no document lacks
			// a value (measured on 8.15.0: missing "AAA" on sku gives a zero-count bucket).
			get(mkey).count += none
		}
	} else {
		var buf []akey
		forEach(docs, func(doc int) {
			buf = buf[:0]
			if a.field == "_index" {
				buf = append(buf, akey{kind: kString, s: c.ix.name})
			} else if f != nil {
				buf = docKeys(f, t, doc, buf)
			}
			if len(buf) == 0 && hasMissing {
				buf = append(buf, mkey)
			}
			seen := 0
			for i, k := range buf {
				dup := false
				for _, p := range buf[:i] {
					if p == k {
						dup = true
					}
				}
				if dup {
					continue
				}
				seen++
				e := get(k)
				e.count++
				if needBits {
					e.bits.set(doc)
				}
			}
		})
		if a.minDocCount == 0 && f != nil {
			// Zero-count buckets for every term of the index (keyword: every term ever
			// indexed, as Lucene's terms dictionary holds them until a merge; numeric: the
			// values of live documents).
			if t == tKeyword {
				for _, s := range f.data.terms {
					get(akey{kind: kString, s: s})
				}
				if hasMissing {
					// The missing value joins the field's terms (measured on 8.15.0: a
					// zero-count bucket for it).
					get(mkey)
				}
			} else {
				var buf2 []akey
				forEach(c.ix.live, func(doc int) {
					buf2 = docKeys(f, t, doc, buf2[:0])
					if len(buf2) == 0 && hasMissing {
						// A live document without a value has the missing value, so it
						// names a zero-count bucket too (measured on Elasticsearch 8.15.0: a
						// float field's missing 3.6 appears as key 3.6 with doc_count 0).
						buf2 = append(buf2, mkey)
					}
					for _, k := range buf2 {
						get(k)
					}
				})
			}
		}
	}
	if len(a.include) > 0 || len(a.exclude) > 0 {
		// Include and exclude values are parsed like the field's values (dates with the
		// field's format), then compared as keys.
		conv := func(vals []string) (map[akey]bool, *esError) {
			m := map[akey]bool{}
			for _, v := range vals {
				spec := &aggSpec{missing: gjson.Parse(jsonString(v))}
				k, err := includeKey(spec, f, t)
				if err != nil {
					return nil, err
				}
				m[k] = true
			}
			return m, nil
		}
		inc, err := conv(a.include)
		if err != nil {
			return nil, err
		}
		exc, err := conv(a.exclude)
		if err != nil {
			return nil, err
		}
		keep := entries[:0]
		for _, e := range entries {
			if len(a.include) > 0 && !inc[e.key] || exc[e.key] {
				continue
			}
			keep = append(keep, e)
		}
		entries = keep
	}
	var total int64
	var buckets []*aggBucket
	for _, e := range entries {
		total += e.count
		if e.count < a.shardMinDocCount || e.count == 0 && a.minDocCount > 0 {
			continue
		}
		b := &aggBucket{key: e.key, docCount: e.count, bits: e.bits}
		buckets = append(buckets, b)
	}
	// Sub-aggregations: needed for every candidate bucket when the order uses them.
	subOrder := orderUsesSubs(order)
	computeSubs := func(bs []*aggBucket) *esError {
		for _, b := range bs {
			if b.subs != nil || len(a.subs) == 0 {
				continue
			}
			bits := b.bits
			if bits == nil {
				bits = newBitset(c.n)
			}
			var err *esError
			if b.subs, err = c.collect(a.subs, bits); err != nil {
				return err
			}
		}
		return nil
	}
	if subOrder {
		if err := validateOrderPaths(a, order); err != nil {
			return nil, err
		}
		if err := computeSubs(buckets); err != nil {
			return nil, err
		}
	}
	sortBuckets(buckets, order)
	if len(buckets) > r.shardSize {
		buckets = buckets[:r.shardSize]
	}
	var kept int64
	for _, b := range buckets {
		kept += b.docCount
	}
	r.other = total - kept
	if err := computeSubs(buckets); err != nil {
		return nil, err
	}
	for _, b := range buckets {
		b.bits = nil
	}
	r.tb = buckets
	return r, nil
}

// keyString is a key as include/exclude lists name it.
func keyString(k akey, f keyFormat) string {
	switch {
	case k.kind == kString:
		return k.s
	case f.kind == 'b':
		if k.i != 0 {
			return "true"
		}
		return "false"
	case f.kind == 'd':
		return f.date.format(k.i, f.nanos)
	case k.kind == kLong:
		return strconv.FormatInt(k.i, 10)
	}
	return javaDouble(k.f)
}

// effectiveOrder adds the key-ascending tie-breaker Elasticsearch adds to any order not ending
// in a key order (§8.2).
func effectiveOrder(o []orderSpec) []orderSpec {
	if len(o) == 0 {
		return []orderSpec{{path: "_count", desc: true}, {path: "_key"}}
	}
	if o[len(o)-1].path == "_key" {
		return o
	}
	return append(append([]orderSpec(nil), o...), orderSpec{path: "_key"})
}

func isKeyOrder(o []orderSpec) bool { return len(o) > 0 && o[0].path == "_key" }

func isCountDesc(o []orderSpec) bool { return len(o) > 0 && o[0].path == "_count" && o[0].desc }

func orderUsesSubs(o []orderSpec) bool {
	for _, x := range o {
		if x.path != "_key" && x.path != "_count" {
			return true
		}
	}
	return false
}

func validateOrderPaths(a *aggSpec, o []orderSpec) *esError {
	for _, x := range o {
		if x.path == "_key" || x.path == "_count" {
			continue
		}
		if _, ok := resolveOrderSpec(a.subs, x.path); !ok {
			return newErr(400, "aggregation_execution_exception", "Invalid aggregation order path [%s]. The provided aggregation [%s] either does not exist, or is a pipeline aggregation and cannot be used to sort the buckets.", x.path, strings.SplitN(strings.SplitN(x.path, ">", 2)[0], ".", 2)[0])
		}
	}
	return nil
}

// resolveOrderSpec checks that an order path names a sub-aggregation.
func resolveOrderSpec(subs []*aggSpec, path string) (*aggSpec, bool) {
	parts := strings.Split(path, ">")
	var cur *aggSpec
	list := subs
	for i, p := range parts {
		name := p
		if i == len(parts)-1 {
			name = strings.SplitN(p, ".", 2)[0]
		}
		cur = nil
		for _, s := range list {
			if s.name == name {
				cur = s
			}
		}
		if cur == nil {
			return nil, false
		}
		list = cur.subs
	}
	return cur, true
}

// orderValue reads the value an order path names in a bucket's sub-aggregations.
func orderValue(subs []*aggRes, path string) float64 {
	parts := strings.Split(path, ">")
	list := subs
	for i, p := range parts {
		name, prop := p, ""
		if i == len(parts)-1 {
			if j := strings.IndexByte(p, '.'); j >= 0 {
				name, prop = p[:j], p[j+1:]
			}
		}
		var cur *aggRes
		for _, s := range list {
			if s.spec.name == name {
				cur = s
			}
		}
		if cur == nil {
			return math.NaN()
		}
		if i < len(parts)-1 {
			list = cur.subs
			continue
		}
		switch cur.spec.typ {
		case "filter":
			return float64(cur.docCount)
		case "value_count":
			return float64(cur.count)
		case "min":
			return cur.min
		case "max":
			return cur.max
		case "sum":
			return cur.sum
		case "avg":
			if prop == "count" {
				return float64(cur.count)
			}
			return cur.sum / float64(cur.count)
		}
	}
	return math.NaN()
}

func sortBuckets(bs []*aggBucket, order []orderSpec) {
	sort.SliceStable(bs, func(i, j int) bool { return cmpBuckets(bs[i], bs[j], order) < 0 })
}

func cmpBuckets(a, b *aggBucket, order []orderSpec) int {
	for _, o := range order {
		c := 0
		switch o.path {
		case "_count":
			c = cmpI64(a.docCount, b.docCount)
		case "_key":
			if a.key.less(b.key) {
				c = -1
			} else if b.key.less(a.key) {
				c = 1
			}
		default:
			c = cmpFloat(orderValue(a.subs, o.path), orderValue(b.subs, o.path))
		}
		if o.desc {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

func cmpI64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// metric collects value_count, min, max, sum or avg.
func (c aggCtx) metric(a *aggSpec, docs bitset) (*aggRes, *esError) {
	r := &aggRes{spec: a, min: math.Inf(1), max: math.Inf(-1)}
	f, t, err := c.valuesSource(a)
	if err != nil {
		return nil, err
	}
	if a.field == "_index" {
		return nil, errUnsupportedf("metrics on [_index]")
	}
	if f == nil && t == 0 {
		if !a.missing.Exists() || a.missing.Type == gjson.Null {
			return r, nil
		}
		// An unmapped field with a missing value: ValuesSourceConfig#resolve takes the
		// aggregation's default values source (bytes for value_count, numbers for the
		// others) and every document holds the missing value (measured on Elasticsearch
		// 8.15.0: avg/max 1.0, sum 2.0 and value_count 2 over two documents).
		t = tDouble
		if a.typ == "value_count" {
			t = tKeyword
		}
	}
	if a.typ != "value_count" && (t == tKeyword) {
		return nil, errIllegalArg("Field [%s] of type [%s] is not supported for aggregation [%s]", a.field, t, a.typ)
	}
	if a.typ != "value_count" {
		r.valFmt = fmtFor(f, t)
	}
	var missing []float64
	if a.missing.Exists() && a.missing.Type != gjson.Null {
		if t == tKeyword {
			missing = []float64{0}
		} else {
			k, err := missingKey(a, f, t)
			if err != nil {
				return nil, err
			}
			missing = []float64{k.float()}
		}
	}
	add := func(v float64) {
		r.count++
		r.sum, r.comp = kahanAdd(r.sum, r.comp, v)
		if v < r.min {
			r.min = v
		}
		if v > r.max {
			r.max = v
		}
	}
	var d *fieldData
	if f != nil {
		d = f.data
	}
	inv := 0.0
	if t == tScaledFloat {
		inv = 1 / f.scaling // ScaledFloatLeafFieldData: long × (1d / scalingFactor)
	}
	forEach(docs, func(doc int) {
		lo, hi := 0, 0
		if d != nil {
			lo, hi = d.span(doc)
		}
		if lo == hi {
			for _, m := range missing {
				add(m)
			}
			return
		}
		switch {
		case t == tKeyword:
			r.count += int64(hi - lo)
		case t == tScaledFloat:
			for _, l := range d.i64[lo:hi] {
				add(float64(l) * inv)
			}
		case t.isLongType():
			for _, l := range d.i64[lo:hi] {
				add(float64(l))
			}
		default:
			for _, x := range d.f64[lo:hi] {
				add(x)
			}
		}
	})
	return r, nil
}

// kahanAdd is Elasticsearch's CompensatedSum.add.
func kahanAdd(sum, delta, v float64) (float64, float64) {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		sum = v + sum
	}
	if !math.IsInf(sum, 0) && !math.IsNaN(sum) {
		corrected := v + delta
		updated := sum + corrected
		delta = corrected - (updated - sum)
		sum = updated
	}
	return sum, delta
}

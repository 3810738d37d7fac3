package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// This file holds the request-aware relaxations: the divergences of OpenSearch 3.6 from
// Elasticsearch 8.15 that conform fuzz found and docs/OPENSEARCH.md documents with both
// engines' source. Each rule has two halves. The request half says whether the request has
// the shape that triggers the divergence (a sort key of a given type, a search_after value,
// a scaled_float bound where the two engines' roundings differ). The response half says
// which differences that divergence makes: a named error with its status, or a sort value
// that is the other bound, or the parts of the answer the divergent rule decides. Only a
// difference that passes both halves is excused; everything else in the response is still
// compared strictly.

// FieldTypes maps each field of the index to its mapping type; scaled_float fields also
// keep their scaling factor.
type FieldTypes map[string]FieldType

// FieldType is one field's mapping type.
type FieldType struct {
	Type          string
	ScalingFactor float64
}

// ParseFieldTypes reads the top-level properties of a mapping file ({"mappings":
// {"properties": ...}}, as fixtures write it, or the bare {"properties": ...}).
func ParseFieldTypes(mapping []byte) (FieldTypes, error) {
	var m struct {
		Mappings struct {
			Properties map[string]struct {
				Type          string  `json:"type"`
				ScalingFactor float64 `json:"scaling_factor"`
			} `json:"properties"`
		} `json:"mappings"`
		Properties map[string]struct {
			Type          string  `json:"type"`
			ScalingFactor float64 `json:"scaling_factor"`
		} `json:"properties"`
	}
	if len(bytes.TrimSpace(mapping)) == 0 {
		// A workload alone has no mapping: no field types, so the relaxations that need
		// them excuse nothing.
		return FieldTypes{}, nil
	}
	if err := json.Unmarshal(mapping, &m); err != nil {
		return nil, fmt.Errorf("reading the mapping's field types: %w", err)
	}
	props := m.Mappings.Properties
	if props == nil {
		props = m.Properties
	}
	ft := FieldTypes{}
	for name, p := range props {
		ft[name] = FieldType{Type: p.Type, ScalingFactor: p.ScalingFactor}
	}
	return ft, nil
}

// requestFacts are what the OpenSearch rules need to know about a request.
type requestFacts struct {
	// intKeys marks the sort keys (by position) on fields OpenSearch sorts as Lucene INT.
	intKeys map[int]bool
	// searchAfterIntOverflow: a search_after value for such a key is outside the int range.
	searchAfterIntOverflow bool
	// searchAfterNullKeyword: a search_after value for a keyword sort key is null.
	searchAfterNullKeyword bool
	// customMode: a sort key on an integer, float or date field has mode avg, sum or median.
	customMode bool
	// scaledFloatFirst: the first sort key is a scaled_float field.
	scaledFloatFirst bool
	// scaledFloatDivergent: a range bound or term value on a scaled_float field selects a
	// different stored long under OpenSearch's rounding than under Elasticsearch's.
	scaledFloatDivergent bool
	// searchAfterAggs: a search_after on a field's first sort key (not _doc or _score),
	// with aggregations and track_total_hits false.
	searchAfterAggs bool
}

// intSortTypes are the mapping types OpenSearch's IndexNumericFieldData.NumericType sorts as
// SortField.Type.INT (BOOLEAN, BYTE, SHORT, INT); Elasticsearch 8.15 sorts them as LONG.
var intSortTypes = map[string]bool{"integer": true, "short": true, "byte": true, "boolean": true}

// customModeTypes are the types on which OpenSearch 3.6 was seen to fail a sort with mode
// avg, sum or median (long, double, scaled_float and boolean sort).
var customModeTypes = map[string]bool{"integer": true, "float": true, "date": true}

func analyzeRequest(body []byte, ft FieldTypes) requestFacts {
	f := requestFacts{intKeys: map[int]bool{}}
	req := gjson.ParseBytes(body)
	var keys []gjson.Result
	switch s := req.Get("sort"); {
	case s.IsArray():
		keys = s.Array()
	case s.Exists():
		keys = []gjson.Result{s}
	}
	after := req.Get("search_after").Array()
	for i, k := range keys {
		field, mode := sortKey(k)
		t := ft[field].Type
		if i == 0 && t == "scaled_float" {
			f.scaledFloatFirst = true
		}
		if customModeTypes[t] && (mode == "avg" || mode == "sum" || mode == "median") {
			f.customMode = true
		}
		if intSortTypes[t] {
			f.intKeys[i] = true
			if i < len(after) && after[i].Type == gjson.Number && outsideInt(after[i].Raw) {
				f.searchAfterIntOverflow = true
			}
		}
		if t == "keyword" && i < len(after) && after[i].Type == gjson.Null {
			f.searchAfterNullKeyword = true
		}
	}
	f.scaledFloatDivergent = scaledFloatDivergent(req, ft)
	if len(keys) > 0 && len(after) > 0 && req.Get("track_total_hits").Type == gjson.False &&
		(req.Get("aggs").Exists() || req.Get("aggregations").Exists()) {
		field, _ := sortKey(keys[0])
		_, f.searchAfterAggs = ft[field]
	}
	return f
}

// sortKey returns a sort entry's field and mode: "price", {"price": "desc"} or
// {"price": {"order": "desc", "mode": "avg"}}.
func sortKey(k gjson.Result) (field, mode string) {
	if k.Type == gjson.String {
		return k.Str, ""
	}
	k.ForEach(func(key, v gjson.Result) bool {
		field = key.Str
		if v.IsObject() {
			mode = v.Get("mode").Str
		}
		return false
	})
	return field, mode
}

// outsideInt reports whether a JSON number is an integer outside Java's int range, which
// OpenSearch's search_after cast ((Number) value).intValue() wraps.
func outsideInt(raw string) bool {
	n, err := strconv.ParseInt(raw, 10, 64)
	if err != nil {
		// Not an int64: a fraction (truncated alike by both engines) or beyond the long range.
		f, ferr := strconv.ParseFloat(raw, 64)
		return ferr == nil && (f >= 1<<31 || f < -(1<<31))
	}
	return n > math.MaxInt32 || n < math.MinInt32
}

// scaledFloatDivergent walks every range, term and terms clause in the request (query and
// aggregations alike) for a bound on a scaled_float field where the two roundings differ.
func scaledFloatDivergent(v gjson.Result, ft FieldTypes) bool {
	found := false
	var walk func(v gjson.Result)
	walk = func(v gjson.Result) {
		if found {
			return
		}
		switch {
		case v.IsArray():
			for _, e := range v.Array() {
				walk(e)
			}
		case v.IsObject():
			v.ForEach(func(key, val gjson.Result) bool {
				switch key.Str {
				case "range", "term", "terms":
					val.ForEach(func(field, clause gjson.Result) bool {
						if t := ft[field.Str]; t.Type == "scaled_float" && t.ScalingFactor > 0 && clauseDiverges(key.Str, clause, t.ScalingFactor) {
							found = true
						}
						return !found
					})
				}
				walk(val)
				return !found
			})
		}
	}
	walk(v)
	return found
}

func clauseDiverges(kind string, clause gjson.Result, factor float64) bool {
	switch kind {
	case "range":
		for _, op := range []string{"gte", "gt", "lte", "lt"} {
			if b := clause.Get(op); b.Exists() {
				x, ok := number(b)
				if !ok {
					continue
				}
				lower, exclusive := op[0] == 'g', len(op) == 2
				if esBound(x, factor, lower, exclusive) != osBound(x, factor, lower, exclusive) {
					return true
				}
			}
		}
	case "term":
		if clause.IsObject() {
			clause = clause.Get("value")
		}
		if x, ok := number(clause); ok && javaRound(esScale(x, factor)) != javaRound(x*factor) {
			return true
		}
	case "terms":
		for _, e := range clause.Array() {
			if x, ok := number(e); ok && javaRound(esScale(x, factor)) != javaRound(x*factor) {
				return true
			}
		}
	}
	return false
}

func number(v gjson.Result) (float64, bool) {
	switch v.Type {
	case gjson.Number:
		return v.Num, true
	case gjson.String:
		f, err := strconv.ParseFloat(strings.TrimSpace(v.Str), 64)
		return f, err == nil
	}
	return 0, false
}

// esScale is Elasticsearch's query-time scale of a bound (ScaledFloatFieldMapper, 7.0 on):
// new BigDecimal(Double.toString(x)).multiply(BigDecimal.valueOf(factor)).doubleValue(). The
// shortest decimal that reads back as x stands for Double.toString's digits.
func esScale(x, factor float64) float64 {
	r, ok := new(big.Rat).SetString(strconv.FormatFloat(x, 'g', -1, 64))
	f, ok2 := new(big.Rat).SetString(strconv.FormatFloat(factor, 'g', -1, 64))
	if !ok || !ok2 {
		return x * factor
	}
	d, _ := r.Mul(r, f).Float64()
	return d
}

// esBound is the inclusive stored long Elasticsearch 8.15 gives a range bound: ceil for a
// lower bound (after Math.nextUp when exclusive), floor for an upper one (after nextDown).
func esBound(x, factor float64, lower, exclusive bool) int64 {
	d := esScale(x, factor)
	if lower {
		if exclusive {
			d = math.Nextafter(d, math.Inf(1))
		}
		return javaRound(math.Ceil(d))
	}
	if exclusive {
		d = math.Nextafter(d, math.Inf(-1))
	}
	return javaRound(math.Floor(d))
}

// osBound is the inclusive stored long OpenSearch 3.3+ gives a range bound: Math.round of
// the double product, then the long range's exclusive flag moves it by one.
func osBound(x, factor float64, lower, exclusive bool) int64 {
	n := javaRound(x * factor)
	switch {
	case exclusive && lower:
		n++
	case exclusive:
		n--
	}
	return n
}

// javaRound is Java's Math.round(double): the closest long, ties towards positive infinity,
// saturating at the long's bounds.
func javaRound(d float64) int64 {
	switch {
	case math.IsNaN(d):
		return 0
	case d >= math.MaxInt64:
		return math.MaxInt64
	case d <= math.MinInt64:
		return math.MinInt64
	}
	return int64(math.Floor(d + 0.5))
}

var sortValuePath = regexp.MustCompile(`^hits\.hits\[\d+\]\.sort\[(\d+)\]$`)

// hitClass reports whether c is a class of the hit list: which documents, in which order,
// with which sort values and sources.
func hitClass(c Class) bool { return c == ClassIDs || c == ClassSort || c == ClassSources }

// excuseOpenSearch marks the failing differences that an OpenSearch relaxation in bits
// excuses for this request.
func (x *Expectation) excuseOpenSearch(status int, body []byte, diffs []Difference, bits relaxBits, ft FieldTypes) {
	if len(x.request) == 0 || ft == nil {
		return
	}
	f := analyzeRequest(x.request, ft)
	excuse := func(r Relaxation, match func(d *Difference) bool) {
		for i := range diffs {
			if d := &diffs[i]; d.Fails && match(d) {
				d.Fails, d.Relaxed = false, r
			}
		}
	}
	all := func(*Difference) bool { return true }
	rootCause := ""
	if status == 500 {
		rootCause = gjson.GetBytes(body, "error.root_cause.0.type").Str
	}
	if bits&relaxOSSearchAfterNull != 0 && f.searchAfterNullKeyword && rootCause == "null_pointer_exception" {
		excuse(RelaxOSSearchAfterNullKeyword, all)
	}
	if bits&relaxOSSortMode != 0 && f.customMode &&
		(rootCause == "unsupported_operation_exception" || rootCause == "array_index_out_of_bounds_exception") {
		excuse(RelaxOSSortMode, all)
	}
	if bits&relaxOSIntSort != 0 && len(f.intKeys) > 0 {
		excuse(RelaxOSIntSort, func(d *Difference) bool {
			if f.searchAfterIntOverflow && hitClass(d.Class) {
				return true
			}
			m := sortValuePath.FindStringSubmatch(d.Path)
			if d.Class != ClassSort || m == nil {
				return false
			}
			k, _ := strconv.Atoi(m[1])
			return f.intKeys[k] && (d.Want == "9223372036854775807" && d.Got == "2147483647" ||
				d.Want == "-9223372036854775808" && d.Got == "-2147483648")
		})
	}
	if bits&relaxOSScaledFloatSort != 0 && f.scaledFloatFirst {
		excuse(RelaxOSScaledFloatSort, func(d *Difference) bool { return hitClass(d.Class) })
	}
	if bits&relaxOSSearchAfterAggs != 0 && f.searchAfterAggs {
		excuse(RelaxOSSearchAfterAggs, func(d *Difference) bool { return d.Class == ClassAggregations })
	}
	if bits&relaxOSScaledFloatRounding != 0 && f.scaledFloatDivergent {
		excuse(RelaxOSScaledFloatRounding, func(d *Difference) bool {
			return hitClass(d.Class) || d.Class == ClassTotals || d.Class == ClassAggregations
		})
	}
}

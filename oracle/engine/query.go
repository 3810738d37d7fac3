package engine

import (
	"math"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// qnode is a parsed query. Parsing checks the query's shape (parsing_exception, answered
// before any index is touched); execution against an index converts values by field type
// (shard-level failures) and yields matching documents and, when asked, scores.
type qnode interface{ kind() string }

type (
	qMatchAll  struct{ boost float32 }
	qMatchNone struct{}
	qTerm      struct {
		field           string
		value           gjson.Result
		boost           float32
		caseInsensitive bool
	}
	qTerms struct {
		field  string
		values []gjson.Result
		boost  float32
	}
	qRange struct {
		field            string
		gt, gte, lt, lte gjson.Result
		hasLo, hasHi     bool
		incLo, incHi     bool
		lo, hi           gjson.Result
		format, timeZone string
		boost            float32
	}
	qExists struct {
		field string
		boost float32
	}
	qIDs struct {
		values []string
		boost  float32
	}
	qPrefix struct {
		field           string
		value           string
		boost           float32
		caseInsensitive bool
	}
	qBool struct {
		must, filter, should, mustNot []qnode
		msm                           string
		boost                         float32
	}
	qConstant struct {
		filter qnode
		boost  float32
	}
	qMatch struct {
		field    string
		query    gjson.Result
		operator string
		msm      string
		boost    float32
	}
)

func (qMatchAll) kind() string  { return "match_all" }
func (qMatchNone) kind() string { return "match_none" }
func (qTerm) kind() string      { return "term" }
func (qTerms) kind() string     { return "terms" }
func (qRange) kind() string     { return "range" }
func (qExists) kind() string    { return "exists" }
func (qIDs) kind() string       { return "ids" }
func (qPrefix) kind() string    { return "prefix" }
func (qBool) kind() string      { return "bool" }
func (qConstant) kind() string  { return "constant_score" }
func (qMatch) kind() string     { return "match" }

// qCached marks a leaf filter whose matching documents an index may cache until its next
// write, keyed by the clause's JSON (Elasticsearch keeps a query cache for the same reason).
type qCached struct {
	raw string
	q   qnode
}

func (c qCached) kind() string { return c.q.kind() }

func cacheable(raw string, q qnode) qnode {
	if strings.Contains(raw, "now") {
		return q
	}
	return qCached{raw: raw, q: q}
}

// unsupportedQueries are Elasticsearch queries the engine knows by name but does not
// implement; anything else is an unknown query.
var unsupportedQueries = map[string]bool{
	"match_phrase": true, "match_phrase_prefix": true, "match_bool_prefix": true, "multi_match": true,
	"query_string": true, "simple_query_string": true, "combined_fields": true, "fuzzy": true,
	"regexp": true, "wildcard": true, "nested": true, "has_child": true, "has_parent": true,
	"function_score": true, "script_score": true, "script": true, "dis_max": true, "boosting": true,
	"geo_distance": true, "geo_bounding_box": true, "geo_shape": true, "more_like_this": true,
	"intervals": true, "span_term": true, "span_near": true, "pinned": true, "distance_feature": true,
	"terms_set": true, "percolate": true, "rank_feature": true, "knn": true, "semantic": true,
	"sparse_vector": true, "text_expansion": true, "wrapper": true, "shape": true, "parent_id": true,
}

func parseBoost(v gjson.Result) (float32, *esError) {
	if v.Type != gjson.Number && v.Type != gjson.String {
		return 0, errParsing(v.Index, "[boost] must be a number")
	}
	f, err := strconv.ParseFloat(v.String(), 32)
	if err != nil {
		return 0, errParsing(v.Index, "[boost] must be a number")
	}
	if f < 0 {
		return 0, errIllegalArg("negative [boost] are not allowed in [%s], use a value between 0 and 1 to deboost", v.Raw)
	}
	return float32(f), nil
}

// parseQuery parses a query object ({"term": {...}}).
func parseQuery(v gjson.Result) (qnode, *esError) {
	if !v.IsObject() {
		return nil, errParsing(v.Index, "[_na] query malformed, must start with start_object")
	}
	var name string
	var body gjson.Result
	n := 0
	v.ForEach(func(k, b gjson.Result) bool {
		n++
		if n == 1 {
			name, body = k.String(), b
		}
		return n < 2
	})
	if n == 0 {
		return nil, errParsing(v.Index, "query malformed, empty clause found at [1:%d]", v.Index+1)
	}
	if n > 1 {
		return nil, errParsing(v.Index, "[%s] malformed query, expected [END_OBJECT] but found [FIELD_NAME]", name)
	}
	switch name {
	case "match_all":
		q := qMatchAll{boost: 1}
		var err *esError
		body.ForEach(func(k, p gjson.Result) bool {
			switch k.String() {
			case "boost":
				q.boost, err = parseBoost(p)
			case "_name":
				err = errNamedQuery()
			default:
				err = errParsing(k.Index, "[match_all] query does not support [%s]", k.String())
			}
			return err == nil
		})
		return q, err
	case "match_none":
		return qMatchNone{}, nil
	case "term":
		q, err := parseTermLike(name, body)
		if err != nil {
			return nil, err
		}
		return cacheable(v.Raw, q), nil
	case "prefix":
		q, err := parseTermLike(name, body)
		if err != nil {
			return nil, err
		}
		t := q.(qTerm)
		if t.value.Type != gjson.String {
			return qPrefix{field: t.field, value: scalarText(t.value), boost: t.boost, caseInsensitive: t.caseInsensitive}, nil
		}
		return qPrefix{field: t.field, value: t.value.String(), boost: t.boost, caseInsensitive: t.caseInsensitive}, nil
	case "terms":
		q, err := parseTerms(body)
		if err != nil {
			return nil, err
		}
		return cacheable(v.Raw, q), nil
	case "range":
		q, err := parseRange(body)
		if err != nil {
			return nil, err
		}
		return cacheable(v.Raw, q), nil
	case "exists":
		q := qExists{boost: 1}
		var err *esError
		body.ForEach(func(k, p gjson.Result) bool {
			switch k.String() {
			case "field":
				q.field = p.String()
			case "boost":
				q.boost, err = parseBoost(p)
			case "_name":
				err = errNamedQuery()
			default:
				err = errParsing(k.Index, "[exists] query does not support [%s]", k.String())
			}
			return err == nil
		})
		if err == nil && q.field == "" {
			err = errParsing(body.Index, "[exists] must be provided with a [field]")
		}
		if err != nil {
			return nil, err
		}
		return cacheable(v.Raw, q), nil
	case "ids":
		q := qIDs{boost: 1}
		var err *esError
		body.ForEach(func(k, p gjson.Result) bool {
			switch k.String() {
			case "values":
				if !p.IsArray() {
					err = errParsing(p.Index, "[ids] values must be an array")
					return false
				}
				for _, x := range p.Array() {
					q.values = append(q.values, scalarText(x))
				}
			case "boost":
				q.boost, err = parseBoost(p)
			case "_name":
				err = errNamedQuery()
			default:
				err = errParsing(k.Index, "[ids] query does not support [%s]", k.String())
			}
			return err == nil
		})
		return q, err
	case "bool":
		return parseBool(body)
	case "constant_score":
		q := qConstant{boost: 1}
		var err *esError
		body.ForEach(func(k, p gjson.Result) bool {
			switch k.String() {
			case "filter":
				q.filter, err = parseQuery(p)
			case "boost":
				q.boost, err = parseBoost(p)
			case "_name":
				err = errNamedQuery()
			default:
				err = errParsing(k.Index, "[constant_score] query does not support [%s]", k.String())
			}
			return err == nil
		})
		if err == nil && q.filter == nil {
			err = errParsing(body.Index, "[constant_score] requires a 'filter' element")
		}
		return q, err
	case "match":
		return parseMatch(body)
	}
	if unsupportedQueries[name] {
		return nil, errUnsupportedf("query [%s]", name)
	}
	return nil, errParsing(v.Index, "unknown query [%s]", name)
}

// errNamedQuery declines a query holding _name. Elasticsearch answers such a search with
// matched_queries in each hit (MatchedQueriesPhase: every named query of the query and
// post_filter matched against the hit alone; the names in the order of a java.util.HashMap
// over them, measured on 8.15.0: ["zz","a","b","pf","Q9","match_field_1"]; an object of scores
// with include_named_queries_score), which the engine does not produce.
func errNamedQuery() *esError {
	return errUnsupportedf("named queries ([_name]; matched_queries in hits)")
}

// scalarText is the string Elasticsearch makes of a JSON scalar in a query: strings as they
// are, integers as written, decimals as Java prints the parsed double.
func scalarText(v gjson.Result) string {
	switch v.Type {
	case gjson.String:
		return v.String()
	case gjson.Number:
		if isIntegerLiteral(v.Raw) {
			return v.Raw
		}
		return javaDouble(v.Float())
	case gjson.True:
		return "true"
	case gjson.False:
		return "false"
	}
	return v.Raw
}

func singleField(name string, body gjson.Result) (string, gjson.Result, *esError) {
	if !body.IsObject() {
		return "", gjson.Result{}, errParsing(body.Index, "[%s] query malformed, no start_object after query name", name)
	}
	var field string
	var val gjson.Result
	n := 0
	var err *esError
	body.ForEach(func(k, v gjson.Result) bool {
		if k.String() == "_name" {
			err = errNamedQuery()
			return false
		}
		if k.String() == "boost" {
			return true
		}
		n++
		if n > 1 {
			err = errParsing(k.Index, "[%s] query doesn't support multiple fields, found [%s] and [%s]", name, field, k.String())
			return false
		}
		field, val = k.String(), v
		return true
	})
	if err != nil {
		return "", val, err
	}
	if n == 0 {
		return "", val, errIllegalArg("[%s] query requires a field", name)
	}
	return field, val, nil
}

func parseTermLike(name string, body gjson.Result) (qnode, *esError) {
	field, val, err := singleField(name, body)
	if err != nil {
		return nil, err
	}
	q := qTerm{field: field, boost: 1}
	if val.IsObject() {
		val.ForEach(func(k, p gjson.Result) bool {
			switch k.String() {
			case "value":
				q.value = p
			case "boost":
				q.boost, err = parseBoost(p)
			case "case_insensitive":
				q.caseInsensitive = p.Bool()
			case "_name":
				err = errNamedQuery()
			case "rewrite":
			default:
				err = errParsing(k.Index, "[%s] query does not support [%s]", name, k.String())
			}
			return err == nil
		})
		if err != nil {
			return nil, err
		}
	} else {
		q.value = val
	}
	if q.value.Type == gjson.Null || !q.value.Exists() {
		return nil, errIllegalArg("value cannot be null")
	}
	if q.value.IsArray() || q.value.IsObject() {
		return nil, errParsing(q.value.Index, "[%s] query does not support array of values", name)
	}
	return q, nil
}

func parseTerms(body gjson.Result) (qnode, *esError) {
	if !body.IsObject() {
		return nil, errParsing(body.Index, "[terms] query malformed, no start_object after query name")
	}
	q := qTerms{boost: 1}
	var err *esError
	n := 0
	body.ForEach(func(k, v gjson.Result) bool {
		switch k.String() {
		case "boost":
			q.boost, err = parseBoost(v)
			return err == nil
		case "_name":
			err = errNamedQuery()
			return false
		}
		n++
		if n > 1 {
			err = errParsing(k.Index, "[terms] query does not support multiple fields")
			return false
		}
		q.field = k.String()
		if v.IsObject() {
			err = errUnsupportedf("terms lookup")
			return false
		}
		if !v.IsArray() {
			err = errParsing(v.Index, "[terms] query does not support [%s]", q.field)
			return false
		}
		for _, x := range v.Array() {
			if x.Type == gjson.Null {
				err = errParsing(x.Index, "No value specified for terms query")
				return false
			}
			if x.IsArray() || x.IsObject() {
				err = errParsing(x.Index, "[terms] query does not support nested values")
				return false
			}
			q.values = append(q.values, x)
		}
		return true
	})
	if err == nil && n == 0 {
		err = errParsing(body.Index, "[terms] query requires a field name, followed by array of terms or a document lookup specification")
	}
	return q, err
}

func parseRange(body gjson.Result) (qnode, *esError) {
	field, val, err := singleField("range", body)
	if err != nil {
		return nil, err
	}
	if !val.IsObject() {
		return nil, errParsing(val.Index, "[range] query malformed, after field missing start object")
	}
	q := qRange{field: field, boost: 1, incLo: true, incHi: true}
	val.ForEach(func(k, p gjson.Result) bool {
		switch k.String() {
		case "gt":
			q.lo, q.hasLo, q.incLo = p, p.Type != gjson.Null, false
		case "gte":
			q.lo, q.hasLo, q.incLo = p, p.Type != gjson.Null, true
		case "lt":
			q.hi, q.hasHi, q.incHi = p, p.Type != gjson.Null, false
		case "lte":
			q.hi, q.hasHi, q.incHi = p, p.Type != gjson.Null, true
		case "from":
			q.lo, q.hasLo = p, p.Type != gjson.Null
		case "to":
			q.hi, q.hasHi = p, p.Type != gjson.Null
		case "include_lower":
			q.incLo = p.Bool()
		case "include_upper":
			q.incHi = p.Bool()
		case "format":
			q.format = p.String()
		case "time_zone":
			q.timeZone = p.String()
		case "boost":
			q.boost, err = parseBoost(p)
		case "relation":
			if r := strings.ToLower(p.String()); r != "intersects" {
				err = errUnsupportedf("range relation [%s]", p.String())
			}
		case "_name":
			err = errNamedQuery()
		default:
			err = errParsing(k.Index, "[range] query does not support [%s]", k.String())
		}
		return err == nil
	})
	if err != nil {
		return nil, err
	}
	for _, b := range []gjson.Result{q.lo, q.hi} {
		if b.IsArray() || b.IsObject() {
			return nil, errParsing(b.Index, "[range] query does not support [%s]", b.Raw)
		}
	}
	return q, nil
}

func parseClauses(v gjson.Result) ([]qnode, *esError) {
	if v.IsArray() {
		var out []qnode
		for _, x := range v.Array() {
			q, err := parseQuery(x)
			if err != nil {
				return nil, err
			}
			out = append(out, q)
		}
		return out, nil
	}
	q, err := parseQuery(v)
	if err != nil {
		return nil, err
	}
	return []qnode{q}, nil
}

func parseBool(body gjson.Result) (qnode, *esError) {
	if !body.IsObject() {
		return nil, errParsing(body.Index, "[bool] query malformed, no start_object after query name")
	}
	q := qBool{boost: 1}
	var err *esError
	body.ForEach(func(k, v gjson.Result) bool {
		var cs []qnode
		switch k.String() {
		case "must":
			cs, err = parseClauses(v)
			q.must = append(q.must, cs...)
		case "filter":
			cs, err = parseClauses(v)
			q.filter = append(q.filter, cs...)
		case "should":
			cs, err = parseClauses(v)
			q.should = append(q.should, cs...)
		case "must_not", "mustNot":
			cs, err = parseClauses(v)
			q.mustNot = append(q.mustNot, cs...)
		case "minimum_should_match":
			q.msm = v.String()
		case "boost":
			q.boost, err = parseBoost(v)
		case "_name":
			err = errNamedQuery()
		case "adjust_pure_negative":
		default:
			err = errParsing(k.Index, "[bool] query does not support [%s]", k.String())
		}
		return err == nil
	})
	return q, err
}

func parseMatch(body gjson.Result) (qnode, *esError) {
	field, val, err := singleField("match", body)
	if err != nil {
		return nil, err
	}
	q := qMatch{field: field, boost: 1, operator: "or"}
	if val.IsObject() {
		val.ForEach(func(k, p gjson.Result) bool {
			switch k.String() {
			case "query":
				q.query = p
			case "operator":
				q.operator = strings.ToLower(p.String())
			case "minimum_should_match":
				q.msm = p.String()
			case "boost":
				q.boost, err = parseBoost(p)
			case "_name":
				err = errNamedQuery()
			case "auto_generate_synonyms_phrase_query":
			case "lenient", "analyzer", "fuzziness", "prefix_length", "max_expansions", "zero_terms_query", "cutoff_frequency", "fuzzy_transpositions":
				err = errUnsupportedf("match option [%s]", k.String())
			default:
				err = errParsing(k.Index, "[match] query does not support [%s]", k.String())
			}
			return err == nil
		})
		if err != nil {
			return nil, err
		}
	} else {
		q.query = val
	}
	if !q.query.Exists() || q.query.Type == gjson.Null {
		return nil, errParsing(body.Index, "No text specified for text query")
	}
	return q, nil
}

// minShouldMatch applies a minimum_should_match spec to n optional clauses, as
// Elasticsearch's Queries.calculateMinShouldMatch does for the forms it supports.
func minShouldMatch(spec string, n int) (int, *esError) {
	spec = strings.TrimSpace(spec)
	if strings.ContainsAny(spec, "< ") {
		return 0, errUnsupportedf("conditional minimum_should_match [%s]", spec)
	}
	var r int
	if strings.HasSuffix(spec, "%") {
		p, err := strconv.Atoi(spec[:len(spec)-1])
		if err != nil {
			return 0, errIllegalArg("invalid minimum_should_match [%s]", spec)
		}
		calc := float32(n*p) * (float32(1) / 100)
		if calc < 0 {
			r = n + int(calc)
		} else {
			r = int(calc)
		}
	} else {
		c, err := strconv.Atoi(spec)
		if err != nil {
			return 0, errIllegalArg("invalid minimum_should_match [%s]", spec)
		}
		if c < 0 {
			r = n + c
		} else {
			r = c
		}
	}
	if r < 0 {
		r = 0
	}
	return r, nil
}

// isIntegral reports whether a float has no fractional part.
func isIntegral(f float64) bool { return f == math.Trunc(f) }

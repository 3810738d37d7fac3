package conformance

import (
	"fmt"
	"slices"
	"strings"
)

// Relaxation names one deliberate loosening of the strict check. A relaxed difference is still
// recorded (with Difference.Relaxed set) but does not fail. Names are stable: they are printed
// in report headers and recorded in manifests, so results with different relaxations are never
// combined.
type Relaxation string

// The relaxations. Each says exactly which differences it stops failing.
const (
	// RelaxNumberKind accepts a number of the other kind with the same decimal value:
	// 129 for 129.0, 1e2 for 100. Different values still fail.
	RelaxNumberKind Relaxation = "ignore-number-kind"
	// RelaxFloat32 accepts two floating-point numbers that round to the same float32, so a
	// float field's value printed widened (4.099999904632568) matches its float32 text (4.1).
	// The formula: float32(want) == float32(got), both parsed as float64 first.
	RelaxFloat32 Relaxation = "float32-equal"
	// RelaxSumOtherDocCount ignores terms aggregations' sum_other_doc_count, including its
	// absence, for engines that count the remainder differently.
	RelaxSumOtherDocCount Relaxation = "ignore-sum-other-doc-count"
	// RelaxDocCountError ignores doc_count_error_upper_bound, which OpenSearch's concurrent
	// segment search can make non-zero on a single shard (ES-SEMANTICS.md §10.3).
	RelaxDocCountError Relaxation = "ignore-doc-count-error"
	// RelaxTotalsRelation ignores hits.total.relation ("eq" or "gte"), and its absence; the
	// value must still match.
	RelaxTotalsRelation Relaxation = "ignore-totals-relation"
	// RelaxTieOrder accepts hits in another order where the expected answer shows them tied:
	// within each run of consecutive expected hits whose whole sort tuple (or, in relevance
	// order, _score) is equal, the same multiset of _id in the same positions, each hit then
	// compared whole. At a page edge where the tie may continue beyond the page, a hit the
	// expected page does not hold is accepted only with the tie's sort values, its _source
	// unjudged (ties.go says exactly what is compared). conform shadow applies it by default:
	// its two engines lay out segments, and so order ties, differently.
	RelaxTieOrder Relaxation = "tie-order"
	// RelaxScores ignores the scores: every hit's _score, hits.max_score, and the sort values
	// of a _score sort key, including where the hits are in score order and scores would
	// fail. The hits must still be the same, in the same order, with the same sources and
	// the other sort values: what a gateway ranking on another engine can promise is the
	// order, not Lucene's BM25 numbers.
	RelaxScores Relaxation = "ignore-scores"

	// The OpenSearch relaxations each excuse one divergence of OpenSearch 3.6 from
	// Elasticsearch 8.15, found by conform fuzz and read in both engines' source
	// (docs/OPENSEARCH.md). Each is narrow twice over: it applies only to a request with the
	// shape that triggers the divergence, and only to the differences that divergence makes;
	// see opensearch.go for each rule. They need the mapping's field types (Options.Fields).

	// RelaxOSIntSort: OpenSearch sorts integer, short, byte and boolean fields as Lucene INT
	// where Elasticsearch 8.15 sorts them as LONG. A missing value then sorts with the int's
	// bounds (2147483647, -2147483648 instead of 9223372036854775807, -9223372036854775808),
	// and a search_after value outside the int range is cast to int.
	RelaxOSIntSort Relaxation = "opensearch-int-sort"
	// RelaxOSSearchAfterNullKeyword: a search_after with null for a keyword sort key can make
	// OpenSearch fail with HTTP 500 null_pointer_exception where Elasticsearch continues after
	// the documents without the field.
	RelaxOSSearchAfterNullKeyword Relaxation = "opensearch-search-after-null-keyword"
	// RelaxOSScaledFloatRounding: OpenSearch 3.3+ rounds a scaled_float range bound to the
	// nearest long (after a double multiplication) where Elasticsearch takes ceil and floor of
	// the decimal product; term values differ likewise at half points. Off the scaling grid
	// the two select different documents.
	RelaxOSScaledFloatRounding Relaxation = "opensearch-scaled-float-rounding"
	// RelaxOSScaledFloatSort: OpenSearch prunes a sort whose first key is a scaled_float with
	// the points of the field read as doubles, so the hits (their ids, sort values, sources)
	// can be wrong; totals and aggregations are still compared.
	RelaxOSScaledFloatSort Relaxation = "opensearch-scaled-float-sort"
	// RelaxOSSortMode: a sort with mode avg, sum or median on an integer, float or date field
	// can make OpenSearch fail with HTTP 500 (unsupported_operation_exception or
	// array_index_out_of_bounds_exception) where Elasticsearch sorts.
	RelaxOSSortMode Relaxation = "opensearch-sort-mode"
	// RelaxOSSearchAfterAggs: with track_total_hits false, OpenSearch leaves out of the
	// aggregations the documents a search_after on a field's first sort key skips;
	// Elasticsearch aggregates every match of the query.
	RelaxOSSearchAfterAggs Relaxation = "opensearch-search-after-aggs"

	// RelaxOpenSearch names the set of OpenSearch relaxations: giving it gives each of them,
	// and reports list them one by one.
	RelaxOpenSearch Relaxation = "opensearch"
)

// relaxGroups are names that stand for several relaxations on the command line.
var relaxGroups = map[Relaxation][]Relaxation{
	RelaxOpenSearch: {RelaxOSIntSort, RelaxOSSearchAfterNullKeyword, RelaxOSScaledFloatRounding, RelaxOSScaledFloatSort, RelaxOSSortMode, RelaxOSSearchAfterAggs},
}

var relaxations = []struct {
	r   Relaxation
	bit relaxBits
	doc string
}{
	{RelaxNumberKind, relaxNumberKind, "a number of the other kind with the same value passes (129 vs 129.0)"},
	{RelaxFloat32, relaxFloat32, "floats equal as float32 pass (4.1 vs 4.099999904632568)"},
	{RelaxSumOtherDocCount, relaxSumOther, "terms aggregations' sum_other_doc_count is not compared"},
	{RelaxDocCountError, relaxDocCountError, "doc_count_error_upper_bound is not compared"},
	{RelaxTotalsRelation, relaxTotalsRelation, "hits.total.relation is not compared"},
	{RelaxTieOrder, relaxTieOrder, "hits tied on their whole sort tuple (or score) may come in any order within the tie (shadow's default)"},
	{RelaxScores, relaxScores, "_score, max_score and _score sort values are not compared; the hits and their order still are"},
	{RelaxOSIntSort, relaxOSIntSort, "OpenSearch: integer and boolean sort keys as int (missing-value bounds ±2147483648, search_after cast to int)"},
	{RelaxOSSearchAfterNullKeyword, relaxOSSearchAfterNull, "OpenSearch: HTTP 500 null_pointer_exception for search_after with null on a keyword"},
	{RelaxOSScaledFloatRounding, relaxOSScaledFloatRounding, "OpenSearch: scaled_float range and term values rounded to the nearest long off the grid"},
	{RelaxOSScaledFloatSort, relaxOSScaledFloatSort, "OpenSearch: wrong hits when the first sort key is a scaled_float"},
	{RelaxOSSortMode, relaxOSSortMode, "OpenSearch: HTTP 500 for sort mode avg, sum or median on integer, float and date fields"},
	{RelaxOSSearchAfterAggs, relaxOSSearchAfterAggs, "OpenSearch: aggregations leave out what a search_after skips when track_total_hits is false"},
}

// Relaxations returns every relaxation with a one-line description, in stable order, for
// help texts, then the group names with the relaxations they stand for.
func Relaxations() []struct{ Name, Description string } {
	out := make([]struct{ Name, Description string }, len(relaxations), len(relaxations)+len(relaxGroups))
	for i, r := range relaxations {
		out[i].Name, out[i].Description = string(r.r), r.doc
	}
	var members []string
	for _, m := range relaxGroups[RelaxOpenSearch] {
		members = append(members, string(m))
	}
	out = append(out, struct{ Name, Description string }{string(RelaxOpenSearch), "all of " + strings.Join(members, ", ")})
	return out
}

// ParseRelaxations parses a comma-separated list of relaxation names, as given on the command
// line. An empty string is no relaxation. A group name ("opensearch") gives each of its
// members, so the result, and every report, names them one by one.
func ParseRelaxations(list string) ([]Relaxation, error) {
	var out []Relaxation
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		r := Relaxation(name)
		rs, group := relaxGroups[r]
		if !group {
			if r.bit() == 0 {
				return nil, fmt.Errorf("unknown relaxation %q (known: %s)", name, knownRelaxations())
			}
			rs = []Relaxation{r}
		}
		for _, r := range rs {
			if !slices.Contains(out, r) {
				out = append(out, r)
			}
		}
	}
	return out, nil
}

func knownRelaxations() string {
	names := make([]string, len(relaxations), len(relaxations)+1)
	for i, r := range relaxations {
		names[i] = string(r.r)
	}
	return strings.Join(append(names, string(RelaxOpenSearch)), ", ")
}

type relaxBits uint16

const (
	relaxNumberKind relaxBits = 1 << iota
	relaxFloat32
	relaxSumOther
	relaxDocCountError
	relaxTotalsRelation
	relaxOSIntSort
	relaxOSSearchAfterNull
	relaxOSScaledFloatRounding
	relaxOSScaledFloatSort
	relaxOSSortMode
	relaxOSSearchAfterAggs
	relaxTieOrder
	relaxScores

	// relaxRequestAware are the relaxations that look at the request and the mapping.
	relaxRequestAware = relaxOSIntSort | relaxOSSearchAfterNull | relaxOSScaledFloatRounding | relaxOSScaledFloatSort | relaxOSSortMode | relaxOSSearchAfterAggs
)

func (r Relaxation) bit() relaxBits {
	for _, k := range relaxations {
		if k.r == r {
			return k.bit
		}
	}
	return 0
}

// Options select how strict a check is. The zero value and nil are the strict defaults.
type Options struct {
	// Pedantic fails on the report-only classes too (key_order, took, shards, score, version,
	// other). Relaxations still apply.
	Pedantic bool
	// Relax lists the relaxations in effect. Unknown names are an error from Validate and are
	// otherwise ignored by Check.
	Relax []Relaxation
	// Fields are the index's field types, from the mapping (FieldTypes). The request-aware
	// relaxations (the OpenSearch ones) need them and the request (Expectation.ForRequest);
	// without either they excuse nothing.
	Fields FieldTypes
	// Index is what is known of the target's index (deleted documents, fields holding
	// several values), for the relation rule at exactly track_total_hits: whether the
	// target's "gte" is one Elasticsearch could give there. Readiness reads it; the zero
	// value knows nothing, and the rule then allows what either fact would allow.
	Index IndexFacts
	// OracleIndex is the same of the index the expected answers were made on (a live
	// oracle, shadow's primary): whether its "gte" at exactly track_total_hits may hide a
	// count of exactly N, so the target's "eq" is what Elasticsearch gives in another layout.
	// The zero value knows nothing.
	OracleIndex IndexFacts
}

// WithIndex returns a copy of o (nil is the strict defaults) holding what is known of the
// target's index.
func (o *Options) WithIndex(f IndexFacts) *Options {
	var c Options
	if o != nil {
		c = *o
	}
	c.Index = f
	return &c
}

// WithOracleIndex returns a copy of o (nil is the strict defaults) holding what is known of
// the index the expected answers were made on.
func (o *Options) WithOracleIndex(f IndexFacts) *Options {
	var c Options
	if o != nil {
		c = *o
	}
	c.OracleIndex = f
	return &c
}

// WithMapping returns a copy of o (nil is the strict defaults) whose Fields come from the
// mapping: the request-aware relaxations need them, and so does the relation rule at exactly
// track_total_hits (a range is counted by Lucene on a numeric or date field only). A mapping
// that cannot be read is an error.
func (o *Options) WithMapping(mapping []byte) (*Options, error) {
	if o != nil && o.Fields != nil {
		return o, nil
	}
	ft, err := ParseFieldTypes(mapping)
	if err != nil {
		return nil, err
	}
	var c Options
	if o != nil {
		c = *o
	}
	c.Fields = ft
	return &c, nil
}

// Validate reports an unknown relaxation name.
func (o *Options) Validate() error {
	if o == nil {
		return nil
	}
	for _, r := range o.Relax {
		if _, group := relaxGroups[r]; !group && r.bit() == 0 {
			return fmt.Errorf("unknown relaxation %q (known: %s)", r, knownRelaxations())
		}
	}
	return nil
}

// Names returns the names of the options in effect, in stable order: "pedantic" first if set,
// then the relaxations in the order Relaxations lists them. Strict defaults give none. This is
// what manifests record.
func (o *Options) Names() []string {
	if o == nil {
		return nil
	}
	var out []string
	if o.Pedantic {
		out = append(out, "pedantic")
	}
	bits := o.bits()
	for _, r := range relaxations {
		if bits&r.bit != 0 {
			out = append(out, string(r.r))
		}
	}
	return out
}

// String is the report header's description: "strict", "pedantic", or either followed by the
// relaxations, e.g. "strict, relaxed: ignore-number-kind, float32-equal".
func (o *Options) String() string {
	mode := "strict"
	if o != nil && o.Pedantic {
		mode = "pedantic"
	}
	var relaxed []string
	for _, n := range o.Names() {
		if n != "pedantic" {
			relaxed = append(relaxed, n)
		}
	}
	if len(relaxed) == 0 {
		return mode
	}
	return mode + ", relaxed: " + strings.Join(relaxed, ", ")
}

func (o *Options) bits() relaxBits {
	if o == nil {
		return 0
	}
	var b relaxBits
	for _, r := range o.Relax {
		b |= r.bit()
		for _, m := range relaxGroups[r] {
			b |= m.bit()
		}
	}
	return b
}

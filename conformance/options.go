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
)

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
}

// Relaxations returns every relaxation with a one-line description, in stable order, for
// help texts.
func Relaxations() []struct{ Name, Description string } {
	out := make([]struct{ Name, Description string }, len(relaxations))
	for i, r := range relaxations {
		out[i].Name, out[i].Description = string(r.r), r.doc
	}
	return out
}

// ParseRelaxations parses a comma-separated list of relaxation names, as given on the command
// line. An empty string is no relaxation.
func ParseRelaxations(list string) ([]Relaxation, error) {
	var out []Relaxation
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		r := Relaxation(name)
		if r.bit() == 0 {
			return nil, fmt.Errorf("unknown relaxation %q (known: %s)", name, knownRelaxations())
		}
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out, nil
}

func knownRelaxations() string {
	names := make([]string, len(relaxations))
	for i, r := range relaxations {
		names[i] = string(r.r)
	}
	return strings.Join(names, ", ")
}

type relaxBits uint8

const (
	relaxNumberKind relaxBits = 1 << iota
	relaxFloat32
	relaxSumOther
	relaxDocCountError
	relaxTotalsRelation
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
}

// Validate reports an unknown relaxation name.
func (o *Options) Validate() error {
	if o == nil {
		return nil
	}
	for _, r := range o.Relax {
		if r.bit() == 0 {
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
	}
	return b
}

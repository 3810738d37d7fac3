package conformance

import "fmt"

// Class names the kind of a difference. Reports count failures by class, and the names are
// stable: they appear in reports, manifests and JUnit output.
type Class string

// Faults: the runner records these when there is no response to check, or the body is not
// JSON. They always fail.
const (
	ClassTransport Class = "transport" // the request could not be sent or the response read
	ClassTimeout   Class = "timeout"   // no complete response within the deadline
	// ClassDecode: the body is not JSON, not a JSON object, or a search response without a
	// hits object (absent, or not an object): no client can read hits or totals from it,
	// so neither ids nor totals name what is wrong.
	ClassDecode Class = "decode"
)

// Classes that fail by default (DESIGN.md, "The strict check").
const (
	// ClassStatus and ClassError are also the only classes of a body that is an error where a
	// result was expected, or the reverse: the rest of such a body is not compared.
	ClassStatus       Class = "status"       // the HTTP status, and an error body's "status"
	ClassFound        Class = "found"        // a document read's "found"
	ClassError        Class = "error"        // an error's "type" (and its causes' types)
	ClassIDs          Class = "ids"          // hit count and the _id at each position
	ClassSources      Class = "sources"      // _source, compared as JSON values
	ClassSort         Class = "sort"         // each hit's sort array
	ClassTotals       Class = "totals"       // hits.total (value, relation, presence) and _count's count
	ClassAggregations Class = "aggregations" // names, bucket order, keys, counts, metric values
	// ClassBody: a value of a response of no kind the check has rules for (not a search,
	// count, document read, _mget, _msearch or error: GET /, _field_caps, a HEAD's empty
	// body, text), compared strictly as JSON values, or byte for byte when not JSON.
	ClassBody Class = "body"
)

// Classes that are reported but do not fail unless Options.Pedantic is set.
const (
	ClassKeyOrder Class = "key_order" // the order of an object's keys
	ClassTook     Class = "took"      // "took" missing or not a non-negative integer (its value always varies)
	ClassShards   Class = "shards"    // _shards
	ClassScore    Class = "score"     // _score and max_score (they fail when they are the ranking, see Check)
	ClassVersion  Class = "version"   // _version, _seq_no, _primary_term
	ClassOther    Class = "other"     // every field outside the classes above
)

// classOrder is the stable order of Classes: faults, then failing classes in the order a
// reader checks a response, then the report-only classes.
var classOrder = []Class{
	ClassTransport, ClassTimeout, ClassDecode,
	ClassStatus, ClassFound, ClassError, ClassIDs, ClassSources, ClassSort, ClassTotals, ClassAggregations, ClassBody,
	ClassKeyOrder, ClassTook, ClassShards, ClassScore, ClassVersion, ClassOther,
}

// Classes returns every class in the stable order reports list them.
func Classes() []Class { return append([]Class(nil), classOrder...) }

// Failing returns, in stable order, the classes whose differences fail a response under opts
// (nil opts are the strict defaults). Under Pedantic every class fails. Score differences
// also fail without Pedantic when the expected hits are in relevance order; that is decided
// per response, so ClassScore is listed here only under Pedantic.
func Failing(opts *Options) []Class {
	var out []Class
	for _, c := range classOrder {
		if c.FailsByDefault() || opts != nil && opts.Pedantic {
			out = append(out, c)
		}
	}
	return out
}

// FailsByDefault reports whether a difference of class c fails a response without Pedantic.
func (c Class) FailsByDefault() bool {
	switch c {
	case ClassKeyOrder, ClassTook, ClassShards, ClassScore, ClassVersion, ClassOther:
		return false
	}
	return true
}

// Index is c's position in Classes, or -1 for an unknown class.
func (c Class) Index() int {
	for i, k := range classOrder {
		if k == c {
			return i
		}
	}
	return -1
}

// ParseClass returns the class with the given name.
func ParseClass(s string) (Class, error) {
	if c := Class(s); c.Index() >= 0 {
		return c, nil
	}
	return "", fmt.Errorf("unknown difference class %q (classes: %v)", s, classOrder)
}

package conformance

import (
	"fmt"
)

// Kind is the kind of response an expectation describes, inferred from its shape.
type Kind string

const (
	KindDocument Kind = "document" // GET /{index}/_doc/{id}: has "found"
	KindSearch   Kind = "search"   // _search: has "hits" and/or "aggregations"
	KindError    Kind = "error"    // an error envelope: has "error"
	KindCount    Kind = "count"    // _count: has "count"
	KindMget     Kind = "mget"     // _mget: a "docs" array, each checked as a document read
	KindMsearch  Kind = "msearch"  // _msearch: a "responses" array, each checked as a search
	// KindGeneric is any other JSON body (GET /, _field_caps, a PIT's id, an array, ...):
	// compared strictly, value by value, under the body class; only took and _shards at the
	// top keep their report-only classes.
	KindGeneric Kind = "generic"
	// KindText is a body that is not JSON, or is empty (a HEAD request's answer): compared
	// byte for byte, under the body class.
	KindText Kind = "text"
)

// Expectation is an expected response compiled for checking: the oracle's status and bytes,
// and the value tree the walker compares against. It is immutable and safe for concurrent use
// by any number of clients.
type Expectation struct {
	status int
	body   []byte // a private copy; every string in root points into it
	root   value
	kind   Kind
	start  ctx
	// tookStart and tookEnd delimit the value of the top-level "took" in body, or are -1. A
	// response whose bytes equal body outside that span, with a non-negative integer inside
	// it, passes without a walk: the common case of a byte-compatible target.
	tookStart, tookEnd int
	// relevance is set when the expected hits are in score order: they carry no sort values,
	// or (ForRequest) the request sorts by _score first. _score and max_score are then part
	// of the answer and their differences fail (unless RelaxScores). itemRelevance is the
	// same for each search of an _msearch, by position.
	relevance     bool
	itemRelevance []bool
	// scoreSort lists, for each search of the response (one, or an _msearch's items by
	// position), the positions of _score among the request's sort keys: the sort values
	// there are scores, which RelaxScores excuses too. Set by ForRequest.
	scoreSort [][]int
	// request is the request body this answers, for the request-aware relaxations
	// (ForRequest); nil when not given.
	request []byte
}

// Compile precompiles an expected response. It is meant to run once per case, before any
// timing. An error means the expected response itself is unusable: the status is not an HTTP
// status, or the body is not a JSON object (an oracle's answer to a search, a count or a read
// always is). A body of a kind the check knows (Kind) is checked by that kind's rules; any
// other JSON object is KindGeneric.
func Compile(status int, body []byte) (*Expectation, error) {
	return compile(status, body, false)
}

// CompileAny is Compile for a request of any kind (a captured case): a JSON array or scalar
// is KindGeneric, and an empty body (a HEAD's answer) or one that is not JSON (the text of a
// _cat API) KindText, compared byte for byte, unless it starts as JSON ('{' or '[') and breaks
// off, which no answer means to.
func CompileAny(status int, body []byte) (*Expectation, error) {
	return compile(status, body, true)
}

func compile(status int, body []byte, anyKind bool) (*Expectation, error) {
	if status < 100 || status > 599 {
		return nil, fmt.Errorf("expected status %d is not an HTTP status", status)
	}
	x := &Expectation{status: status, body: append([]byte(nil), body...), tookStart: -1, tookEnd: -1}
	if len(x.body) == 0 && anyKind {
		x.kind = KindText
		return x, nil
	}
	root, err := parse(x.body)
	if err != nil {
		first := skipWS(x.body, 0)
		if !anyKind || first < len(x.body) && (x.body[first] == '{' || x.body[first] == '[') {
			return nil, fmt.Errorf("expected body: %w", err)
		}
		x.kind = KindText
		return x, nil
	}
	x.root = root
	x.start = ctxTop
	switch {
	case root.kind != kObject && !anyKind:
		return nil, fmt.Errorf("expected body is a JSON %s, not an object", root.kind)
	case root.kind != kObject:
		x.kind, x.start = KindGeneric, ctxGeneric
	case root.member("error") != nil:
		x.kind = KindError
	case root.member("found") != nil:
		x.kind, x.start = KindDocument, ctxDocTop
	case root.member("hits") != nil || root.member("aggregations") != nil:
		x.kind = KindSearch
	case root.member("count") != nil:
		x.kind = KindCount
	case root.member("docs").kindIs(kArray):
		x.kind = KindMget
	case root.member("responses").kindIs(kArray):
		x.kind = KindMsearch
		items := root.member("responses").elems
		x.itemRelevance = make([]bool, len(items))
		for i := range items {
			x.itemRelevance[i] = scoreOrder(&items[i])
		}
	default:
		x.kind, x.start = KindGeneric, ctxGeneric
	}
	if t := root.member("took"); t != nil && t.kind == kNumber && !t.float && t.raw[0] != '-' {
		x.tookStart, x.tookEnd = t.off, t.off+len(t.raw)
	}
	x.relevance = x.kind == KindSearch && scoreOrder(&root)
	return x, nil
}

// scoreOrder reports whether a search response's hits are in score order: it has hits and
// none carries sort values (a search sorted by fields returns them on every hit).
func scoreOrder(search *value) bool {
	hits := search.member("hits").member("hits")
	if hits == nil || hits.kind != kArray || len(hits.elems) == 0 {
		return false
	}
	for i := range hits.elems {
		if hits.elems[i].member("sort") != nil {
			return false
		}
	}
	return true
}

func (v *value) kindIs(k vkind) bool { return v != nil && v.kind == k }

// Status is the expected HTTP status.
func (x *Expectation) Status() int { return x.status }

// Body is the expected body. The caller must not modify it.
func (x *Expectation) Body() []byte { return x.body }

// Kind is the kind of response expected.
func (x *Expectation) Kind() Kind { return x.kind }

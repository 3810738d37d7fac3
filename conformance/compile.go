package conformance

import (
	"errors"
	"fmt"
)

// Kind is the kind of response an expectation describes, inferred from its shape.
type Kind string

const (
	KindDocument Kind = "document" // GET /{index}/_doc/{id}: has "found"
	KindSearch   Kind = "search"   // _search: has "hits" and/or "aggregations"
	KindError    Kind = "error"    // an error envelope: has "error"
	KindCount    Kind = "count"    // _count: has "count"
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
	// relevance is set when the expected hits carry no sort values: they are in score order,
	// so _score and max_score are the ranking and their differences fail.
	relevance bool
	// request is the request body this answers, for the request-aware relaxations
	// (ForRequest); nil when not given.
	request []byte
}

// Compile precompiles an expected response. It is meant to run once per case, before any
// timing. An error means the expected response itself is unusable: the status is not an HTTP
// status, the body is not a JSON object, or it has none of the shapes Kind lists.
func Compile(status int, body []byte) (*Expectation, error) {
	if status < 100 || status > 599 {
		return nil, fmt.Errorf("expected status %d is not an HTTP status", status)
	}
	x := &Expectation{status: status, body: append([]byte(nil), body...), tookStart: -1, tookEnd: -1}
	root, err := parse(x.body)
	if err != nil {
		return nil, fmt.Errorf("expected body: %w", err)
	}
	if root.kind != kObject {
		return nil, fmt.Errorf("expected body is a JSON %s, not an object", root.kind)
	}
	x.root = root
	switch {
	case root.member("error") != nil:
		x.kind = KindError
	case root.member("found") != nil:
		x.kind = KindDocument
	case root.member("hits") != nil || root.member("aggregations") != nil:
		x.kind = KindSearch
	case root.member("count") != nil:
		x.kind = KindCount
	default:
		return nil, errors.New(`expected body has none of "found", "hits", "aggregations", "error" or "count": not a response conform knows how to check`)
	}
	x.start = ctxTop
	if x.kind == KindDocument {
		x.start = ctxDocTop
	}
	if t := root.member("took"); t != nil && t.kind == kNumber && !t.float && t.raw[0] != '-' {
		x.tookStart, x.tookEnd = t.off, t.off+len(t.raw)
	}
	if hits := root.member("hits").member("hits"); hits != nil && hits.kind == kArray && len(hits.elems) > 0 {
		x.relevance = true
		for i := range hits.elems {
			if hits.elems[i].member("sort") != nil {
				x.relevance = false
			}
		}
	}
	return x, nil
}

// Status is the expected HTTP status.
func (x *Expectation) Status() int { return x.status }

// Body is the expected body. The caller must not modify it.
func (x *Expectation) Body() []byte { return x.body }

// Kind is the kind of response expected.
func (x *Expectation) Kind() Kind { return x.kind }

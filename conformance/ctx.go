package conformance

// ctx is where a value sits in a response, as far as classification cares. The class of a
// difference follows from the ctx of the value that differs, and a value's ctx follows from
// its parent's ctx and its key, so the walker classifies with a switch per step and no path
// string.
type ctx uint8

const (
	ctxTop           ctx = iota // the body of a search, error or _count response
	ctxDocTop                   // the body of a document read
	ctxTook                     // took
	ctxShards                   // _shards and below
	ctxHits                     // hits (the object itself: absent, or not an object)
	ctxTotal                    // hits.total and below, except relation
	ctxTotalRelation            // hits.total.relation
	ctxMaxScore                 // hits.max_score
	ctxHitList                  // hits.hits
	ctxHit                      // hits.hits[i]
	ctxHitID                    // hits.hits[i]._id
	ctxScore                    // hits.hits[i]._score
	ctxSource                   // _source and below
	ctxSort                     // hits.hits[i].sort and below
	ctxVersion                  // _version, _seq_no, _primary_term
	ctxFound                    // found
	ctxDocID                    // a document read's _id
	ctxAggs                     // aggregations, or a bucket's sub-aggregations
	ctxAgg                      // one aggregation's result and anything in it not named below
	ctxBuckets                  // an aggregation's buckets (array or keyed object)
	ctxBucket                   // an element of a buckets array
	ctxBucketKey                // a bucket's key
	ctxSumOther                 // sum_other_doc_count
	ctxDocCountError            // doc_count_error_upper_bound
	ctxError                    // error
	ctxErrorType                // a "type" anywhere under error
	ctxErrorOther               // the rest of error: reasons, indexes, shard failures
	ctxStatus                   // an error body's status
	ctxCount                    // _count's count
	ctxOther                    // anything else
	ctxDocs                     // an _mget's docs: each element is a document read (ctxMgetDoc)
	ctxMgetDoc                  // one document read of an _mget, checked as a get's body
	ctxResponses                // an _msearch's responses: each element is a search (ctxTop)
	ctxGeneric                  // the body of a response of no kind the check knows
	ctxBody                     // anything inside such a body
)

var ctxClass = [...]Class{
	ctxTop:           ClassDecode,
	ctxDocTop:        ClassDecode,
	ctxTook:          ClassTook,
	ctxShards:        ClassShards,
	ctxHits:          ClassDecode, // no hits object: not a search response a client can read
	ctxTotal:         ClassTotals,
	ctxTotalRelation: ClassTotals,
	ctxMaxScore:      ClassScore,
	ctxHitList:       ClassIDs,
	ctxHit:           ClassIDs,
	ctxHitID:         ClassIDs,
	ctxScore:         ClassScore,
	ctxSource:        ClassSources,
	ctxSort:          ClassSort,
	ctxVersion:       ClassVersion,
	ctxFound:         ClassFound,
	ctxDocID:         ClassIDs,
	ctxAggs:          ClassAggregations,
	ctxAgg:           ClassAggregations,
	ctxBuckets:       ClassAggregations,
	ctxBucket:        ClassAggregations,
	ctxBucketKey:     ClassAggregations,
	ctxSumOther:      ClassAggregations,
	ctxDocCountError: ClassAggregations,
	ctxError:         ClassError,
	ctxErrorType:     ClassError,
	ctxErrorOther:    ClassOther,
	ctxStatus:        ClassStatus,
	ctxCount:         ClassTotals,
	ctxOther:         ClassOther,
	ctxDocs:          ClassIDs,    // how many documents, as a hit list's length is
	ctxMgetDoc:       ClassIDs,    // a document missing, or not an object
	ctxResponses:     ClassDecode, // not one answer per search: no client can pair them
	ctxGeneric:       ClassBody,
	ctxBody:          ClassBody,
}

func (c ctx) class() Class { return ctxClass[c] }

// relaxedBy returns the relaxation that stops differences at c from failing, if any.
func (c ctx) relaxedBy() relaxBits {
	switch c {
	case ctxTotalRelation:
		return relaxTotalsRelation
	case ctxSumOther:
		return relaxSumOther
	case ctxDocCountError:
		return relaxDocCountError
	case ctxScore, ctxMaxScore:
		return relaxScores
	}
	return 0
}

// identity returns the key that names the entity at c: a hit's _id, a bucket's key, a
// document's _id. When it differs, the entity is a different one, and the walker keeps only
// that difference instead of comparing two unrelated documents field by field.
func (c ctx) identity() string {
	switch c {
	case ctxHit, ctxDocTop, ctxMgetDoc:
		return "_id"
	case ctxBucket:
		return "key"
	}
	return ""
}

func (c ctx) isIdentity() bool {
	return c == ctxHitID || c == ctxDocID || c == ctxBucketKey
}

func (c ctx) child(k string) ctx {
	switch c {
	case ctxTop, ctxDocTop, ctxMgetDoc:
		switch k {
		case "took":
			return ctxTook
		case "_shards":
			return ctxShards
		case "hits":
			return ctxHits
		case "aggregations":
			return ctxAggs
		case "found":
			return ctxFound
		case "_id":
			return ctxDocID
		case "_source":
			return ctxSource
		case "_version", "_seq_no", "_primary_term":
			return ctxVersion
		case "error":
			return ctxError
		case "status":
			return ctxStatus
		case "count":
			return ctxCount
		case "docs":
			if c == ctxTop {
				return ctxDocs
			}
		case "responses":
			if c == ctxTop {
				return ctxResponses
			}
		}
		return ctxOther
	case ctxGeneric:
		switch k {
		case "took":
			return ctxTook
		case "_shards":
			return ctxShards
		}
		return ctxBody
	case ctxHits:
		switch k {
		case "total":
			return ctxTotal
		case "max_score":
			return ctxMaxScore
		case "hits":
			return ctxHitList
		}
		return ctxOther
	case ctxTotal:
		if k == "relation" {
			return ctxTotalRelation
		}
		return ctxTotal
	case ctxHitList:
		return ctxHit // a hits object where an array was expected
	case ctxHit:
		switch k {
		case "_id":
			return ctxHitID
		case "_score":
			return ctxScore
		case "_source":
			return ctxSource
		case "sort":
			return ctxSort
		case "_version", "_seq_no", "_primary_term":
			return ctxVersion
		}
		return ctxOther
	case ctxAggs:
		return ctxAgg
	case ctxAgg, ctxBucket:
		switch k {
		case "buckets":
			return ctxBuckets
		case "sum_other_doc_count":
			return ctxSumOther
		case "doc_count_error_upper_bound":
			return ctxDocCountError
		case "key":
			if c == ctxBucket {
				return ctxBucketKey
			}
		}
		return ctxAgg
	case ctxBuckets:
		return ctxAgg // keyed buckets, named by their filter
	case ctxError, ctxErrorOther:
		if k == "type" {
			return ctxErrorType
		}
		return ctxErrorOther
	}
	return c // the rest keep their class all the way down
}

func (c ctx) elem() ctx {
	switch c {
	case ctxDocs:
		return ctxMgetDoc
	case ctxResponses:
		return ctxTop
	case ctxGeneric:
		return ctxBody
	case ctxHitList:
		return ctxHit
	case ctxBuckets:
		return ctxBucket
	case ctxTop, ctxDocTop, ctxHits:
		return ctxOther
	case ctxAggs, ctxBucket:
		return ctxAgg
	case ctxError, ctxErrorOther:
		return ctxErrorOther
	}
	return c
}

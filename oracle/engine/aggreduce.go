package engine

import (
	"math"
	"sort"
)

// reduceAggList reduces each aggregation across the indices' results (lists[shard][agg]).
func reduceAggList(specs []*aggSpec, lists [][]*aggRes) ([]*aggRes, *esError) {
	out := make([]*aggRes, len(specs))
	for i, s := range specs {
		parts := make([]*aggRes, 0, len(lists))
		for _, l := range lists {
			parts = append(parts, l[i])
		}
		r, err := reduceAgg(s, parts)
		if err != nil {
			return nil, err
		}
		out[i] = r
	}
	return out, nil
}

func reduceSubs(specs []*aggSpec, parts [][]*aggRes) ([]*aggRes, *esError) {
	if len(specs) == 0 {
		return nil, nil
	}
	return reduceAggList(specs, parts)
}

func reduceAgg(a *aggSpec, parts []*aggRes) (*aggRes, *esError) {
	r := &aggRes{spec: a, min: math.Inf(1), max: math.Inf(-1)}
	switch a.typ {
	case "filter":
		var subs [][]*aggRes
		for _, p := range parts {
			r.docCount += p.docCount
			subs = append(subs, p.subs)
		}
		var err *esError
		r.subs, err = reduceSubs(a.subs, subs)
		return r, err
	case "filters":
		for i := range parts[0].buckets {
			bk := &aggBucket{}
			var subs [][]*aggRes
			for _, p := range parts {
				bk.docCount += p.buckets[i].docCount
				subs = append(subs, p.buckets[i].subs)
			}
			var err *esError
			if bk.subs, err = reduceSubs(a.subs, subs); err != nil {
				return nil, err
			}
			r.buckets = append(r.buckets, bk)
		}
		return r, nil
	case "terms":
		return reduceTerms(a, parts)
	}
	for _, p := range parts {
		r.count += p.count
		r.sum, r.comp = kahanAdd(r.sum, r.comp, p.sum)
		r.min = math.Min(r.min, p.min)
		r.max = math.Max(r.max, p.max)
		if p.valFmt.kind != 0 {
			r.valFmt = p.valFmt
		}
	}
	return r, nil
}

// reduceTerms is AbstractInternalTerms' reduce (§8.6, §8.7).
func reduceTerms(a *aggSpec, parts []*aggRes) (*aggRes, *esError) {
	r := &aggRes{spec: a}
	order := effectiveOrder(a.order)
	var mapped []*aggRes
	hasLong, hasDouble, hasString := false, false, false
	for _, p := range parts {
		if p.unmapped {
			continue
		}
		mapped = append(mapped, p)
		switch {
		case r.termsKind == kDouble || p.termsKind == kDouble && r.termsKind == kLong:
			r.termsKind = kDouble
		case len(mapped) == 1:
			r.termsKind = p.termsKind
		}
		if r.keyFmt.kind == 0 {
			r.keyFmt = p.keyFmt
		}
		for _, b := range p.tb {
			switch b.key.kind {
			case kLong:
				hasLong = true
			case kDouble:
				hasDouble = true
			default:
				hasString = true
			}
		}
	}
	if r.keyFmt.kind == 0 {
		r.keyFmt = keyFormat{kind: 'r'}
	}
	if len(mapped) == 0 {
		r.unmapped = true
		return r, nil
	}
	if hasString && (hasLong || hasDouble) {
		return nil, errUnsupportedf("terms aggregation [%s] over a field with different types in different indices", a.name)
	}
	promote := hasLong && hasDouble
	var sumErr int64
	type group struct {
		key    akey
		count  int64
		docErr int64
		subs   [][]*aggRes
	}
	groups := map[akey]*group{}
	var list []*group
	for _, p := range mapped {
		r.other += p.other
		e := shardDocCountError(p, order)
		if sumErr != -1 {
			if e == -1 {
				sumErr = -1
			} else {
				sumErr += e
			}
		}
		for _, b := range p.tb {
			k := b.key
			if promote && k.kind == kLong {
				k = akey{kind: kDouble, f: float64(k.i)}
			}
			g := groups[k]
			if g == nil {
				g = &group{key: k}
				groups[k] = g
				list = append(list, g)
			}
			g.count += b.docCount
			if g.docErr != -1 {
				if e == -1 {
					g.docErr = -1
				} else {
					g.docErr -= e
				}
			}
			g.subs = append(g.subs, b.subs)
		}
	}
	var buckets []*aggBucket
	for _, g := range list {
		bk := &aggBucket{key: g.key, docCount: g.count, docErr: g.docErr}
		var err *esError
		if bk.subs, err = reduceSubs(a.subs, g.subs); err != nil {
			return nil, err
		}
		buckets = append(buckets, bk)
	}
	if isKeyOrder(order) && a.minDocCount <= 1 {
		sortBuckets(buckets, order[:1])
		if len(buckets) > a.size {
			for _, b := range buckets[a.size:] {
				r.other += b.docCount
			}
			buckets = buckets[:a.size]
		}
	} else {
		keep := buckets[:0]
		for _, b := range buckets {
			if b.docCount >= a.minDocCount {
				keep = append(keep, b)
			}
		}
		buckets = keep
		sort.SliceStable(buckets, func(i, j int) bool { return cmpBuckets(buckets[i], buckets[j], order) < 0 })
		if len(buckets) > a.size {
			for _, b := range buckets[a.size:] {
				r.other += b.docCount
			}
			buckets = buckets[:a.size]
		}
	}
	for _, b := range buckets {
		if sumErr == -1 {
			b.docErr = -1
		} else if b.docErr != -1 {
			b.docErr += sumErr
		}
	}
	switch {
	case sumErr == -1:
		r.errBound = -1
	case len(parts) == 1:
		r.errBound = 0
	default:
		r.errBound = sumErr
	}
	r.tb = buckets
	return r, nil
}

// shardDocCountError is one index's contribution to doc_count_error_upper_bound.
func shardDocCountError(p *aggRes, order []orderSpec) int64 {
	n := len(p.tb)
	if n == 0 || n < p.shardSize || isKeyOrder(order) {
		return 0
	}
	if isCountDesc(order) {
		m := p.tb[0].docCount
		for _, b := range p.tb {
			if b.docCount < m {
				m = b.docCount
			}
		}
		return m
	}
	return -1
}

// Elasticsearch 8.15 lists aggregations in the request's order at the top level and inside terms
// buckets, but inside filter and filters buckets in the iteration order of a java.util.HashMap
// keyed by name, filled in reverse request order (so names in one hash bucket come out reversed)
// whose capacity is 16, doubled while the number of names minus one exceeds three quarters of it.
// That rule was measured on real Elasticsearch 8.15.0, single shard, with 2 to 33 sub-aggregation
// names (lab/realengines TestElasticsearchRules, aggregation-order); beyond maxFilterSubAggs names,
// or when hashChainLimit names share a bucket (Java's HashMap resizes or treeifies a long chain,
// which the rule does not model), the engine declines the request.
const (
	maxFilterSubAggs = 33
	hashChainLimit   = 8
)

// filterBucketOrder returns the order of the sub-aggregations of a filter or filters bucket as
// indexes into names, and false where the rule above is not confirmed.
func filterBucketOrder(names []string) ([]int, bool) {
	n := len(names)
	if n > maxFilterSubAggs {
		return nil, false
	}
	capacity := 16
	for n-1 > capacity*3/4 {
		capacity <<= 1
	}
	type e struct{ bucket, i int }
	es := make([]e, n)
	var chain [16]int
	for i, s := range names {
		h := javaStringHash(s)
		h ^= int32(uint32(h) >> 16)
		// A chain is longest at the smallest capacity.
		c := &chain[uint32(h)&15]
		if *c++; *c >= hashChainLimit {
			return nil, false
		}
		bk := int(uint32(h) & uint32(capacity-1))
		// Reverse request order within a bucket: later names first.
		es[i] = e{bk, n - 1 - i}
	}
	sort.Slice(es, func(a, b int) bool {
		if es[a].bucket != es[b].bucket {
			return es[a].bucket < es[b].bucket
		}
		return es[a].i < es[b].i
	})
	out := make([]int, n)
	for j, x := range es {
		out[j] = n - 1 - x.i
	}
	return out, true
}

func javaStringHash(s string) int32 {
	var h int32
	for _, r := range s {
		if r >= 0x10000 {
			r -= 0x10000
			h = 31*h + int32(0xD800+(r>>10))
			h = 31*h + int32(0xDC00+(r&0x3FF))
			continue
		}
		h = 31*h + int32(r)
	}
	return h
}

// typeName is the aggregation's type as typed_keys writes it before its name
// (InternalAggregation.toXContent with RestSearchAction.TYPED_KEYS_PARAM: getType() + "#" +
// name): the aggregation type for filter, filters and the metrics; for terms the class of the
// reduced result, StringTerms "sterms" on keyword (and UnmappedTerms, whose getType is
// StringTerms.NAME), LongTerms "lterms" on the long family, dates and booleans, DoubleTerms
// "dterms" on floating-point fields, and on a field that is a long in one index and a double in
// another (reduced to doubles). Measured on real Elasticsearch 8.15.0.
func (r *aggRes) typeName() string {
	if r.spec.typ != "terms" {
		return r.spec.typ
	}
	if r.unmapped {
		return "sterms"
	}
	switch r.termsKind {
	case kLong:
		return "lterms"
	case kDouble:
		return "dterms"
	}
	return "sterms"
}

// renderAggs writes {"name": {...}, ...} in Elasticsearch's order: the request's, or, for the
// sub-aggregations of a filter or filters bucket (hashed), filterBucketOrder's.
func renderAggs(b []byte, res []*aggRes, hashed, typed bool) []byte {
	order := make([]int, len(res))
	for i := range order {
		order[i] = i
	}
	if hashed {
		names := make([]string, len(res))
		for i, r := range res {
			names[i] = r.spec.name
		}
		// parseAgg declined the names this cannot order.
		order, _ = filterBucketOrder(names)
	}
	b = append(b, '{')
	for j, i := range order {
		if j > 0 {
			b = append(b, ',')
		}
		name := res[i].spec.name
		if typed {
			name = res[i].typeName() + "#" + name
		}
		b = appendJSONString(b, name)
		b = append(b, ':')
		b = renderAgg(b, res[i], typed)
	}
	return append(b, '}')
}

// renderSubs appends sub-aggregations as fields of the enclosing object.
func renderSubs(b []byte, subs []*aggRes, hashed, typed bool) []byte {
	if len(subs) == 0 {
		return b
	}
	inner := renderAggs(nil, subs, hashed, typed)
	if len(inner) > 2 {
		b = append(b, ',')
		b = append(b, inner[1:len(inner)-1]...)
	}
	return b
}

func renderAgg(b []byte, r *aggRes, typed bool) []byte {
	a := r.spec
	b = append(b, '{')
	if a.meta.Exists() {
		b = append(b, `"meta":`...)
		b = appendJackson(b, a.meta)
		b = append(b, ',')
	}
	switch a.typ {
	case "filter":
		b = append(b, `"doc_count":`...)
		b = appendInt(b, r.docCount)
		b = renderSubs(b, r.subs, true, typed)
	case "filters":
		if a.keyed {
			b = append(b, `"buckets":{`...)
			for i, bk := range r.buckets {
				if i > 0 {
					b = append(b, ',')
				}
				key := a.otherKey
				if i < len(a.keys) {
					key = a.keys[i]
				}
				b = appendJSONString(b, key)
				b = append(b, `:{"doc_count":`...)
				b = appendInt(b, bk.docCount)
				b = renderSubs(b, bk.subs, true, typed)
				b = append(b, '}')
			}
			b = append(b, '}')
		} else {
			b = append(b, `"buckets":[`...)
			for i, bk := range r.buckets {
				if i > 0 {
					b = append(b, ',')
				}
				b = append(b, `{"doc_count":`...)
				b = appendInt(b, bk.docCount)
				b = renderSubs(b, bk.subs, true, typed)
				b = append(b, '}')
			}
			b = append(b, ']')
		}
	case "terms":
		b = append(b, `"doc_count_error_upper_bound":`...)
		b = appendInt(b, r.errBound)
		b = append(b, `,"sum_other_doc_count":`...)
		b = appendInt(b, r.other)
		b = append(b, `,"buckets":[`...)
		for i, bk := range r.tb {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"key":`...)
			switch bk.key.kind {
			case kString:
				b = appendJSONString(b, bk.key.s)
			case kLong:
				b = appendInt(b, bk.key.i)
			default:
				b = append(b, jsonDouble(bk.key.f)...)
			}
			if r.keyFmt.kind == 'b' || r.keyFmt.kind == 'd' {
				b = append(b, `,"key_as_string":`...)
				b = appendJSONString(b, keyString(bk.key, r.keyFmt))
			}
			b = append(b, `,"doc_count":`...)
			b = appendInt(b, bk.docCount)
			if a.showErr {
				b = append(b, `,"doc_count_error_upper_bound":`...)
				b = appendInt(b, bk.docErr)
			}
			b = renderSubs(b, bk.subs, false, typed)
			b = append(b, '}')
		}
		b = append(b, ']')
	case "value_count":
		b = append(b, `"value":`...)
		b = appendInt(b, r.count)
	default:
		var v float64
		has := true
		switch a.typ {
		case "min":
			v, has = r.min, !math.IsInf(r.min, 0)
		case "max":
			v, has = r.max, !math.IsInf(r.max, 0)
		case "sum":
			v = r.sum
		case "avg":
			has = r.count != 0
			if has {
				v = r.sum / float64(r.count)
			}
		}
		b = append(b, `"value":`...)
		if !has {
			b = append(b, "null"...)
		} else {
			b = append(b, jsonDouble(v)...)
			if r.valFmt.kind == 'b' || r.valFmt.kind == 'd' {
				b = append(b, `,"value_as_string":`...)
				s := ""
				if r.valFmt.kind == 'b' {
					s = "false"
					if v != 0 {
						s = "true"
					}
				} else {
					s = r.valFmt.date.format(javaDoubleToLong(v), r.valFmt.nanos)
				}
				b = appendJSONString(b, s)
			}
		}
	}
	return append(b, '}')
}

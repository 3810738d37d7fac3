package engine

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"
)

// shardOut is one index's part of a search: its matches, its top documents in order and its
// aggregations.
type shardOut struct {
	ix       *index
	total    int
	maxScore float64 // NaN when there is none
	hits     []int32
	sc       *sortCtx
	q        *qres
	aggs     []*aggRes
	err      *esError
}

// needsScores reports whether a search must compute scores.
func (r *searchReq) needsScores() bool {
	if r.trackScores {
		return true
	}
	if r.relevance {
		return r.size != 0
	}
	for _, s := range r.sorts {
		if s.field == "_score" {
			return true
		}
	}
	return false
}

func (r *searchReq) window() (from, size int) {
	from, size = r.from, r.size
	if from < 0 {
		from = 0
	}
	if size < 0 {
		size = 10
	}
	return
}

// queryShard runs the query phase on one index. The caller holds the index's read lock.
func queryShard(ix *index, r *searchReq) *shardOut {
	out := &shardOut{ix: ix, maxScore: math.NaN()}
	from, size := r.window()
	if !r.count && !r.noWindow && from+size > ix.m.maxResultWindow {
		out.err = errIllegalArg("Result window is too large, from + size must be less than or equal to: [%d] but was [%d]. See the scroll api for a more efficient way to request large data sets. This limit can be set by changing the [index.max_result_window] index level setting.", ix.m.maxResultWindow, from+size)
		return out
	}
	scores := r.needsScores()
	c := newExecCtx(ix, scores)
	var q *qres
	var err *esError
	if r.query == nil {
		q = c.all(1)
	} else if q, err = c.run(r.query); err != nil {
		out.err = err
		return out
	}
	out.q = q
	if r.count {
		out.total = popcount(q.bits)
		return out
	}
	if len(r.aggs) > 0 {
		ac := aggCtx{newExecCtx(ix, false)}
		if out.aggs, err = ac.collect(r.aggs, q.bits); err != nil {
			out.err = err
			return out
		}
	}
	hitsBits := q.bits
	if r.postFilter != nil {
		pc := newExecCtx(ix, false)
		pf, err := pc.run(r.postFilter)
		if err != nil {
			out.err = err
			return out
		}
		hitsBits = and(q.bits, pf.bits)
	}
	out.total = popcount(hitsBits)
	sc := &sortCtx{scores: q}
	if !r.relevance {
		for _, s := range r.sorts {
			k, err := c.resolveSort(s)
			if err != nil {
				out.err = err
				return out
			}
			sc.keys = append(sc.keys, k)
		}
	} else {
		sc.keys = []*sortKey{{spec: &sortSpec{field: "_score", desc: true}, ct: ctScore}}
	}
	out.sc = sc
	var accept func(int) bool
	if r.hasAfter {
		if from > 0 {
			out.err = newErr(500, "search_exception", "`from` parameter must be set to 0 when `search_after` is used.")
			return out
		}
		if r.relevance {
			out.err = errIllegalArg("Sort must contain at least one field.")
			return out
		}
		if len(r.searchAfter) != len(sc.keys) {
			out.err = errIllegalArg("search_after has %d value(s) but sort has %d.", len(r.searchAfter), len(sc.keys))
			return out
		}
		after, err := c.convertAfter(sc.keys, r.searchAfter)
		if err != nil {
			out.err = err
			return out
		}
		accept = func(d int) bool { return sc.afterCmp(d, after) > 0 }
	}
	if size > 0 && (r.relevance || r.trackScores) {
		forEach(hitsBits, func(d int) {
			s := float64(q.score(d))
			if math.IsNaN(out.maxScore) || s > out.maxScore {
				out.maxScore = s
			}
		})
	}
	out.hits = topK(hitsBits, from+size, sc.cmpDocs, accept)
	return out
}

// resolveIndices expands an index expression: comma-separated names, wildcards, _all.
func (e *Engine) resolveIndices(expr string) ([]*index, *esError) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	var out []*index
	seen := map[string]bool{}
	add := func(ix *index) {
		if !seen[ix.name] {
			seen[ix.name] = true
			out = append(out, ix)
		}
	}
	if expr == "" || expr == "_all" || expr == "*" {
		for _, ix := range e.indices {
			add(ix)
		}
	} else {
		for _, part := range strings.Split(expr, ",") {
			if part == "" {
				continue
			}
			if strings.HasPrefix(part, "-") {
				return nil, errUnsupportedf("index exclusions [%s]", part)
			}
			if strings.HasPrefix(part, "<") && strings.HasSuffix(part, ">") {
				// Elasticsearch resolves date math ({now/M}) before looking the name up.
				return nil, errUnsupportedf("date math index names [%s]", part)
			}
			if strings.Contains(part, "*") {
				for name, ix := range e.indices {
					if wildcardMatch(part, name) && !strings.HasPrefix(name, ".") {
						add(ix)
					}
				}
				continue
			}
			ix := e.indices[part]
			if ix == nil {
				return nil, errIndexNotFound(part)
			}
			add(ix)
		}
	}
	// Shards are ordered by index name, the order of shard ids that breaks ties across
	// indices.
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
}

func wildcardMatch(pattern, s string) bool {
	parts := strings.Split(pattern, "*")
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	for i := 1; i < len(parts); i++ {
		p := parts[i]
		if i == len(parts)-1 {
			return strings.HasSuffix(s, p)
		}
		j := strings.Index(s, p)
		if j < 0 {
			return false
		}
		s = s[j+len(p):]
	}
	return true
}

// search runs a search or count over indices and renders the response.
func (e *Engine) search(indices []*index, r *searchReq, start time.Time) (int, []byte) {
	if preFilterMaySkip(r, r.preFilter, len(indices)) {
		return errResp(errUnsupportedf("a search over %d shards that Elasticsearch pre-filters (the can_match phase, whose skipped shards it does not model)", len(indices)))
	}
	for i, ix := range indices {
		ix.readLock()
		if ix.m.refreshInterval != "" && ix.unrefreshed() {
			// Elasticsearch refreshes such an index only when told to (refresh_interval -1)
			// or on its timer: its searches do not see these writes yet, or may not.
			for _, held := range indices[:i+1] {
				held.mu.RUnlock()
			}
			err := errUnsupportedf("searching index [%s], written since its last refresh with refresh_interval [%s]", ix.name, ix.m.refreshInterval)
			return err.status, err.body()
		}
	}
	defer func() {
		for _, ix := range indices {
			ix.mu.RUnlock()
		}
	}()
	outs := make([]*shardOut, len(indices))
	for i, ix := range indices {
		outs[i] = queryShard(ix, r)
	}
	var ok []*shardOut
	var failures []shardFailure
	for _, o := range outs {
		if o.err != nil {
			if o.err.typ == UnsupportedType {
				return o.err.status, o.err.body()
			}
			failures = append(failures, shardFailure{index: o.ix.name, err: o.err})
			continue
		}
		ok = append(ok, o)
	}
	if len(ok) == 0 && len(failures) > 0 {
		e := errSearchPhase(failures)
		return e.status, e.body()
	}
	shards := func(b []byte) []byte {
		b = append(b, `"_shards":{"total":`...)
		b = appendInt(b, int64(len(indices)))
		b = append(b, `,"successful":`...)
		b = appendInt(b, int64(len(ok)))
		b = append(b, `,"skipped":0,"failed":`...)
		b = appendInt(b, int64(len(failures)))
		if len(failures) > 0 {
			b = append(b, `,"failures":[`...)
			for i, f := range failures {
				if i > 0 {
					b = append(b, ',')
				}
				b = append(b, `{"shard":0,"index":`...)
				b = appendJSONString(b, f.index)
				b = append(b, `,"node":"`+nodeID+`","reason":`...)
				b = f.err.appendCause(b)
				b = append(b, '}')
			}
			b = append(b, ']')
		}
		return append(b, '}')
	}
	if r.count {
		total := 0
		for _, o := range ok {
			total += o.total
		}
		b := make([]byte, 0, 128)
		b = append(b, `{"count":`...)
		b = appendInt(b, int64(total))
		b = append(b, ',')
		b = shards(b)
		return 200, append(b, '}')
	}
	from, size := r.window()
	// Merge the shards' top documents.
	type ref struct {
		o   *shardOut
		doc int32
	}
	var merged []ref
	if len(ok) == 1 {
		for _, d := range ok[0].hits {
			merged = append(merged, ref{ok[0], d})
		}
	} else {
		var err *esError
		merged, err = mergeShards(ok, func(o *shardOut, d int32) ref { return ref{o, d} })
		if err != nil {
			return err.status, err.body()
		}
	}
	if from < len(merged) {
		merged = merged[from:]
	} else {
		merged = nil
	}
	if len(merged) > size {
		merged = merged[:size]
	}
	total := 0
	maxScore := math.NaN()
	for _, o := range ok {
		total += o.total
		if !math.IsNaN(o.maxScore) && (math.IsNaN(maxScore) || o.maxScore > maxScore) {
			maxScore = o.maxScore
		}
	}
	b := make([]byte, 0, 4096)
	b = append(b, '{')
	if r.pit != nil {
		b = append(b, `"pit_id":`...)
		b = appendJSONString(b, r.pit.id)
		b = append(b, ',')
	}
	b = append(b, `"took":`...)
	b = appendInt(b, time.Since(start).Milliseconds())
	b = append(b, `,"timed_out":false,`...)
	b = shards(b)
	b = append(b, `,"hits":{`...)
	if r.intTotal {
		b = append(b, `"total":`...)
		if r.tth == trackDisabled {
			b = append(b, "-1"...)
		} else {
			b = appendInt(b, int64(total))
		}
		b = append(b, ',')
	} else if r.tth != trackDisabled {
		b = append(b, `"total":{"value":`...)
		if total > r.tth {
			b = appendInt(b, int64(r.tth))
			b = append(b, `,"relation":"gte"},`...)
		} else {
			b = appendInt(b, int64(total))
			b = append(b, `,"relation":"eq"},`...)
		}
	}
	b = append(b, `"max_score":`...)
	if math.IsNaN(maxScore) {
		b = append(b, "null"...)
	} else {
		b = append(b, jsonFloat(float32(maxScore))...)
	}
	b = append(b, `,"hits":[`...)
	showScore := r.relevance || r.trackScores
	for _, s := range r.sorts {
		if s.field == "_score" {
			showScore = true
		}
	}
	for i, h := range merged {
		if i > 0 {
			b = append(b, ',')
		}
		var err *esError
		b, err = renderHit(b, h.o, int(h.doc), r, showScore)
		if err != nil {
			return err.status, err.body()
		}
	}
	b = append(b, "]}"...)
	if len(r.aggs) > 0 {
		lists := make([][]*aggRes, len(ok))
		for i, o := range ok {
			lists[i] = o.aggs
		}
		res, err := reduceAggList(r.aggs, lists)
		if err != nil {
			return err.status, err.body()
		}
		b = append(b, `,"aggregations":`...)
		b = renderAggs(b, res, false, r.typedKeys)
	}
	return 200, append(b, '}')
}

// sval is a sort value in a form comparable across indices.
type sval struct {
	i    int64
	f    float64
	s    string
	null bool
}

func (k *sortKey) value(o *shardOut, doc int) sval {
	switch k.ct {
	case ctLong:
		return sval{i: k.ints[doc]}
	case ctDouble, ctFloat:
		return sval{f: k.flts[doc]}
	case ctScore:
		return sval{f: float64(o.q.score(doc))}
	case ctDoc:
		return sval{i: int64(doc)}
	}
	code := k.ints[doc]
	if code >= 0 && code&1 == 1 && code != math.MaxInt64 && k.f != nil {
		d := k.f.data
		return sval{s: d.terms[d.byOrd[code/2]]}
	}
	if k.missS != nil {
		return sval{s: *k.missS}
	}
	return sval{null: true}
}

// mergeShards merges the shards' ranked documents, ties broken by shard then document.
func mergeShards[T any](outs []*shardOut, mk func(*shardOut, int32) T) ([]T, *esError) {
	keys := outs[0].sc.keys
	for _, o := range outs[1:] {
		for i, k := range o.sc.keys {
			if k.ct != keys[i].ct {
				return nil, errUnsupportedf("sorting on [%s] across indices where it has different types", k.spec.field)
			}
		}
	}
	type item struct {
		shard int
		o     *shardOut
		doc   int32
		vals  []sval
	}
	var items []item
	for si, o := range outs {
		for _, d := range o.hits {
			vals := make([]sval, len(o.sc.keys))
			for i, k := range o.sc.keys {
				vals[i] = k.value(o, int(d))
			}
			items = append(items, item{si, o, d, vals})
		}
	}
	sort.SliceStable(items, func(a, b int) bool {
		for i, k := range keys {
			x, y := items[a].vals[i], items[b].vals[i]
			c := 0
			switch k.ct {
			case ctLong, ctDoc:
				c = cmpI64(x.i, y.i)
			case ctDouble, ctFloat, ctScore:
				c = cmpFloat(x.f, y.f)
			case ctString:
				low := missingLow(k.spec)
				switch {
				case x.null && y.null:
				case x.null:
					c = 1
					if low {
						c = -1
					}
				case y.null:
					c = -1
					if low {
						c = 1
					}
				default:
					c = strings.Compare(x.s, y.s)
				}
			}
			if c != 0 {
				if k.spec.desc {
					return c > 0
				}
				return c < 0
			}
		}
		if items[a].shard != items[b].shard {
			return items[a].shard < items[b].shard
		}
		return items[a].doc < items[b].doc
	})
	out := make([]T, len(items))
	for i, it := range items {
		out[i] = mk(it.o, it.doc)
	}
	return out, nil
}

func renderHit(b []byte, o *shardOut, doc int, r *searchReq, showScore bool) ([]byte, *esError) {
	m := &o.ix.docs[doc]
	b = append(b, `{"_index":`...)
	b = appendJSONString(b, o.ix.name)
	b = append(b, `,"_id":`...)
	b = appendJSONString(b, m.id)
	if r.version {
		b = append(b, `,"_version":`...)
		b = appendInt(b, m.version)
	}
	if r.seqNo {
		b = append(b, `,"_seq_no":`...)
		b = appendInt(b, m.seqNo)
		b = append(b, `,"_primary_term":1`...)
	}
	b = append(b, `,"_score":`...)
	if showScore {
		b = append(b, jsonFloat(o.q.score(doc))...)
	} else {
		b = append(b, "null"...)
	}
	b = appendIgnored(b, m.ignored)
	if m.routing != "" {
		// After _ignored (measured on 8.15.0).
		b = append(b, `,"_routing":`...)
		b = appendJSONString(b, m.routing)
	}
	if !r.source.disabled {
		b = append(b, `,"_source":`...)
		var err *esError
		if b, err = appendSource(b, m.source, r.source); err != nil {
			return nil, err
		}
	}
	if !r.relevance {
		b = append(b, `,"sort":[`...)
		for i, k := range o.sc.keys {
			if i > 0 {
				b = append(b, ',')
			}
			var err *esError
			b, err = appendSortValue(b, k, o, doc)
			if err != nil {
				return nil, err
			}
		}
		b = append(b, ']')
	}
	return append(b, '}'), nil
}

func appendIgnored(b []byte, ignored []string) []byte {
	if len(ignored) == 0 {
		return b
	}
	b = append(b, `,"_ignored":[`...)
	for i, f := range ignored {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, f)
	}
	return append(b, ']')
}

// appendSortValue renders a hit's sort value as Elasticsearch's DocValueFormat does (§3.2).
func appendSortValue(b []byte, k *sortKey, o *shardOut, doc int) ([]byte, *esError) {
	switch k.ct {
	case ctLong:
		if k.fmt != nil {
			if k.f == nil || !hasValue(k.f, doc) {
				return nil, errUnsupportedf("a formatted date sort value for a document missing the field [%s]: Elasticsearch 8.15 formats the missing-value sentinel (§3.3)", k.spec.field)
			}
			return appendJSONString(b, k.fmt.format(k.ints[doc], k.nanos)), nil
		}
		return appendInt(b, k.ints[doc]), nil
	case ctDouble:
		return append(b, jsonDouble(k.flts[doc])...), nil
	case ctFloat:
		return append(b, jsonFloat(float32(k.flts[doc]))...), nil
	case ctScore:
		return append(b, jsonFloat(o.q.score(doc))...), nil
	case ctDoc:
		return appendInt(b, int64(doc)), nil
	}
	v := k.value(o, doc)
	if v.null {
		return append(b, "null"...), nil
	}
	return appendJSONString(b, v.s), nil
}

func hasValue(f *field, doc int) bool {
	lo, hi := f.data.span(doc)
	return hi > lo
}

// appendJackson re-serialises a JSON value as Jackson writes a parsed one: compact, strings
// re-escaped, decimals through Double.toString.
func appendJackson(b []byte, v gjson.Result) []byte {
	switch {
	case v.IsObject():
		b = append(b, '{')
		i := 0
		v.ForEach(func(k, x gjson.Result) bool {
			if i > 0 {
				b = append(b, ',')
			}
			i++
			b = appendJSONString(b, k.String())
			b = append(b, ':')
			b = appendJackson(b, x)
			return true
		})
		return append(b, '}')
	case v.IsArray():
		b = append(b, '[')
		for i, x := range v.Array() {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJackson(b, x)
		}
		return append(b, ']')
	case v.Type == gjson.String:
		return appendJSONString(b, v.Str)
	case v.Type == gjson.Number:
		if isIntegerLiteral(v.Raw) {
			if x, err := strconv.ParseInt(v.Raw, 10, 64); err == nil {
				return appendInt(b, x)
			}
			return append(b, v.Raw...)
		}
		return append(b, jsonDouble(v.Float())...)
	}
	return append(b, v.Raw...)
}

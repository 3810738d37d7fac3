package engine

import (
	"math"
	"math/bits"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"
)

// qres is the result of a query on one index: the matching live documents and their scores,
// either one constant or one per document.
type qres struct {
	bits   bitset
	cs     float32
	scores []float32
}

func (r *qres) score(d int) float32 {
	if r.scores != nil {
		return r.scores[d]
	}
	return r.cs
}

// execCtx runs queries on one index under its read lock.
type execCtx struct {
	ix     *index
	n      int
	scores bool
	now    time.Time
	// boost is the product of the enclosing queries' boosts; Lucene passes it down to every
	// leaf's weight rather than multiplying sums.
	boost float32
}

func newExecCtx(ix *index, scores bool) *execCtx {
	return &execCtx{ix: ix, n: len(ix.docs), scores: scores, now: time.Now(), boost: 1}
}

func (c *execCtx) empty() *qres { return &qres{bits: newBitset(c.n)} }

func (c *execCtx) all(boost float32) *qres {
	b := newBitset(c.n)
	copy(b, c.ix.live)
	return &qres{bits: b, cs: boost}
}

func (c *execCtx) andLive(b bitset) bitset {
	for i := range b {
		if i < len(c.ix.live) {
			b[i] &= c.ix.live[i]
		} else {
			b[i] = 0
		}
	}
	return b
}

// shardErr wraps a value problem found while building a query on an index, as Elasticsearch's
// query_shard_exception.
func (c *execCtx) shardErr(format string, args ...any) *esError {
	e := newErr(400, "query_shard_exception", format, args...)
	e.with("index_uuid", jsonString(c.ix.uuid)).with("index", jsonString(c.ix.name))
	return e
}

func (c *execCtx) run(q qnode) (*qres, *esError) {
	switch q := q.(type) {
	case qCached:
		if c.scores {
			return c.run(q.q)
		}
		key := "q\x00" + q.raw
		if v, ok := c.ix.caches.Load(key); ok {
			return &qres{bits: v.(bitset)}, nil
		}
		r, err := c.run(q.q)
		if err != nil {
			return nil, err
		}
		if c.ix.cached.Add(1) <= maxCachedFilters {
			c.ix.caches.Store(key, r.bits)
		}
		return r, nil
	case qMatchAll:
		return c.all(c.boost * q.boost), nil
	case qMatchNone:
		return c.empty(), nil
	case qBool:
		return c.runBool(q)
	case qConstant:
		r, err := c.run(q.filter)
		if err != nil {
			return nil, err
		}
		return &qres{bits: r.bits, cs: c.boost * q.boost}, nil
	case qTerm:
		return c.runTerm(q.field, q.value, c.boost*q.boost, q.caseInsensitive, true)
	case qTerms:
		return c.runTerms(q)
	case qRange:
		return c.runRange(q)
	case qExists:
		return c.runExists(q)
	case qIDs:
		b := newBitset(c.n)
		for _, id := range q.values {
			if d, ok := c.ix.ids[id]; ok {
				b.set(int(d))
			}
		}
		return &qres{bits: c.andLive(b), cs: c.boost * q.boost}, nil
	case qPrefix:
		return c.runPrefix(q)
	case qMatch:
		return c.runMatch(q)
	}
	return nil, errUnsupportedf("query [%s]", q.kind())
}

func (c *execCtx) runBool(q qBool) (*qres, *esError) {
	nclauses := len(q.must) + len(q.filter) + len(q.should) + len(q.mustNot)
	if nclauses == 0 {
		return c.all(c.boost * q.boost), nil
	}
	outer := c.boost
	c.boost = outer * q.boost
	defer func() { c.boost = outer }()
	var bits bitset
	and := func(b bitset) {
		if bits == nil {
			bits = make(bitset, len(b))
			copy(bits, b)
			return
		}
		for i := range bits {
			bits[i] &= b[i]
		}
	}
	var must, should []*qres
	for _, sub := range q.must {
		r, err := c.run(sub)
		if err != nil {
			return nil, err
		}
		must = append(must, r)
		and(r.bits)
	}
	for _, sub := range q.filter {
		r, err := c.run(sub)
		if err != nil {
			return nil, err
		}
		and(r.bits)
	}
	for _, sub := range q.should {
		r, err := c.run(sub)
		if err != nil {
			return nil, err
		}
		should = append(should, r)
	}
	msm := 0
	if q.msm != "" {
		var err *esError
		if msm, err = minShouldMatch(q.msm, len(q.should)); err != nil {
			return nil, err
		}
	}
	// With no must or filter clause, Lucene's BooleanQuery needs one should clause to match
	// whatever minimum_should_match says below 1: an explicit 0 (or "0%", or a negative spec
	// that computes to 0) does not make should optional. Measured on Elasticsearch 8.15.0:
	// {"bool":{"should":[{"term":{"in_stock":true}}],"minimum_should_match":0}} counts 6760, not
	// 10000 (found by conform fuzz).
	if msm < 1 && len(q.must)+len(q.filter) == 0 && len(q.should) > 0 {
		msm = 1
	}
	if msm > len(q.should) {
		return c.empty(), nil
	}
	if msm > 0 {
		var sb bitset
		if msm == 1 {
			sb = newBitset(c.n)
			for _, r := range should {
				for i := range sb {
					sb[i] |= r.bits[i]
				}
			}
		} else {
			counts := make([]uint16, c.n)
			for _, r := range should {
				forEach(r.bits, func(d int) { counts[d]++ })
			}
			sb = newBitset(c.n)
			for d, k := range counts {
				if int(k) >= msm {
					sb.set(d)
				}
			}
		}
		and(sb)
	}
	if bits == nil {
		// Only must_not clauses: everything else matches (a match_all filter, scoring 0).
		bits = newBitset(c.n)
		copy(bits, c.ix.live)
	}
	for _, sub := range q.mustNot {
		r, err := c.run(sub)
		if err != nil {
			return nil, err
		}
		for i := range bits {
			bits[i] &^= r.bits[i]
		}
	}
	res := &qres{bits: bits}
	if !c.scores || len(must)+len(should) == 0 {
		return res, nil
	}
	// Lucene sums clause scores in a double and rounds to float; a boost multiplies after.
	res.scores = make([]float32, c.n)
	forEach(bits, func(d int) {
		var s float64
		for _, r := range must {
			s += float64(r.score(d))
		}
		for _, r := range should {
			if r.bits.has(d) {
				s += float64(r.score(d))
			}
		}
		res.scores[d] = float32(s)
	})
	return res, nil
}

// forEach calls fn for every set bit in order.
func forEach(b bitset, fn func(int)) {
	for i, w := range b {
		for w != 0 {
			t := bits.TrailingZeros64(w)
			fn(i*64 + t)
			w &= w - 1
		}
	}
}

func popcount(b bitset) int {
	n := 0
	for _, w := range b {
		n += bits.OnesCount64(w)
	}
	return n
}

func (c *execCtx) field(name string) (*field, *esError) {
	f := c.ix.m.fields[name]
	if f == nil {
		if name != "_id" && metadataFields[name] {
			// A metadata field is no missing field: each has its own query semantics
			// (_routing matches routed documents, _index the index's name, ...). Those the
			// engine models are answered before this point.
			return nil, errUnsupportedf("this query on the metadata field [%s]", name)
		}
		return nil, nil
	}
	if f.typ == tOpaque {
		return nil, errUnsupportedf("queries on field [%s] of type [%s]", name, f.typeName)
	}
	return f, nil
}

// metadataFields are Elasticsearch 8.15's metadata field names (the MetadataFieldMapper
// implementations of the default distribution).
var metadataFields = map[string]bool{
	"_id": true, "_index": true, "_routing": true, "_ignored": true, "_source": true, "_seq_no": true,
	"_version": true, "_primary_term": true, "_tier": true, "_doc_count": true, "_field_names": true,
	"_data_stream_timestamp": true, "_feature": true, "_nested_path": true, "_tsid": true,
	"_ignored_source": true, "_routing_hash": true, "_size": true, "_doc": true,
}

// ignoredDocs returns the documents whose _ignored field holds one of names (the fields a
// document had ignored: ignore_malformed, ignore_above), and, for a single name, the term
// statistics a keyword-like field has: the documents holding it, the documents holding any
// _ignored value and the sum of doc frequencies, deleted documents included as Lucene counts
// them until a merge.
func (c *execCtx) ignoredDocs(names []string) (b bitset, df, docCount, sumDF int64) {
	b = newBitset(c.n)
	for d := range c.ix.docs {
		ign := c.ix.docs[d].ignored
		if len(ign) > 0 {
			docCount++
			sumDF += int64(len(ign))
		}
		for _, g := range ign {
			if slicesContains(names, g) {
				b.set(d)
				df++
				break
			}
		}
	}
	return c.andLive(b), df, docCount, sumDF
}

func slicesContains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// kwPostings returns, per keyword term id, the documents holding it (deleted ones included).
func (c *execCtx) kwPostings(f *field) [][]int32 {
	key := "post\x00" + f.name
	if v, ok := c.ix.caches.Load(key); ok {
		return v.([][]int32)
	}
	d := f.data
	post := make([][]int32, len(d.terms))
	for doc := 0; doc+1 < len(d.off); doc++ {
		for k := d.off[doc]; k < d.off[doc+1]; k++ {
			id := d.ids[k]
			post[id] = append(post[id], int32(doc))
		}
	}
	v, _ := c.ix.caches.LoadOrStore(key, post)
	return v.([][]int32)
}

func (c *execCtx) termIDsBits(f *field, ids []uint32) bitset {
	b := newBitset(c.n)
	post := c.kwPostings(f)
	for _, id := range ids {
		for _, d := range post[id] {
			b[d/64] |= 1 << (uint(d) % 64)
		}
	}
	return c.andLive(b)
}

func (c *execCtx) scanI64(f *field, pred func(int64) bool) bitset {
	d := f.data
	b := newBitset(c.n)
	for doc := 0; doc+1 < len(d.off); doc++ {
		for k := d.off[doc]; k < d.off[doc+1]; k++ {
			if pred(d.i64[k]) {
				b[doc/64] |= 1 << (uint(doc) % 64)
				break
			}
		}
	}
	return c.andLive(b)
}

func (c *execCtx) scanF64(f *field, pred func(float64) bool) bitset {
	d := f.data
	b := newBitset(c.n)
	for doc := 0; doc+1 < len(d.off); doc++ {
		for k := d.off[doc]; k < d.off[doc+1]; k++ {
			if pred(d.f64[k]) {
				b[doc/64] |= 1 << (uint(doc) % 64)
				break
			}
		}
	}
	return c.andLive(b)
}

// numericQueryValue parses a query value for a numeric field as NumberFieldMapper's parse
// with coercion does. decimal reports a fractional part (integer types then match nothing).
func numericQueryValue(f *field, v gjson.Result) (i int64, d float64, decimal bool, err string) {
	text := scalarText(v)
	if v.Type != gjson.Number && v.Type != gjson.String {
		return 0, 0, false, "For input string: \"" + text + "\""
	}
	if v.Type == gjson.Number {
		text = v.Raw
	}
	switch f.typ {
	case tLong, tInteger, tShort, tByte:
		if x, e := strconv.ParseInt(text, 10, 64); e == nil {
			i = x
		} else {
			fv, e2 := strconv.ParseFloat(text, 64)
			if e2 != nil && !isRangeErr(e2) {
				return 0, 0, false, "For input string: \"" + text + "\""
			}
			if !isIntegral(fv) {
				return 0, 0, true, ""
			}
			if fv >= 9.223372036854775807e18 || fv < -9.223372036854775808e18 {
				return 0, 0, false, "Value [" + text + "] is out of range for a long"
			}
			i = int64(fv)
		}
		lo, hi := intRange(f.typ)
		if i < lo || i > hi {
			return 0, 0, false, "Value [" + text + "] is out of range for " + articleFor(f.typ)
		}
		return i, 0, false, ""
	case tFloat, tHalfFloat:
		// A JSON number arrives as a double and is narrowed; a string parses as a float.
		if v.Type == gjson.Number {
			x, e := strconv.ParseFloat(text, 64)
			if e != nil && !isRangeErr(e) {
				return 0, 0, false, "For input string: \"" + text + "\""
			}
			return 0, float64(float32(x)), false, ""
		}
		return stringQueryValue(v.Str, 32)
	default:
		if v.Type == gjson.Number {
			x, e := strconv.ParseFloat(text, 64)
			if e != nil && !isRangeErr(e) {
				return 0, 0, false, "For input string: \"" + text + "\""
			}
			return 0, x, false, ""
		}
		return stringQueryValue(v.Str, 64)
	}
}

// stringQueryValue parses a string value of a double or float field as NumberFieldMapper's
// objectToDouble does, with Double.parseDouble (Float.parseFloat for floats): trimmed, with
// suffixes, hexadecimal literals, Infinity and NaN (scaled.go). Real Elasticsearch 8.15.0
// counts a range "lte": " 149.95 " or "149.95d" like 149.95 and refuses "inf".
func stringQueryValue(s string, bits int) (int64, float64, bool, string) {
	x, ok := javaParseNumber(s, bits)
	if !ok {
		t := strings.TrimFunc(s, javaTrimmed)
		if t == "" {
			return 0, 0, false, unsupportedEmpty
		}
		return 0, 0, false, "For input string: \"" + t + "\""
	}
	return 0, x, false, ""
}

// unsupportedEmpty stands for Double.parseDouble's "empty String", whose error envelope is
// unverified: numberErr declines it.
const unsupportedEmpty = "\x00empty String"

func (c *execCtx) numberErr(msg string) *esError {
	if msg == unsupportedEmpty {
		return errUnsupportedf("an empty string as a numeric value")
	}
	e := c.shardErr("failed to create query: %s", msg)
	if strings.HasPrefix(msg, "For input string") {
		e.causedBy = newErr(400, "number_format_exception", "%s", msg)
	} else {
		e.causedBy = errIllegalArg("%s", msg)
	}
	return e
}

// parseBoolValue parses a boolean query value: true, false, "true" or "false".
func parseBoolValue(v gjson.Result) (int64, bool) {
	switch {
	case v.Type == gjson.True, v.Type == gjson.String && v.Str == "true":
		return 1, true
	case v.Type == gjson.False, v.Type == gjson.String && v.Str == "false":
		return 0, true
	}
	return 0, false
}

// runTerm is a term query; scoring applies BM25 to keyword, text and boolean terms and a
// constant to the others (§2.8).
func (c *execCtx) runTerm(name string, v gjson.Result, boost float32, ci bool, scoring bool) (*qres, *esError) {
	switch name {
	case "_id":
		b := newBitset(c.n)
		if d, ok := c.ix.ids[scalarText(v)]; ok {
			b.set(int(d))
		}
		return &qres{bits: c.andLive(b), cs: boost}, nil
	case "_index":
		if scalarText(v) == c.ix.name {
			return c.all(boost), nil
		}
		return c.empty(), nil
	case "_ignored":
		// IgnoredFieldMapper: an indexed keyword-like field (docs only, no norms), scored
		// as a keyword term.
		if ci {
			return nil, errUnsupportedf("case-insensitive term queries on [_ignored]")
		}
		b, df, docCount, sumDF := c.ignoredDocs([]string{scalarText(v)})
		r := &qres{bits: b}
		if c.scores && df > 0 {
			r.cs = newBM25(boost, df, docCount, sumDF).score(1, 1)
		}
		return r, nil
	}
	f, err := c.field(name)
	if err != nil {
		return nil, err
	}
	if f == nil || f.typ == tObject {
		return c.empty(), nil
	}
	d := f.data
	switch f.typ {
	case tKeyword:
		s := scalarText(v)
		if ci {
			var ids []uint32
			for id, t := range d.terms {
				if equalFoldJava(t, s) {
					ids = append(ids, uint32(id))
				}
			}
			return &qres{bits: c.termIDsBits(f, ids), cs: boost}, nil
		}
		id, ok := d.dict[s]
		if !ok {
			return c.empty(), nil
		}
		r := &qres{bits: c.termIDsBits(f, []uint32{id})}
		if c.scores {
			r.cs = newBM25(boost, d.df[id], d.docCount, d.sumDF).score(1, 1)
		}
		return r, nil
	case tText:
		if ci {
			return nil, errUnsupportedf("case-insensitive term queries on text field [%s]", name)
		}
		return c.textTerms(f, []string{scalarText(v)}, boost, 1)
	case tBoolean:
		x, ok := parseBoolValue(v)
		if !ok {
			e := c.shardErr("failed to create query: Can't parse boolean value [%s], expected [true] or [false]", scalarText(v))
			e.causedBy = errIllegalArg("Can't parse boolean value [%s], expected [true] or [false]", scalarText(v))
			return nil, e
		}
		r := &qres{bits: c.scanI64(f, func(y int64) bool { return y == x })}
		if c.scores && d.df[x] > 0 {
			r.cs = newBM25(boost, d.df[x], d.docCount, d.df[0]+d.df[1]).score(1, 1)
		}
		return r, nil
	case tDate, tDateNanos:
		rq := qRange{field: name, lo: v, hi: v, hasLo: true, hasHi: true, incLo: true, incHi: true, boost: boost}
		outer := c.boost
		c.boost = 1
		defer func() { c.boost = outer }()
		return c.runRange(rq)
	}
	if f.typ == tScaledFloat {
		// ScaledFloatFieldType.termQuery: Math.round(scale(x)) as a long term (scaled.go).
		x, e := c.scaledQueryValue(f, v)
		if e != nil {
			return nil, e
		}
		s := javaRound(x)
		return &qres{bits: c.scanI64(f, func(y int64) bool { return y == s }), cs: boost}, nil
	}
	i, x, decimal, msg := numericQueryValue(f, v)
	if msg != "" {
		return nil, c.numberErr(msg)
	}
	switch f.typ {
	case tLong, tInteger, tShort, tByte:
		if decimal {
			return c.empty(), nil
		}
		return &qres{bits: c.scanI64(f, func(y int64) bool { return y == i }), cs: boost}, nil
	}
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil, errUnsupportedf("a term query for [%s] on field [%s]", javaDouble(x), name)
	}
	if f.typ == tHalfFloat {
		x = float64(toHalf(float32(x)))
	}
	// An exact point query: equal in the points' sortable order, so -0.0 and +0.0 differ.
	k := sortableDouble(x)
	return &qres{bits: c.scanF64(f, func(y float64) bool { return sortableDouble(y) == k }), cs: boost}, nil
}

// equalFoldJava reports whether term t matches the value q of a case_insensitive term or prefix
// query, code point by code point, as Elasticsearch 8.15's
// AutomatonQueries.toCaseInsensitiveChar builds the automaton
// (server/src/main/java/org/elasticsearch/common/lucene/search/AutomatonQueries.java): a code
// point above 128 matches only itself ("For now we only work with ASCII characters"); one up to
// 128 also matches Character.isLowerCase(c) ? toUpperCase(c) : toLowerCase(c), which differs only
// for the ASCII letters. Confirmed on real Elasticsearch 8.15.0 (lab/realengines
// TestElasticsearchRules, case-insensitive): é does not match É, nor k the Kelvin sign.
func equalFoldJava(t, q string) bool {
	rt, rq := []rune(t), []rune(q)
	if len(rt) != len(rq) {
		return false
	}
	for i := range rq {
		if rt[i] != rq[i] && (rq[i] > 128 || !isASCIILetter(rq[i]) || rt[i] != rq[i]^0x20) {
			return false
		}
	}
	return true
}

func isASCIILetter(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }

func (c *execCtx) runTerms(q qTerms) (*qres, *esError) {
	if q.field == "_ignored" {
		// A constant score, as terms on a keyword field.
		names := make([]string, len(q.values))
		for i, v := range q.values {
			names[i] = scalarText(v)
		}
		b, _, _, _ := c.ignoredDocs(names)
		return &qres{bits: b, cs: c.boost * q.boost}, nil
	}
	f, err := c.field(q.field)
	if err != nil {
		return nil, err
	}
	if q.field == "_id" {
		b := newBitset(c.n)
		for _, v := range q.values {
			if d, ok := c.ix.ids[scalarText(v)]; ok {
				b.set(int(d))
			}
		}
		return &qres{bits: c.andLive(b), cs: c.boost * q.boost}, nil
	}
	if f != nil && f.typ == tKeyword {
		var ids []uint32
		for _, v := range q.values {
			if id, ok := f.data.dict[scalarText(v)]; ok {
				ids = append(ids, id)
			}
		}
		return &qres{bits: c.termIDsBits(f, ids), cs: c.boost * q.boost}, nil
	}
	// Other types: the union of the term queries, scored as a constant, the query's boost
	// (§7.2.4). Confirmed on real Elasticsearch 8.15.0 for long, integer, double, float, date and
	// boolean fields, alone, boosted and inside bool (lab/realengines TestElasticsearchRules,
	// scoring).
	out := newBitset(c.n)
	for _, v := range q.values {
		r, err := c.runTerm(q.field, v, 1, false, false)
		if err != nil {
			return nil, err
		}
		for i := range out {
			out[i] |= r.bits[i]
		}
	}
	return &qres{bits: out, cs: c.boost * q.boost}, nil
}

func (c *execCtx) runExists(q qExists) (*qres, *esError) {
	if strings.ContainsAny(q.field, "*?") {
		return nil, errUnsupportedf("wildcard field names in [exists]")
	}
	switch q.field {
	case "_id", "_index", "_seq_no", "_version", "_primary_term":
		return c.all(c.boost * q.boost), nil
	case "_ignored":
		b := newBitset(c.n)
		for d := range c.ix.docs {
			if len(c.ix.docs[d].ignored) > 0 {
				b.set(d)
			}
		}
		return &qres{bits: c.andLive(b), cs: c.boost * q.boost}, nil
	case "_routing":
		b := newBitset(c.n)
		for d := range c.ix.docs {
			if c.ix.docs[d].routing != "" {
				b.set(d)
			}
		}
		return &qres{bits: c.andLive(b), cs: c.boost * q.boost}, nil
	}
	if strings.HasPrefix(q.field, "_") {
		// _source answers a query_shard_exception, _tier and the like have their own
		// rules (search/160_exists_query.yml); not modelled.
		return nil, errUnsupportedf("[exists] on the metadata field [%s]", q.field)
	}
	f, err := c.field(q.field)
	if err != nil {
		return nil, err
	}
	if f == nil {
		return c.empty(), nil
	}
	out := newBitset(c.n)
	var add func(f *field)
	add = func(f *field) {
		d := f.data
		switch f.typ {
		case tObject:
			prefix := f.name + "."
			for _, g := range c.ix.m.order {
				if strings.HasPrefix(g.name, prefix) && g.parent == nil && g.typ != tObject {
					add(g)
				}
			}
		case tText:
			for doc, nb := range d.norms {
				if nb != 0 {
					out[doc/64] |= 1 << (uint(doc) % 64)
				}
			}
			for _, doc := range d.emptyText {
				out[doc/64] |= 1 << (uint(doc) % 64)
			}
		case tOpaque:
		default:
			for doc := 0; doc+1 < len(d.off); doc++ {
				if d.off[doc+1] > d.off[doc] {
					out[doc/64] |= 1 << (uint(doc) % 64)
				}
			}
		}
	}
	add(f)
	return &qres{bits: c.andLive(out), cs: c.boost * q.boost}, nil
}

func (c *execCtx) runPrefix(q qPrefix) (*qres, *esError) {
	f, err := c.field(q.field)
	if err != nil {
		return nil, err
	}
	if q.field == "_id" {
		b := newBitset(c.n)
		for id, d := range c.ix.ids {
			if strings.HasPrefix(id, q.value) {
				b.set(int(d))
			}
		}
		return &qres{bits: c.andLive(b), cs: c.boost * q.boost}, nil
	}
	if f == nil {
		return c.empty(), nil
	}
	if f.typ != tKeyword {
		return nil, errUnsupportedf("prefix queries on field [%s] of type [%s]", q.field, f.typ)
	}
	var ids []uint32
	for id, t := range f.data.terms {
		if strings.HasPrefix(t, q.value) || q.caseInsensitive && len(t) >= len(q.value) && hasPrefixFold(t, q.value) {
			ids = append(ids, uint32(id))
		}
	}
	return &qres{bits: c.termIDsBits(f, ids), cs: c.boost * q.boost}, nil
}

func hasPrefixFold(s, prefix string) bool {
	rs, rp := []rune(s), []rune(prefix)
	if len(rs) < len(rp) {
		return false
	}
	return equalFoldJava(string(rs[:len(rp)]), prefix)
}

// runRange is a range query; bounds convert per type as Elasticsearch's field types do
// (§7.3.4, §7.4).
func (c *execCtx) runRange(q qRange) (*qres, *esError) {
	f, err := c.field(q.field)
	if err != nil {
		return nil, err
	}
	if f == nil {
		return c.empty(), nil
	}
	switch f.typ {
	case tKeyword:
		lo, hi := scalarText(q.lo), scalarText(q.hi)
		var ids []uint32
		for id, t := range f.data.terms {
			if q.hasLo && (t < lo || !q.incLo && t == lo) {
				continue
			}
			if q.hasHi && (t > hi || !q.incHi && t == hi) {
				continue
			}
			ids = append(ids, uint32(id))
		}
		return &qres{bits: c.termIDsBits(f, ids), cs: c.boost * q.boost}, nil
	case tDate, tDateNanos:
		df := f.dateFmt
		if q.format != "" {
			pf, e := parseDateFormat(q.format)
			if e != nil {
				return nil, asES(e)
			}
			df = pf
		}
		var zone *time.Location
		if q.timeZone != "" {
			z, e := parseZone(q.timeZone)
			if e != nil {
				return nil, e
			}
			zone = z
		}
		nanos := f.typ == tDateNanos
		lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
		parse := func(v gjson.Result, roundUp bool) (int64, *esError) {
			s := scalarText(v)
			x, e := parseDateMath(s, df, roundUp, zone, c.now, nanos)
			if e != nil {
				pe := newErr(400, "parse_exception", "failed to parse date field [%s] with format [%s]: [failed to parse date field [%s] with format [%s]]", s, df.spec, s, df.spec)
				return 0, pe
			}
			return x, nil
		}
		if q.hasLo {
			x, e := parse(q.lo, !q.incLo)
			if e != nil {
				return nil, e
			}
			if !q.incLo {
				if x == math.MaxInt64 {
					return c.empty(), nil
				}
				x++
			}
			lo = x
		}
		if q.hasHi {
			x, e := parse(q.hi, q.incHi)
			if e != nil {
				return nil, e
			}
			if !q.incHi {
				if x == math.MinInt64 {
					return c.empty(), nil
				}
				x--
			}
			hi = x
		}
		return &qres{bits: c.scanI64(f, func(y int64) bool { return y >= lo && y <= hi }), cs: c.boost * q.boost}, nil
	case tLong, tInteger, tShort, tByte:
		lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
		if q.hasLo {
			l, dec, neg, msg := integerBound(f, q.lo)
			if msg != "" {
				return nil, c.numberErr(msg)
			}
			if !dec && !q.incLo || dec && !neg {
				if l == math.MaxInt64 {
					return c.empty(), nil
				}
				l++
			}
			lo = l
		}
		if q.hasHi {
			u, dec, neg, msg := integerBound(f, q.hi)
			if msg != "" {
				return nil, c.numberErr(msg)
			}
			if !dec && !q.incHi || dec && neg {
				if u == math.MinInt64 {
					return c.empty(), nil
				}
				u--
			}
			hi = u
		}
		return &qres{bits: c.scanI64(f, func(y int64) bool { return y >= lo && y <= hi }), cs: c.boost * q.boost}, nil
	case tScaledFloat:
		// ScaledFloatFieldType.rangeQuery (scaled.go): scale in decimal, step past an exclusive
		// bound on the scaled double, then round the bound inward.
		lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
		if q.hasLo {
			s, e := c.scaledQueryValue(f, q.lo)
			if e != nil {
				return nil, e
			}
			lo = scaledLower(s, q.incLo)
		}
		if q.hasHi {
			s, e := c.scaledQueryValue(f, q.hi)
			if e != nil {
				return nil, e
			}
			hi = scaledUpper(s, q.incHi)
		}
		return &qres{bits: c.scanI64(f, func(y int64) bool { return y >= lo && y <= hi }), cs: c.boost * q.boost}, nil
	case tDouble, tFloat:
		// NumberType.DOUBLE/FLOAT.rangeQuery: an exclusive bound steps with
		// DoublePoint/FloatPoint.nextUp or nextDown (which step between -0.0 and +0.0), then
		// the points' range is inclusive in their sortable-bits order, where -0.0 < +0.0 and NaN
		// (canonical) lies above +Infinity: "lte": "NaN" matches every value on real
		// Elasticsearch 8.15.0.
		bits := 64
		if f.typ == tFloat {
			bits = 32
		}
		lo, hi := sortableDouble(math.Inf(-1)), sortableDouble(math.Inf(1))
		if q.hasLo {
			_, x, _, msg := numericQueryValue(f, q.lo)
			if msg != "" {
				return nil, c.numberErr(msg)
			}
			if !q.incLo {
				x = pointNextUp(x, bits)
			}
			lo = sortableDouble(x)
		}
		if q.hasHi {
			_, x, _, msg := numericQueryValue(f, q.hi)
			if msg != "" {
				return nil, c.numberErr(msg)
			}
			if !q.incHi {
				x = pointNextDown(x, bits)
			}
			hi = sortableDouble(x)
		}
		return &qres{bits: c.scanF64(f, func(y float64) bool {
			k := sortableDouble(y)
			return k >= lo && k <= hi
		}), cs: c.boost * q.boost}, nil
	case tHalfFloat:
		lo, hi := math.Inf(-1), math.Inf(1)
		if q.hasLo {
			_, x, _, msg := numericQueryValue(f, q.lo)
			if msg != "" {
				return nil, c.numberErr(msg)
			}
			lo = x
		}
		if q.hasHi {
			_, x, _, msg := numericQueryValue(f, q.hi)
			if msg != "" {
				return nil, c.numberErr(msg)
			}
			hi = x
		}
		if math.IsNaN(lo) || math.IsNaN(hi) || lo == 0 || hi == 0 {
			return nil, errUnsupportedf("a NaN or zero bound on half_float field [%s]", q.field)
		}
		incLo, incHi := q.incLo || !q.hasLo, q.incHi || !q.hasHi
		return &qres{bits: c.scanF64(f, func(y float64) bool {
			return (y > lo || incLo && y == lo) && (y < hi || incHi && y == hi)
		}), cs: c.boost * q.boost}, nil
	case tBoolean:
		lo, hi := int64(0), int64(1)
		if q.hasLo {
			x, ok := parseBoolValue(q.lo)
			if !ok {
				return nil, c.shardErr("failed to create query: Can't parse boolean value [%s], expected [true] or [false]", scalarText(q.lo))
			}
			if !q.incLo {
				x++
			}
			lo = x
		}
		if q.hasHi {
			x, ok := parseBoolValue(q.hi)
			if !ok {
				return nil, c.shardErr("failed to create query: Can't parse boolean value [%s], expected [true] or [false]", scalarText(q.hi))
			}
			if !q.incHi {
				x--
			}
			hi = x
		}
		return &qres{bits: c.scanI64(f, func(y int64) bool { return y >= lo && y <= hi }), cs: c.boost * q.boost}, nil
	}
	return nil, errUnsupportedf("range queries on field [%s] of type [%s]", q.field, f.typ)
}

// integerBound converts a range bound for an integer-family field: the value truncated toward
// zero, whether it had a decimal part, and its sign.
func integerBound(f *field, v gjson.Result) (int64, bool, bool, string) {
	text := scalarText(v)
	if v.Type == gjson.Number {
		text = v.Raw
	}
	if v.Type != gjson.Number && v.Type != gjson.String {
		return 0, false, false, "For input string: \"" + text + "\""
	}
	if x, err := strconv.ParseInt(text, 10, 64); err == nil {
		lo, hi := intRange(f.typ)
		if x < lo || x > hi {
			return 0, false, false, "Value [" + text + "] is out of range for " + articleFor(f.typ)
		}
		return x, false, x < 0, ""
	}
	d, err := strconv.ParseFloat(text, 64)
	if err != nil && !isRangeErr(err) {
		return 0, false, false, "For input string: \"" + text + "\""
	}
	lo, hi := intRange(f.typ)
	if d >= float64(hi)+1 || d <= float64(lo)-1 {
		return 0, false, false, "Value [" + text + "] is out of range for " + articleFor(f.typ)
	}
	return int64(d), !isIntegral(d), d < 0, ""
}

func parseZone(s string) (*time.Location, *esError) {
	switch s {
	case "Z", "UTC", "utc", "GMT":
		return time.UTC, nil
	}
	if (s[0] == '+' || s[0] == '-') && len(s) >= 3 {
		if _, off, ok := matchOffset(s, 0, ptok{}); ok {
			return time.FixedZone(s, off), nil
		}
	}
	loc, err := time.LoadLocation(s)
	if err != nil {
		return nil, errIllegalArg("Unknown time-zone ID: %s", s)
	}
	return loc, nil
}

// textTerms scores documents matching tokens of a text field with BM25 (sum over tokens);
// need is how many tokens must match (1 for OR, len for AND).
func (c *execCtx) textTerms(f *field, toks []string, boost float32, need int) (*qres, *esError) {
	if f.unanalysable {
		return nil, errUnsupportedf("full-text queries on field [%s]: some of its values are outside the ASCII text the engine analyses exactly", f.name)
	}
	d := f.data
	res := &qres{bits: newBitset(c.n)}
	counts := map[int32]int{}
	var scores []float32
	var sum []float64
	if c.scores {
		sum = make([]float64, c.n)
	}
	for _, t := range toks {
		post := d.post[t]
		if len(post) == 0 {
			continue
		}
		var s *bm25
		if c.scores {
			s = newBM25(boost, int64(len(post)), d.docCount, d.sumTTF)
		}
		for _, p := range post {
			counts[p.doc]++
			if s != nil {
				sum[p.doc] += float64(s.score(float32(p.freq), d.norms[p.doc]))
			}
		}
	}
	for doc, k := range counts {
		if k >= need {
			res.bits.set(int(doc))
		}
	}
	res.bits = c.andLive(res.bits)
	if c.scores {
		scores = make([]float32, c.n)
		for i, s := range sum {
			scores[i] = float32(s)
		}
		res.scores = scores
	}
	return res, nil
}

// runMatch is a match query: on keyword, numeric, date and boolean fields a term query of the
// whole value; on text fields the analysed tokens, OR-ed (or AND-ed) together.
func (c *execCtx) runMatch(q qMatch) (*qres, *esError) {
	f, err := c.field(q.field)
	if err != nil {
		return nil, err
	}
	if f == nil {
		return c.empty(), nil
	}
	if f.typ != tText {
		if q.query.IsObject() || q.query.IsArray() {
			return nil, errParsing(q.query.Index, "[match] unknown token [START_OBJECT]")
		}
		return c.runTerm(q.field, q.query, c.boost*q.boost, false, true)
	}
	toks, ok := standardTokens(scalarText(q.query))
	if !ok {
		return nil, errUnsupportedf("analysing [%s]: only ASCII text is analysed exactly", scalarText(q.query))
	}
	if len(toks) == 0 {
		return c.empty(), nil
	}
	need := 1
	if q.operator == "and" {
		need = len(toks)
	} else if q.msm != "" {
		n, e := minShouldMatch(q.msm, len(toks))
		if e != nil {
			return nil, e
		}
		if n > 1 {
			need = n
		}
	}
	// Repeated tokens are separate clauses but one match per distinct token counts once
	// towards the required number; refuse the ambiguous case instead of guessing.
	seen := map[string]bool{}
	for _, t := range toks {
		if seen[t] && need > 1 {
			return nil, errUnsupportedf("repeated tokens with operator and/minimum_should_match in [match]")
		}
		seen[t] = true
	}
	return c.textTerms(f, toks, c.boost*q.boost, need)
}

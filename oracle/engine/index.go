package engine

import (
	"math"
	"net/netip"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/tidwall/gjson"
)

// fieldData is a field's doc values and term statistics. Every value is stored already in its
// sort representation: int64 for the long family, dates (millis or nanos), booleans (0/1) and
// scaled_float (the scaled long); float64 for double, float and half_float (float and
// half_float values are exact float32 values widened); term ids for keyword.
type fieldData struct {
	off []uint32 // values of doc d are [off[d], off[d+1]); docs past len(off)-1 have none
	i64 []int64
	f64 []float64
	ids []uint32 // keyword term ids, sorted per doc by term bytes, distinct

	dict  map[string]uint32
	terms []string
	df    []int64 // per term doc frequency, deleted documents included (Lucene statistics)
	ordOf []uint32
	byOrd []uint32

	docCount int64 // documents with a value, deleted ones included
	sumDF    int64 // sum of doc frequencies (keyword: also the sum of term frequencies)

	// text fields
	post  map[string][]posting
	norms []byte // per document, 0 for none
	// emptyText are the documents whose text field held only values with no token (""):
	// they have the field for an exists query (search/160_exists_query.yml, 8.5.1 on) and
	// count nowhere else.
	emptyText []int32
	sumTTF    int64
}

type posting struct {
	doc  int32
	freq int32
}

func newFieldData(f *field) *fieldData {
	d := &fieldData{off: []uint32{0}}
	switch f.typ {
	case tKeyword:
		d.dict = map[string]uint32{}
	case tBoolean:
		d.df = make([]int64, 2)
	case tText:
		d.post = map[string][]posting{}
	}
	return d
}

// span returns the value range of doc.
func (d *fieldData) span(doc int) (int, int) {
	if doc+1 >= len(d.off) {
		return 0, 0
	}
	return int(d.off[doc]), int(d.off[doc+1])
}

func (d *fieldData) pad(doc int) {
	last := d.off[len(d.off)-1]
	for len(d.off) < doc+1 {
		d.off = append(d.off, last)
	}
}

func (d *fieldData) close(n int) { d.off = append(d.off, uint32(n)) }

// docMeta is what an index keeps per document number.
type docMeta struct {
	id      string
	source  []byte
	version int64
	seqNo   int64
	ignored []string
	routing string // the write's routing, "" for none
}

// index is one single-shard index.
type index struct {
	name    string
	uuid    string
	mu      sync.RWMutex
	m       *mapping
	docs    []docMeta
	live    bitset
	nlive   int
	ids     map[string]int32
	nextSeq int64
	gen     uint64 // bumped by every write
	fresh   uint64 // the generation the derived structures were built for
	caches  sync.Map
	cached  atomic.Int64 // filter bitsets in caches
	parser  docParser    // reused by writes, which hold the write lock

	// searchGen is the generation of the last explicit refresh (the refresh API, ?refresh
	// on a write or a get, or loading fixtures). An index whose refresh_interval was set
	// explicitly is refreshed by Elasticsearch only then, or on a timer: its searches and
	// realtime=false gets see the documents live at that refresh, kept in visible (for
	// refresh_interval -1) as document numbers below visibleDocs.
	searchGen   uint64
	visible     bitset
	visibleDocs int
}

// maxCachedFilters bounds the filter bitsets an index caches between writes.
const maxCachedFilters = 2048

func newIndex(name string, m *mapping) *index {
	return &index{name: name, m: m, ids: map[string]int32{}, uuid: makeUUID(name), gen: 1, searchGen: 1}
}

func makeUUID(name string) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	h := uint64(14695981039346656037)
	for i := 0; i < len(name); i++ {
		h = (h ^ uint64(name[i])) * 1099511628211
	}
	h ^= uint64(time.Now().UnixNano())
	b := make([]byte, 22)
	for i := range b {
		h = h*6364136223846793005 + 1442695040888963407
		b[i] = alphabet[h>>58]
	}
	return string(b)
}

// docErr is a document rejected at parse time.
type docErr = esError

// parsedVal is one value of one field, converted.
type parsedVal struct {
	f *field
	i int64
	d float64
	s string
	t []string // text tokens
}

// docParser walks one source document.
type docParser struct {
	ix      *index
	id      string
	vals    []parsedVal
	newF    map[string]*field
	newList []*field
	ignored []string
}

// indexDoc parses and appends one document as a new document number, deleting the previous
// version of the same id. It returns the document's version and sequence number.
func (ix *index) indexDoc(id string, source []byte, opCreate bool) (version, seq int64, created bool, err *esError) {
	if len(source) == 0 || !gjson.ValidBytes(source) {
		return 0, 0, false, newErr(400, "document_parsing_exception", "[1:1] failed to parse: Unexpected character in document source").
			with("caused_by", `{"type":"x_content_parse_exception","reason":"[1:1] Unexpected character"}`)
	}
	// The source is kept unmodified for the index's lifetime, so it can be read as a string
	// without a copy.
	root := gjson.Parse(unsafe.String(&source[0], len(source)))
	if !root.IsObject() {
		return 0, 0, false, newErr(400, "document_parsing_exception", "[1:1] failed to parse: root of the document must be an object")
	}
	prev, exists := ix.ids[id]
	if opCreate && exists {
		return 0, 0, false, newErr(409, "version_conflict_engine_exception", "[%s]: version conflict, document already exists (current version [%d])", id, ix.docs[prev].version).
			with("index_uuid", jsonString(ix.uuid)).with("shard", `"0"`).with("index", jsonString(ix.name))
	}
	p := &ix.parser
	*p = docParser{ix: ix, id: id, vals: p.vals[:0]}
	if err := p.object("", root); err != nil {
		return 0, 0, false, err
	}
	// The document is valid: apply dynamic mapping updates, then the values.
	for _, f := range p.newList {
		ix.m.add(f)
	}
	doc := len(ix.docs)
	version = 1
	if exists {
		version = ix.docs[prev].version + 1
		ix.live.clear(int(prev))
		ix.nlive--
	}
	seq = ix.nextSeq
	ix.nextSeq++
	ix.docs = append(ix.docs, docMeta{id: id, source: source, version: version, seqNo: seq, ignored: p.ignored})
	p.newF, p.newList = nil, nil
	ix.live.set(doc)
	ix.nlive++
	ix.ids[id] = int32(doc)
	ix.appendValues(doc, p.vals)
	ix.gen++
	return version, seq, !exists, nil
}

// casConflict is the version conflict of a compare-and-set write (if_seq_no and
// if_primary_term) on id, or nil when the live document has that sequence number and primary
// term (always 1 here). A deleted or never written document is "no document was found"; a
// conflict takes no sequence number (InternalEngine#planIndexingAsPrimary and
// #planDeletionAsPrimary; messages and numbering measured on Elasticsearch 8.15.0).
func (ix *index) casConflict(id string, ifSeqNo, ifPrimaryTerm int64) *esError {
	var err *esError
	if d, ok := ix.ids[id]; !ok {
		err = newErr(409, "version_conflict_engine_exception", "[%s]: version conflict, required seqNo [%d], primary term [%d]. but no document was found", id, ifSeqNo, ifPrimaryTerm)
	} else if cur := ix.docs[d].seqNo; cur != ifSeqNo || ifPrimaryTerm != 1 {
		err = newErr(409, "version_conflict_engine_exception", "[%s]: version conflict, required seqNo [%d], primary term [%d]. current document has seqNo [%d] and primary term [1]", id, ifSeqNo, ifPrimaryTerm, cur)
	} else {
		return nil
	}
	return err.with("index_uuid", jsonString(ix.uuid)).with("shard", `"0"`).with("index", jsonString(ix.name))
}

// deleteDoc removes a document; it reports whether it existed and the new version.
func (ix *index) deleteDoc(id string) (version, seq int64, found bool) {
	prev, ok := ix.ids[id]
	seq = ix.nextSeq
	ix.nextSeq++
	if !ok {
		return 1, seq, false
	}
	ix.live.clear(int(prev))
	ix.nlive--
	delete(ix.ids, id)
	ix.gen++
	return ix.docs[prev].version + 1, seq, true
}

// appendValues stores a new document's values column by column. vals are grouped by field in
// first-seen order.
func (ix *index) appendValues(doc int, vals []parsedVal) {
	// Insertion sort: a document has few values and this runs for every document.
	for i := 1; i < len(vals); i++ {
		for j := i; j > 0 && vals[j].f.ord < vals[j-1].f.ord; j-- {
			vals[j], vals[j-1] = vals[j-1], vals[j]
		}
	}
	for i := 0; i < len(vals); {
		j := i
		for j < len(vals) && vals[j].f == vals[i].f {
			j++
		}
		ix.appendField(doc, vals[i].f, vals[i:j])
		i = j
	}
}

func (ix *index) appendField(doc int, f *field, vs []parsedVal) {
	d := f.data
	switch f.typ {
	case tKeyword:
		d.pad(doc)
		set := make([]string, 0, len(vs))
		for _, v := range vs {
			set = append(set, v.s)
		}
		sort.Strings(set)
		n := 0
		for k, s := range set {
			if k > 0 && s == set[k-1] {
				continue
			}
			set[n] = s
			n++
		}
		for _, s := range set[:n] {
			id, ok := d.dict[s]
			if !ok {
				id = uint32(len(d.terms))
				d.dict[s] = id
				d.terms = append(d.terms, s)
				d.df = append(d.df, 0)
			}
			d.df[id]++
			d.ids = append(d.ids, id)
		}
		d.docCount++
		d.sumDF += int64(n)
		d.close(len(d.ids))
	case tText:
		freqs := map[string]int32{}
		length := 0
		for _, v := range vs {
			for _, t := range v.t {
				freqs[t]++
				length++
			}
		}
		for len(d.norms) < doc {
			d.norms = append(d.norms, 0)
		}
		if length == 0 {
			d.norms = append(d.norms, 0)
			if len(vs) > 0 {
				d.emptyText = append(d.emptyText, int32(doc))
			}
			return
		}
		d.norms = append(d.norms, intToByte4(length))
		d.docCount++
		d.sumTTF += int64(length)
		for t, fr := range freqs {
			d.post[t] = append(d.post[t], posting{int32(doc), fr})
			d.sumDF++
		}
	case tDouble, tFloat, tHalfFloat:
		d.pad(doc)
		start := len(d.f64)
		for _, v := range vs {
			d.f64 = append(d.f64, v.d)
		}
		sort.Float64s(d.f64[start:])
		d.close(len(d.f64))
	default:
		d.pad(doc)
		start := len(d.i64)
		for _, v := range vs {
			d.i64 = append(d.i64, v.i)
		}
		s := d.i64[start:]
		slices.Sort(s)
		if f.typ == tBoolean {
			seen0, seen1 := false, false
			for _, x := range s {
				if x == 0 {
					seen0 = true
				} else {
					seen1 = true
				}
			}
			if seen0 {
				d.df[0]++
			}
			if seen1 {
				d.df[1]++
			}
			d.docCount++
		}
		d.close(len(d.i64))
	}
}

// refresh rebuilds the derived structures (keyword ordinals) after writes. The caller holds
// the write lock.
func (ix *index) refresh() {
	if ix.fresh == ix.gen {
		return
	}
	for _, f := range ix.m.order {
		d := f.data
		if f.typ == tKeyword && len(d.ordOf) != len(d.terms) {
			byOrd := make([]uint32, len(d.terms))
			for i := range byOrd {
				byOrd[i] = uint32(i)
			}
			sort.Slice(byOrd, func(a, b int) bool { return d.terms[byOrd[a]] < d.terms[byOrd[b]] })
			ordOf := make([]uint32, len(d.terms))
			for o, id := range byOrd {
				ordOf[id] = uint32(o)
			}
			d.byOrd, d.ordOf = byOrd, ordOf
		}
	}
	ix.caches.Clear()
	ix.cached.Store(0)
	ix.fresh = ix.gen
}

// publish is an explicit refresh: from now on searches and realtime=false gets see the
// index as it is. The caller holds the write lock.
func (ix *index) publish() {
	ix.refresh()
	ix.searchGen = ix.gen
	if ix.m.refreshInterval == "-1" {
		ix.visible = append(ix.visible[:0], ix.live...)
		ix.visibleDocs = len(ix.docs)
	}
}

// unrefreshed reports writes since the last explicit refresh.
func (ix *index) unrefreshed() bool { return ix.searchGen != ix.gen }

// searcherDoc finds the document a realtime=false get sees: the copy of id live at the last
// explicit refresh of an index with refresh_interval -1 (Elasticsearch reads such a get from
// the searcher, not the translog). ok is false when ES could answer either way: an index
// refreshed on a timer with writes since its last explicit refresh.
func (ix *index) searcherDoc(id string) (doc int32, found, ok bool) {
	if !ix.unrefreshed() {
		d, found := ix.ids[id]
		return d, found, true
	}
	if ix.m.refreshInterval != "-1" {
		return 0, false, false
	}
	if d, has := ix.ids[id]; has && int(d) < ix.visibleDocs && ix.visible.has(int(d)) {
		return d, true, true
	}
	for d := ix.visibleDocs - 1; d >= 0; d-- {
		if ix.docs[d].id == id && ix.visible.has(d) {
			return int32(d), true, true
		}
	}
	return 0, false, true
}

// readLock takes the read lock on a refreshed index.
func (ix *index) readLock() {
	ix.mu.RLock()
	if ix.fresh != ix.gen {
		ix.mu.RUnlock()
		ix.mu.Lock()
		ix.refresh()
		ix.mu.Unlock()
		ix.mu.RLock()
	}
}

func (p *docParser) fail(f string, typ string, val gjson.Result, cause string) *esError {
	preview := val.String()
	if val.Type == gjson.JSON {
		preview = val.Raw
	}
	e := newErr(400, "document_parsing_exception", "[1:%d] failed to parse field [%s] of type [%s] in document with id '%s'. Preview of field's value: '%s'",
		val.Index+1, f, typ, p.id, preview)
	if cause != "" {
		e.causedBy = errIllegalArg("%s", cause)
	}
	return e
}

func (p *docParser) object(prefix string, obj gjson.Result) *esError {
	var err *esError
	obj.ForEach(func(k, v gjson.Result) bool {
		key := k.String()
		if key == "" {
			err = newErr(400, "document_parsing_exception", "[1:%d] field name cannot be an empty string", k.Index+1)
			return false
		}
		if strings.HasPrefix(key, "_") && prefix == "" {
			if key == "_id" || key == "_index" || key == "_source" || key == "_routing" || key == "_version" || key == "_seq_no" {
				err = newErr(400, "document_parsing_exception", "[1:%d] Field [%s] is a metadata field and cannot be added inside a document. Use the index API request parameters.", k.Index+1, key)
				return false
			}
		}
		err = p.value(prefix+key, v)
		return err == nil
	})
	return err
}

func (p *docParser) lookup(path string) *field {
	if f, ok := p.ix.m.fields[path]; ok {
		return f
	}
	return p.newF[path]
}

func (p *docParser) value(path string, v gjson.Result) *esError {
	if v.IsArray() {
		var err *esError
		v.ForEach(func(_, e gjson.Result) bool {
			err = p.value(path, e)
			return err == nil
		})
		return err
	}
	f := p.lookup(path)
	if v.IsObject() {
		if f == nil {
			if err := p.ensureParents(path); err != nil {
				return err
			}
			switch p.ix.m.dynamicFor(path + ".x") {
			case "false":
				if p.ix.m.dynamicFor(path) == "false" {
					return nil
				}
			}
			if dyn := p.ix.m.dynamicFor(path); dyn == "strict" {
				return p.strict(path)
			} else if dyn == "false" {
				return nil
			}
			f = p.newField(path, tObject)
		}
		if f.typ != tObject {
			return p.leafObject(f, v)
		}
		return p.object(path+".", v)
	}
	if v.Type == gjson.Null {
		if f != nil && f.nullValue != nil && f.typ != tObject {
			return p.scalar(f, *f.nullValue)
		}
		return nil
	}
	if f == nil {
		if err := p.ensureParents(path); err != nil {
			return err
		}
		switch p.ix.m.dynamicFor(path) {
		case "strict":
			return p.strict(path)
		case "false":
			return nil
		}
		if p.ix.m.hasTemplates {
			return errUnsupportedf("dynamic templates (new field [%s])", path)
		}
		f = p.dynamicLeaf(path, v)
	}
	if f.typ == tObject {
		return newErr(400, "document_parsing_exception", "[1:%d] object mapping for [%s] tried to parse field [%s] as object, but found a concrete value", v.Index+1, path, lastSegment(path))
	}
	return p.scalar(f, v)
}

// objectValued are the field types outside the subset whose values may be JSON objects
// (points, shapes, ranges, flattened, nested and the like); an object in any other leaf
// field is a document_parsing_exception.
var objectValued = map[string]bool{
	"geo_point": true, "geo_shape": true, "point": true, "shape": true, "flattened": true, "nested": true,
	"integer_range": true, "long_range": true, "float_range": true, "double_range": true, "date_range": true,
	"ip_range": true, "join": true, "completion": true, "percolator": true, "histogram": true,
	"aggregate_metric_double": true, "rank_features": true, "sparse_vector": true, "passthrough": true,
}

// leafObject answers an object value given to a leaf field as DocumentParser does (measured
// on Elasticsearch 8.15.0 for keyword, text, date, ip and the numbers): the location is the
// object's end, the preview the value as a Java Map prints, and the cause is the mapper's
// (a text-reading mapper's "Can't get text on a START_OBJECT at 1:<start>", a number's
// "Cannot parse object as number"). Where the cause is not known (boolean's Jackson message
// quotes the source, other types outside the subset), the request is declined.
func (p *docParser) leafObject(f *field, v gjson.Result) *esError {
	typ := f.typ.String()
	var cause *esError
	switch f.typ {
	case tOpaque:
		typ = f.typeName
		if objectValued[typ] {
			return nil
		}
		if typ != "ip" {
			return errUnsupportedf("an object value for field [%s] of type [%s]", f.name, typ)
		}
		cause = newErr(400, "illegal_state_exception", "Can't get text on a START_OBJECT at 1:%d", v.Index+1)
	case tKeyword, tText, tDate, tDateNanos:
		cause = newErr(400, "illegal_state_exception", "Can't get text on a START_OBJECT at 1:%d", v.Index+1)
	case tLong, tInteger, tShort, tByte, tDouble, tFloat, tHalfFloat, tScaledFloat:
		cause = errIllegalArg("Cannot parse object as number")
	default:
		return errUnsupportedf("an object value for field [%s] of type [%s]", f.name, typ)
	}
	e := newErr(400, "document_parsing_exception", "[1:%d] failed to parse field [%s] of type [%s] in document with id '%s'. Preview of field's value: '%s'",
		v.Index+len(v.Raw), f.name, typ, p.id, javaMapString(v))
	e.causedBy = cause
	return e
}

// javaMapString prints a JSON value as Java's Map and List toString do ({a={b=1}, c=[1, x]}).
func javaMapString(v gjson.Result) string {
	var b strings.Builder
	var walk func(v gjson.Result)
	walk = func(v gjson.Result) {
		switch {
		case v.IsObject():
			b.WriteByte('{')
			first := true
			v.ForEach(func(k, e gjson.Result) bool {
				if !first {
					b.WriteString(", ")
				}
				first = false
				b.WriteString(k.String())
				b.WriteByte('=')
				walk(e)
				return true
			})
			b.WriteByte('}')
		case v.IsArray():
			b.WriteByte('[')
			for i, e := range v.Array() {
				if i > 0 {
					b.WriteString(", ")
				}
				walk(e)
			}
			b.WriteByte(']')
		case v.Type == gjson.String:
			b.WriteString(v.String())
		default:
			b.WriteString(v.Raw)
		}
	}
	walk(v)
	return b.String()
}

func lastSegment(p string) string {
	if i := strings.LastIndexByte(p, '.'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// ensureParents creates the object mappings a dotted field name implies.
func (p *docParser) ensureParents(path string) *esError {
	for i := 0; i < len(path); i++ {
		if path[i] != '.' {
			continue
		}
		parent := path[:i]
		if f := p.lookup(parent); f != nil {
			if f.typ != tObject && f.typ != tOpaque {
				return newErr(400, "document_parsing_exception", "[1:1] Could not dynamically add mapping for field [%s]. Existing mapping for [%s] must be of type object but found [%s].", path, parent, f.typ)
			}
			continue
		}
		switch p.ix.m.dynamicFor(parent) {
		case "strict":
			return p.strict(parent)
		case "false":
			return nil
		}
		p.newField(parent, tObject)
	}
	return nil
}

func (p *docParser) strict(path string) *esError {
	within := "_doc"
	name := path
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		within, name = path[:i], path[i+1:]
	}
	return newErr(400, "strict_dynamic_mapping_exception", "[1:1] mapping set to strict, dynamic introduction of [%s] within [%s] is not allowed", name, within)
}

func (p *docParser) newField(path string, t ftype) *field {
	f := &field{name: path, typ: t, typeName: t.String(), coerce: true, docValues: t != tText, indexed: true}
	if p.newF == nil {
		p.newF = map[string]*field{}
	}
	p.newF[path] = f
	p.newList = append(p.newList, f)
	return f
}

// dynamicLeaf maps a new field from its first value as Elasticsearch's dynamic mapping does:
// a string becomes a date when it parses with a dynamic date format (date_detection),
// otherwise text with a keyword sub-field "keyword" (ignore_above 256); a JSON integer becomes
// long, a JSON decimal float (not double), a boolean boolean.
func (p *docParser) dynamicLeaf(path string, v gjson.Result) *field {
	m := p.ix.m
	switch v.Type {
	case gjson.True, gjson.False:
		return p.newField(path, tBoolean)
	case gjson.Number:
		if isIntegerLiteral(v.Raw) {
			return p.newField(path, tLong)
		}
		return p.newField(path, tFloat)
	}
	s := v.String()
	if m.dateDetection {
		// DynamicFieldsBuilder tries the dynamic date formats only on strings neither
		// Long.parseLong nor Double.parseDouble reads ("We refuse to match pure numbers, which
		// are too likely to be false positives with date formats that include eg.
		// `epoch_millis`"): on real 8.15.0 "12345" and "-5" map as text, "2020-01" as date.
		_, pureNumber := javaParseDouble(s)
		for _, df := range m.dynamicDates {
			if pureNumber {
				break
			}
			if _, err := df.parse(s, false, nil, false); err == nil {
				f := p.newField(path, tDate)
				f.dateFmt = df
				// GET _mapping writes the matching dynamic format unless it is the date
				// default (checked on real 8.15.0).
				f.given = []mparam{{"format", gjson.Parse(jsonString(df.spec))}}
				return f
			}
		}
	}
	if m.numericDetect {
		if _, err := strconv.ParseInt(s, 10, 64); err == nil {
			return p.newField(path, tLong)
		}
		if _, err := strconv.ParseFloat(s, 64); err == nil {
			return p.newField(path, tFloat)
		}
	}
	f := p.newField(path, tText)
	kw := p.newField(path+".keyword", tKeyword)
	kw.ignoreAbove = 256
	kw.given = []mparam{{"ignore_above", gjson.Parse("256")}}
	kw.parent = f
	f.subfields = []*field{kw}
	return f
}

func isIntegerLiteral(raw string) bool {
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c == '.' || c == 'e' || c == 'E' {
			return false
		}
	}
	return true
}

// scalar converts one value for f (and its multi-fields).
func (p *docParser) scalar(f *field, v gjson.Result) *esError {
	pv := parsedVal{f: f}
	text := v.String()
	if v.Type == gjson.Number {
		text = v.Raw
	}
	switch f.typ {
	case tOpaque:
		if f.typeName == "ip" {
			return p.ipValue(f, v, text)
		}
		return nil
	case tKeyword:
		if v.Type == gjson.JSON {
			return p.fail(f.name, "keyword", v, "")
		}
		if f.ignoreAbove > 0 && utf16Len(text) > f.ignoreAbove {
			p.ignored = appendUnique(p.ignored, f.name)
			return nil
		}
		pv.s = text
	case tText:
		if f.analyzer != "" {
			return errUnsupportedf("analyzer [%s] on field [%s]", f.analyzer, f.name)
		}
		toks, ok := standardTokens(text)
		if !ok {
			// The value is kept; a full-text query on the field will be refused.
			toks = nil
			f.unanalysable = true
		}
		pv.t = toks
	case tBoolean:
		switch {
		case v.Type == gjson.True || v.Type == gjson.String && text == "true":
			pv.i = 1
		case v.Type == gjson.False || v.Type == gjson.String && text == "false":
			pv.i = 0
		case v.Type == gjson.String && text == "":
			if f.nullValue != nil {
				return p.scalar(f, *f.nullValue)
			}
			return nil
		default:
			if f.ignoreMal {
				p.ignored = appendUnique(p.ignored, f.name)
				return nil
			}
			return p.fail(f.name, "boolean", v, "Failed to parse value ["+text+"] as only [true] or [false] are allowed.")
		}
	case tDate, tDateNanos:
		if v.Type != gjson.String && v.Type != gjson.Number {
			return p.fail(f.name, f.typ.String(), v, "")
		}
		ms, err := f.dateFmt.parse(text, false, nil, f.typ == tDateNanos)
		if err != nil {
			if f.ignoreMal {
				p.ignored = appendUnique(p.ignored, f.name)
				return nil
			}
			return p.fail(f.name, f.typ.String(), v, "failed to parse date field ["+text+"] with format ["+f.dateFmt.spec+"]")
		}
		pv.i = ms
	default:
		if v.Type == gjson.String && text == "" {
			if f.nullValue != nil {
				return p.scalar(f, *f.nullValue)
			}
			return nil
		}
		if v.Type != gjson.String && v.Type != gjson.Number {
			return p.fail(f.name, f.typ.String(), v, "")
		}
		if v.Type == gjson.String && !f.coerce {
			return p.fail(f.name, f.typ.String(), v, "")
		}
		var err string
		pv.i, pv.d, err = parseNumberForField(f, text)
		if err != "" {
			if f.ignoreMal {
				p.ignored = appendUnique(p.ignored, f.name)
				return nil
			}
			return p.fail(f.name, f.typ.String(), v, err)
		}
	}
	p.vals = append(p.vals, pv)
	for _, sub := range f.subfields {
		if err := p.scalar(sub, v); err != nil {
			return err
		}
	}
	return nil
}

// ipValue checks an ip field's value as IpFieldMapper does: an address is kept (in _source
// only: ip fields are outside the subset for queries), a malformed one is ignored and named
// in _ignored under ignore_malformed. A malformed one without it is declined, since the
// error's text is not known here, and so is an address with a scope (%zone), which Go's
// parser and Elasticsearch's InetAddresses may not judge alike.
func (p *docParser) ipValue(f *field, v gjson.Result, text string) *esError {
	if v.Type == gjson.String || v.Type == gjson.Number {
		if a, err := netip.ParseAddr(text); err == nil {
			if a.Zone() != "" {
				return errUnsupportedf("the ip value [%s] with a scope in field [%s]", text, f.name)
			}
			return nil
		}
	}
	if strings.Contains(text, "%") {
		return errUnsupportedf("the ip value [%s] with a scope in field [%s]", text, f.name)
	}
	if f.ignoreMal {
		p.ignored = appendUnique(p.ignored, f.name)
		return nil
	}
	return errUnsupportedf("the malformed ip value [%s] in field [%s]", text, f.name)
}

func appendUnique(s []string, v string) []string {
	for _, x := range s {
		if x == v {
			return s
		}
	}
	return append(s, v)
}

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// parseNumberForField converts the text of a JSON number or a coerced string for a numeric
// field, as NumberFieldMapper does: integer types truncate decimals (coerce) and check their
// range; float types round to their precision; scaled_float stores Math.round(v × factor).
func parseNumberForField(f *field, text string) (int64, float64, string) {
	switch f.typ {
	case tLong, tInteger, tShort, tByte:
		v, ok, msg := parseIntegerValue(text, f.coerce)
		if !ok {
			return 0, 0, msg
		}
		lo, hi := intRange(f.typ)
		if v < lo || v > hi {
			return 0, 0, "Value [" + text + "] is out of range for " + articleFor(f.typ)
		}
		return v, 0, ""
	case tDouble:
		d, err := strconv.ParseFloat(text, 64)
		if err != nil && !isRangeErr(err) {
			return 0, 0, "For input string: \"" + text + "\""
		}
		if math.IsInf(d, 0) || math.IsNaN(d) {
			return 0, 0, "[double] supports only finite values, but got [" + text + "]"
		}
		return 0, d, ""
	case tFloat, tHalfFloat:
		d, err := strconv.ParseFloat(text, 32)
		if err != nil && !isRangeErr(err) {
			return 0, 0, "For input string: \"" + text + "\""
		}
		fv := float32(d)
		if f.typ == tHalfFloat {
			fv = toHalf(fv)
		}
		if math.IsInf(float64(fv), 0) || math.IsNaN(float64(fv)) {
			return 0, 0, "[" + f.typ.String() + "] supports only finite values, but got [" + text + "]"
		}
		return 0, float64(fv), ""
	case tScaledFloat:
		d, err := strconv.ParseFloat(text, 64)
		if err != nil && !isRangeErr(err) {
			return 0, 0, "For input string: \"" + text + "\""
		}
		if math.IsInf(d, 0) || math.IsNaN(d) {
			return 0, 0, "[scaled_float] only supports finite values, but got [" + text + "]"
		}
		return javaRound(d * f.scaling), 0, ""
	}
	return 0, 0, "unsupported"
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

func articleFor(t ftype) string {
	switch t {
	case tInteger:
		return "an integer"
	case tShort:
		return "a short"
	case tByte:
		return "a byte"
	}
	return "a long"
}

func intRange(t ftype) (int64, int64) {
	switch t {
	case tInteger:
		return math.MinInt32, math.MaxInt32
	case tShort:
		return math.MinInt16, math.MaxInt16
	case tByte:
		return math.MinInt8, math.MaxInt8
	}
	return math.MinInt64, math.MaxInt64
}

// parseIntegerValue parses an integer-family value exactly: integer literals without going
// through a double, decimals truncated toward zero when coercion is on.
func parseIntegerValue(text string, coerce bool) (int64, bool, string) {
	if v, err := strconv.ParseInt(text, 10, 64); err == nil {
		return v, true, ""
	} else if isRangeErr(err) {
		return 0, false, "Value [" + text + "] is out of range for a long"
	}
	d, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsNaN(d) || math.IsInf(d, 0) {
		return 0, false, "For input string: \"" + text + "\""
	}
	if d != math.Trunc(d) && !coerce {
		return 0, false, "Value [" + text + "] has a decimal part"
	}
	if d >= 9.223372036854775807e18 || d < -9.223372036854775808e18 {
		return 0, false, "Value [" + text + "] is out of range for a long"
	}
	return int64(d), true, ""
}

// bitset is a set of document numbers.
type bitset []uint64

func newBitset(n int) bitset { return make(bitset, (n+63)/64) }

func (b *bitset) set(i int) {
	for len(*b) <= i/64 {
		*b = append(*b, 0)
	}
	(*b)[i/64] |= 1 << (uint(i) % 64)
}

func (b bitset) clear(i int) {
	if i/64 < len(b) {
		b[i/64] &^= 1 << (uint(i) % 64)
	}
}

func (b bitset) has(i int) bool { return i/64 < len(b) && b[i/64]&(1<<(uint(i)%64)) != 0 }

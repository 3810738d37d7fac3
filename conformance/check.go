package conformance

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Absent is the Want or Got of a difference where the value is missing altogether. It is
// distinct from the JSON text null.
const Absent = "<absent>"

// Difference is one way a response differs from the expected one.
type Difference struct {
	Class Class
	// Path locates the value in the body, e.g. hits.hits[3]._source.price or
	// aggregations.by_brand.buckets[2].key; keys that are not plain names are written
	// ["a.b"]. It is empty for the HTTP status and for the body as a whole.
	Path string
	// Want and Got are JSON text, or a short description in angle brackets such as
	// <absent> or <19 elements>.
	Want, Got string
	// Fails is whether this difference fails the response under the options checked with.
	Fails bool
	// Relaxed names the relaxation that kept this difference from failing, if any.
	Relaxed Relaxation
}

// Result is the outcome of one check.
type Result struct {
	// Pass is true when no difference fails.
	Pass bool
	// Diffs lists every difference found, failing or reported, in body order (the HTTP
	// status first). A passing check of a conforming response has none and allocates nothing.
	Diffs []Difference
}

// FailingClasses returns the distinct classes of the failing differences, in Classes order.
func (r Result) FailingClasses() []Class {
	var seen [32]bool
	for _, d := range r.Diffs {
		if i := d.Class.Index(); d.Fails && i >= 0 {
			seen[i] = true
		}
	}
	var out []Class
	for i, c := range classOrder {
		if seen[i] {
			out = append(out, c)
		}
	}
	return out
}

// Paths returns the distinct paths of the differences, in order, leaving out the HTTP
// status; they are what Trim shows a body around.
func (r Result) Paths() []string {
	var out []string
	for _, d := range r.Diffs {
		if d.Class == ClassStatus && d.Path == "" {
			continue
		}
		if !slices.Contains(out, d.Path) {
			out = append(out, d.Path)
		}
	}
	return out
}

// Check compares a response with the expectation. nil opts are the strict defaults. It never
// panics: a body that is not JSON, is truncated, nests too deeply or has the wrong types gives
// a classified difference.
//
// Numbers are equal only with the same kind and value (see compareNumbers); strings compare by
// their bytes after JSON unescaping; null differs from absent; object key order is reported as
// key_order and does not fail. When a hit's _id or a bucket's key differs, the rest of that
// hit or bucket is not compared: it is another entity, and the one difference says so.
// _score and max_score fail without Pedantic when the expected hits carry no sort values,
// because they are then the ranking itself; under a field sort they are report-only.
// The value of "took" is never compared, only that it is a non-negative integer.
// Given the request (ForRequest), a size-0 search that matches exactly its track_total_hits
// may answer hits.total.relation "gte" for "eq": Elasticsearch does either, by segment layout,
// for a query Lucene cannot always count given what opts.Index says of the target's deleted
// documents and multi-valued fields; and "eq" for an oracle's "gte" at N where the oracle's
// count depends on the layout (see acceptAtThreshold). The difference is reported and does
// not fail.
func (x *Expectation) Check(status int, body []byte, opts *Options) (res Result) {
	defer func() {
		// The walker is fuzzed to never panic; this keeps a bug in it from taking a
		// whole timed run down with it, and says so in the result.
		if p := recover(); p != nil {
			res = Result{Diffs: []Difference{{Class: ClassDecode, Want: "<a checkable body>",
				Got: fmt.Sprintf("<internal error in the check: %v>", p), Fails: true}}}
		}
	}()
	w := walkers.Get().(*walker)
	*w = walker{x: x, b: body, pedantic: opts != nil && opts.Pedantic, relax: opts.bits(), identDiff: -1, path: w.path[:0], relevance: x.relevance}
	if status != x.status {
		w.addClass(ClassStatus, strconv.Itoa(x.status), strconv.Itoa(status), 0)
	}
	switch {
	case x.kind == KindText:
		if !bytes.Equal(body, x.body) {
			w.addClass(ClassBody, textOf(x.body), textOf(body), 0)
		}
	case !x.sameBytes(body):
		w.walkBody()
	}
	res.Diffs = w.diffs
	if len(res.Diffs) > 0 && len(x.request) > 0 {
		x.acceptAtThreshold(res.Diffs, opts)
		if r := w.relax & relaxRequestAware; r != 0 {
			x.excuseOpenSearch(status, body, res.Diffs, r, opts.Fields)
		}
	}
	if len(res.Diffs) > 0 && w.relax&relaxScores != 0 && x.scoreSort != nil {
		x.excuseScoreSorts(res.Diffs)
	}
	// The path's keys may point into body; drop them before the walker is reused.
	clear(w.path[:cap(w.path)])
	*w = walker{path: w.path[:0]}
	walkers.Put(w)
	res.Pass = true
	for i := range res.Diffs {
		if res.Diffs[i].Fails {
			res.Pass = false
			break
		}
	}
	if !res.Pass && opts.bits()&relaxTieOrder != 0 {
		res = x.checkTies(status, body, res, opts)
	}
	return res
}

// sameBytes is the fast path: the body is the expected bytes, apart from took's value.
func (x *Expectation) sameBytes(b []byte) bool {
	if x.tookStart < 0 {
		return bytes.Equal(b, x.body)
	}
	pre, suf := x.body[:x.tookStart], x.body[x.tookEnd:]
	if len(b) < len(pre)+1+len(suf) || !bytes.Equal(b[:len(pre)], pre) || !bytes.Equal(b[len(b)-len(suf):], suf) {
		return false
	}
	return isNonNegInt(b[len(pre) : len(b)-len(suf)])
}

func isNonNegInt(b []byte) bool {
	if len(b) == 0 || len(b) > 1 && b[0] == '0' {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// pathStep is one step of the path to the value being compared: a key, or an index when
// idx >= 0. The walker keeps the path as a stack and formats it only for a difference.
type pathStep struct {
	key string
	idx int
}

func formatPath(steps []pathStep) string {
	var b strings.Builder
	for i, s := range steps {
		switch {
		case s.idx >= 0:
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(s.idx))
			b.WriteByte(']')
		case plainKey(s.key):
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.key)
		default:
			b.WriteByte('[')
			b.WriteString(quote(s.key))
			b.WriteByte(']')
		}
	}
	return b.String()
}

// plainKey reports whether a key can be written bare in a path.
func plainKey(k string) bool {
	if k == "" || !utf8.ValidString(k) {
		return false
	}
	for _, r := range k {
		switch {
		case r == '.' || r == '[' || r == ']' || r == '"' || r == '\\':
			return false
		case r <= ' ' || r == 0x7f:
			return false
		}
	}
	return true
}

// walker compares a received body with an expected value tree in one pass over the bytes.
// It validates the JSON as it goes, so the bytes it skips are checked too.
//
// Why a walker of our own rather than gjson for the pass path and go-cmp for the diffs (the
// design's default): gjson does not validate, and gjson.Valid is a separate pass that recurses
// without a depth limit, so a 10 MB body of '[' overflows the goroutine stack, a fatal error
// no recover catches; gjson's ForEach re-scans every nested value to find its end, so walking
// a page of 20 hits reads each byte once per level (BenchmarkGjson against BenchmarkCheck:
// a ForEach walk of a pretty-printed page, comparing nothing, takes about twice this walker's
// whole check of it, and gjson.Valid alone about thirty times its check of a page whose bytes
// differ from the expected ones only around the hits); its Result does not say integer or
// float, and its unescaping allocates. go-cmp would need both bodies decoded first, and its
// diff of slices is an edit script, not the position-by-position comparison the ids class
// defines. The walker gets the paths, classes and want/got texts as it goes, at no cost when
// nothing differs. go-cmp serves instead in FuzzCheck, to show where the independent
// reference and the walker disagree.
type walker struct {
	x        *Expectation
	b        []byte
	pos      int
	pedantic bool
	relax    relaxBits
	diffs    []Difference
	// identDiff is the index in diffs of the identity difference (a hit's _id, a bucket's
	// key) of the entity being walked, or -1.
	identDiff int
	err       *SyntaxError
	errPath   string
	// path is the stack of steps to the value being compared; its backing array is reused
	// from check to check through walkers.
	path []pathStep
	// relevance is whether the search being walked is in score order (the expectation's, or
	// an _msearch item's), so that its scores fail.
	relevance bool
}

// walkers recycles walkers so that a passing check allocates nothing.
var walkers = sync.Pool{New: func() any { return &walker{path: make([]pathStep, 0, 32)} }}

func (w *walker) walkBody() {
	w.ws()
	if w.pos >= len(w.b) {
		w.fail(syntaxErr(w.b, w.pos, "empty body"))
	} else {
		w.value(&w.x.root, w.x.start, 0)
	}
	if w.err == nil {
		w.ws()
		if w.pos < len(w.b) {
			w.fail(syntaxErr(w.b, w.pos, "unexpected data after the JSON value"))
		}
	}
	if w.err != nil {
		// What was compared before the syntax error is moot; keep only the status.
		keep := w.diffs[:0]
		for _, d := range w.diffs {
			if d.Class == ClassStatus && d.Path == "" {
				keep = append(keep, d)
			}
		}
		w.diffs = append(keep, Difference{Class: ClassDecode, Path: w.errPath, Want: "<valid JSON>",
			Got: "<" + w.err.Error() + ">", Fails: true})
	}
}

func (w *walker) ws() { w.pos = skipWS(w.b, w.pos) }

func (w *walker) fail(err *SyntaxError) {
	if w.err == nil {
		w.err, w.errPath = err, formatPath(w.path)
	}
}

// add records a difference at the current path, classified by c. relax is a relaxation
// that could excuse it besides the one c implies.
func (w *walker) add(c ctx, want, got string, relax relaxBits) {
	if c.isIdentity() {
		w.identDiff = len(w.diffs)
	}
	w.addClass(c.class(), want, got, relax|c.relaxedBy())
}

func (w *walker) addClass(cl Class, want, got string, relax relaxBits) {
	d := Difference{Class: cl, Path: formatPath(w.path), Want: clip(want), Got: clip(got)}
	if r := relax & w.relax; r != 0 {
		for _, k := range relaxations {
			if r&k.bit != 0 {
				d.Relaxed = k.r
				break
			}
		}
	}
	d.Fails = d.Relaxed == "" && (w.pedantic || cl.FailsByDefault() || cl == ClassScore && w.relevance)
	w.diffs = append(w.diffs, d)
}

// maxText bounds the JSON text a difference copies, so a pathological body cannot make a
// failure record as large as itself.
const maxText = 16 << 10

func clip(s string) string {
	if len(s) <= maxText {
		return s
	}
	head := strings.ToValidUTF8(s[:200], "")
	return fmt.Sprintf("<%d bytes of JSON: %s…>", len(s), head)
}

func (w *walker) mismatch(e *value, c ctx, start int, relax relaxBits) {
	w.add(c, e.raw, string(w.b[start:w.pos]), relax)
}

// value compares the JSON value at w.pos with e.
func (w *walker) value(e *value, c ctx, depth int) {
	start := w.pos
	if w.pos >= len(w.b) {
		w.fail(syntaxErr(w.b, w.pos, "unexpected end of input"))
		return
	}
	// Bytes identical to the expected text are an identical value: one memory compare
	// instead of a walk. Objects, arrays and strings are self-delimiting, so a prefix match
	// is a whole-value match. Targets that pass _source through untouched take this path
	// for every source even when the rest of the hit is laid out differently.
	if (e.kind == kObject || e.kind == kArray || e.kind == kString) && len(w.b)-w.pos >= len(e.raw) &&
		string(w.b[w.pos:w.pos+len(e.raw)]) == e.raw {
		w.pos += len(e.raw)
		return
	}
	if c == ctxTook && e.kind == kNumber && !e.float && e.raw[0] != '-' {
		w.skip(depth)
		if w.err == nil && !isNonNegInt(w.b[start:w.pos]) {
			w.add(c, "<a non-negative integer>", string(w.b[start:w.pos]), 0)
		}
		return
	}
	switch ch := w.b[w.pos]; {
	case ch == '{':
		if e.kind != kObject {
			w.skipMismatch(e, c, depth)
			return
		}
		w.object(e, c, depth+1)
	case ch == '[':
		if e.kind != kArray {
			w.skipMismatch(e, c, depth)
			return
		}
		w.array(e, c, depth+1)
	case ch == '"':
		end, esc, err := scanString(w.b, w.pos)
		if err != nil {
			w.fail(err)
			return
		}
		w.pos = end
		if e.kind != kString {
			w.mismatch(e, c, start, 0)
			return
		}
		s := w.b[start+1 : end-1]
		if esc && !unescapeEqual(s, e.str) || !esc && string(s) != e.str {
			w.mismatch(e, c, start, 0)
		}
	case ch == 't' || ch == 'f' || ch == 'n':
		end, err := scanLiteral(w.b, w.pos)
		if err != nil {
			w.fail(err)
			return
		}
		w.pos = end
		if string(w.b[start:end]) != e.raw {
			w.mismatch(e, c, start, 0)
		}
	default:
		end, isFloat, err := scanNumber(w.b, w.pos)
		if err != nil {
			w.fail(err)
			return
		}
		w.pos = end
		if e.kind != kNumber {
			w.mismatch(e, c, start, 0)
			return
		}
		switch compareNumbers(e, w.b[start:end], isFloat) {
		case numEqual:
		case numKindOnly:
			w.mismatch(e, c, start, relaxNumberKind)
		case numFloat32:
			w.mismatch(e, c, start, relaxFloat32)
		default:
			w.mismatch(e, c, start, 0)
		}
	}
}

// skipMismatch skips a container where e is not one, and records the difference.
func (w *walker) skipMismatch(e *value, c ctx, depth int) {
	start := w.pos
	w.skip(depth)
	if w.err != nil {
		return
	}
	want := e.raw
	if c == ctxTop || c == ctxDocTop {
		want = "<a JSON object>"
	}
	w.add(c, want, string(w.b[start:w.pos]), 0)
}

func (w *walker) skip(depth int) {
	end, err := skipValue(w.b, w.pos, depth)
	if err != nil {
		w.fail(err)
		return
	}
	w.pos = end
}

func (w *walker) object(e *value, c ctx, depth int) {
	if depth > maxDepth {
		w.fail(syntaxErr(w.b, w.pos, fmt.Sprintf("nested deeper than %d levels", maxDepth)))
		return
	}
	objStart := w.pos
	w.pos++
	identity := c.identity() != ""
	// top: a response's body, or one of an _mget's documents or an _msearch's searches,
	// each of which may be an error where a result was expected.
	top := c == ctxTop || c == ctxDocTop || c == ctxMgetDoc
	gotError := false
	mark, savedIdent := len(w.diffs), w.identDiff
	if identity {
		w.identDiff = -1
	}
	seen := newBitset(len(e.keys))
	hint, maxIdx, disordered := 0, -1, false
	w.ws()
	if w.pos < len(w.b) && w.b[w.pos] == '}' {
		w.pos++
	} else {
		for {
			w.ws()
			if w.pos >= len(w.b) || w.b[w.pos] != '"' {
				w.fail(syntaxErr(w.b, w.pos, "expected a string key"))
				return
			}
			ks := w.pos
			end, esc, err := scanString(w.b, w.pos)
			if err != nil {
				w.fail(err)
				return
			}
			w.pos = end
			kb := w.b[ks+1 : end-1]
			if esc {
				kb = []byte(unescape(kb))
			}
			w.ws()
			if w.pos >= len(w.b) || w.b[w.pos] != ':' {
				w.fail(syntaxErr(w.b, w.pos, "expected ':' after an object key"))
				return
			}
			w.pos++
			w.ws()
			key := unsafeString(kb)
			kc := c.child(key)
			gotError = gotError || top && key == "error"
			w.path = append(w.path, pathStep{key: key, idx: -1})
			j, dup := e.find(kb, hint, &seen)
			if identity && w.identDiff >= mark && !(top && key == "error") {
				// Another entity: the rest of it is only validated, not compared (but an
				// error where a result was expected is still said, see otherKind).
				if j >= 0 {
					seen.set(j)
				}
				w.skip(depth)
			} else if j >= 0 {
				seen.set(j)
				if j < maxIdx {
					disordered = true
				} else {
					maxIdx = j
				}
				hint = j + 1
				w.value(&e.elems[j], kc, depth)
			} else {
				vs := w.pos
				w.skip(depth)
				if w.err != nil {
					return
				}
				want := Absent
				if dup {
					want = "<absent: duplicate key>"
				}
				w.add(kc, want, string(w.b[vs:w.pos]), 0)
			}
			if w.err != nil {
				return
			}
			w.path = w.path[:len(w.path)-1]
			w.ws()
			if w.pos >= len(w.b) {
				w.fail(syntaxErr(w.b, w.pos, "unexpected end of input in an object"))
				return
			}
			if w.b[w.pos] == ',' {
				w.pos++
				continue
			}
			if w.b[w.pos] != '}' {
				w.fail(syntaxErr(w.b, w.pos, "expected ',' or '}' in an object"))
				return
			}
			w.pos++
			break
		}
	}
	for j := range e.keys {
		if !seen.has(j) && !(identity && w.identDiff >= mark && e.keys[j] != c.identity()) {
			w.path = append(w.path, pathStep{key: e.keys[j], idx: -1})
			w.add(c.child(e.keys[j]), e.elems[j].raw, Absent, 0)
			w.path = w.path[:len(w.path)-1]
		}
	}
	if disordered && !(identity && w.identDiff >= mark) {
		w.addClass(ClassKeyOrder, keyList(e.keys), gotKeys(w.b[objStart:w.pos]), 0)
	}
	if identity {
		if w.identDiff >= mark {
			w.collapse(mark)
		}
		w.identDiff = savedIdent
	}
	if top && gotError != (e.member("error") != nil) {
		w.otherKind(mark)
	}
}

// otherKind keeps, of the differences recorded since mark in a body that is an error where
// a result was expected (or a result where an error was expected), those of the status and
// of the error: the rest of the body is another kind of response, and its absent hits,
// _id or aggregations are not differences of those classes. A gateway's 502 with an error
// body fails as status and error, not also as ids.
func (w *walker) otherKind(mark int) {
	keep := w.diffs[:mark]
	errPath := "error"
	if len(w.path) > 0 {
		// An _mget's document or an _msearch's search: its error is under its own path.
		errPath = formatPath(w.path) + ".error"
	}
	for _, d := range w.diffs[mark:] {
		if d.Class == ClassStatus || d.Class == ClassError || d.Path == errPath ||
			strings.HasPrefix(d.Path, errPath+".") || strings.HasPrefix(d.Path, errPath+"[") {
			keep = append(keep, d)
		}
	}
	w.diffs = keep
	w.identDiff = -1
}

// collapse keeps, of the differences recorded since mark inside an entity whose identity
// differs, the identity difference and those of classes that do not belong to the entity.
func (w *walker) collapse(mark int) {
	keep := w.diffs[:mark]
	for i := mark; i < len(w.diffs); i++ {
		switch d := w.diffs[i]; {
		case i == w.identDiff, d.Class == ClassFound, d.Class == ClassStatus, d.Class == ClassError, d.Class == ClassTotals:
			keep = append(keep, d)
		}
	}
	w.diffs = keep
}

func (w *walker) array(e *value, c ctx, depth int) {
	if depth > maxDepth {
		w.fail(syntaxErr(w.b, w.pos, fmt.Sprintf("nested deeper than %d levels", maxDepth)))
		return
	}
	w.pos++
	ec := c.elem()
	mark := len(w.diffs)
	n := 0
	w.ws()
	if w.pos < len(w.b) && w.b[w.pos] == ']' {
		w.pos++
	} else {
		for {
			w.ws()
			w.path = append(w.path, pathStep{idx: n})
			if n < len(e.elems) {
				if c == ctxResponses && n < len(w.x.itemRelevance) {
					// Each search of an _msearch has its own order: its scores fail when
					// its hits are in score order.
					saved := w.relevance
					w.relevance = w.x.itemRelevance[n]
					w.value(&e.elems[n], ec, depth)
					w.relevance = saved
				} else {
					w.value(&e.elems[n], ec, depth)
				}
			} else {
				vs := w.pos
				w.skip(depth)
				if w.err != nil {
					return
				}
				w.add(ec, Absent, string(w.b[vs:w.pos]), 0)
			}
			if w.err != nil {
				return
			}
			w.path = w.path[:len(w.path)-1]
			n++
			w.ws()
			if w.pos >= len(w.b) {
				w.fail(syntaxErr(w.b, w.pos, "unexpected end of input in an array"))
				return
			}
			if w.b[w.pos] == ',' {
				w.pos++
				continue
			}
			if w.b[w.pos] != ']' {
				w.fail(syntaxErr(w.b, w.pos, "expected ',' or ']' in an array"))
				return
			}
			w.pos++
			break
		}
	}
	if n != len(e.elems) {
		// The count goes before the element differences: it is what a reader needs first.
		w.add(c, elements(len(e.elems)), elements(n), 0)
		last := len(w.diffs) - 1
		d := w.diffs[last]
		copy(w.diffs[mark+1:], w.diffs[mark:last])
		w.diffs[mark] = d
		switch {
		case w.identDiff == last:
			w.identDiff = mark
		case w.identDiff >= mark:
			w.identDiff++
		}
		for i := n; i < len(e.elems); i++ {
			w.path = append(w.path, pathStep{idx: i})
			w.add(ec, e.elems[i].raw, Absent, 0)
			w.path = w.path[:len(w.path)-1]
		}
	}
}

// textOf is a body that is not JSON as a difference shows it: a JSON string of its bytes
// (invalid UTF-8 replaced), or <empty> for none.
func textOf(b []byte) string {
	if len(b) == 0 {
		return "<empty>"
	}
	return quote(strings.ToValidUTF8(string(b), "\uFFFD"))
}

func elements(n int) string {
	if n == 1 {
		return "<1 element>"
	}
	return "<" + strconv.Itoa(n) + " elements>"
}

// skipValue validates the value at b[i] and returns the offset after it.
func skipValue(b []byte, i, depth int) (int, *SyntaxError) {
	if i >= len(b) {
		return 0, syntaxErr(b, i, "unexpected end of input")
	}
	switch c := b[i]; {
	case c == '{' || c == '[':
		depth++
		if depth > maxDepth {
			return 0, syntaxErr(b, i, fmt.Sprintf("nested deeper than %d levels", maxDepth))
		}
		closer := byte('}')
		if c == '[' {
			closer = ']'
		}
		i = skipWS(b, i+1)
		if i < len(b) && b[i] == closer {
			return i + 1, nil
		}
		for {
			i = skipWS(b, i)
			if c == '{' {
				if i >= len(b) || b[i] != '"' {
					return 0, syntaxErr(b, i, "expected a string key")
				}
				end, _, err := scanString(b, i)
				if err != nil {
					return 0, err
				}
				i = skipWS(b, end)
				if i >= len(b) || b[i] != ':' {
					return 0, syntaxErr(b, i, "expected ':' after an object key")
				}
				i = skipWS(b, i+1)
			}
			var err *SyntaxError
			if i, err = skipValue(b, i, depth); err != nil {
				return 0, err
			}
			i = skipWS(b, i)
			if i >= len(b) {
				return 0, syntaxErr(b, i, "unexpected end of input")
			}
			if b[i] == ',' {
				i++
				continue
			}
			if b[i] != closer {
				return 0, syntaxErr(b, i, "expected ',' or '"+string(closer)+"'")
			}
			return i + 1, nil
		}
	case c == '"':
		end, _, err := scanString(b, i)
		return end, err
	case c == 't' || c == 'f' || c == 'n':
		return scanLiteral(b, i)
	default:
		end, _, err := scanNumber(b, i)
		return end, err
	}
}

var isSpace = [256]bool{' ': true, '\n': true, '\r': true, '\t': true}

// skipWS returns the offset of the first non-whitespace byte at or after i. Compact bodies
// have none, pretty-printed ones have runs of indentation, skipped eight bytes at a time.
func skipWS(b []byte, i int) int {
	if i < len(b) && !isSpace[b[i]] {
		return i
	}
	for i < len(b) && isSpace[b[i]] {
		i++
		for i+8 <= len(b) && binary.LittleEndian.Uint64(b[i:]) == 0x2020202020202020 {
			i += 8
		}
	}
	return i
}

// keyList writes keys as a JSON array.
func keyList(keys []string) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(quote(k))
	}
	b.WriteByte(']')
	return b.String()
}

// gotKeys lists the keys of a validated object's text as a JSON array.
func gotKeys(obj []byte) string {
	v, err := parse(obj)
	if err != nil {
		return "<unreadable object>"
	}
	return keyList(v.keys)
}

package conformance

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// maxDepth bounds the nesting of any JSON the package reads. It matches the default nesting
// limit of the Jackson parser Elasticsearch uses (StreamReadConstraints, 1000), so no real
// response comes near it, and it keeps the recursive readers far from Go's stack limit.
const maxDepth = 1000

type vkind uint8

const (
	kNull vkind = iota
	kBool
	kNumber
	kString
	kArray
	kObject
)

func (k vkind) String() string {
	return [...]string{"null", "boolean", "number", "string", "array", "object"}[k]
}

// value is a JSON value that keeps everything the check compares and nothing it does not:
// object keys in order (duplicates kept), number literals as written, strings unescaped and
// as written. It is the compiled form of an expected body, and the tree that mutations edit
// and Trim prints.
type value struct {
	kind  vkind
	float bool   // a number written with a fraction or an exponent
	raw   string // the exact JSON text; for a container, its span in the body it came from
	str   string // the unescaped string; for a boolean "true" or "false"
	f     float64
	frng  bool     // the float literal is outside float64's range
	keys  []string // object keys, aligned with elems
	elems []value  // object member values or array elements
	off   int      // byte offset of the value in its body
}

// member returns the value of the first member named key, or nil.
func (v *value) member(key string) *value {
	if v == nil || v.kind != kObject {
		return nil
	}
	for i, k := range v.keys {
		if k == key {
			return &v.elems[i]
		}
	}
	return nil
}

// find returns the index of the first member named key that seen does not mark, trying
// hint first because targets usually send keys in the expected order. dup is true when key
// exists but every member of that name is already seen.
func (v *value) find(key []byte, hint int, seen *bitset) (i int, dup bool) {
	if hint < len(v.keys) && v.keys[hint] == string(key) && !seen.has(hint) {
		return hint, false
	}
	for j, k := range v.keys {
		if k == string(key) {
			if !seen.has(j) {
				return j, false
			}
			dup = true
		}
	}
	return -1, dup
}

// bitset marks the expected members an object walk has matched. Objects of up to 64 keys
// need no allocation.
type bitset struct {
	small uint64
	big   []uint64
}

func newBitset(n int) bitset {
	if n <= 64 {
		return bitset{}
	}
	return bitset{big: make([]uint64, (n+63)/64)}
}

func (b *bitset) has(i int) bool {
	if b.big != nil {
		return b.big[i/64]&(1<<(i%64)) != 0
	}
	return b.small&(1<<i) != 0
}

func (b *bitset) set(i int) {
	if b.big != nil {
		b.big[i/64] |= 1 << (i % 64)
		return
	}
	b.small |= 1 << i
}

// SyntaxError locates invalid JSON.
type SyntaxError struct {
	Offset int    // byte offset of the problem
	Msg    string // what is wrong
	Near   string // a few bytes from Offset, quoted
}

func (e *SyntaxError) Error() string {
	if e.Near == "" {
		return fmt.Sprintf("invalid JSON at byte %d: %s", e.Offset, e.Msg)
	}
	return fmt.Sprintf("invalid JSON at byte %d: %s near %s", e.Offset, e.Msg, e.Near)
}

func syntaxErr(b []byte, off int, msg string) *SyntaxError {
	e := &SyntaxError{Offset: off, Msg: msg}
	if off < len(b) {
		end := min(off+16, len(b))
		e.Near = strconv.Quote(string(b[off:end]))
	}
	return e
}

// parse decodes one JSON document, with nothing but whitespace after it.
func parse(b []byte) (value, error) {
	d := decoder{b: b, s: unsafeString(b)}
	d.ws()
	v, err := d.value(0)
	if err != nil {
		return value{}, err
	}
	d.ws()
	if d.pos < len(b) {
		return value{}, syntaxErr(b, d.pos, "unexpected data after the JSON value")
	}
	return v, nil
}

// decoder reads a value tree. Its strings point into s, the caller's text, so the caller
// must keep the bytes unchanged while the tree lives (Compile copies the body first).
type decoder struct {
	b   []byte
	s   string
	pos int
}

func (d *decoder) ws() { d.pos = skipWS(d.b, d.pos) }

func (d *decoder) value(depth int) (value, error) {
	if d.pos >= len(d.b) {
		return value{}, syntaxErr(d.b, d.pos, "unexpected end of input")
	}
	start := d.pos
	switch c := d.b[d.pos]; {
	case c == '{':
		return d.object(depth + 1)
	case c == '[':
		return d.array(depth + 1)
	case c == '"':
		end, esc, err := scanString(d.b, d.pos)
		if err != nil {
			return value{}, err
		}
		d.pos = end
		v := value{kind: kString, raw: d.s[start:end], off: start}
		v.str = v.raw[1 : len(v.raw)-1]
		if esc {
			v.str = unescape(d.b[start+1 : end-1])
		}
		return v, nil
	case c == 't' || c == 'f' || c == 'n':
		end, err := scanLiteral(d.b, d.pos)
		if err != nil {
			return value{}, err
		}
		d.pos = end
		v := value{raw: d.s[start:end], off: start}
		if c == 'n' {
			v.kind = kNull
		} else {
			v.kind, v.str = kBool, v.raw
		}
		return v, nil
	default:
		end, isFloat, err := scanNumber(d.b, d.pos)
		if err != nil {
			return value{}, err
		}
		d.pos = end
		return numberValue(d.s[start:end], isFloat, start), nil
	}
}

func numberValue(lit string, isFloat bool, off int) value {
	v := value{kind: kNumber, float: isFloat, raw: lit, off: off}
	if isFloat {
		f, err := strconv.ParseFloat(lit, 64)
		v.f, v.frng = f, err != nil
	}
	return v
}

func (d *decoder) object(depth int) (value, error) {
	if depth > maxDepth {
		return value{}, syntaxErr(d.b, d.pos, fmt.Sprintf("nested deeper than %d levels", maxDepth))
	}
	start := d.pos
	d.pos++
	v := value{kind: kObject, off: start}
	d.ws()
	if d.pos < len(d.b) && d.b[d.pos] == '}' {
		d.pos++
		v.raw = d.s[start:d.pos]
		return v, nil
	}
	for {
		d.ws()
		if d.pos >= len(d.b) || d.b[d.pos] != '"' {
			return value{}, syntaxErr(d.b, d.pos, "expected a string key")
		}
		ks := d.pos
		end, esc, err := scanString(d.b, d.pos)
		if err != nil {
			return value{}, err
		}
		d.pos = end
		key := d.s[ks+1 : end-1]
		if esc {
			key = unescape(d.b[ks+1 : end-1])
		}
		d.ws()
		if d.pos >= len(d.b) || d.b[d.pos] != ':' {
			return value{}, syntaxErr(d.b, d.pos, "expected ':' after an object key")
		}
		d.pos++
		d.ws()
		m, verr := d.value(depth)
		if verr != nil {
			return value{}, verr
		}
		v.keys = append(v.keys, key)
		v.elems = append(v.elems, m)
		d.ws()
		if d.pos >= len(d.b) {
			return value{}, syntaxErr(d.b, d.pos, "unexpected end of input in an object")
		}
		switch d.b[d.pos] {
		case ',':
			d.pos++
		case '}':
			d.pos++
			v.raw = d.s[start:d.pos]
			return v, nil
		default:
			return value{}, syntaxErr(d.b, d.pos, "expected ',' or '}' in an object")
		}
	}
}

func (d *decoder) array(depth int) (value, error) {
	if depth > maxDepth {
		return value{}, syntaxErr(d.b, d.pos, fmt.Sprintf("nested deeper than %d levels", maxDepth))
	}
	start := d.pos
	d.pos++
	v := value{kind: kArray, off: start}
	d.ws()
	if d.pos < len(d.b) && d.b[d.pos] == ']' {
		d.pos++
		v.raw = d.s[start:d.pos]
		return v, nil
	}
	for {
		d.ws()
		e, err := d.value(depth)
		if err != nil {
			return value{}, err
		}
		v.elems = append(v.elems, e)
		d.ws()
		if d.pos >= len(d.b) {
			return value{}, syntaxErr(d.b, d.pos, "unexpected end of input in an array")
		}
		switch d.b[d.pos] {
		case ',':
			d.pos++
		case ']':
			d.pos++
			v.raw = d.s[start:d.pos]
			return v, nil
		default:
			return value{}, syntaxErr(d.b, d.pos, "expected ',' or ']' in an array")
		}
	}
}

// strByte classifies string bytes: 0 plain, 1 quote or backslash, 2 a control character
// JSON forbids unescaped.
var strByte = func() (t [256]uint8) {
	for c := 0; c < 0x20; c++ {
		t[c] = 2
	}
	t['"'], t['\\'] = 1, 1
	return t
}()

// scanString validates the string starting at b[i] == '"' and returns the offset after its
// closing quote, and whether it contains escapes.
func scanString(b []byte, i int) (end int, esc bool, err *SyntaxError) {
	start := i
	i++
	for i < len(b) {
		// Eight bytes at a time while none is a quote, a backslash or a control character.
		for i+8 <= len(b) && plain8(binary.LittleEndian.Uint64(b[i:])) {
			i += 8
		}
		if i >= len(b) {
			break
		}
		c := b[i]
		switch strByte[c] {
		case 0:
			i++
			continue
		case 2:
			return 0, false, syntaxErr(b, i, "control character in a string")
		}
		if c == '"' {
			return i + 1, esc, nil
		}
		esc = true
		if i+1 >= len(b) {
			break
		}
		switch b[i+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			i += 2
		case 'u':
			if i+6 > len(b) || !isHex4(b[i+2:i+6]) {
				return 0, false, syntaxErr(b, i, `invalid \u escape`)
			}
			i += 6
		default:
			return 0, false, syntaxErr(b, i, "invalid escape")
		}
	}
	return 0, false, syntaxErr(b, start, "unterminated string")
}

// plain8 reports whether none of the eight bytes in x is '"', '\\' or below 0x20, with the
// usual SWAR tests: hasless(x, 0x20) and haszero(x ^ repeated byte).
func plain8(x uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	hasZero := func(v uint64) uint64 { return (v - ones) &^ v & highs }
	less := (x - ones*0x20) &^ x & highs
	return less|hasZero(x^(ones*'"'))|hasZero(x^(ones*'\\')) == 0
}

func isHex4(h []byte) bool {
	for _, c := range h {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

func hex4(h []byte) rune {
	var r rune
	for _, c := range h {
		r <<= 4
		switch {
		case c <= '9':
			r |= rune(c - '0')
		case c >= 'a':
			r |= rune(c - 'a' + 10)
		default:
			r |= rune(c - 'A' + 10)
		}
	}
	return r
}

// nextRune decodes the unit of string content at s[i] (which scanString validated): a plain
// byte, or an escape with surrogate pairs joined. It returns the bytes it stands for in buf
// and the offset after it. Lone surrogates become U+FFFD, as in encoding/json.
func nextRune(s []byte, i int, buf *[4]byte) (out []byte, next int) {
	if s[i] != '\\' {
		buf[0] = s[i]
		return buf[:1], i + 1
	}
	var r rune
	switch s[i+1] {
	case 'b':
		r = '\b'
	case 'f':
		r = '\f'
	case 'n':
		r = '\n'
	case 'r':
		r = '\r'
	case 't':
		r = '\t'
	case 'u':
		r = hex4(s[i+2 : i+6])
		next = i + 6
		if utf16.IsSurrogate(r) {
			if next+6 <= len(s) && s[next] == '\\' && s[next+1] == 'u' {
				if r2 := utf16.DecodeRune(r, hex4(s[next+2:next+6])); r2 != utf8.RuneError {
					n := utf8.EncodeRune(buf[:], r2)
					return buf[:n], next + 6
				}
			}
			r = utf8.RuneError
		}
		n := utf8.EncodeRune(buf[:], r)
		return buf[:n], next
	default: // '"', '\\', '/'
		r = rune(s[i+1])
	}
	buf[0] = byte(r)
	return buf[:1], i + 2
}

// unescape returns the string a validated JSON string body (without quotes) stands for.
func unescape(s []byte) string {
	var b strings.Builder
	b.Grow(len(s))
	var buf [4]byte
	for i := 0; i < len(s); {
		var out []byte
		out, i = nextRune(s, i, &buf)
		b.Write(out)
	}
	return b.String()
}

// unescapeEqual reports whether the validated string body s stands for want, without
// allocating.
func unescapeEqual(s []byte, want string) bool {
	var buf [4]byte
	j := 0
	for i := 0; i < len(s); {
		var out []byte
		out, i = nextRune(s, i, &buf)
		if j+len(out) > len(want) || string(out) != want[j:j+len(out)] {
			return false
		}
		j += len(out)
	}
	return j == len(want)
}

// scanLiteral validates true, false or null at b[i].
func scanLiteral(b []byte, i int) (int, *SyntaxError) {
	for _, lit := range [...]string{"true", "false", "null"} {
		if lit[0] == b[i] {
			if len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit {
				return i + len(lit), nil
			}
			break
		}
	}
	return 0, syntaxErr(b, i, "invalid literal")
}

// scanNumber validates the JSON number at b[i] and reports whether it is written as a float
// (with a fraction or an exponent).
func scanNumber(b []byte, i int) (end int, isFloat bool, err *SyntaxError) {
	start := i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	default:
		return 0, false, syntaxErr(b, start, "invalid value")
	}
	if i < len(b) && b[i] == '.' {
		isFloat = true
		i++
		d := i
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
		if i == d {
			return 0, false, syntaxErr(b, start, "invalid number: no digit after '.'")
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		isFloat = true
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		d := i
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
		if i == d {
			return 0, false, syntaxErr(b, start, "invalid number: no digit in the exponent")
		}
	}
	return i, isFloat, nil
}

// quote writes s as a JSON string the way Elasticsearch does: only '"', '\\' and control
// characters are escaped; other characters stay UTF-8.
func quote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20:
			switch c {
			case '\n':
				b.WriteString(`\n`)
			case '\r':
				b.WriteString(`\r`)
			case '\t':
				b.WriteString(`\t`)
			default:
				fmt.Fprintf(&b, `\u%04x`, c)
			}
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// stringValue makes a string value from Go text.
func stringValue(s string) value { return value{kind: kString, raw: quote(s), str: s} }

// clone deep-copies v so a mutation can edit the copy.
func (v value) clone() value {
	if v.keys != nil {
		v.keys = append([]string(nil), v.keys...)
	}
	if v.elems != nil {
		elems := make([]value, len(v.elems))
		for i := range v.elems {
			elems[i] = v.elems[i].clone()
		}
		v.elems = elems
	}
	return v
}

// appendJSON writes v compactly. Scalars keep their text as written, so untouched numbers and
// escapes survive a round trip.
func appendJSON(b []byte, v *value) []byte {
	switch v.kind {
	case kObject:
		b = append(b, '{')
		for i := range v.elems {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, quote(v.keys[i])...)
			b = append(b, ':')
			b = appendJSON(b, &v.elems[i])
		}
		return append(b, '}')
	case kArray:
		b = append(b, '[')
		for i := range v.elems {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSON(b, &v.elems[i])
		}
		return append(b, ']')
	}
	return append(b, v.raw...)
}

// appendIndented writes v with two-space indentation, the way Elasticsearch's ?pretty does.
func appendIndented(b []byte, v *value, indent string) []byte {
	switch v.kind {
	case kObject, kArray:
		if len(v.elems) == 0 {
			return appendJSON(b, v)
		}
		open, close := byte('{'), byte('}')
		if v.kind == kArray {
			open, close = '[', ']'
		}
		b = append(b, open, '\n')
		inner := indent + "  "
		for i := range v.elems {
			b = append(b, inner...)
			if v.kind == kObject {
				b = append(b, quote(v.keys[i])...)
				b = append(b, " : "...)
			}
			b = appendIndented(b, &v.elems[i], inner)
			if i < len(v.elems)-1 {
				b = append(b, ',')
			}
			b = append(b, '\n')
		}
		b = append(b, indent...)
		return append(b, close)
	}
	return append(b, v.raw...)
}

package engine

import (
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// scaled_float queries follow Elasticsearch 8.15's ScaledFloatFieldMapper.ScaledFloatFieldType
// (modules/mapper-extras/src/main/java/org/elasticsearch/index/mapper/extras/
// ScaledFloatFieldMapper.java, the query-time rule since PR 37169, Elasticsearch 7.0, and
// unchanged through 9.x):
//
//   - scale(x) = new BigDecimal(Double.toString(objectToDouble(x)))
//     .multiply(BigDecimal.valueOf(scalingFactor)).doubleValue(): the bound scaled in exact
//     decimal arithmetic, then rounded once to a double.
//   - termQuery and termsQuery (indexed fields): Math.round(scale(x)) as a LONG term, so a
//     value between grid points matches the nearest grid point (ties upward).
//   - rangeQuery: lo = Math.round(Math.ceil(dValue)) where dValue = scale(lo), replaced by
//     Math.nextUp(dValue) when the bound is exclusive; hi = Math.round(Math.floor(dValue))
//     with Math.nextDown for an exclusive bound. The step is taken on the scaled double, after
//     scaling. Both longs are then inclusive bounds of NumberType.LONG.rangeQuery.
//
// objectToDouble takes a JSON number's double (Jackson parses the literal, correctly rounded)
// and parses a string bound or value with Double.parseDouble (the query builders turn strings
// into BytesRef; objectToDouble calls Double.parseDouble(bytesRef.utf8ToString())).
//
// Indexing is different: parseCreateField stores Math.round(doubleValue * scalingFactor) in
// double arithmetic (index.go).

// scaledQueryValue is scale(v) for a scaled_float field, or the error Elasticsearch answers.
func (c *execCtx) scaledQueryValue(f *field, v gjson.Result) (float64, *esError) {
	var x float64
	switch v.Type {
	case gjson.Number:
		d, err := strconv.ParseFloat(v.Raw, 64)
		if err != nil && !isRangeErr(err) {
			return 0, c.numberErr("For input string: \"" + v.Raw + "\"")
		}
		x = d
	case gjson.String:
		d, ok := javaParseDouble(v.Str)
		if !ok {
			if strings.TrimFunc(v.Str, javaTrimmed) == "" {
				// Double.parseDouble says "empty String"; the envelope around it is unverified.
				return 0, errUnsupportedf("an empty string as a value of scaled_float field [%s]", f.name)
			}
			return 0, c.numberErr("For input string: \"" + strings.TrimFunc(v.Str, javaTrimmed) + "\"")
		}
		x = d
	default:
		// objectToDouble calls Double.parseDouble(value.toString()): true, false and the like.
		return 0, c.numberErr("For input string: \"" + scalarText(v) + "\"")
	}
	if math.IsNaN(x) || math.IsInf(x, 0) {
		// new BigDecimal("NaN") or ("Infinity") throws a NumberFormatException whose message
		// depends on the JDK; the engine does not guess it.
		return 0, errUnsupportedf("a non-finite value [%s] on scaled_float field [%s]", javaDouble(x), f.name)
	}
	return scaleDecimal(x, f.scaling), nil
}

// scaleDecimal is new BigDecimal(Double.toString(x)).multiply(BigDecimal.valueOf(factor))
// .doubleValue(): both decimals are exact (BigDecimal.valueOf(double) is
// new BigDecimal(Double.toString(d))), their product is exact, and doubleValue rounds it to the
// nearest double, ties to even, as strconv.ParseFloat does. x and factor are finite.
func scaleDecimal(x, factor float64) float64 {
	mx, ex := decimalOf(javaDouble(x))
	mf, ef := decimalOf(javaDouble(factor))
	m := new(big.Int).Mul(mx, mf)
	s := m.String() + "e" + strconv.Itoa(ex+ef)
	d, err := strconv.ParseFloat(s, 64)
	if err != nil && !isRangeErr(err) {
		panic("scaleDecimal: " + s + ": " + err.Error())
	}
	return d
}

// decimalOf splits a Java double rendering ("-149.95", "1.0E-5") into an integer mantissa and
// a power of ten: the value is m × 10^e exactly.
func decimalOf(s string) (*big.Int, int) {
	e := 0
	if i := strings.IndexByte(s, 'E'); i >= 0 {
		e, _ = strconv.Atoi(s[i+1:])
		s = s[:i]
	}
	if i := strings.IndexByte(s, '.'); i >= 0 {
		e -= len(s) - i - 1
		s = s[:i] + s[i+1:]
	}
	m, ok := new(big.Int).SetString(s, 10)
	if !ok {
		panic("decimalOf: " + s)
	}
	return m, e
}

// scaledLower is rangeQuery's inclusive lower bound on the stored longs for a scaled bound.
func scaledLower(scaled float64, inclusive bool) int64 {
	if !inclusive {
		scaled = math.Nextafter(scaled, math.Inf(1)) // Math.nextUp
	}
	return javaRound(math.Ceil(scaled))
}

// scaledUpper is rangeQuery's inclusive upper bound on the stored longs for a scaled bound.
func scaledUpper(scaled float64, inclusive bool) int64 {
	if !inclusive {
		scaled = math.Nextafter(scaled, math.Inf(-1)) // Math.nextDown
	}
	return javaRound(math.Floor(scaled))
}

// javaTrimmed reports the characters String.trim() removes: every char up to U+0020.
func javaTrimmed(r rune) bool { return r <= ' ' }

// javaParseDouble is Double.parseDouble (jdk.internal.math.FloatingDecimal
// .readJavaFormatString): the string trimmed of chars up to U+0020, then an optional sign and
// "NaN", "Infinity", a hexadecimal literal 0x<hex>[.<hex>]p[sign]<digits>, or a decimal
// <digits>[.<digits>][e[sign]<digits>] with at least one digit in the mantissa; a float or
// double suffix (f, F, d, D) may follow a hexadecimal or decimal literal. Digits are ASCII. It
// reports false where Java throws a NumberFormatException.
func javaParseDouble(s string) (float64, bool) { return javaParseNumber(s, 64) }

// javaParseNumber is Double.parseDouble (bits 64) or Float.parseFloat (bits 32, the same
// grammar, rounded once to a float).
func javaParseNumber(s string, bits int) (float64, bool) {
	t := strings.TrimFunc(s, javaTrimmed)
	i := 0
	if i < len(t) && (t[i] == '+' || t[i] == '-') {
		i++
	}
	neg := i > 0 && t[0] == '-'
	switch t[i:] {
	case "NaN":
		return math.NaN(), true
	case "Infinity":
		if neg {
			return math.Inf(-1), true
		}
		return math.Inf(1), true
	}
	body := t[i:]
	if n := len(body); n > 0 && strings.IndexByte("fFdD", body[n-1]) >= 0 {
		body = body[:n-1]
	}
	if !javaHexLiteral(body) && !javaDecimalLiteral(body) {
		return 0, false
	}
	d, err := strconv.ParseFloat(t[:i]+body, bits)
	if err != nil && !isRangeErr(err) {
		return 0, false
	}
	return d, true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHexDigit(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// span returns how many leading bytes of s satisfy ok.
func span(s string, ok func(byte) bool) int {
	n := 0
	for n < len(s) && ok(s[n]) {
		n++
	}
	return n
}

// javaDecimalLiteral: <digits>[.<digits>][(e|E)[sign]<digits>], a digit before or after the
// point.
func javaDecimalLiteral(s string) bool {
	a := span(s, isDigit)
	s = s[a:]
	b := 0
	if len(s) > 0 && s[0] == '.' {
		s = s[1:]
		b = span(s, isDigit)
		s = s[b:]
	}
	if a+b == 0 {
		return false
	}
	if len(s) > 0 && (s[0] == 'e' || s[0] == 'E') {
		s = s[1:]
		if len(s) > 0 && (s[0] == '+' || s[0] == '-') {
			s = s[1:]
		}
		n := span(s, isDigit)
		if n == 0 {
			return false
		}
		s = s[n:]
	}
	return s == ""
}

// javaHexLiteral: 0(x|X)(<hex>[.]|[<hex>].<hex>)(p|P)[sign]<digits>, the pattern of
// FloatingDecimal.parseHexString.
func javaHexLiteral(s string) bool {
	if len(s) < 2 || s[0] != '0' || s[1] != 'x' && s[1] != 'X' {
		return false
	}
	s = s[2:]
	a := span(s, isHexDigit)
	s = s[a:]
	b := 0
	if len(s) > 0 && s[0] == '.' {
		s = s[1:]
		b = span(s, isHexDigit)
		s = s[b:]
	}
	if a+b == 0 || len(s) == 0 || s[0] != 'p' && s[0] != 'P' {
		return false
	}
	s = s[1:]
	if len(s) > 0 && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	n := span(s, isDigit)
	return n > 0 && n == len(s)
}

// sortableDouble is Lucene's NumericUtils.doubleToSortableLong of
// Double.doubleToLongBits(x): NaN canonical, negative values' bits flipped, so that the longs
// order -Infinity < ... < -0.0 < +0.0 < ... < +Infinity < NaN. A float widened to a double keeps
// its FloatPoint order.
func sortableDouble(x float64) int64 {
	b := int64(math.Float64bits(x))
	if math.IsNaN(x) {
		b = 0x7ff8000000000000
	}
	return b ^ (b>>63)&0x7fffffffffffffff
}

// pointNextUp is DoublePoint.nextUp (bits 64) or FloatPoint.nextUp (bits 32): Math.nextUp,
// except that -0.0 steps to +0.0.
func pointNextUp(x float64, bits int) float64 {
	if x == 0 && math.Signbit(x) {
		return 0
	}
	if bits == 32 {
		return float64(math.Nextafter32(float32(x), float32(math.Inf(1))))
	}
	return math.Nextafter(x, math.Inf(1))
}

// pointNextDown is DoublePoint.nextDown or FloatPoint.nextDown: Math.nextDown, except that
// +0.0 steps to -0.0.
func pointNextDown(x float64, bits int) float64 {
	if x == 0 && !math.Signbit(x) {
		return math.Copysign(0, -1)
	}
	if bits == 32 {
		return float64(math.Nextafter32(float32(x), float32(math.Inf(-1))))
	}
	return math.Nextafter(x, math.Inf(-1))
}

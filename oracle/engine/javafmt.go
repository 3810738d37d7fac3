package engine

import (
	"math"
	"strconv"
	"strings"
)

// Elasticsearch writes numbers through Jackson, which prints a double with Double.toString and
// a float with Float.toString. Since JDK 19 those print the shortest decimal that rounds back to
// the value (Raffaello Giulietti's algorithm), with one twist: when a single digit suffices, the
// closest decimal of one or two digits is chosen, so 1e23 prints as 1.0E23 and Double.MIN_VALUE
// as 4.9E-324. Values in [1e-3, 1e7) print as plain decimals, others as d.dddE±n; an integral
// value always keeps a ".0". Non-finite values are quoted by Jackson ("Infinity", "NaN").

// javaDouble returns Java's Double.toString(v).
func javaDouble(v float64) string { return javaFloatString(v, 64) }

// javaFloat returns Java's Float.toString(v).
func javaFloat(v float32) string { return javaFloatString(float64(v), 32) }

func javaFloatString(v float64, bits int) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "Infinity"
	case math.IsInf(v, -1):
		return "-Infinity"
	case v == 0:
		if math.Signbit(v) {
			return "-0.0"
		}
		return "0.0"
	}
	neg := v < 0
	if neg {
		v = -v
	}
	digits, exp := shortestDigits(v, bits)
	// exp is the decimal exponent of the first digit: v = d.ddd × 10^exp.
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	if v >= 1e-3 && v < 1e7 {
		if exp >= 0 {
			if len(digits) <= exp+1 {
				b.WriteString(digits)
				b.WriteString(strings.Repeat("0", exp+1-len(digits)))
				b.WriteString(".0")
			} else {
				b.WriteString(digits[:exp+1])
				b.WriteByte('.')
				b.WriteString(digits[exp+1:])
			}
		} else {
			b.WriteString("0.")
			b.WriteString(strings.Repeat("0", -exp-1))
			b.WriteString(digits)
		}
		return b.String()
	}
	b.WriteByte(digits[0])
	b.WriteByte('.')
	if len(digits) > 1 {
		b.WriteString(digits[1:])
	} else {
		b.WriteByte('0')
	}
	b.WriteByte('E')
	b.WriteString(strconv.Itoa(exp))
	return b.String()
}

// shortestDigits returns the significant digits (no trailing zeros beyond the first) and the
// decimal exponent of the first digit of Java's choice for v > 0.
func shortestDigits(v float64, bits int) (string, int) {
	s := strconv.FormatFloat(v, 'e', -1, bits)
	mant, exp := splitE(s)
	if len(mant) == 1 {
		// One digit is enough: Java picks the closest decimal of length 1 or 2.
		two, exp2 := splitE(strconv.FormatFloat(v, 'e', 1, bits))
		if two[1] != '0' {
			return two, exp2
		}
		return two[:1], exp2
	}
	return mant, exp
}

// splitE splits Go's "d.ddde±xx" into its digits and exponent.
func splitE(s string) (string, int) {
	i := strings.IndexByte(s, 'e')
	m := strings.Replace(s[:i], ".", "", 1)
	e, _ := strconv.Atoi(s[i+1:])
	return m, e
}

// jsonDouble renders a double as Jackson writes it: a JSON number, or a quoted string for
// non-finite values.
func jsonDouble(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return `"` + javaDouble(v) + `"`
	}
	return javaDouble(v)
}

// jsonFloat renders a float as Jackson writes it.
func jsonFloat(v float32) string {
	f := float64(v)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return `"` + javaFloat(v) + `"`
	}
	return javaFloat(v)
}

// javaRound is Java's Math.round(double), ported from the JDK (java.lang.Math.round since
// JDK 8): floor(x + 1/2) computed exactly on the bits, so 0.49999999999999994 rounds to 0 and
// -2.5 to -2; values whose ulp is at least 1, infinities and NaN go through the (long) cast,
// which saturates and maps NaN to 0.
func javaRound(x float64) int64 {
	const (
		significandWidth = 53
		expBias          = 1023
		expBitMask       = 0x7FF0000000000000
		signifBitMask    = 0x000FFFFFFFFFFFFF
	)
	bits := int64(math.Float64bits(x))
	biasedExp := (bits & expBitMask) >> (significandWidth - 1)
	shift := (significandWidth - 2 + expBias) - biasedExp
	if shift&-64 == 0 { // 0 <= shift < 64: 2^-64 <= ulp(x) < 1
		r := bits&signifBitMask | (signifBitMask + 1)
		if bits < 0 {
			r = -r
		}
		return ((r >> shift) + 1) >> 1
	}
	return javaDoubleToLong(x)
}

// javaDoubleToLong is Java's (long) cast of a double: truncation, saturating, NaN to 0.
func javaDoubleToLong(x float64) int64 {
	if math.IsNaN(x) {
		return 0
	}
	if x >= 9.223372036854775807e18 {
		return math.MaxInt64
	}
	if x <= -9.223372036854775808e18 {
		return math.MinInt64
	}
	return int64(x)
}

// toHalf rounds a float32 to the nearest IEEE binary16 value (ties to even), returned as a
// float32, as Lucene's HalfFloatPoint does for half_float fields.
func toHalf(f float32) float32 {
	return halfToFloat(floatToHalfBits(f))
}

func floatToHalfBits(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int((b >> 23) & 0xff)
	mant := b & 0x7fffff
	if exp == 0xff {
		if mant != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	}
	e := exp - 127 + 15
	if e >= 0x1f {
		return sign | 0x7c00
	}
	if e <= 0 {
		if e < -10 {
			return sign
		}
		m := mant | 0x800000
		shift := uint(14 - e)
		half := m >> shift
		rem := m & ((1 << shift) - 1)
		mid := uint32(1) << (shift - 1)
		if rem > mid || rem == mid && half&1 == 1 {
			half++
		}
		return sign | uint16(half)
	}
	half := uint32(e)<<10 | mant>>13
	rem := mant & 0x1fff
	if rem > 0x1000 || rem == 0x1000 && half&1 == 1 {
		half++
	}
	return sign | uint16(half)
}

func halfToFloat(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := int(h>>10) & 0x1f
	mant := uint32(h & 0x3ff)
	switch {
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	case exp == 0:
		v := float32(mant) / 1024 / 16384
		if sign != 0 {
			return -v
		}
		return v
	}
	return math.Float32frombits(sign | uint32(exp-15+127)<<23 | mant<<13)
}

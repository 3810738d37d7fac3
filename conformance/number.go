package conformance

import (
	"math"
	"strconv"
	"unsafe"
)

// unsafeString views b as a string without copying. The string must not outlive a change
// to b; the check uses it only while it reads a body.
func unsafeString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

type numResult uint8

const (
	numEqual    numResult = iota
	numKindOnly           // the same decimal value written as the other kind (129 vs 129.0)
	numFloat32            // two floats that differ as float64 but not as float32
	numDiffer
)

// compareNumbers applies the check's rule for numbers: equal only with the same kind (an
// integer literal, or a float literal with a fraction or exponent) and the same value.
// Integers compare exactly, however long. Floats compare as IEEE-754 doubles, the way a typed
// client reads them, so 1.0E20, 1e20 and 100000000000000000000.0 are equal while 4.1 and
// 4.099999904632568 are not; literals outside float64's range compare as exact decimals.
func compareNumbers(want *value, got []byte, gotFloat bool) numResult {
	if string(got) == want.raw {
		return numEqual
	}
	if want.float != gotFloat {
		if decimalEqual(want.raw, unsafeString(got)) {
			return numKindOnly
		}
		return numDiffer
	}
	if !gotFloat {
		// Integer literals have no leading zeros, so only the zeros have two spellings.
		if isZeroInt(want.raw) && isZeroInt(unsafeString(got)) {
			return numEqual
		}
		return numDiffer
	}
	g, err := strconv.ParseFloat(unsafeString(got), 64)
	if err != nil || want.frng {
		if decimalEqual(want.raw, unsafeString(got)) {
			return numEqual
		}
		return numDiffer
	}
	if g == want.f {
		return numEqual
	}
	if !math.IsInf(want.f, 0) && float32(g) == float32(want.f) {
		return numFloat32
	}
	return numDiffer
}

func isZeroInt(s string) bool { return s == "0" || s == "-0" }

// decimalEqual reports whether two valid JSON number literals have the same exact decimal
// value, whatever their kind or spelling.
func decimalEqual(a, b string) bool {
	var ba, bb [64]byte
	na, ea, za := normDecimal(a, ba[:0])
	nb, eb, zb := normDecimal(b, bb[:0])
	if za || zb {
		return za && zb
	}
	return string(na) == string(nb) && ea == eb
}

// normDecimal returns the significant digits of a number literal with the sign as a prefix
// ("-" or ""), the decimal exponent of the first digit, and whether the value is zero.
// Exponents saturate far beyond any double, so absurd literals stay cheap.
func normDecimal(s string, buf []byte) (digits []byte, exp int, zero bool) {
	i := 0
	neg := false
	if i < len(s) && s[i] == '-' {
		neg = true
		i++
	}
	if neg {
		buf = append(buf, '-')
	}
	pointExp := 0 // digits seen before the decimal point, after leading zeros
	seenNonZero := false
	leadingFracZeros := 0
	inFrac := false
	for ; i < len(s); i++ {
		c := s[i]
		if c == '.' {
			inFrac = true
			continue
		}
		if c < '0' || c > '9' {
			break
		}
		if !seenNonZero {
			if c == '0' {
				if inFrac {
					leadingFracZeros++
				}
				continue
			}
			seenNonZero = true
		}
		buf = append(buf, c)
		if !inFrac {
			pointExp++
		}
	}
	if !seenNonZero {
		return nil, 0, true
	}
	// Trailing zeros do not change the value.
	for len(buf) > 0 && buf[len(buf)-1] == '0' {
		buf = buf[:len(buf)-1]
	}
	e := 0
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		eneg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			eneg = s[i] == '-'
			i++
		}
		for ; i < len(s); i++ {
			if e < 1e9 {
				e = e*10 + int(s[i]-'0')
			}
		}
		if eneg {
			e = -e
		}
	}
	if pointExp == 0 {
		exp = e - leadingFracZeros
	} else {
		exp = e + pointExp
	}
	return buf, exp, false
}

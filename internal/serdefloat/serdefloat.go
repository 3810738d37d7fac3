package serdefloat

import (
	"math"
	"strconv"
	"strings"
)

// pow10 is serde_json's POW10 table: 1e0 to 1e308, each the double nearest the power of ten.
var pow10 = func() [309]float64 {
	var p [309]float64
	for i := range p {
		p[i], _ = strconv.ParseFloat("1e"+strconv.Itoa(i), 64)
	}
	return p
}()

// RoundTrip returns the double serde_json (without float_roundtrip) parses from the text it
// writes for x. NaN and the infinities, which serde_json does not write as numbers, come back
// unchanged.
//
// Writing is ryu's format64 (ryu/src/pretty/mod.rs, which serde_json's serialize_f64 calls):
// the shortest digits that read back as x, laid out as "1234.0" (an integer below 10^16, a
// trailing ".0" added), "12.34", "0.001234" or "1.234e33". Go's strconv shortest formatting
// gives the same digits.
//
// Parsing is serde_json's de.rs without float_roundtrip: parse_integer and parse_decimal
// gather every digit into a u64 significand (ignoring digits past u64's range) with a decimal
// exponent, and f64_from_parts computes `significand as f64`, then multiplies or divides it
// by POW10[|exponent|] (dividing by 1e308 first while |exponent| > 308). Two roundings where
// a correct parse has one: a 17-digit significand above 2^53 is rounded once when converted,
// again by the division, and the result can be the neighbouring double. 20.900000000000002 is
// written as "20.900000000000002" and read back as 20.9, one ulp below it.
func RoundTrip(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) || x == 0 {
		return x
	}
	neg := x < 0
	digits, k := shortest(math.Abs(x))
	// ryu writes an integer below 10^16 in full with ".0": the significand serde_json reads
	// holds the zeros and the trailing 0.
	if n := len(digits); k >= 0 && n+k <= 16 {
		digits += strings.Repeat("0", k) + "0"
		k = -1
	}
	sig := uint64(0)
	for i := 0; i < len(digits); i++ {
		d := uint64(digits[i] - '0')
		if sig > (math.MaxUint64-d)/10 {
			// serde_json's parse_decimal_overflow ignores the remaining digits; the exponent
			// still counts the decimal places it read up to here.
			k += len(digits) - i
			break
		}
		sig = sig*10 + d
	}
	f := float64(sig) // Rust's `as f64` rounds to nearest, ties to even, as Go's conversion does
	exp := k
	for {
		a := exp
		if a < 0 {
			a = -a
		}
		if a < len(pow10) {
			if exp >= 0 {
				f *= pow10[a]
			} else {
				f /= pow10[a]
			}
			break
		}
		if f == 0 {
			break
		}
		f /= 1e308
		exp += 308
	}
	if neg {
		return -f
	}
	return f
}

// shortest returns the shortest decimal digits that read back as x (x > 0, finite) and the
// power of ten of the last digit: x ≈ digits × 10^k.
func shortest(x float64) (string, int) {
	s := strconv.FormatFloat(x, 'e', -1, 64) // d.ddddde±XX
	mant, e, _ := strings.Cut(s, "e")
	exp, _ := strconv.Atoi(e)
	digits := strings.Replace(mant, ".", "", 1)
	return digits, exp - (len(digits) - 1)
}

package load

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strconv"
)

// decimalRE is a plain decimal number, the only string form the loader coerces to a number
// (strconv and math/big would also take "Inf", "0x10" or "1/2").
var decimalRE = regexp.MustCompile(`^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$`)

func isIntegerLiteral(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
		case c == '-' && i == 0:
		default:
			return false
		}
	}
	return s != "" && s != "-"
}

// numberText returns the literal of a JSON number, or of a string holding a decimal number
// (Elasticsearch coerces numeric strings in numeric fields by default).
func numberText(v any) (string, error) {
	switch x := v.(type) {
	case json.Number:
		return x.String(), nil
	case string:
		if !decimalRE.MatchString(x) {
			return "", fmt.Errorf("%q is not a number", x)
		}
		return x, nil
	}
	return "", fmt.Errorf("is %s, want a number", jsonKind(v))
}

// coerceInteger converts a value of an integer field the way Elasticsearch's default coercion
// does: fractions are truncated toward zero ("12.0" and "12.7" index as 12), and a value
// outside the type's range is an error. Integers are exact beyond 2^53.
func coerceInteger(v any, lo, hi int64) (int64, error) {
	s, err := numberText(v)
	if err != nil {
		return 0, err
	}
	if isIntegerLiteral(s) {
		n, err := strconv.ParseInt(s, 10, 64)
		if err == nil && n >= lo && n <= hi {
			return n, nil
		}
		return 0, fmt.Errorf("%s is out of range [%d, %d]", s, lo, hi)
	}
	// Rule out huge exponents before big.Rat expands them.
	if f, err := strconv.ParseFloat(s, 64); err != nil || math.Abs(f) > 1<<64 {
		return 0, fmt.Errorf("%s is out of range [%d, %d]", s, lo, hi)
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	q := new(big.Int).Quo(r.Num(), r.Denom()) // truncates toward zero
	if !q.IsInt64() || q.Int64() < lo || q.Int64() > hi {
		return 0, fmt.Errorf("%s is out of range [%d, %d]", s, lo, hi)
	}
	return q.Int64(), nil
}

// coerceFloat parses a number, or a numeric string, as a finite float64.
func coerceFloat(v any) (float64, error) {
	s, err := numberText(v)
	if err != nil {
		return 0, err
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, fmt.Errorf("%s is not a finite double", s)
	}
	return f, nil
}

// roundFloat32 is the value a float field indexes: the nearest float32, widened back, so
// 4.1 becomes 4.099999904632568 (the terms key Elasticsearch prints).
func roundFloat32(v float64) float64 { return float64(float32(v)) }

// roundHalfFloat is the value a half_float field indexes: the nearest IEEE half-precision
// value, ties to even, after Elasticsearch first parses the number as a float. Seen on
// Elasticsearch 8.15.0 (docvalue_fields): 0.1 → 0.0999755859375, 2049 → 2048, 2051 → 2052,
// 1.00048828125 → 1, 1.00146484375 → 1.001953125, 65519 → 65504.
func roundHalfFloat(v float64) float64 {
	x := float64(float32(v))
	if x == 0 || math.IsInf(x, 0) || math.IsNaN(x) {
		return x
	}
	const maxHalf = 65504
	var quantum float64
	if math.Abs(x) < 0x1p-14 {
		quantum = 0x1p-24 // subnormal halves
	} else {
		_, exp := math.Frexp(x) // |x| in [2^(exp-1), 2^exp): 10 mantissa bits below that
		quantum = math.Ldexp(1, exp-11)
	}
	r := math.RoundToEven(x/quantum) * quantum
	if math.Abs(r) > maxHalf {
		return math.Inf(int(math.Copysign(1, r)))
	}
	return r
}

// roundScaled is the value a scaled_float field indexes: Java's Math.round(v*factor) (ties
// toward positive infinity) times 1/factor, so 19.99 with factor 100 is 19.990000000000002.
func roundScaled(v, factor float64) float64 {
	x := v * factor
	if math.Abs(x) >= 1<<63 {
		return math.Inf(1)
	}
	r := math.Floor(x)
	if x-r >= 0.5 {
		r++
	}
	return r * (1 / factor)
}

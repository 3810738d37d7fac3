package engine

import (
	"math"
	"testing"
)

func TestJavaDouble(t *testing.T) {
	cases := []struct {
		in   float64
		want string
		why  string
	}{
		{0, "0.0", "zero keeps .0"},
		{math.Copysign(0, -1), "-0.0", "negative zero"},
		{1, "1.0", "integral value keeps .0"},
		{1.5, "1.5", "plain"},
		{100, "100.0", "plain integral"},
		{1e7, "1.0E7", "1e7 switches to exponent form"},
		{9999999, "9999999.0", "just below 1e7 stays plain"},
		{1e-3, "0.001", "1e-3 stays plain"},
		{9.99e-4, "9.99E-4", "below 1e-3 switches to exponent form"},
		{1e20, "1.0E20", "§3.2 double example"},
		{1.2345678e7, "1.2345678E7", "§3.2 double example"},
		{12345678.5, "1.23456785E7", "brief example"},
		{scaled(1999, 0.01), "19.990000000000002", "scaled_float 19.99 (§3.2)"},
		{scaled(115, 0.01), "1.1500000000000001", "scaled_float 1.15 (§3.2)"},
		{scaled(410, 0.01), "4.1", "scaled_float 4.1 (§3.2)"},
		{float64(float32(4.1)), "4.099999904632568", "float widened to double (§8.4)"},
		{float64(float32(0.62)), "0.6200000047683716", "float widened to double (§8.4)"},
		{1e23, "1.0E23", "two-digit rule picks 1.0 over 1"},
		{5e-324, "4.9E-324", "Double.MIN_VALUE: JDK 19+ shortest of length 2"},
		{math.MaxFloat64, "1.7976931348623157E308", "Double.MAX_VALUE"},
		{2e-5, "2.0E-5", "small exponent"},
		{-1234.5, "-1234.5", "negative plain"},
		{1234.5, "1234.5", "YAML 20_terms double key"},
		{14.6, "14.6", "YAML mixing longs and doubles"},
		{add(0.1, 0.2), "0.30000000000000004", "shortest round-trip"},
		{1223372036854775800.23, "1.2233720368547758E18", "OS 260_sort_mixed value"},
		{math.Inf(1), "Infinity", "infinity"},
		{math.Inf(-1), "-Infinity", "negative infinity"},
		{math.NaN(), "NaN", "NaN"},
	}
	for _, c := range cases {
		if got := javaDouble(c.in); got != c.want {
			t.Errorf("javaDouble(%v) = %q, want %q (%s)", c.in, got, c.want, c.why)
		}
	}
}

func TestJavaFloat(t *testing.T) {
	cases := []struct {
		in   float32
		want string
		why  string
	}{
		{4.1, "4.1", "§3.2 float sort value prints as float32"},
		{0, "0.0", "zero"},
		{1, "1.0", "integral"},
		{184.375, "184.375", "half float rounded value"},
		{1e7, "1.0E7", "exponent form"},
		{1.0e10, "1.0E10", "exponent form"},
		{3.4028235e38, "3.4028235E38", "Float.MAX_VALUE"},
		{1.4e-45, "1.4E-45", "Float.MIN_VALUE"},
		{0.1, "0.1", "shortest for float32"},
		{float32(math.Inf(1)), "Infinity", "infinity"},
	}
	for _, c := range cases {
		if got := javaFloat(c.in); got != c.want {
			t.Errorf("javaFloat(%v) = %q, want %q (%s)", c.in, got, c.want, c.why)
		}
	}
}

func TestJavaRound(t *testing.T) {
	cases := []struct {
		in   float64
		want int64
	}{
		{0.5, 1}, {-0.5, 0}, {-2.5, -2}, {2.5, 3}, {1998.9999999999998, 1999},
		{0.49999999999999994, 0}, {19.99 * 100, 1999}, {1.15 * 100, 115},
		{1e300, math.MaxInt64}, {-1e300, math.MinInt64}, {math.NaN(), 0},
	}
	for _, c := range cases {
		if got := javaRound(c.in); got != c.want {
			t.Errorf("javaRound(%v) = %d, want %d", c.in, got, c.want)
		}
	}
}

func TestHalfFloat(t *testing.T) {
	cases := []struct {
		in, want float32
		why      string
	}{
		{4.1, 4.1015625, "§3.2 half_float example"},
		{184.4, 184.375, "OS 90_search_after half float"},
		{164.4, 164.375, "§3.2 half_float example"},
		{1, 1, "exact"},
		{65504, 65504, "max half"},
		{70000, float32(math.Inf(1)), "overflow"},
		{-2.5, -2.5, "negative exact"},
		{5.960464477539063e-08, 5.960464477539063e-08, "smallest subnormal"},
	}
	for _, c := range cases {
		if got := toHalf(c.in); got != c.want {
			t.Errorf("toHalf(%v) = %v, want %v (%s)", c.in, got, c.want, c.why)
		}
	}
}

// scaled and add defeat Go's exact constant arithmetic so the tests see float64 rounding.
func scaled(l int64, inv float64) float64 { return float64(l) * inv }
func add(a, b float64) float64            { return a + b }

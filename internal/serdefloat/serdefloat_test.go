package serdefloat

import (
	"math"
	"math/rand"
	"strconv"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	for _, c := range []struct {
		in, want float64
		why      string
	}{
		{20.900000000000002, 20.9, "a scaled_float price of the catalogue; Qdrant 1.17.0 returned 20.9"},
		{3.9000000953674316, 3.900000095367432, "float32(3.9) widened; a real Qdrant returned 3.900000095367432 (conform issue 22)"},
		{-20.900000000000002, -20.9, "the sign is applied after parsing"},
		{4.099999904632568, 4.099999904632568, "float32(4.1) widened reads back exactly"},
		{19.99, 19.99, "up to 15 digits, one exact division"},
		{129, 129, `written "129.0": 1290 / 10`},
		{4141319184243430, 4141319184243430.5, `written "4141319184243430.0": 41413191842434300 is above 2^53; Qdrant 1.17.0 returned 4141319184243430.5`},
		{1e300, 1e300, `written "1e300": 1 × 1e300`},
		{5e-324, 5e-324, "the smallest subnormal: 5 / 1e308 / 1e16"},
		{0, 0, "zero"},
		{math.Inf(1), math.Inf(1), "not a JSON number: unchanged"},
	} {
		got := RoundTrip(c.in)
		if math.Float64bits(got) != math.Float64bits(c.want) {
			t.Errorf("RoundTrip(%s) = %s, want %s (%s)", fmt(c.in), fmt(got), fmt(c.want), c.why)
		}
	}
}

// Every double of at most 15 significant digits and a small exponent is exact in both steps
// (the significand is below 2^53 and the power of ten is exact), so it must come back as is;
// but for an integer, which ryu writes with ".0", the significand read is ten times the value.
func TestRoundTripShortIsExact(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 100000; i++ {
		sig := r.Int63n(1e15)
		exp := r.Intn(45) - 22
		x, _ := strconv.ParseFloat(strconv.FormatInt(sig, 10)+"e"+strconv.Itoa(exp), 64)
		if x == math.Trunc(x) && x >= 1<<53/10 {
			continue
		}
		if got := RoundTrip(x); got != x {
			t.Fatalf("RoundTrip(%s) = %s, want it unchanged", fmt(x), fmt(got))
		}
	}
}

// The drift is at most one ulp for the doubles of a float32 field (what the loader writes for
// an Elasticsearch float) and never reaches another float32.
func TestRoundTripFloat32(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	drifted := 0
	for i := 0; i < 100000; i++ {
		x := float64(float32(r.Float64() * 1000))
		got := RoundTrip(x)
		if got != x {
			drifted++
			if d := math.Abs(got - x); d > math.Nextafter(x, math.Inf(1))-x {
				t.Fatalf("RoundTrip(%s) = %s, more than one ulp", fmt(x), fmt(got))
			}
		}
		if float32(got) != float32(x) {
			t.Fatalf("RoundTrip(%s) = %s rounds to another float32", fmt(x), fmt(got))
		}
	}
	if drifted == 0 {
		t.Fatal("no float32 value drifted: the model lost its second rounding")
	}
}

func fmt(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

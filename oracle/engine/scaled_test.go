package engine

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"testing"
)

// The scaled_float rule is ScaledFloatFieldMapper's (scaled.go). Every expected count below is
// derived by hand from it. Stored values are Math.round(value * 100) in doubles (index time):
//
//	doc 1, 2  149.95  149.95*100 = 14994.999999999998  -> 14995
//	doc 3     149.94  149.94*100 = 14994.0             -> 14994
//	doc 4     149.96  149.96*100 = 14996.0             -> 14996
//	doc 5      79.99   79.99*100 = 7998.999999999999   -> 7999
//	doc 6      1.005   1.005*100 = 100.49999999999999  -> 100
//	doc 7        0.3     0.3*100 = 30.0                -> 30
//	doc 8       -0.5    -0.5*100 = -50.0               -> -50
//	doc 9     no price
//
// so the stored longs, sorted, are -50 30 100 7999 14994 14995 14995 14996. Query values scale
// in exact decimals: scale(149.95) = 14995 exactly, not 14994.999999999998.
var scaledDocs = []string{
	`{"p":149.95}`, `{"p":149.95}`, `{"p":149.94}`, `{"p":149.96}`, `{"p":79.99}`,
	`{"p":1.005}`, `{"p":0.3}`, `{"p":-0.5}`, `{}`,
}

const scaledMapping = `{"mappings":{"properties":{"p":{"type":"scaled_float","scaling_factor":100}}}}`

func TestScaledFloatQueries(t *testing.T) {
	e := newTest(t, scaledMapping, scaledDocs...)
	cases := []struct {
		query  string
		want   int64
		reason string
	}{
		// On the grid.
		{`{"range":{"p":{"lte":149.95}}}`, 7, "hi = floor(scale(149.95) = 14995.0) = 14995: all but 14996 (the double rule, floor(14994.999999999998) = 14994, gave 5)"},
		{`{"range":{"p":{"lt":149.95}}}`, 5, "hi = floor(nextDown(14995.0) = 14994.999999999998) = 14994: -50 30 100 7999 14994"},
		{`{"range":{"p":{"gte":149.95}}}`, 3, "lo = ceil(14995.0) = 14995: 14995 14995 14996"},
		{`{"range":{"p":{"gt":149.95}}}`, 1, "lo = ceil(nextUp(14995.0) = 14995.000000000002) = 14996: 14996"},
		{`{"range":{"p":{"gte":149.94,"lt":149.96}}}`, 3, "lo = 14994, hi = floor(nextDown(14996.0)) = 14995: 14994 14995 14995"},
		{`{"range":{"p":{"gt":149.94,"lte":149.96}}}`, 3, "lo = ceil(nextUp(14994.0)) = 14995, hi = 14996: 14995 14995 14996"},
		{`{"range":{"p":{"lte":79.99}}}`, 4, "hi = floor(scale(79.99) = 7999.0) = 7999: -50 30 100 7999"},
		{`{"range":{"p":{"gt":-0.5}}}`, 7, "lo = ceil(nextUp(-50.0) = -49.99999999999999) = -49: all but -50"},
		{`{"range":{"p":{"gte":-0.5}}}`, 8, "lo = ceil(-50.0) = -50: all 8 priced documents"},
		{`{"range":{"p":{"lt":0}}}`, 1, "hi = floor(nextDown(0.0) = -4.9E-324) = -1: -50"},
		{`{"range":{"p":{"lte":0}}}`, 1, "hi = floor(0.0) = 0: -50"},
		{`{"range":{"p":{"gt":0}}}`, 7, "lo = ceil(nextUp(0.0) = 4.9E-324) = 1: all but -50"},
		{`{"range":{"p":{"gte":0}}}`, 7, "lo = ceil(0.0) = 0: all but -50"},
		// Between grid points.
		{`{"range":{"p":{"lte":149.951}}}`, 7, "hi = floor(scale(149.951) = 14995.1) = 14995: all but 14996"},
		{`{"range":{"p":{"lt":149.951}}}`, 7, "hi = floor(nextDown(14995.1) = 14995.099999999999) = 14995: exclusive makes no difference off the grid"},
		{`{"range":{"p":{"gte":149.951}}}`, 1, "lo = ceil(14995.1) = 14996: 14996"},
		{`{"range":{"p":{"gt":149.951}}}`, 1, "lo = ceil(nextUp(14995.1)) = 14996: 14996"},
		{`{"range":{"p":{"gte":149.949}}}`, 3, "lo = ceil(scale(149.949) = 14994.9) = 14995: 14995 14995 14996"},
		{`{"range":{"p":{"gt":149.949}}}`, 3, "lo = ceil(nextUp(14994.9)) = 14995"},
		{`{"range":{"p":{"lte":149.949}}}`, 5, "hi = floor(14994.9) = 14994: -50 30 100 7999 14994"},
		{`{"range":{"p":{"lt":149.949}}}`, 5, "hi = floor(nextDown(14994.9)) = 14994"},
		// Exactly half way: the decimal product is exact, the stored value was not.
		{`{"range":{"p":{"lte":1.005}}}`, 3, "hi = floor(scale(1.005) = 100.5) = 100: -50 30 100 (doc 6 itself, stored at 100)"},
		{`{"range":{"p":{"gte":1.005}}}`, 5, "lo = ceil(100.5) = 101: doc 6 (stored 100) is not in its own lower bound"},
		{`{"range":{"p":{"gte":1.005,"lte":1.005}}}`, 0, "lo = 101 > hi = 100: nothing"},
		// Term and terms: Math.round(scale(x)), ties upward.
		{`{"term":{"p":149.95}}`, 2, "round(14995.0) = 14995"},
		{`{"term":{"p":149.951}}`, 2, "round(14995.1) = 14995: an off-grid value matches the nearest grid point"},
		{`{"term":{"p":149.955}}`, 1, "round(scale(149.955) = 14995.5) = 14996"},
		{`{"term":{"p":149.945}}`, 2, "round(14994.5) = 14995: a tie goes up"},
		{`{"term":{"p":149.9449}}`, 1, "round(14994.49) = 14994"},
		{`{"term":{"p":1.005}}`, 0, "round(100.5) = 101, but doc 6 is stored at 100"},
		{`{"term":{"p":-0.505}}`, 1, "round(scale(-0.505) = -50.5) = -50: Math.round ties toward positive infinity"},
		{`{"term":{"p":-0.515}}`, 0, "round(-51.5) = -51: nothing"},
		{`{"term":{"p":"79.99"}}`, 1, "a string parses with Double.parseDouble: round(7999.0) = 7999"},
		{`{"terms":{"p":[149.95,0.3,1.005,"79.99"]}}`, 4, "14995 (2) + 30 (1) + 101 (0) + 7999 (1)"},
		{`{"match":{"p":149.951}}`, 2, "match on a number field is its term query: round(14995.1) = 14995"},
		// String bounds parse as Double.parseDouble does.
		{`{"range":{"p":{"lte":"149.95"}}}`, 7, "Double.parseDouble(\"149.95\") = 149.95: as the number"},
		{`{"range":{"p":{"lte":" 149.95\n"}}}`, 7, "parseDouble trims chars up to U+0020"},
		{`{"range":{"p":{"lte":"149.95d"}}}`, 7, "parseDouble takes a d suffix"},
		{`{"range":{"p":{"lt":"1.49950E2"}}}`, 5, "1.4995E2 = 149.95: hi = floor(nextDown(14995.0)) = 14994"},
		{`{"range":{"p":{"lte":"0x1p4"}}}`, 3, "a hexadecimal literal: 16.0, hi = floor(1600.0) = 1600: -50 30 100"},
	}
	for _, c := range cases {
		r := search(t, e, `{"size":0,"track_total_hits":true,"query":`+c.query+`}`)
		if got := r.Get("hits.total.value").Int(); got != c.want {
			t.Errorf("%s: %d hits, want %d (%s)", c.query, got, c.want, c.reason)
		}
	}
}

func TestScaledFloatQueryErrors(t *testing.T) {
	e := newTest(t, scaledMapping, scaledDocs...)
	cases := []struct {
		query, typ, cause, reason string
	}{
		{`{"range":{"p":{"lte":"abc"}}}`, "query_shard_exception", "For input string: \"abc\"", "Double.parseDouble throws"},
		{`{"range":{"p":{"lte":"inf"}}}`, "query_shard_exception", "For input string: \"inf\"", "Java spells it Infinity"},
		{`{"range":{"p":{"gte":"1e"}}}`, "query_shard_exception", "For input string: \"1e\"", "an exponent needs digits"},
		{`{"term":{"p":" x "}}`, "query_shard_exception", "For input string: \"x\"", "the message shows the trimmed string"},
		{`{"range":{"p":{"lte":"Infinity"}}}`, UnsupportedType, "", "new BigDecimal(\"Infinity\") throws a JDK-worded exception"},
		{`{"term":{"p":"NaN"}}`, UnsupportedType, "", "new BigDecimal(\"NaN\") throws"},
		{`{"range":{"p":{"lte":""}}}`, UnsupportedType, "", "parseDouble's \"empty String\" envelope is unverified"},
	}
	for _, c := range cases {
		st, r, raw := do(t, e, "POST", "/test/_search", `{"query":`+c.query+`}`)
		if st != 400 {
			t.Errorf("%s: status %d, want 400 (%s): %s", c.query, st, c.reason, raw)
			continue
		}
		typ := r.Get("error.root_cause.0.type").String()
		if typ != c.typ {
			t.Errorf("%s: root cause %s, want %s (%s): %s", c.query, typ, c.typ, c.reason, raw)
		}
		if c.cause != "" && r.Get("error.failed_shards.0.reason.caused_by.reason").String() != c.cause {
			t.Errorf("%s: want cause %q (%s): %s", c.query, c.cause, c.reason, raw)
		}
	}
}

func TestScaleDecimal(t *testing.T) {
	cases := []struct{ x, factor, want float64 }{
		{149.95, 100, 14995},
		{79.99, 100, 7999}, // the example in ScaledFloatFieldType.scale's comment
		{1.005, 100, 100.5},
		{0.1, 10, 1},
		{-0.505, 100, -50.5},
		{1e-5, 100, 0.001},
		{149.951, 100, 14995.1},
		{2.5, 0.1, 0.25},
		{123456789.123, 1000, 123456789123},
		{math.MaxFloat64, 100, math.Inf(1)},
		{-math.MaxFloat64, 10, math.Inf(-1)},
		{5e-324, 0.5, 0}, // 4.9E-324 × 0.5 = 2.45E-324 rounds to 0 (even)
	}
	for _, c := range cases {
		if got := scaleDecimal(c.x, c.factor); got != c.want {
			t.Errorf("scale(%v × %v) = %v, want %v", c.x, c.factor, got, c.want)
		}
		// The same product through big.Rat: exact, then the nearest double.
		rx, _ := new(big.Rat).SetString(javaDouble(c.x))
		rf, _ := new(big.Rat).SetString(javaDouble(c.factor))
		if want, _ := new(big.Rat).Mul(rx, rf).Float64(); scaleDecimal(c.x, c.factor) != want {
			t.Errorf("scale(%v × %v) = %v, big.Rat says %v", c.x, c.factor, scaleDecimal(c.x, c.factor), want)
		}
	}
}

func TestJavaRoundEdges(t *testing.T) {
	cases := []struct {
		x    float64
		want int64
	}{
		{0, 0}, {math.Copysign(0, -1), 0},
		{0.49999999999999994, 0}, // floor(x + 0.5) in doubles would give 1
		{0.5, 1}, {1.5, 2}, {2.5, 3}, {-0.5, 0}, {-1.5, -1}, {-2.5, -2},
		{-0.49999999999999994, 0}, {-0.5000000000000001, -1},
		{14995.1, 14995}, {14994.5, 14995}, {14995.5, 14996},
		{4503599627370495.5, 4503599627370496}, // 2^52 - 0.5
		{4503599627370497, 4503599627370497},   // ulp 1: already integral
		{9007199254740993, 9007199254740992},   // the literal rounds to 2^53
		{math.Inf(1), math.MaxInt64}, {math.Inf(-1), math.MinInt64}, {math.NaN(), 0},
		{1e19, math.MaxInt64}, {-1e19, math.MinInt64},
		{9.223372036854775807e18, math.MaxInt64}, {-9.223372036854775808e18, math.MinInt64},
		{5e-324, 0}, {-5e-324, 0},
	}
	for _, c := range cases {
		if got := javaRound(c.x); got != c.want {
			t.Errorf("Math.round(%v) = %d, want %d", c.x, got, c.want)
		}
	}
}

func TestJavaParseDouble(t *testing.T) {
	ok := map[string]float64{
		"149.95": 149.95, "+1": 1, "-1.5": -1.5, "1.": 1, ".5": 0.5, "1e3": 1000, "1E+3": 1000,
		"1.5e-3": 0.0015, " 2 ": 2, "\t2\n": 2, "2d": 2, "2.5F": 2.5, "0x1p4": 16, "0X1.8P1": 3,
		"0x.8p1": 1, "0x1p4d": 16, "-0x1p-1": -0.5, "1e400": math.Inf(1), "1e-400": 0,
		"Infinity": math.Inf(1), "-Infinity": math.Inf(-1), "+Infinity": math.Inf(1),
		"007": 7,
	}
	for s, want := range ok {
		got, good := javaParseDouble(s)
		if !good || got != want {
			t.Errorf("parseDouble(%q) = %v, %v; want %v", s, got, good, want)
		}
	}
	if x, good := javaParseDouble("-NaN"); !good || !math.IsNaN(x) {
		t.Errorf("parseDouble(\"-NaN\") = %v, %v", x, good)
	}
	for _, s := range []string{"", " ", "abc", "inf", "Inf", "infinity", "nan", "NAN", ".", "e5", "1e",
		"1e+", "1.5x", "1_000", "0x1", "0x1.8", "0xp1", "0x1p", "1dd", "1.5 e3", "Infinityd", "NaNf",
		"١", "0x1p4.5", "++1", "1,5"} {
		if x, good := javaParseDouble(s); good {
			t.Errorf("parseDouble(%q) = %v, want a NumberFormatException", s, x)
		}
	}
	// A decimal literal reads as strconv does, correctly rounded.
	for _, s := range []string{"0.1", "2.2250738585072011e-308", "9007199254740993", "123456789012345678901234567890"} {
		want, _ := strconv.ParseFloat(s, 64)
		if got, _ := javaParseDouble(s); got != want {
			t.Errorf("parseDouble(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestDoubleAndFloatBounds(t *testing.T) {
	// Points order -0.0 before +0.0 and NaN above +Infinity; an exclusive bound steps with
	// DoublePoint/FloatPoint.nextUp/nextDown, which step between the zeros. Real Elasticsearch
	// 8.15.0 answers the same (lab/realengines, numeric-values).
	e := newTest(t, `{"mappings":{"properties":{"d":{"type":"double"},"f":{"type":"float"}}}}`,
		`{"d":0.0,"f":0.0}`, `{"d":-0.0,"f":-0.0}`, `{"d":1.5,"f":1.5}`, `{"d":-2.5,"f":-2.5}`)
	for _, fld := range []string{"d", "f"} {
		cases := []struct {
			q    string
			want int64
		}{
			{`{"range":{"F":{"lte":"NaN"}}}`, 4}, {`{"range":{"F":{"lt":"NaN"}}}`, 4},
			{`{"range":{"F":{"gte":"NaN"}}}`, 0}, {`{"range":{"F":{"lte":"Infinity"}}}`, 4},
			{`{"range":{"F":{"gt":"-Infinity"}}}`, 4},
			{`{"range":{"F":{"lt":-0.0}}}`, 1},  // nextDown(-0.0) = -4.9E-324: -2.5
			{`{"range":{"F":{"lte":-0.0}}}`, 2}, // -2.5, -0.0
			{`{"range":{"F":{"gt":-0.0}}}`, 2},  // nextUp(-0.0) = +0.0: 0.0, 1.5
			{`{"range":{"F":{"gte":0}}}`, 2},    // 0.0, 1.5: -0.0 is below +0.0
			{`{"range":{"F":{"lt":0}}}`, 2},     // nextDown(+0.0) = -0.0: -2.5, -0.0
			{`{"term":{"F":0}}`, 1}, {`{"term":{"F":"-0.0"}}`, 1},
			{`{"range":{"F":{"lte":" 1.5 "}}}`, 4}, {`{"range":{"F":{"lt":"1.5d"}}}`, 3},
			{`{"range":{"F":{"gte":"0x1.8p0"}}}`, 1},
		}
		for _, c := range cases {
			q := strings.ReplaceAll(c.q, `"F"`, `"`+fld+`"`)
			r := search(t, e, `{"size":0,"query":`+q+`}`)
			if got := r.Get("hits.total.value").Int(); got != c.want {
				t.Errorf("%s: %d hits, want %d", q, got, c.want)
			}
		}
		st, r, _ := do(t, e, "POST", "/test/_search", `{"query":{"range":{"`+fld+`":{"lte":"inf"}}}}`)
		if st != 400 || r.Get("error.failed_shards.0.reason.caused_by.reason").String() != `For input string: "inf"` {
			t.Errorf("lte inf on %s: %d %s, want Double.parseDouble's error", fld, st, r.Raw)
		}
	}
}

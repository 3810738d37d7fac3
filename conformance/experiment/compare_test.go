package experiment

import (
	"math"
	"strings"
	"testing"
	"time"
)

func us(xs ...float64) []time.Duration {
	out := make([]time.Duration, len(xs))
	for i, x := range xs {
		out[i] = time.Duration(x * 1000)
	}
	return out
}

func TestCompare(t *testing.T) {
	a := map[CellKey][]time.Duration{
		{"get", 1}:   us(100, 101, 99, 100.5, 99.5, 100.2),
		{"page", 1}:  us(200, 202, 198, 201, 199, 200.5),
		{"terms", 1}: us(300, 303, 297),
		{"after", 1}: us(400, 401, 399, 402, 398, 400),
	}
	b := map[CellKey][]time.Duration{
		{"get", 1}:    us(110, 111, 109, 110.5, 109.5, 110.2), // +10%, no overlap
		{"page", 1}:   us(180, 182, 178, 181, 179, 180.5),     // -10%, no overlap
		{"terms", 1}:  us(330, 333, 327),                      // +10%, but 3 trials
		{"after", 1}:  us(401, 400, 399.5, 402, 398, 400.5),   // the same
		{"counts", 1}: us(500, 501, 499),                      // only in B
	}
	res, err := Compare(a, b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		key   CellKey
		class Class
		ratio float64 // NaN: untested
		note  string
	}{
		// In the workload's order of operations, as every report lists them.
		{CellKey{"get", 1}, Regressed, 1.10, ""},
		{CellKey{"page", 1}, Improved, 0.90, ""},
		{CellKey{"after", 1}, NoChange, 1.0, ""},
		{CellKey{"terms", 1}, Undecided, 1.10, ""}, // 3 vs 3 trials cannot reach Holm's level
		{CellKey{"counts", 1}, Undecided, math.NaN(), "no trial p50 in run A"},
	}
	if len(res.Cells) != len(want) {
		t.Fatalf("%d cells, want %d", len(res.Cells), len(want))
	}
	for i, w := range want {
		c := res.Cells[i]
		if c.Key != w.key || c.Class != w.class || c.Note != w.note {
			t.Errorf("cell %d: %v %s %q, want %v %s %q", i, c.Key, c.Class, c.Note, w.key, w.class, w.note)
		}
		if math.IsNaN(w.ratio) != math.IsNaN(c.Ratio) || !math.IsNaN(w.ratio) && math.Abs(c.Ratio-w.ratio) > 0.005 {
			t.Errorf("%v: ratio %v, want about %v", c.Key, c.Ratio, w.ratio)
		}
		if !math.IsNaN(c.Ratio) && !(c.Low <= c.Ratio && c.Ratio <= c.High) {
			t.Errorf("%v: interval [%v, %v] misses %v", c.Key, c.Low, c.High, c.Ratio)
		}
	}
	// get@1 alone regressed: page@1 improved, and terms@1 changed as much without reaching Holm's level.
	if n := res.Regressed(); n != 1 {
		t.Errorf("%d cells regressed, want 1 (get@1)", n)
	}
	// 6 vs 6 trials, no overlap: exact p = 2/924; Holm over 4 tested cells.
	if c := res.Cells[0]; math.Abs(c.P-2.0/924) > 1e-12 || c.PHolm > 0.05 {
		t.Errorf("get@1: p %v Holm %v, want 2/924 and significant", c.P, c.PHolm)
	}
	// terms@1 has a 90% interval only: 3 vs 3 cannot reach 95%.
	if c := res.Cells[3]; math.Abs(c.Confidence-0.9) > 1e-12 {
		t.Errorf("terms@1: interval confidence %v, want 0.9", c.Confidence)
	}
	joined := strings.Join(res.Warnings, "\n")
	for _, w := range []string{"separate runs", "with 3 trials per run", "5 trials per run would be needed"} {
		if !strings.Contains(joined, w) {
			t.Errorf("warnings lack %q:\n%s", w, joined)
		}
	}
}

func TestCompareErrors(t *testing.T) {
	if _, err := Compare(nil, nil, Options{}); err == nil {
		t.Error("no cells: no error")
	}
	bad := map[CellKey][]time.Duration{{"get", 1}: {-1}}
	if _, err := Compare(bad, bad, Options{}); err == nil || !strings.Contains(err.Error(), "negative") {
		t.Errorf("negative p50: error %v", err)
	}
	ok := map[CellKey][]time.Duration{{"get", 1}: us(1, 2, 3)}
	if _, err := Compare(ok, ok, Options{Alpha: 2}); err == nil {
		t.Error("alpha 2: no error")
	}
}

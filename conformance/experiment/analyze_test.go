package experiment

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

// labCells are DESIGN's lab results: REST (baseline) and hybrid (candidate) cell p50s in
// microseconds, 1 client then 8 clients per operation.
var labCells = []struct {
	key        CellKey
	rest, hyb  float64
	wantChange Class // at a noise too small to hide anything, threshold 2%
}{
	{CellKey{"get", 1}, 377, 371, NoChange},       // -1.6%: under the threshold
	{CellKey{"get", 8}, 784, 703, Improved},       // -10.3%
	{CellKey{"page", 1}, 703, 706, NoChange},      // +0.4%
	{CellKey{"page", 8}, 2017, 1851, Improved},    // -8.2%
	{CellKey{"after", 1}, 1015, 990, Improved},    // -2.5%
	{CellKey{"after", 8}, 2519, 2531, NoChange},   // +0.5%
	{CellKey{"terms", 1}, 901, 928, Regressed},    // +3.0%
	{CellKey{"terms", 8}, 3080, 2744, Improved},   // -10.9%
	{CellKey{"counts", 1}, 1117, 1145, Regressed}, // +2.5%
	{CellKey{"counts", 8}, 3211, 3273, NoChange},  // +1.9%: significant, under the threshold
}

// balancedInput builds an experiment whose estimates are exactly the given ratios: in every
// cell each variant's rounds carry the drift +d and -d and its trials the jitter -e, 0, +e,
// so drift and jitter cancel in each variant's mean while leaving residual variance. Signs
// and sizes vary by cell so that the cells' residuals are not all alike. The natives (an
// "elasticsearch" at 0.8 and an "opensearch" at 1.1 times the baseline) get the same
// treatment.
func balancedInput(order []Variant, drift, jitter float64, cells []CellKey, base, cand []float64) Input {
	in := Input{}
	for c, key := range cells {
		d := drift * (1 + float64(c%3)/2)
		sign := 1.0
		if c/2%2 == 1 { // alternate within each client count of the lab's cell order
			sign = -1
		}
		cell := Cell{Key: key}
		seen := map[Variant]int{}
		for _, v := range order {
			i := seen[v]
			seen[v]++
			// The i-th round of a variant: +d for even i, -d for odd i (alternating per block).
			rd := d * sign
			if i%2 == 1 {
				rd = -rd
			}
			if v == Candidate {
				rd = -rd
			}
			level := base[c]
			if v == Candidate {
				level = cand[c]
			}
			trials := func(l float64) []time.Duration {
				out := make([]time.Duration, 3)
				for j, e := range []float64{-jitter, 0, jitter} {
					out[j] = time.Duration(math.Round(l * math.Exp(rd+e) * 1000))
				}
				return out
			}
			cell.Rounds = append(cell.Rounds, Round{Variant: v, Trials: trials(level),
				Natives: map[string][]time.Duration{"elasticsearch": trials(0.8 * base[c]), "opensearch": trials(1.1 * base[c])}})
		}
		in.Cells = append(in.Cells, cell)
	}
	return in
}

func labInput(drift, jitter float64) Input {
	var keys []CellKey
	var base, cand []float64
	for _, c := range labCells {
		keys = append(keys, c.key)
		base = append(base, c.rest)
		cand = append(cand, c.hyb)
	}
	return balancedInput(ABBA(1), drift, jitter, keys, base, cand)
}

func TestLabTableIsRejected(t *testing.T) {
	// Round drift 0.2% and trial jitter 0.3%: small enough that every change of the lab's
	// size is significant, so the verdict must reject and name exactly the regressions
	// beyond 2%, whatever the five improvements.
	res, err := Analyze(labInput(0.002, 0.003), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range res.Cells {
		want := labCells[i]
		if c.Key != want.key {
			t.Fatalf("cell %d is %v, want %v (input order kept)", i, c.Key, want.key)
		}
		if got, exact := c.Ratio, want.hyb/want.rest; math.Abs(got-exact) > 1e-5 {
			t.Errorf("%v: ratio %.6f, want the exact %.6f (drift and jitter cancel by construction)", c.Key, got, exact)
		}
		if c.Class != want.wantChange {
			t.Errorf("%v: class %s (ratio %.4f, p %.3g, Holm %.3g), want %s", c.Key, c.Class, c.Ratio, c.P, c.PHolm, want.wantChange)
		}
		if !(c.Low < c.Ratio && c.Ratio < c.High) {
			t.Errorf("%v: interval [%v, %v] does not contain the estimate %v", c.Key, c.Low, c.High, c.Ratio)
		}
	}
	if res.Verdict != Reject {
		t.Fatalf("verdict %s, want reject:\n%s", res.Verdict, res)
	}
	var named []string
	for _, r := range res.Reasons {
		named = append(named, strings.Fields(r)[0])
	}
	if !slices.Equal(named, []string{"terms@1", "counts@1"}) {
		t.Errorf("reasons name %v, want terms@1 and counts@1:\n%s", named, strings.Join(res.Reasons, "\n"))
	}
	if r := res.Reasons[0]; !strings.Contains(r, "+3.0%") || !strings.Contains(r, "p=") {
		t.Errorf("reason %q must give the size and the p-value", r)
	}
	// counts@8 moved +1.9%: significant but under the threshold, so it is no-change; the
	// threshold must not hide it from the table, only from the verdict.
	if c := res.Cells[9]; !c.Significant {
		t.Errorf("counts@8 should be significant at this noise (p %.3g, Holm %.3g)", c.P, c.PHolm)
	}
	// Natives: elasticsearch sits at 0.8 of the baseline, so it is faster in every cell
	// against the baseline and in the cells where the candidate is slower than 0.8 of the
	// baseline (all of them here); opensearch, at 1.1, never beats the baseline, and beats
	// the candidate only where the candidate is more than 10% slower (nowhere).
	wantFaster := map[Variant]map[string]int{
		Baseline:  {"elasticsearch": 10, "opensearch": 0},
		Candidate: {"elasticsearch": 10, "opensearch": 0},
	}
	for v, m := range wantFaster {
		for n, want := range m {
			if got := res.NativeFaster[v][n]; got != want {
				t.Errorf("%s faster than %s in %d cells, want %d", n, v, got, want)
			}
		}
	}
}

func TestLabTableUnderHeavyNoiseIsNotAdopted(t *testing.T) {
	// The same shape under 4% round drift: four rounds cannot resolve changes of this size,
	// and the five cells that improved must not carry the verdict to adopt by count. The
	// weight is fixed: labInput's natives share all the drift, which an estimated slope
	// would remove.
	res, err := Analyze(labInput(0.04, 0.03), Options{NativeWeight: Weight(0.5)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != NoChangeFound {
		t.Fatalf("verdict %s, want no-change:\n%s", res.Verdict, res)
	}
	found := false
	for _, w := range res.Warnings {
		if strings.Contains(w, "smallest change a cell can declare") && strings.Contains(w, "rounds would be needed") {
			found = true
		}
	}
	if !found {
		t.Errorf("no warning that the rounds are too few to resolve the changes:\n%s", res)
	}
}

func TestVerdict(t *testing.T) {
	keys := []CellKey{{"get", 1}, {"get", 8}, {"page", 1}, {"page", 8}}
	base := []float64{1000, 2000, 1000, 2000}
	scaled := func(f ...float64) []float64 {
		out := make([]float64, len(base))
		for i := range base {
			out[i] = base[i] * f[i]
		}
		return out
	}
	tests := []struct {
		reason   string
		cand     []float64
		failures map[Variant]int
		want     Verdict
		reasonIn string
		findings map[Variant][]string
	}{
		{"one clear improvement, nothing else: adopt", scaled(0.9, 1, 1, 1), nil, Adopt, "1 cell improved", nil},
		{"an improvement and a regression: reject, whatever the count", scaled(0.9, 0.9, 0.9, 1.05), nil, Reject, "page@8 regressed +5.0%", nil},
		{"no change anywhere: no-change", scaled(1, 1, 1, 1), nil, NoChangeFound, "no cell changed", nil},
		{"changes under the threshold are no change", scaled(0.99, 1.01, 0.995, 1.015), nil, NoChangeFound, "no cell changed", nil},
		{"improvements but a failed check of the candidate: reject", scaled(0.9, 0.9, 0.9, 0.9), map[Variant]int{Candidate: 3}, Reject, "candidate: 3 responses failed", nil},
		{"a failed check of the baseline also rejects: correctness must be perfect for both", scaled(0.9, 1, 1, 1), map[Variant]int{Baseline: 1}, Reject, "baseline: 1 response failed", nil},
		{"a readiness finding on the candidate is a correctness problem: never adopt", scaled(0.9, 1, 1, 1), nil, Reject,
			"candidate: 1 finding at readiness: mapping differs from the fixtures'", map[Variant][]string{Candidate: {"mapping differs from the fixtures'"}}},
		{"a finding on the baseline rejects too, even with no change", scaled(1, 1, 1, 1), nil, Reject,
			"baseline: 2 findings at readiness: sample: 3 of the 100; identity: x", map[Variant][]string{Baseline: {"sample: 3 of the 100", "identity: x"}}},
	}
	for _, tt := range tests {
		in := balancedInput(ABBA(2), 0.002, 0.003, keys, base, tt.cand)
		in.Failures = tt.failures
		in.Findings = tt.findings
		res, err := Analyze(in, Options{})
		if err != nil {
			t.Fatalf("%s: %v", tt.reason, err)
		}
		if res.Verdict != tt.want {
			t.Errorf("%s: verdict %s, want %s\n%s", tt.reason, res.Verdict, tt.want, res)
			continue
		}
		if !strings.Contains(strings.Join(res.Reasons, "\n"), tt.reasonIn) {
			t.Errorf("%s: reasons %q lack %q", tt.reason, res.Reasons, tt.reasonIn)
		}
	}
}

func TestAnalyzeRejectsMalformedInput(t *testing.T) {
	good := func() Input {
		return balancedInput(ABBA(1), 0.01, 0.01, []CellKey{{"get", 1}, {"page", 1}}, []float64{100, 200}, []float64{100, 200})
	}
	tests := []struct {
		reason string
		edit   func(*Input)
		opts   Options
	}{
		{"no cells", func(in *Input) { in.Cells = nil }, Options{}},
		{"cells with different round orders", func(in *Input) { in.Cells[1].Rounds[0].Variant = Candidate }, Options{}},
		{"unknown variant", func(in *Input) {
			for i := range in.Cells {
				in.Cells[i].Rounds[0].Variant = "other"
			}
		}, Options{}},
		{"negative trial p50", func(in *Input) { in.Cells[0].Rounds[1].Trials[0] = -1 }, Options{}},
		{"negative native p50", func(in *Input) { in.Cells[0].Rounds[1].Natives["opensearch"][0] = -1 }, Options{}},
		{"the same cell twice", func(in *Input) { in.Cells[1].Key = in.Cells[0].Key }, Options{}},
		{"negative failure count", func(in *Input) { in.Failures = map[Variant]int{Baseline: -1} }, Options{}},
		{"failures of an unknown variant", func(in *Input) { in.Failures = map[Variant]int{"third": 1} }, Options{}},
		{"alpha out of range", func(*Input) {}, Options{Alpha: 1.5}},
		{"threshold out of range", func(*Input) {}, Options{Threshold: -0.1}},
		{"native weight out of range", func(*Input) {}, Options{NativeWeight: Weight(2)}},
	}
	for _, tt := range tests {
		in := good()
		tt.edit(&in)
		if res, err := Analyze(in, tt.opts); err == nil {
			t.Errorf("%s: no error; verdict %s", tt.reason, res.Verdict)
		}
	}
}

func TestAnalyzeDegradedInput(t *testing.T) {
	keys := []CellKey{{"get", 1}, {"page", 1}, {"terms", 1}}
	base := []float64{100, 200, 300}
	tests := []struct {
		reason  string
		in      func() Input
		cell    int
		note    string
		warning string
	}{
		{
			reason: "a round without any trial p50 (everything failed) leaves its cell untested, not the experiment",
			in: func() Input {
				in := balancedInput(ABBA(1), 0.01, 0.01, keys, base, base)
				in.Cells[2].Rounds[1].Trials = []time.Duration{0, 0, 0}
				in.Failures = map[Variant]int{Candidate: 600}
				return in
			},
			cell: 2, note: "round 2 has no trial p50", warning: "trial(s) without a p50",
		},
		{
			reason: "a native missing from a round is not used as a control, and then no native is",
			in: func() Input {
				in := balancedInput(ABBA(1), 0.01, 0.01, keys, base, base)
				delete(in.Cells[0].Rounds[3].Natives, "opensearch")
				delete(in.Cells[0].Rounds[3].Natives, "elasticsearch")
				return in
			},
			cell: -1, warning: "natives not used as controls",
		},
		{
			reason: "an experiment without natives says so once, not per cell",
			in: func() Input {
				in := balancedInput(ABBA(1), 0.01, 0.01, keys, base, base)
				for c := range in.Cells {
					for r := range in.Cells[c].Rounds {
						in.Cells[c].Rounds[r].Natives = nil
					}
				}
				return in
			},
			cell: -1, warning: "no native engine was measured",
		},
		{
			reason: "two rounds (AB) have no residual variance: every cell untested, and the warning says how many rounds are needed",
			in: func() Input {
				return balancedInput([]Variant{Baseline, Candidate}, 0.01, 0.01, keys, base, base)
			},
			cell: 0, note: "too few rounds", warning: "needs at least 3 rounds",
		},
	}
	for _, tt := range tests {
		res, err := Analyze(tt.in(), Options{})
		if err != nil {
			t.Errorf("%s: error %v", tt.reason, err)
			continue
		}
		if tt.cell >= 0 {
			c := res.Cells[tt.cell]
			if !strings.Contains(c.Note, tt.note) || !math.IsNaN(c.Ratio) || c.Class != Undecided {
				t.Errorf("%s: cell %v note %q ratio %v class %s", tt.reason, c.Key, c.Note, c.Ratio, c.Class)
			}
		}
		if !strings.Contains(strings.Join(res.Warnings, "\n"), tt.warning) {
			t.Errorf("%s: warnings lack %q:\n%s", tt.reason, tt.warning, strings.Join(res.Warnings, "\n"))
		}
	}
}

func TestRoundsReport(t *testing.T) {
	tests := []struct {
		reason          string
		order           []Variant
		cells           int
		minP            float64
		needed          int
		balanced        bool
		permutationWarn bool
	}{
		{"the lab's 4 rounds over 10 cells: floor 1/3, 12 rounds needed", ABBA(1), 10, 1.0 / 3, 12, true, true},
		{"8 rounds: floor 2/70", ABBA(2), 10, 2.0 / 70, 12, true, true},
		{"12 rounds reach Holm's 0.005 over 10 cells", ABBA(3), 10, 2.0 / 924, 12, true, false},
		{"one cell at 8 rounds: floor 0.029 is under 0.05", ABBA(2), 1, 2.0 / 70, 8, true, false},
		{"ABAB does not cancel linear drift", []Variant{Baseline, Candidate, Baseline, Candidate}, 10, 1.0 / 3, 12, false, true},
	}
	for _, tt := range tests {
		var keys []CellKey
		var base []float64
		for i := range tt.cells {
			keys = append(keys, CellKey{"op", i + 1})
			base = append(base, 1000)
		}
		res, err := Analyze(balancedInput(tt.order, 0.01, 0.01, keys, base, base), Options{})
		if err != nil {
			t.Fatalf("%s: %v", tt.reason, err)
		}
		rr := res.Rounds
		if math.Abs(rr.PermutationMinP-tt.minP) > 1e-12 || rr.PermutationRoundsNeeded != tt.needed || rr.DriftBalanced != tt.balanced {
			t.Errorf("%s: floor %v needed %d balanced %v, want %v %d %v", tt.reason, rr.PermutationMinP, rr.PermutationRoundsNeeded, rr.DriftBalanced, tt.minP, tt.needed, tt.balanced)
		}
		warned := strings.Contains(strings.Join(res.Warnings, "\n"), "too few for an assumption-free conclusion")
		if warned != tt.permutationWarn {
			t.Errorf("%s: assumption-free warning %v, want %v", tt.reason, warned, tt.permutationWarn)
		}
	}
}

func TestMinDeclarableShrinksWithRounds(t *testing.T) {
	keys := []CellKey{{"get", 1}, {"page", 1}, {"after", 1}, {"terms", 1}, {"counts", 1}}
	base := []float64{100, 200, 300, 400, 500}
	var prev float64 = math.Inf(1)
	for blocks := 1; blocks <= 4; blocks++ {
		// A fixed weight: balancedInput's natives share all the drift, which an estimated
		// slope would remove entirely.
		res, err := Analyze(balancedInput(ABBA(blocks), 0.02, 0.03, keys, base, base), Options{NativeWeight: Weight(0.5)})
		if err != nil {
			t.Fatal(err)
		}
		md := res.Rounds.MinDeclarable
		if !(md < prev) {
			t.Errorf("%d rounds: smallest declarable change %.3f did not shrink from %.3f", 4*blocks, md, prev)
		}
		if blocks == 1 && res.Rounds.RoundsForTarget <= 4 {
			t.Errorf("4 rounds at 2%% drift: projected rounds for a 5%% change %d, want more than 4", res.Rounds.RoundsForTarget)
		}
		prev = md
	}
}

func TestTrendTermFromEightRounds(t *testing.T) {
	// Eight rounds under a steady 3%-per-round drift of everything (natives included), 0.3%
	// jitter, and a 5% regression in one cell. ABBA cancels the trend in the estimate either
	// way; the trend term keeps it out of the residual variance, which is what lets the
	// regression be seen.
	keys := []CellKey{{"get", 1}, {"page", 1}, {"after", 1}, {"terms", 1}, {"counts", 1}}
	base := []float64{100, 200, 300, 400, 500}
	cand := []float64{100, 200, 300, 400, 525}
	in := balancedInput(ABBA(2), 0.002, 0.003, keys, base, cand)
	for c := range in.Cells {
		for r := range in.Cells[c].Rounds {
			f := math.Exp(0.03 * float64(r))
			round := &in.Cells[c].Rounds[r]
			for j := range round.Trials {
				round.Trials[j] = time.Duration(float64(round.Trials[j]) * f)
			}
			for _, ts := range round.Natives {
				for j := range ts {
					ts[j] = time.Duration(float64(ts[j]) * f)
				}
			}
		}
	}
	// A fixed weight, so the natives keep the trend in the residuals this test is about.
	fixed := Options{NativeWeight: Weight(0.5)}
	with, err := Analyze(in, fixed)
	if err != nil {
		t.Fatal(err)
	}
	noTrend := fixed.withDefaults().method.(roundModel)
	noTrend.trendFrom = 0
	without, err := Analyze(in, Options{method: noTrend})
	if err != nil {
		t.Fatal(err)
	}
	if c := with.Cells[4]; c.Class != Regressed || math.Abs(c.Ratio-1.05) > 1e-4 {
		t.Errorf("with the trend term: counts@1 %s ratio %.4f, want regressed 1.05", c.Class, c.Ratio)
	}
	if c := without.Cells[4]; c.Class != Undecided || math.Abs(c.Ratio-1.05) > 1e-4 {
		t.Errorf("without it: counts@1 %s ratio %.4f, want the same estimate, but undecided (the trend swamps the variance)", c.Class, c.Ratio)
	}
}

func TestDesignFit(t *testing.T) {
	tests := []struct {
		reason string
		order  []Variant
		trend  bool
		params int
		k      float64
	}{
		{"ABBA: 1/2 + 1/2", ABBA(1), false, 2, 1},
		{"ABBA with a trend: orthogonal, so k is unchanged", ABBA(1), true, 3, 1},
		{"two blocks with a trend", ABBA(2), true, 3, 0.5},
		{"ABAB with a trend: not orthogonal, so the trend costs precision (1.25 by hand)", []Variant{Baseline, Candidate, Baseline, Candidate}, true, 3, 1.25},
		{"three rounds cannot carry a trend", []Variant{Baseline, Candidate, Baseline}, true, 2, 1.5},
	}
	for _, tt := range tests {
		f := newDesignFit(design{order: tt.order}, tt.trend)
		if f.params != tt.params || math.Abs(f.k-tt.k) > 1e-12 {
			t.Errorf("%s: params %d k %v, want %d %v", tt.reason, f.params, f.k, tt.params, tt.k)
		}
	}
}

// Result.String prints every cell's medians in milliseconds (a time.Duration would print
// 372µs on one line and 1.2ms on the next), and – for a variant with no trial p50.
func TestResultStringOneUnit(t *testing.T) {
	r := &Result{Cells: []CellResult{
		{Key: CellKey{Op: "get", Clients: 1}, Baseline: Spread{Median: 372 * time.Microsecond, Trials: 6}, Candidate: Spread{Median: 371 * time.Microsecond, Trials: 6}, Class: NoChange},
		{Key: CellKey{Op: "page", Clients: 8}, Baseline: Spread{Median: 2017 * time.Microsecond, Trials: 6}, Candidate: Spread{Median: 1851 * time.Microsecond, Trials: 6}, Class: Improved},
		{Key: CellKey{Op: "terms", Clients: 1}, Baseline: Spread{Median: 900 * time.Microsecond, Trials: 6}, Class: NoChange},
	}}
	s := r.String()
	for _, want := range []string{"base 0.372 ms cand 0.371 ms", "base 2.017 ms cand 1.851 ms", "base 0.900 ms cand – ratio"} {
		if !strings.Contains(s, want) {
			t.Errorf("lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "µs") {
		t.Errorf("mixes units:\n%s", s)
	}
}

// A cell in which some response failed the check is classed failures, never no-change: its
// latencies rest on the passing responses only. The other cells keep their classes.
func TestCellWithFailuresIsNotNoChange(t *testing.T) {
	keys := []CellKey{{"get", 1}, {"page", 1}}
	base := []float64{1000, 1000}
	in := balancedInput(ABBA(2), 0.002, 0.003, keys, base, base)
	in.Cells[1].Rounds[1].Failed = 6 // a candidate round of page@1
	in.Failures = map[Variant]int{Candidate: 6}
	res, err := Analyze(in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Cells[0].Class; got != NoChange {
		t.Errorf("get@1, no failure: class %s, want no-change", got)
	}
	c := res.Cells[1]
	if c.Class != Failures || c.Failed != 6 || c.Note != "6 responses of the variants failed the check" {
		t.Errorf("page@1: class %s, failed %d, note %q; want failures, 6 and the count", c.Class, c.Failed, c.Note)
	}
	if res.Verdict != Reject {
		t.Errorf("verdict %s, want reject", res.Verdict)
	}
	if s := res.String(); !strings.Contains(s, "page@1       ✗ failures") || !strings.Contains(s, "; 6 responses of the variants failed the check") {
		t.Errorf("the text does not show the cell's failures:\n%s", s)
	}
}

// A cell's class from its test and interval, against a 2% threshold: each row says why.
func TestClassify(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		why              string
		sig              bool
		ratio, low, high float64
		want             Class
	}{
		{"significant beyond +2%", true, 1.10, 1.05, 1.15, Regressed},
		{"significant beyond -2%", true, 0.90, 0.85, 0.95, Improved},
		{"the whole interval within ±2%", false, 1.00, 0.99, 1.015, NoChange},
		{"significant but small, the interval within", true, 1.01, 1.005, 1.015, NoChange},
		{"an interval reaching past +2% decides nothing", false, 1.00, 0.97, 1.04, Undecided},
		{"significant but small, the interval past the threshold", true, 1.015, 1.005, 1.03, Undecided},
		{"wide both ways (four rounds, high noise)", false, 1.3, 0.2, 8.0, Undecided},
		{"untested", false, nan, nan, nan, Undecided},
	}
	for _, tt := range tests {
		if got := Classify(tt.sig, tt.ratio, tt.low, tt.high, 0.02); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.why, got, tt.want)
		}
	}
}

func TestDeclarableText(t *testing.T) {
	tests := []struct {
		v      float64
		rounds int
		want   string
	}{
		{0.042, 12, "4.2%"},
		{1.0, 40, "100.0%"},
		{4821636.81, 28, "cannot declare any change under 100% at this plan: needs about 28 rounds for 5%"},
		{3.5, 0, "cannot declare any change under 100% at this plan: needs more than 400 rounds for 5%"},
		{math.NaN(), 0, "–"},
	}
	for _, tt := range tests {
		if got := DeclarableText(tt.v, tt.rounds); got != tt.want {
			t.Errorf("DeclarableText(%v, %d) = %q, want %q", tt.v, tt.rounds, got, tt.want)
		}
	}
}

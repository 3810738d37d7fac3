package experiment

import (
	"math"
	"strings"
	"testing"
	"time"
)

// TestEstimatedNativeWeight checks the slope's two ends on simulated experiments: natives
// that share every round effect of the variant get a weight near 1; natives that share none
// get 0 (shrunk, not a small noisy slope).
func TestEstimatedNativeWeight(t *testing.T) {
	tests := []struct {
		reason string
		noise  Noise
		lo, hi float64
	}{
		{"drift shared with the natives, cell by cell", Noise{TrialNoise: 0.005, RoundDrift: 0.05, NativeShare: 1}, 0.7, 1},
		{"drift private to each target: no correlation", Noise{TrialNoise: 0.03, RoundDrift: 0.02}, 0, 0.3},
		{"the natives warm up, the variant shares none of it", jitNoise, 0, 0.3},
	}
	for _, tt := range tests {
		var sum float64
		n := 40
		rng := newRand(11)
		cfg := SimConfig{Noise: tt.noise, Order: ABBA(2)}.withDefaults()
		for range n {
			res, err := Analyze(simulateOne(rng, cfg), Options{})
			if err != nil {
				t.Fatal(err)
			}
			sum += res.NativeWeights[1] + res.NativeWeights[8]
		}
		if got := sum / float64(2*n); got < tt.lo || got > tt.hi {
			t.Errorf("%s: mean estimated weight %.2f, want within [%.1f, %.1f]", tt.reason, got, tt.lo, tt.hi)
		}
	}
}

func TestDevSlope(t *testing.T) {
	// Two cells, two rounds of residuals: y = 0.5 x exactly in the deviations from the
	// round means, with noise too small to matter, gives 0.5; a negative slope is clamped to 0.
	x := [][]float64{{1, -1, 0.5, -0.5}, {-1, 1, -0.5, 0.5}}
	y := [][]float64{{0.5, -0.5, 0.25, -0.25001}, {-0.5, 0.5, -0.25, 0.25}}
	if b, shrink, _ := devSlope(y, x, 2); math.Abs(b-0.5) > 1e-3 || shrink < 0.99 {
		t.Errorf("slope %.4f (shrink %.3f), want 0.5", b, shrink)
	}
	for i := range y {
		for r := range y[i] {
			y[i][r] = -y[i][r]
		}
	}
	if b, _, _ := devSlope(y, x, 2); b != 0 {
		t.Errorf("negative slope gave %.4f, want 0", b)
	}
	if b, _, _ := devSlope(y[:1], x[:1], 2); b != 0 {
		t.Errorf("one cell gave %.4f, want 0 (no within-round deviations)", b)
	}
}

func TestMarkIncomplete(t *testing.T) {
	res, err := Analyze(labInput(0.002, 0.003), Options{})
	if err != nil {
		t.Fatal(err)
	}
	res.MarkIncomplete("interrupted (Ctrl-C)", 8)
	if res.Verdict != Incomplete || !strings.Contains(res.Reasons[0], "4 of 8 planned rounds") || !strings.Contains(res.Reasons[0], "interrupted (Ctrl-C)") {
		t.Errorf("verdict %s, reasons %q", res.Verdict, res.Reasons)
	}
	if !strings.Contains(res.String(), "verdict: incomplete") {
		t.Errorf("String does not say incomplete:\n%s", res)
	}
}

// TestUntestedCellsPrintNoNaN: a cell without a test prints why, not "ratio NaN".
func TestUntestedCellsPrintNoNaN(t *testing.T) {
	in := labInput(0.002, 0.003)
	for c := range in.Cells {
		in.Cells[c].Rounds = in.Cells[c].Rounds[:2]
	}
	res, err := Analyze(in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s := res.String(); strings.Contains(s, "NaN") || !strings.Contains(s, "untested") {
		t.Errorf("two rounds: want untested cells and no NaN:\n%s", s)
	}
}

// TestNativeDriftWarning: a native whose last round is far from its first is named, with its
// worst cell; a steady one is not.
func TestNativeDriftWarning(t *testing.T) {
	in := labInput(0.002, 0.003)
	for c := range in.Cells {
		rs := in.Cells[c].Rounds
		for r := range rs {
			f := math.Pow(0.7, float64(r)) // elasticsearch warms up: 0.34 of round 1 by round 4
			if c == 0 {
				f = math.Pow(0.6, float64(r))
			}
			es := rs[r].Natives["elasticsearch"]
			for j := range es {
				es[j] = time.Duration(float64(es[j]) * f)
			}
		}
	}
	res, err := Analyze(in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w := strings.Join(res.Warnings, "\n")
	if !strings.Contains(w, "native elasticsearch drifted") || !strings.Contains(w, "0.22 times round 1's in get@1") {
		t.Errorf("no drift warning naming elasticsearch's worst cell:\n%s", w)
	}
	if strings.Contains(w, "native opensearch drifted") {
		t.Errorf("steady opensearch warned about:\n%s", w)
	}
	if d := res.Cells[1].NativeDrift["elasticsearch"]; math.Abs(d-0.343) > 0.01 {
		t.Errorf("get@8 elasticsearch drift %.3f, want 0.343", d)
	}
}

// TestPerCellDeclarable: every tested cell has its own smallest declarable change, and the
// warning's span runs from the smallest to the largest of them, so a declared change beyond
// the smallest is never contradicted by the warning.
func TestPerCellDeclarable(t *testing.T) {
	res, err := Analyze(labInput(0.04, 0.03), Options{NativeWeight: Weight(0)})
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, c := range res.Cells {
		if math.IsNaN(c.MinDeclarable) || c.MinDeclarable <= 0 {
			t.Fatalf("%v: declarable %v", c.Key, c.MinDeclarable)
		}
		lo, hi = math.Min(lo, c.MinDeclarable), math.Max(hi, c.MinDeclarable)
	}
	if res.Rounds.MinDeclarable != hi || res.Rounds.MinDeclarableBest != lo {
		t.Errorf("rounds report %.4f-%.4f, cells %.4f-%.4f", res.Rounds.MinDeclarableBest, res.Rounds.MinDeclarable, lo, hi)
	}
}

// TestProjectPower: at the colleague's noise the four-round lab plan cannot declare 5% in
// every cell but 12 rounds come close, and the projection says how many rounds 5% needs;
// more rounds never project a larger smallest change.
func TestProjectPower(t *testing.T) {
	keys := make([]CellKey, 10)
	for i := range keys {
		keys[i] = simCellKey(i)
	}
	p4, err := ProjectPower(Plan{Keys: keys, Rounds: 4, Trials: 3, Natives: 2, Change: 0.05}, ColleagueNoise, 100, 9)
	if err != nil {
		t.Fatal(err)
	}
	p12, err := ProjectPower(Plan{Keys: keys, Rounds: 12, Trials: 3, Natives: 2, Change: 0.05}, ColleagueNoise, 100, 9)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("4 rounds:\n%s12 rounds:\n%s", p4, p12)
	if !(p4.MinDeclarable > 0.05) || !(p12.MinDeclarable < p4.MinDeclarable) || p4.RoundsFor <= 4 {
		t.Errorf("4 rounds: declarable %.3f, rounds for 5%% %d; 12 rounds: %.3f", p4.MinDeclarable, p4.RoundsFor, p12.MinDeclarable)
	}
	if !(p12.AllCells > p4.AllCells) {
		t.Errorf("power at 5%% everywhere: 4 rounds %.2f, 12 rounds %.2f", p4.AllCells, p12.AllCells)
	}
	if _, err := ProjectPower(Plan{Keys: keys, Rounds: 6, Trials: 3, Change: 0.05}, ColleagueNoise, 10, 1); err == nil {
		t.Error("6 rounds projected")
	}
}

// TestCommonSlope: from 8 rounds on, drift common to every cell and target (the machine) is
// carried by the common stratum's own slope, near 1, while the within-round slope, which
// sees none of it, stays near 0; at 4 rounds there is no common slope.
func TestCommonSlope(t *testing.T) {
	noise := Noise{TrialNoise: 0.005, RoundDrift: 0.05, NativeShare: 1, CellShare: 1}
	var within, common float64
	n := 40
	rng := newRand(12)
	cfg := SimConfig{Noise: noise, Order: ABBA(3), Trials: 1}.withDefaults()
	for range n {
		res, err := Analyze(simulateOne(rng, cfg), Options{})
		if err != nil {
			t.Fatal(err)
		}
		within += res.NativeWeights[1] / float64(n)
		common += res.NativeWeightsCommon[1] / float64(n)
	}
	if within > 0.3 || common < 0.7 {
		t.Errorf("machine drift over 12 rounds: mean weight within rounds %.2f (want near 0), common %.2f (want near 1)", within, common)
	}
	res, err := Analyze(simulateOne(rng, SimConfig{Noise: noise}.withDefaults()), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.NativeWeightsCommon) != 0 || strings.Contains(res.NativeWeightsText(), "common") {
		t.Errorf("4 rounds have a common slope: %v", res.NativeWeightsCommon)
	}
}

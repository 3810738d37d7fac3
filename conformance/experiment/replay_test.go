package experiment

import (
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// recorded is a simulated A/A record of rounds rounds of one trial, cells scaled by scale.
func recorded(noise Noise, rounds int, scale []float64, seed uint64) *AARecord {
	return SimulateAA(SimConfig{Noise: noise, Order: ABBA(rounds / 4), Trials: 1, CellScale: scale, Seed: seed})
}

// TestReplay: on a record whose rounds are all one variant, replayed A/A experiments reject
// about as often as the method promises, a slowdown written into the candidate rounds is
// found, and a record too short for the plan is refused with a reason.
func TestReplay(t *testing.T) {
	rec := recorded(Noise{TrialNoise: 0.03, RoundDrift: 0.02}, 48, nil, 9)
	aa, err := Replay(rec, ReplayConfig{Rounds: 12, Experiments: 300, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := aa.Rate(aa.Verdicts[Reject]); got > 0.06 {
		t.Errorf("replayed A/A rejected %.1f%%, want about 5%% at most", 100*got)
	}
	all := make([]float64, 10)
	for i := range all {
		all[i] = 1.10
	}
	pw, err := Replay(rec, ReplayConfig{Rounds: 12, Experiments: 100, Seed: 2, Effects: all})
	if err != nil {
		t.Fatal(err)
	}
	if got := pw.Rate(pw.Verdicts[Reject]); got < 0.9 {
		t.Errorf("10%% slower in every replayed candidate round rejected %.0f%%, want at least 90%%", 100*got)
	}
	if _, err := Replay(rec, ReplayConfig{Rounds: 52, Experiments: 1}); err == nil || !strings.Contains(err.Error(), "12 whole blocks") {
		t.Errorf("a 52-round replay of a 48-round record: %v, want a refusal naming the blocks", err)
	}
	if _, err := Replay(rec, ReplayConfig{Rounds: 6, Experiments: 1}); err == nil {
		t.Errorf("6 rounds is not whole ABBA blocks and must be refused")
	}
}

// TestReplayBlocksBalanced: a pseudo-experiment takes whole recorded blocks in run order and
// labels each ABBA or BAAB, so every block has two rounds of each variant.
func TestReplayBlocksBalanced(t *testing.T) {
	d, err := arrange(recorded(ColleagueNoise, 16, nil, 3))
	if err != nil {
		t.Fatal(err)
	}
	in := d.input([]int{0, 2}, []bool{false, true}, nil)
	got := make([]string, 0, 8)
	for _, r := range in.Cells[0].Rounds {
		got = append(got, string(r.Variant[0]))
	}
	if s := strings.Join(got, ""); s != "bccbcbbc" {
		t.Errorf("labels %s, want bccbcbbc (block 1 ABBA, block 3 BAAB)", s)
	}
	if in.Cells[0].Rounds[4].Trials[0] != d.variant[0][8][0] {
		t.Errorf("the second picked block must start at recorded round 9")
	}
}

// TestReplayPlanOn: the replay of a plan names every cell and says each figure.
func TestReplayPlanOn(t *testing.T) {
	rec := recorded(ColleagueNoise, 24, nil, 5)
	keys := ReplayCells(rec)
	p, err := ReplayPlanOn(rec, Plan{Keys: keys, Rounds: 12, Trials: 1, Natives: 2, Change: 0.10}, 60, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.OneCell) != 10 || p.AllCells < 0.9 || p.AAReject > 0.1 {
		t.Errorf("replay %+v: want 10 cells, 10%% everywhere found, few A/A rejections", p)
	}
	s := p.String()
	for _, want := range []string{"A/A: rejected in", "10% slower in every cell: rejected in", "get@1", "counts@8"} {
		if !strings.Contains(s, want) {
			t.Errorf("replay text lacks %q:\n%s", want, s)
		}
	}
	if _, err := ReplayPlanOn(rec, Plan{Keys: keys, Rounds: 24, Trials: 1, Change: 0.10}, 10, 1); err == nil {
		t.Errorf("a 24-round plan on a 24-round record has nothing to draw; want an error")
	}
}

// TestModerateVariances: cells that agree keep the pooled variance and its df; a cell far
// noisier than its neighbours gets a variance near its own, with fewer degrees of freedom.
func TestModerateVariances(t *testing.T) {
	cell := func(own float64) cellTest {
		return cellTest{ok: true, se: math.Sqrt(1.0 / 3), df: 40, pool: 1, poolDF: 40, own: own, ownDF: 9, k: 1.0 / 3}
	}
	agree := []cellTest{cell(0.9), cell(1.1), cell(1.0), cell(0.95), cell(1.05)}
	before := append([]cellTest(nil), agree...)
	moderateVariances(agree, 12)
	for i := range agree {
		if agree[i].se != before[i].se || agree[i].df != before[i].df {
			t.Errorf("cells that agree: cell %d moved from se %.3f df %.1f to se %.3f df %.1f", i, before[i].se, before[i].df, agree[i].se, agree[i].df)
		}
	}
	spread := []cellTest{cell(9), cell(0.2), cell(0.3), cell(0.25), cell(0.2), cell(8), cell(0.3), cell(0.2), cell(0.25), cell(0.3)}
	moderateVariances(spread, 12)
	noisy, quiet := spread[0], spread[1]
	if v := noisy.se * noisy.se / noisy.k; v < 4 {
		t.Errorf("a cell with own variance 9 among cells of 0.2-0.3 was moderated to %.2f; want it near its own", v)
	}
	if v := quiet.se * quiet.se / quiet.k; v > 0.6 {
		t.Errorf("a quiet cell (own 0.2) was moderated to %.2f; want it near its own, below the pool", v)
	}
	if noisy.df >= 40 || noisy.df < 9 {
		t.Errorf("a moderated cell has df %.1f; want between its own 9 and the pool's 40", noisy.df)
	}
}

// TestEstimateNoiseCellScale: the variant's per-cell noise is recovered from a record
// whose cells were simulated at known scales.
func TestEstimateNoiseCellScale(t *testing.T) {
	scale := []float64{3, 3, 1, 1, 1, 1, 1, 1, 1, 1}
	est, err := EstimateNoise(recorded(Noise{TrialNoise: 0.03, RoundDrift: 0.02}, 200, scale, 8))
	if err != nil {
		t.Fatal(err)
	}
	rms := math.Sqrt((2*9 + 8*1) / 10.0)
	for i, want := range scale {
		k := simCellKey(i)
		if got := est.CellScale[k]; math.Abs(got-want/rms) > 0.2*want/rms {
			t.Errorf("%v: scale %.2f, want %.2f", k, got, want/rms)
		}
	}
}

// TestUndecidedOnRecordedNoise: replayed on this machine's recorded A/A runs, a 12-round
// plan's cells are mostly undecided (their intervals reach past ±2%), not no-change; at a
// noise a tenth of the quietest recorded one, they are shown within ±2%. Figures for
// SIMULATION.md ("Undecided cells"); -sim replays more pseudo-experiments.
func TestUndecidedOnRecordedNoise(t *testing.T) {
	n := 100
	if *simTable {
		n = *simN
	}
	share := func(r SimResult, c Class) float64 {
		total := 0
		for _, k := range r.Classes {
			total += k
		}
		return float64(r.Classes[c]) / float64(total)
	}
	for _, f := range []string{"aa-es-os-pinned-2core-1.json", "aa-es-os-pinned-2core-2.json", "aa-embedded-quiet-2core.json"} {
		rec := readAAFile(t, filepath.Join("testdata", f))
		r, err := Replay(rec, ReplayConfig{Rounds: 12, Experiments: n, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s, 12 rounds, %d pseudo-experiments: cells undecided %.1f%%, no-change %.1f%%, regressed or improved %.1f%%; verdicts %v",
			f, n, 100*share(r, Undecided), 100*share(r, NoChange), 100*(share(r, Regressed)+share(r, Improved)), r.Verdicts)
		if share(r, Regressed)+share(r, Improved) > 0.05 {
			t.Errorf("%s: %.1f%% of A/A cells classed changed", f, 100*(share(r, Regressed)+share(r, Improved)))
		}
	}
	quiet := recorded(Noise{TrialNoise: 0.003, RoundDrift: 0.003}, 48, nil, 5)
	r, err := Replay(quiet, ReplayConfig{Rounds: 12, Experiments: n, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("simulated noise 0.3%%, 12 rounds: cells undecided %.1f%%, no-change %.1f%%", 100*share(r, Undecided), 100*share(r, NoChange))
	if share(r, NoChange) < 0.9 {
		t.Errorf("at 0.3%% noise only %.1f%% of cells were shown within ±2%%", 100*share(r, NoChange))
	}
}

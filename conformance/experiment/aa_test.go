package experiment

import (
	"bytes"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/aa-synthetic.json from SimulateAA (check the diff before committing)")

func TestReadAAErrors(t *testing.T) {
	tests := []struct {
		reason, json, want string
	}{
		{"not JSON", `{`, "reading A/A record"},
		{"wrong format tag", `{"format":"other","variant":"g","trials":[]}`, "format"},
		{"no variant", `{"format":"conform-aa/1","trials":[]}`, "no variant"},
		{"unknown field (a typo must not pass silently)", `{"format":"conform-aa/1","variant":"g","trails":[]}`, "unknown field"},
		{"missing target", `{"format":"conform-aa/1","variant":"g","trials":[{"op":"get","clients":1,"round":1,"p50_ns":[1]}]}`, "target and op"},
		{"round numbered from 0", `{"format":"conform-aa/1","variant":"g","trials":[{"target":"g","op":"get","clients":1,"round":0,"p50_ns":[1]}]}`, "must be positive"},
		{"no p50s", `{"format":"conform-aa/1","variant":"g","trials":[{"target":"g","op":"get","clients":1,"round":1,"p50_ns":[]}]}`, "no p50s"},
		{"zero p50", `{"format":"conform-aa/1","variant":"g","trials":[{"target":"g","op":"get","clients":1,"round":1,"p50_ns":[0]}]}`, "not positive"},
		{"duplicate entry", `{"format":"conform-aa/1","variant":"g","trials":[{"target":"g","op":"get","clients":1,"round":1,"p50_ns":[1]},{"target":"g","op":"get","clients":1,"round":1,"p50_ns":[2]}]}`, "given twice"},
	}
	for _, tt := range tests {
		_, err := ReadAA(strings.NewReader(tt.json))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.reason, err, tt.want)
		}
	}
}

func TestEstimateNoiseRecoversSimulatedNoise(t *testing.T) {
	tests := []struct {
		reason string
		noise  Noise
	}{
		{"the colleague's private drift", ColleagueNoise},
		{"drift half shared with natives and half across cells", Noise{TrialNoise: 0.03, RoundDrift: 0.02, NativeShare: 0.5, CellShare: 0.5}},
		{"machine drift only", Noise{TrialNoise: 0.02, RoundDrift: 0.03, NativeShare: 1, CellShare: 1}},
		{"no drift at all", Noise{TrialNoise: 0.03}},
	}
	for i, tt := range tests {
		// 400 rounds of 10 cells: enough rounds for the shares, which rest on round-level
		// covariances, to land within 0.1 of the truth.
		a := SimulateAA(SimConfig{Noise: tt.noise, Order: ABBA(100), Seed: uint64(40 + i)})
		est, err := EstimateNoise(a)
		if err != nil {
			t.Fatalf("%s: %v", tt.reason, err)
		}
		got := est.Noise
		if math.Abs(got.TrialNoise-tt.noise.TrialNoise) > 0.002 || math.Abs(got.RoundDrift-tt.noise.RoundDrift) > 0.003 {
			t.Errorf("%s: trial noise %.4f drift %.4f, want %.4f %.4f", tt.reason, got.TrialNoise, got.RoundDrift, tt.noise.TrialNoise, tt.noise.RoundDrift)
		}
		if tt.noise.RoundDrift > 0 && (math.Abs(got.NativeShare-tt.noise.NativeShare) > 0.1 || math.Abs(got.CellShare-tt.noise.CellShare) > 0.1) {
			t.Errorf("%s: native share %.2f cell share %.2f, want %.2f %.2f", tt.reason, got.NativeShare, got.CellShare, tt.noise.NativeShare, tt.noise.CellShare)
		}
		if len(est.PerTarget) != 3 || est.Rounds != 400 || est.Cells != 10 {
			t.Errorf("%s: %d targets %d rounds %d cells, want 3 400 10", tt.reason, len(est.PerTarget), est.Rounds, est.Cells)
		}
	}
}

func TestEstimateNoiseErrors(t *testing.T) {
	one := SimulateAA(SimConfig{Noise: ColleagueNoise, Order: []Variant{Baseline}, Seed: 1})
	if _, err := EstimateNoise(one); err == nil || !strings.Contains(err.Error(), "need at least 2") {
		t.Errorf("one round: error %v, want a request for more rounds", err)
	}
	a := SimulateAA(SimConfig{Noise: ColleagueNoise, Seed: 1})
	a.Variant = "gateway"
	if _, err := EstimateNoise(a); err == nil || !strings.Contains(err.Error(), "no trials") {
		t.Errorf("variant absent: error %v", err)
	}
	b := SimulateAA(SimConfig{Noise: ColleagueNoise, Seed: 1})
	b.Trials = b.Trials[1:] // the variant's first cell loses round 1
	if _, err := EstimateNoise(b); err == nil || !strings.Contains(err.Error(), "of 4 rounds") {
		t.Errorf("missing round: error %v", err)
	}
}

func TestNativeWeight(t *testing.T) {
	tests := []struct {
		reason string
		noise  Noise
		want   float64
	}{
		{"natives share nothing: ignore them", ColleagueNoise, 0},
		{"natives share all drift: weight below 1 by their own trial noise", Noise{TrialNoise: 0.03, RoundDrift: 0.02, NativeShare: 1}, 0.0004 / (0.0004 + 0.0009/6)},
		{"no trial noise and full sharing: divide by them", Noise{RoundDrift: 0.02, NativeShare: 1}, 1},
		{"no noise at all", Noise{}, 0},
	}
	for _, tt := range tests {
		if got := tt.noise.NativeWeight(2, 3); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%s: weight %v, want %v", tt.reason, got, tt.want)
		}
	}
}

// TestAAFiles estimates the noise of every recorded A/A run in testdata and checks that the
// default method keeps A/A rejections at or under 5% there: by simulating the default plan
// (12 rounds of 1 trial) at that noise, each cell at its own scale, and, for records of more
// than three blocks of 4 rounds, by replaying the plan on the record's own rounds (Replay),
// which takes the noise as it is. testdata/aa-synthetic.json is the simulator's own (see its
// source field); the others are real machines.
func TestAAFiles(t *testing.T) {
	synthetic := filepath.Join("testdata", "aa-synthetic.json")
	if *update {
		a := SimulateAA(SimConfig{Noise: ColleagueNoise, Seed: 2026})
		data, err := json.MarshalIndent(a, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(synthetic, append(data, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files, err := filepath.Glob(filepath.Join("testdata", "aa-*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata/aa-*.json (%v); run with -update to write the synthetic one", err)
	}
	for _, f := range files {
		est := estimateFile(t, f)
		t.Logf("%s: %s", f, describeEstimate(est))
		if !(est.Noise.TrialNoise > 0 || est.Noise.RoundDrift > 0) {
			t.Errorf("%s: no trial noise and no round drift; a recorded run has some", f)
		}
		var scale []float64
		for i := range 10 {
			if s, ok := est.CellScale[simCellKey(i)]; ok {
				scale = append(scale, s)
			} else {
				scale = append(scale, 1)
			}
		}
		r, err := Simulate(SimConfig{Noise: est.Noise, CellScale: scale, Order: ABBA(3), Trials: 1, Experiments: 400, Seed: 5})
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Rate(r.Verdicts[Reject]); got > 0.05 {
			t.Errorf("%s: at this noise A/A experiments are rejected %.1f%% of the time, want at most 5%%", f, 100*got)
		}
		rec := readAAFile(t, f)
		if d, err := arrange(rec); err != nil || d.rounds/4 <= 3 {
			continue
		}
		rp, err := Replay(rec, ReplayConfig{Rounds: 12, Experiments: 400, Seed: 6})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		t.Logf("%s: replayed 12-round A/A experiments rejected %.1f%% (some cell significant %.1f%%)", f, 100*rp.Rate(rp.Verdicts[Reject]), 100*rp.Rate(rp.AnySignificant))
		if got := rp.Rate(rp.Verdicts[Reject]); got > 0.05 {
			t.Errorf("%s: replayed on the record's own rounds, A/A experiments of 12 rounds were rejected %.1f%% of the time, want at most 5%%", f, 100*got)
		}
	}
	// The synthetic file must round-trip: what is written is what SimulateAA makes.
	data, err := os.ReadFile(synthetic)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.MarshalIndent(SimulateAA(SimConfig{Noise: ColleagueNoise, Seed: 2026}), "", "  ")
	if !bytes.Equal(bytes.TrimSpace(data), want) {
		t.Errorf("%s differs from SimulateAA's output; rerun with -update and check the diff", synthetic)
	}
}

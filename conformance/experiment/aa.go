package experiment

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"time"
)

// AAFormat is the format tag of an A/A record.
const AAFormat = "conform-aa/1"

// AARecord is a recorded A/A experiment: the same variant in every round, the natives
// interleaved as usual, so every difference between rounds is noise. It is the input of
// EstimateNoise, and its JSON form is the testdata/aa-*.json files:
//
//	{
//	  "format": "conform-aa/1",
//	  "source": "what machine, when, which conform revision",
//	  "variant": "gateway",
//	  "trials": [
//	    {"target": "gateway", "op": "get", "clients": 1, "round": 1, "p50_ns": [377000, 381000, 379000]},
//	    {"target": "elasticsearch", "op": "get", "clients": 1, "round": 1, "p50_ns": [301000, 299000, 305000]}
//	  ]
//	}
//
// One entry holds the trial p50s (integer nanoseconds, as time.Duration marshals) of one
// target in one cell and round; rounds are numbered from 1 in run order. Variant names the
// target that a real experiment would switch between rounds; the others are the natives.
type AARecord struct {
	Format  string    `json:"format"`
	Source  string    `json:"source,omitempty"`
	Variant string    `json:"variant"`
	Trials  []AATrial `json:"trials"`
}

// AATrial is one target's trial p50s in one cell and round.
type AATrial struct {
	Target  string          `json:"target"`
	Op      string          `json:"op"`
	Clients int             `json:"clients"`
	Round   int             `json:"round"`
	P50     []time.Duration `json:"p50_ns"`
}

// ReadAA decodes and validates an A/A record.
func ReadAA(r io.Reader) (*AARecord, error) {
	var a AARecord
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return nil, fmt.Errorf("reading A/A record: %w", err)
	}
	if a.Format != AAFormat {
		return nil, fmt.Errorf("reading A/A record: format %q, want %q", a.Format, AAFormat)
	}
	if a.Variant == "" {
		return nil, fmt.Errorf("reading A/A record: no variant target named")
	}
	seen := make(map[[3]string]bool)
	for i, t := range a.Trials {
		switch {
		case t.Target == "" || t.Op == "":
			return nil, fmt.Errorf("reading A/A record: trials[%d]: target and op are required", i)
		case t.Clients < 1 || t.Round < 1:
			return nil, fmt.Errorf("reading A/A record: trials[%d]: clients %d and round %d must be positive", i, t.Clients, t.Round)
		case len(t.P50) == 0:
			return nil, fmt.Errorf("reading A/A record: trials[%d]: no p50s", i)
		}
		for _, p := range t.P50 {
			if p <= 0 {
				return nil, fmt.Errorf("reading A/A record: trials[%d]: p50 %v is not positive", i, p)
			}
		}
		key := [3]string{t.Target, fmt.Sprintf("%s@%d", t.Op, t.Clients), fmt.Sprint(t.Round)}
		if seen[key] {
			return nil, fmt.Errorf("reading A/A record: trials[%d]: %s %s round %d given twice", i, t.Target, key[1], t.Round)
		}
		seen[key] = true
	}
	return &a, nil
}

// NoiseEstimate is what an A/A record says about the machine's noise.
type NoiseEstimate struct {
	// Noise is pooled over all targets and cells (Trend is left at 0: a trend shows up as
	// drift shared by natives and cells).
	Noise Noise
	// PerTarget holds each target's own TrialNoise and RoundDrift.
	PerTarget map[string]Noise
	// TrialDF and RoundDF are the degrees of freedom behind TrialNoise and RoundDrift.
	TrialDF, RoundDF       int
	Targets, Cells, Rounds int
	// CellScale is, per cell, the variant's round-to-round standard deviation (of its round
	// means) over the root mean square of those over all cells: how much noisier than the
	// average cell it is. The analysis moderates each cell's variance, so a noisy cell
	// declares less than a quiet one, and projections simulate each cell at its scale. With
	// R rounds each figure carries a relative error of about 1/sqrt(2(R-1)).
	CellScale map[CellKey]float64
}

// EstimateNoise estimates trial noise and round drift from an A/A record by the method of
// moments on log p50s, for each target and cell:
//
//   - TrialNoise: the pooled standard deviation of trial p50s around their round's mean.
//   - RoundDrift: the variance of round means around the target's mean in the cell, minus
//     the part trial noise explains (TrialNoise^2 over the harmonic mean trial count),
//     pooled, floored at zero.
//   - NativeShare: the covariance of the variant's and each native's round deviations in
//     the same cell and round (trial noise is independent between targets, so it does not
//     enter), as a fraction of the drift variance.
//   - CellShare: the covariance of one target's round deviations in two cells of the same
//     round, as a fraction of the drift variance.
//
// Deviations from a mean over R rounds have expected cross-products (R-1)/R times the
// covariance, which the estimates correct for. The shares are clamped to [0, 1].
func EstimateNoise(a *AARecord) (NoiseEstimate, error) {
	type tc struct {
		target string
		cell   CellKey
	}
	rounds := make(map[tc]map[int][]float64)
	roundSet, cellSet := make(map[int]bool), make(map[CellKey]bool)
	for _, t := range a.Trials {
		k := tc{t.Target, CellKey{t.Op, t.Clients}}
		if rounds[k] == nil {
			rounds[k] = make(map[int][]float64)
		}
		logs, _, err := logDurations(t.P50)
		if err != nil {
			return NoiseEstimate{}, err
		}
		rounds[k][t.Round] = logs
		roundSet[t.Round], cellSet[k.cell] = true, true
	}
	targets := make(map[string]bool)
	for k := range rounds {
		targets[k.target] = true
	}
	if !targets[a.Variant] {
		return NoiseEstimate{}, fmt.Errorf("estimating noise: variant %q has no trials", a.Variant)
	}
	allRounds := slices.Sorted(maps.Keys(roundSet))
	R := len(allRounds)
	if R < 2 {
		return NoiseEstimate{}, fmt.Errorf("estimating noise: %d round(s); need at least 2 to see drift", R)
	}
	type acc struct{ ssW, dfW, ssB, dfB, invN, nN float64 }
	per := make(map[string]*acc)
	pooled := &acc{}
	dev := make(map[tc]map[int]float64) // round mean minus the target's mean in the cell
	cellScale := func(dev map[tc]map[int]float64, variant string) map[CellKey]float64 {
		vars := map[CellKey]float64{}
		var total float64
		for k, byRound := range dev {
			if k.target != variant || len(byRound) < 2 {
				continue
			}
			var ss float64
			for _, d := range byRound {
				ss += d * d
			}
			vars[k.cell] = ss / float64(len(byRound)-1)
			total += vars[k.cell]
		}
		if len(vars) == 0 || !(total > 0) {
			return nil
		}
		rms := math.Sqrt(total / float64(len(vars)))
		out := make(map[CellKey]float64, len(vars))
		for c, v := range vars {
			out[c] = math.Sqrt(v) / rms
		}
		return out
	}
	for k, byRound := range rounds {
		if len(byRound) < R {
			return NoiseEstimate{}, fmt.Errorf("estimating noise: %s %v has %d of %d rounds", k.target, k.cell, len(byRound), R)
		}
		if per[k.target] == nil {
			per[k.target] = &acc{}
		}
		means := make(map[int]float64, R)
		var grand float64
		for r, ys := range byRound {
			m := mean(ys)
			means[r] = m
			grand += m / float64(R)
			for _, y := range ys {
				for _, a := range []*acc{per[k.target], pooled} {
					a.ssW += (y - m) * (y - m)
				}
			}
			for _, a := range []*acc{per[k.target], pooled} {
				a.dfW += float64(len(ys) - 1)
				a.invN += 1 / float64(len(ys))
				a.nN++
			}
		}
		dev[k] = make(map[int]float64, R)
		for r, m := range means {
			dev[k][r] = m - grand
			for _, a := range []*acc{per[k.target], pooled} {
				a.ssB += (m - grand) * (m - grand)
			}
		}
		for _, a := range []*acc{per[k.target], pooled} {
			a.dfB += float64(R - 1)
		}
	}
	noiseOf := func(a *acc) Noise {
		var n Noise
		if a.dfW > 0 {
			n.TrialNoise = math.Sqrt(a.ssW / a.dfW)
		}
		// Harmonic mean trial count: the variance of a round mean from trial noise is
		// TrialNoise^2 / n averaged over rounds.
		meanInvN := a.invN / a.nN
		drift := a.ssB/a.dfB - n.TrialNoise*n.TrialNoise*meanInvN
		n.RoundDrift = math.Sqrt(math.Max(0, drift))
		return n
	}
	est := NoiseEstimate{PerTarget: make(map[string]Noise), Targets: len(targets), Cells: len(cellSet), Rounds: R,
		TrialDF: int(pooled.dfW), RoundDF: int(pooled.dfB)}
	for t, a := range per {
		est.PerTarget[t] = noiseOf(a)
	}
	est.Noise = noiseOf(pooled)
	est.CellScale = cellScale(dev, a.Variant)
	driftVar := est.Noise.RoundDrift * est.Noise.RoundDrift
	if driftVar == 0 {
		return est, nil
	}
	correction := float64(R) / float64(R-1)
	cells := slices.SortedFunc(maps.Keys(cellSet), func(a, b CellKey) int {
		if a.Op != b.Op {
			if a.Op < b.Op {
				return -1
			}
			return 1
		}
		return a.Clients - b.Clients
	})
	// Variant with each native, same cell and round.
	var sum float64
	var n int
	for _, c := range cells {
		v := dev[tc{a.Variant, c}]
		if v == nil {
			continue
		}
		for t := range targets {
			if t == a.Variant {
				continue
			}
			x := dev[tc{t, c}]
			if x == nil {
				continue
			}
			for _, r := range allRounds {
				sum += v[r] * x[r]
				n++
			}
		}
	}
	if n > 0 {
		est.Noise.NativeShare = clamp01(sum / float64(n) * correction / driftVar)
	}
	// One target, two cells, same round.
	sum, n = 0, 0
	for t := range targets {
		for i, c1 := range cells {
			for _, c2 := range cells[i+1:] {
				d1, d2 := dev[tc{t, c1}], dev[tc{t, c2}]
				if d1 == nil || d2 == nil {
					continue
				}
				for _, r := range allRounds {
					sum += d1[r] * d2[r]
					n++
				}
			}
		}
	}
	if n > 0 {
		est.Noise.CellShare = clamp01(sum / float64(n) * correction / driftVar)
	}
	return est, nil
}

func clamp01(x float64) float64 { return math.Min(1, math.Max(0, x)) }

// NativeWeight is the weight of the natives as controls that minimises the variance of a
// round's adjusted mean under this noise, with natives native engines of trials trials per
// round: the covariance of the variant's round mean with the natives' mean round mean over
// the latter's variance. It is 0 when the natives share none of the variant's drift.
func (n Noise) NativeWeight(natives, trials int) float64 {
	if natives < 1 || trials < 1 {
		return 0
	}
	d2 := n.RoundDrift * n.RoundDrift
	cov := n.NativeShare * d2
	v := cov + (1-n.NativeShare)*d2/float64(natives) + n.TrialNoise*n.TrialNoise/float64(natives*trials)
	if v <= 0 {
		return 0
	}
	return clamp01(cov / v)
}

// SimulateAA records a simulated A/A experiment in the A/A format: the variant is "variant",
// the natives "native1"..., every round the same variant. It exists to test EstimateNoise
// against known noise and to give the format an example.
func SimulateAA(cfg SimConfig) *AARecord {
	cfg = cfg.withDefaults()
	cfg.Effects = nil
	rng := newRand(cfg.Seed)
	in := simulateOne(rng, cfg)
	a := &AARecord{Format: AAFormat, Variant: "variant",
		Source: fmt.Sprintf("synthetic: SimulateAA with noise %+v, %d rounds, %d trials, seed %d", cfg.Noise, len(cfg.Order), cfg.Trials, cfg.Seed)}
	for _, c := range in.Cells {
		for r, round := range c.Rounds {
			a.Trials = append(a.Trials, AATrial{Target: "variant", Op: c.Key.Op, Clients: c.Key.Clients, Round: r + 1, P50: round.Trials})
			for _, name := range slices.Sorted(maps.Keys(round.Natives)) {
				a.Trials = append(a.Trials, AATrial{Target: name, Op: c.Key.Op, Clients: c.Key.Clients, Round: r + 1, P50: round.Natives[name]})
			}
		}
	}
	return a
}

package runner

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/conform-dev/conform/conformance/experiment"
	"github.com/conform-dev/conform/conformance/report"
	"github.com/conform-dev/conform/conformance/target"
)

// TestReportRounds: every finished round is listed for the report and recorded for the
// manifest, in order, with its own targets and trials and its switch account.
func TestReportRounds(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	round := func(n int, v experiment.Variant, label, sw string) RoundResult {
		res := &report.Results{Targets: []report.Target{{Name: label}, {Name: "es"}},
			Cells: []report.Cell{{Target: label, Op: "get", Clients: 1, Trials: []report.Trial{{Trial: 1, P50Ms: report.Millis(float64(n))}}}}}
		return RoundResult{Round: n, Variant: v, Label: label, Started: t0.Add(time.Duration(n) * time.Minute),
			Finished: t0.Add(time.Duration(n)*time.Minute + 30*time.Second), Switch: sw, Results: res}
	}
	rounds := []RoundResult{round(1, experiment.Baseline, "rest", ""), round(2, experiment.Candidate, "grpc", "switched to grpc")}

	listed, recorded := ReportRounds(rounds)
	wantListed := []report.RoundInfo{
		{Round: 1, Role: "baseline", Label: "rest", StartedAt: rounds[0].Started, FinishedAt: rounds[0].Finished},
		{Round: 2, Role: "candidate", Label: "grpc", StartedAt: rounds[1].Started, FinishedAt: rounds[1].Finished, Switch: "switched to grpc"},
	}
	if !reflect.DeepEqual(listed, wantListed) {
		t.Errorf("listed = %+v\nwant %+v", listed, wantListed)
	}
	if len(recorded) != 2 {
		t.Fatalf("recorded %d rounds, want 2", len(recorded))
	}
	for i, r := range recorded {
		rr := rounds[i]
		want := report.Round{Round: rr.Round, Variant: rr.Label, Role: string(rr.Variant), StartedAt: rr.Started, FinishedAt: rr.Finished,
			Targets: rr.Results.Targets, Switch: rr.Switch, Trials: []report.TrialRecord{{Target: rr.Label, Op: "get", Clients: 1, Trial: report.Trial{Trial: 1, P50Ms: report.Millis(float64(rr.Round))}}}}
		if !reflect.DeepEqual(r, want) {
			t.Errorf("round %d recorded as %+v\nwant %+v", rr.Round, r, want)
		}
	}
	if l, r := ReportRounds(nil); l != nil || r != nil {
		t.Errorf("no rounds: %v, %v; want nothing", l, r)
	}
}

// experimentRounds is four ABBA rounds of rest (baseline) and grpc (candidate) with the
// native es, one cell (get at 1 client) of three trials each; the candidate's p50s are about
// candidateMs, every other target's about 1 ms.
func experimentRounds(candidateMs float64) []RoundResult {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	settings := report.Settings{Ops: []string{"get"}, Clients: []int{1}, Requests: 100, Trials: 3}
	cell := func(target string, p50 float64) report.Cell {
		c := report.Cell{Target: target, Op: "get", Clients: 1}
		for i, jitter := range []float64{-0.01, 0, 0.01} {
			c.Trials = append(c.Trials, report.Trial{Trial: i + 1, P50Ms: report.Millis(p50 + jitter), P95Ms: report.Millis(p50 + 1), P99Ms: report.Millis(p50 + 2), MeanMs: report.Millis(p50), MaxMs: report.Millis(p50 + 3), ThroughputRPS: 1000 / p50, Passed: 100})
		}
		return c
	}
	var rounds []RoundResult
	for i, v := range experiment.ABBA(1) {
		label, p50 := "rest", 1.0
		if v == experiment.Candidate {
			label, p50 = "grpc", candidateMs
		}
		// Each round drifts a little, the native with it, so the round model has variance to
		// estimate.
		drift := []float64{0, 0.03, -0.02, 0.01}[i]
		start := t0.Add(time.Duration(i) * time.Minute)
		res := &report.Results{Settings: settings, Complete: true, StartedAt: start, FinishedAt: start.Add(30 * time.Second),
			Targets: []report.Target{{Name: label}, {Name: "es"}}, Cells: []report.Cell{cell(label, p50+drift), cell("es", 1+drift/2)}}
		rounds = append(rounds, RoundResult{Round: i + 1, Variant: v, Label: label, Started: start, Finished: res.FinishedAt, Results: res})
	}
	return rounds
}

// TestExperimentReport: the report of an experiment is the analysis of its rounds' Input, the
// rounds merged, the variants' labels, the natives and the plan's count, and its rounds listed
// and recorded as ReportRounds gives them; an experiment that stopped early is incomplete.
func TestExperimentReport(t *testing.T) {
	x := &Experiment{Settings: Settings{Ops: []string{"get"}, Clients: []int{1}, Requests: 100, Trials: 3}, Order: experiment.ABBA(1),
		Baseline: Variant{Label: "rest"}, Candidate: Variant{Label: "grpc"}, Natives: []*target.Target{{Name: "es"}}}
	opts := experiment.Options{Alpha: experiment.DefaultAlpha, Threshold: experiment.DefaultThreshold, NativeWeight: experiment.Weight(0.5)}
	for _, tc := range []struct {
		reason      string
		candidateMs float64
		runErr      error
		verdict     experiment.Verdict
	}{
		{"a slower candidate, all rounds finished", 2, nil, experiment.Reject},
		{"no change, stopped early", 1, errors.New("round 5: interrupted"), experiment.Incomplete},
		{"a slower candidate, stopped early: still incomplete", 2, errors.New("round 5: interrupted"), experiment.Incomplete},
	} {
		rounds := experimentRounds(tc.candidateMs)
		rep, recorded, err := x.Report(rounds, tc.runErr, opts)
		if err != nil {
			t.Fatalf("%s: %v", tc.reason, err)
		}
		analysis, err := experiment.Analyze(Input(rounds, []string{"es"}), opts)
		if err != nil {
			t.Fatal(err)
		}
		if tc.runErr != nil {
			analysis.MarkIncomplete(tc.runErr.Error(), len(x.Order))
		}
		if !reflect.DeepEqual(rep.Analysis, analysis) {
			t.Errorf("%s: analysis = %+v\nwant Analyze(Input(rounds)) = %+v", tc.reason, rep.Analysis, analysis)
		}
		if rep.Analysis.Verdict != tc.verdict {
			t.Errorf("%s: verdict %s, want %s", tc.reason, rep.Analysis.Verdict, tc.verdict)
		}
		merged, err := Merge(rounds)
		if err != nil {
			t.Fatal(err)
		}
		if tc.runErr != nil {
			merged.Complete, merged.Incomplete = false, tc.runErr.Error()
		}
		if !reflect.DeepEqual(rep.Results, merged) {
			t.Errorf("%s: results = %+v\nwant the rounds merged, %+v", tc.reason, rep.Results, merged)
		}
		if rep.Results.Complete != (tc.runErr == nil) {
			t.Errorf("%s: complete %v (%q) with run error %v", tc.reason, rep.Results.Complete, rep.Results.Incomplete, tc.runErr)
		}
		listed, wantRecorded := ReportRounds(rounds)
		if !reflect.DeepEqual(rep.Rounds, listed) || !reflect.DeepEqual(recorded, wantRecorded) {
			t.Errorf("%s: rounds listed %+v, recorded %+v; want ReportRounds's", tc.reason, rep.Rounds, recorded)
		}
		if rep.Baseline != "rest" || rep.Candidate != "grpc" || !reflect.DeepEqual(rep.Natives, []string{"es"}) || rep.PlannedResponses != x.PlannedResponses() || rep.MeasuredResponses != 2400 {
			t.Errorf("%s: baseline %q, candidate %q, natives %v, measured %d of %d planned, want 2400 of %d", tc.reason, rep.Baseline, rep.Candidate, rep.Natives, rep.MeasuredResponses, rep.PlannedResponses, x.PlannedResponses())
		}
	}
	// Options the analysis refuses are its error, said so.
	if _, _, err := x.Report(experimentRounds(1), nil, experiment.Options{Alpha: 2}); err == nil || !strings.HasPrefix(err.Error(), "analysing the experiment: ") {
		t.Errorf("alpha 2: %v", err)
	}
}

// TestRoundRotationBalanced: in every ABBA block the baseline's two rounds and the
// candidate's two take the same offsets, so at every step each variant runs in the same
// places as the other and a place's effect on latency cancels from the block's contrast;
// over blocks every target still leads.
func TestRoundRotationBalanced(t *testing.T) {
	for targets := 1; targets <= 5; targets++ {
		order := experiment.ABBA(6)
		led := map[int]bool{}
		for b := range 6 {
			var base, cand []int
			for q := range 4 {
				i := 4*b + q
				off := RoundRotation(i, targets)
				if off < 0 || (targets > 1 && off >= targets) {
					t.Fatalf("%d targets, round %d: offset %d out of range", targets, i+1, off)
				}
				led[off] = true
				if order[i] == experiment.Candidate {
					cand = append(cand, off)
				} else {
					base = append(base, off)
				}
			}
			slices.Sort(base)
			slices.Sort(cand)
			if !slices.Equal(base, cand) {
				t.Errorf("%d targets, block %d: baseline offsets %v, candidate %v; want the same", targets, b+1, base, cand)
			}
		}
		if targets > 1 && len(led) != targets {
			t.Errorf("%d targets: over 6 blocks only offsets %v were used; every target should lead some step", targets, led)
		}
	}
}

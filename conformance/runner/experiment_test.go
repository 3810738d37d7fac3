package runner

import (
	"reflect"
	"testing"
	"time"

	"github.com/conform-dev/conform/conformance/experiment"
	"github.com/conform-dev/conform/conformance/report"
)

// TestReportRounds: every finished round is listed for the report and recorded for the
// manifest, in order, with its own targets and trials and its switch account.
func TestReportRounds(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	round := func(n int, v experiment.Variant, label, sw string) RoundResult {
		res := &report.Results{Targets: []report.Target{{Name: label}, {Name: "es"}},
			Cells: []report.Cell{{Target: label, Op: "get", Clients: 1, Trials: []report.Trial{{Trial: 1, P50Ms: float64(n)}}}}}
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
			Targets: rr.Results.Targets, Switch: rr.Switch, Trials: []report.TrialRecord{{Target: rr.Label, Op: "get", Clients: 1, Trial: report.Trial{Trial: 1, P50Ms: float64(rr.Round)}}}}
		if !reflect.DeepEqual(r, want) {
			t.Errorf("round %d recorded as %+v\nwant %+v", rr.Round, r, want)
		}
	}
	if l, r := ReportRounds(nil); l != nil || r != nil {
		t.Errorf("no rounds: %v, %v; want nothing", l, r)
	}
}

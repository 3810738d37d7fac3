package fuzz

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
)

// A target that stops answering while disagreements are shrunk stops the run after two
// unanswered requests in a row, instead of a timeout per candidate left (up to the budget of
// every disagreement to shrink); the disagreements found are kept, and the error says so.
// One unanswered candidate alone (one that crashes the target, say) does not stop it.
func TestShrinkStopsWhenTheTargetStopsAnswering(t *testing.T) {
	e, f := defaultEngine(t)
	srv := brokenProxy(t, "number-kind")
	var sent, afterDeath atomic.Int64
	const n = 60
	dead := errors.New("timeout: read status line: no complete response within 10s")
	target := func(c context.Context, method, path string, body []byte) (int, []byte, error) {
		// Request n+1 (the first of the shrinking, the generation's n being done) is
		// unanswered alone; from n+3 on nothing is answered.
		switch k := sent.Add(1); {
		case k == n+1:
			return 0, nil, dead
		case k >= n+3:
			afterDeath.Add(1)
			return 0, nil, dead
		}
		return httpDoer(srv.URL)(c, method, path, body)
	}
	rep, err := Run(context.Background(), Config{Gen: defaultGenerator(t, 2), OracleIndex: f.Workload.Index, TargetIndex: f.Workload.Index,
		Oracle: EngineDoer(e), Target: target, N: n, Workers: 1})
	if err == nil || !strings.HasPrefix(err.Error(), "the target stopped answering while shrinking: 2 requests in a row got no answer, the last: ") {
		t.Fatalf("error %v", err)
	}
	if rep == nil || rep.Stopped != err.Error() || rep.Requests != n || rep.Disagreements == 0 || len(rep.Groups) == 0 {
		t.Fatalf("report %+v", rep)
	}
	if got := afterDeath.Load(); got != 2 {
		t.Errorf("%d requests sent to the dead target, want the 2 in a row that stop the run", got)
	}
}

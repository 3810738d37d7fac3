package conformance

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/conform-dev/conform/fixtures"
	"github.com/conform-dev/conform/oracle/engine"
)

// engineResponse is the embedded engine's answer to one case of the default workload.
type engineResponse struct {
	c      fixtures.Case
	status int
	body   []byte
}

// defaultEngineResponses answers every case of the default workload with the embedded engine
// loaded with the default corpus, pages before the after cases that continue them (with
// track_total_hits true, as conform sends them by default).
func defaultEngineResponses(tb testing.TB) []engineResponse {
	tb.Helper()
	fx := fixtures.Default()
	index := fx.Workload.Index
	eng := engine.New()
	if err := eng.Load(index, fx.Mapping, fx.Docs); err != nil {
		tb.Fatalf("loading the default corpus into the embedded engine: %v", err)
	}
	// After cases continue from their page case's last sort values, so pages go first.
	var cases []fixtures.Case
	for _, c := range fx.Workload.Cases {
		if c.After == "" {
			cases = append(cases, c)
		}
	}
	for _, c := range fx.Workload.Cases {
		if c.After != "" {
			cases = append(cases, c)
		}
	}
	lastSort := map[string]json.RawMessage{}
	var out []engineResponse
	for _, c := range cases {
		var after json.RawMessage
		if c.After != "" {
			if after = lastSort[c.After]; after == nil {
				tb.Fatalf("%s: page case %s gave no sort values to continue from", c.Name, c.After)
			}
		}
		req, err := c.Request(index, "true", after)
		if err != nil {
			tb.Fatal(err)
		}
		status, body := eng.Do(req.Method, req.Path, req.Body)
		if status == http.StatusNotImplemented {
			tb.Fatalf("embedded engine not available: %s %s answered 501: %s", req.Method, req.Path, body)
		}
		if c.Op == fixtures.OpPage {
			root, _ := parse(body)
			if hits := root.member("hits").member("hits"); hits != nil && len(hits.elems) > 0 {
				if s := hits.elems[len(hits.elems)-1].member("sort"); s != nil {
					lastSort[c.Name] = json.RawMessage(s.raw)
				}
			}
		}
		out = append(out, engineResponse{c: c, status: status, body: body})
	}
	return out
}

// TestMutationSuiteDefaultWorkload runs the mutation suite over every case of the default
// workload, with expected responses computed by the embedded engine: each response must pass
// its own check, every failing mutation must fail with exactly its class (caught), and every
// harmless one must pass. It logs the counts per operator.
func TestMutationSuiteDefaultWorkload(t *testing.T) {
	type tally struct{ applied, mustFail, caught, mustPass, passed int }
	perOperator := map[string]*tally{}
	perOp := map[string]int{}
	var total tally
	errors := 0
	responses := defaultEngineResponses(t)
	for _, r := range responses {
		x, err := Compile(r.status, r.body)
		if err != nil {
			t.Fatalf("%s: the engine's response does not compile: %v\n%s", r.c.Name, err, r.body)
		}
		if res := x.Check(r.status, r.body, &Options{Pedantic: true}); !res.Pass || len(res.Diffs) != 0 {
			t.Fatalf("%s: the engine's response does not pass itself:\n%s", r.c.Name, res)
		}
		ms, err := Mutations(r.status, r.body)
		if err != nil {
			t.Fatalf("%s: %v", r.c.Name, err)
		}
		for _, m := range ms {
			k := perOperator[m.Operator]
			if k == nil {
				k = &tally{}
				perOperator[m.Operator] = k
			}
			perOp[r.c.Op]++
			err := VerifyMutation(x, m)
			for _, k := range []*tally{k, &total} {
				k.applied++
				if m.MustPass() {
					k.mustPass++
					if err == nil {
						k.passed++
					}
				} else {
					k.mustFail++
					if err == nil {
						k.caught++
					}
				}
			}
			if err != nil {
				errors++
				if errors <= 50 {
					t.Errorf("%s: %v", r.c.Name, err)
				}
			}
		}
	}
	if errors > 50 {
		t.Errorf("… and %d more mutations mishandled", errors-50)
	}
	if total.applied == 0 || total.caught != total.mustFail || total.passed != total.mustPass {
		t.Errorf("%d mutations applied: %d of %d failing ones caught, %d of %d harmless ones passed",
			total.applied, total.caught, total.mustFail, total.passed, total.mustPass)
	}
	var ops []string
	for op := range perOperator {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	var b strings.Builder
	for _, op := range ops {
		k := perOperator[op]
		fmt.Fprintf(&b, "\n  %-34s applied %5d", op, k.applied)
		if k.mustFail > 0 {
			fmt.Fprintf(&b, "  must fail %5d  caught %5d", k.mustFail, k.caught)
		}
		if k.mustPass > 0 {
			fmt.Fprintf(&b, "  must pass %5d  passed %5d", k.mustPass, k.passed)
		}
	}
	t.Logf("%d cases, %d mutations applied (by operation %v): %d must fail, %d caught (%.1f%%); %d must pass, %d passed; %d mishandled; by operator:%s",
		len(responses), total.applied, perOp, total.mustFail, total.caught, 100*float64(total.caught)/float64(max(total.mustFail, 1)),
		total.mustPass, total.passed, errors, b.String())
}

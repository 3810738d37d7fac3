package conformance

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/conform-dev/conform/fixtures"
	"github.com/conform-dev/conform/oracle/engine"
)

// TestMutationSuiteDefaultWorkload runs the mutation suite over every case of the default
// workload, with expected responses computed by the embedded engine: each response must pass
// its own check, every failing mutation must fail with exactly its class, and every harmless
// one must pass.
func TestMutationSuiteDefaultWorkload(t *testing.T) {
	fx := fixtures.Default()
	index := fx.Workload.Index
	eng := engine.New()
	if err := eng.Load(index, fx.Mapping, fx.Docs); err != nil {
		t.Fatalf("loading the default corpus into the embedded engine: %v", err)
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
	mutations, failing, errors := 0, 0, 0
	perOp := map[string]int{}
	for _, c := range cases {
		var after json.RawMessage
		if c.After != "" {
			if after = lastSort[c.After]; after == nil {
				t.Fatalf("%s: page case %s gave no sort values to continue from", c.Name, c.After)
			}
		}
		req, err := c.Request(index, "true", after)
		if err != nil {
			t.Fatal(err)
		}
		status, body := eng.Do(req.Method, req.Path, req.Body)
		if status == http.StatusNotImplemented {
			t.Fatalf("embedded engine not available: %s %s answered 501: %s", req.Method, req.Path, body)
		}
		x, err := Compile(status, body)
		if err != nil {
			t.Fatalf("%s: the engine's response does not compile: %v\n%s", c.Name, err, body)
		}
		if r := x.Check(status, body, &Options{Pedantic: true}); !r.Pass || len(r.Diffs) != 0 {
			t.Fatalf("%s: the engine's response does not pass itself:\n%s", c.Name, r)
		}
		if c.Op == fixtures.OpPage {
			root, _ := parse(body)
			if hits := root.member("hits").member("hits"); hits != nil && len(hits.elems) > 0 {
				if s := hits.elems[len(hits.elems)-1].member("sort"); s != nil {
					lastSort[c.Name] = json.RawMessage(s.raw)
				}
			}
		}
		ms, err := Mutations(status, body)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		for _, m := range ms {
			mutations++
			perOp[c.Op]++
			if !m.MustPass() {
				failing++
			}
			if err := VerifyMutation(x, m); err != nil {
				errors++
				if errors <= 50 {
					t.Errorf("%s: %v", c.Name, err)
				}
			}
		}
	}
	if errors > 50 {
		t.Errorf("… and %d more mutations mishandled", errors-50)
	}
	t.Logf("%d cases, %d mutations (%d must fail, %d must pass), by operation %v: %d mishandled",
		len(cases), mutations, failing, mutations-failing, perOp, errors)
}

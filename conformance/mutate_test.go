package conformance

import (
	"fmt"
	"sort"
	"strings"
	"testing"
)

// TestMutationSuite runs every mutation of every test response through the check: each
// failing mutation must fail with exactly its class, each harmless one must pass (and report
// exactly its report-only class, failing only on it under pedantic).
func TestMutationSuite(t *testing.T) {
	ops := map[string]int{}
	total, failing := 0, 0
	for _, r := range loadResponses(t) {
		x, err := Compile(r.status, r.body)
		if err != nil {
			t.Fatalf("%s: %v", r.name, err)
		}
		if res := x.Check(r.status, r.body, &Options{Pedantic: true}); !res.Pass || len(res.Diffs) != 0 {
			t.Errorf("%s: the expected response does not pass itself:\n%s", r.name, res)
		}
		ms, err := Mutations(r.status, r.body)
		if err != nil {
			t.Fatalf("%s: %v", r.name, err)
		}
		for _, m := range ms {
			total++
			if !m.MustPass() {
				failing++
			}
			ops[m.Operator]++
			if err := VerifyMutation(x, m); err != nil {
				t.Errorf("%s: %v", r.name, err)
			}
		}
	}
	var names []string
	for op, n := range ops {
		names = append(names, fmt.Sprintf("%s=%d", op, n))
	}
	sort.Strings(names)
	t.Logf("%d mutations (%d must fail, %d must pass) from %d operators: %s", total, failing, total-failing, len(ops), strings.Join(names, " "))
}

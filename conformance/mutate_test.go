package conformance

import (
	"fmt"
	"sort"
	"strings"
	"testing"
)

// TestMutationSuite runs every mutation of every test response through the check: each
// failing mutation must fail with exactly its class, each harmless one must pass (and report
// exactly its report-only class, failing only on it under pedantic). It also requires every
// operator the suite promises to have been applied somewhere, so an operator that silently
// stops applying fails the test.
func TestMutationSuite(t *testing.T) {
	applied := map[string]int{} // "operator class"
	total, failing, mishandled := 0, 0, 0
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
			label := m.Class
			if m.MustPass() {
				label = "pass"
			} else {
				failing++
			}
			applied[m.Operator+" "+string(label)]++
			if err := VerifyMutation(x, m); err != nil {
				mishandled++
				t.Errorf("%s: %v", r.name, err)
			}
		}
	}
	for _, want := range []string{
		"drop-hit ids", "swap-hits ids", "duplicate-hit ids", "change-id ids",
		"change-source-field sources", "drop-source-field sources", "add-source-field sources", "null-source-field sources",
		"int-to-float sources", "float-to-int sources", "string-to-number sources", "number-to-string sources",
		"float32-widen sources", "float-to-int sort", "float32-widen sort", "change-sort-value sort",
		"int-to-float totals", "drop-relation totals", "flip-relation totals", "total+1 totals", "total-1 totals",
		"drop-total totals", "total-as-int totals", "change-count totals",
		"reorder-buckets aggregations", "change-bucket-key aggregations", "change-doc-count aggregations",
		"drop-sum-other-doc-count aggregations", "float32-narrow aggregations", "int-to-float aggregations",
		"flip-found found", "status-404 status", "status-500 status", "status-200 status",
		"change-error-type error", "change-root-cause-type error", "change-score score", "truncate decode",
		"reorder-keys pass", "change-took pass", "change-shards pass", "escape-unicode pass", "pretty pass",
		"change-score pass", "change-version pass", "change-reason pass",
	} {
		if applied[want] == 0 {
			t.Errorf("no mutation %q was applied to the test responses", want)
		}
	}
	var names []string
	for op, n := range applied {
		names = append(names, fmt.Sprintf("%s=%d", op, n))
	}
	sort.Strings(names)
	t.Logf("%d mutations: %d must fail, %d must pass; %d mishandled; %d operator/class pairs: %s",
		total, failing, total-failing, mishandled, len(applied), strings.Join(names, ", "))
}

// MutationsWhere makes exactly the mutations Mutations makes that keep accepts, in the same
// order: a proxy asking for one kind gets what the suite checks.
func TestMutationsWhereFilters(t *testing.T) {
	for _, r := range loadResponses(t) {
		all, err := Mutations(r.status, r.body)
		if err != nil {
			t.Fatal(err)
		}
		for _, pick := range []struct{ op, class, reported string }{
			{"int-to-float", "sources", ""}, {"status-500", "status", ""}, {"pretty", "", ""}, {"reorder-keys", "", "key_order"}, {"truncate", "decode", ""},
		} {
			keep := func(op string, class, reported Class) bool {
				return op == pick.op && string(class) == pick.class && string(reported) == pick.reported
			}
			got, err := MutationsWhere(r.status, r.body, keep)
			if err != nil {
				t.Fatal(err)
			}
			var want []Mutation
			for _, m := range all {
				if keep(m.Operator, m.Class, m.Reported) {
					want = append(want, m)
				}
			}
			if len(got) != len(want) {
				t.Fatalf("%s, %v: %d mutations, want %d", r.name, pick, len(got), len(want))
			}
			for i := range got {
				if got[i].String() != want[i].String() || string(got[i].Body) != string(want[i].Body) || got[i].Status != want[i].Status {
					t.Errorf("%s, %v: mutation %d is %s, want %s", r.name, pick, i, got[i], want[i])
				}
			}
		}
	}
}

package oracle

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/conform-dev/conform/fixtures"
	"github.com/tidwall/gjson"
)

func TestComputeResolvesCasesInWorkloadOrder(t *testing.T) {
	fe := &fakeEngine{index: "cat", docs: fakeDocs()}
	w := fakeWorkload()
	x, err := Compute(context.Background(), w, Settings{}, fe.do)
	if err != nil {
		t.Fatal(err)
	}
	if x.Settings.Index != "cat" || x.Settings.TrackTotalHits != "true" {
		t.Errorf("settings defaults = %+v, want index cat and track_total_hits true", x.Settings)
	}
	if len(x.Cases) != len(w.Cases) {
		t.Fatalf("%d expectations for %d cases", len(x.Cases), len(w.Cases))
	}
	for i, c := range w.Cases {
		if x.Cases[i].Request.Case != c.Name {
			t.Errorf("expectation %d is %s, want %s (workload order)", i, x.Cases[i].Request.Case, c.Name)
		}
		if x.Get(c.Name) != &x.Cases[i] {
			t.Errorf("Get(%s) does not return the case's expectation", c.Name)
		}
	}
	if x.Get("get/999") != nil {
		t.Error("Get of an unknown case is not nil")
	}
	if got := x.Get("get/001").Status; got != 404 {
		t.Errorf("missing document: status %d, want the engine's 404 as the expected answer", got)
	}
	// The after case precedes its page in the workload and still continues from the page's
	// last hit, a2 with sort [2,2].
	after := x.Get("after/000")
	if got := gjson.GetBytes(after.Request.Body, "search_after").Raw; got != "[2,2]" {
		t.Errorf("after/000 search_after = %s, want [2,2] from page/000's last hit; body %s", got, after.Request.Body)
	}
	if got := gjson.GetBytes(after.Request.Body, "track_total_hits").Raw; got != "true" {
		t.Errorf("after/000 track_total_hits = %q, want true", got)
	}
	if ids := hitIDs(after.Body); ids != "a3,a4" {
		t.Errorf("after/000 hits = %s, want a3,a4", ids)
	}
	if w := x.Warnings(); len(w) != 0 {
		t.Errorf("unexpected warnings: %q", w)
	}
}

func hitIDs(body []byte) string {
	var ids []string
	for _, h := range gjson.GetBytes(body, "hits.hits").Array() {
		ids = append(ids, h.Get("_id").String())
	}
	return strings.Join(ids, ",")
}

func TestComputeTieWarnings(t *testing.T) {
	// Group B sorted: b1[10] b2[20] b3[20] b4[30] b5[40] b6[40].
	sorted := `"query":{"term":{"group":"B"}},"sort":[{"k":"asc"}]`
	tests := []struct {
		name, body string
		want       []string // substrings, one per expected warning
		probes     int
		reason     string
	}{
		{"page/unique", `{"size":2,"query":{"term":{"group":"A"}},"sort":[{"k":"asc"}]}`, nil, 1,
			"A's keys are unique: a full page is probed but nothing ties"},
		{"page/end", `{"size":2,` + sorted + `}`, []string{"the last hit (position 2) and the next match have equal sort values [20]"}, 1,
			"b2 ends the page and b3 has the same key"},
		{"page/clean", `{"size":3,` + sorted + `}`, nil, 1, "b3 [20] and b4 [30] differ"},
		{"page/start", `{"size":2,"from":2,` + sorted + `}`, []string{"the first hit (position 3) and the hit before it have equal sort values [20]"}, 1,
			"b3 starts the page and b2 before it has the same key; b4|b5 do not tie"},
		{"page/both", `{"size":2,"from":2,` + `"query":{"term":{"group":"B"}},"sort":[{"k":"asc"}]}`, []string{"first hit (position 3)"}, 1,
			"same as start: the end boundary b4|b5 differs"},
		{"page/both-ends", `{"size":3,"from":2,` + sorted + `}`, []string{"first hit (position 3)", "last hit (position 5) and the next match have equal sort values [40]"}, 1,
			"b3..b5: b2|b3 and b5|b6 both tie"},
		{"page/short", `{"size":20,` + sorted + `}`, nil, 0, "fewer hits than size from 0: nothing to probe"},
		{"page/score", `{"size":2,"query":{"term":{"group":"B"}}}`, []string{"equal _score 0.0"}, 1,
			"without a sort every hit scores 0.0, so hits tie on _score"},
		{"page/none", `{"size":2,"query":{"term":{"group":"Z"}},"sort":[{"k":"asc"}]}`, nil, 0, "no hits, no probe"},
		{"counts/agg", `{"size":0,"query":{"term":{"group":"B"}}}`, nil, 0, "size 0 has no hits"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fe := &fakeEngine{index: "cat", docs: fakeDocs()}
			w := &fixtures.Workload{Format: fixtures.WorkloadFormat, Index: "cat", Cases: []fixtures.Case{searchCase(tt.name, tt.body, "")}}
			x, err := Compute(context.Background(), w, Settings{}, fe.do)
			if err != nil {
				t.Fatal(err)
			}
			got := x.Cases[0].Warnings
			if len(got) != len(tt.want) {
				t.Fatalf("%s: warnings %q, want %d (%s)", tt.name, got, len(tt.want), tt.reason)
			}
			for i, sub := range tt.want {
				if !strings.Contains(got[i], sub) {
					t.Errorf("warning %d = %q, want it to contain %q (%s)", i, got[i], sub, tt.reason)
				}
			}
			if probes := len(fe.searches()) - 1; probes != tt.probes {
				t.Errorf("%d probe searches, want %d (%s)", probes, tt.probes, tt.reason)
			}
			for _, w := range x.Warnings() {
				if !strings.HasPrefix(w, tt.name+": ") {
					t.Errorf("Expectations.Warnings entry %q does not name its case", w)
				}
			}
		})
	}
}

func TestComputeProbeWindow(t *testing.T) {
	fe := &fakeEngine{index: "cat", docs: fakeDocs()}
	w := &fixtures.Workload{Format: fixtures.WorkloadFormat, Index: "cat", Cases: []fixtures.Case{
		searchCase("page/x", `{"size":2,"from":2,"query":{"term":{"group":"B"}},"sort":[{"k":"asc"}]}`, "")}}
	if _, err := Compute(context.Background(), w, Settings{TrackTotalHits: "false"}, fe.do); err != nil {
		t.Fatal(err)
	}
	s := fe.searches()
	if len(s) != 2 {
		t.Fatalf("%d searches, want the case and one probe", len(s))
	}
	probe := s[1].Body
	if from, size := gjson.GetBytes(probe, "from").Int(), gjson.GetBytes(probe, "size").Int(); from != 1 || size != 4 {
		t.Errorf("probe from %d size %d, want from 1 size 4 (one before, one after a page of 2 at 2); body %s", from, size, probe)
	}
	if got := gjson.GetBytes(probe, "track_total_hits").Raw; got != "false" {
		t.Errorf("probe track_total_hits = %s, want the case's own false", got)
	}
	if got := gjson.GetBytes(probe, "sort").Raw; got != `[{"k":"asc"}]` {
		t.Errorf("probe lost the sort: %s", got)
	}
}

func TestWithWindowQueryString(t *testing.T) {
	r := fixtures.Request{Method: "GET", Path: "/cat/_search?size=5&q=x", Body: nil}
	from, size, err := window(r)
	if err != nil || from != 0 || size != 5 {
		t.Fatalf("window = %d, %d, %v; want 0, 5 from the URL", from, size, err)
	}
	p, err := withWindow(r, 0, 6)
	if err != nil {
		t.Fatal(err)
	}
	if p.Path != "/cat/_search?from=0&q=x&size=6" || p.Body != nil {
		t.Errorf("probe = %s %s, want the window changed in the URL only", p.Path, p.Body)
	}
}

func TestComputeErrors(t *testing.T) {
	sorted := `"sort":[{"k":"asc"}]`
	tests := []struct {
		name   string
		page   string
		do     func(fe *fakeEngine) Doer
		want   []string
		reason string
	}{
		{"page without hits", `{"size":2,"query":{"term":{"group":"Z"}},` + sorted + `}`, nil,
			[]string{"after/000", "page/000", "no hits"}, "an empty page has no last hit to continue from"},
		{"page error", `{"size":2,"fail":"boom",` + sorted + `}`, nil,
			[]string{"after/000", "page/000", "HTTP 400", "illegal_argument_exception: boom"}, "an error answer has no cursor"},
		{"page without sort values", `{"size":2}`, nil,
			[]string{"after/000", "page/000", "no sort values"}, "hits without sort cannot continue"},
		{"transport", `{"size":2,` + sorted + `}`, func(fe *fakeEngine) Doer {
			return func(ctx context.Context, r fixtures.Request) (int, []byte, error) {
				if r.Case == "page/000" {
					return 0, nil, errors.New("connection refused")
				}
				return fe.do(ctx, r)
			}
		}, []string{"page/000", "connection refused"}, "a transport error is fatal and names the case"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fe := &fakeEngine{index: "cat", docs: fakeDocs()}
			w := &fixtures.Workload{Format: fixtures.WorkloadFormat, Index: "cat", Cases: []fixtures.Case{
				searchCase("page/000", tt.page, ""), searchCase("after/000", tt.page, "page/000")}}
			do := Doer(fe.do)
			if tt.do != nil {
				do = tt.do(fe)
			}
			_, err := Compute(context.Background(), w, Settings{}, do)
			if err == nil {
				t.Fatalf("no error (%s)", tt.reason)
			}
			for _, sub := range tt.want {
				if !strings.Contains(err.Error(), sub) {
					t.Errorf("error %q does not contain %q (%s)", err, sub, tt.reason)
				}
			}
		})
	}
}

func TestComputeCancelled(t *testing.T) {
	fe := &fakeEngine{index: "cat", docs: fakeDocs()}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Compute(ctx, fakeWorkload(), Settings{}, fe.do); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

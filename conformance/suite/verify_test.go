package suite_test

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/conform-dev/conform/conformance"
	"github.com/conform-dev/conform/conformance/suite"
	"github.com/conform-dev/conform/oracle"
)

// Verify's outcomes: the embedded oracle against a "live" Elasticsearch that is the embedded
// engine served over HTTP, with one fault injected into the first aggregation's answer
// (terms/000).
func TestVerify(t *testing.T) {
	fx := smallFixtures(t)
	search := func(r *http.Request, _ []byte) bool { return strings.HasSuffix(r.URL.Path, "/_search") }
	replace := func(old, new string) fault {
		return func(w http.ResponseWriter, status int, body []byte) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			w.Write(bytes.Replace(body, []byte(old), []byte(new), 1))
		}
	}
	for _, tc := range []struct {
		name     string
		f        fault
		opts     conformance.Options
		mismatch string // the case that differs, or ""
		diff     string // its one difference
		checked  bool
		reported string // a class counted by ReportedOnly
	}{
		{name: "the same engine agrees", checked: true},
		{name: "a live total that is a lower bound", f: replace(`"relation":"eq"`, `"relation":"gte"`),
			mismatch: "terms/000", diff: `totals hits.total.relation: want "gte", got "eq"`, checked: true},
		{name: "a live status that differs", f: func(w http.ResponseWriter, _ int, body []byte) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusServiceUnavailable)
			w.Write(body)
		}, mismatch: "terms/000", diff: "status HTTP status: want 503, got 200", checked: true},
		{name: "a live _shards that differs is reported, not a mismatch", f: replace(`"total":1,`, `"total":2,`),
			checked: true, reported: "shards"},
		{name: "a live _shards that differs is a mismatch under pedantic", f: replace(`"total":1,`, `"total":2,`),
			opts: conformance.Options{Pedantic: true}, mismatch: "terms/000", diff: "shards _shards.total: want 2, got 1", checked: true},
		{name: "a live answer that is not JSON cannot be checked", f: func(w http.ResponseWriter, status int, _ []byte) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			w.Write([]byte("not json"))
		}, mismatch: "terms/000", diff: "the live answer cannot be checked: ", checked: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var once sync.Once
			match := func(r *http.Request, b []byte) bool {
				hit := false
				if search(r, b) && bytes.Contains(b, []byte(`"size":0,"aggs"`)) {
					once.Do(func() { hit = true })
				}
				return hit
			}
			live := &oracle.Live{Endpoint: suite.Endpoint(parse(t, faulty(t, fx, match, tc.f).URL))}
			v, err := suite.Verify(context.Background(), fx, oracle.Settings{Index: fx.Workload.Index, TrackTotalHits: "true"}, live, &tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(v.Checks) != len(fx.Workload.Cases) {
				t.Errorf("%d cases checked, want all %d", len(v.Checks), len(fx.Workload.Cases))
			}
			if tc.mismatch == "" {
				if len(v.Mismatches) != 0 {
					t.Fatalf("mismatches %+v, want none", v.Mismatches)
				}
			} else {
				if len(v.Mismatches) != 1 || v.Mismatches[0].Case != tc.mismatch {
					t.Fatalf("mismatches %+v, want one on %s", v.Mismatches, tc.mismatch)
				}
				m := v.Mismatches[0]
				if len(m.Differences) != 1 || !strings.HasPrefix(m.Differences[0], tc.diff) {
					t.Errorf("differences %q, want one starting %q", m.Differences, tc.diff)
				}
				c := v.Checks[m.Case]
				if c.Checked != tc.checked || (c.CompileErr != nil) == tc.checked || c.Lines != 1 {
					t.Errorf("check %+v, want checked %v and one line", c, tc.checked)
				}
				if own := v.Own(m); len(own) != 0 {
					t.Errorf("Own %q: every difference is the check's", own)
				}
			}
			if tc.reported != "" && v.ReportedOnly()[tc.reported] != 1 {
				t.Errorf("ReportedOnly %v, want %s on one case", v.ReportedOnly(), tc.reported)
			}
		})
	}
}

// Where names a difference's place as conformance.Render does.
func TestWhere(t *testing.T) {
	for _, tc := range []struct {
		d    conformance.Difference
		want string
		why  string
	}{
		{conformance.Difference{Class: conformance.ClassTotals, Path: "hits.total.value"}, "hits.total.value", "a path"},
		{conformance.Difference{Class: conformance.ClassStatus}, "HTTP status", "a status has no path"},
		{conformance.Difference{Class: "other"}, "body", "the whole body"},
	} {
		if got := suite.Where(&tc.d); got != tc.want {
			t.Errorf("%s: Where = %q, want %q", tc.why, got, tc.want)
		}
	}
}

// A live page that cannot be continued stops the verification: there is no cursor to ask
// its after case with.
func TestVerifyLivePageWithoutCursor(t *testing.T) {
	fx := smallFixtures(t)
	var once sync.Once
	first := func(r *http.Request, _ []byte) bool {
		hit := false
		if strings.HasSuffix(r.URL.Path, "/_search") {
			once.Do(func() { hit = true })
		}
		return hit
	}
	unavailable := func(w http.ResponseWriter, _ int, body []byte) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write(body)
	}
	live := &oracle.Live{Endpoint: suite.Endpoint(parse(t, faulty(t, fx, first, unavailable).URL))}
	_, err := suite.Verify(context.Background(), fx, oracle.Settings{Index: fx.Workload.Index, TrackTotalHits: "true"}, live, &conformance.Options{})
	if want := "case after/000 continues page/000: page/000 answered HTTP 503, so it has no cursor to continue from"; err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("error %v, want one ending %q", err, want)
	}
}

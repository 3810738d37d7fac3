package runner

import (
	"bytes"
	"testing"
	"time"
)

// Each event rewrites the line with the failures so far and the time left at the rate of the
// finished steps; Done clears it.
func TestProgressDisplay(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	now := t0
	var b bytes.Buffer
	d := NewProgressDisplay(&b)
	d.now, d.started = func() time.Time { return now }, t0
	for _, tc := range []struct {
		reason string
		after  time.Duration
		ev     Event
		want   string
	}{
		{"no step finished: no estimate", 0, Event{Trial: 1, Trials: 3, Op: "get", Clients: 1, Target: "es", Done: 0, Total: 12},
			"\r\033[K[0/12] trial 1/3 get    1 client   es           failed 0  eta 0s"},
		{"3 of 12 steps in 30 s: 90 s left", 30 * time.Second, Event{Trial: 1, Trials: 3, Op: "page", Clients: 8, Target: "gateway", Done: 3, Total: 12, Failed: 2},
			"\r\033[K[3/12] trial 1/3 page   8 clients  gateway      failed 2  eta 1m30s"},
		{"failures add up over the events", 40 * time.Second, Event{Trial: 2, Trials: 3, Op: "terms", Clients: 1, Target: "os", Done: 4, Total: 12, Failed: 1},
			"\r\033[K[4/12] trial 2/3 terms  1 client   os           failed 3  eta 1m20s"},
	} {
		b.Reset()
		now = t0.Add(tc.after)
		d.Event(tc.ev)
		if b.String() != tc.want {
			t.Errorf("%s: wrote %q, want %q", tc.reason, b.String(), tc.want)
		}
	}
	b.Reset()
	d.Done()
	if b.String() != "\r\033[K" {
		t.Errorf("Done wrote %q, want the line cleared", b.String())
	}
	// A nil display shows nothing and does not panic.
	var none *ProgressDisplay
	none.Event(Event{Done: 1, Total: 2})
	none.Done()
}

// A progress log writes whole lines: the first event's, then at most one per LogEvery, and
// Done writes nothing.
func TestProgressLog(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	now := t0
	var b bytes.Buffer
	d := NewProgressLog(&b)
	d.now, d.started = func() time.Time { return now }, t0
	ev := Event{Trial: 1, Trials: 3, Op: "get", Clients: 1, Target: "es", Total: 12}
	for _, after := range []time.Duration{time.Second, 5 * time.Second, 11 * time.Second, 12 * time.Second, 21 * time.Second} {
		now = t0.Add(after)
		ev.Done++
		d.Event(ev)
	}
	d.Done()
	want := "[1/12] trial 1/3 get    1 client   es           failed 0  eta 11s\n" +
		"[3/12] trial 1/3 get    1 client   es           failed 0  eta 33s\n" +
		"[5/12] trial 1/3 get    1 client   es           failed 0  eta 29s\n"
	if b.String() != want {
		t.Errorf("wrote\n%q\nwant\n%q", b.String(), want)
	}
}

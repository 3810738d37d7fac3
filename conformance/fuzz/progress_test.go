package fuzz

import (
	"bytes"
	"testing"
	"time"
)

// On a terminal every Progress rewrites one line, which Done clears; elsewhere a line is
// written only once 10 s have passed since the last (or since the display was made), and
// Done writes nothing.
func TestProgressDisplay(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	p1 := Progress{Requests: 250, Disagreements: 1, Elapsed: 2*time.Second + 400*time.Millisecond}
	p2 := Progress{Requests: 5000, Disagreements: 3, Elapsed: 12 * time.Second}
	line1 := "fuzz: 250 requests, 1 disagreement, 104 requests/s, 2s"
	line2 := "fuzz: 5000 requests, 3 disagreements, 417 requests/s, 12s"
	for _, tc := range []struct {
		reason   string
		terminal bool
		at       []time.Duration // when each of p1, p2 arrives, after the display is made
		want     string
	}{
		{"a terminal: each rewrites the line, Done clears it", true, []time.Duration{time.Second, 2 * time.Second},
			"\r\033[K" + line1 + "\r\033[K" + line2 + "\r\033[K"},
		{"not a terminal: nothing before 10 s", false, []time.Duration{time.Second, 9 * time.Second}, ""},
		{"not a terminal: a line once 10 s have passed, then 10 s after it", false, []time.Duration{10 * time.Second, 19 * time.Second},
			line1 + "\n"},
		{"not a terminal: a line every 10 s", false, []time.Duration{10 * time.Second, 20 * time.Second},
			line1 + "\n" + line2 + "\n"},
	} {
		var b bytes.Buffer
		now := t0
		d := NewProgressDisplay(&b, tc.terminal)
		d.now, d.last = func() time.Time { return now }, t0
		for i, p := range []Progress{p1, p2} {
			now = t0.Add(tc.at[i])
			d.Show(p)
		}
		d.Done()
		if b.String() != tc.want {
			t.Errorf("%s: wrote %q, want %q", tc.reason, b.String(), tc.want)
		}
	}
	// A nil display shows nothing and does not panic.
	var d *ProgressDisplay
	d.Show(p1)
	d.Done()
	// On a terminal, Done clears nothing when no line was shown.
	var b bytes.Buffer
	NewProgressDisplay(&b, true).Done()
	if b.Len() != 0 {
		t.Errorf("Done with nothing shown wrote %q", b.String())
	}
}

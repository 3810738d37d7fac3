package fuzz

import (
	"fmt"
	"io"
	"strconv"
	"time"
)

// ProgressDisplay shows a run's Progress (requests, disagreements, rate, elapsed time) on w,
// usually stderr: on a terminal one line rewritten in place, otherwise a line every 10 s.
// A nil *ProgressDisplay shows nothing.
type ProgressDisplay struct {
	w        io.Writer
	terminal bool
	now      func() time.Time
	last     time.Time
	shown    bool
}

// NewProgressDisplay shows progress on w; terminal says whether w is one.
func NewProgressDisplay(w io.Writer, terminal bool) *ProgressDisplay {
	return &ProgressDisplay{w: w, terminal: terminal, now: time.Now, last: time.Now()}
}

// Show is a Config's Progress.
func (d *ProgressDisplay) Show(p Progress) {
	if d == nil {
		return
	}
	line := fmt.Sprintf("fuzz: %d requests, %s, %s requests/s, %s", p.Requests, plural(p.Disagreements, "disagreement"), strconv.FormatFloat(p.Rate(), 'f', 0, 64), p.Elapsed.Round(time.Second))
	if d.terminal {
		fmt.Fprintf(d.w, "\r\033[K%s", line)
		d.shown = true
		return
	}
	if now := d.now(); now.Sub(d.last) >= 10*time.Second {
		d.last = now
		fmt.Fprintln(d.w, line)
	}
}

// Done clears the terminal's progress line, if one was shown, before the report is printed.
func (d *ProgressDisplay) Done() {
	if d != nil && d.shown {
		fmt.Fprint(d.w, "\r\033[K")
	}
}

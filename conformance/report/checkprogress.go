package report

import (
	"fmt"
	"io"
	"time"

	"github.com/conform-dev/conform/conformance/suite"
)

// CheckProgress shows how far a check is on w (stderr): on a terminal one line rewritten in
// place (at most ten times a second), otherwise a line every 10 s, so a log shows a long
// check moving. A nil *CheckProgress shows nothing.
type CheckProgress struct {
	w        io.Writer
	terminal bool
	now      func() time.Time
	last     time.Time
	shown    bool
}

// NewCheckProgress shows progress on w; terminal says whether w is one.
func NewCheckProgress(w io.Writer, terminal bool) *CheckProgress {
	return &CheckProgress{w: w, terminal: terminal, now: time.Now, last: time.Now()}
}

// Show is a suite.Checker's Progress.
func (d *CheckProgress) Show(p suite.Progress) {
	if d == nil {
		return
	}
	every := 10 * time.Second
	if d.terminal {
		every = 100 * time.Millisecond
	}
	now := d.now()
	if now.Sub(d.last) < every && p.Done < p.Total {
		return
	}
	d.last = now
	line := fmt.Sprintf("check: %d of %d cases, %d failed, %s", p.Done, p.Total, p.Failed, p.Elapsed.Round(time.Second))
	if d.terminal {
		fmt.Fprintf(d.w, "\r\033[K%s", line)
		d.shown = true
		return
	}
	if p.Done < p.Total { // the summary follows the last case
		fmt.Fprintln(d.w, line)
	}
}

// Done clears the terminal's progress line, if one was shown, before the summary is printed.
func (d *CheckProgress) Done() {
	if d != nil && d.shown {
		fmt.Fprint(d.w, "\r\033[K")
	}
}

package runner

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/conform-dev/conform/conformance/report"
)

// ProgressDisplay shows where a run or an experiment is on one line of a terminal, rewritten
// after every Event (or, made by NewProgressLog, as a line now and then in a log): the step, the trial, the cell and target, the failures so far and an
// estimate of the time left (the elapsed time per finished step times the steps left). A nil
// *ProgressDisplay shows nothing.
type ProgressDisplay struct {
	w       io.Writer
	now     func() time.Time
	started time.Time
	failed  int
	// lines, for a writer that is not a terminal, prints a plain line at most every
	// LogEvery instead of rewriting one; last is when it last did.
	lines bool
	last  time.Time
}

// LogEvery is how often a progress log (NewProgressLog) writes a line.
const LogEvery = 10 * time.Second

// NewProgressDisplay shows progress on w, a terminal, from now on.
func NewProgressDisplay(w io.Writer) *ProgressDisplay {
	return &ProgressDisplay{w: w, now: time.Now, started: time.Now()}
}

// NewProgressLog shows progress on w when it is not a terminal (a CI log, a file): the same
// line as NewProgressDisplay's, written whole after the first event and then at most every
// LogEvery, so a long run is seen moving without filling the log.
func NewProgressLog(w io.Writer) *ProgressDisplay {
	return &ProgressDisplay{w: w, now: time.Now, started: time.Now(), lines: true}
}

// Event is a Run's Progress.
func (d *ProgressDisplay) Event(ev Event) {
	if d == nil {
		return
	}
	d.failed += ev.Failed
	elapsed := d.now().Sub(d.started)
	eta := time.Duration(0)
	if ev.Done > 0 {
		eta = time.Duration(float64(elapsed) / float64(ev.Done) * float64(ev.Total-ev.Done))
	}
	line := fmt.Sprintf("[%d/%d] trial %d/%d %-6s %-10s %-12s failed %d  eta %s",
		ev.Done, ev.Total, ev.Trial, ev.Trials, ev.Op, report.ClientsLabel([]int{ev.Clients}), ev.Target, d.failed, eta.Round(time.Second))
	if !d.lines {
		fmt.Fprintf(d.w, "\r\033[K%s", line)
		return
	}
	if now := d.now(); d.last.IsZero() || now.Sub(d.last) >= LogEvery {
		d.last = now
		fmt.Fprintln(d.w, strings.TrimRight(line, " "))
	}
}

// Done clears the line before the summary is printed (a log has no line to clear).
func (d *ProgressDisplay) Done() {
	if d != nil && !d.lines {
		fmt.Fprint(d.w, "\r\033[K")
	}
}

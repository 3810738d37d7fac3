package runner

import (
	"fmt"
	"io"
	"time"

	"github.com/conform-dev/conform/conformance/report"
)

// ProgressDisplay shows where a run or an experiment is on one line of a terminal, rewritten
// after every Event: the step, the trial, the cell and target, the failures so far and an
// estimate of the time left (the elapsed time per finished step times the steps left). A nil
// *ProgressDisplay shows nothing.
type ProgressDisplay struct {
	w       io.Writer
	now     func() time.Time
	started time.Time
	failed  int
}

// NewProgressDisplay shows progress on w, a terminal, from now on.
func NewProgressDisplay(w io.Writer) *ProgressDisplay {
	return &ProgressDisplay{w: w, now: time.Now, started: time.Now()}
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
	fmt.Fprintf(d.w, "\r\033[K[%d/%d] trial %d/%d %-6s %-10s %-12s failed %d  eta %s",
		ev.Done, ev.Total, ev.Trial, ev.Trials, ev.Op, report.ClientsLabel([]int{ev.Clients}), ev.Target, d.failed, eta.Round(time.Second))
}

// Done clears the line before the summary is printed.
func (d *ProgressDisplay) Done() {
	if d != nil {
		fmt.Fprint(d.w, "\r\033[K")
	}
}

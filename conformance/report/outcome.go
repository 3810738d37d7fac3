package report

import (
	"fmt"
	"strings"

	"github.com/conform-dev/conform/conformance/experiment"
	"github.com/conform-dev/conform/conformance/readiness"
)

// A report's title and first line say its outcome, the word a user looks for first (PASSED,
// FAILED, INCOMPLETE; an experiment's ADOPT, REJECT, NO CHANGE, INCOMPLETE), then the
// figures that make it so: "FAILED: 12 of 6000 responses failed (sources 12)".

// PlannedResponses is the measured responses a run plans: targets x operations x
// concurrency levels x trials x requests.
func (r *Results) PlannedResponses() int {
	s := r.Settings
	return len(r.Targets) * len(s.Ops) * len(s.Clients) * s.Trials * s.Requests
}

// Outcome is a run's result in one line, the title of its report.md and report.html.
func Outcome(r *Results) string {
	n := r.Counts()
	failed := ""
	if n.Failed > 0 {
		failed = fmt.Sprintf("%d of %d responses failed (%s)", n.Failed, n.Measured, ClassCounts(n.ByClass))
	}
	var apart []string
	if n.WarmupFailed > 0 {
		apart = append(apart, plural(n.WarmupFailed, "warmup response", "warmup responses"))
	}
	if n.ReadinessFailed > 0 {
		apart = append(apart, "the readiness case")
	}
	if !r.Complete {
		s := fmt.Sprintf("INCOMPLETE: %d of %d planned responses measured", n.Measured, r.PlannedResponses())
		if n.Failed > 0 {
			s += fmt.Sprintf(", %d failed (%s)", n.Failed, ClassCounts(n.ByClass))
		}
		return s + ": " + oneLine(r.Incomplete)
	}
	var rest string
	switch {
	case failed != "" && len(apart) > 0:
		rest = fmt.Sprintf("%s; %s failed too", failed, strings.Join(apart, " and "))
	case failed != "":
		rest = failed
	case len(apart) > 0:
		rest = fmt.Sprintf("%s failed the check; all %d measured responses passed", strings.Join(apart, " and "), n.Measured)
	}
	// A readiness finding fails a run whose responses all passed (the finding comes first, as
	// it does in the report).
	if k := len(r.Findings); k > 0 {
		kinds := map[string]bool{}
		var names []string
		for _, f := range r.Findings {
			if !kinds[f.Kind] {
				kinds[f.Kind] = true
				names = append(names, f.Kind)
			}
		}
		head := fmt.Sprintf("%s (%s)", readiness.Plural(k, "readiness finding"), strings.Join(names, ", "))
		if rest == "" {
			rest = fmt.Sprintf("all %d responses passed the check", n.Measured)
		}
		return "FAILED: " + head + "; " + rest
	}
	if rest != "" {
		return "FAILED: " + rest
	}
	return fmt.Sprintf("PASSED: all %d responses passed the check", n.Measured)
}

// oneLine keeps the first line of a message, for a title.
func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return strings.TrimSpace(s[:i]) + " …"
	}
	return s
}

// Headline is an experiment's verdict in one line, the title of its report.md and
// report.html: "REJECT grpc: page@8 regressed +9.1%", "ADOPT grpc: 3 of 10 cells improved,
// none regressed, every response passed", "NO CHANGE: no cell changed beyond 2%; 6 of 10
// cells undecided", "INCOMPLETE: 0 of 12 rounds finished, nothing decided: before round 1:
// interrupted (Ctrl-C) ...".
func (x *Experiment) Headline() string {
	a := x.Analysis
	cells := len(a.Cells)
	switch a.Verdict {
	case experiment.Reject:
		var parts []string
		for _, c := range a.Cells {
			if c.Class == experiment.Regressed {
				parts = append(parts, fmt.Sprintf("%v %+.1f%%", c.Key, 100*c.Change()))
			}
		}
		var why []string
		if len(parts) > 0 {
			shown := parts
			if len(shown) > 4 {
				shown = append(shown[:4:4], fmt.Sprintf("and %d more", len(parts)-4))
			}
			why = append(why, fmt.Sprintf("%d of %d cells regressed (%s)", len(parts), cells, strings.Join(shown, ", ")))
		}
		var failed []string
		for _, v := range []experiment.Variant{experiment.Baseline, experiment.Candidate} {
			if n := a.Failures[v]; n > 0 {
				failed = append(failed, fmt.Sprintf("%s %d", x.label(v), n))
			}
		}
		if len(failed) > 0 {
			why = append(why, fmt.Sprintf("responses failed the check (%s)", strings.Join(failed, ", ")))
		}
		var found []string
		for _, v := range []experiment.Variant{experiment.Baseline, experiment.Candidate} {
			if n := len(a.Findings[v]); n > 0 {
				found = append(found, fmt.Sprintf("%s %d", x.label(v), n))
			}
		}
		if len(found) > 0 {
			why = append(why, fmt.Sprintf("readiness findings (%s)", strings.Join(found, ", ")))
		}
		return fmt.Sprintf("REJECT %s: %s", x.Candidate, strings.Join(why, "; "))
	case experiment.Adopt:
		return fmt.Sprintf("ADOPT %s: %d of %d cells improved, none regressed, every response passed", x.Candidate, a.Count(experiment.Improved), cells)
	case experiment.Incomplete:
		planned := fmt.Sprint(x.PlannedRounds)
		if x.PlannedRounds == 0 {
			planned = "the planned"
		}
		return fmt.Sprintf("INCOMPLETE: %d of %s rounds finished, nothing decided: %s", len(x.Rounds), planned, oneLine(x.Results.Incomplete))
	}
	s := fmt.Sprintf("NO CHANGE: no cell changed beyond %.0f%%", 100*a.Threshold)
	if n := a.Count(experiment.Undecided); n > 0 {
		s += fmt.Sprintf("; %d of %d cells undecided (their intervals reach past ±%.0f%%), %d shown within it", n, cells, 100*a.Threshold, a.Count(experiment.NoChange))
	} else {
		s += fmt.Sprintf("; every cell shown within ±%.0f%%", 100*a.Threshold)
	}
	return s
}

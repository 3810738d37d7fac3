package report

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/conform-dev/conform/conformance/experiment"
)

// VerdictFile is the experiment's machine-readable verdict.
const VerdictFile = "verdict.json"

// Experiment is what an experiment's report shows: the merged results of every round, the
// rounds themselves and the analysis.
type Experiment struct {
	Results   *Results
	Baseline  string // labels
	Candidate string
	Natives   []string
	Rounds    []RoundInfo
	Analysis  *experiment.Result
	// PlannedRounds is the rounds the plan has (a sequential plan's most).
	PlannedRounds int
	// PlannedResponses is the plan's count: rounds x targets x cells x trials x requests.
	// MeasuredResponses is what was measured (passed + failed over every round that ran),
	// less than planned when the experiment stopped early.
	PlannedResponses, MeasuredResponses int
	// WarmUps are the warm-ups to a steady state that preceded rounds.
	WarmUps []WarmUp
}

// RoundInfo is one round as the report lists it.
type RoundInfo struct {
	Round      int       `json:"round"`
	Role       string    `json:"role"`
	Label      string    `json:"label"`
	StartedAt  time.Time `json:"started_at"`
	FinishedAt time.Time `json:"finished_at"`
	Switch     string    `json:"switch,omitempty"`
}

// Verdict is verdict.json.
type Verdict struct {
	Verdict           string         `json:"verdict"`
	PlannedRounds     int            `json:"planned_rounds"`
	MeasuredResponses int            `json:"measured_responses"`
	PlannedResponses  int            `json:"planned_responses"`
	Baseline          string         `json:"baseline"`
	Candidate         string         `json:"candidate"`
	Method            string         `json:"method"`
	Alpha             float64        `json:"alpha"`
	Threshold         float64        `json:"threshold"`
	Rounds            []RoundInfo    `json:"rounds"`
	Cells             []VerdictCell  `json:"cells"`
	Reasons           []string       `json:"reasons"`
	Failures          map[string]int `json:"failures"`
	// NativeFaster counts, per variant label and native, the cells where the native was faster.
	NativeFaster map[string]map[string]int `json:"native_faster"`
	Warnings     []string                  `json:"warnings"`
	Complete     bool                      `json:"complete"`
}

// VerdictCell is one cell of verdict.json. Ratio is candidate/baseline latency; Low and High
// its interval; PValue the cell's test and PHolm after Holm over all cells. A cell that could
// not be tested has null ratio and p-values and a note.
type VerdictCell struct {
	Op                   string   `json:"op"`
	Clients              int      `json:"clients"`
	BaselineMedianP50Ms  float64  `json:"baseline_median_p50_ms"`
	CandidateMedianP50Ms float64  `json:"candidate_median_p50_ms"`
	Ratio                *float64 `json:"ratio"`
	Low                  *float64 `json:"ratio_low"`
	High                 *float64 `json:"ratio_high"`
	PValue               *float64 `json:"p_value"`
	PHolm                *float64 `json:"p_holm"`
	Class                string   `json:"class"`
	Note                 string   `json:"note,omitempty"`
}

func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

func msOf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// UniqueWarnings joins lists of warnings, each once, in order (an analysis repeats its
// rounds' warnings among its own; merged rounds repeat each other's).
func UniqueWarnings(lists ...[]string) []string {
	out := []string{}
	seen := map[string]bool{}
	for _, l := range lists {
		for _, w := range l {
			if !seen[w] {
				seen[w] = true
				out = append(out, w)
			}
		}
	}
	return out
}

// VerdictOf builds verdict.json.
func VerdictOf(x *Experiment) Verdict {
	a := x.Analysis
	v := Verdict{Verdict: string(a.Verdict), PlannedRounds: x.PlannedRounds, MeasuredResponses: x.MeasuredResponses, PlannedResponses: x.PlannedResponses, Baseline: x.Baseline, Candidate: x.Candidate,
		Method: a.Method, Alpha: a.Alpha, Threshold: a.Threshold, Rounds: x.Rounds, Reasons: a.Reasons,
		Failures: map[string]int{}, NativeFaster: map[string]map[string]int{}, Warnings: UniqueWarnings(a.Warnings, a.Rounds.Warnings),
		Complete: x.Results.Complete, Cells: []VerdictCell{}}
	if v.Rounds == nil {
		v.Rounds = []RoundInfo{}
	}
	if v.Reasons == nil {
		v.Reasons = []string{}
	}
	for variant, n := range a.Failures {
		v.Failures[x.label(variant)] = n
	}
	for variant, m := range a.NativeFaster {
		v.NativeFaster[x.label(variant)] = m
	}
	for _, c := range a.Cells {
		v.Cells = append(v.Cells, VerdictCell{Op: c.Key.Op, Clients: c.Key.Clients,
			BaselineMedianP50Ms: msOf(c.Baseline.Median), CandidateMedianP50Ms: msOf(c.Candidate.Median),
			Ratio: finite(c.Ratio), Low: finite(c.Low), High: finite(c.High), PValue: finite(c.P), PHolm: finite(c.PHolm),
			Class: string(c.Class), Note: c.Note})
	}
	return v
}

func (x *Experiment) label(v experiment.Variant) string {
	if v == experiment.Candidate {
		return x.Candidate
	}
	return x.Baseline
}

func (x *Experiment) cellResult(op string, clients int) *experiment.CellResult {
	for i := range x.Analysis.Cells {
		c := &x.Analysis.Cells[i]
		if c.Key.Op == op && c.Key.Clients == clients {
			return c
		}
	}
	return nil
}

// verdictLine is the verdict in one sentence.
func (x *Experiment) verdictLine() string {
	a := x.Analysis
	switch a.Verdict {
	case "adopt":
		return fmt.Sprintf("adopt %s: every response passed the check for both variants, no cell regressed and at least one improved", x.Candidate)
	case "reject":
		return fmt.Sprintf("reject %s", x.Candidate)
	case "incomplete":
		return fmt.Sprintf("incomplete: the experiment stopped before its last round, so it decides nothing about %s", x.Candidate)
	default:
		return fmt.Sprintf("no change: %s is neither significantly better nor worse than %s beyond the %.0f%% threshold", x.Candidate, x.Baseline, a.Threshold*100)
	}
}

// ExperimentMarkdown renders an experiment's report.md.
func ExperimentMarkdown(x *Experiment) []byte {
	var b bytes.Buffer
	a := x.Analysis
	fmt.Fprintf(&b, "# %s\n\nconform experiment, %s against %s.\n\n", x.Headline(), x.Candidate, x.Baseline)
	if !x.Results.Complete {
		fmt.Fprintf(&b, "> **Incomplete experiment**: %s. The analysis covers the rounds that finished.\n\n", x.Results.Incomplete)
	}
	fmt.Fprintf(&b, "**Verdict: %s.**\n\n", x.verdictLine())
	for _, r := range a.Reasons {
		fmt.Fprintf(&b, "- %s\n", r)
	}
	if len(a.Reasons) > 0 {
		b.WriteString("\n")
	}
	var order []string
	for _, r := range x.Rounds {
		order = append(order, fmt.Sprintf("%d %s", r.Round, r.Label))
	}
	fmt.Fprintf(&b, "- Baseline `%s`, candidate `%s`; natives: %s\n", x.Baseline, x.Candidate, orNone(x.Natives))
	fmt.Fprintf(&b, "- Rounds: %s (ABBA blocks; natives in every round)\n", strings.Join(order, ", "))
	fmt.Fprintf(&b, "- Measured responses: %d of %d planned\n", x.MeasuredResponses, x.PlannedResponses)
	fmt.Fprintf(&b, "- Method: %s%s\n\n", a.Method, x.weights())
	writeFindingsMarkdown(&b, x.Results.Findings)
	writeHeader(&b, x.Results)

	names := append([]string{x.Baseline, x.Candidate}, x.Natives...)
	role := func(n string) string {
		switch n {
		case x.Baseline:
			return n + " (baseline)"
		case x.Candidate:
			return n + " (candidate)"
		}
		return n + " (native)"
	}
	clients := clientsHeader(x.Results.Settings.Clients)
	table := func(title, note string, value func(*Cell) string) {
		fmt.Fprintf(&b, "## %s\n\n%s\n\n| Operation |", title, note)
		for _, n := range names {
			fmt.Fprintf(&b, " %s |", role(n))
		}
		fmt.Fprintf(&b, "\n|---|%s\n", strings.Repeat("---|", len(names)))
		for _, op := range x.Results.Settings.Ops {
			fmt.Fprintf(&b, "| %s |", OpLabel(op))
			for _, n := range names {
				fmt.Fprintf(&b, " %s |", cellText(x.Results, n, op, value))
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
	table("Latency p50 (ms)", fmt.Sprintf("The median of a variant's trial p50s over its rounds, %s.", clients),
		func(c *Cell) string { return LatencyText(c, c.MedianP50Ms) })

	b.WriteString("## Candidate against baseline\n\n")
	fmt.Fprintf(&b, "%s\n\n%s\n\n", x.ratioNote(), declarableNote)
	fmt.Fprintf(&b, "| Operation | Clients | %s | %s | ratio | interval | p | p (Holm) | class | smallest declarable change |\n|---|---|---|---|---|---|---|---|---|---|\n", x.Baseline, x.Candidate)
	for _, op := range x.Results.Settings.Ops {
		for _, n := range x.Results.Settings.Clients {
			c := x.cellResult(op, n)
			if c == nil {
				continue
			}
			fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %s | %s | %s | %s %s | %s |\n", OpLabel(op), n, spreadMs(c.Baseline), spreadMs(c.Candidate),
				num(c.Ratio, 3), interval(c.Low, c.High), pval(c.P), pval(c.PHolm), c.Class.Marker(), noted(string(c.Class), c.Note), experiment.DeclarableText(c.MinDeclarable, c.RoundsFor))
		}
	}
	b.WriteString("\n")
	table("Latency p95 (ms)", "Median of the trial p95s over the rounds, "+clients+".", func(c *Cell) string { return LatencyText(c, c.MedianP95Ms) })
	table("Throughput (passed responses/s)", "Median of the trials' throughput over the rounds, "+clients+".", func(c *Cell) string { return fmt.Sprintf("%.0f", c.MedianThroughputRPS) })
	table("Failures", "Responses that failed the check (never timed), "+clients+".", func(c *Cell) string { return fmt.Sprintf("%d", c.Failed) })

	b.WriteString("## Trial p50 range per round (ms)\n\nMinimum–maximum of each round's trial p50s for the round's variant; natives in the same round follow.\n\n")
	b.WriteString("| Round | Target |")
	for _, op := range x.Results.Settings.Ops {
		for _, n := range x.Results.Settings.Clients {
			fmt.Fprintf(&b, " %s @%d |", op, n)
		}
	}
	b.WriteString("\n|---|---|" + strings.Repeat("---|", len(x.Results.Settings.Ops)*len(x.Results.Settings.Clients)) + "\n")
	for _, r := range x.Rounds {
		for _, t := range append([]string{r.Label}, x.Natives...) {
			fmt.Fprintf(&b, "| %d | %s |", r.Round, t)
			for _, op := range x.Results.Settings.Ops {
				for _, n := range x.Results.Settings.Clients {
					fmt.Fprintf(&b, " %s |", roundRange(x.Results.Cell(t, op, n), r.Round))
				}
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("\n")

	writeWarmUpsMarkdown(&b, x.WarmUps)
	if len(x.Natives) > 0 {
		fmt.Fprintf(&b, "## Natives' drift across rounds\n\nEach native's geometric-mean trial p50 in the last round over that in round 1, per cell (1.00 is steady; beyond ±%.0f%% is warned about).\n\n| Native |", 100*experiment.DriftWarning)
		for _, c := range a.Cells {
			fmt.Fprintf(&b, " %v |", c.Key)
		}
		b.WriteString("\n|---|" + strings.Repeat("---|", len(a.Cells)) + "\n")
		for _, n := range x.Natives {
			fmt.Fprintf(&b, "| %s |", n)
			for _, c := range a.Cells {
				d, ok := c.NativeDrift[n]
				if !ok {
					b.WriteString(" – |")
					continue
				}
				fmt.Fprintf(&b, " %.2f |", d)
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
		b.WriteString("## Natives faster\n\nIn how many cells each native engine's median p50 was below the variant's (over that variant's rounds).\n\n| Native |")
		fmt.Fprintf(&b, " than %s | than %s |\n|---|---|---|\n", x.Baseline, x.Candidate)
		for _, n := range x.Natives {
			fmt.Fprintf(&b, "| %s | %d of %d | %d of %d |\n", n, a.NativeFaster[experiment.Baseline][n], len(a.Cells), a.NativeFaster[experiment.Candidate][n], len(a.Cells))
		}
		b.WriteString("\n")
	}
	writeFailures(&b, x.Results)
	warnings := UniqueWarnings(a.Warnings, a.Rounds.Warnings, x.Results.Warnings)
	if len(warnings) > 0 {
		b.WriteString("## Warnings\n\n")
		for _, w := range warnings {
			fmt.Fprintf(&b, "- %s\n", w)
		}
		b.WriteString("\n")
	}
	return b.Bytes()
}

func orNone(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return "`" + strings.Join(xs, "`, `") + "`"
}

func noted(class, note string) string {
	if note != "" {
		return class + " (" + note + ")"
	}
	return class
}

func num(v float64, digits int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "–"
	}
	return fmt.Sprintf("%.*f", digits, v)
}

func interval(lo, hi float64) string {
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return "–"
	}
	return num(lo, 3) + "–" + num(hi, 3)
}

func pval(p float64) string {
	switch {
	case math.IsNaN(p):
		return "–"
	case p < 0.0001:
		return "<0.0001"
	}
	return fmt.Sprintf("%.4f", p)
}

// roundRange is the min–max of a cell's trial p50s in one round.
func roundRange(c *Cell, round int) string {
	if c == nil {
		return "–"
	}
	lo, hi, n := math.Inf(1), math.Inf(-1), 0
	for _, t := range c.Trials {
		if t.Round != round || t.P50Ms == nil {
			continue
		}
		lo, hi, n = math.Min(lo, *t.P50Ms), math.Max(hi, *t.P50Ms), n+1
	}
	if n == 0 {
		return "–"
	}
	return Ms(lo) + "–" + Ms(hi)
}

// ExperimentHTML renders the experiment's report.html: the verdict and the comparison first,
// then the merged run's tables and charts.
func ExperimentHTML(x *Experiment) []byte {
	var pre bytes.Buffer
	a := x.Analysis
	cls := "ok"
	if a.Verdict == "reject" {
		cls = "bad"
	}
	fmt.Fprintf(&pre, "<p class=\"%s\"><strong>Verdict: %s.</strong></p>\n", cls, esc(x.verdictLine()))
	if len(a.Reasons) > 0 {
		pre.WriteString("<ul>")
		for _, r := range a.Reasons {
			fmt.Fprintf(&pre, "<li>%s</li>", esc(r))
		}
		pre.WriteString("</ul>\n")
	}
	var order []string
	for _, r := range x.Rounds {
		order = append(order, fmt.Sprintf("%d %s", r.Round, r.Label))
	}
	fmt.Fprintf(&pre, "<p>Rounds: %s. Measured responses: %d of %d planned. Method: %s%s</p>\n", esc(strings.Join(order, ", ")), x.MeasuredResponses, x.PlannedResponses, esc(a.Method), esc(x.weights()))
	fmt.Fprintf(&pre, "<h2>Candidate against baseline</h2>\n<p>%s</p>\n<p>%s</p>\n", esc(x.ratioNote()), esc(declarableNote))
	fmt.Fprintf(&pre, "<table><tr><th>Operation</th><th>Clients</th><th>%s</th><th>%s</th><th>ratio</th><th>interval</th><th>p</th><th>p (Holm)</th><th>class</th><th>smallest declarable change</th></tr>\n", esc(x.Baseline), esc(x.Candidate))
	for _, op := range x.Results.Settings.Ops {
		for _, n := range x.Results.Settings.Clients {
			c := x.cellResult(op, n)
			if c == nil {
				continue
			}
			mark := ""
			switch c.Class {
			case experiment.Regressed:
				mark = " class=\"bad\""
			case experiment.Improved:
				mark = " class=\"ok\""
			}
			fmt.Fprintf(&pre, "<tr><td>%s</td><td>%d</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td%s>%s %s</td><td>%s</td></tr>\n",
				esc(OpLabel(op)), n, spreadMs(c.Baseline), spreadMs(c.Candidate), num(c.Ratio, 3), interval(c.Low, c.High),
				pval(c.P), pval(c.PHolm), mark, esc(c.Class.Marker()), esc(noted(string(c.Class), c.Note)), esc(experiment.DeclarableText(c.MinDeclarable, c.RoundsFor)))
		}
	}
	pre.WriteString("</table>\n")
	writeWarmUpsHTML(&pre, x.WarmUps)
	if len(x.Natives) > 0 {
		fmt.Fprintf(&pre, "<h2>Natives' drift across rounds</h2>\n<p>Last round's p50 over round 1's, per cell (1.00 is steady; beyond ±%.0f%% is warned about).</p>\n<table><tr><th>Native</th>", 100*experiment.DriftWarning)
		for _, c := range a.Cells {
			fmt.Fprintf(&pre, "<th>%s</th>", esc(c.Key.String()))
		}
		pre.WriteString("</tr>\n")
		for _, n := range x.Natives {
			fmt.Fprintf(&pre, "<tr><td>%s</td>", esc(n))
			for _, c := range a.Cells {
				d, ok := c.NativeDrift[n]
				switch {
				case !ok:
					pre.WriteString("<td>–</td>")
				case d > 1+experiment.DriftWarning || d < 1-experiment.DriftWarning:
					fmt.Fprintf(&pre, "<td class=\"bad\">%.2f</td>", d)
				default:
					fmt.Fprintf(&pre, "<td>%.2f</td>", d)
				}
			}
			pre.WriteString("</tr>\n")
		}
		pre.WriteString("</table>\n")
	}
	warnings := UniqueWarnings(a.Warnings, a.Rounds.Warnings)
	if len(warnings) > 0 {
		pre.WriteString("<div class=\"warn\"><ul>")
		for _, w := range warnings {
			fmt.Fprintf(&pre, "<li>%s</li>", esc(w))
		}
		pre.WriteString("</ul></div>\n")
	}
	return htmlDocument(x.Headline(), fmt.Sprintf("conform experiment, %s against %s", x.Candidate, x.Baseline), x.Results, pre.Bytes())
}

// ratioNote says which way the ratio goes and how a cell is classed.
func (x *Experiment) ratioNote() string {
	a := x.Analysis
	return fmt.Sprintf("The ratio is %s's latency over %s's (candidate/baseline): above 1 the candidate is slower, below 1 faster; "+
		"the interval is its %.0f%% confidence interval, p the cell's p-value and p (Holm) after Holm over all cells. "+
		"A cell is regressed (▲) or improved (▼) when significant with the ratio beyond ±%.0f%%, no-change (=) when its whole interval lies within ±%.0f%%, "+
		"and undecided (?) otherwise: its interval reaches past the threshold, so the rounds cannot tell a change that counts from none.",
		x.Candidate, x.Baseline, (1-a.Alpha)*100, a.Threshold*100, a.Threshold*100)
}

// declarableNote explains the last column of the comparison.
const declarableNote = "The last column is the smallest change the cell could declare with its measured noise (Holm's first step): " +
	"a true change of that size is declared about half the time. Beyond 100% it is said in words, with the rounds that would declare 5%."

// weights is the natives' weights as the method line's tail ("; natives' weight b = ...").
func (x *Experiment) weights() string {
	if w := x.Analysis.NativeWeightsText(); w != "" {
		return "; natives' weight " + w
	}
	return ""
}

// warmUpSummary is one target's warm-up in words: passes, first and last p50, steady or not.
func warmUpSummary(w WarmUp, t WarmTarget) string {
	n := len(t.P50Ms)
	if n == 0 {
		return "no pass finished"
	}
	state := fmt.Sprintf("steady at pass %d", t.SteadyAt)
	if !t.Steady {
		state = fmt.Sprintf("**not steady**: the cap of %d passes was reached", w.MaxPasses)
	}
	return fmt.Sprintf("%d passes, p50 %s → %s ms (geometric mean over cells), %s; %d failed", n, Ms(t.P50Ms[0]), Ms(t.P50Ms[n-1]), state, t.Failed)
}

func writeWarmUpsMarkdown(b *bytes.Buffer, ws []WarmUp) {
	for _, w := range ws {
		fmt.Fprintf(b, "## Warm-up before round %d\n\nPasses of %d requests per cell until each target's p50 stops falling (%d consecutive passes none more than %.0f%% below the best before them), at most %d passes (%s).\n\n| Target | Warm-up | p50 per pass (ms) |\n|---|---|---|\n",
			w.BeforeRound, w.Window, w.Stable-1, 100*w.Tolerance, w.MaxPasses, w.Elapsed.Round(time.Second))
		for _, t := range w.Targets {
			curve := make([]string, len(t.P50Ms))
			for i, v := range t.P50Ms {
				curve[i] = Ms(v)
			}
			fmt.Fprintf(b, "| %s | %s | %s |\n", t.Name, warmUpSummary(w, t), strings.Join(curve, " "))
		}
		b.WriteString("\n")
	}
}

// writeWarmUpsHTML draws each warm-up's curves: one line per target, p50 (geometric mean over
// cells) against the pass, on a log scale so a JVM's fall and a Go target's flat line both
// show.
func writeWarmUpsHTML(b *bytes.Buffer, ws []WarmUp) {
	for _, w := range ws {
		fmt.Fprintf(b, "<h2>Warm-up before round %d</h2>\n<p>Passes of %d requests per cell until each target's p50 stops falling (%d consecutive passes none more than %.0f%% below the best before them), at most %d passes.</p>\n",
			w.BeforeRound, w.Window, w.Stable-1, 100*w.Tolerance, w.MaxPasses)
		lo, hi, passes := math.Inf(1), 0.0, 0
		for _, t := range w.Targets {
			passes = max(passes, len(t.P50Ms))
			for _, v := range t.P50Ms {
				if v > 0 {
					lo, hi = math.Min(lo, v), math.Max(hi, v)
				}
			}
		}
		if passes > 0 && hi > 0 {
			const width, height, left, bottom = 520, 180, 50, 20
			if hi/lo < 1.5 {
				lo, hi = lo/1.2, hi*1.2
			}
			ly, hy := math.Log(lo), math.Log(hi)
			xOf := func(i int) float64 {
				if passes == 1 {
					return left
				}
				return left + float64(i)*float64(width-left-10)/float64(passes-1)
			}
			yOf := func(v float64) float64 { return 10 + (hy-math.Log(v))/(hy-ly)*float64(height-bottom-10) }
			fmt.Fprintf(b, "<svg width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"warm-up curves before round %d\">", width, height, width, height, w.BeforeRound)
			fmt.Fprintf(b, "<text x=\"2\" y=\"14\">%s ms</text><text x=\"2\" y=\"%d\">%s ms</text><text x=\"%d\" y=\"%d\">pass</text>", Ms(hi), height-bottom, Ms(lo), width-40, height-4)
			for i, t := range w.Targets {
				var pts []string
				for p, v := range t.P50Ms {
					if v > 0 {
						pts = append(pts, fmt.Sprintf("%.1f,%.1f", xOf(p), yOf(v)))
					}
				}
				fmt.Fprintf(b, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"%s\"><title>%s</title></polyline>", colour(i), strings.Join(pts, " "), esc(t.Name))
			}
			b.WriteString("</svg>\n")
			names := make([]string, len(w.Targets))
			for i, t := range w.Targets {
				names[i] = t.Name
			}
			legend(b, names)
		}
		b.WriteString("<ul>")
		for _, t := range w.Targets {
			fmt.Fprintf(b, "<li>%s: %s</li>", esc(t.Name), esc(strings.ReplaceAll(warmUpSummary(w, t), "**", "")))
		}
		b.WriteString("</ul>\n")
	}
}

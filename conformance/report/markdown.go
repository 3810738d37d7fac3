package report

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/conform-dev/conform/conformance/readiness"
)

// OpLabels are the operations' names in reports, as DESIGN.md's lab table writes them.
var OpLabels = map[string]string{
	"get":    "Read one document",
	"page":   "Filtered, sorted page",
	"after":  "Page after a sort cursor",
	"terms":  "Keyword terms buckets",
	"counts": "Two filter counts",
}

// OpLabel returns an operation's report label.
func OpLabel(op string) string {
	if l, ok := OpLabels[op]; ok {
		return l
	}
	return op
}

// Ms formats milliseconds the way the lab table does: three decimals.
func Ms(v float64) string { return fmt.Sprintf("%.3f", v) }

// cellText joins one value per concurrency level: "0.377 / 0.784". A cell that was not
// measured (its target failed readiness, or the run stopped before it) is "–".
func cellText(r *Results, target, op string, value func(*Cell) string) string {
	parts := make([]string, 0, len(r.Settings.Clients))
	for _, n := range r.Settings.Clients {
		c := r.Cell(target, op, n)
		if c == nil || len(c.Trials) == 0 {
			parts = append(parts, NotMeasured)
			continue
		}
		parts = append(parts, value(c))
	}
	return strings.Join(parts, " / ")
}

// NotMeasured is a table's text for a cell that was not measured.
const NotMeasured = "–"

// LatencyText is a measured cell's latency v (its median p50, say) as every table shows it:
// the milliseconds; "– (200 failed)" when no response passed, so there is no latency; and,
// when some responses failed, how many passing ones the figure rests on: "0.153 (6 of 200
// passed)".
func LatencyText(c *Cell, v *float64) string {
	switch {
	case v == nil:
		return fmt.Sprintf("– (%d failed)", c.Failed)
	case c.Failed > 0:
		return fmt.Sprintf("%s (%d of %d passed)", Ms(*v), c.Passed, c.Measured())
	}
	return Ms(*v)
}

// LatencyLegend says what a latency table's marks mean.
const LatencyLegend = legendNotMeasured + "; " + legendNoLatency + "; " + legendFew

const (
	legendNotMeasured = "– not measured"
	legendNoLatency   = "– (N failed): no response passed, so no latency"
	legendFew         = "(P of M passed): some responses failed; the figure rests on the P that passed"
)

// legendFor says what the marks in a table's texts mean, only those used; "" when none is.
func legendFor(texts []string) string {
	var notMeasured, noLatency, few bool
	for _, t := range texts {
		for _, part := range strings.Split(t, " / ") {
			switch {
			case part == NotMeasured:
				notMeasured = true
			case strings.HasPrefix(part, "– ("):
				noLatency = true
			case strings.HasSuffix(part, " passed)"):
				few = true
			}
		}
	}
	var out []string
	if notMeasured {
		out = append(out, legendNotMeasured)
	}
	if noLatency {
		out = append(out, legendNoLatency)
	}
	if few {
		out = append(out, legendFew)
	}
	return strings.Join(out, "; ")
}

// failedText is a cell's failed responses, each counted once, with the classes beside:
// "200 (ids 200, totals 200)".
func failedText(c *Cell) string {
	if c.Failed == 0 {
		return "0"
	}
	return fmt.Sprintf("%d (%s)", c.Failed, ClassCounts(c.FailuresByClass))
}

// rangeText is a cell's range of trial p50s, "–" when it has none.
func rangeText(c *Cell) string {
	if c.P50RangeMs == nil {
		return "–"
	}
	return Ms(c.P50RangeMs[0]) + "–" + Ms(c.P50RangeMs[1])
}

// TrialsPhrase says how many trials each cell's medians are over: "3 trials" when every
// cell ran the planned trials in full, otherwise the range over the cells and whether a trial
// was cut short ("1 to 2 trials per cell, one cut short").
func TrialsPhrase(r *Results) string {
	lo, hi, short := -1, 0, 0
	for _, c := range r.Cells {
		if len(c.Trials) == 0 {
			continue
		}
		if lo < 0 || len(c.Trials) < lo {
			lo = len(c.Trials)
		}
		hi = max(hi, len(c.Trials))
		for _, t := range c.Trials {
			if t.Incomplete {
				short++
			}
		}
	}
	if lo < 0 {
		return "no trials"
	}
	var s string
	switch {
	case lo == hi && hi == r.Settings.Trials && short == 0:
		return plural(hi, "trial", "trials")
	case lo == hi:
		s = plural(hi, "trial", "trials") + " per cell"
	default:
		s = fmt.Sprintf("%d to %d trials per cell", lo, hi)
	}
	switch short {
	case 0:
	case 1:
		s += ", one cut short"
	default:
		s += fmt.Sprintf(", %d cut short", short)
	}
	return s
}

func clientsHeader(clients []int) string {
	parts := make([]string, len(clients))
	for i, n := range clients {
		if n == 1 {
			parts[i] = "1 client"
		} else {
			parts[i] = fmt.Sprintf("%d clients", n)
		}
	}
	return strings.Join(parts, " / ")
}

// Markdown renders report.md: its first line the run's outcome (Outcome), then rows of
// operations, columns of targets, cells one value per concurrency level.
func Markdown(r *Results) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s\n\nconform run.\n\n", Outcome(r))
	if !r.Complete {
		fmt.Fprintf(&b, "> **Incomplete run**: %s. %s\n\n", r.Incomplete, incompleteNote(r))
	}
	writeFindingsMarkdown(&b, r.Findings)
	writeHeader(&b, r)

	names := targetNames(r)
	table := func(title, note string, value func(*Cell) string) {
		fmt.Fprintf(&b, "## %s\n\n%s\n\n", title, note)
		fmt.Fprintf(&b, "| Operation | %s |\n|---|%s\n", strings.Join(names, " | "), strings.Repeat("---|", len(names)))
		for _, op := range r.Settings.Ops {
			row := make([]string, len(names))
			for i, t := range names {
				row[i] = cellText(r, t, op, value)
			}
			fmt.Fprintf(&b, "| %s | %s |\n", OpLabel(op), strings.Join(row, " | "))
		}
		b.WriteString("\n")
	}
	clients := clientsHeader(r.Settings.Clients)
	table("Latency p50 (ms)", fmt.Sprintf("Median of the trial p50s of passing responses (%s), %s. %s.", TrialsPhrase(r), clients, upper(LatencyLegend)),
		func(c *Cell) string { return LatencyText(c, c.MedianP50Ms) })
	table("Latency p95 (ms)", fmt.Sprintf("Median of the trial p95s, %s.", clients),
		func(c *Cell) string { return LatencyText(c, c.MedianP95Ms) })
	table("Throughput (passed responses/s)", fmt.Sprintf("Median of the trials' passed responses per second of wall time, %s.", clients),
		func(c *Cell) string { return fmt.Sprintf("%.0f", c.MedianThroughputRPS) })
	if r.HasClientCPU() {
		table("Measuring cost (µs of CPU per response)", fmt.Sprintf("%s; %s.", upper(ClientCPUNote), clients), clientCPUText)
	}
	table("Failures", fmt.Sprintf("Measured responses that failed the check (never timed), each counted once, with the classes they failed beside (a response once under each), %s.", clients),
		failedText)
	table("Trial p50 range (ms)", fmt.Sprintf("Minimum–maximum of the trial p50s, %s.", clients), rangeText)

	writeFailures(&b, r)
	if len(r.Warnings) > 0 {
		b.WriteString("## Warnings\n\n")
		for _, w := range r.Warnings {
			fmt.Fprintf(&b, "- %s\n", w)
		}
		b.WriteString("\n")
	}
	return b.Bytes()
}

// clientCPUText is a cell's median client CPU per response, "–" when not recorded.
func clientCPUText(c *Cell) string {
	us, ok := c.MedianClientCPUUs()
	if !ok {
		return "–"
	}
	return fmt.Sprintf("%.1f", us)
}

// upper capitalises a sentence's first letter.
func upper(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// incompleteNote says what an incomplete run's cells hold.
func incompleteNote(r *Results) string {
	if r.TrialsMeasured() == 0 {
		return "Nothing was measured."
	}
	for _, c := range r.Cells {
		for _, t := range c.Trials {
			if t.Incomplete {
				return fmt.Sprintf("The cells hold the trials finished before it stopped, and trial %d of %s at %s on %s, cut short: %s.",
					t.Trial, c.Op, plural(c.Clients, "client", "clients"), c.Target, plural(t.Passed+t.Failed, "response measured", "responses measured"))
			}
		}
	}
	return "The cells hold the trials finished before it stopped."
}

// writeFindingsMarkdown writes readiness's findings first, before anything measured: the
// target's data or mapping is not the fixtures', and the tables below show what it does.
func writeFindingsMarkdown(b *bytes.Buffer, fs []readiness.Finding) {
	if len(fs) == 0 {
		return
	}
	fmt.Fprintf(b, "## Readiness findings\n\n%s: the run went on, and each fails it.\n\n", upper(readiness.Plural(len(fs), "finding")))
	for _, f := range fs {
		fmt.Fprintf(b, "- **%s** %s: %s\n", mdEscape(f.Target), f.Kind, mdEscape(f.Summary))
		for _, d := range f.Details {
			fmt.Fprintf(b, "  - %s\n", mdEscape(d))
		}
	}
	b.WriteString("\n")
}

func writeHeader(b *bytes.Buffer, r *Results) {
	fmt.Fprintf(b, "- Started %s", r.StartedAt.UTC().Format("2006-01-02 15:04:05 UTC"))
	if !r.FinishedAt.IsZero() {
		fmt.Fprintf(b, ", finished %s (%s)", r.FinishedAt.UTC().Format("15:04:05 UTC"), r.FinishedAt.Sub(r.StartedAt).Round(1e9))
	}
	b.WriteString("\n")
	fmt.Fprintf(b, "- Methodology: `%s`\n", r.Methodology)
	s := r.Settings
	fmt.Fprintf(b, "- Settings: requests %d per trial (shared among the clients), trials %d, warmup %d, clients %s, track_total_hits %s, timeout %s, timed layer %s\n",
		s.Requests, s.Trials, s.Warmup, joinInts(s.Clients), s.TrackTotalHits, s.Timeout, s.TimedLayer())
	fmt.Fprintf(b, "- Check: %s\n", strings.Join(s.Check, ", "))
	f := r.Fixtures
	fmt.Fprintf(b, "- Corpus: %d documents, sha256 `%s` (%s)\n", f.Documents, f.CorpusSHA256, f.Source)
	fmt.Fprintf(b, "- Workload: sha256 `%s`; mapping sha256 `%s`\n", f.WorkloadSHA256, f.MappingSHA256)
	fmt.Fprintf(b, "- Oracle: %s, sha256 `%s`\n", r.Oracle.Source, r.Oracle.SHA256)
	for _, t := range r.Targets {
		fmt.Fprintf(b, "- Target `%s`: %s%s\n", t.Name, t.URL, identitySuffix(t))
	}
	fmt.Fprintf(b, "- %s\n\n", upper(r.Counts().Sentence()))
}

func identitySuffix(t Target) string {
	id := IdentityLine(t.Identity)
	if id == "" {
		return ""
	}
	return " — " + id
}

func writeFailures(b *bytes.Buffer, r *Results) {
	if len(r.Failures) == 0 {
		b.WriteString("## Failures kept\n\nNone: every response passed the strict check.\n\n")
		return
	}
	byClass := map[string]int{}
	for _, c := range r.Cells {
		for k, v := range c.FailuresByClass {
			byClass[k] += v
		}
	}
	classes := make([]string, 0, len(byClass))
	for k := range byClass {
		classes = append(classes, k)
	}
	sort.Strings(classes)
	b.WriteString("## Failures kept\n\nBy class over all cells, a response once under each class it failed: ")
	for i, k := range classes {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(b, "%s %d", k, byClass[k])
	}
	b.WriteString(". The first few of each class, whole:\n\n")
	for _, f := range r.Failures {
		trial := fmt.Sprintf("trial %d", f.Trial)
		if f.Phase != "" && f.Phase != PhaseTrial {
			trial = f.Phase
			if f.Phase == PhaseWarmup {
				trial = fmt.Sprintf("warmup of trial %d", f.Trial)
			}
		}
		fmt.Fprintf(b, "### %s on `%s` (%s, %s, %s): %s\n\n", f.Case, f.Target, f.Op, plural(f.Clients, "client", "clients"), trial, f.Class)
		fmt.Fprintf(b, "`%s %s` → status %d", f.Method, f.Path, f.Status)
		if f.Error != "" {
			fmt.Fprintf(b, ", error: %s", f.Error)
		}
		b.WriteString("\n\n")
		if len(f.Diffs) > 0 {
			b.WriteString("| class | path | want | got |\n|---|---|---|---|\n")
			for i, d := range f.Diffs {
				if i == 20 {
					fmt.Fprintf(b, "| … | %d more | | |\n", len(f.Diffs)-20)
					break
				}
				fmt.Fprintf(b, "| %s | `%s` | `%s` | `%s` |\n", d.Class, d.Path, mdEscape(d.Want), mdEscape(d.Got))
			}
			b.WriteString("\n")
		}
		fmt.Fprintf(b, "Reproduce: `conform explain %s --target %s=URL`\n\n", f.Case, f.Target)
	}
}

func mdEscape(s string) string {
	if len(s) > 120 {
		s = s[:117] + "…"
	}
	return strings.NewReplacer("|", `\|`, "`", "'", "\n", " ").Replace(s)
}

func joinInts(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, ",")
}

// targetNames lists the targets in the results' order.
func targetNames(r *Results) []string {
	names := make([]string, len(r.Targets))
	for i, t := range r.Targets {
		names[i] = t.Name
	}
	return names
}

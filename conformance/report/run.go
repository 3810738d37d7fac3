package report

import (
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/conform-dev/conform/internal/buildinfo"
)

// NewManifest is the evidence a run or an experiment (kind) leaves: the tool, the results'
// settings, data and targets, the host, and environment as conformance/lab records it. args
// is the command line; URLs in it lose their credentials.
func NewManifest(kind string, res *Results, environment map[string]map[string]string, created time.Time, args []string) *Manifest {
	return &Manifest{
		Format: ManifestFormat, Kind: kind, Tool: buildinfo.Get(), Methodology: res.Methodology,
		CreatedAt: created, Command: RedactArgs(args), Settings: res.Settings, Fixtures: res.Fixtures,
		Oracle: res.Oracle, Targets: res.Targets, Host: HostFacts(), Environment: environment, Complete: res.Complete,
		Findings: res.Findings,
	}
}

// TrialRecords lists every trial of the results, cell by cell, for the manifest.
func TrialRecords(res *Results) []TrialRecord {
	var out []TrialRecord
	for _, c := range res.Cells {
		for _, t := range c.Trials {
			out = append(out, TrialRecord{Target: c.Target, Op: c.Op, Clients: c.Clients, Trial: t})
		}
	}
	return out
}

// RunSummary writes what `conform run` prints when it is done: the table of median trial
// p50s by operation and target, one column per target with a value per concurrency level,
// the counts of measured, passed and failed responses, and the files written into dir.
func RunSummary(w io.Writer, res *Results, dir string) {
	if len(res.Findings) > 0 {
		fmt.Fprintln(w)
		WriteFindings(w, res.Findings, "the run went on; each finding fails it", false)
	}
	names := targetNames(res)
	if res.TrialsMeasured() == 0 {
		fmt.Fprintf(w, "\np50 latency (ms), %s: nothing was measured\n", ClientsLabel(res.Settings.Clients))
	} else {
		fmt.Fprintf(w, "\np50 latency (ms), median of %s, %s\n", TrialsPhrase(res), ClientsLabel(res.Settings.Clients))
	}
	rows := [][]string{append([]string{"Operation"}, names...)}
	for _, op := range res.Settings.Ops {
		row := []string{OpLabel(op)}
		for _, t := range names {
			row = append(row, cellText(res, t, op, func(c *Cell) string { return LatencyText(c, c.MedianP50Ms) }))
		}
		rows = append(rows, row)
	}
	widths := make([]int, len(rows[0]))
	widths[0] = 24
	for _, row := range rows {
		for i, v := range row {
			widths[i] = max(widths[i], utf8.RuneCountInString(v))
		}
	}
	var texts []string
	fmt.Fprintln(w)
	for _, row := range rows {
		var b strings.Builder
		for i, v := range row {
			if i > 0 {
				b.WriteString("  ")
			}
			b.WriteString(v)
			b.WriteString(strings.Repeat(" ", widths[i]-utf8.RuneCountInString(v)))
		}
		texts = append(texts, row[1:]...)
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
	if l := legendFor(texts[len(names):]); l != "" {
		fmt.Fprintf(w, "%s.\n", l)
	}
	fmt.Fprintf(w, "\n%s.\n", upper(res.Counts().Sentence()))
	if !res.Complete {
		fmt.Fprintf(w, "INCOMPLETE: %s\n", res.Incomplete)
	}
	fmt.Fprintf(w, "Results in %s: %s, %s, %s, %s, %s\n", dir, MarkdownFile, HTMLFile, ResultsFile, ManifestFile, BenchstatFile)
}

// ClientsLabel names concurrency levels: "1 client / 8 clients".
func ClientsLabel(cs []int) string {
	parts := make([]string, len(cs))
	for i, n := range cs {
		if n == 1 {
			parts[i] = "1 client"
		} else {
			parts[i] = fmt.Sprintf("%d clients", n)
		}
	}
	return strings.Join(parts, " / ")
}

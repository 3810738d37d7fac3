package report

import (
	"fmt"
	"io"
	"strings"
	"time"

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
// the counts of passed and failed responses, and the files written into dir.
func RunSummary(w io.Writer, res *Results, dir string) {
	names := targetNames(res)
	fmt.Fprintf(w, "\np50 latency (ms), median of %d trials, %s\n\n", res.Settings.Trials, ClientsLabel(res.Settings.Clients))
	const width = 26
	var b strings.Builder
	fmt.Fprintf(&b, "%-*s", width, "Operation")
	for _, n := range names {
		fmt.Fprintf(&b, "  %-17s", n)
	}
	fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	for _, op := range res.Settings.Ops {
		b.Reset()
		fmt.Fprintf(&b, "%-*s", width, OpLabel(op))
		for _, t := range names {
			var parts []string
			for _, n := range res.Settings.Clients {
				if c := res.Cell(t, op, n); c != nil && len(c.Trials) > 0 {
					parts = append(parts, Ms(c.MedianP50Ms))
				} else {
					parts = append(parts, "–")
				}
			}
			fmt.Fprintf(&b, "  %-17s", strings.Join(parts, " / "))
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
	fmt.Fprintf(w, "\n%d responses passed and were timed; %d failed the check.\n", res.TotalPassed(), res.TotalFailed())
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

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"time"

	"github.com/conform-dev/conform/conformance/experiment"
	"github.com/conform-dev/conform/conformance/report"
)

func cmdCompare(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "compare", "A/results.json B/results.json [--a NAME] [--b NAME] [--force]", `
Compare two runs cell by cell (operation x clients) with the experiment statistics: the ratio
of B's to A's median trial p50 with a distribution-free interval, a rank test on the trial p50s
and Holm over the cells. Each run's trials are its only replication, so drift between the runs
is invisible to the test; for a gate, use "conform experiment", which pairs rounds.

Results are never combined blindly: compare refuses (unless --force) when the two runs differ in
methodology tag, corpus, mapping, workload, oracle or settings, and names the field. With one
target per run the two are compared; otherwise --a and --b pick them, or targets of the same
name in both are compared.

Exit 0 when no cell regressed, 1 when a cell regressed beyond the threshold, 2 on an error or
a refusal.`,
		"conform compare results/monday/results.json results/tuesday/results.json",
		"conform compare base/results.json cand/results.json --a gw --b gw",
		"conform compare a/results.json b/results.json --force   # settings differ; compare anyway",
	)
	nameA := fs.String("a", "", "the target `NAME` to compare in run A")
	nameB := fs.String("b", "", "the target `NAME` to compare in run B")
	force := fs.Bool("force", false, "compare even when the runs' methodology, data, oracle or settings differ")
	threshold := fs.Float64("threshold", experiment.DefaultThreshold, "practical threshold: a change below this fraction counts as none")
	alpha := fs.Float64("alpha", experiment.DefaultAlpha, "family-wise error rate over the cells (Holm)")
	var pos []string
	for len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		pos, args = append(pos, args[0]), args[1:]
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	pos = append(pos, fs.Args()...)
	if len(pos) != 2 {
		return usageErr("compare takes two results.json files, got %d", len(pos))
	}
	a, err := readResultsFile(pos[0])
	if err != nil {
		return err
	}
	b, err := readResultsFile(pos[1])
	if err != nil {
		return err
	}
	if diffs := comparable(a, b); len(diffs) > 0 {
		if !*force {
			return usageErr("refusing to compare runs that differ (results are never combined across these; --force to compare anyway):\n  %s", strings.Join(diffs, "\n  "))
		}
		for _, d := range diffs {
			fmt.Fprintf(e.stderr, "warning: runs differ: %s\n", d)
		}
	}
	pairs, err := pairTargets(a, b, *nameA, *nameB)
	if err != nil {
		return err
	}
	regressed := 0
	for _, p := range pairs {
		res, err := experiment.Compare(trialMap(a, p[0]), trialMap(b, p[1]), experiment.Options{Alpha: *alpha, Threshold: *threshold})
		if err != nil {
			return infra(err)
		}
		printCompare(e.stdout, pos, p, res)
		for _, c := range res.Cells {
			if c.Class == experiment.Regressed {
				regressed++
			}
		}
	}
	if regressed > 0 {
		return failed("%d cells regressed", regressed)
	}
	return nil
}

func readResultsFile(path string) (*report.Results, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, infra(err)
	}
	var r report.Results
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, infra(fmt.Errorf("%s: not a results.json: %v", path, err))
	}
	if r.Format != report.ResultsFormat {
		return nil, infra(fmt.Errorf("%s: format %q, want %q", path, r.Format, report.ResultsFormat))
	}
	return &r, nil
}

// comparable lists every field in which two runs differ and which forbids combining them.
func comparable(a, b *report.Results) []string {
	var out []string
	diff := func(field string, x, y any) {
		if !reflect.DeepEqual(x, y) {
			out = append(out, fmt.Sprintf("%s: %v vs %v", field, fmtAny(x), fmtAny(y)))
		}
	}
	diff("methodology", a.Methodology, b.Methodology)
	diff("fixtures.corpus_sha256", a.Fixtures.CorpusSHA256, b.Fixtures.CorpusSHA256)
	diff("fixtures.mapping_sha256", a.Fixtures.MappingSHA256, b.Fixtures.MappingSHA256)
	diff("fixtures.workload_sha256", a.Fixtures.WorkloadSHA256, b.Fixtures.WorkloadSHA256)
	diff("oracle.sha256", a.Oracle.SHA256, b.Oracle.SHA256)
	sa, sb := a.Settings, b.Settings
	diff("settings.ops", sa.Ops, sb.Ops)
	diff("settings.clients", sa.Clients, sb.Clients)
	diff("settings.requests", sa.Requests, sb.Requests)
	diff("settings.trials", sa.Trials, sb.Trials)
	diff("settings.warmup", sa.Warmup, sb.Warmup)
	diff("settings.track_total_hits", sa.TrackTotalHits, sb.TrackTotalHits)
	diff("settings.timeout", sa.Timeout, sb.Timeout)
	diff("settings.index", sa.Index, sb.Index)
	diff("settings.check", sa.Check, sb.Check)
	diff("settings.layer", sa.TimedLayer(), sb.TimedLayer())
	if !a.Complete {
		out = append(out, "run A is incomplete: "+a.Incomplete)
	}
	if !b.Complete {
		out = append(out, "run B is incomplete: "+b.Incomplete)
	}
	return out
}

func fmtAny(v any) string {
	if s, ok := v.(string); ok {
		if len(s) > 16 {
			return s[:12] + "…"
		}
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprint(v)
}

func targetNamesOf(r *report.Results) []string {
	var out []string
	for _, t := range r.Targets {
		out = append(out, t.Name)
	}
	return out
}

func pairTargets(a, b *report.Results, nameA, nameB string) ([][2]string, error) {
	ta, tb := targetNamesOf(a), targetNamesOf(b)
	switch {
	case nameA != "" || nameB != "":
		if nameA == "" || nameB == "" {
			return nil, usageErr("--a and --b go together")
		}
		if !contains(ta, nameA) {
			return nil, usageErr("run A has no target %q (it has %s)", nameA, strings.Join(ta, ", "))
		}
		if !contains(tb, nameB) {
			return nil, usageErr("run B has no target %q (it has %s)", nameB, strings.Join(tb, ", "))
		}
		return [][2]string{{nameA, nameB}}, nil
	case len(ta) == 1 && len(tb) == 1:
		return [][2]string{{ta[0], tb[0]}}, nil
	}
	var pairs [][2]string
	for _, n := range ta {
		if contains(tb, n) {
			pairs = append(pairs, [2]string{n, n})
		}
	}
	if len(pairs) == 0 {
		return nil, usageErr("no target is in both runs (A: %s; B: %s): pick them with --a and --b", strings.Join(ta, ", "), strings.Join(tb, ", "))
	}
	return pairs, nil
}

// trialMap gives each cell of a target its trial p50s.
func trialMap(r *report.Results, name string) map[experiment.CellKey][]time.Duration {
	out := map[experiment.CellKey][]time.Duration{}
	for _, c := range r.Cells {
		if c.Target != name {
			continue
		}
		k := experiment.CellKey{Op: c.Op, Clients: c.Clients}
		for _, t := range c.Trials {
			if t.Passed > 0 {
				out[k] = append(out[k], time.Duration(t.P50Ms*float64(time.Millisecond)))
			}
		}
	}
	return out
}

func printCompare(w io.Writer, files []string, pair [2]string, res *experiment.CompareResult) {
	fmt.Fprintf(w, "A = %s in %s\nB = %s in %s\n%s\n\n", pair[0], files[0], pair[1], files[1], res.Method)
	fmt.Fprintf(w, "%-26s %7s %9s %9s %7s %-17s %8s %8s  %s\n", "Operation", "clients", "A p50", "B p50", "B/A", "interval", "p", "p(Holm)", "class")
	for _, c := range res.Cells {
		iv := "–"
		if c.Low == c.Low && c.High == c.High { // not NaN
			iv = fmt.Sprintf("%.3f–%.3f (%.0f%%)", c.Low, c.High, c.Confidence*100)
		}
		note := ""
		if c.Note != "" {
			note = " (" + c.Note + ")"
		}
		fmt.Fprintf(w, "%-26s %7d %9s %9s %7s %-17s %8s %8s  %s %s%s\n", report.OpLabel(c.Key.Op), c.Key.Clients,
			report.Ms(float64(c.A.Median)/1e6), report.Ms(float64(c.B.Median)/1e6), fmtRatio(c.Ratio), iv, fmtP(c.P), fmtP(c.PHolm), c.Class.Marker(), c.Class, note)
	}
	for _, warn := range res.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warn)
	}
	fmt.Fprintln(w)
}

func fmtRatio(v float64) string {
	if v != v {
		return "–"
	}
	return fmt.Sprintf("%.3f", v)
}

func fmtP(p float64) string {
	if p != p {
		return "–"
	}
	if p < 0.0001 {
		return "<0.0001"
	}
	return fmt.Sprintf("%.4f", p)
}

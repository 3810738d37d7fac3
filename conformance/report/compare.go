package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/conform-dev/conform/conformance/experiment"
)

// ReadResults reads a results.json and refuses any other format.
func ReadResults(path string) (*Results, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Results
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: not a results.json: %v", path, err)
	}
	if r.Format != ResultsFormat {
		return nil, fmt.Errorf("%s: format %q, want %q", path, r.Format, ResultsFormat)
	}
	return &r, nil
}

// Incomparable lists every field in which two runs differ and which forbids combining them
// (methodology, the fixtures' and the oracle's hashes, the settings), and each run that is
// incomplete. An empty list means the two may be compared.
func Incomparable(a, b *Results) []string {
	var out []string
	diff := func(field string, x, y any) {
		if !reflect.DeepEqual(x, y) {
			out = append(out, fmt.Sprintf("%s: %v vs %v", field, shortValue(x), shortValue(y)))
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

// shortValue prints a value of Incomparable: a long string (a hash) cut to 12 characters.
func shortValue(v any) string {
	if s, ok := v.(string); ok {
		if len(s) > 16 {
			return s[:12] + "…"
		}
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprint(v)
}

// TargetNames lists the targets in the results' order.
func (r *Results) TargetNames() []string { return targetNames(r) }

// PairTargets picks the targets of runs a and b to compare, each pair a name in a and a name
// in b: nameA with nameB when they are given (both or neither), the only target of each run
// when each has one, or else every name the two runs share, in a's order. No pairs and no
// error mean the runs share no target.
func PairTargets(a, b *Results, nameA, nameB string) ([][2]string, error) {
	ta, tb := a.TargetNames(), b.TargetNames()
	switch {
	case nameA != "" || nameB != "":
		if nameA == "" || nameB == "" {
			return nil, errors.New("name a target of both runs or of neither")
		}
		if !slices.Contains(ta, nameA) {
			return nil, fmt.Errorf("run A has no target %q (it has %s)", nameA, strings.Join(ta, ", "))
		}
		if !slices.Contains(tb, nameB) {
			return nil, fmt.Errorf("run B has no target %q (it has %s)", nameB, strings.Join(tb, ", "))
		}
		return [][2]string{{nameA, nameB}}, nil
	case len(ta) == 1 && len(tb) == 1:
		return [][2]string{{ta[0], tb[0]}}, nil
	}
	var pairs [][2]string
	for _, n := range ta {
		if slices.Contains(tb, n) {
			pairs = append(pairs, [2]string{n, n})
		}
	}
	return pairs, nil
}

// TrialP50s gives each cell of the named target its trial p50s, the trials without a passing
// response left out: experiment.Compare's input.
func (r *Results) TrialP50s(name string) map[experiment.CellKey][]time.Duration {
	out := map[experiment.CellKey][]time.Duration{}
	for _, c := range r.Cells {
		if c.Target != name {
			continue
		}
		k := experiment.CellKey{Op: c.Op, Clients: c.Clients}
		for _, t := range c.Trials {
			if t.P50Ms != nil {
				out[k] = append(out[k], time.Duration(*t.P50Ms*float64(time.Millisecond)))
			}
		}
	}
	return out
}

// CompareText writes `conform compare`'s table for one pair of targets: target pair[0] of the
// run in files[0] (A) against pair[1] of files[1] (B), a row per cell with both medians, the
// ratio B/A with its interval, the p-values before and after Holm, and the class.
func CompareText(w io.Writer, files [2]string, pair [2]string, res *experiment.CompareResult) {
	fmt.Fprintf(w, "A = %s in %s\nB = %s in %s\n%s\n\n", pair[0], files[0], pair[1], files[1], res.Method)
	width := 26 // a workload's own labels may be longer than the built-in operations' names
	for _, c := range res.Cells {
		width = max(width, len(OpLabel(c.Key.Op)))
	}
	fmt.Fprintf(w, "%-*s %7s %9s %9s %7s %-17s %8s %8s  %s\n", width, "Operation", "clients", "A p50", "B p50", "B/A", "interval", "p", "p(Holm)", "class")
	for _, c := range res.Cells {
		iv := "–"
		if c.Low == c.Low && c.High == c.High { // not NaN
			iv = fmt.Sprintf("%.3f–%.3f (%.0f%%)", c.Low, c.High, c.Confidence*100)
		}
		var notes []string
		if c.Class == experiment.Failures {
			notes = append(notes, fmt.Sprintf("responses failed the check, measured, warmup and readiness: %d in A, %d in B", c.FailedA, c.FailedB))
		}
		if c.Note != "" {
			notes = append(notes, c.Note)
		}
		note := ""
		if len(notes) > 0 {
			note = " (" + strings.Join(notes, "; ") + ")"
		}
		fmt.Fprintf(w, "%-*s %7d %9s %9s %7s %-17s %8s %8s  %s %s%s\n", width, OpLabel(c.Key.Op), c.Key.Clients,
			spreadMs(c.A), spreadMs(c.B), ratio(c.Ratio), iv, pval(c.P), pval(c.PHolm), c.Class.Marker(), c.Class, note)
	}
	for _, warn := range res.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warn)
	}
	if n := res.Failed(); n > 0 {
		fmt.Fprintf(w, "%s: responses failed the strict check there, so their latencies describe only the responses that passed; they are not called unchanged.\n", plural(n, "cell is classed failures", "cells are classed failures"))
	}
	fmt.Fprintln(w)
}

// FlagFailures marks the cells of a comparison of target pair[0] of run a with pair[1] of
// run b in which a response failed the check (CellFailed), as experiment.Failures.
func FlagFailures(res *experiment.CompareResult, a, b *Results, pair [2]string) {
	res.FlagFailures(func(k experiment.CellKey) (int, int) {
		return a.CellFailed(pair[0], k.Op, k.Clients), b.CellFailed(pair[1], k.Op, k.Clients)
	})
}

// spreadMs prints a run's median trial p50 in a compared cell, – when it has none.
func spreadMs(s experiment.Spread) string {
	if s.Trials == 0 {
		return "–"
	}
	return Ms(float64(s.Median) / 1e6)
}

// ratio prints a ratio to three decimals, or – when there is none.
func ratio(v float64) string {
	if v != v {
		return "–"
	}
	return fmt.Sprintf("%.3f", v)
}

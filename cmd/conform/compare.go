package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/conform-dev/conform/conformance/experiment"
	"github.com/conform-dev/conform/conformance/report"
)

func cmdCompare(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "compare", "A/results.json B/results.json [--a NAME] [--b NAME] [--force]", `
Compare two runs cell by cell (operation x clients) with the experiment statistics: the ratio
of B's to A's median trial p50 with a distribution-free interval, a rank test on the trial p50s
and Holm over the cells. A cell is regressed or improved when significant beyond --threshold,
no-change when its whole interval lies within it, undecided when the interval reaches past it
(the trials cannot tell). Each run's trials are its only replication, so drift between the runs
is invisible to the test; for a gate, use "conform experiment", which pairs rounds.

Results are never combined blindly: compare refuses (unless --force) when the two runs differ in
methodology tag, corpus, mapping, workload, oracle or settings, and names the field. With one
target per run the two are compared; otherwise --a and --b pick them, or targets of the same
name in both are compared.

A cell in which a response of either run failed the strict check (measured, warmup or the
readiness case) is classed "failures", whatever its latencies say: they describe only the
responses that passed, so such a cell is never called no-change, undecided, improved or regressed.

Exit 0 when no cell regressed and no cell is classed failures; 1 when a cell regressed beyond
the threshold or any compared cell had a failed response; 2 on an error or a refusal.`,
		"conform compare results/monday/results.json results/tuesday/results.json",
		"conform compare base/results.json cand/results.json --a gw --b gw",
		"conform compare a/results.json b/results.json --force   # settings differ; compare anyway",
	)
	nameA := fs.String("a", "", "the target `NAME` to compare in run A")
	nameB := fs.String("b", "", "the target `NAME` to compare in run B")
	force := fs.Bool("force", false, "compare even when the runs' methodology, data, oracle or settings differ")
	threshold := fs.Float64("threshold", experiment.DefaultThreshold, "practical threshold: a change below this fraction counts as none; a cell whose interval lies within it is no-change, one whose interval reaches past it undecided")
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
	if diffs := report.Incomparable(a, b); len(diffs) > 0 {
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
	regressed, failures := 0, 0
	for _, p := range pairs {
		res, err := experiment.Compare(a.TrialP50s(p[0]), b.TrialP50s(p[1]), experiment.Options{Alpha: *alpha, Threshold: *threshold})
		if err != nil {
			return infra(err)
		}
		report.FlagFailures(res, a, b, p)
		report.CompareText(e.stdout, [2]string{pos[0], pos[1]}, p, res)
		regressed += res.Regressed()
		failures += res.Failed()
	}
	switch {
	case regressed > 0 && failures > 0:
		return failed("%s regressed, and %s responses that failed the check", cells(regressed), cells(failures)+" had")
	case regressed > 0:
		return failed("%s regressed", cells(regressed))
	case failures > 0:
		return failed("%s had responses that failed the check (class failures): their latencies are not comparable", cells(failures))
	}
	return nil
}

// cells counts cells: "1 cell", "3 cells".
func cells(n int) string {
	if n == 1 {
		return "1 cell"
	}
	return fmt.Sprintf("%d cells", n)
}

func readResultsFile(path string) (*report.Results, error) {
	r, err := report.ReadResults(path)
	return r, infra(err)
}

// pairTargets is report.PairTargets with --a and --b checked first and an empty pairing
// refused: both are usage errors.
func pairTargets(a, b *report.Results, nameA, nameB string) ([][2]string, error) {
	if (nameA == "") != (nameB == "") {
		return nil, usageErr("--a and --b go together")
	}
	pairs, err := report.PairTargets(a, b, nameA, nameB)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	if len(pairs) == 0 {
		return nil, usageErr("no target is in both runs (A: %s; B: %s): pick them with --a and --b", strings.Join(a.TargetNames(), ", "), strings.Join(b.TargetNames(), ", "))
	}
	return pairs, nil
}

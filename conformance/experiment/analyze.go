package experiment

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"time"
)

// Defaults of Options.
const (
	DefaultAlpha     = 0.05
	DefaultThreshold = 0.02
)

// Options tunes the analysis. The zero value means the defaults.
type Options struct {
	// Alpha is the family-wise error rate over all cells (Holm), 0.05 by default.
	Alpha float64
	// Threshold is the practical threshold: a significant change of the candidate/baseline
	// ratio smaller than this fraction (0.02 = 2%) counts as no change. Zero means the
	// default; to count every significant change, give a tiny positive value.
	Threshold float64

	// NativeWeight is the weight of the native engines as controls: each round's mean log
	// p50 of the variant is reduced by this weight times the natives' mean log p50 in the
	// same round. nil means DefaultNativeWeight; 0 ignores the natives. Choose it before the
	// experiment (Noise.NativeWeight from recorded A/A runs), never from its results.
	NativeWeight *float64

	// method overrides the test, for the simulator's comparison of candidates.
	method method
}

func (o Options) withDefaults() Options {
	if o.Alpha == 0 {
		o.Alpha = DefaultAlpha
	}
	if o.Threshold == 0 {
		o.Threshold = DefaultThreshold
	}
	if o.method == nil {
		o.method = o.roundMethod()
	}
	return o
}

func (o Options) validate() error {
	if !(o.Alpha > 0 && o.Alpha < 1) {
		return fmt.Errorf("experiment: alpha %v outside (0, 1)", o.Alpha)
	}
	if !(o.Threshold >= 0 && o.Threshold < 1) {
		return fmt.Errorf("experiment: threshold %v outside [0, 1)", o.Threshold)
	}
	if w := o.NativeWeight; w != nil && !(*w >= 0 && *w <= 1) {
		return fmt.Errorf("experiment: native weight %v outside [0, 1]", *w)
	}
	return nil
}

// Class is a cell's outcome.
type Class string

// The classes of a cell.
const (
	Improved  Class = "improved"
	Regressed Class = "regressed"
	// NoChange is a cell shown free of a change beyond the practical threshold: its whole
	// interval lies within 1 ± Threshold.
	NoChange Class = "no-change"
	// Undecided is a cell neither significantly changed beyond the threshold nor shown within
	// it: its interval reaches past the threshold (or it could not be tested), so a change
	// the threshold counts is not ruled out.
	Undecided Class = "undecided"
	// Failures is a compared cell in which some response of either run failed the check, or
	// an experiment's cell in which some response of either variant did: its latencies
	// describe the passing responses only, so it is neither a change nor none
	// (CompareResult.FlagFailures; Analyze).
	Failures Class = "failures"
)

// Marker is the class's mark in report tables: an arrow for the direction latency moved,
// "=" for no change, "?" for undecided.
func (c Class) Marker() string {
	switch c {
	case Improved:
		return "▼"
	case Regressed:
		return "▲"
	case Failures:
		return "✗"
	case Undecided:
		return "?"
	}
	return "="
}

// Classify decides a tested cell's class from its significance (Holm) and its ratio's
// interval [low, high] against the practical threshold: regressed or improved when
// significant with the ratio beyond 1 ± threshold; no-change when the whole interval lies
// within 1 ± threshold (any change it allows is one the threshold counts as none);
// undecided otherwise, and when the cell could not be tested (NaN interval). A cell whose
// interval straddles the threshold is not shown to be unchanged, whatever its p-value.
func Classify(significant bool, ratio, low, high, threshold float64) Class {
	switch {
	case significant && ratio > 1+threshold:
		return Regressed
	case significant && ratio < 1-threshold:
		return Improved
	case !math.IsNaN(low) && !math.IsNaN(high) && low >= 1-threshold && high <= 1+threshold:
		return NoChange
	}
	return Undecided
}

// Verdict is the experiment's decision.
type Verdict string

// The verdicts.
const (
	Adopt         Verdict = "adopt"
	Reject        Verdict = "reject"
	NoChangeFound Verdict = "no-change"
	// Incomplete is the verdict of an experiment that did not run all its rounds (interrupted,
	// a target down, a failed switch): whatever its finished rounds show, it decides nothing.
	Incomplete Verdict = "incomplete"
)

// Spread is a variant's trial p50s in one cell: their median (the cell's figure, as DESIGN
// defines it) and range, over Trials trials.
type Spread struct {
	Median, Min, Max time.Duration
	Trials           int
}

// CellResult is one cell's comparison.
type CellResult struct {
	Key                 CellKey
	Baseline, Candidate Spread
	// Natives holds, per native engine, its spread in the baseline rounds and in the
	// candidate rounds.
	Natives map[string][2]Spread
	// Ratio estimates candidate/baseline latency; [Low, High] is its interval at 1-Alpha
	// (per cell, not adjusted for the number of cells). NaN when the cell could not be
	// tested.
	Ratio, Low, High float64
	// P is the cell's two-sided p-value; PHolm the Holm-adjusted one, compared with Alpha.
	P, PHolm float64
	// Significant reports PHolm <= Alpha.
	Significant bool
	Class       Class
	// Note says why a cell could not be tested, or that responses failed in it.
	Note string
	// Failed counts the variants' responses of the cell that failed the check, all rounds
	// (measured and warmup); a cell with any is classed Failures.
	Failed int
	// MinDeclarable is the smallest change (a fraction) this cell could declare with its
	// measured noise: the size at which its estimate reaches Holm's first step. NaN when
	// untested. RoundsFor is the rounds (whole ABBA blocks) that would bring it down to 5%
	// at the same noise, 0 when more than 400 would be needed (DeclarableText says both).
	MinDeclarable float64
	RoundsFor     int
	// NativeWeight is the weight b the cell's rounds were adjusted by (its client count's
	// estimated slope, or the fixed weight); 0 when the natives were not used.
	NativeWeight float64
	// NativeDrift holds, per native engine, its geometric-mean trial p50 in the last round
	// over that in the first: how far it moved while the experiment ran (1 is steady).
	NativeDrift map[string]float64
}

// Change is Ratio-1 as a signed fraction: +0.05 is 5% slower.
func (c CellResult) Change() float64 { return c.Ratio - 1 }

// Result is a paired experiment's analysis.
type Result struct {
	// Method names the estimator and the test; reports print it.
	Method           string
	Order            []Variant
	Alpha, Threshold float64
	Cells            []CellResult
	Verdict          Verdict
	// Reasons explains the verdict: every regressed cell with its size and p-value, every
	// variant with failed checks.
	Reasons  []string
	Failures map[Variant]int
	// Findings are, per variant, readiness's findings on its target (Input.Findings).
	Findings map[Variant][]string
	// NativeFaster counts, per variant and native engine, the cells in which that native's
	// median trial p50 (over the variant's rounds) was below the variant's.
	NativeFaster map[Variant]map[string]int
	// Rounds says what the rounds can and cannot support (see RoundsReport).
	Rounds RoundsReport
	// NativeWeights is, per client count, the weight b the natives entered with (estimated
	// from the data by default, see Method): 0 means they were not used.
	// NativeWeightsCommon holds, from 8 rounds on, the estimated weight of the round effect
	// common to the cells of a client count, which then has its own.
	NativeWeights, NativeWeightsCommon map[int]float64
	// Warnings are caveats a user can act on.
	Warnings []string
}

// Analyze compares candidate with baseline in every cell and decides the verdict: reject
// when a variant failed any check, has a readiness finding, or a cell regressed
// significantly beyond the threshold;
// adopt when both variants passed every check, no cell regressed and at least one improved;
// no-change otherwise.
func Analyze(in Input, opts Options) (*Result, error) { return analyze(in, opts, true) }

// analyze is Analyze; describe false skips the descriptive spreads, the natives' counts and
// the rounds report, which the simulator does not need and which cost most of an analysis's
// time. The cells' tests, classes and the verdict are the same either way.
func analyze(in Input, opts Options, describe bool) (*Result, error) {
	opts = opts.withDefaults()
	if err := opts.validate(); err != nil {
		return nil, err
	}
	d, cells, warnings, err := prepare(in)
	if err != nil {
		return nil, err
	}
	tests, mw := opts.method.test(d, cells, opts.Alpha)
	warnings = append(warnings, mw...)
	ps := make([]float64, len(tests))
	for i, t := range tests {
		ps[i] = math.NaN()
		if t.ok {
			ps[i] = t.p
		}
	}
	adj := holm(ps)
	res := &Result{
		Method:    Method(opts),
		Order:     slices.Clone(d.order),
		Alpha:     opts.Alpha,
		Threshold: opts.Threshold,
		Failures:  map[Variant]int{Baseline: in.Failures[Baseline], Candidate: in.Failures[Candidate]},
		Findings:  in.Findings,
		Warnings:  warnings,
	}
	for i, c := range in.Cells {
		t := tests[i]
		cr := CellResult{Key: c.Key, Class: Undecided, Note: t.note, NativeWeight: t.beta, MinDeclarable: math.NaN(),
			Ratio: math.Exp(t.est), Low: math.Exp(t.lo), High: math.Exp(t.hi), P: ps[i], PHolm: adj[i]}
		if !t.ok {
			cr.Ratio, cr.Low, cr.High = math.NaN(), math.NaN(), math.NaN()
		}
		if describe {
			cr.Baseline, cr.Candidate = spreads(c, Baseline), spreads(c, Candidate)
			cr.Natives = nativeSpreads(c)
			cr.NativeDrift = nativeDriftOf(c)
		}
		cr.Significant = t.ok && adj[i] <= opts.Alpha
		cr.Class = Classify(cr.Significant, cr.Ratio, cr.Low, cr.High, opts.Threshold)
		if cr.Failed = cellFailures(c); cr.Failed > 0 {
			// Its latencies rest on the passing responses only: neither a change nor none.
			cr.Class = Failures
			why := fmt.Sprintf("%s of the variants failed the check", count(cr.Failed, "response", "responses"))
			if cr.Note != "" {
				why = cr.Note + "; " + why
			}
			cr.Note = why
		}
		res.Cells = append(res.Cells, cr)
		if res.NativeWeights == nil {
			res.NativeWeights = map[int]float64{}
		}
		if _, ok := res.NativeWeights[c.Key.Clients]; !ok || t.ok {
			res.NativeWeights[c.Key.Clients] = t.beta
			if t.hasCommon && t.ok {
				if res.NativeWeightsCommon == nil {
					res.NativeWeightsCommon = map[int]float64{}
				}
				res.NativeWeightsCommon[c.Key.Clients] = t.betaCommon
			}
		}
	}
	if describe {
		res.NativeFaster = nativeFaster(res.Cells)
		keys := make([]CellKey, len(cells))
		for i, o := range cells {
			keys[i] = o.key
		}
		res.Rounds = roundsReport(d, keys, tests, opts.Alpha)
		for i := range res.Cells {
			res.Cells[i].MinDeclarable = res.Rounds.PerCell[i]
			res.Cells[i].RoundsFor = res.Rounds.PerCellRounds[i]
		}
		res.Warnings = append(res.Warnings, res.Rounds.Warnings...)
		res.Warnings = append(res.Warnings, nativeDrift(res.Cells, in)...)
	}
	res.Verdict, res.Reasons = decide(res)
	return res, nil
}

// count writes n with the noun that agrees with it: "1 cell", "3 cells".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// NotStarted is the analysis of an experiment that stopped before its first round finished
// (interrupted while warming up, a target down before round 1): no cells, the verdict
// Incomplete, the reason and the planned rounds said as MarkIncomplete says them.
func NotStarted(opts Options, reason string, planned int) *Result {
	opts = opts.withDefaults()
	r := &Result{Method: Method(opts), Alpha: opts.Alpha, Threshold: opts.Threshold,
		Failures: map[Variant]int{Baseline: 0, Candidate: 0}, NativeFaster: map[Variant]map[string]int{}}
	r.MarkIncomplete(reason, planned)
	return r
}

// MarkIncomplete makes the result an incomplete experiment's: the verdict is Incomplete and
// the first reason says why (reason) and how many of the planned rounds finished. The cells
// keep what the finished rounds show.
func (r *Result) MarkIncomplete(reason string, planned int) {
	r.Verdict = Incomplete
	done := len(r.Order)
	why := fmt.Sprintf("the experiment did not finish (%s): %d of %d planned rounds finished, so it decides nothing", reason, done, planned)
	if done > 0 {
		why += "; the cells show what the finished rounds measured"
	}
	r.Reasons = append([]string{why}, r.Reasons...)
}

func decide(res *Result) (Verdict, []string) {
	var reasons []string
	for _, v := range []Variant{Baseline, Candidate} {
		if n := res.Failures[v]; n > 0 {
			reasons = append(reasons, fmt.Sprintf("%s: %s failed the check", v, count(n, "response", "responses")))
		}
		// A readiness finding (the target's mapping or sampled documents are not the
		// fixtures') is a correctness problem, as a failed response is.
		if fs := res.Findings[v]; len(fs) > 0 {
			reasons = append(reasons, fmt.Sprintf("%s: %s at readiness: %s", v, count(len(fs), "finding", "findings"), strings.Join(fs, "; ")))
		}
	}
	improved := 0
	for _, c := range res.Cells {
		switch c.Class {
		case Regressed:
			reasons = append(reasons, fmt.Sprintf("%v regressed %+.1f%% (ratio %.3f, %.0f%% interval %.3f-%.3f, p=%.2g, Holm p=%.2g)",
				c.Key, 100*c.Change(), c.Ratio, 100*(1-res.Alpha), c.Low, c.High, c.P, c.PHolm))
		case Improved:
			improved++
		}
	}
	if len(reasons) > 0 {
		return Reject, reasons
	}
	if improved > 0 {
		reasons := []string{fmt.Sprintf("%s improved, none regressed, every response of both variants passed the check", count(improved, "cell", "cells"))}
		for _, c := range res.Cells {
			if c.Class != Regressed && c.High > 1+res.Threshold {
				reasons = append(reasons, fmt.Sprintf("but %v is not shown free of a regression: its interval reaches %+.1f%%", c.Key, 100*(c.High-1)))
			}
		}
		return Adopt, reasons
	}
	reasons = []string{fmt.Sprintf("no cell changed significantly by more than %.0f%%", 100*res.Threshold)}
	if n := res.count(Undecided); n > 0 {
		reasons = append(reasons, fmt.Sprintf("but %d of %d cells are undecided: their intervals reach beyond ±%.0f%%, so a change the threshold counts is not ruled out there (%d shown within it)",
			n, len(res.Cells), 100*res.Threshold, res.count(NoChange)))
	}
	return NoChangeFound, reasons
}

// count is the number of cells of a class.
func (r *Result) count(c Class) int {
	n := 0
	for _, x := range r.Cells {
		if x.Class == c {
			n++
		}
	}
	return n
}

// Count is the number of cells of class c.
func (r *Result) Count(c Class) int { return r.count(c) }

// cellFailures counts the variants' responses of a cell that failed the check, all rounds.
func cellFailures(c Cell) int {
	n := 0
	for _, r := range c.Rounds {
		n += r.Failed
	}
	return n
}

func spreads(c Cell, v Variant) Spread {
	var all []time.Duration
	for _, r := range c.Rounds {
		if r.Variant == v {
			all = append(all, positive(r.Trials)...)
		}
	}
	return spreadOf(all)
}

func nativeSpreads(c Cell) map[string][2]Spread {
	names := make(map[string]bool)
	for _, r := range c.Rounds {
		for n := range r.Natives {
			names[n] = true
		}
	}
	if len(names) == 0 {
		return nil
	}
	out := make(map[string][2]Spread, len(names))
	for n := range names {
		var b, cd []time.Duration
		for _, r := range c.Rounds {
			if r.Variant == Baseline {
				b = append(b, positive(r.Natives[n])...)
			} else {
				cd = append(cd, positive(r.Natives[n])...)
			}
		}
		out[n] = [2]Spread{spreadOf(b), spreadOf(cd)}
	}
	return out
}

func positive(ds []time.Duration) []time.Duration {
	var out []time.Duration
	for _, d := range ds {
		if d > 0 {
			out = append(out, d)
		}
	}
	return out
}

// msText is the spread's median in milliseconds, "–" when it has no trial p50.
func (s Spread) msText() string {
	if s.Trials == 0 {
		return "–"
	}
	return fmt.Sprintf("%.3f ms", s.Median.Seconds()*1e3)
}

// spreadOf takes the median by the same type 7 definition as package stats.
func spreadOf(ds []time.Duration) Spread {
	if len(ds) == 0 {
		return Spread{}
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	f := make([]float64, len(s))
	for i, d := range s {
		f[i] = float64(d)
	}
	return Spread{Median: time.Duration(math.Round(quantileSortedFloat(f, 0.5))), Min: s[0], Max: s[len(s)-1], Trials: len(s)}
}

func nativeFaster(cells []CellResult) map[Variant]map[string]int {
	out := map[Variant]map[string]int{}
	for _, c := range cells {
		for name, sp := range c.Natives {
			for i, v := range []Variant{Baseline, Candidate} {
				own := c.Baseline
				if v == Candidate {
					own = c.Candidate
				}
				if out[v] == nil {
					out[v] = map[string]int{}
				}
				if _, ok := out[v][name]; !ok {
					out[v][name] = 0
				}
				if sp[i].Trials > 0 && own.Trials > 0 && sp[i].Median < own.Median {
					out[v][name]++
				}
			}
		}
	}
	return out
}

// String renders the result as plain text: the method, one line per cell, the verdict and
// its reasons, the warnings.
func (r *Result) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "method: %s\n", r.Method)
	if w := r.NativeWeightsText(); w != "" {
		fmt.Fprintf(&b, "natives' weight: %s\n", w)
	}
	fmt.Fprintf(&b, "rounds: %v; alpha %.2f (Holm over %d cells); threshold %.1f%%\n", r.Order, r.Alpha, len(r.Cells), 100*r.Threshold)
	width := 12 // a workload's own labels may be longer than the built-in operations
	for _, c := range r.Cells {
		width = max(width, len(c.Key.String()))
	}
	for _, c := range r.Cells {
		// Milliseconds on every line, as the reports' tables: a Duration prints µs below 1ms
		// and ms above, so one column would mix units.
		if math.IsNaN(c.Ratio) {
			fmt.Fprintf(&b, "%-*s %s %-9s base %s cand %s untested: %s\n", width, c.Key, c.Class.Marker(), c.Class, c.Baseline.msText(), c.Candidate.msText(), c.Note)
			continue
		}
		fmt.Fprintf(&b, "%-*s %s %-9s base %s cand %s ratio %.3f [%.3f, %.3f] p=%.2g holm=%.2g",
			width, c.Key, c.Class.Marker(), c.Class, c.Baseline.msText(), c.Candidate.msText(), c.Ratio, c.Low, c.High, c.P, c.PHolm)
		if !math.IsNaN(c.MinDeclarable) {
			if c.MinDeclarable > MaxDeclarable {
				fmt.Fprintf(&b, "; %s", DeclarableText(c.MinDeclarable, c.RoundsFor))
			} else {
				fmt.Fprintf(&b, " declarable beyond %s", DeclarableText(c.MinDeclarable, c.RoundsFor))
			}
		}
		if c.Failed > 0 {
			fmt.Fprintf(&b, "; %s", c.Note)
		}
		b.WriteString("\n")
	}
	for _, v := range []Variant{Baseline, Candidate} {
		names := slices.Sorted(maps.Keys(r.NativeFaster[v]))
		for _, n := range names {
			fmt.Fprintf(&b, "%s faster than %s in %d of %d cells\n", n, v, r.NativeFaster[v][n], len(r.Cells))
		}
	}
	fmt.Fprintf(&b, "verdict: %s\n", r.Verdict)
	for _, s := range r.Reasons {
		fmt.Fprintf(&b, "  %s\n", s)
	}
	ws := slices.Clone(r.Warnings)
	sort.Strings(ws)
	for _, w := range ws {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	return b.String()
}

// DriftWarning is the natives' drift over an experiment (last round's p50 over the first's)
// beyond which Analyze warns: a native that moved by more than 10% was not steady.
const DriftWarning = 0.10

// nativeDriftOf is, per native, its geometric-mean trial p50 in the cell's last round over
// that in its first round (natives absent from either are left out).
func nativeDriftOf(c Cell) map[string]float64 {
	if len(c.Rounds) < 2 {
		return nil
	}
	first, last := c.Rounds[0], c.Rounds[len(c.Rounds)-1]
	out := map[string]float64{}
	for name, ds := range first.Natives {
		a, _, _ := logDurations(ds)
		b, _, _ := logDurations(last.Natives[name])
		if len(a) == 0 || len(b) == 0 {
			continue
		}
		out[name] = math.Exp(mean(b) - mean(a))
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// nativeDrift warns about every native whose last/first-round ratio moved beyond
// DriftWarning in some cell, naming its worst cell and its median over the cells.
func nativeDrift(cells []CellResult, in Input) []string {
	byNative := map[string][]float64{}
	worst := map[string]CellResult{}
	for _, c := range cells {
		for n, r := range c.NativeDrift {
			byNative[n] = append(byNative[n], r)
			if w, ok := worst[n]; !ok || math.Abs(math.Log(r)) > math.Abs(math.Log(w.NativeDrift[n])) {
				worst[n] = c
			}
		}
	}
	var out []string
	for _, n := range slices.Sorted(maps.Keys(byNative)) {
		w := worst[n]
		r := w.NativeDrift[n]
		if math.Abs(r-1) <= DriftWarning {
			continue
		}
		rs := slices.Clone(byNative[n])
		slices.Sort(rs)
		rounds := len(in.Cells[0].Rounds)
		out = append(out, fmt.Sprintf("native %s drifted over the experiment: its p50 in round %d was %.2f times round 1's in %v (median over cells %.2f), beyond the %.0f%% a steady engine keeps; it was still warming up (JIT, caches) or the machine changed: warm it longer before round 1 (--warm-max) or restart the experiment",
			n, rounds, r, w.Key, quantileSortedFloat(rs, 0.5), 100*DriftWarning))
	}
	return out
}

// NativeWeightsText is the natives' weights as a phrase, "b = 0.00 at 1 client, 0.84 at 8
// clients", for the method line of reports; empty when no cell was analysed.
func (r *Result) NativeWeightsText() string {
	var parts []string
	for _, n := range slices.Sorted(maps.Keys(r.NativeWeights)) {
		unit := "clients"
		if n == 1 {
			unit = "client"
		}
		if bc, ok := r.NativeWeightsCommon[n]; ok {
			parts = append(parts, fmt.Sprintf("%.2f within rounds and %.2f for the common round effect at %d %s", r.NativeWeights[n], bc, n, unit))
			continue
		}
		parts = append(parts, fmt.Sprintf("%.2f at %d %s", r.NativeWeights[n], n, unit))
	}
	if len(parts) == 0 {
		return ""
	}
	return "b = " + strings.Join(parts, ", ")
}

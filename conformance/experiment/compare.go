package experiment

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/conform-dev/conform/fixtures"
)

// CompareMethod names compare's estimator and test.
const CompareMethod = "estimator: Hodges-Lehmann ratio B/A (median of pairwise ratios of trial p50s) with the exact distribution-free (Moses) interval; " +
	"test: two-sided Mann-Whitney U on the trial p50s, exact null distribution; Holm over cells"

// CompareCell is one cell's comparison of run B with run A.
type CompareCell struct {
	Key  CellKey
	A, B Spread
	// Ratio estimates B/A latency; [Low, High] is its distribution-free interval, whose
	// actual confidence is Confidence (below 1-Alpha when the trials are too few to reach it).
	Ratio, Low, High, Confidence float64
	P, PHolm                     float64
	Significant                  bool
	Class                        Class
	Note                         string
	// FailedA and FailedB count the cell's responses that failed the check in each run (see
	// FlagFailures).
	FailedA, FailedB int
}

// CompareResult is the comparison of two separate runs.
type CompareResult struct {
	Method           string
	Alpha, Threshold float64
	Cells            []CompareCell
	Warnings         []string
}

// Regressed is the number of cells classed Regressed: the cells `conform compare` fails on.
func (r *CompareResult) Regressed() int {
	n := 0
	for _, c := range r.Cells {
		if c.Class == Regressed {
			n++
		}
	}
	return n
}

// Failed is the number of cells classed Failures.
func (r *CompareResult) Failed() int {
	n := 0
	for _, c := range r.Cells {
		if c.Class == Failures {
			n++
		}
	}
	return n
}

// FlagFailures records each cell's failed responses in run A and run B (failed gives them)
// and classes a cell Failures when either run had one: a target that fails the check is
// not one whose latency can be called unchanged, improved or regressed. The statistics stay,
// for what they are worth.
func (r *CompareResult) FlagFailures(failed func(k CellKey) (a, b int)) {
	for i := range r.Cells {
		c := &r.Cells[i]
		c.FailedA, c.FailedB = failed(c.Key)
		if c.FailedA > 0 || c.FailedB > 0 {
			c.Class = Failures
		}
	}
}

// Compare compares two separate runs cell by cell: a and b map each cell to its trial p50s
// (no rounds). The trials are each run's only replication, so the test sees the noise
// between trials of a run but not the drift between runs; Compare always says so. Cells in
// only one run are listed untested. Ratios are B over A.
func Compare(a, b map[CellKey][]time.Duration, opts Options) (*CompareResult, error) {
	opts = opts.withDefaults()
	if err := opts.validate(); err != nil {
		return nil, err
	}
	keys := make(map[CellKey]bool)
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("compare: no cells")
	}
	// The workload's order of operations (get, page, after, terms, counts), as every report
	// lists them; other names after, by name.
	rank := func(op string) int {
		if i := slices.Index(fixtures.Ops, op); i >= 0 {
			return i
		}
		return len(fixtures.Ops)
	}
	sorted := slices.SortedFunc(maps.Keys(keys), func(x, y CellKey) int {
		return cmp.Or(cmp.Compare(rank(x.Op), rank(y.Op)), cmp.Compare(x.Op, y.Op), cmp.Compare(x.Clients, y.Clients))
	})
	res := &CompareResult{Method: CompareMethod, Alpha: opts.Alpha, Threshold: opts.Threshold}
	res.Warnings = append(res.Warnings, "A and B are separate runs: each cell's trials are its only replication, so p-values measure the noise between trials of a run, not the drift between runs; a difference may be the machine's, not the change's. Gate a change with a paired experiment.")
	ps := make([]float64, len(sorted))
	minTrials := math.MaxInt
	for i, k := range sorted {
		c := CompareCell{Key: k, Class: Undecided, Ratio: math.NaN(), Low: math.NaN(), High: math.NaN(), Confidence: math.NaN(), P: math.NaN()}
		ps[i] = math.NaN()
		la, err := compareLogs(a[k], "A", k)
		if err != nil {
			return nil, err
		}
		lb, err := compareLogs(b[k], "B", k)
		if err != nil {
			return nil, err
		}
		c.A, c.B = spreadOf(positive(a[k])), spreadOf(positive(b[k]))
		switch {
		case len(la) == 0 && len(lb) == 0:
			c.Note = "no trial p50 in either run"
		case len(la) == 0:
			c.Note = "no trial p50 in run A"
		case len(lb) == 0:
			c.Note = "no trial p50 in run B"
		default:
			est, lo, hi, conf := hodgesLehmann(la, lb, opts.Alpha)
			c.Ratio, c.Low, c.High, c.Confidence = math.Exp(est), math.Exp(lo), math.Exp(hi), conf
			c.P = mannWhitney(la, lb)
			ps[i] = c.P
			minTrials = min(minTrials, len(la), len(lb))
		}
		res.Cells = append(res.Cells, c)
	}
	adj := holm(ps)
	tested := 0
	for i := range res.Cells {
		c := &res.Cells[i]
		c.PHolm = adj[i]
		if math.IsNaN(c.P) {
			continue
		}
		tested++
		c.Significant = c.PHolm <= opts.Alpha
		c.Class = Classify(c.Significant, c.Ratio, c.Low, c.High, opts.Threshold)
	}
	if tested > 0 {
		first := opts.Alpha / float64(tested)
		if floor := rankSumMinP(minTrials, minTrials); floor > first {
			need := minTrials
			for rankSumMinP(need, need) > first {
				need++
			}
			res.Warnings = append(res.Warnings, fmt.Sprintf("in a cell with %d trials per run the rank test cannot go below p=%.3g, above the %.2g Holm needs over %d cells, so such a cell cannot be significant; %d trials per run would be needed",
				minTrials, floor, first, tested, need))
		}
	}
	return res, nil
}

func compareLogs(ds []time.Duration, run string, k CellKey) ([]float64, error) {
	logs, _, err := logDurations(ds)
	if err != nil {
		return nil, fmt.Errorf("compare: run %s cell %v: %w", run, k, err)
	}
	return logs, nil
}

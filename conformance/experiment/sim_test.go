package experiment

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var (
	simTable = flag.Bool("sim", false, "print the full simulation tables of SIMULATION.md (takes minutes)")
	simN     = flag.Int("simN", 2000, "experiments per row of the -sim tables")
)

// scenario is a noise model the simulation tables and tests run.
type scenario struct {
	name  string
	noise Noise
	scale []float64 // per-cell noise multipliers
	// unequal: the cells of a client count are not equally noisy.
	unequal bool
}

var scenarios = []scenario{
	{"colleague: 3% trial, 2% drift private to each target and cell", ColleagueNoise, nil, false},
	{"drift shared with the natives", Noise{TrialNoise: 0.03, RoundDrift: 0.02, NativeShare: 1}, nil, false},
	{"half the drift shared with the natives", Noise{TrialNoise: 0.03, RoundDrift: 0.02, NativeShare: 0.5}, nil, false},
	{"variant drift common to all cells (a restart)", Noise{TrialNoise: 0.03, RoundDrift: 0.02, CellShare: 1}, nil, false},
	{"machine drift: common to all cells and targets", Noise{TrialNoise: 0.03, RoundDrift: 0.02, CellShare: 1, NativeShare: 1}, nil, false},
	{"linear trend 2%/round plus colleague noise", Noise{TrialNoise: 0.03, RoundDrift: 0.02, Trend: 0.02}, nil, false},
	{"8-client cells twice as noisy", ColleagueNoise, []float64{1, 2, 1, 2, 1, 2, 1, 2, 1, 2}, false},
	{"heavy-tailed trials (t, 3 df)", Noise{TrialNoise: 0.03, RoundDrift: 0.02, TrialTailDF: 3}, nil, false},
	{"natives warming up (JIT-like): 2.7x slower in round 1, decaying by 0.55 per round", jitNoise, nil, false},
	{"one cell at each client count 3x as noisy as the others (get@1, get@8)", ColleagueNoise, []float64{3, 3, 1, 1, 1, 1, 1, 1, 1, 1}, true},
	{"cells unequally noisy, 1x to 5x, as measured on two cores", ColleagueNoise, measuredScale, true},
	{"heavy-tailed rounds (t, 3 df), one cell of one target far off", Noise{TrialNoise: 0.03, RoundDrift: 0.02, RoundTailDF: 3}, nil, false},
}

// measuredScale is each cell's round-to-round standard deviation of a `conform serve`
// target, relative to the quietest, measured on the 2-core development machine with
// conform's clients on one CPU and the targets on the other (a 24-round A/A, get, page,
// after, terms, counts at 1 and 8 clients): 0.14/0.19, 0.05/0.06, 0.04/0.06, 0.04/0.05,
// 0.07/0.12.
var measuredScale = []float64{3.5, 4.75, 1.25, 1.5, 1, 1.5, 1, 1.25, 1.75, 3}

// jitNoise is the colleague's noise with the natives' warm-up the issue measured on freshly
// started engines (Elasticsearch get@1: 397, 259, 197, 149 µs over four rounds).
var jitNoise = Noise{TrialNoise: 0.03, RoundDrift: 0.02, NativeWarmup: 1, WarmupDecay: 0.55}

// row is one line of a simulation table: A/A rates and power.
type row struct {
	aaReject, aaAny                 float64
	one10, all10, all10cells, one05 float64
	all05, all05cells               float64
}

func simulateRow(t testing.TB, sc scenario, order []Variant, m method, n int, seed uint64) row {
	t.Helper()
	return simulateRowTrials(t, sc, order, 3, m, n, seed)
}

func simulateRowTrials(t testing.TB, sc scenario, order []Variant, trials int, m method, n int, seed uint64) row {
	t.Helper()
	run := func(effects []float64) SimResult {
		r, err := Simulate(SimConfig{Noise: sc.noise, CellScale: sc.scale, Order: order, Effects: effects, Trials: trials,
			Experiments: n, Seed: seed, Options: Options{method: m}})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	one := func(e float64) []float64 { return []float64{e} }
	all := func(e float64) []float64 {
		out := make([]float64, 10)
		for i := range out {
			out[i] = e
		}
		return out
	}
	cells := func(r SimResult) float64 {
		f := 0
		for _, x := range r.Flagged {
			f += x
		}
		return r.Rate(f) / float64(len(r.Flagged))
	}
	var w row
	aa := run(nil)
	w.aaReject, w.aaAny = aa.Rate(aa.Verdicts[Reject]), aa.Rate(aa.AnySignificant)
	r := run(one(1.10))
	w.one10 = r.Rate(r.Flagged[0])
	r = run(all(1.10))
	w.all10, w.all10cells = r.Rate(r.Verdicts[Reject]), cells(r)
	r = run(one(1.05))
	w.one05 = r.Rate(r.Flagged[0])
	r = run(all(1.05))
	w.all05, w.all05cells = r.Rate(r.Verdicts[Reject]), cells(r)
	return w
}

func (w row) markdown(label string) string {
	p := func(x float64) string { return fmt.Sprintf("%.1f", 100*x) }
	return fmt.Sprintf("| %s | %s | %s | %s | %s (%s) | %s | %s (%s) |", label, p(w.aaReject), p(w.aaAny),
		p(w.one10), p(w.all10), p(w.all10cells), p(w.one05), p(w.all05), p(w.all05cells))
}

const tableHeader = "| LABEL | A/A reject % | A/A any cell significant % | 10% slower, one cell: named % | 10% slower, all cells: reject % (cells named %) | 5% slower, one cell: named % | 5% slower, all cells: reject % (cells named %) |\n|---|---|---|---|---|---|---|"

func chosen() method { return Options{}.withDefaults().method }

// TestSimulatedAAFalseRejectRate is the proof the brief asks for: A/A experiments (no
// effect) through Analyze with its default method, under every noise model, are rejected at
// most 5% of the time, in the default plan (12 rounds of 1 trial) and, where the cells of a
// client count are equally noisy, in the lab's 4 rounds of 3 trials. Four rounds leave each
// cell 2 degrees of freedom, too few to tell a noisier cell from its neighbours (SIMULATION.md
// gives that row: 7.5% with one cell three times as noisy); the default plan's 12 rounds
// see it. 400 experiments per scenario and plan from fixed seeds; the observed rates sit near
// 2%, far enough under 5% that no small change of the code moves them over by chance.
func TestSimulatedAAFalseRejectRate(t *testing.T) {
	n := 400
	if testing.Short() {
		n = 100
	}
	for i, sc := range scenarios {
		plans := []struct {
			name          string
			order         []Variant
			trials        int
			equalCellOnly bool
		}{{"12 x 1", ABBA(3), 1, false}, {"4 x 3", ABBA(1), 3, true}}
		for j, p := range plans {
			if p.equalCellOnly && sc.unequal {
				continue
			}
			r, err := Simulate(SimConfig{Noise: sc.noise, CellScale: sc.scale, Order: p.order, Trials: p.trials, Experiments: n, Seed: uint64(100 + 20*j + i)})
			if err != nil {
				t.Fatal(err)
			}
			reject, anySig := r.Rate(r.Verdicts[Reject]), r.Rate(r.AnySignificant)
			t.Logf("%s, %-55s A/A reject %.1f%%, any cell significant %.1f%%", p.name, sc.name, 100*reject, 100*anySig)
			if reject > 0.05 {
				t.Errorf("%s, %s: A/A experiments rejected %.1f%% of the time, want at most 5%%", p.name, sc.name, 100*reject)
			}
			// The test itself (before the 2% threshold) controls the family-wise error at 5%;
			// 400 draws put the estimate within about 2 points of the truth.
			if anySig > 0.07 {
				t.Errorf("%s, %s: some cell significant in %.1f%% of A/A experiments, want about 5%% at most", p.name, sc.name, 100*anySig)
			}
		}
	}
}

// TestModerationCatchesUnequalCells shows why the cells' variances are moderated: when one
// cell of a client count is noisier than the others, a variance pooled over them understates
// that cell's and A/A experiments of the default plan reject far more than 5% of the time
// (an A/A on real engines did); moderated, they stay under 5%.
func TestModerationCatchesUnequalCells(t *testing.T) {
	pooled := chosen().(roundModel)
	pooled.moderate = false
	for i, sc := range scenarios {
		if !sc.unequal {
			continue
		}
		run := func(m method) float64 {
			r, err := Simulate(SimConfig{Noise: sc.noise, CellScale: sc.scale, Order: ABBA(3), Trials: 1, Experiments: 400, Seed: uint64(300 + i), Options: Options{method: m}})
			if err != nil {
				t.Fatal(err)
			}
			return r.Rate(r.Verdicts[Reject])
		}
		p, m := run(pooled), run(chosen())
		t.Logf("%s: A/A reject %.1f%% pooled, %.1f%% moderated", sc.name, 100*p, 100*m)
		if p <= 0.07 {
			t.Errorf("%s: the pooled variance rejected %.1f%% of A/A experiments; the simulation should show it well above 5%%", sc.name, 100*p)
		}
		if m > 0.05 {
			t.Errorf("%s: moderated variances rejected %.1f%% of A/A experiments, want at most 5%%", sc.name, 100*m)
		}
	}
}

// TestSimulatorCatchesTrialRankSum shows the simulation has teeth: the test DESIGN first
// sketched (Mann-Whitney U over the six trial p50s, Holm over cells) fails it at the
// colleague's noise, as the colleague found (about 11%).
func TestSimulatorCatchesTrialRankSum(t *testing.T) {
	r, err := Simulate(SimConfig{Noise: ColleagueNoise, Experiments: 400, Seed: 7, Options: Options{method: trialRankSum{}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Rate(r.Verdicts[Reject]); got <= 0.06 {
		t.Errorf("trial-level Mann-Whitney rejected %.1f%% of A/A experiments; the simulation should show it above 5%%", 100*got)
	}
}

// TestSimulatedPower checks that the method finds what is there: a 10% slowdown of every
// cell over 12 rounds is rejected almost always, and a 10% slowdown of one cell in the
// default plan (12 rounds of 1 trial) is named most of the time.
func TestSimulatedPower(t *testing.T) {
	all := make([]float64, 10)
	for i := range all {
		all[i] = 1.10
	}
	r, err := Simulate(SimConfig{Noise: ColleagueNoise, Order: ABBA(3), Effects: all, Experiments: 100, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Rate(r.Verdicts[Reject]); got < 0.95 {
		t.Errorf("10%% slower in every cell over 12 rounds rejected %.0f%% of the time, want at least 95%%", 100*got)
	}
	r, err = Simulate(SimConfig{Noise: ColleagueNoise, Order: ABBA(3), Trials: 1, Effects: []float64{1.10}, Experiments: 200, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Rate(r.Flagged[0]); got < 0.85 {
		t.Errorf("10%% slower in one cell over 12 rounds of 1 trial named %.0f%% of the time, want at least 85%%", 100*got)
	}
}

// TestSimulationTable prints the tables of SIMULATION.md. Run it with
//
//	go test ./conformance/experiment -run TestSimulationTable -sim -v -timeout 1h
func TestSimulationTable(t *testing.T) {
	if !*simTable {
		t.Skip("run with -sim to print the simulation tables")
	}
	out := io.Writer(os.Stdout)
	n := *simN
	fmt.Fprintf(out, "Experiments per cell of the tables: %d. Seeds fixed. Lab settings: 10 cells, 3 trials per round, 2 natives; percentages.\n\n", n)

	candidates := []method{
		trialRankSum{},
		roundModel{natives: nativesIgnored, pool: perCell},
		roundModel{natives: nativesIgnored, pool: pooledCells},
		roundModel{natives: nativesIgnored, pool: twoStrata, byClient: true},
		roundModel{natives: nativesFixed, weight: 1, pool: twoStrata, byClient: true},
		roundModel{natives: nativesFitted, pool: pooledCells, byClient: true},
		roundModel{natives: nativesFixed, weight: 0.5, pool: pooledCells, byClient: true},
		chosen(),
	}
	fmt.Fprintf(out, "### Candidates at 4 rounds (ABBA)\n\n")
	for i, sc := range scenarios {
		fmt.Fprintf(out, "#### %s\n\n", sc.name)
		fmt.Fprintln(out, strings.Replace(tableHeader, "LABEL", "method", 1))
		for _, m := range candidates {
			label := m.name()
			if m == chosen() {
				label = "**" + label + " (chosen)**"
			}
			fmt.Fprintln(out, simulateRow(t, sc, ABBA(1), m, n, uint64(1000+i)).markdown(label))
		}
		fmt.Fprintln(out)
	}

	fmt.Fprintf(out, "### The chosen method by rounds\n\n")
	for i, sc := range scenarios {
		fmt.Fprintf(out, "#### %s\n\n", sc.name)
		fmt.Fprintln(out, strings.Replace(tableHeader, "LABEL", "rounds", 1))
		for _, blocks := range []int{1, 2, 3} {
			fmt.Fprintln(out, simulateRow(t, sc, ABBA(blocks), chosen(), n, uint64(2000+10*i+blocks)).markdown(fmt.Sprint(4*blocks)))
		}
		noTrend := chosen().(roundModel)
		noTrend.trendFrom = 0
		for _, blocks := range []int{2, 3} {
			fmt.Fprintln(out, simulateRow(t, sc, ABBA(blocks), noTrend, n, uint64(2000+10*i+blocks)).markdown(fmt.Sprintf("%d, no trend term", 4*blocks)))
		}
		fmt.Fprintln(out)
	}

	files, _ := filepath.Glob(filepath.Join("testdata", "aa-*.json"))
	if len(files) > 0 {
		fmt.Fprintf(out, "### Noise estimated from recorded A/A runs\n\n")
	}
	for i, f := range files {
		est := estimateFile(t, f)
		sc := scenario{name: filepath.Base(f), noise: est.Noise}
		w := est.Noise.NativeWeight(2, 3)
		fmt.Fprintf(out, "#### %s\n\n%s; best native weight for 2 natives x 3 trials: %.2f\n\n", sc.name, describeEstimate(est), w)
		fmt.Fprintln(out, strings.Replace(tableHeader, "LABEL", "rounds", 1))
		for _, blocks := range []int{1, 2, 3} {
			fmt.Fprintln(out, simulateRow(t, sc, ABBA(blocks), chosen(), n, uint64(3000+10*i+blocks)).markdown(fmt.Sprint(4*blocks)))
		}
		fmt.Fprintln(out)
	}
}

func estimateFile(t testing.TB, path string) NoiseEstimate {
	t.Helper()
	est, err := EstimateNoise(readAAFile(t, path))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return est
}

func readAAFile(t testing.TB, path string) *AARecord {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	a, err := ReadAA(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return a
}

func describeEstimate(e NoiseEstimate) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d targets, %d cells, %d rounds: trial noise %.2f%% (%d df), round drift %.2f%% (%d df), native share %.2f, cell share %.2f",
		e.Targets, e.Cells, e.Rounds, 100*e.Noise.TrialNoise, e.TrialDF, 100*e.Noise.RoundDrift, e.RoundDF, e.Noise.NativeShare, e.Noise.CellShare)
	return b.String()
}

func BenchmarkAnalyzeLab(b *testing.B) {
	in := labInput(0.02, 0.03)
	for b.Loop() {
		if _, err := Analyze(in, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSimulateAA(b *testing.B) {
	for b.Loop() {
		if _, err := Simulate(SimConfig{Noise: ColleagueNoise, Experiments: 100, Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSimulatedNativeWarmup is the natives' warm-up the estimator must survive: natives
// 2.7 times slower in the first round, decaying by 0.55 a round, the variant sharing none
// of it, in the default plan of 12 rounds of 1 trial. The estimated slope keeps A/A
// rejections at 5% or under and finds a 10% slowdown of every cell; a fixed weight of 0.5
// (the earlier default) moves the natives' warm-up into every round's residual, which blinds
// it: the A/A on real engines had intervals of 0.40-2.04, and here the same 10%
// slowdown is found less than half the time (29.5% at this seed).
func TestSimulatedNativeWarmup(t *testing.T) {
	n := 400
	if testing.Short() {
		n = 100
	}
	run := func(o Options, effects []float64, seed uint64) SimResult {
		r, err := Simulate(SimConfig{Noise: jitNoise, Order: ABBA(3), Trials: 1, Effects: effects, Experiments: n, Seed: seed, Options: o})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	all := make([]float64, 10)
	for i := range all {
		all[i] = 1.10
	}
	est := run(Options{}, nil, 41)
	fixed := run(Options{NativeWeight: Weight(0.5)}, nil, 41)
	power := run(Options{}, all, 42)
	fixedPower := run(Options{NativeWeight: Weight(0.5)}, all, 42)
	one := run(Options{}, []float64{1.10}, 43)
	t.Logf("estimated slope: A/A reject %.1f%%, any cell significant %.1f%%; 10%% slower everywhere rejected %.1f%%, one cell named %.1f%%",
		100*est.Rate(est.Verdicts[Reject]), 100*est.Rate(est.AnySignificant), 100*power.Rate(power.Verdicts[Reject]), 100*one.Rate(one.Flagged[0]))
	t.Logf("fixed weight 0.5: A/A reject %.1f%%, any cell significant %.1f%%; 10%% slower everywhere rejected %.1f%%",
		100*fixed.Rate(fixed.Verdicts[Reject]), 100*fixed.Rate(fixed.AnySignificant), 100*fixedPower.Rate(fixedPower.Verdicts[Reject]))
	if got := est.Rate(est.Verdicts[Reject]); got > 0.05 {
		t.Errorf("estimated slope under the natives' warm-up: A/A rejected %.1f%%, want at most 5%%", 100*got)
	}
	if got := power.Rate(power.Verdicts[Reject]); got < 0.80 {
		t.Errorf("estimated slope under the natives' warm-up: 10%% slower everywhere rejected %.1f%%, want at least 80%%", 100*got)
	}
	if got := fixedPower.Rate(fixedPower.Verdicts[Reject]); got > 0.5 {
		t.Errorf("fixed weight 0.5 under the natives' warm-up: 10%% slower everywhere rejected %.1f%%; the simulation should show it blinded", 100*got)
	}
}

// TestSimulatedSequential: the sequential plan (looks after every ABBA block up to 6 blocks,
// O'Brien-Fleming-type alpha spending, blocks of 4 rounds of 1 trial) keeps A/A rejections at
// or under 5% under the colleague's noise, machine drift, the natives' warm-up and one cell
// three times as noisy as its neighbours, and finds a 10% slowdown of every cell in fewer
// rounds than the maximum.
func TestSimulatedSequential(t *testing.T) {
	n := 300
	if testing.Short() {
		n = 100
	}
	seq := Sequential{MaxBlocks: 6}
	var total float64
	for k := 1; k <= seq.MaxBlocks; k++ {
		total += seq.AlphaAt(k)
	}
	if math.Abs(total-DefaultAlpha) > 1e-12 {
		t.Errorf("alpha spent over the looks %.6f, want %.2f", total, DefaultAlpha)
	}
	all := make([]float64, 10)
	for i := range all {
		all[i] = 1.10
	}
	for i, sc := range []scenario{scenarios[0], scenarios[4], scenarios[8], scenarios[9]} {
		aa, err := SimulateSequential(SimConfig{Noise: sc.noise, CellScale: sc.scale, Trials: 1, Experiments: n, Seed: uint64(500 + i)}, seq)
		if err != nil {
			t.Fatal(err)
		}
		pw, err := SimulateSequential(SimConfig{Noise: sc.noise, CellScale: sc.scale, Trials: 1, Effects: all, Experiments: n / 2, Seed: uint64(600 + i)}, seq)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%-50s A/A reject %.1f%% (any cell %.1f%%, mean %.1f rounds); 10%% slower everywhere rejected %.1f%% (mean %.1f rounds)",
			sc.name, 100*aa.Rate(aa.Verdicts[Reject]), 100*aa.Rate(aa.AnySignificant), aa.MeanRounds, 100*pw.Rate(pw.Verdicts[Reject]), pw.MeanRounds)
		if got := aa.Rate(aa.Verdicts[Reject]); got > 0.05 {
			t.Errorf("%s: sequential A/A rejected %.1f%%, want at most 5%%", sc.name, 100*got)
		}
		if got := pw.Rate(pw.Verdicts[Reject]); got < 0.9 || pw.MeanRounds >= float64(4*seq.MaxBlocks) {
			t.Errorf("%s: sequential, 10%% slower everywhere: rejected %.1f%% after %.1f rounds on average; want at least 90%%, before the maximum", sc.name, 100*got, pw.MeanRounds)
		}
	}
}

// TestSimulationTableEstimated prints SIMULATION.md's tables for the estimated natives'
// weight, the shape of the rounds and the sequential plan. Run it with
//
//	go test ./conformance/experiment -run TestSimulationTableEstimated -sim -simN 1000 -v
func TestSimulationTableEstimated(t *testing.T) {
	if !*simTable {
		t.Skip("run with -sim to print the simulation tables")
	}
	out := io.Writer(os.Stdout)
	n := *simN
	fmt.Fprintf(out, "Experiments per cell of the tables: %d. Seeds fixed. 10 cells, 2 natives; percentages.\n\n", n)
	fixed := Options{NativeWeight: Weight(0.5)}.withDefaults().method
	est := chosen()
	fmt.Fprintf(out, "### Natives' weight: fixed 0.5 against estimated, 4 rounds of 3 trials\n\n")
	fmt.Fprintln(out, strings.Replace(tableHeader, "LABEL", "noise model, weight", 1))
	for i, sc := range scenarios {
		fmt.Fprintln(out, simulateRow(t, sc, ABBA(1), fixed, n, uint64(4000+i)).markdown(sc.name+", fixed 0.5"))
		fmt.Fprintln(out, simulateRow(t, sc, ABBA(1), est, n, uint64(4000+i)).markdown(sc.name+", **estimated**"))
	}
	fmt.Fprintf(out, "\n### The same budget in more, shorter rounds (estimated weight): 4 rounds x 3 trials against 12 rounds x 1 trial\n\n")
	fmt.Fprintln(out, strings.Replace(tableHeader, "LABEL", "noise model, rounds x trials", 1))
	for i, sc := range scenarios {
		fmt.Fprintln(out, simulateRow(t, sc, ABBA(1), est, n, uint64(5000+i)).markdown(sc.name+", 4 x 3"))
		fmt.Fprintln(out, simulateRowTrials(t, sc, ABBA(3), 1, est, n, uint64(5000+i)).markdown(sc.name+", 12 x 1"))
	}
	fmt.Fprintf(out, "\n### Sequential: looks after every block of 4 rounds of 1 trial, at most 24 rounds (estimated weight)\n\n")
	sequentialTable(t, out, n, 6000, 0)
}

// TestSimulationTableModerated prints SIMULATION.md's tables for the cells' moderated
// variances: the default plan (12 rounds of 1 trial) with the pooled and the moderated
// variance under every noise model, the moderated method by rounds, the sequential plan, and
// replays of the recorded A/A runs. Run it with
//
//	go test ./conformance/experiment -run TestSimulationTableModerated -sim -simN 1000 -v -timeout 1h
func TestSimulationTableModerated(t *testing.T) {
	if !*simTable {
		t.Skip("run with -sim to print the simulation tables")
	}
	out := io.Writer(os.Stdout)
	n := *simN
	pooled := chosen().(roundModel)
	pooled.moderate = false
	fmt.Fprintf(out, "Experiments per row: %d. Seeds fixed. 10 cells, 2 natives; percentages.\n\n", n)
	fmt.Fprintf(out, "### The default plan, 12 rounds of 1 trial: variance pooled per client count against moderated per cell\n\n")
	fmt.Fprintln(out, strings.Replace(tableHeader, "LABEL", "noise model, variance", 1))
	for i, sc := range scenarios {
		fmt.Fprintln(out, simulateRowTrials(t, sc, ABBA(3), 1, pooled, n, uint64(8000+i)).markdown(sc.name+", pooled"))
		fmt.Fprintln(out, simulateRowTrials(t, sc, ABBA(3), 1, chosen(), n, uint64(8000+i)).markdown(sc.name+", **moderated**"))
	}
	fmt.Fprintf(out, "\n### The chosen method by rounds (1 trial a round; 4 x 3 is the lab's old shape)\n\n")
	fmt.Fprintln(out, strings.Replace(tableHeader, "LABEL", "noise model, rounds x trials", 1))
	for i, sc := range scenarios {
		for _, p := range []struct {
			blocks, trials int
		}{{1, 3}, {2, 1}, {3, 1}, {6, 1}} {
			fmt.Fprintln(out, simulateRowTrials(t, sc, ABBA(p.blocks), p.trials, chosen(), n, uint64(8100+10*i+p.blocks)).markdown(fmt.Sprintf("%s, %d x %d", sc.name, 4*p.blocks, p.trials)))
		}
	}
	fmt.Fprintf(out, "\n### Sequential: looks after every block of 4 rounds of 1 trial, at most 24 rounds, O'Brien-Fleming-type spending\n\n")
	// The one slowed cell is after@1 (index 4), a cell of average noise in every model.
	sequentialTable(t, out, n, 8600, 4)
	files, _ := filepath.Glob(filepath.Join("testdata", "aa-*.json"))
	fmt.Fprintf(out, "\n### Replayed on recorded A/A runs (Replay: pseudo-experiments of whole recorded blocks, each labelled ABBA or BAAB)\n\n")
	fmt.Fprintf(out, "| record | rounds | variance | A/A reject %% | A/A any cell significant %% | 10%% slower, all cells: reject %% | 10%% slower in after@1 alone: named %% |\n|---|---|---|---|---|---|---|\n")
	for _, f := range files {
		rec := readAAFile(t, f)
		d, err := arrange(rec)
		if err != nil || d.rounds/4 <= 3 {
			continue
		}
		keys := ReplayCells(rec)
		after1 := slices.Index(keys, CellKey{"after", 1})
		for _, rounds := range []int{4, 8, 12, 24} {
			for _, m := range []method{pooled, chosen()} {
				run := func(effects []float64, seed uint64) SimResult {
					r, err := Replay(rec, ReplayConfig{Rounds: rounds, Effects: effects, Experiments: n, Seed: seed, Options: Options{method: m}})
					if err != nil {
						t.Fatal(err)
					}
					return r
				}
				one := make([]float64, len(keys))
				one[after1] = 1.10
				aa, a10, o10 := run(nil, 1), run(everyCell(1.10), 2), run(one, 3)
				label := "pooled"
				if m == chosen() {
					label = "**moderated**"
				}
				fmt.Fprintf(out, "| %s | %d | %s | %.1f | %.1f | %.1f | %.1f |\n", filepath.Base(f), rounds, label,
					100*aa.Rate(aa.Verdicts[Reject]), 100*aa.Rate(aa.AnySignificant), 100*a10.Rate(a10.Verdicts[Reject]), 100*o10.Rate(o10.Flagged[after1]))
			}
		}
	}
}

// sequentialTable prints a row per noise model of the sequential plan (looks after every
// block of 4 rounds of 1 trial, at most 24 rounds, the default method): A/A, 10% slower
// everywhere, 10% slower in cell one alone, 5% slower everywhere, each with its mean rounds.
// Seeds run from seed, 100 apart per figure, so each table reproduces its own rows.
func sequentialTable(t *testing.T, out io.Writer, n int, seed uint64, one int) {
	t.Helper()
	fmt.Fprintf(out, "| noise model | A/A reject %% | A/A any cell significant %% | A/A mean rounds | 10%% slower, all cells: reject %% | mean rounds | 10%% slower, one cell: named %% | mean rounds | 5%% slower, all cells: reject %% | mean rounds |\n|---|---|---|---|---|---|---|---|---|---|\n")
	seq := Sequential{MaxBlocks: 6}
	alone := make([]float64, one+1)
	alone[one] = 1.10
	for i, sc := range scenarios {
		run := func(effects []float64, s uint64) SequentialResult {
			r, err := SimulateSequential(SimConfig{Noise: sc.noise, CellScale: sc.scale, Trials: 1, Effects: effects, Experiments: n, Seed: s}, seq)
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
		aa, a10, o10, a05 := run(nil, seed+uint64(i)), run(everyCell(1.10), seed+100+uint64(i)), run(alone, seed+200+uint64(i)), run(everyCell(1.05), seed+300+uint64(i))
		fmt.Fprintf(out, "| %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f |\n", sc.name,
			100*aa.Rate(aa.Verdicts[Reject]), 100*aa.Rate(aa.AnySignificant), aa.MeanRounds,
			100*a10.Rate(a10.Verdicts[Reject]), a10.MeanRounds, 100*o10.Rate(o10.Flagged[one]), o10.MeanRounds,
			100*a05.Rate(a05.Verdicts[Reject]), a05.MeanRounds)
	}
}

// everyCell is the effect e in each of the lab's 10 cells.
func everyCell(e float64) []float64 {
	out := make([]float64, 10)
	for i := range out {
		out[i] = e
	}
	return out
}

package experiment_test

import (
	"fmt"
	"time"

	"github.com/conform-dev/conform/conformance/experiment"
)

func ExampleAnalyze() {
	us := func(xs ...int) []time.Duration {
		out := make([]time.Duration, len(xs))
		for i, x := range xs {
			out[i] = time.Duration(x) * time.Microsecond
		}
		return out
	}
	// Two cells, one ABBA block, three trials per round, one native engine in every round.
	// In get@1 the candidate is about 8% faster; in page@1 about 4% slower. With two cells,
	// Holm's first step needs p <= 0.025, which no test of round labels alone can reach
	// before 10 rounds; the round model reaches it under its assumptions.
	round := func(v experiment.Variant, trials, native []time.Duration) experiment.Round {
		return experiment.Round{Variant: v, Trials: trials, Natives: map[string][]time.Duration{"elasticsearch": native}}
	}
	in := experiment.Input{Cells: []experiment.Cell{
		{Key: experiment.CellKey{Op: "get", Clients: 1}, Rounds: []experiment.Round{
			round(experiment.Baseline, us(400, 404, 398), us(300, 302, 299)),
			round(experiment.Candidate, us(369, 371, 367), us(301, 300, 303)),
			round(experiment.Candidate, us(366, 370, 368), us(299, 301, 300)),
			round(experiment.Baseline, us(401, 399, 403), us(302, 300, 301)),
		}},
		{Key: experiment.CellKey{Op: "page", Clients: 1}, Rounds: []experiment.Round{
			round(experiment.Baseline, us(700, 706, 698), us(600, 603, 598)),
			round(experiment.Candidate, us(730, 734, 727), us(601, 599, 604)),
			round(experiment.Candidate, us(729, 731, 733), us(600, 602, 599)),
			round(experiment.Baseline, us(702, 699, 704), us(603, 600, 601)),
		}},
	}}
	res, err := experiment.Analyze(in, experiment.Options{})
	if err != nil {
		panic(err)
	}
	for _, c := range res.Cells {
		fmt.Printf("%v %s %s: %v -> %v, ratio %.3f\n", c.Key, c.Class.Marker(), c.Class, c.Baseline.Median, c.Candidate.Median, c.Ratio)
	}
	fmt.Println("verdict:", res.Verdict)
	for _, r := range res.Reasons {
		fmt.Println(" ", r[:len("page@1 regressed +4.1%")])
	}
	fmt.Println("assumption-free floor:", fmt.Sprintf("%.3f", res.Rounds.PermutationMinP), "needs", res.Rounds.PermutationRoundsNeeded, "rounds")
	// Output:
	// get@1 ▼ improved: 400.5µs -> 368.5µs, ratio 0.919
	// page@1 ▲ regressed: 701µs -> 730.5µs, ratio 1.042
	// verdict: reject
	//   page@1 regressed +4.2%
	// assumption-free floor: 0.333 needs 10 rounds
}

func ExampleCompare() {
	ms := func(xs ...float64) []time.Duration {
		out := make([]time.Duration, len(xs))
		for i, x := range xs {
			out[i] = time.Duration(x * float64(time.Millisecond))
		}
		return out
	}
	key := experiment.CellKey{Op: "terms", Clients: 8}
	a := map[experiment.CellKey][]time.Duration{key: ms(3.08, 3.11, 3.05, 3.09, 3.07, 3.10)}
	b := map[experiment.CellKey][]time.Duration{key: ms(2.74, 2.77, 2.71, 2.75, 2.73, 2.76)}
	res, _ := experiment.Compare(a, b, experiment.Options{})
	c := res.Cells[0]
	fmt.Printf("%v %s ratio %.3f [%.3f, %.3f] p=%.4f\n", c.Key, c.Class, c.Ratio, c.Low, c.High, c.P)
	// Output:
	// terms@8 improved ratio 0.890 [0.881, 0.899] p=0.0022
}

func ExampleMethod() {
	fmt.Println(experiment.Method(experiment.Options{}))
	// Output:
	// estimator: candidate/baseline ratio of geometric-mean trial p50s from round means of log p50 (the trials of a round share its conditions and count once), each round adjusted by the native engines measured in it, minus b times their mean log p50, b estimated per client count from the cells' own round deviations (CUPED-style regression, shrunk by max(0, 1-1/t^2), within [0, 1]: 0 without correlation), and from 8 rounds on a second b, estimated the same way, for the round effect common to those cells; test: Student t on candidate vs baseline round means, with a linear trend over rounds from 8 rounds on, residual variance of round means pooled over the cells at the same client count, a round effect common to those cells estimated apart (split-plot), and each cell's own variance moderated towards that pool by empirical Bayes (limma-style prior df from the cells' spread: the pool when the cells agree, the cell's own when they do not), Satterthwaite df; 95% t interval per cell; Holm over cells at family-wise alpha 0.05; a cell is regressed or improved when significant with the ratio beyond ±2.0%, no-change when its whole interval lies within ±2.0%, undecided otherwise (its interval too wide to tell)
}

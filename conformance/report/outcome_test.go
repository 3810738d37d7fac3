package report

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/conform-dev/conform/conformance/experiment"
	"github.com/conform-dev/conform/conformance/readiness"
)

// synthetic is an experiment's input: 2 cells (get@1, page@1), rounds in ABBA order, three
// trials each with seeded log-normal noise of sd noise; the candidate's latency is the
// baseline's times effect[cell].
func synthetic(rounds int, noise float64, effect [2]float64, seed uint64) experiment.Input {
	rng := rand.New(rand.NewPCG(seed, 1))
	keys := []experiment.CellKey{{Op: "get", Clients: 1}, {Op: "page", Clients: 1}}
	in := experiment.Input{Failures: map[experiment.Variant]int{experiment.Baseline: 0, experiment.Candidate: 0}}
	for c, k := range keys {
		cell := experiment.Cell{Key: k}
		for _, v := range experiment.ABBA(rounds / 4) {
			level := 0.4 + 0.3*float64(c)
			if v == experiment.Candidate {
				level *= effect[c]
			}
			trials := make([]time.Duration, 3)
			for i := range trials {
				trials[i] = time.Duration(level * math.Exp(noise*rng.NormFloat64()) * float64(time.Millisecond))
			}
			cell.Rounds = append(cell.Rounds, experiment.Round{Variant: v, Trials: trials})
		}
		in.Cells = append(in.Cells, cell)
	}
	return in
}

// syntheticExperiment is an analysed synthetic experiment as the report shows it (its results
// hold only the header the title needs).
func syntheticExperiment(t *testing.T, rounds int, noise float64, effect [2]float64) *Experiment {
	t.Helper()
	a, err := experiment.Analyze(synthetic(rounds, noise, effect, 7), experiment.Options{NativeWeight: experiment.Weight(0)})
	if err != nil {
		t.Fatal(err)
	}
	r := sample()
	r.Settings.Ops = []string{"get", "page"}
	r.Settings.Clients = []int{1}
	r.Cells, r.Failures = nil, []Failure{}
	var infos []RoundInfo
	for i := range rounds {
		infos = append(infos, RoundInfo{Round: i + 1})
	}
	return &Experiment{Results: r, Baseline: "rest", Candidate: "grpc", Analysis: a, Rounds: infos, PlannedRounds: rounds}
}

var titleRE = regexp.MustCompile(`<title>(.*?)</title>[\s\S]*?<h1[^>]*>(.*?)</h1>`)

// The first line of report.md and the title and first heading of report.html say the
// outcome, for runs that passed, failed or stopped and for each verdict of an experiment.
func TestOutcomeFirstLinesGolden(t *testing.T) {
	passing := sample()
	passing.Failures = []Failure{}
	for i := range passing.Cells {
		c := &passing.Cells[i]
		c.Passed, c.Failed, c.FailuresByClass = c.Passed+c.Failed, 0, map[string]int{}
	}
	warmup := sample()
	warmup.Cells[0].Trials[0].WarmupFailed = 3
	finding := sample()
	finding.Failures = []Failure{}
	for i := range finding.Cells {
		c := &finding.Cells[i]
		c.Passed, c.Failed, c.FailuresByClass = c.Passed+c.Failed, 0, map[string]int{}
	}
	finding.Findings = []readiness.Finding{{Target: "gw", Kind: readiness.KindMapping, Summary: "mapping differs from the fixtures'"}}

	reject := syntheticExperiment(t, 8, 0.01, [2]float64{1, 1.25})
	failed := syntheticExperiment(t, 8, 0.01, [2]float64{1, 1})
	failed.Analysis.Failures[experiment.Candidate] = 12
	failed.Analysis.Verdict = experiment.Reject
	adopt := syntheticExperiment(t, 8, 0.01, [2]float64{0.8, 0.9})
	found := syntheticExperiment(t, 8, 0.01, [2]float64{1, 1})
	found.Analysis.Findings = map[experiment.Variant][]string{experiment.Candidate: {"mapping: price is double where the fixtures map scaled_float(100)"}}
	found.Analysis.Verdict = experiment.Reject
	undecided := syntheticExperiment(t, 4, 0.2, [2]float64{1, 1})
	within := syntheticExperiment(t, 12, 0.002, [2]float64{1, 1})
	stopped := syntheticExperiment(t, 4, 0.01, [2]float64{1, 1})
	stopped.Rounds, stopped.PlannedRounds = stopped.Rounds[:2], 12
	stopped.Results.Complete, stopped.Results.Incomplete = false, "round 3 (grpc): interrupted (Ctrl-C)"
	stopped.Analysis.MarkIncomplete("interrupted (Ctrl-C)", 12)
	never := &Experiment{Results: &Results{Settings: sample().Settings, Incomplete: "before round 1: interrupted (Ctrl-C) while warming rest, grpc"},
		Baseline: "rest", Candidate: "grpc", Analysis: experiment.NotStarted(experiment.Options{}, "interrupted (Ctrl-C)", 12), PlannedRounds: 12}

	var b bytes.Buffer
	line := func(what string, md, html []byte) {
		first := strings.SplitN(string(md), "\n", 2)[0]
		m := titleRE.FindSubmatch(html)
		if m == nil {
			t.Fatalf("%s: no title and h1 in %.300s", what, html)
		}
		fmt.Fprintf(&b, "%s\n  report.md:   %s\n  <title>:     %s\n  <h1>:        %s\n", what, first, m[1], m[2])
		if !strings.HasPrefix(string(m[1]), strings.TrimPrefix(first, "# ")[:10]) {
			t.Errorf("%s: report.md and report.html begin differently: %q, %q", what, first, m[1])
		}
	}
	line("a run that passed", Markdown(passing), HTML(passing))
	line("a run that failed", Markdown(sample()), HTML(sample()))
	line("a run whose warmup failed", Markdown(warmup), HTML(warmup))
	line("a run whose responses passed, with a readiness finding", Markdown(finding), HTML(finding))
	line("a run interrupted", Markdown(failing()), HTML(failing()))
	for _, x := range []struct {
		what string
		x    *Experiment
	}{
		{"an experiment that regressed", reject},
		{"an experiment whose candidate failed the check", failed},
		{"an experiment that improved", adopt},
		{"an experiment whose candidate had a readiness finding", found},
		{"an experiment too noisy to decide", undecided},
		{"an experiment shown within the threshold", within},
		{"an experiment stopped after round 2", stopped},
		{"an experiment stopped before round 1", never},
	} {
		line(x.what, ExperimentMarkdown(x.x), ExperimentHTML(x.x))
	}
	golden(t, "outcomes.txt", b.Bytes())
}

// The experiment's HTML says which way the ratio goes, and a cell that cannot declare any
// change says so in words, never as an absurd percentage.
func TestExperimentHTMLSaysTheRatioDirection(t *testing.T) {
	x := syntheticExperiment(t, 4, 0.6, [2]float64{1, 1})
	html := string(ExperimentHTML(x))
	md := string(ExperimentMarkdown(x))
	for _, doc := range []string{html, md} {
		for _, want := range []string{"grpc&#39;s latency over rest&#39;s (candidate/baseline): above 1 the candidate is slower, below 1 faster", "undecided (?)"} {
			if doc == md {
				want = strings.ReplaceAll(want, "&#39;", "'")
			}
			if !strings.Contains(doc, want) {
				t.Errorf("the report lacks %q", want)
			}
		}
		if regexp.MustCompile(`\d{4,}\.\d%`).MatchString(doc) {
			t.Errorf("an absurd percentage: %s", regexp.MustCompile(`\d{4,}\.\d%`).FindString(doc))
		}
	}
	if !strings.Contains(md, "cannot declare any change under 100% at this plan: needs ") {
		t.Errorf("the noisy cells do not say they cannot declare a change:\n%s", md)
	}
}

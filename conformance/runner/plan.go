package runner

import (
	"fmt"
	"io"
	"strings"

	"github.com/conform-dev/conform/conformance/experiment"
)

// RoundOrder names the rounds in order with their variants' labels: "1 rest, 2 grpc, ...".
func (x *Experiment) RoundOrder() string {
	var parts []string
	for i, v := range x.Order {
		label := x.Baseline.Label
		if v == experiment.Candidate {
			label = x.Candidate.Label
		}
		parts = append(parts, fmt.Sprintf("%d %s", i+1, label))
	}
	return strings.Join(parts, ", ")
}

// WritePlan writes what the experiment would do, without touching any target: the variants
// and natives, the settings, the rounds in order, each round's first steps in the rotating
// order Execute uses, and the measured responses. mode says how the variants are reached
// ("two URLs", or one URL and the command that switches it).
func (x *Experiment) WritePlan(w io.Writer, mode string) {
	s := x.Settings
	fmt.Fprintf(w, "experiment plan (%s)\n", mode)
	fmt.Fprintf(w, "  baseline  %s = %s\n  candidate %s = %s\n", x.Baseline.Label, x.Baseline.Target.Redacted(), x.Candidate.Label, x.Candidate.Target.Redacted())
	for _, n := range x.Natives {
		fmt.Fprintf(w, "  native    %s = %s\n", n.Name, n.Redacted())
	}
	fmt.Fprintf(w, "  settings  ops %s; clients %s; trials %d; requests %d per trial (shared among the clients); warmup %d; track_total_hits %s; timed layer %s\n",
		strings.Join(s.Ops, ","), joinInts(s.Clients), s.Trials, s.Requests, s.Warmup, s.TrackTotalHits, s.Layer)
	if x.Sequential != nil {
		fmt.Fprintf(w, "  rounds    sequential: at most %d in ABBA order, a look after every block of 4; stops when every cell is decided or a cell regressed (%s)\n", len(x.Order), experiment.Spending)
	} else {
		fmt.Fprintf(w, "  rounds    %d in ABBA order: %s\n", len(x.Order), x.RoundOrder())
	}
	fmt.Fprintf(w, "  warm-up   before round 1, every target: %s\n", x.Warm.withDefaults(s))
	steps := len(s.Ops) * len(s.Clients) * s.Trials
	fmt.Fprintf(w, "\nEach round: readiness and corpus check of every target, then %d steps (trial x operation x clients), every target per step in rotating order:\n", steps)
	natives := make([]string, len(x.Natives))
	for i, n := range x.Natives {
		natives[i] = n.Name
	}
	for i, v := range x.Order {
		label := x.Baseline.Label
		if v == experiment.Candidate {
			label = x.Candidate.Label
		}
		names := append([]string{label}, natives...)
		fmt.Fprintf(w, "  round %d (%s):", i+1, v)
		block := RoundRotation(i, len(names)) // as Execute rotates
		shown := 0
		for trial := 1; trial <= s.Trials && shown < 3; trial++ {
			for _, op := range s.Ops {
				for _, n := range s.Clients {
					if shown == 3 {
						break
					}
					var order []string
					for k := range names {
						order = append(order, names[(k+block)%len(names)])
					}
					fmt.Fprintf(w, " [t%d %s@%d: %s]", trial, op, n, strings.Join(order, " "))
					block++
					shown++
				}
			}
		}
		fmt.Fprintf(w, " … %d steps\n", steps)
	}
	perRound := (1 + len(x.Natives)) * steps * s.Requests
	fmt.Fprintf(w, "\nMeasured responses: %d rounds x %d targets x %d operations x %d concurrency levels x %d trials x %d requests = %d (%d per round), plus %d warmup requests\n",
		len(x.Order), 1+len(x.Natives), len(s.Ops), len(s.Clients), s.Trials, s.Requests, x.PlannedResponses(), perRound,
		len(x.Order)*(1+len(x.Natives))*steps*s.Warmup)
}

func joinInts(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, ",")
}

package experiment

import (
	"bytes"
	"testing"
	"time"
)

// FuzzReadAA feeds arbitrary bytes to the A/A reader: it must return a record or an error,
// never panic, and a record it accepts must be safe to estimate from.
func FuzzReadAA(f *testing.F) {
	f.Add([]byte(`{"format":"conform-aa/1","variant":"g","trials":[{"target":"g","op":"get","clients":1,"round":1,"p50_ns":[5]},{"target":"g","op":"get","clients":1,"round":2,"p50_ns":[6,7]}]}`))
	f.Add([]byte(`{"format":"conform-aa/1","variant":"g","trials":[{"target":"g","op":"get","clients":1,"round":3,"p50_ns":[1]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := ReadAA(bytes.NewReader(data))
		if err != nil {
			return
		}
		_, _ = EstimateNoise(a)
	})
}

// FuzzAnalyze builds experiments from arbitrary bytes (round orders, trial and native p50s,
// failures): Analyze must return a result or an error, never panic.
func FuzzAnalyze(f *testing.F) {
	f.Add([]byte{0, 1, 1, 0, 10, 20, 30, 40, 50, 60, 70, 80}, uint8(2), uint8(3))
	f.Add([]byte{1, 0}, uint8(1), uint8(0))
	f.Fuzz(func(t *testing.T, raw []byte, cells, trials uint8) {
		if len(raw) == 0 {
			return
		}
		R := int(raw[0]%6) + 1
		raw = raw[1:]
		next := func() byte {
			if len(raw) == 0 {
				return 0
			}
			b := raw[0]
			raw = raw[1:]
			return b
		}
		order := make([]Variant, R)
		for r := range order {
			order[r] = []Variant{Baseline, Candidate}[next()%2]
		}
		in := Input{Failures: map[Variant]int{Candidate: int(next() % 3)}}
		for c := range int(cells%5) + 1 {
			cell := Cell{Key: CellKey{Op: "op", Clients: c}}
			for _, v := range order {
				round := Round{Variant: v}
				for range int(trials % 4) {
					round.Trials = append(round.Trials, time.Duration(next())*time.Microsecond)
				}
				if next()%2 == 0 {
					round.Natives = map[string][]time.Duration{"es": {time.Duration(next()) * time.Microsecond}}
				}
				cell.Rounds = append(cell.Rounds, round)
			}
			in.Cells = append(in.Cells, cell)
		}
		res, err := Analyze(in, Options{})
		if err != nil {
			return
		}
		_ = res.String()
	})
}

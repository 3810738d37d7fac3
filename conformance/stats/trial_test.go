package stats

import (
	"reflect"
	"testing"
	"time"
)

func TestSummarizeTrial(t *testing.T) {
	lat := make([]time.Duration, 0, 200)
	for i := 200; i >= 1; i-- {
		lat = append(lat, time.Duration(i)*10*time.Microsecond)
	}
	tests := []struct {
		reason string
		in     TrialData
		want   Trial
	}{
		{
			reason: "200 passing requests of 10us..2ms in 1s: type 7 quantiles and 200/s",
			in:     TrialData{Latencies: lat, Wall: time.Second},
			want: Trial{
				P50:  1005 * time.Microsecond, // h=99.5: between 1000us and 1010us
				P95:  1900*time.Microsecond + 500*time.Nanosecond,
				P99:  1980*time.Microsecond + 100*time.Nanosecond,
				Mean: 1005 * time.Microsecond, Max: 2 * time.Millisecond,
				Throughput: 200, Passed: 200,
			},
		},
		{
			reason: "failures are counted by class and never timed; throughput counts passes only",
			in: TrialData{Latencies: []time.Duration{ms(1), ms(3)}, Wall: 500 * time.Millisecond,
				Failed: 3, Failures: map[string]int{"ids": 2, "status": 1, "sort": 0}},
			want: Trial{P50: ms(2), P95: ms(2.9), P99: ms(2.98), Mean: ms(2), Max: ms(3),
				Throughput: 4, Passed: 2, Failed: 3, Failures: map[string]int{"ids": 2, "status": 1}},
		},
		{
			reason: "a response failing two classes is one failed response, counted under each class",
			in:     TrialData{Latencies: []time.Duration{ms(1)}, Wall: time.Second, Failed: 2, Failures: map[string]int{"ids": 2, "totals": 2}},
			want: Trial{P50: ms(1), P95: ms(1), P99: ms(1), Mean: ms(1), Max: ms(1),
				Throughput: 1, Passed: 1, Failed: 2, Failures: map[string]int{"ids": 2, "totals": 2}},
		},
		{
			reason: "a trial where everything failed has counts but no latency",
			in:     TrialData{Wall: time.Second, Failed: 5, Failures: map[string]int{"transport": 5}},
			want:   Trial{Failed: 5, Failures: map[string]int{"transport": 5}},
		},
	}
	for _, tt := range tests {
		got, err := SummarizeTrial(tt.in)
		if err != nil {
			t.Errorf("%s: error %v", tt.reason, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tt.reason, got, tt.want)
		}
	}
}

func TestSummarizeTrialErrors(t *testing.T) {
	tests := []struct {
		reason string
		in     TrialData
	}{
		{"negative latency is a runner bug", TrialData{Latencies: []time.Duration{1, -1}, Wall: time.Second}},
		{"passes in zero wall time have no throughput", TrialData{Latencies: []time.Duration{1}}},
		{"negative wall time", TrialData{Wall: -time.Second}},
		{"negative failure count", TrialData{Wall: time.Second, Failures: map[string]int{"ids": -1}}},
		{"negative failed count", TrialData{Wall: time.Second, Failed: -1}},
		{"a class counting more responses than failed", TrialData{Wall: time.Second, Failed: 1, Failures: map[string]int{"ids": 2}}},
		{"failed responses in no class", TrialData{Wall: time.Second, Failed: 1}},
	}
	for _, tt := range tests {
		if got, err := SummarizeTrial(tt.in); err == nil {
			t.Errorf("%s: no error, got %+v", tt.reason, got)
		}
	}
}

func TestSummarizeCell(t *testing.T) {
	tr := func(p50, p95 float64, tput float64, passed int, fail map[string]int) Trial {
		n := 0
		for _, v := range fail {
			n += v
		}
		return Trial{P50: ms(p50), P95: ms(p95), Throughput: tput, Passed: passed, Failed: n, Failures: fail}
	}
	tests := []struct {
		reason string
		in     []Trial
		want   Cell
	}{
		{
			reason: "six trials, as a lab cell: median of p50s is the mean of the middle two",
			in: []Trial{tr(0.381, 0.9, 2600, 200, nil), tr(0.372, 0.8, 2700, 200, nil), tr(0.377, 1.0, 2650, 200, nil),
				tr(0.379, 0.7, 2500, 200, nil), tr(0.370, 1.1, 2750, 200, nil), tr(0.376, 0.85, 2640, 200, nil)},
			want: Cell{Trials: 6, LatencyTrials: 6, P50: ms(0.3765), P50Min: ms(0.370), P50Max: ms(0.381),
				P95: ms(0.875), Throughput: 2645, Passed: 1200},
		},
		{
			reason: "failures total by class; an all-failed trial counts zero throughput but no p50",
			in: []Trial{tr(1, 2, 100, 10, map[string]int{"ids": 1}), tr(3, 4, 300, 10, map[string]int{"ids": 2, "sort": 1}),
				{Failed: 20, Failures: map[string]int{"transport": 20}}},
			want: Cell{Trials: 3, LatencyTrials: 2, P50: ms(2), P50Min: ms(1), P50Max: ms(3), P95: ms(3),
				Throughput: 100, Passed: 20, Failed: 24, Failures: map[string]int{"ids": 3, "sort": 1, "transport": 20}},
		},
		{
			reason: "no passing response anywhere: totals only",
			in:     []Trial{{Failed: 1, Failures: map[string]int{"status": 1}}},
			want:   Cell{Trials: 1, Failed: 1, Failures: map[string]int{"status": 1}},
		},
	}
	for _, tt := range tests {
		got, err := SummarizeCell(tt.in)
		if err != nil {
			t.Errorf("%s: error %v", tt.reason, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tt.reason, got, tt.want)
		}
	}
	if _, err := SummarizeCell(nil); err != ErrNoTrials {
		t.Errorf("SummarizeCell(nil) error %v, want ErrNoTrials", err)
	}
}

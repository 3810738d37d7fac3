package load

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/conform-dev/conform/load/loadtest"
)

// The fake's count rises by a step per _count request after the refresh, so how many polls it
// takes does not depend on the clock.
func TestLoadESAwaitsAnAsynchronousCount(t *testing.T) {
	f := smallDefault(t, 2500)
	es := loadtest.NewFakeES()
	es.CountStep = 700
	var log bytes.Buffer
	rep, err := LoadES(context.Background(), serveES(t, es), f, ESOptions{Log: &log, PollInterval: time.Millisecond})
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if !rep.Probe.Intact() || rep.CountWaited <= 0 || len(rep.Warnings) != 0 {
		t.Errorf("report = %+v", rep)
	}
	// 700, 1400, 2100, 2500: four polls, then the probe's own count.
	if n := es.RequestCount("GET /catalogue/_count"); n != 5 {
		t.Errorf("%d _count requests, want 5", n)
	}
	for _, want := range []string{"count of catalogue is 700 of 2500 after ", "waiting for it to rise", "count of catalogue reached 2500 after "} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, log.String())
		}
	}
}

func TestLoadESJudgesACountThatNeverArrives(t *testing.T) {
	f := smallDefault(t, 2500)
	for _, tc := range []struct {
		reason string
		o      ESOptions
		fake   func(es *loadtest.FakeES)
		note   string
	}{
		{"it stops rising", ESOptions{CountStall: 20 * time.Millisecond}, func(es *loadtest.FakeES) { es.CountStep, es.CountDelta = 1000, -3 },
			"waited %s for the count to reach 2500: it reached 2497 and had not moved for"},
		{"it rises too slowly", ESOptions{CountWait: 30 * time.Millisecond}, func(es *loadtest.FakeES) { es.CountStep = 1 },
			"for the count to reach 2500, all the time the load had: it reached "},
	} {
		t.Run(tc.reason, func(t *testing.T) {
			es := loadtest.NewFakeES()
			tc.fake(es)
			var log bytes.Buffer
			tc.o.Log, tc.o.PollInterval = &log, time.Millisecond
			rep, err := LoadES(context.Background(), serveES(t, es), f, tc.o)
			var ve *VerifyError
			if !errors.As(err, &ve) {
				t.Fatalf("err = %v, want a VerifyError", err)
			}
			if ve.Problems[0].Kind != "count" || ve.Problems[0].Want != "2500" {
				t.Errorf("problems = %+v", ve.Problems)
			}
			_, rest, _ := strings.Cut(tc.note, "%s")
			if !strings.Contains(ve.Note, rest) || !strings.Contains(err.Error(), ve.Note) || !strings.Contains(log.String(), ve.Note) {
				t.Errorf("note %q (error %q) lacks %q or is not logged:\n%s", ve.Note, err, rest, log.String())
			}
			if rep.CountWaited <= 0 {
				t.Errorf("report = %+v", rep)
			}
		})
	}
}

func TestCountLimit(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	at := func(left time.Duration) context.Context {
		ctx, cancel := context.WithDeadline(context.Background(), now.Add(left))
		t.Cleanup(cancel)
		return ctx
	}
	for _, tc := range []struct {
		reason string
		ctx    context.Context
		wait   time.Duration
		want   time.Duration
	}{
		{"no deadline, no bound", context.Background(), 0, 10 * time.Minute},
		{"no deadline, a bound", context.Background(), time.Second, time.Second},
		{"--timeout 15m leaves 30s for the verification", at(15 * time.Minute), 0, 14*time.Minute + 30*time.Second},
		{"a tenth is reserved", at(100 * time.Second), 0, 90 * time.Second},
		{"at least a second is reserved", at(5 * time.Second), 0, 4 * time.Second},
		{"a bound inside the deadline", at(15 * time.Minute), time.Minute, time.Minute},
		{"a bound beyond the deadline", at(time.Minute), time.Hour, 54 * time.Second},
	} {
		if got := countLimit(tc.ctx, tc.wait, now); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.reason, got, tc.want)
		}
	}
}

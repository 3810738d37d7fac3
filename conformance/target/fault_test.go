package target

import (
	"sync/atomic"
	"testing"
	"time"
)

// Watch never stalls while the count moves, and stalls no sooner than after once it stops.
// Neither assertion depends on how fast the machine is: a moving count is one that changes
// at every look, and the lower bound is the watch's own rule.
func TestWatch(t *testing.T) {
	const after = 30 * time.Millisecond
	var looks atomic.Int64
	moving := func() int64 { return looks.Add(1) }
	done := make(chan struct{})
	stalled := make(chan struct{})
	go func() {
		Watch(after, moving, done, func() { close(stalled) })
	}()
	for looks.Load() < 30 { // 30 looks span well over after
		select {
		case <-stalled:
			t.Fatal("stalled while the count moved")
		case <-time.After(time.Millisecond):
		}
	}
	close(done)

	start := time.Now()
	stuck := make(chan time.Time, 1)
	Watch(after, func() int64 { return 7 }, make(chan struct{}), func() { stuck <- time.Now() })
	if at := <-stuck; at.Sub(start) < after {
		t.Errorf("stalled after %v, sooner than %v", at.Sub(start), after)
	}
}

func TestStallError(t *testing.T) {
	last := time.Date(2026, 12, 4, 21, 40, 12, 0, time.UTC)
	for _, tc := range []struct {
		s    Stall
		want string
	}{
		{Stall{Target: "gw", Last: last, After: 20 * time.Second, Timeout: 10 * time.Second},
			"target gw stopped answering: no response for 20s, twice the 10s timeout; the last at 21:40:12 UTC"},
		{Stall{Target: "gw", After: 3 * time.Second},
			"target gw stopped answering: no response for 3s; none came at all"},
	} {
		if got := tc.s.Error(); got != tc.want {
			t.Errorf("got  %q\nwant %q", got, tc.want)
		}
	}
}

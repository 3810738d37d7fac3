package engine

import (
	"net/http"
	"slices"
	"strings"
	"time"
)

// DelayReads waits d before serving a read (a path ending in _search or _count, or a GET
// holding _doc), as a slower engine would: conform serve --delay, a stand-in candidate that
// a gate must reject. The wait blocks the request's thread in nanosleep where the platform
// has it, so a sub-millisecond delay is not rounded up to the runtime timer's millisecond.
func DelayReads(next http.Handler, d time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isRead(r) {
			preciseSleep(d)
		}
		next.ServeHTTP(w, r)
	})
}

// SpinReads burns d of CPU before serving a read (the reads DelayReads delays), as an engine
// whose code path costs more would: conform serve --spin. Unlike a sleep, which the kernel
// overshoots by tens of microseconds (its timer slack), a spin adds d to a lone request to
// within a microsecond, so a candidate can be made slower by a known small fraction of a
// sub-millisecond p50; with more clients than CPUs the spins queue, as extra work does.
func SpinReads(next http.Handler, d time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isRead(r) {
			spin(d)
		}
		next.ServeHTTP(w, r)
	})
}

// spin busy-waits for d on the monotonic clock.
func spin(d time.Duration) {
	for start := time.Now(); time.Since(start) < d; {
	}
}

func isRead(r *http.Request) bool {
	p := r.URL.Path
	return strings.HasSuffix(p, "/_search") || strings.HasSuffix(p, "/_count") || r.Method == http.MethodGet && strings.Contains(p, "/_doc/")
}

// MeasuredDelay is the median of a few waits of d as DelayReads waits: what a read really
// waits, the kernel's overshoot included, so a user comparing latencies knows the delay added.
func MeasuredDelay(d time.Duration) time.Duration {
	n := 9
	if d > 10*time.Millisecond {
		n = 1
	}
	xs := make([]time.Duration, n)
	for i := range xs {
		start := time.Now()
		preciseSleep(d)
		xs[i] = time.Since(start)
	}
	slices.Sort(xs)
	return xs[n/2].Round(time.Microsecond)
}

package engine

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// DelayReads waits before reads only. The assertions are lower bounds on the reads' waits
// (a sleep never ends early) and an upper bound of the whole delay on the others, which a
// loopback request to a no-op handler does not approach.
func TestDelayReadsWaitsBeforeReadsOnly(t *testing.T) {
	const d = 200 * time.Millisecond
	srv := httptest.NewServer(DelayReads(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}), d))
	defer srv.Close()
	for _, tc := range []struct {
		method, path string
		read         bool
	}{
		{"POST", "/catalogue/_search", true},
		{"GET", "/catalogue/_count", true},
		{"GET", "/catalogue/_doc/SKU-1", true},
		{"PUT", "/catalogue/_doc/SKU-1", false},
		{"GET", "/", false},
		{"POST", "/catalogue/_bulk", false},
	} {
		req, _ := http.NewRequest(tc.method, srv.URL+tc.path, nil)
		start := time.Now()
		resp, err := http.DefaultClient.Do(req)
		took := time.Since(start)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if tc.read && took < d {
			t.Errorf("%s %s took %v, want at least the %v delay", tc.method, tc.path, took, d)
		}
		if !tc.read && took >= d {
			t.Errorf("%s %s took %v: a non-read was delayed", tc.method, tc.path, took)
		}
	}
	if m := MeasuredDelay(time.Millisecond); m < time.Millisecond {
		t.Errorf("MeasuredDelay(1ms) = %v, want at least 1ms", m)
	}
}

// SpinReads burns CPU before reads only: a read's handler returns no sooner than the spin, a
// non-read's well before it (a no-op handler does not approach 100 ms).
func TestSpinReadsBurnsBeforeReadsOnly(t *testing.T) {
	const d = 100 * time.Millisecond
	h := SpinReads(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}), d)
	for _, tc := range []struct {
		method, path string
		read         bool
	}{
		{"POST", "/catalogue/_search", true},
		{"GET", "/catalogue/_doc/SKU-1", true},
		{"PUT", "/catalogue/_doc/SKU-1", false},
		{"GET", "/", false},
	} {
		start := time.Now()
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(tc.method, tc.path, nil))
		took := time.Since(start)
		if tc.read && took < d {
			t.Errorf("%s %s took %v, want at least the %v spin", tc.method, tc.path, took, d)
		}
		if !tc.read && took >= d {
			t.Errorf("%s %s took %v: a non-read spun", tc.method, tc.path, took)
		}
	}
}

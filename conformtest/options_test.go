package conformtest_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/conform-dev/conform/conformtest"
)

// badTotalHits is what every test of a bad TrackTotalHits expects to read: the value given
// and the values accepted.
const badTotalHits = `conformtest.TrackTotalHits("maybe"): track_total_hits must be true, false or a non-negative integer, not "maybe"`

// A bad value is an error of Check and Handler, not a panic.
func TestTrackTotalHitsBadValueIsAnError(t *testing.T) {
	for _, tc := range []struct {
		value string
		ok    bool
		why   string
	}{
		{"true", true, "the default, spelled out"},
		{"false", true, "the disabled-total diagnostic"},
		{"10000", true, "a threshold"},
		{"0", true, "the smallest threshold"},
		{"maybe", false, "not a boolean or a number"},
		{"-1", false, "a negative threshold"},
		{"", false, "empty"},
		{"True", false, "booleans are lower case, as Elasticsearch spells them"},
	} {
		t.Run(fmt.Sprintf("%q", tc.value), func(t *testing.T) {
			_, err := conformtest.Handler(conformtest.TrackTotalHits(tc.value))
			if tc.ok {
				if err != nil {
					t.Fatalf("%s: Handler: %v", tc.why, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("%s: Handler accepted TrackTotalHits(%q)", tc.why, tc.value)
			}
			want := fmt.Sprintf("conformtest.TrackTotalHits(%q): track_total_hits must be true, false or a non-negative integer", tc.value)
			if !strings.HasPrefix(err.Error(), want) {
				t.Errorf("%s: error %q, want it to start with %q", tc.why, err, want)
			}
		})
	}
	// Check fails before it sends anything, so the URL is never dialled.
	if _, err := conformtest.Check(context.Background(), "http://127.0.0.1:1", conformtest.TrackTotalHits("maybe")); err == nil || err.Error() != badTotalHits {
		t.Errorf("Check: error %v, want %q", err, badTotalHits)
	}
}

// fakeTB records Fatalf and ends its goroutine as testing.T does.
type fakeTB struct {
	testing.TB
	mu    sync.Mutex
	fatal string
}

func (f *fakeTB) Helper()           {}
func (f *fakeTB) Cleanup(fn func()) {}
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.mu.Lock()
	f.fatal = fmt.Sprintf(format, args...)
	f.mu.Unlock()
	runtime.Goexit()
}

// NewServer reports a bad value through its testing.TB.
func TestNewServerBadTrackTotalHitsFatals(t *testing.T) {
	tb := &fakeTB{TB: t}
	done := make(chan bool)
	go func() {
		defer close(done)
		defer func() {
			if r := recover(); r != nil {
				t.Errorf("NewServer panicked: %v", r)
			}
		}()
		conformtest.NewServer(tb, conformtest.TrackTotalHits("maybe"))
		t.Error("NewServer returned after a bad option")
	}()
	<-done
	if want := "conformtest: " + badTotalHits; tb.fatal != want {
		t.Errorf("Fatalf(%q), want %q", tb.fatal, want)
	}
}

// TestBadTrackTotalHitsChild runs Run with a bad value; it only runs inside the child
// process TestRunBadTrackTotalHitsFails starts, where it is meant to fail.
func TestBadTrackTotalHitsChild(t *testing.T) {
	if os.Getenv("CONFORMTEST_BAD_TTH_CHILD") != "1" {
		t.Skip("runs in TestRunBadTrackTotalHitsFails's child process")
	}
	conformtest.Run(t, "http://127.0.0.1:1", conformtest.TrackTotalHits("maybe"))
}

// Run fails the test with t.Fatalf, naming the value and what is accepted, and does not panic.
func TestRunBadTrackTotalHitsFails(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestBadTrackTotalHitsChild$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), "CONFORMTEST_BAD_TTH_CHILD=1")
	out, err := cmd.CombinedOutput()
	text := string(out)
	if err == nil {
		t.Fatalf("the test with a bad TrackTotalHits passed:\n%s", text)
	}
	for _, want := range []string{"--- FAIL: TestBadTrackTotalHitsChild", "conformtest: " + badTotalHits} {
		if !strings.Contains(text, want) {
			t.Errorf("the child's output lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "panic:") {
		t.Errorf("the child panicked:\n%s", text)
	}
}

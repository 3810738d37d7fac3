package cpuset

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sys/unix"
)

// restore puts every thread back on the original set. Pin cannot: it only narrows.
func restore(t *testing.T, orig Set) {
	t.Helper()
	if err := apply(orig); err != nil {
		t.Fatalf("restoring CPUs %s: %v", orig, err)
	}
}

func TestPinWholeProcess(t *testing.T) {
	orig, err := Current()
	if err != nil {
		t.Fatal(err)
	}
	cpus := orig.CPUs()
	one := Of(cpus[len(cpus)-1])
	if err := Pin(one); err != nil {
		t.Fatal(err)
	}
	defer restore(t, orig)
	if got, err := Current(); err != nil || got != one {
		t.Fatalf("after Pin(%s), Current() = %s, %v", one, got, err)
	}
	// Goroutines locked to their threads at once need as many threads, some started after
	// Pin: every one of them must report the pinned set.
	const n = 8
	var wg sync.WaitGroup
	var ready sync.WaitGroup
	ready.Add(n)
	got := make([]string, n)
	for i := range n {
		wg.Go(func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			ready.Done()
			ready.Wait() // hold this thread until all n are held
			var cs unix.CPUSet
			if err := unix.SchedGetaffinity(0, &cs); err != nil {
				got[i] = err.Error()
				return
			}
			got[i] = fromUnix(&cs).String()
		})
	}
	wg.Wait()
	for i, g := range got {
		if g != one.String() {
			t.Errorf("locked goroutine %d's thread runs on %q, want %s", i, g, one)
		}
	}
	tids, err := threads()
	if err != nil {
		t.Fatal(err)
	}
	for _, tid := range tids {
		var cs unix.CPUSet
		if err := unix.SchedGetaffinity(tid, &cs); err == nil && fromUnix(&cs) != one {
			t.Errorf("thread %d runs on %s, want %s", tid, fromUnix(&cs), one)
		}
	}
	if p := runtime.GOMAXPROCS(0); p != 1 && os.Getenv("GOMAXPROCS") == "" {
		t.Errorf("GOMAXPROCS %d after pinning to one CPU, want 1 as under taskset", p)
	}
}

func TestPinRefuses(t *testing.T) {
	orig, err := Current()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		set  Set
		want string
		why  string
	}{
		{Set{}, "no CPU", "an empty set would stop the process"},
		{Of(MaxCPUs - 1), fmt.Sprintf("CPU %d is not online", MaxCPUs-1), "a CPU this machine does not have"},
	} {
		if tc.set.Len() > 0 && orig.Contains(tc.set.CPUs()[0]) {
			continue // a machine with 1024 CPUs
		}
		err := Pin(tc.set)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Pin(%s) (%s): %v, want an error with %q", tc.set, tc.why, err, tc.want)
		}
	}
	if got, _ := Current(); got != orig {
		t.Errorf("a refused Pin changed the affinity from %s to %s", orig, got)
	}
	if orig.Len() < 2 {
		t.Skipf("one CPU (%s): cannot narrow to test widening", orig)
	}
	cpus := orig.CPUs()
	first, second := Of(cpus[0]), Of(cpus[1])
	if err := Pin(first); err != nil {
		t.Fatal(err)
	}
	defer restore(t, orig)
	err = Pin(second)
	if want := fmt.Sprintf("CPU %d is outside the CPUs this process may use, %s", cpus[1], first); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Pin(%s) after Pin(%s): %v, want an error with %q", second, first, err, want)
	}
}

package cpuset

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"

	"golang.org/x/sys/unix"
)

// onlineFile lists the CPUs the kernel has online, in cpu-list syntax.
const onlineFile = "/sys/devices/system/cpu/online"

// Current returns the CPUs the calling thread may run on. Pin sets every thread alike, as
// taskset does for a process it starts, so after either this is the process's affinity.
func Current() (Set, error) {
	var cs unix.CPUSet
	if err := unix.SchedGetaffinity(0, &cs); err != nil {
		return Set{}, fmt.Errorf("reading the CPU affinity: %w", err)
	}
	return fromUnix(&cs), nil
}

// Pin makes the whole process run on s. sched_setaffinity sets one thread, so Pin sets every
// thread in /proc/self/task, again until a listing shows none it has not set (a thread
// inherits its creator's affinity, so threads started later follow). It refuses an empty set,
// offline CPUs and CPUs outside the current affinity, naming them, and changes nothing then.
//
// Unless $GOMAXPROCS is set, Pin then resets GOMAXPROCS to the runtime's default, which
// counts the CPUs the process may use: as if the process had been started under taskset (the
// runtime would otherwise follow within about a second).
func Pin(s Set) error {
	if s.Len() == 0 {
		return errors.New("no CPU to pin to")
	}
	if b, err := os.ReadFile(onlineFile); err == nil {
		if online, err := Parse(string(b)); err == nil {
			if off := s.Minus(online); off.Len() > 0 {
				return fmt.Errorf("%s not online (online: %s)", cpuWord(off), online)
			}
		}
	}
	cur, err := Current()
	if err != nil {
		return err
	}
	if out := s.Minus(cur); out.Len() > 0 {
		return fmt.Errorf("%s outside the CPUs this process may use, %s (as taskset or a cgroup set them; pinning narrows that set, never widens it)", cpuWord(out), cur)
	}
	return apply(s)
}

// cpuWord is "CPU 3 is" or "CPUs 2-3 are".
func cpuWord(s Set) string {
	if s.Len() == 1 {
		return "CPU " + s.String() + " is"
	}
	return "CPUs " + s.String() + " are"
}

// apply sets every thread's affinity to s, unchecked, and GOMAXPROCS to follow.
func apply(s Set) error {
	cs := toUnix(s)
	done := map[int]bool{}
	for {
		tids, err := threads()
		if err != nil {
			return err
		}
		fresh := 0
		for _, tid := range tids {
			if done[tid] {
				continue
			}
			fresh++
			done[tid] = true
			if err := unix.SchedSetaffinity(tid, &cs); err != nil && !errors.Is(err, unix.ESRCH) {
				// ESRCH is a thread that exited after the listing: nothing to pin.
				return fmt.Errorf("pinning thread %d to CPUs %s: %w", tid, s, err)
			}
		}
		if fresh == 0 {
			break
		}
	}
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.SetDefaultGOMAXPROCS()
	}
	return nil
}

// threads lists the process's thread ids.
func threads() ([]int, error) {
	entries, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil, fmt.Errorf("listing this process's threads: %w", err)
	}
	tids := make([]int, 0, len(entries))
	for _, e := range entries {
		if tid, err := strconv.Atoi(e.Name()); err == nil {
			tids = append(tids, tid)
		}
	}
	return tids, nil
}

func fromUnix(cs *unix.CPUSet) Set {
	var s Set
	for c := range MaxCPUs {
		if cs.IsSet(c) {
			s.add(c)
		}
	}
	return s
}

func toUnix(s Set) unix.CPUSet {
	var cs unix.CPUSet
	cs.Zero()
	for _, c := range s.CPUs() {
		cs.Set(c)
	}
	return cs
}

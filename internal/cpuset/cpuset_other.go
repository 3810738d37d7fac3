//go:build !linux

package cpuset

import (
	"errors"
	"runtime"
)

var errLinuxOnly = errors.New("CPU pinning is Linux-only (sched_setaffinity), not available on " + runtime.GOOS)

// Current returns an error outside Linux: there is no affinity to read the Linux way.
func Current() (Set, error) { return Set{}, errLinuxOnly }

// Pin returns an error outside Linux: it pins with sched_setaffinity.
func Pin(Set) error { return errLinuxOnly }

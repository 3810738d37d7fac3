//go:build unix

package runner

import (
	"syscall"
	"time"
)

// ProcessCPU is the CPU time this whole process has used so far, in user and kernel mode, as
// the OS accounts it (getrusage): every goroutine, the garbage collector and the runtime.
func ProcessCPU() (user, sys time.Duration, ok bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0, false
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano()), true
}

//go:build linux

package engine

import (
	"syscall"
	"time"
)

// preciseSleep waits at least d. time.Sleep rounds short waits up to about a millisecond on
// some Linux hosts (the runtime's timer waits in epoll with millisecond resolution), which
// would turn --delay 200us into 1.1 ms; nanosleep blocks only this goroutine's thread and
// overshoots by the kernel's timer slack (about 50-100 µs).
func preciseSleep(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	for {
		var rem syscall.Timespec
		err := syscall.Nanosleep(&ts, &rem)
		if err != syscall.EINTR {
			return
		}
		ts = rem
	}
}

package targettest

import (
	"syscall"
	"time"
)

// sleep blocks the calling thread for d. The Go runtime's timers wake up to a millisecond
// late on Linux, which would hide sub-millisecond delays; nanosleep is accurate to tens of
// microseconds and uses no CPU while waiting.
func sleep(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	for syscall.Nanosleep(&ts, &ts) == syscall.EINTR {
	}
}

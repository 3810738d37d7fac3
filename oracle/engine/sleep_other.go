//go:build !linux

package engine

import "time"

// preciseSleep waits at least d (time.Sleep where nanosleep is not available).
func preciseSleep(d time.Duration) { time.Sleep(d) }

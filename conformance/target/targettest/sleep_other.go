//go:build !linux

package targettest

import "time"

func sleep(d time.Duration) { time.Sleep(d) }

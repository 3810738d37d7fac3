//go:build !unix

package runner

import "time"

// ProcessCPU is not measured on this platform.
func ProcessCPU() (user, sys time.Duration, ok bool) { return 0, 0, false }

package overhead

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// cpuReader reads a process's CPU time (user + sys) from /proc/PID/stat, in the kernel's
// clock ticks (USER_HZ, 100 a second on Linux): over a run of seconds that is fine enough.
type cpuReader struct{ pid int }

// userHZ is Linux's USER_HZ, the unit of /proc/PID/stat's times on every architecture.
const userHZ = 100

// newCPUReader returns nil when pid is 0 or its CPU cannot be read.
func newCPUReader(pid int) *cpuReader {
	if pid <= 0 {
		return nil
	}
	r := &cpuReader{pid}
	if _, err := r.stat(); err != nil {
		return nil
	}
	return r
}

func (r *cpuReader) note() string {
	if r == nil {
		return "; the server's CPU is not measured"
	}
	return fmt.Sprintf("; the server's (pid %d) from /proc over the same span", r.pid)
}

// read returns the CPU time so far, or 0 when it cannot be read.
func (r *cpuReader) read() time.Duration {
	d, _ := r.stat()
	return d
}

func (r *cpuReader) stat() (time.Duration, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(r.pid) + "/stat")
	if err != nil {
		return 0, err
	}
	return parseStat(string(b))
}

// parseStat reads utime and stime (fields 14 and 15) of a /proc/PID/stat line; the command
// name in parentheses may hold spaces, so fields count from its closing parenthesis.
func parseStat(s string) (time.Duration, error) {
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, fmt.Errorf("not a /proc stat line: %.40q", s)
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("short /proc stat line: %.40q", s)
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("bad times in /proc stat line: %.40q", s)
	}
	return time.Duration(utime+stime) * time.Second / userHZ, nil
}

package main

import (
	"bytes"
	"context"
	"runtime"
	"strings"
	"testing"

	"github.com/conform-dev/conform/internal/cpuset"
)

// A bad --cpus is a usage error on every command that takes it, raised as the flags are
// parsed: before experiment's own checks, before serve binds or run reads the fixtures.
func TestCPUsFlagRefuses(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
		why  string
	}{
		{[]string{"run", "--cpus", "3-1"}, `--cpus: CPU list "3-1": the range ends below its start`, "a reversed range"},
		{[]string{"run", "--cpus", "0,,1"}, "--cpus: ", "an empty item"},
		{[]string{"serve", "--cpus", "one", "--empty"}, `"one" is not a CPU number`, "serve takes it too"},
		{[]string{"experiment", "--cpus", "x"}, `--cpus: CPU list "x"`, "refused before experiment asks for --baseline"},
		{[]string{"run", "--cpus", "1023"}, "--cpus 1023: ", "a CPU this machine does not have (or, outside Linux, no pinning at all)"},
	} {
		if tc.args[2] == "1023" && runtime.NumCPU() >= 1024 {
			continue
		}
		code, stdout, stderr := runCLI(t, nil, tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s (%s): exit %d, stderr %q; want exit %d and %q", strings.Join(tc.args, " "), tc.why, code, stderr, exitUsage, tc.want)
		}
		if stdout != "" {
			t.Errorf("%s: wrote %q to stdout", strings.Join(tc.args, " "), stdout)
		}
	}
}

// A good --cpus pins before the command starts and says so; the process's own CPUs are
// always a good list, so this test changes nothing.
func TestCPUsFlagPins(t *testing.T) {
	cur, err := cpuset.Current()
	if err != nil {
		t.Skip(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // serve stops as soon as it has bound
	var stdout, stderr bytes.Buffer
	e := &env{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
	code := conform(ctx, e, []string{"serve", "--empty", "--addr", "127.0.0.1:0", "--cpus", cur.String()})
	if code != exitOK || !strings.Contains(stderr.String(), "conform serve: pinned to CPUs "+cur.String()) {
		t.Errorf("serve --cpus %s: exit %d, stderr %q", cur, code, stderr.String())
	}
}

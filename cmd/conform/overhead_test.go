package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

func runOverheadCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	e := &env{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
	code := conform(context.Background(), e, append([]string{"overhead"}, args...))
	return code, stdout.String(), stderr.String()
}

func TestOverheadWithoutWrkSaysHowToInstallIt(t *testing.T) {
	code, _, stderr := runOverheadCLI(t, "--wrk", filepath.Join(t.TempDir(), "no-wrk-here"))
	if code != exitUsage || !strings.Contains(stderr, "apt-get install -y wrk") {
		t.Fatalf("exit %d, stderr %q; want exit 2 and how to install wrk", code, stderr)
	}
}

func TestOverheadRejectsBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--duration", "0s"},
		{"--rounds", "0"},
		{"--check", "maybe"},
		{"--server", "nope"},
		{"--serve", "nope"},
		{"--server-pid", "1"},
		{"--server", "static", "--target", "x=http://127.0.0.1:1"},
		{"--target", "a=http://127.0.0.1:1", "--target", "b=http://127.0.0.1:2"},
		{"extra"},
	} {
		if code, _, _ := runOverheadCLI(t, args...); code != exitUsage {
			t.Errorf("overhead %q: exit %d, want 2", args, code)
		}
	}
}

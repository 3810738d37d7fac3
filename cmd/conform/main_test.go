package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the CLI golden files under testdata/ (check the diff before committing)")

// runCLI runs one command line in process and returns its exit status and outputs.
func runCLI(t *testing.T, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	e := &env_{stdout: &stdout, stderr: &stderr, vars: env}
	code := conform(context.Background(), e.env(), args)
	return code, stdout.String(), stderr.String()
}

type env_ struct {
	stdout, stderr *bytes.Buffer
	vars           map[string]string
}

func (e *env_) env() *env {
	return &env{stdout: e.stdout, stderr: e.stderr, getenv: func(k string) string { return e.vars[k] }}
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file (go test -update rewrites it; check the diff):\n--- want\n%s\n--- got\n%s", name, want, got)
	}
}

func TestUsage(t *testing.T) {
	code, out, _ := runCLI(t, nil, "--help")
	if code != exitOK {
		t.Fatalf("--help exit %d", code)
	}
	golden(t, "usage.txt", out)
	if code, _, errOut := runCLI(t, nil, "nosuch"); code != exitUsage || !strings.Contains(errOut, `unknown command "nosuch"`) {
		t.Fatalf("unknown command: exit %d, %q", code, errOut)
	}
	if code, _, _ := runCLI(t, nil); code != exitUsage {
		t.Fatalf("no arguments: exit %d, want %d", code, exitUsage)
	}
}

// Every subcommand has help text with examples, and --help exits 0.
func TestEverySubcommandHasHelp(t *testing.T) {
	for _, c := range commands {
		code, out, errOut := runCLI(t, nil, c.name, "--help")
		if code != exitOK {
			t.Errorf("%s --help: exit %d, stderr %q", c.name, code, errOut)
		}
		if !strings.HasPrefix(out, "Usage: conform "+c.name) {
			t.Errorf("%s --help does not start with its usage line: %q", c.name, out)
		}
		if c.name != "version" && !strings.Contains(out, "Examples:") {
			t.Errorf("%s --help has no examples", c.name)
		}
	}
}

func TestFixturesCommand(t *testing.T) {
	code, out, errOut := runCLI(t, nil, "fixtures")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden(t, "fixtures-default.txt", out)

	dir1, dir2 := t.TempDir(), t.TempDir()
	_, out1, _ := runCLI(t, nil, "fixtures", "--out", dir1)
	_, out2, _ := runCLI(t, nil, "fixtures", "--out", dir2)
	strip := func(s, dir string) string { return strings.ReplaceAll(s, dir, "DIR") }
	if strip(out1, dir1) != strip(out2, dir2) {
		t.Fatalf("two writes report different hashes:\n%s\n%s", out1, out2)
	}
	for _, name := range []string{"mapping.json", "corpus.ndjson", "workload.json", "fixtures.json"} {
		a, _ := os.ReadFile(filepath.Join(dir1, name))
		b, _ := os.ReadFile(filepath.Join(dir2, name))
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s differs between two writes (or is empty)", name)
		}
	}
	if code, out, errOut := runCLI(t, nil, "fixtures", "--fixtures", dir1); code != exitOK || !strings.Contains(out, "10000 documents") {
		t.Fatalf("reading back: exit %d, %s %s", code, out, errOut)
	}
}

func TestFixturesCommandErrors(t *testing.T) {
	dir := t.TempDir()
	if code, _, _ := runCLI(t, nil, "fixtures", "--out", dir, "--documents", "300", "--cases", "get=4,page=2,after=2,terms=1,counts=1"); code != exitOK {
		t.Fatal("writing small fixtures failed")
	}
	os.Remove(filepath.Join(dir, "fixtures.json"))
	wl, _ := os.ReadFile(filepath.Join(dir, "workload.json"))
	bad := strings.Replace(string(wl), `"op":"terms"`, `"op":"bogus"`, 1)
	os.WriteFile(filepath.Join(dir, "workload.json"), []byte(bad), 0o644)
	code, _, errOut := runCLI(t, nil, "fixtures", "--fixtures", dir)
	if code != exitUsage || !strings.Contains(errOut, "workload.json:") || !strings.Contains(errOut, `"bogus" is not one of`) {
		t.Fatalf("bad workload: exit %d, stderr %q", code, errOut)
	}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"fixtures", "--nosuchflag"}, "conform fixtures: unknown flag --nosuchflag; see conform fixtures --help\n"},
		{[]string{"fixtures", "--cases", "get=x"}, `--cases: "get=x" is not op=N`},
		{[]string{"fixtures", "--fixtures", filepath.Join(dir, "nope")}, "nope: no such directory"},
		{[]string{"fixtures", "extra"}, "takes no arguments"},
	}
	for _, tc := range tests {
		code, _, errOut := runCLI(t, nil, tc.args...)
		if code != exitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want exit 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
}

// fixtures --out and fuzz --save refuse a directory that is not empty, leaving it as it was,
// unless --force; fuzz refuses before it sends a request.
func TestOutputDirectoriesAreNotOverwritten(t *testing.T) {
	dir := t.TempDir()
	edited := filepath.Join(dir, "mapping.json")
	if err := os.WriteFile(edited, []byte(`{"edited":true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	want := "is not empty (mapping.json); pass --force to write into it anyway"
	for _, args := range [][]string{
		{"fixtures", "--out", dir, "--documents", "10"},
		{"fuzz", "--n", "5", "--save", dir},
	} {
		code, out, errOut := runCLI(t, nil, args...)
		if code != exitUsage || !strings.Contains(errOut, want) || out != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", args, code, out, errOut, want)
		}
		if b, _ := os.ReadFile(edited); string(b) != `{"edited":true}` {
			t.Fatalf("%v overwrote %s", args, edited)
		}
	}
	if code, _, errOut := runCLI(t, nil, "fixtures", "--out", dir, "--documents", "10", "--force"); code != exitOK {
		t.Fatalf("--force: exit %d, %s", code, errOut)
	}
	if b, _ := os.ReadFile(edited); string(b) == `{"edited":true}` {
		t.Error("--force did not replace mapping.json")
	}
	for _, args := range [][]string{{"fixtures", "--force"}, {"fuzz", "--force"}} {
		if code, _, errOut := runCLI(t, nil, args...); code != exitUsage || !strings.Contains(errOut, "--force goes with") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut)
		}
	}
}

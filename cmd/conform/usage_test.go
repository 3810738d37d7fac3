package main

import (
	"fmt"
	"strings"
	"testing"
)

// A wrong flag or command, on every subcommand, is one line on stderr naming the problem, a
// "did you mean" when a close name exists, and where the help is; nothing on stdout; exit 2.
func TestUsageErrorsAreOneLine(t *testing.T) {
	lines := [][]string{
		{"chek"},
		{"help", "chek"},
		{"--verbose"},
		{"run", "--clients"},
		{"run", "--requets", "10"},
		{"check", "--targt", "x=http://127.0.0.1:1"},
		{"check", "--tar", "x=http://127.0.0.1:1"},
		{"fuzz", "--n", "abc"},
		{"fuzz", "--duration", "5"},
		{"explain", "page/001", "--ful"},
		{"experiment", "--dry-rn"},
		{"experiment", "--threshold", "two"},
		{"compare", "--forse", "a.json", "b.json"},
		{"load", "--recreat"},
		{"serve", "--adr", "127.0.0.1:1"},
		{"oracle"},
		{"oracle", "verfy"},
		{"oracle", "--es", "http://127.0.0.1:1"},
		{"oracle", "expect", "--ot", "x"},
		{"oracle", "record", "--es"},
		{"oracle", "verify", "--pedantic=maybe"},
		{"yamltest", "--targt", "http://127.0.0.1:1"},
		{"fixtures", "--ot", "x"},
		{"overhead", "--duraton", "1s"},
		{"version", "--json"},
	}
	var b strings.Builder
	for _, args := range lines {
		code, out, errOut := runCLI(t, nil, args...)
		fmt.Fprintf(&b, "$ conform %s\nexit %d: %s", strings.Join(args, " "), code, errOut)
		if code != exitUsage || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "--help") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2, one line on stderr pointing at --help", args, code, out, errOut)
		}
	}
	golden(t, "usage-errors.txt", b.String())
	// Every subcommand answers an unknown flag so.
	for _, c := range commands {
		code, _, errOut := runCLI(t, nil, c.name, "--no-such-flag")
		want := fmt.Sprintf("conform %s: unknown flag --no-such-flag; see conform %s --help\n", c.name, c.name)
		if c.name == "oracle" {
			want = "conform oracle: unknown flag --no-such-flag; see conform oracle --help\n"
		}
		if code != exitUsage || errOut != want {
			t.Errorf("%s --no-such-flag: exit %d, stderr %q, want %q", c.name, code, errOut, want)
		}
	}
}

func TestClosest(t *testing.T) {
	known := []string{"target", "timeout", "track-total-hits", "tls-ca", "trials", "fixtures", "force", "full"}
	tests := []struct{ typed, want string }{
		{"targt", "target"},   // a letter dropped
		{"tagret", "target"},  // two swapped
		{"tar", "target"},     // the start of it
		{"timout", "timeout"}, // a letter dropped
		{"ful", "full"},
		{"frce", "force"},
		{"xyz", ""},    // nothing close
		{"target", ""}, // a known name is not a typo
		{"t", ""},      // too short to guess
		{"fixturs", "fixtures"},
	}
	for _, tt := range tests {
		if got := closest(tt.typed, known); got != tt.want {
			t.Errorf("closest(%q) = %q, want %q", tt.typed, got, tt.want)
		}
	}
}

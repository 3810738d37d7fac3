package main

import (
	"errors"
	"flag"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// A wrong flag or command is said in one line: what is wrong, the name meant when one is
// close, and where the help is ("conform check: unknown flag --targt (did you mean
// --target?); see conform check --help"), never the whole usage text after it.

// usageLine is a usage error printed as it is, without conform's "conform: " prefix (it
// names the command itself): exit 2.
func usageLine(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...), bare: true}
}

// flagError turns an error of the flag package into one line for the command fs parses
// (fs.Name(), "check" or "oracle verify").
func flagError(fs *flag.FlagSet, err error) error {
	name := fs.Name()
	return usageLine("conform %s: %s; see conform %s --help", name, flagProblem(fs, err.Error()), name)
}

var (
	undefinedRE = regexp.MustCompile(`^flag provided but not defined: -+(.*)$`)
	noValueRE   = regexp.MustCompile(`^flag needs an argument: -+(.*)$`)
	badValueRE  = regexp.MustCompile(`^invalid (?:boolean )?value "(.*)" for (?:flag )?-+([^:]+): (.*)$`)
	badBoolRE   = regexp.MustCompile(`^invalid boolean flag ([^:]+): (.*)$`)
	badSyntaxRE = regexp.MustCompile(`^bad flag syntax: (.*)$`)
)

// flagProblem says what is wrong in the flag package's message msg, flags written as
// conform's help writes them (--name).
func flagProblem(fs *flag.FlagSet, msg string) string {
	if m := undefinedRE.FindStringSubmatch(msg); m != nil {
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		p := "unknown flag --" + m[1]
		if s := closest(m[1], names); s != "" {
			p += " (did you mean --" + s + "?)"
		}
		return p
	}
	if m := noValueRE.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("--%s needs a value (%s)", m[1], valueKind(fs, m[1]))
	}
	if m := badValueRE.FindStringSubmatch(msg); m != nil {
		value, flagName, why := m[1], m[2], m[3]
		if why == "parse error" || strings.HasPrefix(why, "strconv.") {
			why = "want " + valueKind(fs, flagName)
		}
		return fmt.Sprintf("--%s %q: %s", flagName, value, why)
	}
	if m := badBoolRE.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("--%s: %s", m[1], m[2])
	}
	if m := badSyntaxRE.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("bad flag syntax %s (flags are --name or --name=value)", m[1])
	}
	return msg
}

// valueKind says what a flag takes, from its help text's name for it (`NAME=URL`) or its
// type.
func valueKind(fs *flag.FlagSet, name string) string {
	f := fs.Lookup(name)
	if f == nil {
		return "a value"
	}
	switch fmt.Sprintf("%T", f.Value) {
	case "*flag.intValue", "*flag.int64Value", "*flag.uintValue", "*flag.uint64Value":
		return "a whole number"
	case "*flag.float64Value":
		return "a number"
	case "*flag.durationValue":
		return "a duration such as 30s or 2m"
	case "*flag.boolValue":
		return "true or false"
	}
	if typ, _ := flag.UnquoteUsage(f); typ != "" && typ != "value" {
		return typ
	}
	return "a value"
}

// unknownName is the one line for a name that is not a command (or a subcommand of parent):
// `conform: unknown command "chek" (did you mean check?); see conform --help`.
func unknownName(parent, what, name string, known []string) error {
	where := "conform"
	if parent != "" {
		where += " " + parent
	}
	p := fmt.Sprintf("%s: unknown %s %q", where, what, name)
	if what == "flag" {
		p = fmt.Sprintf("%s: unknown flag %s", where, name)
	}
	if s := closest(name, known); s != "" {
		p += " (did you mean " + s + "?)"
	}
	return usageLine("%s; see %s --help", p, where)
}

// closest is the known name a mistyped one most likely meant: the nearest by edit distance
// (a swap of two neighbours counting once) within a third of its length, at least 1 and at
// most 3, or the one it is the start of; "" when none is close.
func closest(typed string, known []string) string {
	typed = strings.ToLower(typed)
	best, bestD := "", 0
	for _, k := range sortedCopy(known) {
		d := editDistance(typed, strings.ToLower(k))
		if d == 0 {
			continue
		}
		limit := min(3, max(1, len(typed)/3))
		ok := d <= limit || len(typed) >= 2 && strings.HasPrefix(strings.ToLower(k), typed)
		if ok && (best == "" || d < bestD) {
			best, bestD = k, d
		}
	}
	return best
}

func sortedCopy(xs []string) []string {
	out := append([]string(nil), xs...)
	sort.Strings(out)
	return out
}

// editDistance is the optimal string alignment distance: insertions, deletions,
// substitutions and swaps of neighbours, each 1.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

// isHelp reports a help request, which the flag package answers with flag.ErrHelp.
func isHelp(err error) bool { return errors.Is(err, flag.ErrHelp) }

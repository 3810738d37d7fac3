// Command conform checks Elasticsearch-compatible search endpoints against Elasticsearch,
// strictly, and measures their latency only on responses that pass.
//
// main only parses the command line and calls library code; each subcommand lives in its own
// file with its own flag set and help text.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
)

// Exit statuses, documented in the README and in `conform --help`.
const (
	exitOK       = 0 // success
	exitFail     = 1 // a check failed or a gate rejected
	exitUsage    = 2 // usage or infrastructure error
	exitNoChange = 3 // an experiment found no change
)

// exitError carries an exit status with the error that caused it; a bare one is printed as
// it is (a usage line that names its command), any other after "conform: ".
type exitError struct {
	code int
	err  error
	bare bool
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// failed reports a check failure or a rejection: exit 1.
func failed(format string, args ...any) error {
	return &exitError{code: exitFail, err: fmt.Errorf(format, args...)}
}

// usageErr reports a usage error: exit 2.
func usageErr(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

// env is what a subcommand may touch of the outside world, so tests can run it in process.
type env struct {
	stdout, stderr io.Writer
	getenv         func(string) string
	// stderrIsTerminal enables progress displays.
	stderrIsTerminal bool
}

type command struct {
	name    string
	summary string
	run     func(ctx context.Context, e *env, args []string) error
}

// commands is every subcommand, in the order `conform --help` lists them.
var commands = []*command{
	{"run", "time the workload against targets, checking every response (the main job)", cmdRun},
	{"check", "one strict pass over every case; JUnit and JSON out; exit 1 on any mismatch", cmdCheck},
	{"fuzz", "random requests checked against the oracle; disagreements shrunk to minimal reproducers", cmdFuzz},
	{"explain", "show one case: request, curl, expected and actual bodies, the differences", cmdExplain},
	{"experiment", "paired baseline/candidate rounds and a verdict: adopt, reject, no-change or incomplete", cmdExperiment},
	{"compare", "compare two runs' results cell by cell with the experiment statistics", cmdCompare},
	{"load", "load the corpus into Elasticsearch-compatible engines or Qdrant, and prove it is intact", cmdLoad},
	{"snapshot", "export one index of a live Elasticsearch or OpenSearch into a fixtures directory", cmdSnapshot},
	{"serve", "serve the embedded Elasticsearch 8.15 engine over HTTP on loopback", cmdServe},
	{"capture", "a reverse proxy in front of an engine that records the read requests as a workload", cmdCapture},
	{"shadow", "a reverse proxy that also checks a candidate's answers against the primary's, live", cmdShadow},
	{"oracle", "compute, record or verify the expected responses (embedded, live:URL, golden:FILE)", cmdOracle},
	{"yamltest", "run Elasticsearch YAML REST tests against the embedded engine or a URL", cmdYAMLTest},
	{"fixtures", "write the default corpus, mapping and workload, or summarise a fixtures directory", cmdFixtures},
	{"overhead", "measure what conform's timed path costs, against wrk on a loopback server", cmdOverhead},
	{"version", "print conform's version and revision", cmdVersion},
}

func main() {
	ctx, stop := signalContext()
	e := &env{stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv, stderrIsTerminal: isTerminal(os.Stderr)}
	code := conform(ctx, e, os.Args[1:])
	stop()
	os.Exit(code)
}

// signalContext is cancelled by Ctrl-C or SIGTERM with a cause that says which, so every
// message about the work cut short says what happened ("interrupted (Ctrl-C)"), not
// "context canceled". stop ends the catching.
func signalContext() (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case s := <-sigs:
			cancel(signalCause(s))
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		cancel(nil)
	}
}

// signalCause is the error a signal cancels the work with.
func signalCause(s os.Signal) error {
	switch s {
	case os.Interrupt:
		return errors.New("interrupted (Ctrl-C)")
	case syscall.SIGTERM:
		return errors.New("terminated (SIGTERM)")
	}
	return fmt.Errorf("stopped by signal %v", s)
}

// conform runs one command line and returns the exit status.
func conform(ctx context.Context, e *env, args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" && len(args) == 1 {
		printUsage(e.stdout)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	name := args[0]
	if name == "help" {
		name, args = args[1], []string{args[1], "--help"}
	}
	if name == "--version" {
		name = "version"
	}
	names := make([]string, len(commands))
	for i, c := range commands {
		if c.name == name {
			return exitCode(e, c.run(ctx, e, args[1:]))
		}
		names[i] = c.name
	}
	what := "command"
	if strings.HasPrefix(name, "-") {
		what = "flag"
	}
	return exitCode(e, unknownName("", what, name, names))
}

func exitCode(e *env, err error) int {
	if err == nil {
		return exitOK
	}
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		switch {
		case ee.err == nil || ee.err.Error() == "":
		case ee.bare:
			fmt.Fprintf(e.stderr, "%v\n", ee.err)
		default:
			fmt.Fprintf(e.stderr, "conform: %v\n", ee.err)
		}
		return ee.code
	}
	fmt.Fprintf(e.stderr, "conform: %v\n", err)
	return exitUsage
}

func printUsage(w io.Writer) {
	fmt.Fprint(w, `conform checks Elasticsearch-compatible search endpoints against Elasticsearch, strictly,
and measures their latency only on responses that pass.

Usage: conform <command> [flags]

Commands:
`)
	width := 0
	for _, c := range commands {
		width = max(width, len(c.name))
	}
	for _, c := range commands {
		fmt.Fprintf(w, "  %-*s  %s\n", width, c.name, c.summary)
	}
	fmt.Fprint(w, `
Run "conform <command> --help" for a command's flags and examples.

Exit status: 0 success; 1 a check failed, readiness made a finding, or a gate rejected;
2 usage or infrastructure error (a target refused at readiness); 3 an experiment found no
change.
`)
}

// newFlags makes a subcommand's flag set with a usage text that lists examples before the flags.
func newFlags(e *env, name, synopsis, about string, examples ...string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	flagEnvs[fs] = e
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "Usage: conform %s %s\n\n%s\n", name, synopsis, strings.TrimSpace(about))
		if len(examples) > 0 {
			fmt.Fprintf(w, "\nExamples:\n")
			for _, ex := range examples {
				fmt.Fprintf(w, "  %s\n", ex)
			}
		}
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		if len(names) > 0 {
			fmt.Fprintf(w, "\nFlags:\n")
			sort.Strings(names)
			for _, n := range names {
				f := fs.Lookup(n)
				typ, usage := flag.UnquoteUsage(f)
				line := "  --" + n
				if typ != "" {
					line += " " + typ
				}
				fmt.Fprintf(w, "%s\n      %s", line, strings.ReplaceAll(usage, "\n", "\n      "))
				if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "[]" {
					fmt.Fprintf(w, " (default %s)", f.DefValue)
				}
				fmt.Fprintln(w)
			}
		}
		fmt.Fprintf(w, "\nExit status: 0 success; 1 a check failed, readiness made a finding, or a gate rejected; 2 usage or infrastructure error.\n")
	}
	return fs
}

// flagEnvs remembers each flag set's env, so help requested with --help goes to its stdout.
var flagEnvs = map[*flag.FlagSet]*env{}

// afterParse holds what a flag set's flags must do as soon as they are parsed, before the
// command reads them (--cpus pins the process there, so none of the command's work runs
// elsewhere first); parseFlags runs them in order and returns the first error.
var afterParse = map[*flag.FlagSet][]func() error{}

// parseFlags parses args and turns a flag error into one line naming it (flagError, exit 2);
// --help prints the help on stdout and exits 0. Then it runs the flag set's afterParse
// actions.
func parseFlags(fs *flag.FlagSet, args []string) error {
	// The flag package prints its message and the whole usage on an error: the line
	// flagError makes says it instead.
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if !isHelp(err) {
			return flagError(fs, err)
		}
		if e := flagEnvs[fs]; e != nil {
			fs.SetOutput(e.stdout)
		}
		fs.Usage()
		return err
	}
	for _, f := range afterParse[fs] {
		if err := f(); err != nil {
			return err
		}
	}
	return nil
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

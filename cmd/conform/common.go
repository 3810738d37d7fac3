package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/conform-dev/conform/conformance"
	"github.com/conform-dev/conform/conformance/lab"
	"github.com/conform-dev/conform/conformance/runner"
	"github.com/conform-dev/conform/conformance/suite"
	"github.com/conform-dev/conform/conformance/target"
	"github.com/conform-dev/conform/fixtures"
	"github.com/conform-dev/conform/internal/cpuset"
	"github.com/conform-dev/conform/oracle"
)

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// targetFlags are how every command that reaches a target authenticates and connects.
// Secrets are read from the environment, never from a flag value that would land in shell
// history, process listings and manifests; a URL's userinfo also works.
type targetFlags struct {
	user        string
	passwordEnv string
	apiKeyEnv   string
	caFile      string
	insecure    bool
	index       string
	timeout     time.Duration
}

func (t *targetFlags) register(fs *flag.FlagSet) {
	t.registerAuth(fs)
	fs.StringVar(&t.index, "index", "", "index `NAME` on the targets, replacing the workload's (for an alias or another name)")
	fs.DurationVar(&t.timeout, "timeout", target.DefaultTimeout, "per-request timeout, from writing the request to reading the last byte")
}

// registerAuth registers only how targets are authenticated and reached over TLS.
func (t *targetFlags) registerAuth(fs *flag.FlagSet) {
	fs.StringVar(&t.user, "user", "", "basic-auth user `NAME` for targets (the password comes from --password-env; a URL's user:pass@ also works)")
	fs.StringVar(&t.passwordEnv, "password-env", "CONFORM_PASSWORD", "environment `VAR` holding the basic-auth password")
	fs.StringVar(&t.apiKeyEnv, "api-key-env", "CONFORM_API_KEY", "environment `VAR` holding an API key, sent as Authorization: ApiKey (used when set)")
	fs.StringVar(&t.caFile, "ca", "", "PEM `FILE` of certificate authorities to trust for https targets")
	fs.BoolVar(&t.insecure, "insecure", false, "skip TLS certificate verification (a warning is recorded)")
}

func (t *targetFlags) options(e *env) (target.Options, error) {
	o := target.Options{Username: t.user, CAFile: t.caFile, Insecure: t.insecure, Index: t.index, Timeout: t.timeout}
	if t.user != "" {
		o.Password = e.getenv(t.passwordEnv)
		if o.Password == "" {
			return o, usageErr("--user %s needs a password in $%s", t.user, t.passwordEnv)
		}
	}
	if t.apiKeyEnv != "" {
		o.APIKey = e.getenv(t.apiKeyEnv)
	}
	if t.timeout <= 0 {
		return o, usageErr("--timeout must be positive")
	}
	return o, nil
}

// runFlags are the settings of a timed run, shared by run and experiment. REQUESTS, TRIALS,
// WARMUP and TRACK_TOTAL_HITS set the defaults; flags win.
type runFlags struct {
	ops      string
	clients  string
	requests int
	trials   int
	warmup   int
	tth      string
	keep     int
	layer    string
	check    checkFlags
	cpus     cpusFlag
	// defaultTrials, when set before register, replaces 3 as --trials' default (experiment
	// spends its budget on rounds: 12 rounds of 1 trial).
	defaultTrials int
}

// checkFlags select the strict check's options.
type checkFlags struct {
	pedantic bool
	relax    string
}

func (c *checkFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&c.pedantic, "pedantic", false, "fail on the report-only classes too (key order, took, _shards, scores under a field sort, versions, other fields)")
	names := []string{}
	for _, r := range conformance.Relaxations() {
		names = append(names, r.Name)
	}
	fs.StringVar(&c.relax, "relax", "", "comma-separated relaxations of the strict check, each recorded in every report: `LIST` of "+strings.Join(names, ", "))
}

func (c *checkFlags) options() (*conformance.Options, error) {
	relax, err := conformance.ParseRelaxations(c.relax)
	if err != nil {
		return nil, usageErr("--relax: %v", err)
	}
	return &conformance.Options{Pedantic: c.pedantic, Relax: relax}, nil
}

func (r *runFlags) register(e *env, fs *flag.FlagSet) error {
	envInt := func(name string, def int) (int, error) {
		v := e.getenv(name)
		if v == "" {
			return def, nil
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return 0, usageErr("$%s=%q is not a non-negative integer", name, v)
		}
		return n, nil
	}
	requests, err := envInt("REQUESTS", 200)
	if err != nil {
		return err
	}
	defTrials := 3
	if r.defaultTrials > 0 {
		defTrials = r.defaultTrials
	}
	trials, err := envInt("TRIALS", defTrials)
	if err != nil {
		return err
	}
	warmup, err := envInt("WARMUP", 40)
	if err != nil {
		return err
	}
	tth := envOr(e, "TRACK_TOTAL_HITS", "true")
	fs.StringVar(&r.ops, "ops", "", "comma-separated operations to run (`LIST`; default: every operation of the workload, by its own labels)")
	fs.StringVar(&r.clients, "clients", "1,8", "comma-separated concurrency levels (`LIST`), closed-loop clients with one connection each")
	fs.IntVar(&r.requests, "requests", requests, "measured requests per trial, shared among the clients ($REQUESTS)")
	fs.IntVar(&r.trials, "trials", trials, "trials per target, operation and concurrency level ($TRIALS)")
	fs.IntVar(&r.warmup, "warmup", warmup, "checked, untimed requests before each trial ($WARMUP)")
	fs.StringVar(&r.tth, "track-total-hits", tth, "track_total_hits sent with every search: true, false (the disabled-total diagnostic) or `N` ($TRACK_TOTAL_HITS)")
	fs.IntVar(&r.keep, "keep", runner.DefaultKeep, "failed responses of each class kept whole per target")
	fs.StringVar(&r.layer, "layer", target.LayerLean.String(), "how timed requests are sent (`LAYER`): lean (conform's timed path, prepared bytes on a raw keep-alive connection), lean+elastictransport (go-elasticsearch's transport over the lean connection), net/http or net/http+elastictransport; recorded with the results (see conform overhead)")
	r.check.register(fs)
	r.cpus.register(e, fs, "run conform (its clients and the check) only on these CPUs, a `LIST` such as 0 or 0-1,3, to keep the load generator off the targets' CPUs; the manifest records the affinity")
	return nil
}

// cpusFlag is --cpus: the CPUs this conform process runs on, as taskset -c would set them but
// for every thread. It takes effect as soon as the flags are parsed, before the fixtures are
// read or a client starts. The manifest's host records the affinity whether --cpus or an
// outer taskset set it.
type cpusFlag struct {
	list string
}

func (c *cpusFlag) register(e *env, fs *flag.FlagSet, usage string) {
	fs.StringVar(&c.list, "cpus", "", usage)
	afterParse[fs] = append(afterParse[fs], func() error { return c.pin(e, fs.Name()) })
}

// pin pins the process to --cpus, if given; a bad list or CPUs the process may not use are a
// usage error.
func (c *cpusFlag) pin(e *env, command string) error {
	if c.list == "" {
		return nil
	}
	s, err := cpuset.Parse(c.list)
	if err != nil {
		return usageErr("--cpus: %v", err)
	}
	if err := cpuset.Pin(s); err != nil {
		return usageErr("--cpus %s: %v", s, err)
	}
	fmt.Fprintf(e.stderr, "conform %s: pinned to CPUs %s\n", command, s)
	return nil
}

// settings are the run's settings for workload w: --ops is checked against its operations.
func (r *runFlags) settings(timeout time.Duration, w *fixtures.Workload) (runner.Settings, error) {
	s := runner.Settings{Requests: r.requests, Trials: r.trials, Warmup: r.warmup, Timeout: timeout, Keep: r.keep}
	ops, err := workloadOps(r.ops, w)
	if err != nil {
		return s, err
	}
	s.Ops = ops
	if s.Clients, err = runner.ParseClients(r.clients); err != nil {
		return s, usageErr("--clients: %v", err)
	}
	tth, err := fixtures.ParseTotalHits(r.tth)
	if err != nil {
		return s, usageErr("--track-total-hits: %v", err)
	}
	s.TrackTotalHits = tth
	if s.Layer, err = target.ParseLayer(r.layer); err != nil {
		return s, usageErr("--layer: %v", err)
	}
	if s.Check, err = r.check.options(); err != nil {
		return s, err
	}
	if err := s.Validate(); err != nil {
		return s, usageErr("%v", err)
	}
	return s, nil
}

// workloadOps reads --ops for workload w: empty is every operation of the workload, and a
// name the workload has no case of is a usage error naming the ones it has.
func workloadOps(spec string, w *fixtures.Workload) ([]string, error) {
	if len(w.Cases) == 0 {
		return nil, usageErr("the fixtures have no workload.json, so no cases to send (a snapshot alone is for conform load; copy a workload.json in beside it)")
	}
	if strings.TrimSpace(spec) == "" {
		return w.Ops(), nil
	}
	ops, err := fixtures.ParseOps(spec)
	if err != nil {
		return nil, usageErr("--ops: %v", err)
	}
	if err := w.CheckOps(ops); err != nil {
		return nil, usageErr("--ops: %v", err)
	}
	return ops, nil
}

// oracleSource resolves --oracle: a bad spec is a usage error.
func oracleSource(spec string, topts target.Options) (oracle.Source, error) {
	src, err := suite.OracleSource(spec, topts)
	if err != nil {
		return nil, usageErr("--oracle: %v", err)
	}
	return src, nil
}

// oracleIndexFacts is what a live oracle's index says of its deleted documents (and the
// corpus of its multi-valued fields): its "gte" at exactly track_total_hits lets a target's
// "eq" pass only where that count depends on the segment layout (conformance.Options
// .OracleIndex). Any other oracle knows nothing of an index, and the rule allows more.
func oracleIndexFacts(ctx context.Context, spec string, topts target.Options, f *fixtures.Fixtures) (conformance.IndexFacts, error) {
	u, ok := strings.CutPrefix(spec, "live:")
	if !ok {
		return conformance.IndexFacts{}, nil
	}
	ot, err := suite.LiveOracle(u, topts)
	if err != nil {
		return conformance.IndexFacts{}, usageErr("--oracle: %v", err)
	}
	lb, err := lab.Open(ctx, lab.Config{}, f)
	if err != nil {
		return conformance.IndexFacts{}, infra(err)
	}
	defer lb.Close()
	facts, err := lb.IndexFacts(ctx, ot)
	return facts, infra(err)
}

// expectations computes the expected responses once, before any timing.
func expectations(ctx context.Context, spec string, topts target.Options, f *fixtures.Fixtures, tth fixtures.TotalHits) (*oracle.Expectations, error) {
	src, err := oracleSource(spec, topts)
	if err != nil {
		return nil, err
	}
	x, err := suite.Expect(ctx, src, f, tth)
	if ierr := target.Interruption(ctx); err != nil && ierr != nil {
		err = fmt.Errorf("%w while computing the expected responses", ierr)
	}
	return x, infra(err)
}

// targetsOrEmbedded turns --target specs into targets; with none, it serves a fresh embedded
// engine loaded with the fixtures on loopback and returns it as the target "embedded". stop
// shuts that server down (a no-op otherwise).
func targetsOrEmbedded(specs []string, o target.Options, f *fixtures.Fixtures) (ts []*target.Target, stop func(), err error) {
	stop = func() {}
	if len(specs) == 0 {
		if !f.HasCorpus() {
			return nil, stop, usageErr("the fixtures have no corpus, so there is no embedded engine to serve them: give --target NAME=URL (and --oracle live:URL or golden:FILE)")
		}
		srv, err := suite.StartEmbedded(f)
		if err != nil {
			return nil, stop, infra(err)
		}
		stop = func() { srv.Close() }
		specs = []string{"embedded=" + srv.URL}
	}
	ts, err = parseTargets(specs, o)
	if err != nil {
		stop()
		return nil, func() {}, err
	}
	return ts, stop, nil
}

// parseTargets turns --target specs into targets.
func parseTargets(specs []string, o target.Options) ([]*target.Target, error) {
	ts, err := target.ParseAll(specs, o)
	if err != nil {
		return nil, usageErr("--target: %v", err)
	}
	return ts, nil
}

// infra wraps an infrastructure error: exit 2.
func infra(err error) error {
	if err == nil {
		return nil
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return err
	}
	return &exitError{code: exitUsage, err: err}
}

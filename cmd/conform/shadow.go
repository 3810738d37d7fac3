package main

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/conform-dev/conform/conformance"
	"github.com/conform-dev/conform/conformance/proxy"
	"github.com/conform-dev/conform/oracle"
)

func cmdShadow(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "shadow", "--primary URL --candidate URL --out DIR [--listen HOST:PORT] [flags]", `
The capture proxy with a candidate: clients talk to the primary through it and get the
primary's answer unchanged, never delayed by the candidate. Each read request (a --sample
fraction of them) is also sent to the candidate once the primary has answered, through a
bounded queue (--queue; a read that finds it full is dropped and counted, never waited for)
and --workers workers, each candidate request bounded by --candidate-timeout. The candidate's
answer is checked strictly against the primary's, which is the live oracle (--relax and
--pedantic as elsewhere). Writes go to the primary only, never to the candidate; the client's
credentials never leave for the candidate (the candidate URL's own user:pass@ is used).

Ties: by default shadow applies the tie-order relaxation, since two engines order documents
their sort cannot tell apart as their segments fall: within each run of hits whose whole sort
tuple (or, in relevance order, score) the primary shows equal, the candidate must hold the
same multiset of _id in the same positions, each hit then compared whole; at a page edge where
the tie may continue, a hit the primary's page lacks passes only with the tie's sort values,
its _source unjudged. --strict-ties compares the order too. The report records the rule.

A running summary goes to stderr every --progress (requests, checked, passed, failed by
class, dropped). Every failing request is written to DIR as a replayable case, grouped by
shape (workload.json, conform-workload/2) with the primary's answer in golden.json
(conform-golden/1), so conform check --fixtures DIR --oracle golden:DIR/golden.json and conform
explain replay it; shadow.json and report.md give the totals, both sides' latency (the
primary's over every checked read, the candidate's only over passing answers) and the
failures by shape. They are rewritten every second while requests come; Ctrl-C lets the
requests in flight and the queued candidate requests finish (for at most one more
--candidate-timeout: reads still queued then are counted as not sent) and writes them a last
time.

A primary that does not answer within --timeout gets the client a 504, one that cannot be
reached or answers garbage a 502. A candidate that hangs, dies or answers garbage fails its
requests as timeout, transport or decode. Exit status 1 when any candidate answer failed.`,
		"conform shadow --listen 127.0.0.1:9299 --primary http://127.0.0.1:9200 --candidate http://127.0.0.1:9201 --out shadow-out",
		"conform shadow --primary http://127.0.0.1:9200 --candidate http://127.0.0.1:8080 --sample 0.1 --relax opensearch --out shadow-out",
		"conform check --fixtures shadow-out --oracle golden:shadow-out/golden.json --target candidate=http://127.0.0.1:9201 --relax tie-order",
	)
	var pf proxyFlags
	pf.register(fs, "primary")
	primary := fs.String("primary", "", "`URL` of the primary, whose answers clients get and which is the oracle (required)")
	candidate := fs.String("candidate", "", "`URL` of the candidate checked against the primary (required)")
	sample := fs.Float64("sample", 1, "fraction of reads sent to the candidate, in (0, 1], spread evenly")
	queue := fs.Int("queue", proxy.DefaultQueue, "reads waiting for the candidate at most; more are dropped and counted")
	workers := fs.Int("workers", proxy.DefaultWorkers, "concurrent requests to the candidate")
	candTimeout := fs.Duration("candidate-timeout", proxy.DefaultCandidateTimeout, "bound on each candidate request, to its answer's last byte; past it the request fails as timeout")
	keep := fs.Int("keep", proxy.DefaultKeep, "distinct failing cases written per shape label; further ones are counted")
	progress := fs.Duration("progress", 10*time.Second, "how often the running summary is printed on stderr (0: never)")
	strictTies := fs.Bool("strict-ties", false, "compare the order of tied hits too (no tie-order relaxation)")
	var check checkFlags
	check.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErr("shadow takes no arguments, got %q", fs.Args())
	}
	pu, err := engineURL("primary", *primary)
	if err != nil {
		return err
	}
	cu, err := engineURL("candidate", *candidate)
	if err != nil {
		return err
	}
	if pf.out == "" {
		return usageErr("--out DIR is required")
	}
	if *sample <= 0 || *sample > 1 {
		return usageErr("--sample must be in (0, 1], not %v", *sample)
	}
	if *queue < 1 || *workers < 1 || *keep < 1 || *candTimeout <= 0 {
		return usageErr("--queue, --workers, --keep and --candidate-timeout must be positive")
	}
	opts, err := check.options()
	if err != nil {
		return err
	}
	if !*strictTies && !slices.Contains(opts.Relax, conformance.RelaxTieOrder) {
		opts.Relax = append(opts.Relax, conformance.RelaxTieOrder)
	}
	tc, err := pf.tls()
	if err != nil {
		return err
	}
	var ident *oracle.Identity
	for _, side := range []struct {
		name string
		url  string
		id   **oracle.Identity
	}{{"primary", *primary, &ident}, {"candidate", *candidate, nil}} {
		ep, err := oracle.NewHTTPEndpoint(side.url)
		if err != nil {
			return usageErr("--%s: %v", side.name, err)
		}
		ictx, cancel := context.WithTimeout(ctx, 5*time.Second)
		id, err := oracle.Identify(ictx, ep)
		cancel()
		if err != nil {
			fmt.Fprintf(e.stderr, "conform shadow: warning: the %s does not say what it is (%v); going on\n", side.name, err)
			continue
		}
		fmt.Fprintf(e.stderr, "conform shadow: %s %s: %s\n", side.name, ep.Name(), id)
		if side.id != nil {
			*side.id = id
		}
	}
	s, err := proxy.NewShadow(proxy.ShadowConfig{Primary: pu, Candidate: cu, Listen: pf.listen, Out: pf.out, Index: pf.index,
		Sample: *sample, Queue: *queue, Workers: *workers, CandidateTimeout: *candTimeout, CandidateTLS: tc, Check: opts,
		Keep: *keep, Forward: proxy.Options{Timeout: pf.timeout, MaxBody: pf.maxBody, TLS: tc}, PrimaryIdentity: ident})
	if err != nil {
		return &exitError{code: exitUsage, err: fmt.Errorf("--out %s: %w", pf.out, err)}
	}
	fmt.Fprintf(e.stderr, "conform shadow: check %s\n", opts)
	run := func(work context.Context) error {
		if *progress > 0 {
			go func() {
				t := time.NewTicker(*progress)
				defer t.Stop()
				for {
					select {
					case <-work.Done():
						return
					case <-t.C:
						fmt.Fprintln(e.stderr, s.Summary(false).Line())
					}
				}
			}()
		}
		return s.Run(work)
	}
	if err := serveProxy(ctx, e, "shadow", pf.listen, s.Handler(), run); err != nil {
		return err
	}
	sum := s.Summary(true)
	sum.WriteText(e.stdout)
	if sum.Failed > 0 {
		return failed("%d of %d checked answers of the candidate failed (%s)", sum.Failed, sum.Checked, pf.out)
	}
	return nil
}

package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/conform-dev/conform/conformance/proxy"
	"github.com/conform-dev/conform/oracle"
)

// proxyFlags are the flags capture and shadow share: where to listen and how to reach the
// engines behind.
type proxyFlags struct {
	listen   string
	out      string
	index    string
	timeout  time.Duration
	maxBody  int64
	caFile   string
	insecure bool
}

func (p *proxyFlags) register(fs *flag.FlagSet, upstream string) {
	fs.StringVar(&p.listen, "listen", "127.0.0.1:9299", "address `HOST:PORT` clients reach the proxy on")
	fs.StringVar(&p.out, "out", "", "directory `DIR` to write into (required)")
	fs.StringVar(&p.index, "index", "", "the workload's index `NAME`, written {index} in paths (default: the first index a read names)")
	fs.DurationVar(&p.timeout, "timeout", proxy.DefaultTimeout, "bound on each exchange with the "+upstream+", from sending the request to its answer's last byte; past it the client gets 504")
	fs.Int64Var(&p.maxBody, "max-body", proxy.DefaultMaxBody, "largest request or answer body (`BYTES`) kept for recording and checking; larger ones pass through unrecorded")
	fs.StringVar(&p.caFile, "ca", "", "PEM `FILE` of certificate authorities to trust for https engines")
	fs.BoolVar(&p.insecure, "insecure", false, "skip TLS certificate verification of the engines")
}

func (p *proxyFlags) tls() (*tls.Config, error) {
	if p.caFile == "" && !p.insecure {
		return nil, nil
	}
	c := &tls.Config{InsecureSkipVerify: p.insecure}
	if p.caFile != "" {
		pem, err := os.ReadFile(p.caFile)
		if err != nil {
			return nil, usageErr("--ca: %v", err)
		}
		c.RootCAs = x509.NewCertPool()
		if !c.RootCAs.AppendCertsFromPEM(pem) {
			return nil, usageErr("--ca %s: no PEM certificate in it", p.caFile)
		}
	}
	return c, nil
}

// engineURL parses an engine's URL flag.
func engineURL(flagName, raw string) (*url.URL, error) {
	if raw == "" {
		return nil, usageErr("--%s URL is required", flagName)
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" {
		return nil, usageErr("--%s %s: want an http or https URL with a host and no query", flagName, oracle.RedactURL(raw))
	}
	return u, nil
}

// serveProxy listens, serves h until ctx ends, then shuts the server down (letting requests
// in flight finish, at most grace), and only then stops run's work, so nothing a client was
// answered is missing from the files.
func serveProxy(ctx context.Context, e *env, name, addr string, h http.Handler, run func(context.Context) error) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return &exitError{code: exitUsage, err: fmt.Errorf("listening on %s: %w", addr, err)}
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute,
		ErrorLog: nil}
	work, stopWork := context.WithCancel(context.Background())
	defer stopWork()
	runErr := make(chan error, 1)
	go func() { runErr <- run(work) }()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Fprintf(e.stderr, "conform %s: listening on http://%s\n", name, ln.Addr())
	var serveErr error
	select {
	case <-ctx.Done():
		fmt.Fprintf(e.stderr, "conform %s: %v: finishing the requests in flight and writing the files\n", name, context.Cause(ctx))
	case serveErr = <-served:
	case err := <-runErr:
		srv.Close()
		return &exitError{code: exitUsage, err: fmt.Errorf("writing the files: %w", err)}
	}
	grace, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = srv.Shutdown(grace)
	stopWork()
	if err := <-runErr; err != nil {
		return &exitError{code: exitUsage, err: fmt.Errorf("writing the files: %w", err)}
	}
	if serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) {
		return &exitError{code: exitUsage, err: fmt.Errorf("serving: %w", serveErr)}
	}
	return nil
}

func cmdCapture(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "capture", "--upstream URL --out DIR [--listen HOST:PORT] [flags]", `
A reverse proxy in front of a live Elasticsearch-compatible engine that records the read
requests going through it as a workload of your own traffic.

Every request goes to the upstream unchanged (method, path, query, headers but the
hop-by-hop ones and Host, body) and its answer comes back unchanged (status, headers, body,
streamed as it arrives, keep-alive, chunked, HEAD); the proxy adds no header and never
decompresses. Read requests (_search, _count, _mget, _msearch, GET and HEAD of _doc and
_source) are written to DIR/workload.json as cases (format conform-workload/2): each op is a
label of the request's shape (its values left out, conform fuzz's reduction for search and
count bodies), e.g. search-term-brand-sort-price, count-range-views, get, mget, msearch;
identical requests (method, path, compact JSON body, kept headers) are one case with its
count. Writes (_bulk, _doc PUT/POST/DELETE, _update, index changes, ...) pass through, are
counted by endpoint and not recorded: the summary says how many, since they make a snapshot
of the index stale. Scrolls and point-in-time searches are counted, not recorded (their ids
expire). Credentials, Authorization headers and cookies are never stored; only Accept and
Content-Type are kept, when they ask for something other than plain JSON.

The files (workload.json and the summary capture.json) are rewritten at most every 500 ms
while requests come, each in one rename, so a kill -9 loses little; Ctrl-C lets the requests
in flight finish and writes them a last time. An upstream that does not answer within
--timeout gets the client a 504, one that cannot be reached or answers garbage a 502, each
with an Elasticsearch-style error body saying so.

Check the captured workload with --oracle live:URL (conform check --fixtures DIR).`,
		"conform capture --listen 127.0.0.1:9299 --upstream http://127.0.0.1:9200 --out captured",
		"conform check --fixtures captured --oracle live:http://127.0.0.1:9200 --target os=http://127.0.0.1:9201",
	)
	var pf proxyFlags
	pf.register(fs, "upstream")
	upstream := fs.String("upstream", "", "`URL` of the engine the proxy fronts (required)")
	maxPer := fs.Int("max-per-label", 0, "keep at most `N` distinct cases per label, counting the rest (0: no bound)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErr("capture takes no arguments, got %q", fs.Args())
	}
	up, err := engineURL("upstream", *upstream)
	if err != nil {
		return err
	}
	if pf.out == "" {
		return usageErr("--out DIR is required")
	}
	tc, err := pf.tls()
	if err != nil {
		return err
	}
	c, err := proxy.NewCapture(proxy.CaptureConfig{Upstream: up, Listen: pf.listen, Out: pf.out, Index: pf.index, MaxPerLabel: *maxPer,
		Forward: proxy.Options{Timeout: pf.timeout, MaxBody: pf.maxBody, TLS: tc}})
	if err != nil {
		return &exitError{code: exitUsage, err: fmt.Errorf("--out %s: %w", pf.out, err)}
	}
	start := time.Now()
	fmt.Fprintf(e.stderr, "conform capture: recording reads to %s into %s\n", oracle.RedactURL(up.String()), pf.out)
	if err := serveProxy(ctx, e, "capture", pf.listen, c.Handler(), c.Run); err != nil {
		return err
	}
	c.Summary(true).WriteText(e.stdout, pf.out, time.Since(start))
	return nil
}

package target

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/conform-dev/conform/fixtures"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/elastic/elastic-transport-go/v8/elastictransport"
	"github.com/elastic/go-elasticsearch/v8"
	"github.com/elastic/go-elasticsearch/v8/esapi"
)

// Client returns a go-elasticsearch client for the target's untimed work: identity (GET /),
// counts, loading. Its API methods (Info, Count, Bulk, ...) go straight to the transport.
//
// go-elasticsearch has no option to skip its product check: (*elasticsearch.BaseClient).Perform
// refuses the first 2xx response that lacks "X-Elastic-Product: Elasticsearch", which
// OpenSearch and most gateways do not send. The check lives only in BaseClient.Perform, not in
// the transport, so the client's API is built with esapi.New over the elastictransport client
// itself, which is the public constructor for exactly that. Do not call the returned client's
// Perform method directly (it is BaseClient's, with the check); use Transport().Perform.
//
// The transport never retries (a retried 503 would hide the fault), bounds every request by
// the target's timeout, sends the target's Authorization header, prefixes every path with the
// target's path, and returns errors scrubbed of credentials.
func (t *Target) Client() (*elasticsearch.Client, error) {
	tp, err := t.Transport()
	if err != nil {
		return nil, err
	}
	return &elasticsearch.Client{BaseClient: elasticsearch.BaseClient{Transport: tp}, API: esapi.New(tp)}, nil
}

// Doer returns a function that sends one untimed request (method, path, an optional JSON body)
// through one transport, so its keep-alive connections are reused, and reads the whole
// response up to MaxBody; errors are scrubbed of credentials. It is how the live oracle and
// conform fuzz reach a target.
func (t *Target) Doer() (func(ctx context.Context, method, path string, body []byte) (int, []byte, error), error) {
	do, err := t.RequestDoer()
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, method, path string, body []byte) (int, []byte, error) {
		return do(ctx, fixtures.Request{Method: method, Path: path, Body: body})
	}, nil
}

// RequestDoer is Doer for a whole request: its Content-Type (application/json when it has a
// body and names none) and its Accept header are sent too.
func (t *Target) RequestDoer() (func(ctx context.Context, r fixtures.Request) (int, []byte, error), error) {
	tp, err := t.Transport()
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, r fixtures.Request) (int, []byte, error) {
		var rd io.Reader
		if r.Body != nil {
			rd = bytes.NewReader(r.Body)
		}
		req, err := http.NewRequestWithContext(ctx, r.Method, r.Path, rd)
		if err != nil {
			return 0, nil, err
		}
		if r.Body != nil {
			ct := r.ContentType
			if ct == "" {
				ct = fixtures.MediaJSON
			}
			req.Header.Set("Content-Type", ct)
		}
		if r.Accept != "" {
			req.Header.Set("Accept", r.Accept)
		}
		resp, err := tp.Perform(req)
		if err != nil {
			return 0, nil, t.Scrub(err)
		}
		defer resp.Body.Close()
		out, err := io.ReadAll(io.LimitReader(resp.Body, MaxBody))
		if err != nil {
			return 0, nil, t.Scrub(err)
		}
		return resp.StatusCode, out, nil
	}, nil
}

// Transport returns the configured elastictransport client over net/http, for untimed use.
func (t *Target) Transport() (*elastictransport.Client, error) {
	return t.newTransport(t.httpTransport(), true)
}

// newTransport configures an elastictransport client over rt for this target; bound adds the
// target's timeout to requests that have no deadline (rt does not enforce one itself).
func (t *Target) newTransport(rt http.RoundTripper, bound bool) (*elastictransport.Client, error) {
	prefix, err := url.PathUnescape(t.Prefix)
	if err != nil {
		prefix = t.Prefix
	}
	u := &url.URL{Scheme: t.Scheme, Host: t.Host, Path: prefix}
	var header http.Header
	if t.authHeader != "" {
		// The same header bytes as the lean path, so both paths authenticate identically.
		header = http.Header{"Authorization": {t.authHeader}}
	}
	tp, err := elastictransport.New(elastictransport.Config{
		UserAgent:    "conform",
		URLs:         []*url.URL{u},
		Header:       header,
		DisableRetry: true,
		Transport:    &guard{t: t, rt: rt, bound: bound},
	})
	if err != nil {
		return nil, t.Scrub(err)
	}
	return tp, nil
}

// httpTransport is a net/http transport with the target's TLS settings and timeouts.
func (t *Target) httpTransport() *http.Transport {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = (&net.Dialer{Timeout: t.Timeout, KeepAlive: 30 * time.Second}).DialContext
	tr.DisableCompression = true
	tr.MaxIdleConnsPerHost = 16
	if t.tls != nil {
		tr.TLSClientConfig = t.tls.Clone()
		tr.ForceAttemptHTTP2 = false
	}
	return tr
}

// guard bounds each request by the target's timeout, unless the request's context already has
// a deadline, and scrubs credentials from errors.
type guard struct {
	t     *Target
	rt    http.RoundTripper
	bound bool
}

func (g *guard) RoundTrip(req *http.Request) (*http.Response, error) {
	// elastictransport joins the prefix to URL.Path only, leaving a RawPath (an id escaped as
	// a%2Fb) without it; the URL would then be re-escaped from Path and a%2Fb sent as a/b.
	if p := g.t.Prefix; p != "" && req.URL.RawPath != "" && !strings.HasPrefix(req.URL.RawPath, p) {
		req.URL.RawPath = p + req.URL.RawPath
	}
	if _, ok := req.Context().Deadline(); ok || !g.bound || g.t.Timeout <= 0 {
		res, err := g.rt.RoundTrip(req)
		return res, g.t.Scrub(err)
	}
	ctx, cancel := context.WithTimeout(req.Context(), g.t.Timeout)
	res, err := g.rt.RoundTrip(req.WithContext(ctx))
	if err != nil {
		cancel()
		if errors.Is(ctx.Err(), context.DeadlineExceeded) && req.Context().Err() == nil {
			// Our own bound ran out: say so, rather than "context deadline exceeded".
			return nil, &Fault{Class: ClassTimeout, Op: req.Method + " " + req.URL.Path, Msg: fmt.Sprintf("no response within %v (the per-request --timeout)", g.t.Timeout)}
		}
		return nil, g.t.Scrub(err)
	}
	res.Body = &cancelOnClose{ReadCloser: res.Body, cancel: cancel}
	return res, nil
}

// cancelOnClose releases the request's timeout when its body is closed, not before, so the
// timeout covers reading the body too.
type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c *cancelOnClose) Close() error {
	err := c.ReadCloser.Close()
	c.cancel()
	return err
}

package target

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/elastic/elastic-transport-go/v8/elastictransport"
)

// Layer is a way of sending timed requests. LayerLean is conform's timed path; the others
// can be chosen for a run (--layer) and let `conform overhead` show what each layer costs on
// the same target.
//
// The default was chosen by measurement (`conform overhead --duration 3s --rounds 5` on the
// 2-CPU development machine, 2026-12-02; median over rounds of each layer's ratio to wrk in the
// same round, p50 at 1 client / throughput at 8 clients): lean 1.03 / 1.02;
// lean+elastictransport 1.08 / 0.86; net/http 1.23 / 0.31; net/http+elastictransport
// 1.25 / 0.32. go-elasticsearch's transport over the lean RoundTripper costs one allocation per
// request (request objects are reset and reused, the response and its headers too), yet its
// *http.Request and *http.Response bookkeeping still loses about a seventh of the throughput at
// 8 clients on two CPUs, short of the 0.95 goal; so the default timed path writes prepared bytes
// on the connection itself, and go-elasticsearch serves the untimed work (Client) and any run
// that asks for it. Measured again on 2026-12-03 with the event loops driving the lean layer on
// Linux (PollConn; `conform overhead --duration 3s --rounds 3`: the embedded engine as the
// server, every response checked strictly; p50 at 1 client / throughput at 8 / CPU per request
// at 8, each against wrk): lean 0.67 / 1.11 / 0.87; lean+elastictransport 0.88 / 1.03 / 1.11;
// net/http 1.35 / 0.74 / 1.85; net/http+elastictransport 1.42 / 0.75 / 1.91.
type Layer int

const (
	// LayerLean writes prepared bytes on one raw keep-alive connection (Conn).
	LayerLean Layer = iota
	// LayerLeanTransport is go-elasticsearch's transport (elastictransport) over a
	// RoundTripper bound to one lean connection.
	LayerLeanTransport
	// LayerNetHTTP is a net/http Client on its own net/http Transport.
	LayerNetHTTP
	// LayerNetHTTPTransport is elastictransport over a net/http Transport: go-elasticsearch's
	// default stack.
	LayerNetHTTPTransport
)

// Layers lists every layer, leanest first.
var Layers = []Layer{LayerLean, LayerLeanTransport, LayerNetHTTP, LayerNetHTTPTransport}

func (l Layer) String() string {
	switch l {
	case LayerLean:
		return "lean"
	case LayerLeanTransport:
		return "lean+elastictransport"
	case LayerNetHTTP:
		return "net/http"
	case LayerNetHTTPTransport:
		return "net/http+elastictransport"
	}
	return "layer(" + strconv.Itoa(int(l)) + ")"
}

// ParseLayer reads a layer's name as String prints it.
func ParseLayer(s string) (Layer, error) {
	for _, l := range Layers {
		if l.String() == s {
			return l, nil
		}
	}
	return 0, fmt.Errorf("unknown layer %q (want lean, lean+elastictransport, net/http or net/http+elastictransport)", s)
}

// Exchanger is one closed-loop client's connection to a target: it sends request number i of
// the prepared requests it was opened with and reads the whole response. Exchange is called by
// one goroutine; Interrupt may be called from another.
type Exchanger interface {
	// Exchange sends reqs[i]. A complete response of any status is an Exchange; no complete
	// response is a *Fault (see ClassOf), or ErrInterrupted after Interrupt.
	Exchange(i int) (Exchange, error)
	// Interrupt cuts short the exchange in flight and every later one.
	Interrupt()
	// Reconnects counts connections opened after the first.
	Reconnects() int
	Close() error
}

// Async is an Exchanger that an event loop can drive: Begin writes a request without waiting
// for its response and Continue reads the response as the socket becomes readable, so one
// goroutine can keep many connections busy. *PollConn is one (Linux, plain TCP); runner's
// loop drives them. A loop must also enforce the timeout: Deadline says when the exchange in
// flight times out, and Expire ends it as a timeout fault.
type Async interface {
	Exchanger
	// Fd is the socket to wait on for readability, -1 when there is none. A redial may reuse
	// a closed socket's number, so a loop also watches Reconnects.
	Fd() int
	// Begin stamps the start of request i and writes it.
	Begin(i int) error
	// Continue reads what the socket holds; done reports a complete response, or a fault
	// (the error), ending the exchange.
	Continue() (ex Exchange, done bool, err error)
	// Buffered reports bytes already read for the exchange in flight, which the socket will
	// not signal again: call Continue without waiting.
	Buffered() bool
	Deadline() time.Time
	Expire() error
}

// Open connects one client of the given layer, ready to send reqs (prepared by this target).
// The lean layer over plain TCP on Linux is a *PollConn (an Async), otherwise a Conn.
func (t *Target) Open(ctx context.Context, layer Layer, reqs []*Prepared) (Exchanger, error) {
	switch layer {
	case LayerLean:
		if canPoll && t.tls == nil {
			return t.OpenPoll(ctx, reqs)
		}
		c, err := t.Dial(ctx)
		if err != nil {
			return nil, err
		}
		return &leanExchanger{c: c, reqs: reqs}, nil
	case LayerLeanTransport:
		rt, err := t.DialRoundTripper(ctx)
		if err != nil {
			return nil, err
		}
		tp, err := t.newTransport(rt, false)
		if err != nil {
			rt.Close()
			return nil, err
		}
		x := t.newHTTPExchanger(tp, nil, reqs, rt.c.Interrupt, rt.c.Reconnects, rt.Close)
		// The lean RoundTripper is done with a request when its response body is closed, so
		// each case's request can be reset and sent again.
		x.reuse = true
		return x, nil
	case LayerNetHTTP, LayerNetHTTPTransport:
		tr := t.httpTransport()
		tr.MaxConnsPerHost = 1 // one connection per client, as on the lean path
		tr.MaxIdleConnsPerHost = 1
		tr.ResponseHeaderTimeout = t.Timeout
		var dials atomic.Int64
		dial := tr.DialContext
		tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
			dials.Add(1)
			return dial(ctx, network, addr)
		}
		reconnects := func() int { return max(0, int(dials.Load())-1) }
		closeIdle := func() error { tr.CloseIdleConnections(); return nil }
		var x *httpExchanger
		if layer == LayerNetHTTP {
			x = t.newHTTPExchanger(nil, &http.Client{Transport: &guard{t: t, rt: tr}}, reqs, nil, reconnects, closeIdle)
		} else {
			tp, err := t.newTransport(tr, false)
			if err != nil {
				return nil, err
			}
			x = t.newHTTPExchanger(tp, nil, reqs, nil, reconnects, closeIdle)
		}
		// Open the connection now, as the lean path does, so the first timed request does not
		// pay for the dial.
		if err := x.warm(ctx); err != nil {
			x.Close()
			return nil, err
		}
		return x, nil
	}
	return nil, fmt.Errorf("unknown layer %v", layer)
}

type leanExchanger struct {
	c    *Conn
	reqs []*Prepared
}

func (x *leanExchanger) Exchange(i int) (Exchange, error) { return x.c.Exchange(x.reqs[i]) }
func (x *leanExchanger) Interrupt()                       { x.c.Interrupt() }
func (x *leanExchanger) Reconnects() int                  { return x.c.Reconnects() }
func (x *leanExchanger) Close() error                     { return x.c.Close() }

// httpExchanger sends requests as *http.Request through elastictransport (tp) or a net/http
// client. The request object is built before the timer starts; the timer spans Perform or Do
// and reading the body.
type httpExchanger struct {
	t          *Target
	tp         *elastictransport.Client
	client     *http.Client
	reqs       []*Prepared
	tmpl       []*http.Request
	sent       []*http.Request // with reuse, each case's request, reset before it is sent again
	reuse      bool
	body       reusedBody
	buf        []byte
	ctx        context.Context
	cancel     context.CancelFunc
	interrupt  func()
	reconnects func() int
	close      func() error
}

func (t *Target) newHTTPExchanger(tp *elastictransport.Client, client *http.Client, reqs []*Prepared, interrupt func(), reconnects func() int, close func() error) *httpExchanger {
	ctx, cancel := context.WithCancel(context.Background())
	return &httpExchanger{t: t, tp: tp, client: client, reqs: reqs, buf: make([]byte, 0, 64<<10),
		ctx: ctx, cancel: cancel, interrupt: interrupt, reconnects: reconnects, close: close}
}

// request builds the *http.Request for case i: a copy of a template built on the case's
// first use, with its own URL (the transport rewrites it) and header map, and the exchanger's
// own body reader, so a request costs four small allocations rather than a URL parse. With
// reuse (over the lean RoundTripper, which has finished with a request once its response body
// is closed) the case's previous request and the exchanger's body reader are reset instead,
// and cost none.
func (x *httpExchanger) request(i int) (*http.Request, error) {
	if x.tmpl == nil {
		x.tmpl = make([]*http.Request, len(x.reqs))
	}
	t := x.tmpl[i]
	if t == nil {
		var err error
		if t, err = x.newRequest(x.reqs[i]); err != nil {
			return nil, err
		}
		x.tmpl[i] = t
	}
	var r *http.Request
	if x.reuse {
		if x.sent == nil {
			x.sent = make([]*http.Request, len(x.reqs))
		}
		if r = x.sent[i]; r == nil {
			r = new(http.Request)
			*r = *t
			r.URL = new(url.URL)
			r.Header = make(http.Header, len(t.Header)+2)
			x.sent[i] = r
		}
		// Undo what the transport did to it last time: URL, headers, body.
		h, u := r.Header, r.URL
		*r = *t
		*u = *t.URL
		r.URL, r.Header = u, h
		clear(h)
	} else {
		r = new(http.Request)
		*r = *t
		u := *t.URL
		r.URL = &u
		r.Header = make(http.Header, len(t.Header)+2) // room for the transport's User-Agent and Authorization
	}
	for k, v := range t.Header {
		r.Header[k] = v[:len(v):len(v)] // shared, read-only: an Add copies
	}
	if b := x.reqs[i].Body; b != nil {
		if x.reuse {
			x.body.Reset(b)
			r.Body = &x.body
		} else {
			// net/http's transport may still be writing a body when the response is done.
			r.Body = &reusedBody{Reader: *bytes.NewReader(b)}
		}
	}
	return r, nil
}

// reusedBody is a request body reader that closes as a no-op; the exchanger's own is reset for
// every request.
type reusedBody struct{ bytes.Reader }

func (*reusedBody) Close() error { return nil }

func (x *httpExchanger) newRequest(p *Prepared) (*http.Request, error) {
	var body io.Reader
	if p.Body != nil {
		body = bytes.NewReader(p.Body)
	}
	var req *http.Request
	var err error
	if x.tp != nil {
		// elastictransport adds scheme, host, prefix and Authorization itself, as esapi expects.
		req, err = http.NewRequestWithContext(x.ctx, p.Method, p.Path[len(x.t.Prefix):], body)
	} else {
		req, err = http.NewRequestWithContext(x.ctx, p.Method, p.URL, body)
		if err == nil && x.t.authHeader != "" {
			req.Header.Set("Authorization", x.t.authHeader)
		}
	}
	if err != nil {
		return nil, err
	}
	if p.Body != nil {
		req.Header.Set("Content-Type", p.ContentType)
	}
	if p.Accept != "" {
		req.Header.Set("Accept", p.Accept)
	}
	return req, nil
}

func (x *httpExchanger) Exchange(i int) (Exchange, error) {
	req, err := x.request(i)
	if err != nil {
		return Exchange{}, err
	}
	start := time.Now()
	var res *http.Response
	if x.tp != nil {
		res, err = x.tp.Perform(req)
	} else {
		res, err = x.client.Do(req)
	}
	if err != nil {
		return Exchange{}, x.fault("round trip", err)
	}
	if lb, ok := res.Body.(*leanBody); ok && lb.r != nil {
		// The lean RoundTripper's body is already whole in the connection's buffer.
		b := lb.b
		res.Body.Close()
		return Exchange{Status: res.StatusCode, Body: b, Start: start, End: time.Now()}, nil
	}
	b := x.buf[:0]
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, rerr := res.Body.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			res.Body.Close()
			return Exchange{}, x.fault("read body", rerr)
		}
	}
	res.Body.Close()
	end := time.Now()
	x.buf = b
	return Exchange{Status: res.StatusCode, Body: b, Start: start, End: end}, nil
}

func (x *httpExchanger) fault(op string, err error) error {
	if x.ctx.Err() != nil {
		return ErrInterrupted
	}
	var f *Fault
	if errors.As(err, &f) {
		return x.t.Scrub(f)
	}
	return x.t.Scrub(&Fault{Class: classOfErr(err), Op: op, Msg: err.Error()})
}

// warm opens the client's connection by sending the first request and discarding the
// response, so the first timed request does not pay for the dial.
func (x *httpExchanger) warm(ctx context.Context) error {
	if len(x.reqs) == 0 {
		return nil
	}
	if _, err := x.Exchange(0); err != nil {
		return err
	}
	return nil
}

func (x *httpExchanger) Interrupt() {
	x.cancel()
	if x.interrupt != nil {
		x.interrupt()
	}
}

func (x *httpExchanger) Reconnects() int { return x.reconnects() }

func (x *httpExchanger) Close() error {
	x.cancel()
	return x.close()
}

// RoundTripper is an http.RoundTripper bound to one lean connection, so go-elasticsearch's
// transport can drive the lean path. It serialises each *http.Request as it comes (request
// line, Host, the request's headers, Content-Length, body) and returns a response whose body
// is the connection's reused buffer. It carries one request at a time: the previous
// response's body must be closed before the next RoundTrip, and the response (its header map
// and body included) is only valid until then. The request's context is not
// watched; the target's timeout bounds each exchange.
type RoundTripper struct {
	c    *Conn
	raw  []byte
	body []byte
	open bool
	// The response and its body are reused by every RoundTrip, so a passing exchange
	// allocates nothing here.
	res    http.Response
	lb     leanBody
	reader bytes.Reader
}

// DialRoundTripper opens a lean connection and wraps it as a RoundTripper.
func (t *Target) DialRoundTripper(ctx context.Context) (*RoundTripper, error) {
	c, err := t.Dial(ctx)
	if err != nil {
		return nil, err
	}
	c.header = http.Header{} // the transport and its callers read response headers
	return &RoundTripper{c: c}, nil
}

// Close closes the connection.
func (rt *RoundTripper) Close() error { return rt.c.Close() }

// RoundTrip implements http.RoundTripper.
func (rt *RoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	if rt.open {
		return nil, errors.New("lean RoundTripper: the previous response body was not closed")
	}
	body := rt.body[:0]
	if req.Body != nil && req.Body != http.NoBody {
		var err error
		body, err = readAllInto(body, req.Body)
		req.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("lean RoundTripper: reading the request body: %w", err)
		}
		rt.body = body
	}
	host := req.Host
	if host == "" {
		host = req.URL.Host
	}
	b := rt.raw[:0]
	b = append(b, req.Method...)
	b = append(b, ' ')
	b = appendRequestURI(b, req.URL)
	b = append(b, " HTTP/1.1\r\nHost: "...)
	b = append(b, host...)
	b = append(b, "\r\n"...)
	for k, vs := range req.Header {
		if k == "Host" || k == "Content-Length" {
			continue
		}
		for _, v := range vs {
			b = append(b, k...)
			b = append(b, ": "...)
			b = append(b, v...)
			b = append(b, "\r\n"...)
		}
	}
	if len(body) > 0 || req.Method == http.MethodPost || req.Method == http.MethodPut {
		b = append(b, "Content-Length: "...)
		b = strconv.AppendInt(b, int64(len(body)), 10)
		b = append(b, "\r\n"...)
	}
	b = append(b, "\r\n"...)
	b = append(b, body...)
	rt.raw = b
	ex, err := rt.c.exchange(b, req.Method == http.MethodHead)
	if err != nil {
		return nil, err
	}
	rt.open = true
	rt.reader.Reset(ex.Body)
	rt.lb = leanBody{rt: rt, r: &rt.reader, b: ex.Body}
	rt.res = http.Response{
		Status:        statusText(ex.Status),
		StatusCode:    ex.Status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        rt.c.header,
		ContentLength: int64(len(ex.Body)),
		Body:          &rt.lb,
		Request:       req,
	}
	return &rt.res, nil
}

// appendRequestURI appends u's request target (path and query) as URL.RequestURI gives it,
// without allocating for a path that needs no escaping.
func appendRequestURI(b []byte, u *url.URL) []byte {
	if u.Opaque != "" {
		return append(b, u.RequestURI()...)
	}
	p := u.EscapedPath()
	if p == "" {
		p = "/"
	}
	b = append(b, p...)
	if u.ForceQuery || u.RawQuery != "" {
		b = append(b, '?')
		b = append(b, u.RawQuery...)
	}
	return b
}

// statusText is a response's Status field ("200 OK"), without allocating for common codes.
func statusText(code int) string {
	switch code {
	case 200:
		return "200 OK"
	case 201:
		return "201 Created"
	case 400:
		return "400 Bad Request"
	case 404:
		return "404 Not Found"
	}
	return strconv.Itoa(code) + " " + http.StatusText(code)
}

// leanBody reads a response out of the connection's buffer and releases the RoundTripper
// for the next request when closed.
type leanBody struct {
	rt *RoundTripper
	r  *bytes.Reader
	b  []byte // the whole body, for a reader in this package that takes it without copying
}

func (b *leanBody) Read(p []byte) (int, error) {
	if b.r == nil {
		return 0, errors.New("read on a closed response body")
	}
	return b.r.Read(p)
}

func (b *leanBody) Close() error {
	if b.r != nil {
		b.r = nil
		b.rt.open = false
	}
	return nil
}

func readAllInto(b []byte, r io.Reader) ([]byte, error) {
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}

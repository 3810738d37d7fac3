package proxy

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/conform-dev/conform/oracle"
)

// DefaultTimeout bounds one exchange with the upstream (the primary in shadow).
const DefaultTimeout = 30 * time.Second

// DefaultMaxBody bounds the request and response bodies a read keeps for recording and
// checking; a larger one still passes through, unrecorded.
const DefaultMaxBody = 16 << 20

// Exchange is one read request and the upstream's answer, as the forwarder saw them. It is
// handed to the observer once the answer's last byte has been copied to the client, or the
// upstream failed.
type Exchange struct {
	Endpoint Endpoint
	// Request is the read request; its Body is nil when it was larger than the bound
	// (TooLarge) or could not be decoded.
	Request  Request
	TooLarge bool
	// BodyError says why the request body could not be read for recording (an encoding
	// other than gzip, a broken gzip stream); the request itself went through.
	BodyError string
	// Status, Header and Body are the upstream's answer; Body is kept only when the
	// forwarder keeps answers (shadow), and is the bytes as sent (Content-Encoding applied).
	Status int
	Header http.Header
	Body   []byte
	// Latency is from forwarding the request to reading the last byte of the answer.
	Latency time.Duration
	// Fault says why there is no complete answer: the upstream did not answer in time, the
	// connection failed, or the answer broke off. Empty for a complete answer.
	Fault string
	// Seq is the request's number among all the forwarder saw, from 1.
	Seq int64

	start    time.Time
	complete bool
}

// Forwarder is the reverse proxy under capture and shadow: every request goes to the upstream
// unchanged and its answer comes back unchanged (status, headers, body, streaming), with the
// HTTP/1.1 hop-by-hop headers handled as a proxy must and the Host header the upstream's.
// It never adds a header (no X-Forwarded-For) and never decompresses. A read's request body
// is read whole before it is forwarded (up to MaxBody; then it streams on, unrecorded), so it
// can be recorded; writes and everything else stream both ways.
type Forwarder struct {
	upstream *url.URL
	rp       *httputil.ReverseProxy
	timeout  time.Duration
	maxBody  int64
	keepBody bool
	observe  func(*Exchange)

	seq      atomic.Int64
	counts   Counts
	countsMu sync.Mutex
}

// Counts are what a forwarder has seen.
type Counts struct {
	Requests int64
	Reads    int64
	Writes   int64
	// WritesBy counts writes by endpoint ("bulk", "doc", "index", ...).
	WritesBy map[string]int64
	Other    int64
	// Upstream faults, by the status the client got: 502 (no connection, a garbage answer)
	// and 504 (no answer in time); Aborted are answers that broke off after their headers
	// were sent (the client's connection is closed, as the HTTP spec requires).
	Status502, Status504, Aborted int64
	// ClientErrors are requests whose body the client did not finish sending.
	ClientErrors int64
}

// Options configure a forwarder.
type Options struct {
	// Timeout bounds each exchange with the upstream, from sending the request to the last
	// byte of the answer (DefaultTimeout when 0).
	Timeout time.Duration
	// MaxBody bounds the bodies a read keeps (DefaultMaxBody when 0).
	MaxBody int64
	// KeepBody keeps the upstream's answers to reads (shadow needs them; capture does not).
	KeepBody bool
	// TLS is the client configuration for an https upstream.
	TLS *tls.Config
	// Observe is called for every read, in the handler's goroutine after the answer is
	// complete: it must not block (hand the work to a queue).
	Observe func(*Exchange)
	// Log receives the proxy's own errors (nothing when nil).
	Log io.Writer
}

// NewForwarder makes the reverse proxy for an upstream URL. The URL's path prefix is kept
// before every request's path; its userinfo is not used (the client's own credentials pass
// through to the upstream, and the proxy adds none).
func NewForwarder(upstream *url.URL, o Options) *Forwarder {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxBody <= 0 {
		o.MaxBody = DefaultMaxBody
	}
	f := &Forwarder{upstream: upstream, timeout: o.Timeout, maxBody: o.MaxBody, keepBody: o.KeepBody, observe: o.Observe}
	f.counts.WritesBy = map[string]int64{}
	target := *upstream
	target.User = nil
	logw := o.Log
	if logw == nil {
		logw = io.Discard
	}
	f.rp = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(&target)
			// Rewrite strips the client's X-Forwarded-* headers before it is called; the
			// request goes on unchanged, so they are put back, and none are added.
			for _, h := range []string{"X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto", "Forwarded"} {
				if v, ok := pr.In.Header[h]; ok {
					pr.Out.Header[h] = v
				}
			}
			if _, ok := pr.In.Header["User-Agent"]; !ok {
				pr.Out.Header["User-Agent"] = nil
			}
		},
		Transport:      NewTransport(o.Timeout, o.TLS),
		ModifyResponse: f.modifyResponse,
		ErrorHandler:   f.errorHandler,
		ErrorLog:       log.New(logw, "conform proxy: ", 0),
	}
	return f
}

// NewTransport is the upstream's HTTP/1.1 transport: keep-alive connections (enough idle
// ones for many clients), no transparent compression (the client's Accept-Encoding goes
// through as it is), bounded dialling and waiting for headers.
func NewTransport(timeout time.Duration, tlsConf *tls.Config) *http.Transport {
	dial := min(timeout, 10*time.Second)
	return &http.Transport{
		Proxy:                 nil,
		DialContext:           (&net.Dialer{Timeout: dial, KeepAlive: 30 * time.Second}).DialContext,
		TLSClientConfig:       tlsConf,
		TLSHandshakeTimeout:   dial,
		MaxIdleConns:          1024,
		MaxIdleConnsPerHost:   512,
		IdleConnTimeout:       90 * time.Second,
		ResponseHeaderTimeout: timeout,
		ExpectContinueTimeout: time.Second,
		DisableCompression:    true,
		ForceAttemptHTTP2:     false,
	}
}

// Counts returns a copy of what the forwarder has seen so far.
func (f *Forwarder) Counts() Counts {
	f.countsMu.Lock()
	defer f.countsMu.Unlock()
	c := f.counts
	c.WritesBy = make(map[string]int64, len(f.counts.WritesBy))
	for k, v := range f.counts.WritesBy {
		c.WritesBy[k] = v
	}
	return c
}

func (f *Forwarder) count(fn func(c *Counts)) {
	f.countsMu.Lock()
	fn(&f.counts)
	f.countsMu.Unlock()
}

type exchangeKey struct{}

// secretHeaders are never kept in an Exchange's request headers, whatever reads them later.
var secretHeaders = []string{"Authorization", "Proxy-Authorization", "Cookie", "Es-Secondary-Authorization", "X-Api-Key"}

func (f *Forwarder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ep := Classify(r.Method, r.URL.EscapedPath(), r.URL.RawQuery)
	var seq int64
	f.count(func(c *Counts) {
		// The sequence moves inside the counts' lock, so a writer that reads it before the
		// counts never finds a request counted in one and not the other.
		seq = f.seq.Add(1)
		c.Requests++
		switch ep.Kind {
		case Read:
			c.Reads++
		case Write:
			c.Writes++
			c.WritesBy[ep.Name]++
		default:
			c.Other++
		}
	})
	var ex *Exchange
	if ep.Kind == Read {
		h := r.Header.Clone()
		for _, s := range secretHeaders {
			h.Del(s)
		}
		ex = &Exchange{Endpoint: ep, Seq: seq, Request: Request{Method: r.Method, Path: r.URL.EscapedPath(), Query: r.URL.RawQuery, Header: h}}
		if r.Body != nil && r.Body != http.NoBody {
			buf, err := io.ReadAll(io.LimitReader(r.Body, f.maxBody+1))
			if err != nil {
				f.count(func(c *Counts) { c.ClientErrors++ })
				writeError(w, http.StatusBadRequest, "reading the request body from the client: "+err.Error())
				return
			}
			if int64(len(buf)) > f.maxBody {
				ex.TooLarge = true
				r.Body = struct {
					io.Reader
					io.Closer
				}{io.MultiReader(bytes.NewReader(buf), r.Body), r.Body}
			} else {
				r.Body = io.NopCloser(bytes.NewReader(buf))
				if b, err := decodeBody(r.Header, buf, f.maxBody); err == nil {
					ex.Request.Body = b
				} else {
					ex.TooLarge = errors.Is(err, errTooLarge)
					ex.BodyError = "request body: " + err.Error()
				}
			}
		}
	}
	ctx, cancel := context.WithTimeout(r.Context(), f.timeout)
	defer cancel()
	if ex != nil {
		ctx = context.WithValue(ctx, exchangeKey{}, ex)
		ex.start = time.Now()
	}
	defer func() {
		if p := recover(); p != nil {
			// The answer broke off after its headers were sent: ReverseProxy aborts the
			// client's connection, which is all a proxy can do then.
			f.count(func(c *Counts) { c.Aborted++ })
			if ex != nil && f.observe != nil {
				ex.Fault = "the upstream's answer broke off"
				if ctx.Err() != nil {
					ex.Fault = fmt.Sprintf("the upstream's answer was not complete within %v", f.timeout)
				}
				f.observe(ex)
			}
			panic(p)
		}
	}()
	f.rp.ServeHTTP(w, r.WithContext(ctx))
	if ex != nil && f.observe != nil && (ex.complete || ex.Fault != "") {
		f.observe(ex)
	}
}

func (f *Forwarder) modifyResponse(resp *http.Response) error {
	ex, _ := resp.Request.Context().Value(exchangeKey{}).(*Exchange)
	if ex == nil {
		return nil
	}
	ex.Status, ex.Header = resp.StatusCode, resp.Header.Clone()
	if resp.Body == nil || resp.Body == http.NoBody || resp.Request.Method == http.MethodHead {
		ex.complete, ex.Latency = true, time.Since(ex.start)
		if f.keepBody {
			ex.Body = []byte{}
		}
		return nil
	}
	t := &teeBody{rc: resp.Body, ex: ex, limit: f.maxBody}
	if f.keepBody {
		t.buf = &bytes.Buffer{}
	}
	resp.Body = t
	return nil
}

func (f *Forwarder) errorHandler(w http.ResponseWriter, r *http.Request, err error) {
	ex, _ := r.Context().Value(exchangeKey{}).(*Exchange)
	status := http.StatusBadGateway
	reason := fmt.Sprintf("the upstream %s did not answer: %v", redact(f.upstream), err)
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout() {
		status = http.StatusGatewayTimeout
		reason = fmt.Sprintf("the upstream %s did not answer within %v", redact(f.upstream), f.timeout)
	}
	if errors.Is(r.Context().Err(), context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		// The client went away: nobody to answer.
		reason = "the client closed the connection"
		status = 499
	}
	f.count(func(c *Counts) {
		switch status {
		case http.StatusBadGateway:
			c.Status502++
		case http.StatusGatewayTimeout:
			c.Status504++
		}
	})
	if ex != nil {
		ex.Status, ex.Fault = status, reason
	}
	if status != 499 {
		writeError(w, status, reason)
	}
}

// writeError answers with an Elasticsearch-style error envelope, so a client library reports
// the reason.
func writeError(w http.ResponseWriter, status int, reason string) {
	r := strings.ReplaceAll(strings.ReplaceAll(reason, `\`, `\\`), `"`, `\"`)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Conform-Proxy", "error")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"error":{"root_cause":[{"type":"conform_proxy_exception","reason":"%s"}],"type":"conform_proxy_exception","reason":"%s"},"status":%d}`+"\n", r, r, status)
}

// teeBody passes the upstream's answer through and keeps a copy (up to a bound) for the
// observer; it marks the exchange complete at the end of the body.
type teeBody struct {
	rc    io.ReadCloser
	ex    *Exchange
	buf   *bytes.Buffer
	limit int64
	ended bool
}

func (t *teeBody) Read(p []byte) (int, error) {
	n, err := t.rc.Read(p)
	if n > 0 && t.buf != nil {
		if int64(t.buf.Len()+n) > t.limit {
			t.buf, t.ex.TooLarge = nil, true
		} else {
			t.buf.Write(p[:n])
		}
	}
	if err != nil && !t.ended {
		t.ended = true
		if err == io.EOF {
			t.ex.complete, t.ex.Latency = true, time.Since(t.ex.start)
			if t.buf != nil {
				t.ex.Body = t.buf.Bytes()
			}
		} else {
			t.ex.Fault = "the upstream's answer broke off: " + err.Error()
		}
	}
	return n, err
}

func (t *teeBody) Close() error { return t.rc.Close() }

// redact is a URL for output: its userinfo, if any, as "***".
func redact(u *url.URL) string { return oracle.RedactURL(u.String()) }

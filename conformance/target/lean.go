package target

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/conform-dev/conform/fixtures"
)

// MaxBody is the largest response body the lean path reads. A larger one is a transport
// fault rather than an allocation the machine may not survive.
const MaxBody = 256 << 20

// readBufferSize holds a status line and headers; body bytes beyond it are read straight into
// the body buffer.
const readBufferSize = 16 << 10

// Prepared is a request serialised once, before any timing: request line, Host, Content-Type,
// Content-Length, Authorization and body, ready to be written in one call. Its printable forms
// show the method and URL only, never the serialised bytes (which hold the credentials).
type Prepared struct {
	Case   string // the case name, for reports
	Method string
	Path   string // as sent: prefix, index and any query string
	Body   []byte // nil for a bodiless request
	URL    string // full URL without credentials
	// ContentType and Accept are the headers the request sends besides Host, User-Agent,
	// Content-Length and Authorization ("" when not sent).
	ContentType, Accept string

	raw  []byte
	head bool
}

func (p Prepared) String() string { return p.Method + " " + p.URL }

// Format prints String for every verb, so the serialised bytes (which hold the
// Authorization header) are never printed.
func (p Prepared) Format(f fmt.State, verb rune) { io.WriteString(f, p.String()) }

// Raw is the serialised request exactly as the lean path writes it, Authorization header
// included: for handing the same bytes to another load generator (conform overhead gives
// them to wrk). Never print or log it.
func (p *Prepared) Raw() []byte { return p.raw }

// Prepare serialises a request for the lean path.
func (t *Target) Prepare(req fixtures.Request) (*Prepared, error) {
	if err := validMethod(req.Method); err != nil {
		return nil, fmt.Errorf("case %s: %w", req.Case, err)
	}
	if len(req.Path) == 0 || req.Path[0] != '/' {
		return nil, fmt.Errorf("case %s: path %q does not start with '/'", req.Case, req.Path)
	}
	for i := 0; i < len(req.Path); i++ {
		if c := req.Path[i]; c <= ' ' || c == 0x7f {
			return nil, fmt.Errorf("case %s: path %q contains a space or control character; escape it", req.Case, req.Path)
		}
	}
	path := t.Prefix + req.Path
	p := &Prepared{Case: req.Case, Method: req.Method, Path: path, Body: req.Body, URL: t.URL(req.Path), head: req.Method == http.MethodHead, Accept: req.Accept}
	if req.Body != nil {
		p.ContentType = req.ContentType
		if p.ContentType == "" {
			p.ContentType = fixtures.MediaJSON
		}
	}
	for _, h := range []string{p.ContentType, p.Accept} {
		for i := 0; i < len(h); i++ {
			if c := h[i]; c < ' ' && c != '\t' || c == 0x7f {
				return nil, fmt.Errorf("case %s: header value %q contains a control character", req.Case, h)
			}
		}
	}
	b := make([]byte, 0, 256+len(req.Body))
	b = append(b, req.Method...)
	b = append(b, ' ')
	b = append(b, path...)
	b = append(b, " HTTP/1.1\r\nHost: "...)
	b = append(b, t.Host...)
	b = append(b, "\r\nUser-Agent: conform\r\n"...)
	if req.Body != nil {
		b = append(b, "Content-Type: "...)
		b = append(b, p.ContentType...)
		b = append(b, "\r\nContent-Length: "...)
		b = strconv.AppendInt(b, int64(len(req.Body)), 10)
		b = append(b, "\r\n"...)
	}
	if p.Accept != "" {
		b = append(b, "Accept: "...)
		b = append(b, p.Accept...)
		b = append(b, "\r\n"...)
	}
	if t.authHeader != "" {
		b = append(b, "Authorization: "...)
		b = append(b, t.authHeader...)
		b = append(b, "\r\n"...)
	}
	b = append(b, "\r\n"...)
	b = append(b, req.Body...)
	p.raw = b
	return p, nil
}

// PrepareAll prepares every request, in order.
func (t *Target) PrepareAll(reqs []fixtures.Request) ([]*Prepared, error) {
	out := make([]*Prepared, len(reqs))
	for i, r := range reqs {
		p, err := t.Prepare(r)
		if err != nil {
			return nil, err
		}
		out[i] = p
	}
	return out, nil
}

func validMethod(m string) error {
	if m == "" {
		return errors.New("no HTTP method")
	}
	for i := 0; i < len(m); i++ {
		if c := m[i]; c < 'A' || c > 'Z' {
			return fmt.Errorf("HTTP method %q is not an upper-case token", m)
		}
	}
	return nil
}

// Exchange is one request and its complete response. Body is only valid until the next
// exchange on the same connection.
type Exchange struct {
	Status int
	Body   []byte
	// Start is just before the request's first byte is written; End is just after the last
	// byte of the body is read. Both carry the monotonic clock.
	Start, End time.Time
}

// Latency is the timed span of the exchange.
func (e Exchange) Latency() time.Duration { return e.End.Sub(e.Start) }

// Conn is the lean timed path: one raw keep-alive HTTP/1.1 connection (TCP, or TLS for https)
// that writes prepared requests and reads responses into a reused buffer. It is used by one
// goroutine at a time; only Interrupt may be called from another.
//
// Reconnection: the lab's rule is one keep-alive connection per client, so a broken
// connection is never silently replaced within an exchange. The exchange that finds the
// connection closed or broken fails as a transport fault (no retry, which would hide the fault
// and time two round trips as one), and the next exchange dials a new connection before its
// timer starts. A response that says "Connection: close" is complete and passes on its own
// merits; the connection is then closed and the next exchange redials. Every redial is counted
// in Reconnects, so a report can show a target that does not keep connections alive.
//
// System calls: on a plain TCP connection an exchange costs one write and, when the response
// fits the read buffer, one read. The request is written from inside the connection's raw
// read, after the poller is armed, so the read waits for the response instead of first
// failing with EAGAIN (which the net package's read-then-wait costs on every exchange).
//
// Timeout: the connection's deadline is moved only when the next request would have less
// than the per-request timeout T left, to T+T/8 from its start, rather than once per exchange
// (a runtime timer change per request is CPU the timed path does not need). Every request so
// gets at least T and at most 9/8 T to complete.
type Conn struct {
	t  *Target
	mu sync.Mutex // guards nc against Interrupt; the owning goroutine reads nc without it
	nc net.Conn
	br *bufio.Reader
	// rc is nc's raw connection when nc is a TCP connection (nil for TLS): the path that
	// writes the request from inside the read (see writeThenRead).
	rc syscall.RawConn
	// pending is the request the next read of br writes first; start is stamped just before
	// its first byte is written.
	pending []byte
	raw     rawState
	step    func(fd uintptr) bool // c.rawStep, made once
	start   time.Time
	// deadline is nc's current deadline.
	deadline time.Time

	body        []byte
	served      int // responses read on the current connection
	reconnects  int
	closeAfter  bool
	interrupted atomic.Bool
	// header, when not nil, collects the response headers (the RoundTripper needs them; the
	// timed path does not pay for them). It is cleared and refilled for every response.
	header  http.Header
	headers headerCache
}

// headerCache interns response header names and values, so a connection whose responses
// repeat their headers (as a server's do) fills the header map without allocating. The
// one-element value slices are shared between responses: a caller may replace or append to
// a response's header values, but must not write into them.
type headerCache struct {
	names  map[string]string   // raw name -> canonical name
	values map[string][]string // value -> []string{value}
}

// headerCacheMax bounds each cache; values beyond it (say, a per-request id) are allocated.
const headerCacheMax = 256

func (hc *headerCache) add(h http.Header, name, value []byte) {
	if hc.names == nil {
		hc.names, hc.values = map[string]string{}, map[string][]string{}
	}
	k, ok := hc.names[string(name)]
	if !ok {
		k = http.CanonicalHeaderKey(string(name))
		if len(hc.names) < headerCacheMax {
			hc.names[string(name)] = k
		}
	}
	vs, ok := hc.values[string(value)]
	if !ok {
		vs = []string{string(value)}
		if len(hc.values) < headerCacheMax {
			hc.values[vs[0]] = vs
		}
	}
	if prev, dup := h[k]; dup {
		// A repeated header: append to a copy, never into the shared slice.
		h[k] = append(prev[:len(prev):len(prev)], vs[0])
		return
	}
	h[k] = vs
}

// Dial opens the connection the lean path uses, completing any TLS handshake.
func (t *Target) Dial(ctx context.Context) (*Conn, error) {
	c := &Conn{t: t}
	nc, err := t.dial(ctx)
	if err != nil {
		return nil, err
	}
	c.nc, c.rc = nc, rawConn(nc)
	c.br = bufio.NewReaderSize(connReader{c}, readBufferSize)
	return c, nil
}

// connReader is what a Conn's bufio.Reader reads from: the connection, with any pending
// request written first.
type connReader struct{ c *Conn }

func (r connReader) Read(p []byte) (int, error) {
	if r.c.pending != nil {
		return r.c.writeThenRead(p)
	}
	return r.c.nc.Read(p)
}

// writeThenRead writes the pending request and reads the first bytes of its response in one
// raw read of the connection: the poller is armed before the write, so the read waits for the
// response rather than first failing with EAGAIN. A write the socket cannot take at once (a
// request larger than its buffer) is finished by the connection's own Write.
func (c *Conn) writeThenRead(p []byte) (int, error) {
	st := &c.raw
	*st = rawState{req: c.pending, buf: p}
	c.pending = nil
	// Stamped and armed before the raw read, whose first step fails on an expired deadline.
	if err := c.arm(); err != nil {
		return 0, err
	}
	if c.step == nil {
		c.step = c.rawStep
	}
	err := c.rc.Read(c.step)
	n, wrote, ferr := st.n, st.wrote, st.err
	raw := st.req
	*st = rawState{}
	switch {
	case ferr != nil:
		return n, ferr
	case err != nil:
		return n, err
	case wrote < len(raw):
		if _, err := c.nc.Write(raw[wrote:]); err != nil {
			return 0, &Fault{Class: classOfErr(err), Op: "write request", Msg: err.Error()}
		}
		return c.nc.Read(p)
	}
	return n, nil
}

// errIncomplete is what PollConn's parser reads when it wants bytes the socket has not yet
// delivered: the response is not complete, which is not a fault.
var errIncomplete = errors.New("response incomplete")

// rawState is one writeThenRead's progress, kept in the Conn so the raw read's callback
// (a method value made once per Conn) allocates nothing.
type rawState struct {
	req, buf []byte
	wrote, n int
	err      error
}

func (c *Conn) opError(op string, e error) error {
	return &net.OpError{Op: op, Net: "tcp", Addr: c.nc.RemoteAddr(), Err: os.NewSyscallError(op, e)}
}

// arm stamps the exchange's start and moves the connection's deadline when the request would
// have less than the timeout left (see Conn). It returns ErrInterrupted if Interrupt came
// first.
func (c *Conn) arm() error {
	c.start = time.Now()
	if to := c.t.Timeout; to > 0 && c.start.Add(to).After(c.deadline) {
		c.deadline = c.start.Add(to + to/8)
		c.nc.SetDeadline(c.deadline)
		// Interrupt may have set its deadline just before ours replaced it.
		if c.interrupted.Load() {
			return ErrInterrupted
		}
	}
	return nil
}

func (t *Target) dial(ctx context.Context) (net.Conn, error) {
	d := net.Dialer{Timeout: t.Timeout, KeepAlive: 30 * time.Second}
	nc, err := d.DialContext(ctx, "tcp", t.dialAddr)
	if err != nil {
		return nil, t.Scrub(&Fault{Class: classOfErr(err), Op: "dial " + t.dialAddr, Msg: err.Error()})
	}
	if t.tls == nil {
		return nc, nil
	}
	tc := tls.Client(nc, t.tls)
	hctx, cancel := context.WithTimeout(ctx, t.Timeout)
	defer cancel()
	if err := tc.HandshakeContext(hctx); err != nil {
		nc.Close()
		return nil, t.Scrub(&Fault{Class: classOfErr(err), Op: "TLS handshake with " + t.dialAddr, Msg: err.Error()})
	}
	return tc, nil
}

func classOfErr(err error) string {
	if isTimeout(err) {
		return ClassTimeout
	}
	return ClassTransport
}

// Reconnects is how many times the connection was replaced after the first dial.
func (c *Conn) Reconnects() int { return c.reconnects }

// Interrupt makes the exchange in flight, and every later one, return ErrInterrupted. It may
// be called from any goroutine.
func (c *Conn) Interrupt() {
	c.interrupted.Store(true)
	c.mu.Lock()
	if c.nc != nil {
		c.nc.SetDeadline(time.Unix(1, 0))
	}
	c.mu.Unlock()
}

// Close closes the connection.
func (c *Conn) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.nc == nil {
		return nil
	}
	err := c.nc.Close()
	c.nc = nil
	return err
}

// Exchange writes a prepared request and reads its whole response. A fault (no complete
// response) is returned as a *Fault; a response of any status is an Exchange.
func (c *Conn) Exchange(p *Prepared) (Exchange, error) {
	return c.exchange(p.raw, p.head)
}

func (c *Conn) exchange(raw []byte, head bool) (Exchange, error) {
	if c.interrupted.Load() {
		return Exchange{}, ErrInterrupted
	}
	if c.nc == nil {
		if err := c.redial(); err != nil {
			return Exchange{}, err
		}
	}
	c.start = time.Time{}
	if c.rc != nil && c.br.Buffered() == 0 {
		// The first read of the response writes the request (writeThenRead), stamping start.
		c.pending = raw
	} else {
		if err := c.arm(); err != nil {
			return Exchange{}, err
		}
		if _, err := c.nc.Write(raw); err != nil {
			return Exchange{}, c.fail("write request", err)
		}
	}
	status, body, err := c.readResponse(head)
	end := time.Now()
	c.pending = nil
	if err != nil {
		return Exchange{}, err
	}
	start := c.start
	c.served++
	if c.closeAfter {
		c.drop()
	}
	return Exchange{Status: status, Body: body, Start: start, End: end}, nil
}

func (c *Conn) redial() error {
	ctx, cancel := context.WithTimeout(context.Background(), c.t.Timeout)
	defer cancel()
	nc, err := c.t.dial(ctx)
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.nc, c.rc, c.deadline = nc, rawConn(nc), time.Time{}
	c.mu.Unlock()
	if c.br == nil {
		c.br = bufio.NewReaderSize(connReader{c}, readBufferSize)
	} else {
		c.br.Reset(connReader{c})
	}
	c.reconnects++
	c.served = 0
	if c.interrupted.Load() {
		nc.SetDeadline(time.Unix(1, 0))
	}
	return nil
}

// drop closes the connection so the next exchange redials.
func (c *Conn) drop() {
	c.mu.Lock()
	if c.nc != nil {
		c.nc.Close()
		c.nc = nil
	}
	c.mu.Unlock()
}

// fail closes the connection (its state is unknown after a fault) and returns the classified,
// scrubbed fault.
func (c *Conn) fail(op string, err error) error {
	if err == errIncomplete {
		return err // PollConn's parser ran out of bytes read so far: not a fault (yet)
	}
	c.drop()
	if c.interrupted.Load() {
		return ErrInterrupted
	}
	var f *Fault
	if errors.As(err, &f) {
		return c.t.Scrub(f)
	}
	msg := err.Error()
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		msg = "connection closed by the server"
	}
	if isTimeout(err) {
		msg = fmt.Sprintf("no complete response within %v", c.t.Timeout)
	}
	return c.t.Scrub(&Fault{Class: classOfErr(err), Op: op, Msg: msg})
}

// readLine returns the next line without its line ending. The slice is only valid until the
// next read.
func (c *Conn) readLine(op string) ([]byte, error) {
	line, err := c.br.ReadSlice('\n')
	if err != nil {
		if errors.Is(err, bufio.ErrBufferFull) {
			return nil, c.fail(op, &Fault{Class: ClassTransport, Op: op, Msg: fmt.Sprintf("line longer than %d bytes", readBufferSize)})
		}
		return nil, c.fail(op, err)
	}
	line = line[:len(line)-1]
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, nil
}

func (c *Conn) protocolError(op, format string, args ...any) error {
	return c.fail(op, &Fault{Class: ClassTransport, Op: op, Msg: fmt.Sprintf(format, args...)})
}

// readResponse reads a status line, headers and body. It understands Content-Length, chunked
// transfer encoding, bodies delimited by the end of the connection, bodiless statuses, 1xx
// interim responses and Connection: close.
func (c *Conn) readResponse(head bool) (int, []byte, error) {
	for {
		line, err := c.br.ReadSlice('\n')
		if err != nil {
			if (errors.Is(err, io.EOF) || isReset(err)) && len(line) == 0 {
				msg := "connection closed by the server before the response"
				if c.served > 0 {
					msg += fmt.Sprintf(" (the keep-alive connection had carried %d responses)", c.served)
				}
				return 0, nil, c.fail("read status line", &Fault{Class: ClassTransport, Op: "read status line", Msg: msg})
			}
			if errors.Is(err, bufio.ErrBufferFull) {
				return 0, nil, c.protocolError("read status line", "status line longer than %d bytes", readBufferSize)
			}
			return 0, nil, c.fail("read status line", err)
		}
		line = trimEOL(line)
		status, http10, ok := parseStatusLine(line)
		if !ok {
			return 0, nil, c.protocolError("read status line", "not an HTTP/1.x status line: %q", truncate(line, 64))
		}
		contentLength, chunked, closeConn := int64(-1), false, http10
		if c.header != nil {
			clear(c.header)
		}
		for {
			h, err := c.readLine("read headers")
			if err != nil {
				return 0, nil, err
			}
			if len(h) == 0 {
				break
			}
			colon := indexByte(h, ':')
			if colon <= 0 {
				return 0, nil, c.protocolError("read headers", "malformed header line %q", truncate(h, 64))
			}
			name, value := h[:colon], trimSpace(h[colon+1:])
			switch {
			case equalFold(name, "content-length"):
				n, ok := parseDecimal(value)
				if !ok || contentLength >= 0 && n != contentLength {
					return 0, nil, c.protocolError("read headers", "bad Content-Length %q", truncate(value, 32))
				}
				contentLength = n
			case equalFold(name, "transfer-encoding"):
				chunked = lastTokenIs(value, "chunked")
				if !chunked && !equalFold(trimSpace(value), "identity") {
					return 0, nil, c.protocolError("read headers", "unsupported Transfer-Encoding %q", truncate(value, 32))
				}
			case equalFold(name, "connection"):
				if hasToken(value, "close") {
					closeConn = true
				} else if http10 && hasToken(value, "keep-alive") {
					closeConn = false
				}
			}
			if c.header != nil {
				c.headers.add(c.header, name, value)
			}
		}
		if status == http.StatusSwitchingProtocols {
			return 0, nil, c.protocolError("read status line", "unexpected 101 Switching Protocols")
		}
		if status < 200 {
			continue // an interim response; the real one follows
		}
		c.closeAfter = closeConn
		var body []byte
		switch {
		case head || status == http.StatusNoContent || status == http.StatusNotModified:
			body = c.body[:0]
		case chunked:
			body, err = c.readChunked()
		case contentLength >= 0:
			body, err = c.readFixed(contentLength)
		default:
			c.closeAfter = true
			body, err = c.readToEOF()
		}
		if err != nil {
			return 0, nil, err
		}
		return status, body, nil
	}
}

func (c *Conn) grow(n int) []byte {
	if cap(c.body) < n {
		c.body = make([]byte, n, max(n, 2*cap(c.body)))
	}
	return c.body[:n]
}

func (c *Conn) readFixed(n int64) ([]byte, error) {
	if n > MaxBody {
		return nil, c.protocolError("read body", "Content-Length %d is over the %d-byte limit", n, MaxBody)
	}
	b := c.grow(int(n))
	got, err := io.ReadFull(c.br, b)
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, c.protocolError("read body", "connection closed after %d of %d body bytes", got, n)
		}
		return nil, c.fail("read body", err)
	}
	return b, nil
}

func (c *Conn) readChunked() ([]byte, error) {
	b := c.body[:0]
	for {
		line, err := c.readLine("read chunk size")
		if err != nil {
			return nil, err
		}
		if i := indexByte(line, ';'); i >= 0 {
			line = line[:i]
		}
		size, ok := parseHex(trimSpace(line))
		if !ok {
			return nil, c.protocolError("read chunk size", "bad chunk size %q", truncate(line, 32))
		}
		if size == 0 {
			for { // trailers, up to the empty line
				t, err := c.readLine("read trailers")
				if err != nil {
					return nil, err
				}
				if len(t) == 0 {
					break
				}
			}
			c.body = b
			return b, nil
		}
		if int64(len(b))+size > MaxBody {
			return nil, c.protocolError("read body", "chunked body over the %d-byte limit", MaxBody)
		}
		n := len(b)
		if need := n + int(size); cap(b) < need {
			nb := make([]byte, n, max(need, 2*cap(b)))
			copy(nb, b)
			b = nb
		}
		b = b[:n+int(size)]
		got, err := io.ReadFull(c.br, b[n:])
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return nil, c.protocolError("read body", "connection closed after %d of a %d-byte chunk", got, size)
			}
			return nil, c.fail("read body", err)
		}
		crlf, err := c.readLine("read chunk end")
		if err != nil {
			return nil, err
		}
		if len(crlf) != 0 {
			return nil, c.protocolError("read chunk end", "chunk data not followed by CRLF")
		}
	}
}

func (c *Conn) readToEOF() ([]byte, error) {
	b := c.body[:0]
	for {
		if len(b) == cap(b) {
			if len(b) >= MaxBody {
				return nil, c.protocolError("read body", "body over the %d-byte limit", MaxBody)
			}
			nb := make([]byte, len(b), max(4096, 2*cap(b)))
			copy(nb, b)
			b = nb
		}
		n, err := c.br.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if errors.Is(err, io.EOF) {
			c.body = b
			return b, nil
		}
		if err != nil {
			return nil, c.fail("read body", err)
		}
	}
}

func isReset(err error) bool {
	var ne *net.OpError
	return errors.As(err, &ne) && !ne.Timeout()
}

func parseStatusLine(l []byte) (status int, http10, ok bool) {
	if len(l) < 12 || string(l[:7]) != "HTTP/1." || l[8] != ' ' || len(l) > 12 && l[12] != ' ' {
		return 0, false, false
	}
	if l[7] != '0' && l[7] != '1' {
		return 0, false, false
	}
	for _, d := range l[9:12] {
		if d < '0' || d > '9' {
			return 0, false, false
		}
		status = status*10 + int(d-'0')
	}
	return status, l[7] == '0', status >= 100
}

func trimEOL(l []byte) []byte {
	l = l[:len(l)-1]
	if n := len(l); n > 0 && l[n-1] == '\r' {
		l = l[:n-1]
	}
	return l
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}

// equalFold compares b with a lower-case ASCII word, ignoring b's case, without allocating.
func equalFold(b []byte, lower string) bool {
	if len(b) != len(lower) {
		return false
	}
	for i := range b {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// hasToken reports whether a comma-separated header value has the token (lower case).
func hasToken(v []byte, token string) bool {
	for len(v) > 0 {
		i := indexByte(v, ',')
		var t []byte
		if i < 0 {
			t, v = v, nil
		} else {
			t, v = v[:i], v[i+1:]
		}
		if equalFold(trimSpace(t), token) {
			return true
		}
	}
	return false
}

func lastTokenIs(v []byte, token string) bool {
	if i := lastIndexByte(v, ','); i >= 0 {
		v = v[i+1:]
	}
	return equalFold(trimSpace(v), token)
}

func lastIndexByte(b []byte, c byte) int {
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == c {
			return i
		}
	}
	return -1
}

func parseDecimal(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var n int64
	for _, d := range b {
		if d < '0' || d > '9' {
			return 0, false
		}
		n = n*10 + int64(d-'0')
	}
	return n, true
}

func parseHex(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 15 {
		return 0, false
	}
	var n int64
	for _, d := range b {
		switch {
		case '0' <= d && d <= '9':
			d -= '0'
		case 'a' <= d && d <= 'f':
			d -= 'a' - 10
		case 'A' <= d && d <= 'F':
			d -= 'A' - 10
		default:
			return 0, false
		}
		n = n<<4 | int64(d)
	}
	return n, true
}

func truncate(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "..."
	}
	return string(b)
}

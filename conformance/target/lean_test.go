package target

import (
	"bufio"
	"context"
	"encoding/pem"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/conform-dev/conform/conformance/target/targettest"
	"github.com/conform-dev/conform/fixtures"
)

// rawServer accepts loopback connections and hands each to handle, so a test can misbehave in
// ways net/http's server will not.
func rawServer(t *testing.T, handle func(c net.Conn, r *bufio.Reader)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				handle(c, bufio.NewReader(c))
			}()
		}
	}()
	return "http://" + ln.Addr().String()
}

// readRequest reads one request and its body, reporting whether one arrived.
func readRequest(r *bufio.Reader) (*http.Request, []byte, bool) {
	req, err := http.ReadRequest(r)
	if err != nil {
		return nil, nil, false
	}
	body, _ := io.ReadAll(req.Body)
	return req, body, true
}

// serveEach answers every request on a connection with the bytes resp returns.
func serveEach(resp func(n int, req *http.Request, body []byte) string) func(net.Conn, *bufio.Reader) {
	return func(c net.Conn, r *bufio.Reader) {
		for n := 0; ; n++ {
			req, body, ok := readRequest(r)
			if !ok {
				return
			}
			out := resp(n, req, body)
			if out == "" {
				return
			}
			if _, err := io.WriteString(c, out); err != nil {
				return
			}
		}
	}
}

func okResponse(body string) string {
	return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
}

func mustTarget(t *testing.T, spec string, o Options) *Target {
	t.Helper()
	tg, err := Parse(spec, o)
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

func mustPrepare(t *testing.T, tg *Target, method, path, body string) *Prepared {
	t.Helper()
	req := fixtures.Request{Case: "case/000", Method: method, Path: path}
	if body != "" {
		req.Body = []byte(body)
	}
	p, err := tg.Prepare(req)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func dial(t *testing.T, tg *Target) *Conn {
	t.Helper()
	c, err := tg.Dial(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// leanConn is what the lean path's tests exchange through: a Conn, or on Linux a PollConn,
// which must frame, fail and reconnect as a Conn does.
type leanConn interface {
	exchange(p *Prepared) (Exchange, error)
	Reconnects() int
	Interrupt()
}

type connUnderTest struct{ *Conn }

func (c connUnderTest) exchange(p *Prepared) (Exchange, error) { return c.Exchange(p) }

// leanKind is one implementation of the lean path; prefix starts its subtests' names (empty
// for Conn, so its subtests keep their names).
type leanKind struct {
	prefix string
	dial   func(t *testing.T, tg *Target) leanConn
}

// leanKinds lists the implementations the tests run over (poll_linux_test.go adds PollConn).
var leanKinds = []leanKind{{"", func(t *testing.T, tg *Target) leanConn { return connUnderTest{dial(t, tg)} }}}

func TestLeanExchangeSendsPreparedRequest(t *testing.T) {
	for _, k := range leanKinds {
		t.Run(k.prefix+"keep-alive", func(t *testing.T) { testLeanExchangeSendsPreparedRequest(t, k) })
	}
}

func testLeanExchangeSendsPreparedRequest(t *testing.T, k leanKind) {
	var got atomic.Value
	url := rawServer(t, serveEach(func(n int, req *http.Request, body []byte) string {
		got.Store(req.Method + " " + req.URL.Path + " " + req.Header.Get("Authorization") + " " + req.Header.Get("Content-Type") + " " + string(body))
		return okResponse(`{"n":` + strconv.Itoa(n) + `}`)
	}))
	tg := mustTarget(t, "es="+strings.Replace(url, "http://", "http://elastic:pw@", 1)+"/es", Options{})
	c := k.dial(t, tg)
	p := mustPrepare(t, tg, "POST", "/cat/_search", `{"size":20}`)
	for i := 0; i < 3; i++ {
		ex, err := c.exchange(p)
		if err != nil {
			t.Fatal(err)
		}
		if ex.Status != 200 || string(ex.Body) != `{"n":`+strconv.Itoa(i)+`}` {
			t.Errorf("exchange %d: %d %q", i, ex.Status, ex.Body)
		}
		if ex.Latency() <= 0 || ex.End.Before(ex.Start) {
			t.Errorf("exchange %d: latency %v", i, ex.Latency())
		}
	}
	if want := `POST /es/cat/_search Basic ZWxhc3RpYzpwdw== application/json {"size":20}`; got.Load() != want {
		t.Errorf("server saw %q, want %q", got.Load(), want)
	}
	if c.Reconnects() != 0 {
		t.Errorf("three requests on a keep-alive connection reconnected %d times", c.Reconnects())
	}
}

func TestLeanResponseFraming(t *testing.T) {
	tests := []struct {
		why        string
		response   string
		wantStatus int
		wantBody   string
		reconnect  bool // the response ends the connection
	}{
		{"content-length", okResponse(`{"a":1}`), 200, `{"a":1}`, false},
		{"chunked with extension and trailer", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4;ext=1\r\n{\"a\"\r\n3\r\n:1}\r\n0\r\nX-Trailer: t\r\n\r\n", 200, `{"a":1}`, false},
		{"header names in any case", "HTTP/1.1 200 OK\r\ncontent-LENGTH: 2\r\n\r\n{}", 200, `{}`, false},
		{"interim 100 Continue first", "HTTP/1.1 100 Continue\r\n\r\n" + okResponse(`{}`), 200, `{}`, false},
		{"204 has no body", "HTTP/1.1 204 No Content\r\n\r\n", 204, ``, false},
		{"5xx is a response, not a fault", "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 18\r\n\r\n{\"error\":\"busy\"}\r\n", 503, "{\"error\":\"busy\"}\r\n", false},
		{"non-JSON body is a response (the check decides decode)", "HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nnot json!", 200, "not json!", false},
		{"Connection: close", "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}", 200, `{}`, true},
		{"HTTP/1.0 without keep-alive closes", "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\n{}", 200, `{}`, true},
		{"HTTP/1.0 keep-alive stays", "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\n{}", 200, `{}`, false},
		{"body delimited by close", "HTTP/1.1 200 OK\r\n\r\n{\"until\":\"eof\"}", 200, `{"until":"eof"}`, true},
	}
	for _, k := range leanKinds {
		for _, tc := range tests {
			t.Run(k.prefix+tc.why, func(t *testing.T) {
				url := rawServer(t, func(c net.Conn, r *bufio.Reader) {
					for {
						if _, _, ok := readRequest(r); !ok {
							return
						}
						io.WriteString(c, tc.response)
						if tc.reconnect {
							return // a server that ends the connection after the response
						}
					}
				})
				tg := mustTarget(t, "es="+url, Options{Timeout: 5 * time.Second})
				c := k.dial(t, tg)
				p := mustPrepare(t, tg, "POST", "/i/_search", "{}")
				for i := 0; i < 2; i++ {
					ex, err := c.exchange(p)
					if err != nil {
						t.Fatalf("exchange %d: %v", i, err)
					}
					if ex.Status != tc.wantStatus || string(ex.Body) != tc.wantBody {
						t.Errorf("exchange %d: %d %q, want %d %q", i, ex.Status, ex.Body, tc.wantStatus, tc.wantBody)
					}
				}
				if want := map[bool]int{false: 0, true: 1}[tc.reconnect]; c.Reconnects() != want {
					t.Errorf("reconnects %d, want %d", c.Reconnects(), want)
				}
			})
		}
	}
}

func TestLeanFaults(t *testing.T) {
	tests := []struct {
		why     string
		handle  func(c net.Conn, r *bufio.Reader)
		class   string
		message string
	}{
		{"server closes before answering", func(c net.Conn, r *bufio.Reader) { readRequest(r) }, ClassTransport, "closed by the server before the response"},
		{"server resets the connection", func(c net.Conn, r *bufio.Reader) {
			readRequest(r)
			c.(*net.TCPConn).SetLinger(0) // close with RST
		}, ClassTransport, ""},
		{"server closes mid-headers", func(c net.Conn, r *bufio.Reader) {
			readRequest(r)
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Len")
		}, ClassTransport, "connection closed by the server"},
		{"truncated body", func(c net.Conn, r *bufio.Reader) {
			readRequest(r)
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"hits\":")
		}, ClassTransport, "after 8 of 100 body bytes"},
		{"server closes mid-chunk", func(c net.Conn, r *bufio.Reader) {
			readRequest(r)
			io.WriteString(c, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n{\"hi")
		}, ClassTransport, "of a 16-byte chunk"},
		{"server closes before the last chunk", func(c net.Conn, r *bufio.Reader) {
			readRequest(r)
			io.WriteString(c, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n")
		}, ClassTransport, "connection closed by the server"},
		{"not HTTP", func(c net.Conn, r *bufio.Reader) {
			readRequest(r)
			io.WriteString(c, "SSH-2.0-OpenSSH_9.2\r\n")
		}, ClassTransport, "not an HTTP/1.x status line"},
		{"bad content-length", func(c net.Conn, r *bufio.Reader) {
			readRequest(r)
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n")
		}, ClassTransport, "bad Content-Length"},
		{"body over the limit is refused before allocating", func(c net.Conn, r *bufio.Reader) {
			readRequest(r)
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 999999999999\r\n\r\n")
		}, ClassTransport, "over the"},
		{"bad chunk size", func(c net.Conn, r *bufio.Reader) {
			readRequest(r)
			io.WriteString(c, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n")
		}, ClassTransport, "bad chunk size"},
		{"server never answers", func(c net.Conn, r *bufio.Reader) {
			readRequest(r)
			time.Sleep(2 * time.Second)
		}, ClassTimeout, "no complete response within"},
		{"server stalls mid-body", func(c net.Conn, r *bufio.Reader) {
			readRequest(r)
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n{\"a\"")
			time.Sleep(2 * time.Second)
		}, ClassTimeout, "no complete response within"},
	}
	for _, k := range leanKinds {
		for _, tc := range tests {
			t.Run(k.prefix+tc.why, func(t *testing.T) {
				t.Parallel()
				tg := mustTarget(t, "es="+rawServer(t, tc.handle), Options{Timeout: 200 * time.Millisecond})
				c := k.dial(t, tg)
				_, err := c.exchange(mustPrepare(t, tg, "POST", "/i/_search", "{}"))
				var f *Fault
				if !errors.As(err, &f) {
					t.Fatalf("error %v (%T), want a *Fault", err, err)
				}
				if ClassOf(err) != tc.class || f.Class != tc.class {
					t.Errorf("class %q, want %q (%v)", ClassOf(err), tc.class, err)
				}
				if !strings.Contains(err.Error(), tc.message) {
					t.Errorf("error %q, want it to mention %q", err, tc.message)
				}
			})
		}
	}
}

func TestLeanConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	tg := mustTarget(t, "es=http://elastic:hunter2@"+addr, Options{Timeout: time.Second})
	_, err = tg.Dial(context.Background())
	if ClassOf(err) != ClassTransport || !strings.Contains(err.Error(), "refused") {
		t.Errorf("dial error %v (class %q), want a refused transport fault", err, ClassOf(err))
	}
	if strings.Contains(err.Error(), "hunter2") {
		t.Errorf("dial error shows the password: %v", err)
	}
}

// A keep-alive connection the server closed while idle fails the next request (it is not
// retried), and the one after reconnects outside the timer.
func TestLeanServerClosesIdleKeepAlive(t *testing.T) {
	for _, k := range leanKinds {
		t.Run(k.prefix+"idle close", func(t *testing.T) { testLeanServerClosesIdleKeepAlive(t, k) })
	}
}

func testLeanServerClosesIdleKeepAlive(t *testing.T, k leanKind) {
	url := rawServer(t, func(c net.Conn, r *bufio.Reader) {
		if _, _, ok := readRequest(r); ok {
			io.WriteString(c, okResponse(`{}`))
		}
		// return: close after one response without saying Connection: close.
	})
	tg := mustTarget(t, "es="+url, Options{Timeout: 2 * time.Second})
	c := k.dial(t, tg)
	p := mustPrepare(t, tg, "GET", "/", "")
	if _, err := c.exchange(p); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // let the server's FIN arrive
	_, err := c.exchange(p)
	if ClassOf(err) != ClassTransport || !strings.Contains(err.Error(), "had carried 1 responses") {
		t.Fatalf("second exchange: %v, want a transport fault naming the reused connection", err)
	}
	ex, err := c.exchange(p)
	if err != nil || ex.Status != 200 {
		t.Fatalf("third exchange: %v %v, want a reconnect and 200", ex.Status, err)
	}
	if c.Reconnects() != 1 {
		t.Errorf("reconnects %d, want 1", c.Reconnects())
	}
}

func TestLeanInterrupt(t *testing.T) {
	for _, k := range leanKinds {
		t.Run(k.prefix+"interrupt", func(t *testing.T) { testLeanInterrupt(t, k) })
	}
}

func testLeanInterrupt(t *testing.T, k leanKind) {
	tg := mustTarget(t, "es="+rawServer(t, func(c net.Conn, r *bufio.Reader) {
		readRequest(r)
		time.Sleep(3 * time.Second)
	}), Options{Timeout: 10 * time.Second})
	c := k.dial(t, tg)
	go func() {
		time.Sleep(50 * time.Millisecond)
		c.Interrupt()
	}()
	_, err := c.exchange(mustPrepare(t, tg, "GET", "/", ""))
	if !errors.Is(err, ErrInterrupted) || ClassOf(err) != "" {
		t.Fatalf("error %v, want ErrInterrupted with no class", err)
	}
	if _, err := c.exchange(mustPrepare(t, tg, "GET", "/", "")); !errors.Is(err, ErrInterrupted) {
		t.Fatalf("exchange after Interrupt: %v, want ErrInterrupted", err)
	}
}

func TestLeanExchangeDoesNotAllocate(t *testing.T) {
	for _, k := range leanKinds {
		t.Run(k.prefix+"keep-alive", func(t *testing.T) { testLeanExchangeDoesNotAllocate(t, k) })
	}
}

func testLeanExchangeDoesNotAllocate(t *testing.T, k leanKind) {
	// targettest's server does not allocate per request either, so the process-wide count
	// AllocsPerRun reads is the client's.
	srv, err := targettest.NewServer("127.0.0.1:0", 200, targettest.SearchPage(20))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	tg := mustTarget(t, "es="+srv.URL, Options{})
	c := k.dial(t, tg)
	p := mustPrepare(t, tg, "POST", "/i/_search", `{"size":20}`)
	if _, err := c.exchange(p); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(200, func() {
		if _, err := c.exchange(p); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("a keep-alive exchange allocates %v times, want 0", allocs)
	}
}

func testCAPEM(t *testing.T) []byte {
	t.Helper()
	srv := httptest.NewTLSServer(http.NotFoundHandler())
	defer srv.Close()
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
}

func TestLeanTLS(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"tls":true}`)
	}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake is expected
	srv.StartTLS()
	defer srv.Close()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	// httptest's certificate is for 127.0.0.1 and example.com.
	for _, tc := range []struct {
		why  string
		opts Options
		fail bool
	}{
		{"system roots do not know the test CA", Options{}, true},
		{"the CA file verifies the server", Options{CAFile: ca}, false},
		{"insecure skips verification", Options{Insecure: true}, false},
	} {
		t.Run(tc.why, func(t *testing.T) {
			tc.opts.Timeout = 2 * time.Second
			tg := mustTarget(t, "es="+srv.URL, tc.opts)
			c, err := tg.Dial(context.Background())
			if tc.fail {
				if ClassOf(err) != ClassTransport || !strings.Contains(err.Error(), "TLS handshake") {
					t.Fatalf("dial: %v, want a TLS handshake transport fault", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			ex, err := c.Exchange(mustPrepare(t, tg, "GET", "/", ""))
			if err != nil || string(ex.Body) != `{"tls":true}` {
				t.Fatalf("exchange: %q %v", ex.Body, err)
			}
		})
	}
}

// The RoundTripper's response headers are refilled for every response from interned names and
// values: a repeated header keeps each value, a header of the previous response does not linger,
// and a caller appending to a value slice does not change a later response's.
func TestRoundTripperResponseHeaders(t *testing.T) {
	responses := []string{
		"HTTP/1.1 200 OK\r\nwarning: 299 a\r\nWarning: 299 b\r\nX-Id: 1\r\nContent-Length: 2\r\n\r\n{}",
		"HTTP/1.1 200 OK\r\nX-Id: 2\r\nContent-Length: 2\r\n\r\n{}",
		"HTTP/1.1 200 OK\r\nX-Id: 1\r\nContent-Length: 2\r\n\r\n{}",
	}
	url := rawServer(t, func(c net.Conn, r *bufio.Reader) {
		for _, res := range responses {
			if _, _, ok := readRequest(r); !ok {
				return
			}
			io.WriteString(c, res)
		}
	})
	tg := mustTarget(t, "es="+url, Options{Timeout: 2 * time.Second})
	rt, err := tg.DialRoundTripper(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	want := []http.Header{
		{"Warning": {"299 a", "299 b"}, "X-Id": {"1"}, "Content-Length": {"2"}},
		{"X-Id": {"2"}, "Content-Length": {"2"}},
		{"X-Id": {"1"}, "Content-Length": {"2"}},
	}
	for i, w := range want {
		req, _ := http.NewRequest("GET", url+"/", nil)
		res, err := rt.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(res.Header, w) {
			t.Errorf("response %d: headers %v, want %v", i+1, res.Header, w)
		}
		res.Header.Add("X-Id", "added by the caller")
		res.Body.Close()
	}
}

// The deadline is moved only when a request would have less than the timeout left: a
// connection idle for longer than its timeout still carries the next request, and a server
// that never answers is still a timeout after at least the timeout and about 9/8 of it at most.
func TestLeanDeadlineIsMovedOnlyWhenNeeded(t *testing.T) {
	answer := make(chan bool, 4)
	tg := mustTarget(t, "es="+rawServer(t, serveEach(func(n int, _ *http.Request, _ []byte) string {
		if <-answer {
			return okResponse(`{}`)
		}
		time.Sleep(2 * time.Second)
		return ""
	})), Options{Timeout: 200 * time.Millisecond})
	c := dial(t, tg)
	p := mustPrepare(t, tg, "GET", "/", "")
	answer <- true
	if _, err := c.Exchange(p); err != nil {
		t.Fatal(err)
	}
	first := c.deadline
	answer <- true
	if _, err := c.Exchange(p); err != nil {
		t.Fatal(err)
	}
	if c.deadline != first {
		t.Errorf("a second exchange within the window moved the deadline from %v to %v", first, c.deadline)
	}
	time.Sleep(300 * time.Millisecond) // past the connection's deadline
	answer <- true
	if ex, err := c.Exchange(p); err != nil || ex.Status != 200 {
		t.Fatalf("exchange after an idle spell past the deadline: %v %v", ex.Status, err)
	}
	answer <- false
	start := time.Now()
	_, err := c.Exchange(p)
	waited := time.Since(start)
	if ClassOf(err) != ClassTimeout {
		t.Fatalf("a server that never answers: %v, want a timeout", err)
	}
	// The lower bound is exact; the upper one allows a busy machine its scheduling delay.
	if waited < 200*time.Millisecond || waited > 2*time.Second {
		t.Errorf("timed out after %v, want at least the 200ms timeout", waited)
	}
}

// A request larger than the socket's send buffer cannot be written from inside the raw read
// at once; the rest goes through the connection's own write, and the exchange completes.
func TestLeanLargeRequest(t *testing.T) {
	for _, k := range leanKinds {
		t.Run(k.prefix+"16 MiB", func(t *testing.T) { testLeanLargeRequest(t, k) })
	}
}

func testLeanLargeRequest(t *testing.T, k leanKind) {
	var got atomic.Int64
	tg := mustTarget(t, "es="+rawServer(t, serveEach(func(_ int, _ *http.Request, body []byte) string {
		got.Store(int64(len(body)))
		return okResponse(`{"ok":true}`)
	})), Options{Timeout: 10 * time.Second})
	c := k.dial(t, tg)
	body := `{"q":"` + strings.Repeat("x", 16<<20) + `"}`
	for i := 0; i < 2; i++ {
		ex, err := c.exchange(mustPrepare(t, tg, "POST", "/i/_search", body))
		if err != nil || ex.Status != 200 || string(ex.Body) != `{"ok":true}` {
			t.Fatalf("exchange %d of a %d-byte request: %v %q %v", i, len(body), ex.Status, ex.Body, err)
		}
		if ex.Start.IsZero() || !ex.Start.Before(ex.End) {
			t.Errorf("exchange %d: start %v, end %v", i, ex.Start, ex.End)
		}
		if got.Load() != int64(len(body)) {
			t.Fatalf("the server read %d body bytes, want %d", got.Load(), len(body))
		}
	}
}

// A server that answers one request twice: the second response, already read, is the next
// exchange's, without waiting for the socket (it will not become readable again for it).
func TestLeanExtraResponseIsTheNext(t *testing.T) {
	for _, k := range leanKinds {
		t.Run(k.prefix+"double answer", func(t *testing.T) {
			tg := mustTarget(t, "es="+rawServer(t, func(c net.Conn, r *bufio.Reader) {
				readRequest(r)
				io.WriteString(c, okResponse(`{"n":1}`)+okResponse(`{"n":2}`))
				for {
					if _, _, ok := readRequest(r); !ok {
						return
					}
				}
			}), Options{Timeout: 200 * time.Millisecond})
			c := k.dial(t, tg)
			p := mustPrepare(t, tg, "GET", "/", "")
			for i, want := range []string{`{"n":1}`, `{"n":2}`} {
				if ex, err := c.exchange(p); err != nil || string(ex.Body) != want {
					t.Fatalf("exchange %d: %q %v, want %s", i, ex.Body, err, want)
				}
			}
			if _, err := c.exchange(p); ClassOf(err) != ClassTimeout {
				t.Fatalf("third exchange: %v, want a timeout", err)
			}
		})
	}
}

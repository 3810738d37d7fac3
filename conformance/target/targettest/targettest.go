// Package targettest provides a minimal loopback HTTP/1.1 server that answers every request
// with the same bytes, for tests, benchmarks and `conform overhead`. It is deliberately leaner
// than any real engine (no routing, no allocation per request) so that what a benchmark
// against it measures is the client, not the server.
package targettest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Server answers every HTTP/1.1 request on every keep-alive connection with one fixed
// response.
type Server struct {
	// URL is http://127.0.0.1:PORT.
	URL  string
	ln   net.Listener
	resp []byte
	// replay, when not nil, picks each request's response instead of resp.
	replay *replay
	mu     sync.Mutex
	conn   map[net.Conn]bool
	wg     sync.WaitGroup
	knobs
}

// knobs are what a test may change while the server runs.
type knobs struct {
	// delay is nanoseconds to wait before each response.
	delay atomic.Int64
	// hang is 1 + the responses to give before hanging, 0 for never; answered counts them.
	hang, answered atomic.Int64
}

// SetDelay makes the server wait d before answering each request, without using CPU, so it
// can stand for an engine with the lab's sub-millisecond latencies.
func (s *Server) SetDelay(d time.Duration) { s.delay.Store(int64(d)) }

// SetHangAfter makes the server stop answering after n more responses, over all its
// connections, as an engine does when its process is stopped (SIGSTOP) or wedged mid-run:
// it still accepts connections and reads requests, but never writes again; its connections
// stay open until the client gives up or Close. n = 0 makes a silent server.
func (s *Server) SetHangAfter(n int) {
	s.answered.Store(0)
	s.hang.Store(int64(n) + 1)
}

// NewSilentServer listens on addr and accepts connections but never answers a request: a
// target that is up as far as TCP can tell and says nothing.
func NewSilentServer(addr string) (*Server, error) {
	s, err := NewServer(addr, 200, []byte(`{}`))
	if err != nil {
		return nil, err
	}
	s.SetHangAfter(0)
	return s, nil
}

// NewServer listens on addr ("127.0.0.1:0" for any free port) and serves status with a JSON
// body until Close.
func NewServer(addr string, status int, body []byte) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &Server{URL: "http://" + ln.Addr().String(), ln: ln, resp: Response(status, body), conn: map[net.Conn]bool{}}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// Response is the bytes the server writes: status line, Content-Type, Content-Length, body.
func Response(status int, body []byte) []byte {
	head := fmt.Sprintf("HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nX-Elastic-Product: Elasticsearch\r\nContent-Length: %d\r\n\r\n",
		status, statusText(status), len(body))
	return append([]byte(head), body...)
}

func statusText(status int) string {
	if status == 200 {
		return "OK"
	}
	return "Status"
}

// Close stops the server and closes its connections.
func (s *Server) Close() error {
	err := s.ln.Close()
	s.mu.Lock()
	for c := range s.conn {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	return err
}

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		s.conn[c] = true
		s.mu.Unlock()
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			if s.replay != nil {
				serveReplay(c, s.replay)
			} else {
				serve(c, s.resp, &s.knobs)
			}
			c.Close()
			s.mu.Lock()
			delete(s.conn, c)
			s.mu.Unlock()
		}()
	}
}

// Serve answers requests on c with resp until c closes or sends something that is not an
// HTTP/1.1 request with a Content-Length (or no body). A HEAD request gets resp's head only.
func Serve(c net.Conn, resp []byte) error { return serve(c, resp, nil) }

func serve(c net.Conn, resp []byte, k *knobs) error {
	r := bufio.NewReaderSize(c, 16<<10)
	head := resp
	if i := bytes.Index(resp, []byte("\r\n\r\n")); i >= 0 {
		head = resp[:i+4]
	}
	for {
		n, isHead, err := readRequest(r)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		if n > 0 {
			if _, err := r.Discard(n); err != nil {
				return err
			}
		}
		if k != nil {
			if h := k.hang.Load(); h > 0 && k.answered.Add(1) >= h {
				// Hung: read whatever comes, answer nothing, until the connection closes.
				io.Copy(io.Discard, r)
				return nil
			}
			if d := k.delay.Load(); d > 0 {
				sleep(time.Duration(d))
			}
		}
		out := resp
		if isHead {
			out = head
		}
		if _, err := c.Write(out); err != nil {
			return err
		}
	}
}

// Answer is one recorded exchange a replay server gives back: the response to Method, Path
// and Body.
type Answer struct {
	Method, Path string
	Body         []byte
	Status       int
	Response     []byte // the body of the response
}

type replay struct {
	// byLine maps a request line to its answers, told apart by request body.
	byLine   map[string][]replayAnswer
	notFound []byte
}

type replayAnswer struct{ body, resp []byte }

// NewReplayServer listens on addr and answers each request with the recorded answer to its
// method, path and body, and any other request with 404. Like NewServer it allocates
// nothing per request, so a benchmark against it measures the client: it stands in for an
// engine whose answers were computed beforehand (the embedded engine's, say).
func NewReplayServer(addr string, answers []Answer) (*Server, error) {
	rp := &replay{byLine: map[string][]replayAnswer{}, notFound: Response(404, []byte(`{"error":"no recorded answer"}`))}
	for _, a := range answers {
		line := a.Method + " " + a.Path + " HTTP/1.1"
		rp.byLine[line] = append(rp.byLine[line], replayAnswer{a.Body, Response(a.Status, a.Response)})
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &Server{URL: "http://" + ln.Addr().String(), ln: ln, replay: rp, conn: map[net.Conn]bool{}}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

func serveReplay(c net.Conn, rp *replay) error {
	r := bufio.NewReaderSize(c, 16<<10)
	for {
		first, err := r.ReadSlice('\n')
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		answers := rp.byLine[string(trim(first))]
		n, _, err := readHeaders(r, false)
		if err != nil {
			return err
		}
		body, err := r.Peek(n)
		if err != nil {
			return err
		}
		out := rp.notFound
		for _, a := range answers {
			if bytes.Equal(a.body, body) {
				out = a.resp
				break
			}
		}
		r.Discard(n)
		if _, err := c.Write(out); err != nil {
			return err
		}
	}
}

// readRequest reads a request line and headers and returns the body's Content-Length and
// whether the method is HEAD.
func readRequest(r *bufio.Reader) (int, bool, error) {
	first, err := r.ReadSlice('\n')
	if err != nil {
		return 0, false, err
	}
	return readHeaders(r, bytes.HasPrefix(first, []byte("HEAD ")))
}

// readHeaders reads the headers after a request line and returns the body's Content-Length.
func readHeaders(r *bufio.Reader, isHead bool) (int, bool, error) {
	n := 0
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			return 0, false, err
		}
		if len(line) <= 2 {
			return n, isHead, nil
		}
		const cl = "content-length:"
		if len(line) > len(cl) && lowerPrefix(line, cl) {
			v := trim(line[len(cl):])
			m, err := strconv.Atoi(string(v)) // the compiler does not allocate for this conversion
			if err != nil || m < 0 {
				return 0, false, fmt.Errorf("bad Content-Length %q", v)
			}
			n = m
		}
	}
}

func lowerPrefix(b []byte, p string) bool {
	for i := 0; i < len(p); i++ {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != p[i] {
			return false
		}
	}
	return true
}

func trim(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == '\r' || b[len(b)-1] == '\n' || b[len(b)-1] == ' ') {
		b = b[:len(b)-1]
	}
	return b
}

// SearchPage is a valid Elasticsearch 8 search response with n catalogue hits sorted by price
// then sku, the shape of the workload's page cases (about 380 bytes a hit).
func SearchPage(n int) []byte {
	b := []byte(`{"took":1,"timed_out":false,"_shards":{"total":1,"successful":1,"skipped":0,"failed":0},"hits":{"total":{"value":4213,"relation":"eq"},"max_score":null,"hits":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		id := fmt.Sprintf("p-%05d", 100+i*37)
		price := fmt.Sprintf("%d.99", 10+i)
		b = fmt.Appendf(b, `{"_index":"catalogue","_id":%q,"_score":null,"_source":{"sku":%q,"title":"Product %d","brand":"Acme","category":"tools","tags":["blue","sale"],"price":%s,"rating":4.1,"stock":%d,"weight":1.25,"active":true,"released":"2023-04-%02dT10:00:00Z"},"sort":[%s,%q]}`,
			id, id, i, price, 7*i, 1+i%28, price, id)
	}
	return append(b, "]}}"...)
}

// Hang is an http.Handler that serves the first n requests with another handler and then
// hangs: every later request is read and never answered, until its client gives up or
// Release. It stands in front of a real engine (conform's embedded one, say) as a target
// that answers readiness and part of the work and then stops, like a process stopped with
// SIGSTOP; n = 0 is a target that accepts connections and says nothing.
type Hang struct {
	h       http.Handler
	n       int64
	served  atomic.Int64
	release chan struct{}
	once    sync.Once
}

// NewHang serves n requests with h, then hangs.
func NewHang(h http.Handler, n int) *Hang {
	return &Hang{h: h, n: int64(n), release: make(chan struct{})}
}

func (g *Hang) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if g.served.Add(1) <= g.n {
		g.h.ServeHTTP(w, r)
		return
	}
	io.Copy(io.Discard, r.Body)
	select {
	case <-r.Context().Done():
	case <-g.release:
	}
	// No answer: the connection is dropped without a response.
	panic(http.ErrAbortHandler)
}

// Served is how many requests came, answered or not.
func (g *Hang) Served() int { return int(g.served.Load()) }

// Release ends every hung request (each loses its connection unanswered), so a test's server
// can close.
func (g *Hang) Release() { g.once.Do(func() { close(g.release) }) }

package proxy

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestClassify(t *testing.T) {
	cases := []struct {
		method, path, query string
		kind                Kind
		name, index         string
		unreplayable        string
	}{
		{"POST", "/catalogue/_search", "", Read, "search", "catalogue", ""},
		{"GET", "/_search", "q=a", Read, "search", "", ""},
		{"POST", "/catalogue/_search", "scroll=1m", Read, "search", "catalogue", "scroll"},
		{"POST", "/_search/scroll", "", Other, "scroll", "", "scroll"},
		{"POST", "/a,b/_count", "", Read, "count", "a,b", ""},
		{"GET", "/catalogue/_doc/SKU-1", "", Read, "get", "catalogue", ""},
		{"HEAD", "/catalogue/_doc/SKU-1", "", Read, "exists", "catalogue", ""},
		{"GET", "/catalogue/_source/SKU-1", "", Read, "source", "catalogue", ""},
		{"HEAD", "/catalogue/_source/SKU-1", "", Read, "source-exists", "catalogue", ""},
		{"POST", "/_mget", "", Read, "mget", "", ""},
		{"GET", "/catalogue/_msearch", "", Read, "msearch", "catalogue", ""},
		{"PUT", "/catalogue/_doc/SKU-1", "", Write, "doc", "catalogue", ""},
		{"POST", "/catalogue/_doc", "", Write, "doc", "catalogue", ""},
		{"DELETE", "/catalogue/_doc/SKU-1", "", Write, "doc", "catalogue", ""},
		{"POST", "/_bulk", "", Write, "bulk", "", ""},
		{"POST", "/catalogue/_bulk", "refresh=true", Write, "bulk", "catalogue", ""},
		{"POST", "/catalogue/_update/SKU-1", "", Write, "update", "catalogue", ""},
		{"POST", "/catalogue/_delete_by_query", "", Write, "delete_by_query", "catalogue", ""},
		{"PUT", "/catalogue", "", Write, "index", "catalogue", ""},
		{"DELETE", "/catalogue", "", Write, "index", "catalogue", ""},
		{"PUT", "/catalogue/_mapping", "", Write, "mapping", "catalogue", ""},
		{"POST", "/catalogue/_refresh", "", Other, "refresh", "catalogue", ""},
		{"POST", "/catalogue/_pit", "keep_alive=1m", Other, "pit", "catalogue", ""},
		{"DELETE", "/_pit", "", Other, "pit", "", ""},
		{"GET", "/", "", Other, "root", "", ""},
		{"GET", "/_cat/indices", "", Other, "cat", "", ""},
		{"GET", "/catalogue/_mapping", "", Other, "mapping", "catalogue", ""},
		{"POST", "/catalogue/_search/template", "", Other, "search", "catalogue", ""},
	}
	for _, c := range cases {
		got := Classify(c.method, c.path, c.query)
		want := Endpoint{Kind: c.kind, Name: c.name, Index: c.index, Unreplayable: c.unreplayable}
		if got != want {
			t.Errorf("%s %s?%s: got %+v, want %+v", c.method, c.path, c.query, got, want)
		}
	}
}

// seen is what an upstream received.
type seen struct {
	method, uri, host string
	header            http.Header
	body              []byte
	remote            string
}

// echoUpstream answers every request with a fixed, chunked, streamed body and headers of its
// own, and records what it received.
func echoUpstream(t *testing.T) (*httptest.Server, func() []seen) {
	var mu sync.Mutex
	var got []seen
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, seen{r.Method, r.RequestURI, r.Host, r.Header.Clone(), b, r.RemoteAddr})
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		w.Header().Set("X-Elastic-Product", "Elasticsearch")
		w.Header().Add("Warning", `299 Elasticsearch-8.15.0 "one"`)
		w.Header().Add("Warning", `299 Elasticsearch-8.15.0 "two"`)
		w.WriteHeader(201)
		if r.Method == http.MethodHead {
			return
		}
		fl := w.(http.Flusher)
		for i := range 3 {
			fmt.Fprintf(w, `{"part":%d}`, i)
			fl.Flush()
		}
	}))
	t.Cleanup(srv.Close)
	return srv, func() []seen {
		mu.Lock()
		defer mu.Unlock()
		return append([]seen(nil), got...)
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// TestForwarderPassesThrough: the upstream gets the client's request unchanged (no
// X-Forwarded-For added, credentials passed on, body and query as sent), and the client gets
// the upstream's answer unchanged: status, headers (repeated ones too), the chunked body.
func TestForwarderPassesThrough(t *testing.T) {
	up, got := echoUpstream(t)
	var observed []*Exchange
	var mu sync.Mutex
	f := NewForwarder(mustURL(t, up.URL), Options{KeepBody: true, Observe: func(ex *Exchange) {
		mu.Lock()
		observed = append(observed, ex)
		mu.Unlock()
	}})
	px := httptest.NewServer(f)
	defer px.Close()

	client := px.Client()
	body := `{"query":{"match_all":{}}}`
	req, _ := http.NewRequest("POST", px.URL+"/catalogue/_search?routing=a%2Fb&pretty", strings.NewReader(body))
	req.Header.Set("Authorization", "Basic c2VjcmV0")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Opaque-Id", "client-42")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 201 || string(b) != `{"part":0}{"part":1}{"part":2}` {
		t.Fatalf("client got %d %q", resp.StatusCode, b)
	}
	if w := resp.Header.Values("Warning"); len(w) != 2 || resp.Header.Get("X-Elastic-Product") != "Elasticsearch" ||
		resp.Header.Get("Content-Type") != "application/json; charset=UTF-8" {
		t.Errorf("headers not passed back: %v", resp.Header)
	}
	if len(resp.TransferEncoding) == 0 || resp.TransferEncoding[0] != "chunked" {
		t.Errorf("a chunked answer should stay chunked, got %v (length %d)", resp.TransferEncoding, resp.ContentLength)
	}
	s := got()[0]
	if s.method != "POST" || s.uri != "/catalogue/_search?routing=a%2Fb&pretty" || string(s.body) != body {
		t.Errorf("upstream got %s %s %q", s.method, s.uri, s.body)
	}
	if s.header.Get("Authorization") != "Basic c2VjcmV0" || s.header.Get("X-Opaque-Id") != "client-42" {
		t.Errorf("the client's headers did not reach the upstream: %v", s.header)
	}
	for _, h := range []string{"X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto", "Forwarded"} {
		if v := s.header.Get(h); v != "" {
			t.Errorf("the proxy added %s: %s", h, v)
		}
	}
	if s.host != mustURL(t, up.URL).Host {
		t.Errorf("Host: got %s, want the upstream's", s.host)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(observed) != 1 {
		t.Fatalf("observed %d exchanges", len(observed))
	}
	ex := observed[0]
	if ex.Status != 201 || string(ex.Body) != string(b) || ex.Fault != "" || ex.Request.Header.Get("Authorization") != "" {
		t.Errorf("observed %d %q fault %q, request headers %v", ex.Status, ex.Body, ex.Fault, ex.Request.Header)
	}
}

// TestForwarderKeepsClientForwardedHeaders: a client's own X-Forwarded-For goes through as
// it is, and a HEAD is answered without a body; writes stream and are counted.
func TestForwarderKeepsClientForwardedHeaders(t *testing.T) {
	up, got := echoUpstream(t)
	f := NewForwarder(mustURL(t, up.URL), Options{})
	px := httptest.NewServer(f)
	defer px.Close()
	req, _ := http.NewRequest("HEAD", px.URL+"/catalogue/_doc/1", nil)
	req.Header.Set("X-Forwarded-For", "10.0.0.1")
	resp, err := px.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 201 {
		t.Errorf("HEAD: %d", resp.StatusCode)
	}
	if v := got()[0].header.Values("X-Forwarded-For"); len(v) != 1 || v[0] != "10.0.0.1" {
		t.Errorf("X-Forwarded-For: %v", v)
	}
	resp, err = px.Client().Post(px.URL+"/_bulk", "application/x-ndjson", strings.NewReader("{\"index\":{}}\n{}\n"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	c := f.Counts()
	if c.Requests != 2 || c.Reads != 1 || c.Writes != 1 || c.WritesBy["bulk"] != 1 {
		t.Errorf("counts %+v", c)
	}
}

// TestForwarderKeepAlive: one client connection's requests reuse one upstream connection.
func TestForwarderKeepAlive(t *testing.T) {
	up, got := echoUpstream(t)
	px := httptest.NewServer(NewForwarder(mustURL(t, up.URL), Options{}))
	defer px.Close()
	for range 5 {
		resp, err := px.Client().Get(px.URL + "/catalogue/_doc/1")
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	remotes := map[string]bool{}
	for _, s := range got() {
		remotes[s.remote] = true
	}
	if len(remotes) != 1 {
		t.Errorf("5 sequential requests used %d upstream connections", len(remotes))
	}
}

// rawServer accepts connections and hands each to fn.
func rawServer(t *testing.T, fn func(net.Conn)) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go fn(c)
		}
	}()
	return "http://" + ln.Addr().String()
}

// TestForwarderFaults: an upstream that hangs, is not there, answers garbage or breaks off
// never hangs the proxy: the client gets a 504 or a 502 with a reason, or a broken
// connection once the headers were sent; each is counted and observed as a fault.
func TestForwarderFaults(t *testing.T) {
	hold := make(chan struct{})
	defer close(hold)
	readRequest := func(c net.Conn) {
		if r, err := http.ReadRequest(bufio.NewReader(c)); err == nil {
			io.Copy(io.Discard, r.Body)
		}
	}
	hang := rawServer(t, func(c net.Conn) { readRequest(c); <-hold; c.Close() })
	garbage := rawServer(t, func(c net.Conn) { readRequest(c); c.Write([]byte("NOT HTTP AT ALL\r\n\r\n")); c.Close() })
	halfBody := rawServer(t, func(c net.Conn) {
		readRequest(c)
		c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"hits\":"))
		<-hold
		c.Close()
	})
	dies := rawServer(t, func(c net.Conn) {
		readRequest(c)
		c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"hits\":"))
		c.Close()
	})
	closed := func() string {
		ln, _ := net.Listen("tcp", "127.0.0.1:0")
		addr := ln.Addr().String()
		ln.Close()
		return "http://" + addr
	}()
	cases := []struct {
		name, upstream string
		status         int // 0: the connection breaks after the headers
		fault          string
	}{
		{"hangs before its headers", hang, 504, "did not answer within"},
		{"nobody listens", closed, 502, "did not answer"},
		{"garbage", garbage, 502, "malformed HTTP"},
		{"hangs in its body", halfBody, 0, "not complete within"},
		{"dies in its body", dies, 0, "broke off"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			faults := make(chan *Exchange, 1)
			f := NewForwarder(mustURL(t, c.upstream), Options{Timeout: 300 * time.Millisecond, Observe: func(ex *Exchange) { faults <- ex }})
			px := httptest.NewServer(f)
			defer px.Close()
			done := make(chan string, 1)
			go func() {
				resp, err := px.Client().Post(px.URL+"/catalogue/_search", "application/json", strings.NewReader(`{}`))
				if err != nil {
					done <- "error " + err.Error()
					return
				}
				b, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil {
					done <- fmt.Sprintf("%d broken: %v", resp.StatusCode, err)
					return
				}
				done <- fmt.Sprintf("%d %s", resp.StatusCode, b)
			}()
			var out string
			select {
			case out = <-done:
			case <-time.After(20 * time.Second):
				t.Fatal("the proxy hung")
			}
			if c.status != 0 {
				if !strings.HasPrefix(out, fmt.Sprint(c.status)) || !strings.Contains(out, "conform_proxy_exception") || !strings.Contains(out, c.fault) {
					t.Errorf("client got %s, want %d with a conform_proxy_exception saying %q", out, c.status, c.fault)
				}
			} else if !strings.Contains(out, "broken") && !strings.HasPrefix(out, "error") {
				t.Errorf("client got %s, want a broken answer", out)
			}
			select {
			case ex := <-faults:
				if !strings.Contains(ex.Fault, c.fault) {
					t.Errorf("observed fault %q, want %q", ex.Fault, c.fault)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("no fault observed")
			}
		})
	}
}

// TestForwarderGzipUnchanged: a compressed answer reaches the client compressed, byte for
// byte; the observer gets the same bytes (shadow decodes them for the check).
func TestForwarderGzipUnchanged(t *testing.T) {
	var gz bytes.Buffer
	zw := newGzip(&gz)
	zw.Write([]byte(`{"count":3}`))
	zw.Close()
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Accept-Encoding") != "gzip" {
			w.WriteHeader(400)
			return
		}
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(gz.Bytes())
	}))
	defer up.Close()
	var ex *Exchange
	px := httptest.NewServer(NewForwarder(mustURL(t, up.URL), Options{KeepBody: true, Observe: func(e *Exchange) { ex = e }}))
	defer px.Close()
	req, _ := http.NewRequestWithContext(context.Background(), "GET", px.URL+"/catalogue/_count", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Equal(b, gz.Bytes()) || resp.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("client got %d %q (%v)", resp.StatusCode, b, resp.Header)
	}
	plain, err := decodeAnswer(ex.Header, ex.Body, 1<<20)
	if err != nil || string(plain) != `{"count":3}` {
		t.Errorf("decoded %q, %v", plain, err)
	}
}

func newGzip(w io.Writer) *gzip.Writer { return gzip.NewWriter(w) }

package target

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/elastic/go-elasticsearch/v8"

	"github.com/conform-dev/conform/fixtures"
)

// fakeOpenSearch answers like a server that is not Elasticsearch: no X-Elastic-Product
// header. It records the last request's path and Authorization header.
type fakeOpenSearch struct {
	mu   sync.Mutex
	path string
	auth string
	body string
}

func (f *fakeOpenSearch) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	// Every header value joined, so a header sent twice shows.
	f.path, f.auth, f.body = r.URL.Path, strings.Join(r.Header["Authorization"], ", "), string(b)
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch {
	case strings.HasSuffix(r.URL.Path, "/_count"):
		io.WriteString(w, `{"count":10000,"_shards":{"total":1,"successful":1,"skipped":0,"failed":0}}`)
	case strings.HasSuffix(r.URL.Path, "/_search"):
		io.WriteString(w, `{"took":1,"hits":{"total":{"value":0,"relation":"eq"},"hits":[]}}`)
	default:
		io.WriteString(w, `{"name":"node-1","cluster_name":"docker-cluster","version":{"distribution":"opensearch","number":"3.9.0"},"tagline":"The OpenSearch Project: https://opensearch.org/"}`)
	}
}

func (f *fakeOpenSearch) last() (path, auth, body string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.path, f.auth, f.body
}

func TestClientReachesServersWithoutProductHeader(t *testing.T) {
	fake := &fakeOpenSearch{}
	srv := httptest.NewServer(fake)
	defer srv.Close()

	// The stock client refuses this server: the reason Client exists.
	stock, err := elasticsearch.NewClient(elasticsearch.Config{Addresses: []string{srv.URL}})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := stock.Info(); err == nil || !strings.Contains(err.Error(), "not Elasticsearch") {
		if res != nil {
			res.Body.Close()
		}
		t.Fatalf("stock go-elasticsearch client Info() err = %v; the product check this test guards against seems gone", err)
	}

	tg := mustTarget(t, "os="+strings.Replace(srv.URL, "http://", "http://admin:hunter2@", 1)+"/search", Options{})
	es, err := tg.Client()
	if err != nil {
		t.Fatal(err)
	}
	res, err := es.Info()
	if err != nil {
		t.Fatalf("Info: %v", err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(b), `"opensearch"`) {
		t.Errorf("Info: %d %s", res.StatusCode, b)
	}
	path, auth, _ := fake.last()
	if path != "/search/" || auth != "Basic YWRtaW46aHVudGVyMg==" {
		t.Errorf("Info sent path %q auth %q, want the prefix and basic auth", path, auth)
	}

	res, err = es.Count(es.Count.WithIndex("catalogue"))
	if err != nil {
		t.Fatalf("Count: %v", err)
	}
	res.Body.Close()
	if path, _, _ := fake.last(); path != "/search/catalogue/_count" {
		t.Errorf("Count sent path %q", path)
	}

	tp, err := tg.Transport()
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("GET", "/", nil)
	hres, err := tp.Perform(req)
	if err != nil {
		t.Fatalf("Transport().Perform: %v", err)
	}
	hres.Body.Close()
}

func TestClientAPIKey(t *testing.T) {
	fake := &fakeOpenSearch{}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	tg := mustTarget(t, "gw="+srv.URL, Options{APIKey: "aWQ6a2V5"})
	es, err := tg.Client()
	if err != nil {
		t.Fatal(err)
	}
	res, err := es.Info()
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if _, auth, _ := fake.last(); auth != "ApiKey aWQ6a2V5" {
		t.Errorf("Authorization %q, want the API key", auth)
	}
}

func TestClientDoesNotRetryAndScrubsErrors(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	tg := mustTarget(t, "es=http://elastic:hunter2@"+addr, Options{Timeout: time.Second})
	es, err := tg.Client()
	if err != nil {
		t.Fatal(err)
	}
	_, err = es.Info()
	if err == nil {
		t.Fatal("Info on a closed port succeeded")
	}
	if strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "ZWxhc3RpYzpodW50ZXIy") {
		t.Errorf("error shows a credential: %v", err)
	}

	var calls int
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		calls++
		mu.Unlock()
		w.WriteHeader(503)
	}))
	defer srv.Close()
	es2, _ := mustTarget(t, "es="+srv.URL, Options{}).Client()
	res, err := es2.Info()
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	mu.Lock()
	defer mu.Unlock()
	if res.StatusCode != 503 || calls != 1 {
		t.Errorf("a 503 gave status %d after %d calls, want 503 after 1 (no retry)", res.StatusCode, calls)
	}
}

func TestClientTimeout(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(2 * time.Second):
		}
	}))
	defer srv.Close()
	es, _ := mustTarget(t, "es="+srv.URL, Options{Timeout: 100 * time.Millisecond}).Client()
	_, err := es.Info()
	if ClassOf(err) != ClassTimeout || !strings.Contains(err.Error(), "GET /: no response within 100ms (the per-request --timeout)") {
		t.Fatalf("Info against a stalled server: %v (class %q), want a timeout that says which bound ran out", err, ClassOf(err))
	}
}

// Every layer sends the same request (method, prefixed path, auth, content type, body) and
// reads the same response.
func TestLayersSendTheSameRequest(t *testing.T) {
	fake := &fakeOpenSearch{}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	tg := mustTarget(t, "gw="+strings.Replace(srv.URL, "http://", "http://u:pw@", 1)+"/es", Options{Timeout: 2 * time.Second})
	reqs, err := tg.PrepareAll([]fixtures.Request{
		{Case: "page/000", Method: "POST", Path: "/catalogue/_search", Body: []byte(`{"size":20}`)},
		{Case: "get/000", Method: "GET", Path: "/catalogue/_doc/p1"},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, layer := range Layers {
		t.Run(layer.String(), func(t *testing.T) {
			x, err := tg.Open(context.Background(), layer, reqs)
			if err != nil {
				t.Fatal(err)
			}
			defer x.Close()
			// Three rounds of the same case: a layer that reuses its request objects must send
			// each one as the first (one prefix, one Authorization header).
			for round := 0; round < 3; round++ {
				ex, err := x.Exchange(0)
				if err != nil {
					t.Fatal(err)
				}
				if ex.Status != 200 || !strings.Contains(string(ex.Body), `"hits"`) || ex.Latency() <= 0 {
					t.Errorf("exchange: %d %q latency %v", ex.Status, ex.Body, ex.Latency())
				}
				path, auth, body := fake.last()
				if path != "/es/catalogue/_search" || auth != "Basic dTpwdw==" || body != `{"size":20}` {
					t.Errorf("server saw path %q auth %q body %q", path, auth, body)
				}
			}
			if _, err := x.Exchange(1); err != nil {
				t.Fatal(err)
			}
			if path, _, _ := fake.last(); path != "/es/catalogue/_doc/p1" {
				t.Errorf("GET went to %q", path)
			}
			if x.Reconnects() != 0 {
				t.Errorf("reconnects %d, want 0", x.Reconnects())
			}
			x.Interrupt()
			if _, err := x.Exchange(0); ClassOf(err) != "" || err == nil {
				t.Errorf("exchange after Interrupt: %v, want ErrInterrupted", err)
			}
		})
	}
}

func TestLayersReportFaults(t *testing.T) {
	for _, layer := range Layers {
		t.Run(layer.String(), func(t *testing.T) {
			var n int
			var mu sync.Mutex
			url := rawServer(t, func(c net.Conn, r *bufio.Reader) {
				for {
					if _, _, ok := readRequest(r); !ok {
						return
					}
					mu.Lock()
					n++
					first := n == 1
					mu.Unlock()
					if first { // the net/http layers' connection warm-up
						io.WriteString(c, okResponse(`{}`))
						continue
					}
					io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"trunc")
					return
				}
			})
			tg := mustTarget(t, "es="+url, Options{Timeout: time.Second})
			reqs, _ := tg.PrepareAll([]fixtures.Request{{Case: "c", Method: "POST", Path: "/i/_search", Body: []byte(`{}`)}})
			x, err := tg.Open(context.Background(), layer, reqs)
			if err != nil {
				t.Fatal(err)
			}
			defer x.Close()
			if layer == LayerLean || layer == LayerLeanTransport {
				if _, err := x.Exchange(0); err != nil { // the first request answers properly
					t.Fatal(err)
				}
			}
			_, err = x.Exchange(0)
			if ClassOf(err) != ClassTransport {
				t.Errorf("truncated response: %v (class %q), want a transport fault", err, ClassOf(err))
			}
		})
	}
}

func TestRoundTripperNeedsTheBodyClosed(t *testing.T) {
	srv := httptest.NewServer(&fakeOpenSearch{})
	defer srv.Close()
	tg := mustTarget(t, "es="+srv.URL, Options{})
	rt, err := tg.DialRoundTripper(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	req, _ := http.NewRequest("GET", srv.URL+"/", nil)
	res, err := rt.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	if res.Header.Get("Content-Type") != "application/json" {
		t.Errorf("response headers %v, want Content-Type kept", res.Header)
	}
	if _, err := rt.RoundTrip(req); err == nil {
		t.Error("a second RoundTrip before closing the first body succeeded")
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !strings.Contains(string(b), "node-1") {
		t.Errorf("body %q", b)
	}
	res, err = rt.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
}

// An escaped character in a path (a document id with a slash) survives the path prefix.
func TestTransportKeepsEscapesUnderAPrefix(t *testing.T) {
	var got string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.RequestURI
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{}`))
	}))
	defer srv.Close()
	tg, err := Parse("gw="+srv.URL+"/es", Options{})
	if err != nil {
		t.Fatal(err)
	}
	tp, err := tg.Transport()
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("GET", "/catalogue/_doc/a%2Fb", nil)
	resp, err := tp.Perform(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got != "/es/catalogue/_doc/a%2Fb" {
		t.Fatalf("the server got %q, want /es/catalogue/_doc/a%%2Fb", got)
	}
}

package targettest

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

func TestServerAnswersEveryRequestOnOneConnection(t *testing.T) {
	page := SearchPage(20)
	var v struct {
		Hits struct {
			Total struct{ Value int }
			Hits  []struct {
				ID   string `json:"_id"`
				Sort []any
			}
		}
	}
	if err := json.Unmarshal(page, &v); err != nil || len(v.Hits.Hits) != 20 || v.Hits.Total.Value != 4213 || len(v.Hits.Hits[0].Sort) != 2 {
		t.Fatalf("SearchPage(20) is not a 20-hit search response: %v %+v", err, v.Hits.Total)
	}
	srv, err := NewServer("127.0.0.1:0", 200, page)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	srv.SetDelay(2 * time.Millisecond)
	c, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := bufio.NewReader(c)
	for _, req := range []string{
		"POST /i/_search HTTP/1.1\r\nHost: x\r\ncontent-length: 11\r\n\r\n{\"size\":20}",
		"GET /i/_doc/1 HTTP/1.1\r\nHost: x\r\n\r\n",
		"HEAD / HTTP/1.1\r\nHost: x\r\n\r\n",
		"POST /i/_search HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}",
	} {
		start := time.Now()
		if _, err := io.WriteString(c, req); err != nil {
			t.Fatal(err)
		}
		method := req[:strings.IndexByte(req, ' ')]
		res, err := http.ReadResponse(r, &http.Request{Method: method})
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		body, _ := io.ReadAll(res.Body)
		if res.StatusCode != 200 || method != "HEAD" && string(body) != string(page) || method == "HEAD" && len(body) != 0 {
			t.Errorf("%s: %d, %d body bytes", method, res.StatusCode, len(body))
		}
		if time.Since(start) < 2*time.Millisecond {
			t.Errorf("%s: answered before the 2ms delay", method)
		}
	}
}

func TestReplayServerAnswersEachRequestWithItsRecording(t *testing.T) {
	srv, err := NewReplayServer("127.0.0.1:0", []Answer{
		{Method: "GET", Path: "/catalogue/_doc/A", Status: 200, Response: []byte(`{"_id":"A"}`)},
		{Method: "GET", Path: "/catalogue/_doc/B", Status: 404, Response: []byte(`{"found":false}`)},
		{Method: "POST", Path: "/catalogue/_search", Body: []byte(`{"size":1}`), Status: 200, Response: []byte(`{"one":1}`)},
		{Method: "POST", Path: "/catalogue/_search", Body: []byte(`{"size":2}`), Status: 200, Response: []byte(`{"two":2}`)},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 1}}
	for _, tc := range []struct {
		method, path, body string
		status             int
		want               string
	}{
		{"GET", "/catalogue/_doc/A", "", 200, `{"_id":"A"}`},
		{"POST", "/catalogue/_search", `{"size":2}`, 200, `{"two":2}`},
		{"GET", "/catalogue/_doc/B", "", 404, `{"found":false}`},
		{"POST", "/catalogue/_search", `{"size":1}`, 200, `{"one":1}`},
		{"POST", "/catalogue/_search", `{"size":3}`, 404, `{"error":"no recorded answer"}`},
		{"GET", "/elsewhere", "", 404, `{"error":"no recorded answer"}`},
	} {
		req, _ := http.NewRequest(tc.method, srv.URL+tc.path, strings.NewReader(tc.body))
		resp, err := c.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", tc.method, tc.path, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || string(b) != tc.want {
			t.Errorf("%s %s %s: %d %s, want %d %s", tc.method, tc.path, tc.body, resp.StatusCode, b, tc.status, tc.want)
		}
	}
}

// SetHangAfter(n): the server gives n responses over all its connections, then reads
// requests and answers none, keeping the connections open.
func TestServerHangsAfterNResponses(t *testing.T) {
	s, err := NewServer("127.0.0.1:0", 200, []byte(`{"ok":true}`))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.SetHangAfter(2)
	want := Response(200, []byte(`{"ok":true}`))
	ask := func(c net.Conn, wait time.Duration) error {
		if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
			return err
		}
		c.SetReadDeadline(time.Now().Add(wait))
		got := make([]byte, len(want))
		if _, err := io.ReadFull(c, got); err != nil {
			return err
		}
		if string(got) != string(want) {
			return fmt.Errorf("got %q", got)
		}
		return nil
	}
	a, err := net.Dial("tcp", strings.TrimPrefix(s.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := net.Dial("tcp", strings.TrimPrefix(s.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for i, c := range []net.Conn{a, b} {
		if err := ask(c, 5*time.Second); err != nil {
			t.Fatalf("response %d: %v", i+1, err)
		}
	}
	// The third answer never comes, on either connection; a short wait proves nothing came
	// in it, and nothing could.
	for i, c := range []net.Conn{a, b} {
		if err := ask(c, 50*time.Millisecond); !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("request %d after the hang: %v, want no answer", i+3, err)
		}
	}
}

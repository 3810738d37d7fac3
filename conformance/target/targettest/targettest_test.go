package targettest

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
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

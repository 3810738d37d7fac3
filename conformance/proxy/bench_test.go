package proxy

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/conform-dev/conform/conformance/suite"
	"github.com/conform-dev/conform/fixtures"
)

// BenchmarkAddedLatency measures what capture and shadow add to a client's latency: one
// keep-alive client sends the same read, one at a time, to the embedded engine directly,
// through capture, and through shadow (every read also sent to a candidate, the same
// engine), and ns/op is the client's whole exchange. The difference from direct is what the
// proxy adds: a second loopback hop, reading the request body before forwarding it, the
// tee of the answer and, in shadow, the handing of the read to the candidate's queue (the
// candidate's own work shares the CPUs, which on a small machine shows too). Run:
//
//	go test -run '^$' -bench AddedLatency -benchtime 3000x ./conformance/proxy/
func BenchmarkAddedLatency(b *testing.B) {
	eng, err := engineFor()
	if err != nil {
		b.Fatal(err)
	}
	up := httptest.NewServer(eng)
	defer up.Close()
	cand := httptest.NewServer(eng)
	defer cand.Close()
	reads := []struct{ name, method, path, body string }{
		{"get", "GET", "/catalogue/_doc/SKU-00000", ""},
		{"search", "POST", "/catalogue/_search", `{"query":{"term":{"brand":"acme"}},"sort":[{"price":"desc"},"sku"],"size":20}`},
	}
	upURL, _ := urlParse(up.URL)
	candURL, _ := urlParse(cand.URL)
	for _, r := range reads {
		b.Run(r.name+"/direct", func(b *testing.B) { benchClient(b, up.URL, r.method, r.path, r.body) })
		b.Run(r.name+"/capture", func(b *testing.B) {
			c, err := NewCapture(CaptureConfig{Upstream: upURL, Out: b.TempDir()})
			if err != nil {
				b.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- c.Run(ctx) }()
			px := httptest.NewServer(c.Handler())
			benchClient(b, px.URL, r.method, r.path, r.body)
			px.Close()
			cancel()
			<-done
		})
		b.Run(r.name+"/shadow", func(b *testing.B) {
			s, err := NewShadow(ShadowConfig{Primary: upURL, Candidate: candURL, Out: b.TempDir(), Sample: 1})
			if err != nil {
				b.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- s.Run(ctx) }()
			px := httptest.NewServer(s.Handler())
			benchClient(b, px.URL, r.method, r.path, r.body)
			px.Close()
			cancel()
			<-done
			sum := s.Summary(true)
			b.ReportMetric(float64(sum.Dropped)/float64(max(1, sum.Sampled)), "dropped/read")
		})
	}
}

func benchClient(b *testing.B, base, method, path, body string) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
	defer client.CloseIdleConnections()
	do := func() {
		var rd io.Reader
		if body != "" {
			rd = strings.NewReader(body)
		}
		req, _ := http.NewRequest(method, base+path, rd)
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	for range 50 {
		do()
	}
	b.ResetTimer()
	for range b.N {
		do()
	}
}

// engineFor is the embedded engine with the small catalogue, outside a test.
func engineFor() (http.Handler, error) {
	f, err := fixtures.Generate(fixtures.Options{Seed: 7, Documents: 300, Cases: fixtures.CaseCounts{Get: 1}})
	if err != nil {
		return nil, err
	}
	return suite.Engine(f)
}

func urlParse(s string) (*url.URL, error) { return url.Parse(s) }

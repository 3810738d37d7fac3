// Package mutproxy is an HTTP proxy that alters the answers of the engine it fronts the way
// conformance.Mutations alters an expected response: the same operator (drop-hit,
// int-to-float, status-500, pretty, ...) applied to every answer it fits. It stands for a
// faulty gateway or proxy in tests that drive conform's real commands against it, so that
// every fault the check knows is proved end to end: the binary's exit status, the class among
// its failures, the cases it names.
//
// It takes a backend URL and a Mutation and is an http.Handler; it alters only the answers to
// the requests its Match accepts (by default a workload's own requests, never a readiness
// probe's count, mapping or GET /), and passes everything else through unchanged. It is for
// tests on loopback: it buffers whole bodies and sets no timeouts of its own.
package mutproxy

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/conform-dev/conform/conformance"
)

// Mutation names the alteration a Proxy makes: an operator of conformance.Mutations with
// the class it must fail with, or, for one that must pass, the class it reports ("" for
// none). Operators apply in several places with different classes (int-to-float in a
// _source is sources, in a sort value sort), so the class picks among them.
type Mutation struct {
	Operator string
	Class    conformance.Class
	Reported conformance.Class
}

// Of names a conformance.Mutation's kind.
func Of(m conformance.Mutation) Mutation {
	return Mutation{Operator: m.Operator, Class: m.Class, Reported: m.Reported}
}

// MustPass reports whether the check must pass what the mutation makes.
func (m Mutation) MustPass() bool { return m.Class == "" }

func (m Mutation) String() string {
	if m.MustPass() {
		if m.Reported != "" {
			return m.Operator + " (passes, reports " + string(m.Reported) + ")"
		}
		return m.Operator + " (passes)"
	}
	return m.Operator + " (" + string(m.Class) + ")"
}

// Proxy forwards every request to Backend and alters the answers to those Match accepts with
// the first mutation of its kind that applies to the answer; an answer it does not apply to
// passes unchanged.
type Proxy struct {
	backend  string
	mutation Mutation
	// Match picks the requests whose answers are altered; nil is WorkloadRequest.
	Match   func(method, path string, body []byte) bool
	client  *http.Client
	altered atomic.Int64
}

// New is a proxy in front of backend (http://HOST:PORT) that makes mutation m.
func New(backend string, m Mutation) *Proxy {
	return &Proxy{backend: strings.TrimSuffix(backend, "/"), mutation: m, client: &http.Client{}}
}

// Altered is the number of answers the proxy has altered.
func (p *Proxy) Altered() int64 { return p.altered.Load() }

// WorkloadRequest accepts the requests a workload's cases send: GET /{index}/_doc/{id}, and
// searches and counts with a body (POST /{index}/_search, POST /{index}/_count). A readiness
// probe's own requests (GET /, GET /{index}/_mapping, GET /{index}/_count) are not altered:
// a count that is not the corpus's is the one thing readiness stops on, by design, and the
// point is to see what the cases and the sample make of a fault.
func WorkloadRequest(method, path string, body []byte) bool {
	path, _, _ = strings.Cut(path, "?")
	switch {
	case method == http.MethodGet && strings.Contains(path, "/_doc/"):
		return true
	case method == http.MethodPost && (strings.HasSuffix(path, "/_search") || strings.HasSuffix(path, "/_count")):
		return len(bytes.TrimSpace(body)) > 0
	}
	return false
}

func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	req, err := http.NewRequestWithContext(r.Context(), r.Method, p.backend+r.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	for _, h := range []string{"Content-Type", "Accept", "Authorization"} {
		if v := r.Header.Get(h); v != "" {
			req.Header.Set(h, v)
		}
	}
	resp, err := p.client.Do(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	status := resp.StatusCode
	match := p.Match
	if match == nil {
		match = WorkloadRequest
	}
	if match(r.Method, r.URL.RequestURI(), body) {
		if m, ok := p.first(status, got); ok {
			status, got = m.Status, m.Body
			p.altered.Add(1)
		}
	}
	for k, vs := range resp.Header {
		if k == "Content-Length" {
			continue
		}
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.Header().Set("Content-Length", fmt.Sprint(len(got)))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		w.Write(got)
	}
}

// first is the first mutation of the proxy's kind that applies to an answer.
func (p *Proxy) first(status int, body []byte) (conformance.Mutation, bool) {
	ms, err := conformance.MutationsWhere(status, body, func(op string, class, reported conformance.Class) bool {
		return op == p.mutation.Operator && class == p.mutation.Class && reported == p.mutation.Reported
	})
	if err != nil || len(ms) == 0 {
		return conformance.Mutation{}, false
	}
	return ms[0], true
}

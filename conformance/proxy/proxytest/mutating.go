// Package proxytest holds a mutating reverse proxy: a candidate that answers as the engine
// behind it would, altered the way a faulty gateway might alter it (conformance.Mutations), so
// conform shadow's tests can prove each alteration is found with its class. It is for tests
// and demonstrations, never for a client's traffic.
package proxytest

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/conform-dev/conform/conformance"
)

// Mutating forwards each request to an upstream and alters its answer with the first
// mutation of one operator ("drop-hit", "change-sort-value", "status-500", ...) that applies
// to it; an answer the operator does not apply to goes back unchanged. It counts both.
type Mutating struct {
	Upstream *url.URL
	Operator string
	Client   *http.Client

	mu        sync.Mutex
	applied   int
	unchanged int
	class     conformance.Class
}

// Counts are how many answers were altered and how many went back unchanged, and the class
// the check must fail the altered ones with (empty for an operator that must pass).
func (m *Mutating) Counts() (applied, unchanged int, class conformance.Class) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.applied, m.unchanged, m.class
}

func (m *Mutating) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	u := *m.Upstream
	target := strings.TrimSuffix(u.String(), "/") + r.URL.RequestURI()
	req, err := http.NewRequestWithContext(r.Context(), r.Method, target, r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	req.Header = r.Header.Clone()
	client := m.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	status := resp.StatusCode
	applied := false
	// An empty answer (a HEAD's) has nothing to alter; conformance.Mutations is for bodies.
	var muts []conformance.Mutation
	var merr error
	if len(body) > 0 {
		muts, merr = conformance.Mutations(status, body)
	}
	if merr == nil {
		for _, mu := range muts {
			if mu.Operator == m.Operator {
				status, body, applied = mu.Status, mu.Body, true
				m.mu.Lock()
				m.class = mu.Class
				m.mu.Unlock()
				break
			}
		}
	}
	m.mu.Lock()
	if applied {
		m.applied++
	} else {
		m.unchanged++
	}
	m.mu.Unlock()
	w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		io.Copy(w, bytes.NewReader(body))
	}
}

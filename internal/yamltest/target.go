package yamltest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"time"
)

// Request is one HTTP request of a test.
type Request struct {
	Method string
	Path   string // escaped, starting with /
	Query  url.Values
	Header http.Header
	Body   []byte
}

// Response is the answer to a Request.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Target is where the tests run.
type Target interface {
	// Name describes the target for the report, without credentials.
	Name() string
	// Begin starts one test section on a clean cluster.
	Begin(ctx context.Context) (Conn, error)
}

// Conn is a test section's connection to its cluster.
type Conn interface {
	Do(ctx context.Context, r *Request) (*Response, error)
	// End finishes the section; created lists the indices its requests created, which a
	// shared cluster deletes. Elasticsearch's runner wipes the whole cluster instead; a
	// target here may be a cluster someone else uses too.
	End(ctx context.Context, created []string) error
}

// HandlerTarget runs each test section against a fresh in-process handler, such as a new
// embedded engine, with no network in between.
func HandlerTarget(name string, fresh func() (http.Handler, error)) Target {
	return &handlerTarget{name: name, fresh: fresh}
}

type handlerTarget struct {
	name  string
	fresh func() (http.Handler, error)
}

func (t *handlerTarget) Name() string { return t.name }

func (t *handlerTarget) Begin(ctx context.Context) (Conn, error) {
	h, err := t.fresh()
	if err != nil {
		return nil, err
	}
	return &httpConn{base: "http://" + strings.ReplaceAll(t.name, " ", "-"), client: &http.Client{Transport: handlerTransport{h}}}, nil
}

// handlerTransport serves a request by calling the handler directly.
type handlerTransport struct{ h http.Handler }

func (t handlerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	// A server's handler always gets a body and a RequestURI; give it the same.
	if r.Body == nil {
		r.Body = http.NoBody
	}
	r.RequestURI = r.URL.RequestURI()
	t.h.ServeHTTP(rec, r)
	resp := rec.Result()
	resp.Request = r
	return resp, nil
}

// URLTarget runs the tests against a live cluster. Userinfo in the URL is sent as basic auth
// and the URL's path prefixes every request. After each test section it deletes the indices
// the section created; it never wipes anything else.
func URLTarget(raw string, client *http.Client) (Target, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("target %s is not an http or https URL", redact(raw))
	}
	if client == nil {
		client = &http.Client{Timeout: 60 * time.Second}
	}
	t := &urlTarget{client: client}
	if u.User != nil {
		t.user = u.User.Username()
		t.password, _ = u.User.Password()
		t.auth = true
	}
	t.base = u.Scheme + "://" + u.Host + strings.TrimSuffix(u.Path, "/")
	t.name = t.base
	if t.auth {
		t.name = strings.Replace(t.base, "://", "://***@", 1)
	}
	return t, nil
}

func redact(raw string) string {
	if i := strings.Index(raw, "@"); i >= 0 {
		if j := strings.Index(raw, "://"); j >= 0 && j < i {
			return raw[:j+3] + "***" + raw[i:]
		}
	}
	return raw
}

type urlTarget struct {
	name, base     string
	user, password string
	auth           bool
	client         *http.Client
}

func (t *urlTarget) Name() string { return t.name }

func (t *urlTarget) Begin(ctx context.Context) (Conn, error) {
	c := &httpConn{base: t.base, client: t.client, cleanup: true}
	if t.auth {
		c.user, c.password, c.auth = t.user, t.password, true
	}
	return c, nil
}

type httpConn struct {
	base           string
	client         *http.Client
	user, password string
	auth           bool
	cleanup        bool
}

func (c *httpConn) Do(ctx context.Context, r *Request) (*Response, error) {
	target := c.base + r.Path
	if len(r.Query) > 0 {
		target += "?" + r.Query.Encode()
	}
	var body io.Reader
	if r.Body != nil {
		body = bytes.NewReader(r.Body)
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, target, body)
	if err != nil {
		return nil, err
	}
	for k, vs := range r.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	if c.auth && req.Header.Get("Authorization") == "" {
		req.SetBasicAuth(c.user, c.password)
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, fmt.Errorf("reading the response to %s %s: %w", r.Method, r.Path, err)
	}
	return &Response{Status: resp.StatusCode, Header: resp.Header, Body: b}, nil
}

func (c *httpConn) End(ctx context.Context, created []string) error {
	if !c.cleanup {
		return nil
	}
	var failed []string
	for _, index := range created {
		resp, err := c.Do(ctx, &Request{Method: "DELETE", Path: "/" + escapePathPart(index)})
		if err != nil {
			failed = append(failed, index+": "+err.Error())
			continue
		}
		// A name a test wrote to may be an alias it made (bulk into an alias): Elasticsearch
		// refuses to delete an alias as an index, and it goes with its indices anyway.
		if resp.Status >= 300 && resp.Status != 404 && !(resp.Status == 400 && bytes.Contains(resp.Body, []byte("matches an alias"))) {
			failed = append(failed, fmt.Sprintf("%s: HTTP %d", index, resp.Status))
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("deleting the indices the test created: %s", strings.Join(failed, "; "))
	}
	return nil
}

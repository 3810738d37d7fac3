package load

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/elastic/elastic-transport-go/v8/elastictransport"
)

// HTTPError is a response with a status the operation did not expect.
type HTTPError struct {
	Op     string // e.g. "PUT /catalogue"
	Status int
	Body   string // the start of the response body
}

func (e *HTTPError) Error() string {
	return fmt.Sprintf("%s: HTTP %d: %s", e.Op, e.Status, e.Body)
}

// esClient makes the few Elasticsearch API calls the loader and the probes need through a
// go-elasticsearch transport, which supplies the address, auth, retries and connection pool.
// Paths are escaped here: esapi writes index names and ids into the path unescaped.
type esClient struct {
	tp elastictransport.Interface
}

// response is a read response: status, header and the whole body.
type response struct {
	Status int
	Header http.Header
	Body   []byte
}

// do sends one request. segments are path segments, escaped one by one; query may be empty.
func (c esClient) do(ctx context.Context, method string, segments []string, query url.Values, body []byte, contentType string) (*response, error) {
	var raw, plain strings.Builder
	for _, s := range segments {
		raw.WriteString("/" + url.PathEscape(s))
		plain.WriteString("/" + s)
	}
	if len(segments) == 0 {
		raw.WriteString("/")
		plain.WriteString("/")
	}
	u := &url.URL{Path: plain.String(), RawPath: raw.String(), RawQuery: query.Encode()}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Accept", "application/json")
	res, err := c.tp.Perform(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, plain.String(), err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: reading the response: %w", method, plain.String(), err)
	}
	return &response{Status: res.StatusCode, Header: res.Header, Body: b}, nil
}

func opName(method string, segments ...string) string {
	return method + " /" + strings.Join(segments, "/")
}

func httpErr(op string, r *response) *HTTPError {
	return &HTTPError{Op: op, Status: r.Status, Body: snippet(r.Body)}
}

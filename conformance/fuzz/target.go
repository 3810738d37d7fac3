package fuzz

import (
	"bytes"
	"context"
	"io"
	"net/http"

	"github.com/conform-dev/conform/conformance/target"
)

// TargetDoer sends requests to a target through go-elasticsearch's transport (one transport,
// so its keep-alive connections are reused), with errors scrubbed of credentials.
func TargetDoer(t *target.Target) (Doer, error) {
	tp, err := t.Transport()
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, method, path string, body []byte) (int, []byte, error) {
		var rd io.Reader
		if body != nil {
			rd = bytes.NewReader(body)
		}
		req, err := http.NewRequestWithContext(ctx, method, path, rd)
		if err != nil {
			return 0, nil, err
		}
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := tp.Perform(req)
		if err != nil {
			return 0, nil, t.Scrub(err)
		}
		defer resp.Body.Close()
		out, err := io.ReadAll(io.LimitReader(resp.Body, target.MaxBody))
		if err != nil {
			return 0, nil, t.Scrub(err)
		}
		return resp.StatusCode, out, nil
	}, nil
}

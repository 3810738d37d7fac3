package runner

import (
	"context"
	"io"
	"net/http"
)

// maxProbeBody bounds what a readiness probe reads.
const maxProbeBody = 4 << 20

func newRequest(ctx context.Context, method, path string, body io.Reader) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, path, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	return req, nil
}

func readAll(resp *http.Response) ([]byte, error) {
	defer resp.Body.Close()
	return io.ReadAll(io.LimitReader(resp.Body, maxProbeBody))
}

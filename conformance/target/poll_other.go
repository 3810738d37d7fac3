//go:build !linux

package target

import (
	"context"
	"errors"
)

// canPoll is whether this platform has PollConn: Linux only.
const canPoll = false

// PollConn is the lean path on a socket polled by the caller's loop; it exists on Linux only.
type PollConn struct{ Async }

// OpenPoll fails: polled connections exist on Linux only (Open gives a Conn here).
func (t *Target) OpenPoll(ctx context.Context, reqs []*Prepared) (*PollConn, error) {
	return nil, errors.New("polled connections need Linux")
}

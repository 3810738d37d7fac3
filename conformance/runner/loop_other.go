//go:build !linux

package runner

import (
	"errors"
	"sync/atomic"

	"github.com/conform-dev/conform/conformance/target"
)

// canLoop is whether this platform has the event loop: Linux only; elsewhere every client
// has a goroutine of its own.
const canLoop = false

type loop struct{ cs []*client }

func newLoop(cs []*client, xs []target.Async) (*loop, error) {
	return nil, errors.New("the event loop needs Linux")
}

func (l *loop) close() {}

func (l *loop) run(counter *atomic.Int64, total, cases int, warmup bool, check Check, stop *atomic.Bool) bool {
	return false
}

package target

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"time"
)

// Fault classes this package reports. The check decides status and decode; a fault here means
// no complete HTTP response was read.
const (
	// ClassTransport: the connection was refused, reset or closed before the response was
	// complete, or the response was not HTTP/1.x.
	ClassTransport = "transport"
	// ClassTimeout: the request's timeout passed before the last byte of the body arrived.
	ClassTimeout = "timeout"
)

// ErrInterrupted is returned by an exchange cut short by Interrupt (a cancelled run). It is
// not a fault of the target and belongs to no class.
var ErrInterrupted = errors.New("exchange interrupted")

// Interruption is why ctx ended, worded for the user: the cause it was cancelled with
// (conform's main cancels on a signal with "interrupted (Ctrl-C)" or "terminated
// (SIGTERM)"), "interrupted" for a plain cancellation, or the deadline it passed. Messages
// say this rather than ctx.Err()'s "context canceled"; nil while ctx is live.
func Interruption(ctx context.Context) error {
	switch cause := context.Cause(ctx); {
	case cause == nil:
		return nil
	case cause == context.Canceled:
		return errInterruptedPlain
	default:
		return cause
	}
}

var errInterruptedPlain = errors.New("interrupted")

// Stall is the error of a target that stopped answering: no response on any of its
// connections for After (twice its timeout, in a run and a check). The work it cut short
// keeps what was done.
type Stall struct {
	Target string
	// Last is when the target's last response was read; zero when none ever came.
	Last    time.Time
	After   time.Duration
	Timeout time.Duration
}

func (s *Stall) Error() string {
	last := "none came at all"
	if !s.Last.IsZero() {
		last = "the last at " + s.Last.UTC().Format("15:04:05 UTC")
	}
	why := ""
	if s.Timeout > 0 && s.After == 2*s.Timeout {
		why = fmt.Sprintf(", twice the %v timeout", s.Timeout)
	}
	return fmt.Sprintf("target %s stopped answering: no response for %v%s; %s", s.Target, s.After.Round(time.Millisecond), why, last)
}

// Watch calls stall once answered, a count of the responses read so far, has not moved for
// after, counted from the call: the target stopped answering. It looks every tick (a
// twentieth of after, between 5 ms and 1 s), so a change is seen at the first tick after
// it and stall comes between after and after plus a tick past the last response, never
// sooner; a target that answers, however slowly, within after of its last answer is never
// stalled. Watch returns when done closes or after calling stall; run it on a goroutine of
// its own. answered is read from that goroutine, so it must be safe to call concurrently
// with the work that counts (an atomic counter).
func Watch(after time.Duration, answered func() int64, done <-chan struct{}, stall func()) {
	tick := min(max(after/20, 5*time.Millisecond), time.Second)
	tk := time.NewTicker(tick)
	defer tk.Stop()
	seen, moved := answered(), time.Now()
	for {
		select {
		case <-done:
			return
		case now := <-tk.C:
			if n := answered(); n != seen {
				seen, moved = n, now
				continue
			}
			if now.Sub(moved) >= after {
				stall()
				return
			}
		}
	}
}

// Fault is an exchange that produced no complete response. Its text never contains a
// credential.
type Fault struct {
	Class string // ClassTransport or ClassTimeout
	Op    string // what was being done: "dial", "write request", "read status line", ...
	Msg   string
}

func (f *Fault) Error() string { return f.Class + ": " + f.Op + ": " + f.Msg }

// Timeout reports whether the fault is a timeout, as net.Error does.
func (f *Fault) Timeout() bool { return f.Class == ClassTimeout }

// ClassOf returns the fault class of err: ClassTimeout, ClassTransport, or "" for nil and
// ErrInterrupted. Any other error counts as a transport fault.
func ClassOf(err error) string {
	switch {
	case err == nil, errors.Is(err, ErrInterrupted):
		return ""
	case isTimeout(err):
		return ClassTimeout
	}
	return ClassTransport
}

func isTimeout(err error) bool {
	var f *Fault
	if errors.As(err, &f) {
		return f.Class == ClassTimeout
	}
	if errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var t interface{ Timeout() bool }
	if errors.As(err, &t) && t.Timeout() {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

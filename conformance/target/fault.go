package target

import (
	"context"
	"errors"
	"net"
	"os"
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

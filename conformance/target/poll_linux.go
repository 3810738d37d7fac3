//go:build linux

package target

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// PollConn is the lean path on a socket that conform polls itself instead of through Go's
// network poller: one keep-alive HTTP/1.1 connection over plain TCP, for a loop of the
// caller's (runner's, on Linux) that keeps many of them busy from one goroutine, as wrk does.
// Begin writes a request without waiting; Continue reads what the socket holds when it is
// readable and says when the response is complete. The response is parsed by the same code
// as Conn's (readResponse), over the bytes read so far, so both paths frame responses, fail
// and classify alike. Exchange waits on the socket itself, for a caller without a loop.
//
// Why: through Go's poller every exchange parks the client's goroutine, and the scheduler
// wakes it again through the runtime's own epoll and a handoff between threads. A loop over
// its own epoll set wakes once for every socket that is ready. Measured with conform overhead
// on a 2-CPU host at 8 clients (README, "The timed path"): goroutines used 1.28x wrk's CPU per
// checked request; loops 1.03-1.17x, and 0.87-0.93x once their waits, reads and writes were
// raw system calls (rawRead, rawWrite; runner's epollWait); futex calls fell from 0.25 per
// request to 0.02, then 0.007.
//
// The socket is a duplicate of a connection dialled with the net package (so names, IPv6 and
// the dial timeout behave as elsewhere), detached from Go's poller. The rules are Conn's: a
// broken connection fails the exchange that finds it (no retry), the next Begin redials
// before its stamp, and every redial is counted. The timeout is the caller's to enforce with
// Deadline and Expire (Exchange enforces it itself). One goroutine uses a PollConn at a time;
// only Interrupt may be called from another.
type PollConn struct {
	t    *Target
	reqs []*Prepared
	fd   int // -1 when there is no connection

	// acc holds the bytes read since the last complete response; eof is set when the server
	// closed its end.
	acc []byte
	eof bool
	src accSource
	// p is the parser: a Conn whose buffered reader reads acc through src.
	p Conn

	req             *Prepared // the request in flight, nil when idle
	start, deadline time.Time
	served          int
	reconnects      int
	interrupted     atomic.Bool
}

// canPoll is whether this platform has PollConn.
const canPoll = true

// pollReadSize is the first size of a PollConn's read buffer, doubled whenever a response
// needs more.
const pollReadSize = 64 << 10

// OpenPoll connects a PollConn that sends reqs (prepared by this target). It fails for an
// https target, whose TLS the loop cannot drive: use Dial.
func (t *Target) OpenPoll(ctx context.Context, reqs []*Prepared) (*PollConn, error) {
	if t.tls != nil {
		return nil, errors.New("a polled connection needs plain TCP, not https")
	}
	c := &PollConn{t: t, reqs: reqs, fd: -1, acc: make([]byte, 0, pollReadSize)}
	c.p = Conn{t: t}
	c.p.br = bufio.NewReaderSize(&c.src, readBufferSize)
	if err := c.dial(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

// dial connects with the net package and keeps a duplicate of the socket, detached from Go's
// poller (closing the net.Conn removes the original from the poller's epoll set).
func (c *PollConn) dial(ctx context.Context) error {
	nc, err := c.t.dial(ctx)
	if err != nil {
		return err
	}
	defer nc.Close()
	tc, ok := nc.(*net.TCPConn)
	if !ok {
		return fmt.Errorf("a polled connection needs TCP, not %T", nc)
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return c.t.Scrub(&Fault{Class: ClassTransport, Op: "dial " + c.t.dialAddr, Msg: err.Error()})
	}
	fd, derr := -1, error(nil)
	if err := rc.Control(func(s uintptr) { fd, derr = unix.FcntlInt(s, unix.F_DUPFD_CLOEXEC, 0) }); err != nil {
		derr = err
	}
	if derr != nil {
		return c.t.Scrub(&Fault{Class: ClassTransport, Op: "dial " + c.t.dialAddr, Msg: "duplicating the socket: " + derr.Error()})
	}
	// The duplicate shares the socket's flags: it is already non-blocking, with TCP_NODELAY.
	c.fd, c.acc, c.eof, c.served = fd, c.acc[:0], false, 0
	return nil
}

// Fd is the socket to wait on for readability, -1 when there is none (the next Begin dials).
// A redial may reuse the number of a closed socket; Reconnects tells the two apart.
func (c *PollConn) Fd() int { return c.fd }

// Reconnects is how many times the connection was replaced after the first dial.
func (c *PollConn) Reconnects() int { return c.reconnects }

// Interrupt makes the exchange in flight (in Exchange) and every later Begin return
// ErrInterrupted. It may be called from any goroutine.
func (c *PollConn) Interrupt() { c.interrupted.Store(true) }

// Close closes the connection.
func (c *PollConn) Close() error {
	if c.fd < 0 {
		return nil
	}
	err := unix.Close(c.fd)
	c.fd = -1
	return err
}

// Buffered reports bytes already read that the next Continue parses before reading again: a
// server that sent more than the last response. A loop calls Continue at once for them, as
// the socket will not become readable for bytes it no longer holds.
func (c *PollConn) Buffered() bool { return len(c.acc) > 0 }

// Deadline is when the exchange in flight times out: its start plus the target's timeout.
// It is zero when no exchange is in flight or there is no timeout.
func (c *PollConn) Deadline() time.Time {
	if c.req == nil {
		return time.Time{}
	}
	return c.deadline
}

// Begin (re)dials if the connection is gone, stamps the exchange's start and writes request
// i. A request the socket cannot take at once is finished in blocking mode, within the
// timeout. An error is a *Fault (the connection is then closed) or ErrInterrupted.
func (c *PollConn) Begin(i int) error {
	if c.interrupted.Load() {
		return ErrInterrupted
	}
	if c.fd < 0 {
		ctx, cancel := context.WithTimeout(context.Background(), c.t.Timeout)
		err := c.dial(ctx)
		cancel()
		if err != nil {
			return err
		}
		c.reconnects++
	}
	p := c.reqs[i]
	c.req = p
	c.start = time.Now()
	if to := c.t.Timeout; to > 0 {
		c.deadline = c.start.Add(to)
	}
	n, err := rawWrite(c.fd, p.raw)
	if err == nil && n == len(p.raw) {
		return nil
	}
	if err != nil && err != unix.EAGAIN && err != unix.EINTR {
		return c.fault("write request", "write", err)
	}
	return c.writeRest(p.raw[max(n, 0):])
}

// writeRest writes the rest of a request the socket could not take at once, waiting for the
// socket to drain, until the exchange's deadline.
func (c *PollConn) writeRest(b []byte) error {
	for len(b) > 0 {
		if err := c.wait(unix.POLLOUT); err != nil {
			return err
		}
		n, err := rawWrite(c.fd, b)
		switch {
		case err == unix.EAGAIN || err == unix.EINTR:
		case err != nil:
			return c.fault("write request", "write", err)
		default:
			b = b[n:]
		}
	}
	return nil
}

// wait blocks until the socket has the events, the exchange's deadline passes (a timeout
// fault) or Interrupt is called, in slices of at most 50 ms so an interrupt is seen.
func (c *PollConn) wait(events int16) error {
	for {
		if c.interrupted.Load() {
			c.drop()
			return ErrInterrupted
		}
		slice := 50 * time.Millisecond
		if !c.deadline.IsZero() {
			left := time.Until(c.deadline)
			if left <= 0 {
				return c.Expire()
			}
			slice = min(slice, left+time.Millisecond)
		}
		fds := []unix.PollFd{{Fd: int32(c.fd), Events: events}}
		n, err := unix.Poll(fds, int(slice/time.Millisecond))
		switch {
		case err == unix.EINTR || n == 0:
		case err != nil:
			return c.fault("wait for the socket", "poll", err)
		default:
			return nil
		}
	}
}

// Continue reads what the socket holds and reports whether the response to the request in
// flight is complete. It returns done false, with no error, while more is to come (call it
// again when the socket is readable). When done, the error is a *Fault for a response that
// cannot be read (the connection is then closed) and nil for a response of any status, whose
// Body is valid until the next Begin.
func (c *PollConn) Continue() (Exchange, bool, error) {
	if c.req == nil {
		return Exchange{}, false, errors.New("Continue without an exchange in flight")
	}
	if !c.eof {
		if len(c.acc) == cap(c.acc) {
			if len(c.acc) > MaxBody+readBufferSize {
				return c.done(Exchange{}, c.protocolFault("read body", fmt.Sprintf("response over the %d-byte limit", MaxBody)))
			}
			nb := make([]byte, len(c.acc), 2*cap(c.acc))
			copy(nb, c.acc)
			c.acc = nb
		}
		n, err := rawRead(c.fd, c.acc[len(c.acc):cap(c.acc)])
		switch {
		case (err == unix.EAGAIN || err == unix.EINTR) && len(c.acc) == 0:
			return Exchange{}, false, nil
		case err == unix.EAGAIN || err == unix.EINTR:
			// Nothing new, but bytes the server sent beyond the last response are parsed.
		case err != nil && len(c.acc) == 0:
			// A reset before any byte of the response is read as Conn reads it: the end of the
			// connection, which the parser words.
			c.eof = true
		case err != nil:
			return c.done(Exchange{}, c.fault("read response", "read", err))
		case n == 0:
			c.eof = true
		default:
			c.acc = c.acc[:len(c.acc)+n]
		}
	}
	c.src = accSource{b: c.acc, eof: c.eof}
	c.p.br.Reset(&c.src)
	c.p.served, c.p.closeAfter = c.served, false
	status, body, err := c.p.readResponse(c.req.head)
	if c.src.short {
		return Exchange{}, false, nil // the response goes on beyond the bytes read so far
	}
	end := time.Now()
	if err != nil {
		return c.done(Exchange{}, err)
	}
	// Bytes beyond the response (a server that answers more than it was asked) stay for the
	// next exchange, as they stay in Conn's buffered reader.
	used := c.src.off - c.p.br.Buffered()
	c.acc = c.acc[:copy(c.acc, c.acc[used:])]
	c.served++
	if c.p.closeAfter {
		c.drop()
	}
	return c.done(Exchange{Status: status, Body: body, Start: c.start, End: end}, nil)
}

func (c *PollConn) done(ex Exchange, err error) (Exchange, bool, error) {
	c.req = nil
	if err != nil {
		c.drop()
		if c.interrupted.Load() {
			err = ErrInterrupted
		}
	}
	return ex, true, err
}

// Expire ends the exchange in flight as timed out, closing the connection: a *Fault of class
// ClassTimeout.
func (c *PollConn) Expire() error {
	op := c.readOp()
	c.req = nil
	c.drop()
	return c.t.Scrub(&Fault{Class: ClassTimeout, Op: op, Msg: fmt.Sprintf("no complete response within %v", c.t.Timeout)})
}

// Exchange sends request i and waits for its whole response, polling the socket itself.
func (c *PollConn) Exchange(i int) (Exchange, error) {
	if err := c.Begin(i); err != nil {
		return Exchange{}, err
	}
	for {
		ex, done, err := c.Continue()
		if done {
			return ex, err
		}
		if err := c.wait(unix.POLLIN); err != nil {
			c.req = nil
			return Exchange{}, err
		}
	}
}

func (c *PollConn) readOp() string {
	if len(c.acc) == 0 {
		return "read status line"
	}
	return "read response"
}

func (c *PollConn) drop() {
	if c.fd >= 0 {
		unix.Close(c.fd)
		c.fd = -1
	}
}

// fault closes the connection and returns the classified, scrubbed fault for a failed system
// call, worded as Conn words it.
func (c *PollConn) fault(op, call string, errno error) error {
	c.drop()
	if c.interrupted.Load() {
		return ErrInterrupted
	}
	msg := (&net.OpError{Op: call, Net: "tcp", Addr: tcpAddr(c.t.dialAddr), Err: os.NewSyscallError(call, errno)}).Error()
	return c.t.Scrub(&Fault{Class: ClassTransport, Op: op, Msg: msg})
}

func (c *PollConn) protocolFault(op, msg string) error {
	c.drop()
	return c.t.Scrub(&Fault{Class: ClassTransport, Op: op, Msg: msg})
}

// tcpAddr names the server in a fault's message.
type tcpAddr string

func (a tcpAddr) Network() string { return "tcp" }
func (a tcpAddr) String() string  { return string(a) }

// accSource is what a PollConn's parser reads: the bytes read so far, then io.EOF if the
// server closed its end, or else errIncomplete, noting that the parser wanted more.
type accSource struct {
	b     []byte
	off   int
	eof   bool
	short bool
}

func (s *accSource) Read(p []byte) (int, error) {
	if s.off == len(s.b) {
		if s.eof {
			return 0, io.EOF
		}
		s.short = true
		return 0, errIncomplete
	}
	n := copy(p, s.b[s.off:])
	s.off += n
	return n, nil
}

// rawRead and rawWrite are read(2) and write(2) on the non-blocking socket as raw system
// calls: they never block, so the runtime need not be told of them (unix.Read would, as for a
// call that might), and a loop that waits with a raw epoll_pwait as well (runner's) keeps its
// P throughout instead of waking the runtime's monitor with calls it sees in progress.
func rawRead(fd int, b []byte) (int, error)  { return rawIO(unix.SYS_READ, fd, b) }
func rawWrite(fd int, b []byte) (int, error) { return rawIO(unix.SYS_WRITE, fd, b) }

func rawIO(trap uintptr, fd int, b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	n, _, e := unix.RawSyscall(trap, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	if e != 0 {
		return -1, e
	}
	return int(n), nil
}

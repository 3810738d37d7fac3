//go:build linux

package runner

import (
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/conform-dev/conform/conformance/target"
	"golang.org/x/sys/unix"
)

// canLoop is whether this platform has the event loop (Linux: epoll).
const canLoop = true

// loop drives the async exchangers of some of a trial's clients from one goroutine, over an
// epoll set of its own, as wrk drives its connections: it writes each client's request,
// waits for whichever sockets are readable, reads them, stamps and checks every complete
// response, then writes the next requests of the clients it served. Latency stamps are where
// the goroutine-per-client path takes them (just before the write, just after the read that
// completes the response), so a response's latency does not include the time its client
// waited for the loop to send it.
type loop struct {
	ep   int
	cs   []*client
	xs   []target.Async
	fd   []int // the socket registered for each client, -1 for none
	rc   []int // the client's Reconnects when its socket was registered
	busy []bool
	n    []int // each busy client's request number, and its case
	ci   []int
	evs  []unix.EpollEvent
	// buffered are busy clients holding bytes already read (Async.Buffered), to be read
	// without waiting for their sockets.
	buffered []int
	// ready are the clients whose exchange ended in this round, to be given their next one.
	ready []int
}

// loopTick is the longest epoll wait, in ms: how often the loop looks at the stop flag and at
// the deadlines when no socket is ready. An exchange so times out at most 10 ms after its
// deadline.
const loopTick = 10

func newLoop(cs []*client, xs []target.Async) (*loop, error) {
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, err
	}
	n := len(cs)
	l := &loop{ep: ep, cs: cs, xs: xs, fd: make([]int, n), rc: make([]int, n), busy: make([]bool, n),
		n: make([]int, n), ci: make([]int, n), evs: make([]unix.EpollEvent, n, 2*n), buffered: make([]int, 0, n), ready: make([]int, 0, n)}
	for k := range l.fd {
		l.fd[k] = -1
	}
	for k, x := range xs {
		if fd := x.Fd(); fd >= 0 {
			if err := l.watch(k, fd); err != nil {
				unix.Close(ep)
				return nil, err
			}
			l.rc[k] = x.Reconnects()
		}
	}
	return l, nil
}

func (l *loop) close() { unix.Close(l.ep) }

// watch registers client k's socket. A closed socket leaves the epoll set by itself, and its
// number may come back for a new one, so an existing registration is modified, never assumed.
func (l *loop) watch(k, fd int) error {
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(k)}
	err := unix.EpollCtl(l.ep, unix.EPOLL_CTL_ADD, fd, &ev)
	if err == unix.EEXIST {
		err = unix.EpollCtl(l.ep, unix.EPOLL_CTL_MOD, fd, &ev)
	}
	if err != nil {
		return err
	}
	l.fd[k] = fd
	return nil
}

// run sends requests numbered from the shared counter on every client of the loop until
// total is reached or stop is set, as client.run does for one. It returns false if the loop
// could not wait on its sockets; the exchanges in flight have then failed as transport
// faults, and the caller goes on with a goroutine per client.
func (l *loop) run(counter *atomic.Int64, total, cases int, warmup bool, check Check, stop *atomic.Bool) bool {
	inflight := 0
	for k := range l.cs {
		if l.begin(k, counter, total, cases, warmup, check, stop) {
			inflight++
		}
	}
	for inflight > 0 && !stop.Load() {
		tick := loopTick
		if len(l.buffered) > 0 {
			tick = 0 // responses already read are waiting
		}
		m, err := epollWait(l.ep, l.evs, tick)
		if err != nil && err != unix.EINTR {
			l.abandon(err, warmup, check, stop)
			return false
		}
		evs := l.evs[:max(m, 0)]
		for _, k := range l.buffered {
			evs = append(evs, unix.EpollEvent{Fd: int32(k)})
		}
		l.buffered = l.buffered[:0]
		var now time.Time
		for _, ev := range evs {
			k := int(ev.Fd)
			if !l.busy[k] {
				// Readable with no exchange in flight: the server closed the connection or sent
				// what was not asked for. The next exchange finds it; until then, stop watching.
				unix.EpollCtl(l.ep, unix.EPOLL_CTL_DEL, l.fd[k], nil)
				l.fd[k] = -1
				continue
			}
			ex, done, err := l.xs[k].Continue()
			if !done {
				continue
			}
			l.busy[k] = false
			if err == nil {
				now = ex.End
			}
			if !l.cs[k].record(warmup, l.n[k], l.ci[k], ex, err, check, stop) {
				return true
			}
			l.ready = append(l.ready, k)
		}
		// Deadlines, against the last response's stamp (or the clock, when none came).
		if now.IsZero() {
			now = time.Now()
		}
		for k, busy := range l.busy {
			if !busy {
				continue
			}
			if d := l.xs[k].Deadline(); !d.IsZero() && now.After(d) {
				l.busy[k] = false
				if !l.cs[k].record(warmup, l.n[k], l.ci[k], target.Exchange{}, l.xs[k].Expire(), check, stop) {
					return true
				}
				l.ready = append(l.ready, k)
			}
		}
		for _, k := range l.ready {
			if !l.begin(k, counter, total, cases, warmup, check, stop) {
				inflight--
			}
		}
		l.ready = l.ready[:0]
	}
	return true
}

// begin gives client k its next request, reporting false when there is none (or the trial was
// cancelled). A request that cannot be sent is a counted fault, and the next one is tried.
func (l *loop) begin(k int, counter *atomic.Int64, total, cases int, warmup bool, check Check, stop *atomic.Bool) bool {
	c, x := l.cs[k], l.xs[k]
	for !stop.Load() {
		n := int(counter.Add(1) - 1)
		if n >= total {
			return false
		}
		ci := n % cases
		err := x.Begin(ci)
		if err == nil {
			if fd, rc := x.Fd(), x.Reconnects(); fd != l.fd[k] || rc != l.rc[k] {
				if werr := l.watch(k, fd); werr != nil {
					x.Expire() // ends the exchange and closes its connection
					err = &target.Fault{Class: target.ClassTransport, Op: "watch the connection", Msg: werr.Error()}
				}
				l.rc[k] = rc
			}
		}
		if err != nil {
			if !c.record(warmup, n, ci, target.Exchange{}, err, check, stop) {
				return false
			}
			continue
		}
		l.busy[k], l.n[k], l.ci[k] = true, n, ci
		if x.Buffered() {
			l.buffered = append(l.buffered, k)
		}
		return true
	}
	return false
}

// abandon fails every exchange in flight when the loop cannot wait on its sockets.
func (l *loop) abandon(err error, warmup bool, check Check, stop *atomic.Bool) {
	for k, busy := range l.busy {
		if !busy {
			continue
		}
		l.busy[k] = false
		l.xs[k].Expire()
		l.cs[k].record(warmup, l.n[k], l.ci[k], target.Exchange{},
			&target.Fault{Class: target.ClassTransport, Op: "wait for the response", Msg: "epoll_wait: " + err.Error()}, check, stop)
	}
}

// epollWait is epoll_pwait without a signal mask, as a raw system call, which the runtime is
// not told of: the loop's goroutine keeps its P while it waits. Through unix.EpollWait every
// wait entered and left a system call as the runtime counts them, and the runtime's monitor
// thread, seeing Ps sit in system calls, kept retaking them and so kept waking every 20 µs:
// measured on the timed path (get, 8 clients, against conform serve), nanosleep calls fell from
// 0.10-0.15 per request to 0.003 (with PollConn's raw reads and writes), futex calls from
// 0.02-0.05 to 0.007 and context switches from 0.66-0.75 to 0.57-0.62. The wait is at most
// loopTick, and a signal (the runtime's preemption, which a garbage collection sends to stop
// every P) ends it early with EINTR, so the loop's P is never held from the runtime for long;
// the spare P the trial adds (Trial.Loops) runs every other goroutine meanwhile.
func epollWait(ep int, evs []unix.EpollEvent, msec int) (int, error) {
	r, _, e := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(ep), uintptr(unsafe.Pointer(&evs[0])), uintptr(len(evs)), uintptr(msec), 0, 0)
	if e != 0 {
		return -1, e
	}
	return int(r), nil
}

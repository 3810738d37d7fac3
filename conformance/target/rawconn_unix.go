//go:build unix

package target

import (
	"io"
	"net"
	"syscall"
)

// rawConn is nc's raw connection when nc is a plain TCP connection, for writeThenRead; nil
// otherwise (TLS), and the lean path then writes and reads through nc.
func rawConn(nc net.Conn) syscall.RawConn {
	tc, ok := nc.(*net.TCPConn)
	if !ok {
		return nil
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return nil
	}
	return rc
}

// rawStep is the raw read's callback: it writes what is left of the request, then reads. It
// returns false to wait for the socket to become readable.
func (c *Conn) rawStep(fd uintptr) bool {
	st := &c.raw
	for st.wrote < len(st.req) {
		m, e := syscall.Write(int(fd), st.req[st.wrote:])
		if m > 0 {
			st.wrote += m
		}
		switch {
		case e == syscall.EINTR:
			continue
		case e == syscall.EAGAIN:
			return true // the rest goes through the connection's Write
		case e != nil:
			st.err = c.opError("write", e)
			return true
		}
		if st.wrote < len(st.req) {
			return true
		}
		return false // the request is out: wait for its response
	}
	for {
		m, e := syscall.Read(int(fd), st.buf)
		switch {
		case e == syscall.EINTR:
			continue
		case e == syscall.EAGAIN:
			return false
		case e != nil:
			st.err = c.opError("read", e)
		case m == 0:
			st.err = io.EOF
		}
		st.n = max(m, 0)
		return true
	}
}

//go:build !unix

package target

import (
	"net"
	"syscall"
)

// rawConn is nil off unix: the lean path writes and reads through nc.
func rawConn(net.Conn) syscall.RawConn { return nil }

// rawStep is never called off unix (rawConn is nil).
func (c *Conn) rawStep(uintptr) bool { return true }

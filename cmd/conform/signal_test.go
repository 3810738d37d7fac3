package main

import (
	"context"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/conform-dev/conform/conformance/target"
)

// A signal's cause is what the messages say: the interrupted work names Ctrl-C or SIGTERM.
func TestSignalCause(t *testing.T) {
	for _, tc := range []struct {
		sig  os.Signal
		want string
	}{{os.Interrupt, "interrupted (Ctrl-C)"}, {syscall.SIGTERM, "terminated (SIGTERM)"}} {
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(signalCause(tc.sig))
		if got := target.Interruption(ctx); got == nil || got.Error() != tc.want {
			t.Errorf("%v: %v, want %q", tc.sig, got, tc.want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	if target.Interruption(ctx) != nil {
		t.Error("a live context is interrupted")
	}
	cancel()
	if got := target.Interruption(ctx); got == nil || got.Error() != "interrupted" {
		t.Errorf("a plain cancel: %v, want interrupted", got)
	}
}

// signalContext turns a real SIGINT into the Ctrl-C cause (the signal is caught, so the test
// process lives on).
func TestSignalContextCatchesCtrlC(t *testing.T) {
	ctx, stop := signalContext()
	defer stop()
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Skipf("this sandbox refuses a SIGINT to the test process (%v); TestSignalCause still tests the cause wording", err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("SIGINT did not cancel the context")
	}
	if got := target.Interruption(ctx); got == nil || got.Error() != "interrupted (Ctrl-C)" {
		t.Errorf("cause %v", got)
	}
}

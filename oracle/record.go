package oracle

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/conform-dev/conform/fixtures"
	"github.com/conform-dev/conform/oracle/engine"
)

// now is the clock recordings are stamped with; tests replace it.
var now = time.Now

// Recording is what Record produced.
type Recording struct {
	Expectations *Expectations
	// Caveats to show loudly, such as an Elasticsearch that is not 8.15.x.
	Caveats []string
}

// UnsettledError lists the cases whose answer a recording cannot fix, such as a page boundary
// inside a tie. Record refuses to write a golden file that contains any.
type UnsettledError struct {
	Cases []string // "page/003: page boundary inside a tie: ..."
}

func (e *UnsettledError) Error() string {
	return fmt.Sprintf("%d case(s) have no fixed answer, so no golden file was written (change the workload so their sort ends in a unique field):\n  %s",
		len(e.Cases), strings.Join(e.Cases, "\n  "))
}

// Record asks a live Elasticsearch every case of the fixtures' workload, once, and writes a
// golden file to out. It refuses an engine that is not Elasticsearch and refuses to write when
// any case carries a warning, listing them (an *UnsettledError). An Elasticsearch other than
// 8.15.x is recorded, with a caveat in the file and in the result for the caller to show.
// Nothing is written unless every case was answered.
func Record(ctx context.Context, f *fixtures.Fixtures, s Settings, ep Endpoint, out io.Writer) (*Recording, error) {
	live := &Live{Endpoint: ep}
	x, err := live.Expect(ctx, f, s)
	if err != nil {
		return nil, err
	}
	var unsettled []string
	for _, c := range x.Cases {
		for _, w := range c.Warnings {
			unsettled = append(unsettled, c.Request.Case+": "+w)
		}
	}
	if len(unsettled) > 0 {
		return nil, &UnsettledError{Cases: unsettled}
	}
	var buf bytes.Buffer
	if err := WriteExpectations(&buf, x, f.Meta, now()); err != nil {
		return nil, err
	}
	if _, err := out.Write(buf.Bytes()); err != nil {
		return nil, err
	}
	return &Recording{Expectations: x, Caveats: x.Caveats}, nil
}

// Compare lists the differences between a live Elasticsearch's answer (want) and the embedded
// engine's (got); none means they agree. Verify takes it as a parameter so the conformance
// package's strict check can be used.
type Compare func(want, got *Expected) []string

// Mismatch is a case where the embedded engine and the live Elasticsearch disagree.
type Mismatch struct {
	Case        string
	Live        *Expected
	Embedded    *Expected
	Differences []string
}

// Verification is the outcome of Verify.
type Verification struct {
	Live, Embedded *Expectations
	Mismatches     []Mismatch // workload order
	// Declined names the cases the embedded engine declines (conform_unsupported_exception):
	// it gives no answer to compare, so they are neither matches nor mismatches.
	Declined []string
}

// Verify computes the whole workload's expectations from the embedded and the live sources and
// returns every case where they differ. An after case whose page already differs may be asked
// with a different cursor by each; that is reported as a difference of the request.
func Verify(ctx context.Context, f *fixtures.Fixtures, s Settings, embedded, live Source, cmp Compare) (*Verification, error) {
	lx, err := live.Expect(ctx, f, s)
	if err != nil {
		return nil, err
	}
	ex, err := embedded.Expect(ctx, f, s)
	if err != nil {
		return nil, err
	}
	v := &Verification{Live: lx, Embedded: ex}
	for i := range lx.Cases {
		want := &lx.Cases[i]
		got := ex.Get(want.Request.Case)
		if got == nil {
			v.Mismatches = append(v.Mismatches, Mismatch{Case: want.Request.Case, Live: want,
				Differences: []string{"the embedded oracle has no such case"}})
			continue
		}
		if engine.IsUnsupported(got.Status, got.Body) && !engine.IsUnsupported(want.Status, want.Body) {
			v.Declined = append(v.Declined, want.Request.Case)
			continue
		}
		var diffs []string
		if want.Request.Method != got.Request.Method || want.Request.Path != got.Request.Path ||
			!bytes.Equal(compactJSON(want.Request.Body), compactJSON(got.Request.Body)) {
			diffs = append(diffs, fmt.Sprintf("request: live asked %s %s %s, embedded asked %s %s %s",
				want.Request.Method, want.Request.Path, want.Request.Body, got.Request.Method, got.Request.Path, got.Request.Body))
		}
		diffs = append(diffs, cmp(want, got)...)
		if len(diffs) > 0 {
			v.Mismatches = append(v.Mismatches, Mismatch{Case: want.Request.Case, Live: want, Embedded: got, Differences: diffs})
		}
	}
	return v, nil
}

package target

import (
	"context"
	"testing"
)

func init() {
	leanKinds = append(leanKinds, leanKind{"poll: ", func(t *testing.T, tg *Target) leanConn {
		t.Helper()
		c, err := tg.OpenPoll(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return &pollUnderTest{c}
	}})
}

// pollUnderTest exchanges a prepared request through PollConn's own waiting Exchange.
type pollUnderTest struct{ *PollConn }

func (c *pollUnderTest) exchange(p *Prepared) (Exchange, error) {
	if len(c.reqs) != 1 {
		c.reqs = make([]*Prepared, 1)
	}
	c.reqs[0] = p
	return c.Exchange(0)
}

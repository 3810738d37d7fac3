package load

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// countWait is how awaitCount ended: how long it waited, the last count it saw and, when
// that count fell short, a note saying why it stopped waiting.
type countWait struct {
	waited time.Duration
	count  int64
	note   string
}

// awaitCount polls _count until it reaches want, for engines that index asynchronously (their
// count rises for a while after the bulk reply and the refresh). It gives up after
// CountWait, before the context's deadline with a reserve left for the verification, or when
// the count has not moved for CountStall, and returns without judging: the verification
// that follows does. A count above want is judged at once.
func (l *esLoader) awaitCount(ctx context.Context, want int64) (countWait, error) {
	start := time.Now()
	limit := countLimit(ctx, l.o.CountWait, start)
	var lastPrint, lastChange time.Time
	last := int64(-1)
	for {
		n, via, err := l.c.countVia(ctx, l.o.Index)
		if err != nil {
			return countWait{}, err
		}
		if strings.HasPrefix(via, "POST ") && !l.searchCount {
			l.searchCount = true
			l.warn("%s is not served; counting with %s (size 0, track_total_hits true)", opName("GET", l.o.Index, "_count"), via)
		}
		now := time.Now()
		waited := now.Sub(start)
		if n != last {
			lastChange = now
		}
		if n >= want {
			if last >= 0 {
				fmt.Fprintf(l.o.Log, "count of %s reached %d after %s\n", l.o.Index, n, roundWait(waited))
				return countWait{waited: waited, count: n}, nil
			}
			return countWait{count: n}, nil
		}
		if waited >= limit || now.Sub(lastChange) >= l.o.CountStall {
			note := fmt.Sprintf("waited %s for the count to reach %d: it reached %d and had not moved for %s", roundWait(waited), want, n, roundWait(now.Sub(lastChange)))
			if waited >= limit {
				note = fmt.Sprintf("waited %s for the count to reach %d, all the time the load had: it reached %d", roundWait(waited), want, n)
			}
			fmt.Fprintf(l.o.Log, "count of %s: %s\n", l.o.Index, note)
			return countWait{waited: waited, count: n, note: note}, nil
		}
		// Progress: at once, then when the count moves (at most once a second), and every 10s
		// while it does not.
		if last < 0 || (n != last && now.Sub(lastPrint) >= time.Second) || now.Sub(lastPrint) >= 10*time.Second {
			fmt.Fprintf(l.o.Log, "count of %s is %d of %d after %s, waiting for it to rise (up to %s, or %s without a change)\n",
				l.o.Index, n, want, roundWait(waited), roundWait(limit), roundWait(l.o.CountStall))
			lastPrint = now
		}
		last = n
		if err := sleep(ctx, l.o.PollInterval); err != nil {
			return countWait{}, err
		}
	}
}

// countLimit is how long awaitCount may wait from now: wait if set, bounded by the context's
// deadline less a reserve for the verification (a tenth of the time left, 1s to 30s), else
// 10 minutes.
func countLimit(ctx context.Context, wait time.Duration, now time.Time) time.Duration {
	dl, ok := ctx.Deadline()
	if !ok {
		if wait <= 0 {
			return 10 * time.Minute
		}
		return wait
	}
	left := dl.Sub(now)
	reserve := min(max(left/10, time.Second), 30*time.Second)
	if wait <= 0 || left-reserve < wait {
		return left - reserve
	}
	return wait
}

func roundWait(d time.Duration) time.Duration {
	if d < time.Second {
		return d.Round(time.Millisecond)
	}
	return d.Round(100 * time.Millisecond)
}

package proxy

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/conform-dev/conform/conformance/report"
)

// File names capture and shadow write.
const (
	WorkloadFile = "workload.json"
	CaptureFile  = "capture.json"
	ShadowFile   = "shadow.json"
	GoldenFile   = "golden.json"
	ReportFile   = "report.md"
)

// CaptureFormat tags capture.json.
const CaptureFormat = "conform-capture/1"

// CaptureConfig configures a capture.
type CaptureConfig struct {
	Upstream *url.URL
	// Listen is the address clients reach the proxy on, for the summary.
	Listen string
	// Out is the directory workload.json and capture.json are written to.
	Out string
	// Index is the workload's index; empty takes the first index a read names.
	Index string
	// MaxPerLabel bounds the distinct cases kept per label (0: no bound).
	MaxPerLabel int
	// Forward configures the forwarder (its Observe and KeepBody are capture's own).
	Forward Options
	// FlushEvery is how often the files are rewritten while requests come (500 ms when 0):
	// a kill -9 loses at most that much.
	FlushEvery time.Duration
	// Queue bounds the reads waiting to be recorded (65536 when 0); a read that finds it full
	// is passed through and counted as not recorded, never waited for.
	Queue int
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// Capture is a reverse proxy that records the read requests it forwards as a workload.
type Capture struct {
	cfg  CaptureConfig
	fwd  *Forwarder
	book *Book
	ch   chan *Exchange

	mu          sync.Mutex
	notRecorded map[string]int64
	recorded    int64
	behind      int64
	started     time.Time
	dirty       bool
	written     int64 // the forwarder's request count when the files were written
}

// CaptureSummary is capture.json: what the proxy saw, rewritten as it goes.
type CaptureSummary struct {
	Format   string    `json:"format"`
	Upstream string    `json:"upstream"`
	Listen   string    `json:"listen,omitempty"`
	Started  time.Time `json:"started"`
	Updated  time.Time `json:"updated"`
	Finished bool      `json:"finished"`
	Index    string    `json:"index"`
	Requests int64     `json:"requests"`
	Reads    int64     `json:"reads"`
	// Recorded are the reads kept as cases (each counted once per request); Cases the
	// distinct ones; NotRecorded the other reads by reason.
	Recorded    int64            `json:"recorded"`
	Cases       int              `json:"cases"`
	Labels      int              `json:"labels"`
	NotRecorded map[string]int64 `json:"not_recorded,omitempty"`
	// Writes passed through and were not recorded: a snapshot taken before them is stale.
	Writes   int64            `json:"writes"`
	WritesBy map[string]int64 `json:"writes_by_endpoint,omitempty"`
	Other    int64            `json:"other"`
	// Upstream faults: the client got a 502 or a 504 from the proxy, or an answer that broke
	// off after its headers.
	Upstream502  int64 `json:"upstream_502"`
	Upstream504  int64 `json:"upstream_504"`
	Aborted      int64 `json:"aborted"`
	ClientErrors int64 `json:"client_errors,omitempty"`
}

// NewCapture makes a capture and writes its (empty) files, so a bad --out fails at once.
func NewCapture(cfg CaptureConfig) (*Capture, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.FlushEvery <= 0 {
		cfg.FlushEvery = 500 * time.Millisecond
	}
	if cfg.Queue <= 0 {
		cfg.Queue = 1 << 16
	}
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return nil, err
	}
	c := &Capture{cfg: cfg, book: NewBook(cfg.Index), ch: make(chan *Exchange, cfg.Queue),
		notRecorded: map[string]int64{}, started: cfg.Now()}
	c.book.Max = cfg.MaxPerLabel
	fo := cfg.Forward
	fo.KeepBody = false
	fo.Observe = c.observe
	c.fwd = NewForwarder(cfg.Upstream, fo)
	if err := c.write(false); err != nil {
		return nil, err
	}
	return c, nil
}

// Handler is the proxy.
func (c *Capture) Handler() http.Handler { return c.fwd }

func (c *Capture) observe(ex *Exchange) {
	select {
	case c.ch <- ex:
	default:
		c.mu.Lock()
		c.behind++
		c.mu.Unlock()
	}
}

// Run records what the proxy forwards and rewrites the files every FlushEvery, until ctx
// ends; then it records what is queued and writes the files a last time, marked finished.
// Stop the server first (http.Server.Shutdown) so no request is cut.
func (c *Capture) Run(ctx context.Context) error {
	tick := time.NewTicker(c.cfg.FlushEvery)
	defer tick.Stop()
	for {
		select {
		case ex := <-c.ch:
			c.record(ex)
		case <-tick.C:
			if c.isDirty() {
				if err := c.write(false); err != nil {
					return err
				}
			}
		case <-ctx.Done():
			for len(c.ch) > 0 {
				c.record(<-c.ch)
			}
			return c.write(true)
		}
	}
}

// isDirty reports whether the files are behind: a read was recorded or checked, or any
// request went through, since they were written.
func (c *Capture) isDirty() bool {
	n := c.fwd.seq.Load()
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dirty || n != c.written
}

func (c *Capture) record(ex *Exchange) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dirty = true
	switch {
	case ex.TooLarge:
		c.notRecorded["body too large"]++
		return
	case ex.BodyError != "":
		c.notRecorded["body unreadable"]++
		return
	}
	cs, _, _, reason := c.book.Record(ex.Endpoint, &ex.Request)
	switch {
	case reason != "":
		c.notRecorded[reason]++
	case cs == nil:
		c.notRecorded["over --max-per-label"]++
	default:
		c.recorded++
	}
}

// Summary is capture.json's content now.
func (c *Capture) Summary(finished bool) CaptureSummary {
	fc := c.fwd.Counts()
	c.mu.Lock()
	defer c.mu.Unlock()
	s := CaptureSummary{Format: CaptureFormat, Upstream: redact(c.cfg.Upstream), Listen: c.cfg.Listen,
		Started: c.started.UTC(), Updated: c.cfg.Now().UTC(), Finished: finished, Index: c.book.Index(),
		Requests: fc.Requests, Reads: fc.Reads, Recorded: c.recorded, Cases: c.book.Len(),
		Writes: fc.Writes, WritesBy: fc.WritesBy, Other: fc.Other,
		Upstream502: fc.Status502, Upstream504: fc.Status504, Aborted: fc.Aborted, ClientErrors: fc.ClientErrors}
	labels := map[string]bool{}
	for _, cs := range c.book.Cases() {
		labels[cs.Op] = true
	}
	s.Labels = len(labels)
	if len(c.notRecorded) > 0 || c.behind > 0 {
		s.NotRecorded = map[string]int64{}
		for k, v := range c.notRecorded {
			s.NotRecorded[k] = v
		}
		if c.behind > 0 {
			s.NotRecorded["recorder behind"] = c.behind
		}
	}
	if len(s.WritesBy) == 0 {
		s.WritesBy = nil
	}
	return s
}

func (c *Capture) write(finished bool) error {
	n := c.fwd.seq.Load()
	s := c.Summary(finished)
	c.mu.Lock()
	wl := c.book.Marshal()
	c.dirty, c.written = false, n
	c.mu.Unlock()
	sj, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := report.WriteFileAtomic(filepath.Join(c.cfg.Out, WorkloadFile), wl); err != nil {
		return err
	}
	return report.WriteFileAtomic(filepath.Join(c.cfg.Out, CaptureFile), append(sj, '\n'))
}

// WriteText prints the summary for people.
func (s CaptureSummary) WriteText(w io.Writer, dir string, elapsed time.Duration) {
	fmt.Fprintf(w, "capture: %d requests through %s in %s\n", s.Requests, s.Upstream, elapsed.Round(time.Millisecond))
	fmt.Fprintf(w, "  reads: %d, recorded %d as %d distinct cases under %d labels, index %q, in %s\n",
		s.Reads, s.Recorded, s.Cases, s.Labels, s.Index, filepath.Join(dir, WorkloadFile))
	if len(s.NotRecorded) > 0 {
		fmt.Fprintf(w, "  reads not recorded: %s\n", byCount(s.NotRecorded))
	}
	if s.Writes > 0 {
		fmt.Fprintf(w, "  writes: %d passed through, not recorded (%s): a snapshot taken before them is stale\n", s.Writes, byCount(s.WritesBy))
	} else {
		fmt.Fprintf(w, "  writes: none\n")
	}
	fmt.Fprintf(w, "  other requests passed through: %d\n", s.Other)
	if s.Upstream502+s.Upstream504+s.Aborted > 0 {
		fmt.Fprintf(w, "  upstream faults: %d answered 502 (no answer), %d answered 504 (no answer in time), %d answers broke off\n", s.Upstream502, s.Upstream504, s.Aborted)
	}
}

// byCount lists a count map as "a 3, b 1", largest first.
func byCount(m map[string]int64) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

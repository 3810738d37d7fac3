package proxy

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/conform-dev/conform/conformance"
	"github.com/conform-dev/conform/conformance/report"
	"github.com/conform-dev/conform/conformance/stats"
	"github.com/conform-dev/conform/fixtures"
	"github.com/conform-dev/conform/oracle"
	"github.com/tidwall/gjson"
)

// ShadowFormat tags shadow.json.
const ShadowFormat = "conform-shadow/1"

// Shadow defaults.
const (
	DefaultQueue            = 1000
	DefaultWorkers          = 2
	DefaultCandidateTimeout = 10 * time.Second
	DefaultKeep             = 50
)

// ShadowConfig configures a shadow.
type ShadowConfig struct {
	Primary, Candidate *url.URL
	Listen             string
	// Out is the directory the failing cases (workload.json), the primary's answers to them
	// (golden.json) and the report (shadow.json, report.md) are written to.
	Out string
	// Index is the failures' workload index; empty takes the first index a read names.
	Index string
	// Sample is the fraction of reads sent to the candidate, in (0, 1]: read n is sent when
	// floor(n*Sample) > floor((n-1)*Sample), so exactly that fraction, evenly spread.
	Sample float64
	// Queue bounds the reads waiting for the candidate; a read that finds it full is dropped
	// (counted), never waited for. Workers send them, each waiting at most CandidateTimeout.
	Queue, Workers   int
	CandidateTimeout time.Duration
	CandidateTLS     *tls.Config
	// Check is the strict check's options (conform shadow adds tie-order unless told not to).
	Check *conformance.Options
	// Keep bounds the distinct failing cases written per label (DefaultKeep when 0); the rest
	// are counted in their group.
	Keep int
	// Forward configures the forwarder to the primary.
	Forward    Options
	FlushEvery time.Duration
	Now        func() time.Time
	// PrimaryIdentity is the primary's GET / identity for the golden file, when known.
	PrimaryIdentity *oracle.Identity
}

// Shadow is the reverse proxy in front of the primary that also sends each sampled read to a
// candidate and checks the candidate's answer against the primary's.
type Shadow struct {
	cfg    ShadowConfig
	fwd    *Forwarder
	client *http.Client
	queue  chan *Exchange
	// drainBy bounds the drain at the end: reads still queued past it are counted, not sent,
	// so a candidate that hangs cannot hold up the exit by queue × --candidate-timeout. It
	// is written before the workers are told to stop, and read after.
	drainBy time.Time

	mu       sync.Mutex
	reads    int64
	sampled  int64
	dropped  int64
	checked  int64
	passed   int64
	failed   int64
	byClass  map[conformance.Class]int64
	skipped  map[string]int64
	primLat  []time.Duration
	candLat  []time.Duration
	book     *Book
	golden   map[string]oracle.Expected
	groups   map[string]*group
	started  time.Time
	dirty    bool
	written  int64                           // the forwarder's request count when the files were written
	fields   map[string]*conformance.Options // per index, for the request-aware relaxations
	fieldErr map[string]string
	// goldenErr says why golden.json could not be written with every failing case.
	goldenErr string
	wg        sync.WaitGroup
}

// group is the failures of one shape.
type group struct {
	label, shape string
	failed       int64
	byClass      map[conformance.Class]int64
	example      string
	diffs        []conformance.Difference
}

// NewShadow makes a shadow and writes its (empty) files, so a bad --out fails at once.
func NewShadow(cfg ShadowConfig) (*Shadow, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Sample <= 0 || cfg.Sample > 1 {
		return nil, fmt.Errorf("the sample fraction must be in (0, 1], not %v", cfg.Sample)
	}
	if cfg.Queue <= 0 {
		cfg.Queue = DefaultQueue
	}
	if cfg.Workers <= 0 {
		cfg.Workers = DefaultWorkers
	}
	if cfg.CandidateTimeout <= 0 {
		cfg.CandidateTimeout = DefaultCandidateTimeout
	}
	if cfg.Keep <= 0 {
		cfg.Keep = DefaultKeep
	}
	if cfg.FlushEvery <= 0 {
		cfg.FlushEvery = time.Second
	}
	if cfg.Check == nil {
		cfg.Check = &conformance.Options{}
	}
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return nil, err
	}
	s := &Shadow{cfg: cfg, queue: make(chan *Exchange, cfg.Queue), byClass: map[conformance.Class]int64{},
		skipped: map[string]int64{}, book: NewBook(cfg.Index), golden: map[string]oracle.Expected{},
		groups: map[string]*group{}, started: cfg.Now(), fields: map[string]*conformance.Options{}, fieldErr: map[string]string{}}
	s.book.Max = cfg.Keep
	fo := cfg.Forward
	fo.KeepBody = true
	fo.Observe = s.observe
	s.fwd = NewForwarder(cfg.Primary, fo)
	s.client = &http.Client{Transport: NewTransport(cfg.CandidateTimeout, cfg.CandidateTLS), Timeout: cfg.CandidateTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	if err := s.write(false); err != nil {
		return nil, err
	}
	return s, nil
}

// Handler is the proxy.
func (s *Shadow) Handler() http.Handler { return s.fwd }

// observe samples a read and queues it for the candidate without ever waiting.
func (s *Shadow) observe(ex *Exchange) {
	s.mu.Lock()
	s.reads++
	n := float64(s.reads)
	take := int64(n*s.cfg.Sample) > int64((n-1)*s.cfg.Sample)
	if take {
		s.sampled++
	}
	s.mu.Unlock()
	if !take {
		return
	}
	select {
	case s.queue <- ex:
	default:
		s.mu.Lock()
		s.dropped++
		s.dirty = true
		s.mu.Unlock()
	}
}

// Run sends queued reads to the candidate with Workers workers and rewrites the files every
// FlushEvery, until ctx ends; then the workers finish what is queued, for at most one more
// CandidateTimeout (each request still bounded by it, so the drain ends within twice that:
// a candidate that hangs cannot hold the exit up for the queue's length of timeouts), count
// what is left as queued at exit, not sent, and the files are written a last time, marked
// finished. Stop the server first (http.Server.Shutdown) so no client request is cut.
func (s *Shadow) Run(ctx context.Context) error {
	stop := make(chan struct{})
	for range s.cfg.Workers {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			for {
				select {
				case ex := <-s.queue:
					s.shadow(ex)
				case <-stop:
					for {
						select {
						case ex := <-s.queue:
							if time.Now().After(s.drainBy) {
								s.skip("queued at exit, not sent")
								continue
							}
							s.shadow(ex)
						default:
							return
						}
					}
				}
			}
		}()
	}
	halt := func() {
		s.drainBy = time.Now().Add(s.cfg.CandidateTimeout)
		close(stop)
		s.wg.Wait()
	}
	tick := time.NewTicker(s.cfg.FlushEvery)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			if s.isDirty() {
				if err := s.write(false); err != nil {
					halt()
					return err
				}
			}
		case <-ctx.Done():
			halt()
			return s.write(true)
		}
	}
}

// isDirty reports whether the files are behind: a read was recorded or checked, or any
// request went through, since they were written.
func (s *Shadow) isDirty() bool {
	n := s.fwd.seq.Load()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dirty || n != s.written
}

func (s *Shadow) skip(reason string) {
	s.mu.Lock()
	s.skipped[reason]++
	s.dirty = true
	s.mu.Unlock()
}

// shadow sends one read to the candidate and checks its answer.
func (s *Shadow) shadow(ex *Exchange) {
	switch {
	case ex.Fault != "":
		s.skip("primary failed")
		return
	case ex.TooLarge:
		s.skip("body too large")
		return
	case ex.BodyError != "":
		s.skip("request body unreadable")
		return
	case ex.Endpoint.Unreplayable != "":
		s.skip(ex.Endpoint.Unreplayable)
		return
	}
	if _, reason := reduce(ex.Endpoint, &ex.Request, ""); reason != "" {
		s.skip(reason)
		return
	}
	pBody, err := decodeAnswer(ex.Header, ex.Body, s.fwd.maxBody)
	if err != nil {
		s.skip("primary answer undecodable")
		return
	}
	cStatus, cBody, cLat, fault := s.ask(ex)
	var res conformance.Result
	if fault != nil {
		res = conformance.Result{Diffs: []conformance.Difference{*fault}}
	} else {
		opts := s.options(ex.Endpoint.Index)
		r, err := Judge(ex.Request.Body, ex.Status, pBody, cStatus, cBody, opts)
		var un *errUncheckable
		if errors.As(err, &un) {
			s.skip("primary answer not checkable")
			return
		}
		res = r
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dirty = true
	s.checked++
	s.primLat = appendSample(s.primLat, ex.Latency)
	if res.Pass {
		s.passed++
		s.candLat = appendSample(s.candLat, cLat)
		return
	}
	s.failed++
	classes := res.FailingClasses()
	for _, c := range classes {
		s.byClass[c]++
	}
	c, lbl, isNew, _ := s.book.Record(ex.Endpoint, &ex.Request)
	if lbl == "" {
		return
	}
	g := s.groups[lbl]
	if g == nil {
		g = &group{label: lbl, byClass: map[conformance.Class]int64{}}
		s.groups[lbl] = g
	}
	g.failed++
	for _, cl := range classes {
		g.byClass[cl]++
	}
	if isNew && c != nil {
		g.shape = c.Shape
		// The request as the fixtures package replays the case, so the golden file's
		// requests are the workload's own (conform check compares them).
		if req, err := c.Request(s.book.Index(), goldenTotalHits, nil); err == nil {
			s.golden[c.Name] = oracle.Expected{Request: req, Status: ex.Status, Body: append([]byte(nil), pBody...)}
		}
		if g.example == "" {
			g.example = c.Name
			for _, d := range res.Diffs {
				if d.Fails && len(g.diffs) < 5 {
					g.diffs = append(g.diffs, d)
				}
			}
		}
	}
}

// maxSamples bounds the latency samples kept per side (16 MiB each): the first two million
// are kept, and the report's n says how many its quantiles rest on.
const maxSamples = 2 << 20

func appendSample(xs []time.Duration, d time.Duration) []time.Duration {
	if len(xs) >= maxSamples {
		return xs
	}
	return append(xs, d)
}

// goldenTotalHits is the track_total_hits setting the golden file records; captured cases
// are sent as recorded, so it changes none of their requests.
const goldenTotalHits = "true"

// ask sends a read to the candidate: the same method, path, query and body, with the
// client's Content-Type and Accept, and the candidate URL's own credentials (the client's
// never leave for the candidate). A fault is a failing difference of class timeout or
// transport.
func (s *Shadow) ask(ex *Exchange) (int, []byte, time.Duration, *conformance.Difference) {
	u := *s.cfg.Candidate
	u.User = nil
	target := strings.TrimSuffix(u.String(), "/") + ex.Request.Target()
	var body io.Reader
	if ex.Request.Body != nil {
		body = bytes.NewReader(ex.Request.Body)
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.CandidateTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, ex.Request.Method, target, body)
	if err != nil {
		return 0, nil, 0, &conformance.Difference{Class: conformance.ClassTransport, Want: "<an answer>", Got: "<" + err.Error() + ">", Fails: true}
	}
	for _, h := range []string{"Content-Type", "Accept"} {
		if v := ex.Request.Header.Get(h); v != "" {
			req.Header.Set(h, v)
		}
	}
	if ui := s.cfg.Candidate.User; ui != nil {
		pw, _ := ui.Password()
		req.SetBasicAuth(ui.Username(), pw)
	}
	start := time.Now()
	resp, err := s.client.Do(req)
	if err != nil {
		return 0, nil, 0, candidateFault(err, s.cfg.CandidateTimeout)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, s.fwd.maxBody+1))
	lat := time.Since(start)
	if err != nil {
		return 0, nil, 0, candidateFault(err, s.cfg.CandidateTimeout)
	}
	if int64(len(b)) > s.fwd.maxBody {
		return 0, nil, 0, &conformance.Difference{Class: conformance.ClassDecode, Want: "<an answer>",
			Got: fmt.Sprintf("<an answer larger than %d bytes>", s.fwd.maxBody), Fails: true}
	}
	if b, err = decodeAnswer(resp.Header, b, s.fwd.maxBody); err != nil {
		return 0, nil, 0, &conformance.Difference{Class: conformance.ClassDecode, Want: "<an answer>", Got: "<" + err.Error() + ">", Fails: true}
	}
	return resp.StatusCode, b, lat, nil
}

func candidateFault(err error, timeout time.Duration) *conformance.Difference {
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout() {
		return &conformance.Difference{Class: conformance.ClassTimeout, Want: "<an answer>",
			Got: fmt.Sprintf("<no complete answer within %v>", timeout), Fails: true}
	}
	return &conformance.Difference{Class: conformance.ClassTransport, Want: "<an answer>", Got: "<" + err.Error() + ">", Fails: true}
}

// options are the check's options for a request on an index: the request-aware relaxations
// (the OpenSearch ones) need the index's field types, read once per index from the primary's
// GET /{index}/_mapping. When that fails they excuse nothing, and the report says so. The
// index facts the relation rule at exactly track_total_hits needs (conformance.IndexFacts)
// stay unknown on both sides: shadow watches a live index, whose deleted documents come and
// go with every update and merge (a count read once would go stale) and whose documents it
// does not hold, so "gte" for "eq" and the reverse are accepted wherever deletions or
// multi-valued fields could leave the count to the layout.
func (s *Shadow) options(index string) *conformance.Options {
	o := s.cfg.Check
	probe, _ := o.WithMapping([]byte(`{"properties":{}}`))
	if probe == o || index == "" || strings.ContainsAny(index, ",*") {
		return o
	}
	s.mu.Lock()
	cached, ok := s.fields[index]
	s.mu.Unlock()
	if ok {
		return cached
	}
	mapping, err := s.fetchMapping(index)
	var withFields *conformance.Options
	if err == nil {
		withFields, err = o.WithMapping(mapping)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.fieldErr[index] = err.Error()
		s.fields[index] = o
		return o
	}
	s.fields[index] = withFields
	return withFields
}

func (s *Shadow) fetchMapping(index string) ([]byte, error) {
	u := *s.cfg.Primary
	u.User = nil
	u.Path = strings.TrimSuffix(u.Path, "/") + "/" + index + "/_mapping"
	ctx, cancel := context.WithTimeout(context.Background(), s.fwd.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	if ui := s.cfg.Primary.User; ui != nil {
		pw, _ := ui.Password()
		req.SetBasicAuth(ui.Username(), pw)
	}
	resp, err := (&http.Client{Transport: s.fwd.rp.Transport, Timeout: s.fwd.timeout}).Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET /%s/_mapping on the primary: %w", index, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil || resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /%s/_mapping on the primary: HTTP %d %v", index, resp.StatusCode, err)
	}
	m := gjson.GetBytes(b, gjson.Escape(index))
	if !m.IsObject() {
		return nil, fmt.Errorf("GET /%s/_mapping on the primary: no mapping for the index", index)
	}
	return []byte(m.Raw), nil
}

// Latency summarises one side's latencies.
type Latency struct {
	N    int     `json:"n"`
	P50  float64 `json:"p50_ms"`
	P95  float64 `json:"p95_ms"`
	P99  float64 `json:"p99_ms"`
	Mean float64 `json:"mean_ms"`
	Max  float64 `json:"max_ms"`
}

func summarize(xs []time.Duration) *Latency {
	if len(xs) == 0 {
		return nil
	}
	q, err := stats.Quantiles(xs, 0.5, 0.95, 0.99)
	if err != nil {
		return nil
	}
	var sum, mx time.Duration
	for _, x := range xs {
		sum += x
		mx = max(mx, x)
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	return &Latency{N: len(xs), P50: ms(q[0]), P95: ms(q[1]), P99: ms(q[2]), Mean: ms(sum / time.Duration(len(xs))), Max: ms(mx)}
}

// ShadowSummary is shadow.json: the running totals, the latencies and the failures by shape.
type ShadowSummary struct {
	Format    string    `json:"format"`
	Primary   string    `json:"primary"`
	Candidate string    `json:"candidate"`
	Listen    string    `json:"listen,omitempty"`
	Started   time.Time `json:"started"`
	Updated   time.Time `json:"updated"`
	Finished  bool      `json:"finished"`
	// Check is the check's description ("strict, relaxed: tie-order"), CheckOptions its
	// options by name, as manifests record them.
	Check            string   `json:"check"`
	CheckOptions     []string `json:"check_options"`
	Sample           float64  `json:"sample"`
	Queue            int      `json:"queue"`
	Workers          int      `json:"workers"`
	CandidateTimeout string   `json:"candidate_timeout"`
	Index            string   `json:"index"`

	Requests int64 `json:"requests"`
	Reads    int64 `json:"reads"`
	Writes   int64 `json:"writes"`
	Other    int64 `json:"other"`
	// Sampled reads were meant for the candidate; Dropped of them found the queue full;
	// Checked were judged (Passed + Failed); Skipped were not judged, by reason.
	Sampled       int64            `json:"sampled"`
	Dropped       int64            `json:"dropped"`
	Checked       int64            `json:"checked"`
	Passed        int64            `json:"passed"`
	Failed        int64            `json:"failed"`
	FailedByClass map[string]int64 `json:"failed_by_class"`
	Skipped       map[string]int64 `json:"skipped,omitempty"`
	// Primary faults, by what the client got.
	Primary502 int64 `json:"primary_502"`
	Primary504 int64 `json:"primary_504"`
	Aborted    int64 `json:"aborted"`
	// PrimaryLatency is over every checked read (as the proxy saw the primary, to the last
	// byte); CandidateLatency only over the passing ones.
	PrimaryLatency   *Latency `json:"primary_latency"`
	CandidateLatency *Latency `json:"candidate_latency"`
	// Groups are the failures by shape, most first.
	Groups []ShadowGroup `json:"groups"`
	// Cases is how many failing cases the workload holds; KeptOut the failing requests of
	// new cases beyond --keep per label.
	Cases   int      `json:"cases"`
	KeptOut int      `json:"kept_out,omitempty"`
	Notes   []string `json:"notes,omitempty"`
	// Replay are the commands that check the candidate on the failing cases again.
	Replay []string `json:"replay,omitempty"`
}

// ShadowGroup is the failures of one shape.
type ShadowGroup struct {
	Label   string           `json:"label"`
	Shape   string           `json:"shape"`
	Failed  int64            `json:"failed"`
	ByClass map[string]int64 `json:"by_class"`
	Example string           `json:"example"`
	// Differences are the example's first failing differences.
	Differences []DiffRecord `json:"differences"`
}

// DiffRecord is a difference as JSON.
type DiffRecord struct {
	Class string `json:"class"`
	Path  string `json:"path"`
	Want  string `json:"want"`
	Got   string `json:"got"`
}

func classMap(m map[conformance.Class]int64) map[string]int64 {
	out := map[string]int64{}
	for k, v := range m {
		out[string(k)] = v
	}
	return out
}

// Summary is the shadow's state now.
func (s *Shadow) Summary(finished bool) ShadowSummary {
	fc := s.fwd.Counts()
	s.mu.Lock()
	defer s.mu.Unlock()
	out := ShadowSummary{Format: ShadowFormat, Primary: redact(s.cfg.Primary), Candidate: redact(s.cfg.Candidate),
		Listen: s.cfg.Listen, Started: s.started.UTC(), Updated: s.cfg.Now().UTC(), Finished: finished,
		Check: s.cfg.Check.String(), CheckOptions: s.cfg.Check.Names(), Sample: s.cfg.Sample, Queue: s.cfg.Queue,
		Workers: s.cfg.Workers, CandidateTimeout: s.cfg.CandidateTimeout.String(), Index: s.book.Index(),
		Requests: fc.Requests, Reads: fc.Reads, Writes: fc.Writes, Other: fc.Other,
		Sampled: s.sampled, Dropped: s.dropped, Checked: s.checked, Passed: s.passed, Failed: s.failed,
		FailedByClass: classMap(s.byClass), Primary502: fc.Status502, Primary504: fc.Status504, Aborted: fc.Aborted,
		PrimaryLatency: summarize(s.primLat), CandidateLatency: summarize(s.candLat), Cases: s.book.Len(), KeptOut: s.book.Dropped}
	if out.CheckOptions == nil {
		out.CheckOptions = []string{}
	}
	if len(s.skipped) > 0 {
		out.Skipped = map[string]int64{}
		for k, v := range s.skipped {
			out.Skipped[k] = v
		}
	}
	for _, g := range s.groups {
		sg := ShadowGroup{Label: g.label, Shape: g.shape, Failed: g.failed, ByClass: classMap(g.byClass), Example: g.example}
		for _, d := range g.diffs {
			sg.Differences = append(sg.Differences, DiffRecord{Class: string(d.Class), Path: d.Path, Want: d.Want, Got: d.Got})
		}
		out.Groups = append(out.Groups, sg)
	}
	sort.Slice(out.Groups, func(i, j int) bool {
		if out.Groups[i].Failed != out.Groups[j].Failed {
			return out.Groups[i].Failed > out.Groups[j].Failed
		}
		return out.Groups[i].Label < out.Groups[j].Label
	})
	for idx, e := range s.fieldErr {
		out.Notes = append(out.Notes, fmt.Sprintf("index %s: the request-aware relaxations excuse nothing: %s", idx, e))
	}
	if s.goldenErr != "" {
		out.Notes = append(out.Notes, "golden.json holds no answer to some failing cases, so it does not match workload.json; replay them with --oracle live:"+redact(s.cfg.Primary)+" ("+s.goldenErr+")")
	}
	sort.Strings(out.Notes)
	if s.book.Len() > 0 {
		relax := ""
		if names := s.cfg.Check.Names(); len(names) > 0 {
			var r []string
			for _, n := range names {
				if n != "pedantic" {
					r = append(r, n)
				}
			}
			if len(r) > 0 {
				relax = " --relax " + strings.Join(r, ",")
			}
			if s.cfg.Check.Pedantic {
				relax += " --pedantic"
			}
		}
		out.Replay = []string{
			fmt.Sprintf("conform check --fixtures %s --oracle golden:%s --target candidate=%s%s", s.cfg.Out, filepath.Join(s.cfg.Out, GoldenFile), redact(s.cfg.Candidate), relax),
			fmt.Sprintf("conform explain CASE --fixtures %s --oracle golden:%s --target candidate=%s%s", s.cfg.Out, filepath.Join(s.cfg.Out, GoldenFile), redact(s.cfg.Candidate), relax),
		}
	}
	return out
}

func (s *Shadow) write(finished bool) error {
	n := s.fwd.seq.Load()
	sum := s.Summary(finished)
	s.mu.Lock()
	s.written = n
	wl := s.book.Marshal()
	cases := make([]oracle.Expected, 0, len(s.golden))
	for _, c := range s.book.Cases() {
		if e, ok := s.golden[c.Name]; ok {
			cases = append(cases, e)
		}
	}
	index := s.book.Index()
	s.dirty = false
	s.mu.Unlock()
	if err := report.WriteFileAtomic(filepath.Join(s.cfg.Out, WorkloadFile), wl); err != nil {
		return err
	}
	if len(cases) > 0 {
		// The hashes are those fixtures.Load gives a directory of a workload alone.
		x := oracle.NewExpectations("live:"+redact(s.cfg.Primary), oracle.Settings{Index: index, TrackTotalHits: goldenTotalHits}, cases)
		x.Engine = s.cfg.PrimaryIdentity
		meta := fixtures.Meta{SHA256: fixtures.Hashes{Workload: fixtures.SHA256(wl)}}
		var g bytes.Buffer
		if err := oracle.WriteExpectations(&g, x, meta, s.cfg.Now()); err != nil {
			// A golden file holds JSON request bodies; an _msearch case's NDJSON one it
			// cannot yet. The file is left as it was and the report says so.
			s.mu.Lock()
			s.goldenErr = err.Error()
			s.mu.Unlock()
		} else if err := report.WriteFileAtomic(filepath.Join(s.cfg.Out, GoldenFile), g.Bytes()); err != nil {
			return err
		}
	}
	sj, err := json.MarshalIndent(sum, "", "  ")
	if err != nil {
		return err
	}
	if err := report.WriteFileAtomic(filepath.Join(s.cfg.Out, ShadowFile), append(sj, '\n')); err != nil {
		return err
	}
	var r bytes.Buffer
	sum.WriteText(&r)
	return report.WriteFileAtomic(filepath.Join(s.cfg.Out, ReportFile), r.Bytes())
}

// Line is the running summary's one line.
func (s ShadowSummary) Line() string {
	var b strings.Builder
	fmt.Fprintf(&b, "shadow: %d requests, %d reads, %d checked: %d passed, %d failed", s.Requests, s.Reads, s.Checked, s.Passed, s.Failed)
	if len(s.FailedByClass) > 0 {
		fmt.Fprintf(&b, " (%s)", byCount(s.FailedByClass))
	}
	fmt.Fprintf(&b, ", %d dropped", s.Dropped)
	var skipped int64
	for _, v := range s.Skipped {
		skipped += v
	}
	if skipped > 0 {
		fmt.Fprintf(&b, ", %d not checked", skipped)
	}
	if s.Primary502+s.Primary504+s.Aborted > 0 {
		fmt.Fprintf(&b, ", primary faults %d", s.Primary502+s.Primary504+s.Aborted)
	}
	return b.String()
}

// WriteText writes the report for people: the totals, both sides' latency and the failures
// by shape with the commands that replay them.
func (s ShadowSummary) WriteText(w io.Writer) {
	fmt.Fprintf(w, "# conform shadow: %s (primary, the oracle) and %s (candidate)\n\n", s.Primary, s.Candidate)
	fmt.Fprintf(w, "Check: %s. Sample %g, queue %d, %d workers, candidate timeout %s. %s to %s",
		s.Check, s.Sample, s.Queue, s.Workers, s.CandidateTimeout, s.Started.Format(time.RFC3339), s.Updated.Format(time.RFC3339))
	if !s.Finished {
		fmt.Fprintf(w, " (still running)")
	}
	fmt.Fprintf(w, ".\n\n")
	fmt.Fprintf(w, "%s\n\n", s.Line())
	fmt.Fprintf(w, "- requests %d: reads %d, writes %d (passed to the primary only), other %d\n", s.Requests, s.Reads, s.Writes, s.Other)
	fmt.Fprintf(w, "- reads sampled for the candidate %d: checked %d (passed %d, failed %d), dropped %d (queue full)\n", s.Sampled, s.Checked, s.Passed, s.Failed, s.Dropped)
	if len(s.Skipped) > 0 {
		fmt.Fprintf(w, "- not checked: %s\n", byCount(s.Skipped))
	}
	if len(s.FailedByClass) > 0 {
		fmt.Fprintf(w, "- failed by class (a response once under each class it failed): %s\n", byCount(s.FailedByClass))
	}
	if s.Primary502+s.Primary504+s.Aborted > 0 {
		fmt.Fprintf(w, "- primary faults: %d answered 502, %d answered 504, %d broke off\n", s.Primary502, s.Primary504, s.Aborted)
	}
	fmt.Fprintf(w, "\nLatency (ms)          n       p50      p95      p99     mean      max\n")
	row := func(name string, l *Latency) {
		if l == nil {
			fmt.Fprintf(w, "%-16s  –\n", name)
			return
		}
		fmt.Fprintf(w, "%-16s %6d %8.3f %8.3f %8.3f %8.3f %8.3f\n", name, l.N, l.P50, l.P95, l.P99, l.Mean, l.Max)
	}
	row("primary", s.PrimaryLatency)
	row("candidate", s.CandidateLatency)
	fmt.Fprintf(w, "\nprimary: every checked read, as the proxy saw it (to the last byte); candidate: only the\nreads whose answer passed the check, sent after the primary had answered.\n")
	for _, n := range s.Notes {
		fmt.Fprintf(w, "\nNote: %s\n", n)
	}
	if len(s.Groups) == 0 {
		return
	}
	fmt.Fprintf(w, "\n## Failures by shape (%d cases in workload.json, the primary's answers in golden.json)\n", s.Cases)
	for _, g := range s.Groups {
		fmt.Fprintf(w, "\n%s: %d failed (%s), e.g. %s\n  shape %s\n", g.Label, g.Failed, byCount(g.ByClass), g.Example, g.Shape)
		for _, d := range g.Differences {
			fmt.Fprintf(w, "  %s %s: want %s, got %s\n", d.Class, d.Path, d.Want, d.Got)
		}
	}
	if s.KeptOut > 0 {
		fmt.Fprintf(w, "\n%d failing requests of further distinct cases were counted but not written (--keep per label).\n", s.KeptOut)
	}
	if len(s.Replay) > 0 {
		fmt.Fprintf(w, "\nReplay:\n")
		for _, r := range s.Replay {
			fmt.Fprintf(w, "  %s\n", r)
		}
	}
}

package report

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/conform-dev/conform/conformance/readiness"
)

// ResultsFormat tags results.json; it changes when the schema changes incompatibly.
const ResultsFormat = "conform-results/1"

// Results is results.json: every cell of a run with its trials. The schema is documented in
// docs/RESULTS.md; fields are only ever added.
type Results struct {
	Format string `json:"format"`
	// Complete is false while a run is in progress and when it was interrupted; Incomplete
	// then says why.
	Complete    bool      `json:"complete"`
	Incomplete  string    `json:"incomplete,omitempty"`
	Methodology string    `json:"methodology"`
	StartedAt   time.Time `json:"started_at"`
	FinishedAt  time.Time `json:"finished_at,omitzero"`
	Settings    Settings  `json:"settings"`
	Fixtures    Fixtures  `json:"fixtures"`
	Oracle      Oracle    `json:"oracle"`
	Targets     []Target  `json:"targets"`
	// Order lists, per trial, operation and concurrency level, the order the targets ran in.
	Order    []OrderEntry `json:"order"`
	Cells    []Cell       `json:"cells"`
	Failures []Failure    `json:"failures"`
	// Findings are what readiness found wrong with a target that did not stop the run (a
	// mapping that differs, sampled documents that differ, GET / that is not
	// Elasticsearch's): each fails the run as a failed response does.
	Findings []readiness.Finding `json:"findings,omitempty"`
	// Warnings are caveats a reader can act on (for example a case the oracle flagged).
	Warnings []string `json:"warnings,omitempty"`
}

// Settings are the run's settings; results with different settings are never combined.
type Settings struct {
	Ops            []string `json:"ops"`
	Clients        []int    `json:"clients"`
	Requests       int      `json:"requests"` // measured requests per trial, shared among the clients
	Trials         int      `json:"trials"`
	Warmup         int      `json:"warmup"` // checked, untimed requests before each trial
	TrackTotalHits string   `json:"track_total_hits"`
	Timeout        string   `json:"timeout"`
	Index          string   `json:"index"`
	// Check names the strict check's options: "strict", "pedantic", or relaxations by name.
	Check []string `json:"check"`
	// Layer is how timed requests were sent: "lean" (conform's timed path),
	// "lean+elastictransport", "net/http" or "net/http+elastictransport". Results written
	// before the field existed were all lean; TimedLayer reads them so.
	Layer string `json:"layer,omitempty"`
}

// TimedLayer is Layer, with the lean path for results that predate the field.
func (s Settings) TimedLayer() string {
	if s.Layer == "" {
		return "lean"
	}
	return s.Layer
}

// Fixtures identifies the corpus and workload.
type Fixtures struct {
	Source         string         `json:"source"` // "built-in default" or a directory
	Generator      string         `json:"generator,omitempty"`
	Seed           *uint64        `json:"seed,omitempty"`
	Documents      int            `json:"documents"`
	Cases          map[string]int `json:"cases"`
	CorpusSHA256   string         `json:"corpus_sha256"`
	MappingSHA256  string         `json:"mapping_sha256"`
	WorkloadSHA256 string         `json:"workload_sha256"`
}

// Oracle identifies where the expected responses came from.
type Oracle struct {
	Source string `json:"source"`
	SHA256 string `json:"sha256"`
}

// Target is one engine under test, with its URL redacted.
type Target struct {
	Name string `json:"name"`
	URL  string `json:"url"`
	// Identity is the engine's answer to GET / (name, cluster, version, distribution), as
	// recorded before timing.
	Identity json.RawMessage `json:"identity,omitempty"`
	// Probes are readiness facts recorded before timing (document count, corpus sample hash,
	// backend facts such as a Qdrant collection's status).
	Probes map[string]any `json:"probes,omitempty"`
}

// OrderEntry records the rotation of targets for one trial, operation and concurrency level.
type OrderEntry struct {
	Trial   int      `json:"trial"`
	Op      string   `json:"op"`
	Clients int      `json:"clients"`
	Targets []string `json:"targets"`
}

// Cell is one target, operation and concurrency level over all its trials.
type Cell struct {
	Target  string `json:"target"`
	Op      string `json:"op"`
	Clients int    `json:"clients"`
	// MedianP50Ms is the median of the trial p50s: the number a report cell shows. It and
	// the other latencies are nil (null in results.json) when no response of the cell passed:
	// failed responses are never timed, so such a cell has no latency, not a latency of 0.
	MedianP50Ms         *float64    `json:"median_p50_ms"`
	P50RangeMs          *[2]float64 `json:"p50_range_ms"` // min and max of the trial p50s
	MedianP95Ms         *float64    `json:"median_p95_ms"`
	MedianThroughputRPS float64     `json:"median_throughput_rps"`
	// Passed and Failed count measured responses, each once: Passed + Failed were measured.
	// FailuresByClass counts a failed response once under each class it failed.
	Passed          int            `json:"passed"`
	Failed          int            `json:"failed"`
	FailuresByClass map[string]int `json:"failures_by_class"`
	Trials          []Trial        `json:"trials"`
	// Histogram is the latency distribution of the cell's passing responses, all trials.
	Histogram *Histogram `json:"histogram,omitempty"`
}

// Trial is one timed trial of a cell.
type Trial struct {
	Trial int `json:"trial"`
	// Round is the experiment round the trial ran in (0 in a plain run).
	Round     int       `json:"round,omitempty"`
	StartedAt time.Time `json:"started_at"`
	WallMs    float64   `json:"wall_ms"`
	// The latencies of the trial's passing responses; nil (null) when none passed.
	P50Ms         *float64 `json:"p50_ms"`
	P95Ms         *float64 `json:"p95_ms"`
	P99Ms         *float64 `json:"p99_ms"`
	MeanMs        *float64 `json:"mean_ms"`
	MaxMs         *float64 `json:"max_ms"`
	ThroughputRPS float64  `json:"throughput_rps"`
	// Passed + Failed responses were measured; a response counts once in Failed and once
	// under each class of FailuresByClass it failed.
	Passed          int            `json:"passed"`
	Failed          int            `json:"failed"`
	FailuresByClass map[string]int `json:"failures_by_class"`
	// WarmupFailed counts warmup responses that failed the check (they are never timed).
	WarmupFailed int  `json:"warmup_failed,omitempty"`
	Incomplete   bool `json:"incomplete,omitempty"`
	// ClientCPU is what measuring cost: conform's CPU time per measured response over the
	// trial's measured phase; nil where the OS's accounting is not read.
	ClientCPU *CPU `json:"client_cpu,omitempty"`
}

// CPU is a process's CPU time per response as the OS accounts it (getrusage): the whole
// process, user and system, in microseconds. Linux samples the split between the two at its
// tick, so over a trial of a few milliseconds one may read 0; the sum is exact.
type CPU struct {
	UserUs float64 `json:"user_us"`
	SysUs  float64 `json:"sys_us"`
}

// Histogram is a latency distribution in log-spaced bins: Counts[i] samples fell in
// [EdgesMs[i], EdgesMs[i+1]).
type Histogram struct {
	EdgesMs []float64 `json:"edges_ms"`
	Counts  []int     `json:"counts"`
}

// Failure is one failed response kept whole, with its differences.
type Failure struct {
	Target  string `json:"target"`
	Op      string `json:"op"`
	Clients int    `json:"clients"`
	Trial   int    `json:"trial"` // 0 for readiness
	// Phase is "readiness" (the one case checked before timing), "warmup" (checked, untimed)
	// or "trial" (measured).
	Phase  string `json:"phase"`
	Case   string `json:"case"`
	Class  string `json:"class"`
	Method string `json:"method"`
	Path   string `json:"path"`
	// Request is the request body sent; Status and Body what came back (trimmed when huge).
	Request string       `json:"request,omitempty"`
	Status  int          `json:"status"`
	Body    string       `json:"body,omitempty"`
	Error   string       `json:"error,omitempty"`
	Diffs   []Difference `json:"diffs,omitempty"`
}

// Difference mirrors the check's record: class, JSON path, want, got.
type Difference struct {
	Class string `json:"class"`
	Path  string `json:"path"`
	Want  string `json:"want"`
	Got   string `json:"got"`
	Fails bool   `json:"fails"`
}

// Millis is a latency in milliseconds for results.json, where nil (null) is no latency.
func Millis(v float64) *float64 { return &v }

// HasLatency reports whether some response of the cell passed, so that it has latencies.
func (c *Cell) HasLatency() bool { return c.MedianP50Ms != nil }

// Measured is the number of the cell's measured responses: Passed + Failed.
func (c *Cell) Measured() int { return c.Passed + c.Failed }

// Cell returns the cell for a target, operation and concurrency level, or nil.
func (r *Results) Cell(target, op string, clients int) *Cell {
	for i := range r.Cells {
		c := &r.Cells[i]
		if c.Target == target && c.Op == op && c.Clients == clients {
			return c
		}
	}
	return nil
}

// MedianClientCPUUs is the median over the cell's trials of conform's CPU time per response
// (user plus system, µs); ok is false when no trial recorded it.
func (c *Cell) MedianClientCPUUs() (us float64, ok bool) {
	var v []float64
	for _, t := range c.Trials {
		if t.ClientCPU != nil {
			v = append(v, t.ClientCPU.UserUs+t.ClientCPU.SysUs)
		}
	}
	if len(v) == 0 {
		return 0, false
	}
	sort.Float64s(v)
	if len(v)%2 == 1 {
		return v[len(v)/2], true
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2, true
}

// HasClientCPU reports whether any trial recorded conform's CPU time.
func (r *Results) HasClientCPU() bool {
	for i := range r.Cells {
		if _, ok := r.Cells[i].MedianClientCPUUs(); ok {
			return true
		}
	}
	return false
}

// ClientCPUNote says what the client CPU figures hold.
const ClientCPUNote = "conform's own CPU time per measured response (user + system, from the OS over each trial's measured phase; its clients, the check and the Go runtime, and the target too when conform serves it in its own process, as the embedded default), median over trials"

// TrialsMeasured counts the trials in every cell.
func (r *Results) TrialsMeasured() int {
	n := 0
	for _, c := range r.Cells {
		n += len(c.Trials)
	}
	return n
}

// Counts are a run's responses, each counted once: Measured = Passed + Failed, the measured
// responses of every cell; ByClass beside them counts a failed response once under each class
// it failed, so the classes may sum to more than Failed. Warmup responses (checked, never
// timed) and the readiness case are counted apart: they are not measured, but a failure
// among them fails the run as well.
type Counts struct {
	Measured, Passed, Failed int
	ByClass                  map[string]int
	WarmupFailed             int
	ReadinessFailed          int
}

// Counts totals the responses over every cell.
func (r *Results) Counts() Counts {
	n := Counts{ByClass: map[string]int{}}
	for _, c := range r.Cells {
		n.Passed += c.Passed
		n.Failed += c.Failed
		for k, v := range c.FailuresByClass {
			n.ByClass[k] += v
		}
		for _, t := range c.Trials {
			n.WarmupFailed += t.WarmupFailed
		}
	}
	n.Measured = n.Passed + n.Failed
	for _, f := range r.Failures {
		if f.Phase == PhaseReadiness {
			n.ReadinessFailed++
		}
	}
	return n
}

// Sentence says the counts in one line, the same wherever a run's counts are printed:
// "1600 measured responses: 1400 passed and were timed, 200 failed the check (by class, a
// response once under each class it failed: ids 200, totals 200); 16 warmup responses
// failed too".
func (n Counts) Sentence() string {
	var b strings.Builder
	if n.Measured == 0 {
		b.WriteString("no response was measured")
	} else {
		fmt.Fprintf(&b, "%s: %d passed and %s timed, %d failed the check", plural(n.Measured, "measured response", "measured responses"),
			n.Passed, map[bool]string{true: "was", false: "were"}[n.Passed == 1], n.Failed)
	}
	if n.Failed > 0 {
		b.WriteString(" (")
		if len(n.ByClass) > 1 {
			b.WriteString("by class, a response once under each class it failed: ")
		}
		b.WriteString(ClassCounts(n.ByClass))
		b.WriteString(")")
	}
	var apart []string
	if n.WarmupFailed > 0 {
		apart = append(apart, plural(n.WarmupFailed, "warmup response", "warmup responses"))
	}
	if n.ReadinessFailed > 0 {
		apart = append(apart, "the readiness case")
	}
	if len(apart) > 0 {
		fmt.Fprintf(&b, "; %s failed too (checked, never timed)", strings.Join(apart, " and "))
	}
	return b.String()
}

// Any reports whether any response failed the check, measured or not.
func (n Counts) Any() bool { return n.Failed+n.WarmupFailed+n.ReadinessFailed > 0 }

// ClassCounts writes failures by class in the stable order of their names: "ids 200, totals 200".
func ClassCounts(m map[string]int) string {
	parts := make([]string, 0, len(m))
	for _, k := range sortedClasses(m) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

// plural writes a count with the noun that agrees with it: "1 trial", "3 trials".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// TotalFailed counts failed responses over every cell.
func (r *Results) TotalFailed() int {
	n := 0
	for _, c := range r.Cells {
		n += c.Failed
	}
	return n
}

// FailedResponses counts every response that failed the check: measured ones, warmup ones
// and the readiness case. Any of them fails a run and rejects an experiment's variant.
func (r *Results) FailedResponses() int {
	return r.failedWhere(func(string) bool { return true })
}

// CellFailed counts the responses of one cell that failed the check: measured, warmup, and
// the readiness case when it was the cell's.
func (r *Results) CellFailed(target, op string, clients int) int {
	n := 0
	if c := r.Cell(target, op, clients); c != nil {
		n += c.Failed
		for _, t := range c.Trials {
			n += t.WarmupFailed
		}
	}
	for _, f := range r.Failures {
		if f.Phase == PhaseReadiness && f.Target == target && f.Op == op && f.Clients == clients {
			n++
		}
	}
	return n
}

// FailedFor counts FailedResponses of one target.
func (r *Results) FailedFor(target string) int {
	return r.failedWhere(func(t string) bool { return t == target })
}

func (r *Results) failedWhere(match func(string) bool) int {
	n := 0
	for _, c := range r.Cells {
		if !match(c.Target) {
			continue
		}
		n += c.Failed
		for _, t := range c.Trials {
			n += t.WarmupFailed
		}
	}
	for _, f := range r.Failures {
		if f.Phase == PhaseReadiness && match(f.Target) {
			n++
		}
	}
	return n
}

// Phases of a kept failure.
const (
	PhaseReadiness = "readiness"
	PhaseWarmup    = "warmup"
	PhaseTrial     = "trial"
)

// TotalPassed counts passed (measured) responses over every cell.
func (r *Results) TotalPassed() int {
	n := 0
	for _, c := range r.Cells {
		n += c.Passed
	}
	return n
}

package report

import (
	"bufio"
	"net/url"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/conform-dev/conform/conformance/readiness"
	"github.com/conform-dev/conform/internal/buildinfo"
	"github.com/conform-dev/conform/internal/cpuset"
)

// ManifestFormat tags manifest.json.
const ManifestFormat = "conform-manifest/1"

// Manifest is the evidence a run leaves: what ran, on what, with which settings and data, and
// every trial's summary, so a result can be audited or replayed. It never holds a secret.
type Manifest struct {
	Format      string         `json:"format"`
	Kind        string         `json:"kind"` // "run" or "experiment"
	Tool        buildinfo.Info `json:"tool"`
	Methodology string         `json:"methodology"`
	CreatedAt   time.Time      `json:"created_at"`
	// Command is the command line, with credentials removed from any URL in it.
	Command  []string `json:"command"`
	Settings Settings `json:"settings"`
	Fixtures Fixtures `json:"fixtures"`
	Oracle   Oracle   `json:"oracle"`
	Targets  []Target `json:"targets"`
	Host     Host     `json:"host"`
	// Environment holds what the user declared about the engines (image ids, resource
	// limits) and what docker reported, by target or container name.
	Environment map[string]map[string]string `json:"environment,omitempty"`
	// Rounds are an experiment's rounds; a plain run has one implicit round.
	Rounds []Round `json:"rounds,omitempty"`
	// WarmUps are an experiment's warm-ups to a steady state (before round 1, and after
	// every switch in the switched mode).
	WarmUps []WarmUp `json:"warm_ups,omitempty"`
	// Trials summarises every trial of a plain run.
	Trials []TrialRecord `json:"trials,omitempty"`
	// Findings are what readiness found wrong with the targets without stopping the run.
	Findings []readiness.Finding `json:"findings,omitempty"`
	Complete bool                `json:"complete"`
}

// Round is one round of a paired experiment.
type Round struct {
	Round      int       `json:"round"`
	Variant    string    `json:"variant"` // the variant's label
	Role       string    `json:"role"`    // "baseline" or "candidate"
	StartedAt  time.Time `json:"started_at"`
	FinishedAt time.Time `json:"finished_at,omitzero"`
	// Targets holds each target's identity and readiness probes as checked before the round.
	Targets []Target      `json:"targets"`
	Switch  string        `json:"switch,omitempty"` // the switch command's outcome, if any
	Trials  []TrialRecord `json:"trials"`
}

// TrialRecord is one trial's summary with its coordinates.
type TrialRecord struct {
	Target  string `json:"target"`
	Op      string `json:"op"`
	Clients int    `json:"clients"`
	Trial
}

// Host is the machine conform ran on.
type Host struct {
	Hostname   string `json:"hostname"`
	OS         string `json:"os"`
	Arch       string `json:"arch"`
	CPUs       int    `json:"cpus"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	// Affinity is the CPUs conform ran on, in cpu-list syntax ("0", "0-1"), whether --cpus
	// or an outer taskset set them: clients sharing CPUs with the targets are far noisier.
	// Empty where it cannot be read (outside Linux).
	Affinity  string `json:"affinity,omitempty"`
	CPUModel  string `json:"cpu_model,omitempty"`
	MemoryKiB int64  `json:"memory_kib,omitempty"`
	Kernel    string `json:"kernel,omitempty"`
}

// HostFacts reads what it can about this machine; missing facts are left empty.
func HostFacts() Host {
	h := Host{OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0), CPUModel: HostCPU()}
	h.Hostname, _ = os.Hostname()
	if set, err := cpuset.Current(); err == nil {
		h.Affinity = set.String()
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		h.Kernel = strings.TrimSpace(string(b))
	}
	if f, err := os.Open("/proc/meminfo"); err == nil {
		defer f.Close()
		s := bufio.NewScanner(f)
		for s.Scan() {
			if rest, ok := strings.CutPrefix(s.Text(), "MemTotal:"); ok {
				var kib int64
				for _, c := range strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")) {
					if c >= '0' && c <= '9' {
						kib = kib*10 + int64(c-'0')
					}
				}
				h.MemoryKiB = kib
				break
			}
		}
	}
	return h
}

// HostCPU returns the CPU model name, or "".
func HostCPU() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if k, v, ok := strings.Cut(s.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// secretFlags are flags whose value must never be recorded.
var secretFlags = []string{"--password", "-password", "--api-key", "-api-key", "--token", "-token"}

// RedactArgs returns a command line fit for a manifest: userinfo in any URL (also inside
// NAME=URL) replaced by "***", and the values of secret-bearing flags dropped.
func RedactArgs(args []string) []string {
	out := make([]string, len(args))
	hideNext := false
	for i, a := range args {
		if hideNext {
			out[i], hideNext = "***", false
			continue
		}
		for _, f := range secretFlags {
			if a == f {
				hideNext = true
			}
			if strings.HasPrefix(a, f+"=") {
				a = f + "=***"
			}
		}
		out[i] = RedactURLs(a)
	}
	return out
}

// RedactURLs replaces the userinfo of every URL in s (including "name=URL") with "***".
func RedactURLs(s string) string {
	i := strings.Index(s, "://")
	if i < 0 {
		return s
	}
	prefix, rest := s[:i+3], s[i+3:]
	end := strings.IndexAny(rest, "/?# ")
	host := rest
	if end >= 0 {
		host = rest[:end]
	}
	if at := strings.LastIndex(host, "@"); at >= 0 {
		rest = "***@" + rest[at+1:]
	}
	return prefix + RedactURLs(rest)
}

// RedactURL is the redacted text of a URL.
func RedactURL(u *url.URL) string {
	if u == nil {
		return ""
	}
	c := *u
	if c.User != nil {
		c.User = url.User("***")
	}
	return c.String()
}

// WarmUp is how the targets were warmed to a steady state before a round: the rule and,
// per target, the curve of its p50 over the warm-up passes.
type WarmUp struct {
	// BeforeRound is the round the warm-up preceded (1, or a round after a switch).
	BeforeRound int `json:"before_round"`
	// Rule: each pass sends Window requests per cell (operation x clients) to every target;
	// a target is steady once the geometric mean over cells of its p50 has stopped falling:
	// none of the last Stable-1 passes is more than Tolerance below the best pass before
	// them. Warm-up ends when every target is steady or after MaxPasses passes.
	Window    int           `json:"window"`
	Tolerance float64       `json:"tolerance"`
	Stable    int           `json:"stable"`
	MaxPasses int           `json:"max_passes"`
	Targets   []WarmTarget  `json:"targets"`
	Elapsed   time.Duration `json:"elapsed_ns"`
}

// WarmTarget is one target's warm-up curve.
type WarmTarget struct {
	Name string `json:"name"`
	// Steady reports the rule was met at the last pass, from pass SteadyAt on (0 when not);
	// CapReached that the warm-up stopped at MaxPasses with this target not steady.
	Steady     bool `json:"steady"`
	SteadyAt   int  `json:"steady_at,omitempty"`
	CapReached bool `json:"cap_reached"`
	// P50Ms is, per pass, the geometric mean over the cells of the target's p50 (ms); 0 for a
	// pass without a passing response. Cells holds each cell's own curve.
	P50Ms []float64  `json:"p50_ms"`
	Cells []WarmCell `json:"cells"`
	// Failed counts responses that failed the check during the warm-up.
	Failed int `json:"failed"`
}

// WarmCell is one cell's p50 per warm-up pass.
type WarmCell struct {
	Op      string    `json:"op"`
	Clients int       `json:"clients"`
	P50Ms   []float64 `json:"p50_ms"`
}

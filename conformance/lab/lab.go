package lab

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/conform-dev/conform/conformance/target"
	"github.com/conform-dev/conform/fixtures"
	"github.com/conform-dev/conform/load"
	"github.com/qdrant/go-client/qdrant"
)

// Config describes the lab around the targets: a Qdrant backend to probe, and what the user
// declares about each engine for the manifest.
type Config struct {
	// Qdrant is the HOST:PORT of a Qdrant backend's gRPC API, or "" for none; Collection
	// is the collection holding the corpus.
	Qdrant, Collection string
	QdrantAPIKey       string // sent when set; never printed
	QdrantTLS          bool
	// SampleDocs is the size of the corpus fingerprint's sample; 0 means
	// load.DefaultSampleDocs.
	SampleDocs int
	// Images and Limits are NAME=VALUE declarations of an engine's image id and resource
	// limits, recorded as given.
	Images, Limits []string
	// Containers are the docker containers whose image ids and limits to record; nil means
	// load.LabContainers.
	Containers []string
	// Log, when set, gets one line per target's readiness: the mapping variant its index holds.
	Log io.Writer
}

// Lab is an opened lab: the probes run before timing and what the manifest records.
type Lab struct {
	cfg    Config
	f      *fixtures.Fixtures
	qc     *qdrant.Client
	server load.QdrantServer

	mu     sync.Mutex
	logged map[string]string // by target, the last readiness line written to Config.Log
}

// logOnce writes a target's readiness line unless it is the one written last for that target:
// an experiment asks for readiness again and again, and the line says nothing new.
func (l *Lab) logOnce(target, line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.logged == nil {
		l.logged = map[string]string{}
	}
	if l.logged[target] == line {
		return
	}
	l.logged[target] = line
	fmt.Fprint(l.cfg.Log, line)
}

// Open dials the Qdrant backend when there is one. Close releases it.
func Open(ctx context.Context, c Config, f *fixtures.Fixtures) (*Lab, error) {
	l := &Lab{cfg: c, f: f}
	if c.Qdrant == "" {
		return l, nil
	}
	qc, server, err := load.DialQdrant(ctx, load.QdrantConfig{Addr: c.Qdrant, APIKey: c.QdrantAPIKey, TLS: c.QdrantTLS})
	if err != nil {
		return nil, fmt.Errorf("qdrant %s: %w", c.Qdrant, err)
	}
	l.qc, l.server = qc, server
	return l, nil
}

// Close closes the connection to the Qdrant backend, if any.
func (l *Lab) Close() error {
	if l.qc != nil {
		return l.qc.Close()
	}
	return nil
}

// Ready proves a target holds the corpus before it is timed: its identity, an exact document
// count equal to the corpus size, the fixtures' field types (load.MappingCheck: an index of
// another mapping variant is not ready, and the error names the variant and the fields), and
// a fingerprint over a fixed sample of documents equal to the corpus's; with a Qdrant backend, the backend's health, collection status (green),
// exact point count and the same fingerprint. Anything else is not ready. It returns the
// target's identity and the probes, as runner.Run's Ready hook records them.
func (l *Lab) Ready(ctx context.Context, t *target.Target) (json.RawMessage, map[string]any, error) {
	tp, err := t.Transport()
	if err != nil {
		return nil, nil, err
	}
	if !l.f.HasCorpus() {
		// A workload alone: there is no corpus to count or fingerprint, so readiness is only
		// that the target answers, and says so.
		id, err := load.ProbeIdentity(ctx, tp)
		if err != nil {
			return nil, nil, err
		}
		if l.cfg.Log != nil {
			l.logOnce(t.Name, fmt.Sprintf("%s: the fixtures have no corpus: readiness proves nothing about the data index %s holds, only that %s answers\n", t.Name, t.IndexFor(l.f.Workload.Index), t.Name))
		}
		ident, _ := json.Marshal(id)
		return ident, map[string]any{"corpus": "none in the fixtures: not proved"}, nil
	}
	p, err := load.ProbeES(ctx, tp, t.IndexFor(l.f.Workload.Index), l.f, load.ProbeOptions{SampleDocs: l.cfg.SampleDocs})
	if err != nil {
		return nil, nil, err
	}
	if m := p.Mapping; m != nil && l.cfg.Log != nil {
		l.logOnce(t.Name, fmt.Sprintf("%s: index %s: %s\n", t.Name, p.Index, m.Summary()))
	}
	if !p.Mapping.Matches() {
		return nil, nil, fmt.Errorf("%s", p.Mapping.Summary())
	}
	if !p.Intact() {
		return nil, nil, fmt.Errorf("the corpus on %s is not the fixtures' corpus: %s", t.Name, problems(p.Problems))
	}
	ident, _ := json.Marshal(p.Identity)
	probes := map[string]any{"corpus": p}
	if l.qc != nil {
		qp, err := load.ProbeQdrant(ctx, l.qc, l.cfg.Collection, l.f, load.ProbeOptions{SampleDocs: l.cfg.SampleDocs})
		if err != nil {
			return nil, nil, fmt.Errorf("qdrant %s: %w", l.cfg.Qdrant, err)
		}
		if !qp.Ready() || !qp.Intact() {
			return nil, nil, fmt.Errorf("qdrant collection %s is not ready with the corpus: status %s, %d points, %s",
				l.cfg.Collection, qp.Status, qp.Count, problems(qp.Problems))
		}
		probes["qdrant"] = qp
	}
	return ident, probes, nil
}

// MappingReady is the readiness of a target's mapping alone, for a command that needs no
// corpus proof (check): GET /{index}/_mapping compared with the fixtures' by field type. It
// writes the variant the index holds to w (when not nil) and returns an error naming the
// variant and the fields when they differ. A target that does not serve the mapping is ready
// as far as this goes (the line says it was not compared).
func MappingReady(ctx context.Context, t *target.Target, f *fixtures.Fixtures, w io.Writer) (*load.MappingCheck, error) {
	tp, err := t.Transport()
	if err != nil {
		return nil, err
	}
	index := t.IndexFor(f.Workload.Index)
	m, err := load.ProbeMapping(ctx, tp, index, f)
	if err != nil {
		return nil, err
	}
	if w != nil {
		fmt.Fprintf(w, "%s: index %s: %s\n", t.Name, index, m.Summary())
	}
	if !m.Matches() {
		return m, fmt.Errorf("%s is not ready: %s", t.Name, m.Summary())
	}
	return m, nil
}

// problems lists the first five problems of a probe, and how many more there are.
func problems(ps []load.Problem) string {
	if len(ps) == 0 {
		return "no problem recorded"
	}
	var out []string
	for i, p := range ps {
		if i == 5 {
			out = append(out, fmt.Sprintf("and %d more", len(ps)-5))
			break
		}
		out = append(out, fmt.Sprint(p))
	}
	return strings.Join(out, "; ")
}

// Environment is what the manifest records about the engines, by engine name: the user's
// declarations (image_id, limits), docker's own account of the lab's containers when docker
// answers ("docker:NAME"), or why it did not ("docker"), and the Qdrant backend's version.
func (l *Lab) Environment(ctx context.Context) map[string]map[string]string {
	env := map[string]map[string]string{}
	put := func(name, key, value string) {
		if env[name] == nil {
			env[name] = map[string]string{}
		}
		env[name][key] = value
	}
	for _, kv := range l.cfg.Images {
		name, v, _ := strings.Cut(kv, "=")
		put(name, "image_id", v)
	}
	for _, kv := range l.cfg.Limits {
		name, v, _ := strings.Cut(kv, "=")
		put(name, "limits", v)
	}
	containers := load.LabContainers
	if l.cfg.Containers != nil {
		containers = l.cfg.Containers
	}
	rep := load.DockerFacts(ctx, containers)
	if !rep.Available {
		put("docker", "available", "false")
		put("docker", "reason", rep.Reason)
	} else {
		put("docker", "server_version", rep.ServerVersion)
		for _, c := range rep.Containers {
			if c.Error != "" {
				put("docker:"+c.Name, "error", c.Error)
				continue
			}
			put("docker:"+c.Name, "image", c.Image)
			put("docker:"+c.Name, "image_id", c.ImageID)
			put("docker:"+c.Name, "cpus", fmt.Sprint(c.CPUs))
			put("docker:"+c.Name, "memory_bytes", fmt.Sprint(c.MemoryBytes))
		}
	}
	if l.qc != nil {
		put("qdrant", "version", l.server.Version)
		put("qdrant", "address", l.cfg.Qdrant)
	}
	return env
}

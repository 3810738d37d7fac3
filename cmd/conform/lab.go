package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"sort"
	"strings"

	"github.com/conform-dev/conform/conformance/target"
	"github.com/conform-dev/conform/fixtures"
	"github.com/conform-dev/conform/load"
	"github.com/qdrant/go-client/qdrant"
)

// labFlags describe the lab around the targets: a Qdrant backend to probe, and what the user
// declares about each engine (image ids, resource limits) for the manifest.
type labFlags struct {
	qdrant       string
	collection   string
	qdrantKeyEnv string
	qdrantTLS    bool
	sample       int
	images       listFlag
	limits       listFlag
	containers   string
}

func (l *labFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&l.qdrant, "qdrant", "", "probe a Qdrant backend's gRPC API at `HOST:PORT` before timing (health, version, collection status, exact count, sample fingerprint)")
	fs.StringVar(&l.collection, "collection", "", "the Qdrant collection `NAME` holding the corpus (with --qdrant)")
	fs.StringVar(&l.qdrantKeyEnv, "qdrant-api-key-env", "QDRANT_API_KEY", "environment `VAR` holding Qdrant's API key (used when set)")
	fs.BoolVar(&l.qdrantTLS, "qdrant-tls", false, "reach Qdrant over TLS")
	fs.IntVar(&l.sample, "sample", load.DefaultSampleDocs, "documents in the corpus fingerprint each target is checked against before timing")
	fs.Var(&l.images, "image", "record an engine's image id in the manifest, as `NAME=ID` (repeatable)")
	fs.Var(&l.limits, "limits", "record an engine's resource limits in the manifest, as `NAME=TEXT` (repeatable), e.g. es='2 CPUs, 4 GiB'")
	fs.StringVar(&l.containers, "containers", "", "comma-separated docker container `LIST` whose image ids and limits to record (default: the lab's, when docker answers)")
}

// lab is the opened lab: the probes run before timing and what the manifest records.
type lab struct {
	flags  *labFlags
	f      *fixtures.Fixtures
	qc     *qdrant.Client
	server load.QdrantServer
	e      *env
}

func (l *labFlags) open(ctx context.Context, e *env, ts []*target.Target, f *fixtures.Fixtures) (*lab, error) {
	lb := &lab{flags: l, f: f, e: e}
	for _, kv := range append(append([]string{}, l.images...), l.limits...) {
		if !strings.Contains(kv, "=") {
			return nil, usageErr("--image and --limits take NAME=VALUE, not %q", kv)
		}
	}
	if l.qdrant == "" {
		if l.collection != "" {
			return nil, usageErr("--collection needs --qdrant HOST:PORT")
		}
		return lb, nil
	}
	if l.collection == "" {
		return nil, usageErr("--qdrant needs --collection NAME")
	}
	qc, server, err := load.DialQdrant(ctx, load.QdrantConfig{Addr: l.qdrant, APIKey: e.getenv(l.qdrantKeyEnv), TLS: l.qdrantTLS})
	if err != nil {
		return nil, infra(fmt.Errorf("qdrant %s: %w", l.qdrant, err))
	}
	lb.qc, lb.server = qc, server
	return lb, nil
}

func (lb *lab) Close() error {
	if lb.qc != nil {
		return lb.qc.Close()
	}
	return nil
}

// ready proves a target holds the corpus before it is timed: its identity, an exact document
// count equal to the corpus size, and a fingerprint over a fixed sample of documents equal
// to the corpus's; with --qdrant, the backend's health, collection status (green), exact
// point count and the same fingerprint. Anything else is not ready.
func (lb *lab) ready(ctx context.Context, t *target.Target) (json.RawMessage, map[string]any, error) {
	tp, err := t.Transport()
	if err != nil {
		return nil, nil, err
	}
	p, err := load.ProbeES(ctx, tp, t.IndexFor(lb.f.Workload.Index), lb.f, load.ProbeOptions{SampleDocs: lb.flags.sample})
	if err != nil {
		return nil, nil, err
	}
	if !p.Intact() {
		return nil, nil, fmt.Errorf("the corpus on %s is not the fixtures' corpus: %s", t.Name, problems(p.Problems))
	}
	ident, _ := json.Marshal(p.Identity)
	probes := map[string]any{"corpus": p}
	if lb.qc != nil {
		qp, err := load.ProbeQdrant(ctx, lb.qc, lb.flags.collection, lb.f, load.ProbeOptions{SampleDocs: lb.flags.sample})
		if err != nil {
			return nil, nil, fmt.Errorf("qdrant %s: %w", lb.flags.qdrant, err)
		}
		if !qp.Ready() || !qp.Intact() {
			return nil, nil, fmt.Errorf("qdrant collection %s is not ready with the corpus: status %s, %d points, %s",
				lb.flags.collection, qp.Status, qp.Count, problems(qp.Problems))
		}
		probes["qdrant"] = qp
	}
	return ident, probes, nil
}

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

// environment is what the manifest records about the engines: the user's declarations, and
// docker's own account of the lab's containers when docker answers.
func (lb *lab) environment(ctx context.Context) map[string]map[string]string {
	env := map[string]map[string]string{}
	put := func(name, key, value string) {
		if env[name] == nil {
			env[name] = map[string]string{}
		}
		env[name][key] = value
	}
	for _, kv := range lb.flags.images {
		name, v, _ := strings.Cut(kv, "=")
		put(name, "image_id", v)
	}
	for _, kv := range lb.flags.limits {
		name, v, _ := strings.Cut(kv, "=")
		put(name, "limits", v)
	}
	containers := load.LabContainers
	if lb.flags.containers != "" {
		containers = strings.Split(lb.flags.containers, ",")
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
	if lb.qc != nil {
		put("qdrant", "version", lb.server.Version)
		put("qdrant", "address", lb.flags.qdrant)
	}
	return env
}

// sortedNames lists a map's keys in order.
func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

package lab

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/conform-dev/conform/conformance"
	"github.com/conform-dev/conform/conformance/readiness"
	"github.com/conform-dev/conform/conformance/target"
	"github.com/conform-dev/conform/fixtures"
	"github.com/conform-dev/conform/load"
	"github.com/elastic/elastic-transport-go/v8/elastictransport"
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
	// Log, when set, gets one line per target's readiness (the mapping variant its index
	// holds) and one per finding, each written once.
	Log io.Writer
	// RequireReady makes any finding refuse the target (a *readiness.Refused) rather than
	// let its cases run: for a lab that must not time a target holding the wrong variant.
	RequireReady bool
}

// Lab is an opened lab: the probes run before timing and what the manifest records.
type Lab struct {
	cfg    Config
	f      *fixtures.Fixtures
	qc     *qdrant.Client
	server load.QdrantServer

	mu     sync.Mutex
	logged map[string]string // by target, the last readiness line written to Config.Log

	multiOnce sync.Once
	multi     map[string]bool // the corpus's multi-valued fields, nil without a corpus
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

// Ready proves a target holds the corpus before it is checked or timed, and says what else it
// found. It stops the command (an error) only for what makes every result meaningless: the
// target cannot be reached or does not answer, the index is missing or cannot be counted, or
// its exact document count is not the corpus's; with a Qdrant backend, the same for its
// collection. Everything else it finds is a readiness.Finding, and the cases then run and
// classify what the target does wrong: GET / answering 200 with a body that is not
// Elasticsearch's; a mapping whose field types differ from the fixtures' in meaning, cannot be
// told from them (another engine's vocabulary) or cannot be read (load.MappingCheck names the
// variant and the fields); sampled documents that differ from the corpus; a Qdrant collection
// that is not green or whose sampled points differ. With Config.RequireReady any finding is a
// *readiness.Refused instead. It returns the target's identity, the probes (for the manifest)
// and the findings.
func (l *Lab) Ready(ctx context.Context, t *target.Target) (readiness.Result, error) {
	tp, err := t.Transport()
	if err != nil {
		return readiness.Result{}, err
	}
	if !l.f.HasCorpus() {
		// A workload alone: there is no corpus to count or fingerprint, so readiness is only
		// that the target answers, and says so.
		id, err := load.ProbeIdentity(ctx, tp)
		if err != nil {
			return readiness.Result{}, err
		}
		if l.cfg.Log != nil {
			l.logOnce(t.Name, fmt.Sprintf("%s: the fixtures have no corpus: readiness proves nothing about the data index %s holds, only that %s answers\n", t.Name, t.IndexFor(l.f.Workload.Index), t.Name))
		}
		ident, _ := json.Marshal(id)
		res := readiness.Result{Identity: ident, Probes: map[string]any{"corpus": "none in the fixtures: not proved"}}
		res.Index = l.indexFacts(ctx, tp, t, id.BuildFlavor, res.Probes)
		if s := id.NotElasticsearch; s != "" {
			res.Findings = []readiness.Finding{{Target: t.Name, Kind: readiness.KindIdentity, Summary: s}}
		}
		return l.conclude(t.Name, res)
	}
	p, err := load.ProbeES(ctx, tp, t.IndexFor(l.f.Workload.Index), l.f, load.ProbeOptions{SampleDocs: l.cfg.SampleDocs})
	if err != nil {
		return readiness.Result{}, err
	}
	if m := p.Mapping; m != nil && m.Matches() && m.NotServed == "" && l.cfg.Log != nil {
		// The variant the index holds; a mapping that differs is said as a finding below.
		l.logOnce(t.Name+"/mapping", fmt.Sprintf("%s: index %s: %s\n", t.Name, p.Index, m.Summary()))
	}
	if c := p.CountProblem(); c != nil {
		return readiness.Result{}, fmt.Errorf("the corpus on %s is not the fixtures' corpus: index %s holds %s documents, the corpus %s", t.Name, p.Index, c.Got, c.Want)
	}
	ident, _ := json.Marshal(p.Identity)
	res := readiness.Result{Identity: ident, Probes: map[string]any{"corpus": p}, Findings: esFindings(t.Name, p)}
	res.Index = l.indexFacts(ctx, tp, t, p.Identity.BuildFlavor, res.Probes)
	if l.qc != nil {
		qp, err := load.ProbeQdrant(ctx, l.qc, l.cfg.Collection, l.f, load.ProbeOptions{SampleDocs: l.cfg.SampleDocs})
		if err != nil {
			return readiness.Result{}, fmt.Errorf("qdrant %s: %w", l.cfg.Qdrant, err)
		}
		for _, q := range qp.Problems {
			if q.Kind == "count" {
				return readiness.Result{}, fmt.Errorf("qdrant collection %s does not hold the corpus: %d points, the corpus %s documents", l.cfg.Collection, qp.Count, q.Want)
			}
		}
		res.Probes["qdrant"] = qp
		res.Findings = append(res.Findings, qdrantFindings(t.Name, l.cfg.Collection, qp)...)
	}
	return l.conclude(t.Name, res)
}

// indexFacts learns what the check's relation rule at exactly track_total_hits needs of the
// target's index (conformance.IndexFacts): its deleted documents (load.ProbeDeletions,
// recorded in probes as "deletions"), and the fields holding several values, from the
// fixtures' corpus, which readiness has proved the index holds (unknown without a corpus).
// A count of deletions that is not zero, or not known, widens the rule, and the log says so:
// it is not a finding, since an index with deletions is served rightly. conform's embedded
// engine (build flavor conform-embedded) is not asked: it serves no _stats, keeps no
// segments and counts every query exactly, as Elasticsearch does an index loaded afresh.
func (l *Lab) indexFacts(ctx context.Context, tp elastictransport.Interface, t *target.Target, flavor string, probes map[string]any) conformance.IndexFacts {
	l.multiOnce.Do(func() {
		if l.f.Docs == nil {
			return
		}
		sources := make([][]byte, len(l.f.Docs))
		for i, d := range l.f.Docs {
			sources[i] = d.Source
		}
		l.multi = conformance.MultiValuedFields(sources)
		for _, t := range conformance.CopyToTargets(l.f.Mapping) {
			l.multi[t] = true
		}
	})
	if flavor == embeddedFlavor {
		probes["deletions"] = "none: conform's embedded engine counts exactly"
		return conformance.IndexFacts{Deletions: conformance.DeletionsNone, MultiValued: l.multi}
	}
	index := t.IndexFor(l.f.Workload.Index)
	d := load.ProbeDeletions(ctx, tp, index)
	probes["deletions"] = d
	facts := conformance.IndexFacts{MultiValued: l.multi}
	const widened = "a size-0 search matching exactly its track_total_hits may then answer hits.total.relation \"gte\" on Elasticsearch " +
		"for term, range and exists queries too (Lucene collects them to count them), and the check accepts it"
	switch {
	case !d.Known:
		if l.cfg.Log != nil {
			l.logOnce(t.Name+"/deletions", fmt.Sprintf("%s: the deleted documents of index %s are not known (%s): conform assumes some; %s\n", t.Name, index, d.Why, widened))
		}
	case d.Deleted > 0:
		facts.Deletions = conformance.DeletionsSome
		if l.cfg.Log != nil {
			l.logOnce(t.Name+"/deletions", fmt.Sprintf("%s: index %s holds %d deleted documents (%s), not yet merged away; %s\n", t.Name, index, d.Deleted, d.Via, widened))
		}
	default:
		facts.Deletions = conformance.DeletionsNone
	}
	return facts
}

// IndexFacts learns what the check needs of a target's index without the rest of readiness
// (conform explain checks one case): its deleted documents and, from the fixtures' corpus,
// the fields holding several values. What it cannot learn stays unknown, and the log says so.
func (l *Lab) IndexFacts(ctx context.Context, t *target.Target) (conformance.IndexFacts, error) {
	tp, err := t.Transport()
	if err != nil {
		return conformance.IndexFacts{}, err
	}
	id, _ := load.ProbeIdentity(ctx, tp)
	return l.indexFacts(ctx, tp, t, id.BuildFlavor, map[string]any{}), nil
}

// embeddedFlavor is the build flavor GET / of conform's embedded engine names
// (oracle/engine's rootInfo).
const embeddedFlavor = "conform-embedded"

// conclude writes a target's findings to Config.Log and, with Config.RequireReady, turns
// them into a refusal.
func (l *Lab) conclude(name string, res readiness.Result) (readiness.Result, error) {
	if l.cfg.Log != nil {
		for _, f := range res.Findings {
			l.logOnce(name+"/"+f.Kind+"/"+f.Summary, fmt.Sprintf("%s: FINDING %s\n", name, f))
		}
	}
	if len(res.Findings) > 0 && l.cfg.RequireReady {
		return readiness.Result{}, &readiness.Refused{Target: name, Findings: res.Findings}
	}
	return res, nil
}

// esFindings turns an Elasticsearch-compatible probe into findings: GET / that is not
// Elasticsearch's, a mapping that differs, cannot be told or cannot be read, and sampled
// documents that differ.
func esFindings(name string, p *load.Probe) []readiness.Finding {
	var out []readiness.Finding
	if s := p.Identity.NotElasticsearch; s != "" {
		out = append(out, readiness.Finding{Target: name, Kind: readiness.KindIdentity, Summary: s})
	}
	if m := p.Mapping; m != nil {
		switch {
		case m.NotServed != "":
			out = append(out, readiness.Finding{Target: name, Kind: readiness.KindMapping,
				Summary: "the mapping of index " + p.Index + " could not be read, so its field types were not compared with the fixtures' (" + m.NotServed + ")"})
		case !m.Matches():
			out = append(out, readiness.Finding{Target: name, Kind: readiness.KindMapping, Summary: m.Summary(), Details: m.FieldLines()})
		}
	}
	if ps := p.SampleProblems(); len(ps) > 0 {
		out = append(out, readiness.Finding{Target: name, Kind: readiness.KindSample,
			Summary: fmt.Sprintf("%d of the %d sampled documents (GET /%s/_doc/{id}) differ from the corpus; the first: %s", len(ps), p.Sample.Docs, p.Index, ps[0]),
			Details: problemLines(ps)})
	}
	return out
}

// qdrantFindings turns a Qdrant backend's probe into findings: a collection that is not
// green (an optimisation running or pending: latencies measured meanwhile include it), and
// sampled points or payload indexes that differ from the corpus.
func qdrantFindings(name, collection string, qp *load.QdrantProbe) []readiness.Finding {
	var out []readiness.Finding
	if !qp.Ready() {
		out = append(out, readiness.Finding{Target: name, Kind: readiness.KindQdrant,
			Summary: fmt.Sprintf("qdrant collection %s is %s, not green: an optimisation is running or pending", collection, qp.Status)})
	}
	if len(qp.Problems) > 0 {
		out = append(out, readiness.Finding{Target: name, Kind: readiness.KindQdrant,
			Summary: fmt.Sprintf("qdrant collection %s differs from the corpus (%s); the first: %s", collection, readiness.Plural(len(qp.Problems), "problem"), qp.Problems[0]),
			Details: problemLines(qp.Problems)})
	}
	return out
}

// problemLines is a line per problem, the first 20 and how many more.
func problemLines(ps []load.Problem) []string {
	var out []string
	for i, p := range ps {
		if i == 20 {
			out = append(out, fmt.Sprintf("and %d more", len(ps)-20))
			break
		}
		out = append(out, p.String())
	}
	return out
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

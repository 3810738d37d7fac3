package load

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/elastic/elastic-transport-go/v8/elastictransport"

	"github.com/conform-dev/conform/fixtures"
)

// ProbeOptions configure the probes.
type ProbeOptions struct {
	// SampleDocs is the fingerprint's sample size; 0 means DefaultSampleDocs. Only
	// fingerprints with the same sample size compare.
	SampleDocs int
}

// Identity is what an Elasticsearch-compatible engine says about itself at GET /.
type Identity struct {
	Name          string `json:"name,omitempty"`
	ClusterName   string `json:"cluster_name,omitempty"`
	ClusterUUID   string `json:"cluster_uuid,omitempty"`
	Version       string `json:"version,omitempty"` // version.number
	Distribution  string `json:"distribution,omitempty"`
	BuildFlavor   string `json:"build_flavor,omitempty"`
	BuildHash     string `json:"build_hash,omitempty"`
	LuceneVersion string `json:"lucene_version,omitempty"`
	// Product is the X-Elastic-Product response header, if any.
	Product string `json:"product,omitempty"`
	// Via says where the identity came from when GET / did not give it.
	Via string `json:"via,omitempty"`
	// Error says why GET / gave no identity (a gateway need not serve it); the probe goes on.
	Error string `json:"error,omitempty"`
	// NotElasticsearch says that GET / answered 200 with a body that is not Elasticsearch's
	// (not a JSON object with version.number: a proxy's HTML page, a UI's redirect target),
	// quoting one line of it. Readiness names it as a finding; the probe goes on.
	NotElasticsearch string `json:"not_elasticsearch,omitempty"`
}

// Probe is the state of one Elasticsearch-compatible engine's copy of the corpus, for the
// manifest: who answered, how many documents the index holds, and a fingerprint of a fixed
// sample of them next to the corpus's own.
type Probe struct {
	Index    string    `json:"index"`
	At       time.Time `json:"at"`
	Identity Identity  `json:"identity"`
	Count    int64     `json:"count"`
	// Sample is the fingerprint of what the engine returned; Expected that of the corpus.
	Sample   Fingerprint `json:"sample"`
	Expected Fingerprint `json:"expected"`
	// Problems is empty when the corpus is intact.
	Problems []Problem `json:"problems,omitempty"`
	// Mapping compares the index's field types with the fixtures' and names the variant the
	// index holds; nil when it was not asked.
	Mapping *MappingCheck `json:"mapping,omitempty"`
}

// Intact reports whether the count, the index's field types (a "mapping" Problem per field
// that differs or cannot be told: another variant holds the same documents but sorts and
// aggregates them otherwise) and every sampled document match the fixtures.
func (p *Probe) Intact() bool { return len(p.Problems) == 0 && p.Sample.SHA256 == p.Expected.SHA256 }

// CountProblem is the problem that the index does not hold the corpus's number of documents,
// or nil. It is the one problem that makes every check of the target meaningless.
func (p *Probe) CountProblem() *Problem {
	for i := range p.Problems {
		if p.Problems[i].Kind == "count" {
			return &p.Problems[i]
		}
	}
	return nil
}

// SampleProblems are the problems of the sampled documents: missing, unreadable, differing
// or answered with another status.
func (p *Probe) SampleProblems() []Problem {
	var out []Problem
	for _, q := range p.Problems {
		if q.Kind != "count" && q.Kind != "mapping" {
			out = append(out, q)
		}
	}
	return out
}

// ProbeES reads identity, the index's _count, its mapping (GET /{index}/_mapping, compared
// with the fixtures' by field type) and each sampled document (GET /{index}/_doc/{id}, _source
// compared with the corpus as JSON values). It writes nothing.
// An error means the engine could not be asked; a damaged corpus is Problems in the Probe.
func ProbeES(ctx context.Context, tp elastictransport.Interface, index string, f *fixtures.Fixtures, o ProbeOptions) (*Probe, error) {
	c := esClient{tp}
	p := &Probe{Index: index, At: time.Now().UTC()}
	var err error
	if p.Identity, err = c.identity(ctx); err != nil {
		return nil, err
	}
	if p.Count, err = c.count(ctx, index); err != nil {
		return nil, err
	}
	if p.Mapping, err = c.mapping(ctx, index, f); err != nil {
		return nil, err
	}
	for _, d := range append(append([]FieldDiff(nil), p.Mapping.Differences...), p.Mapping.Unsure...) {
		p.Problems = append(p.Problems, Problem{Kind: "mapping", Key: d.Field, Want: d.Want, Got: d.Got})
	}
	if p.Expected, err = ExpectedFingerprint(f, o.SampleDocs); err != nil {
		return nil, err
	}
	if want := int64(len(f.Docs)); p.Count != want {
		p.Problems = append(p.Problems, Problem{Kind: "count", Want: strconv.FormatInt(want, 10), Got: strconv.FormatInt(p.Count, 10)})
	}
	docs, every := Sample(f, o.SampleDocs)
	fp := newFingerprinter(p.Count, every)
	for _, d := range docs {
		got, problem, err := c.source(ctx, index, d.ID, d.Routing)
		if err != nil {
			return nil, err
		}
		if problem != nil {
			p.Problems = append(p.Problems, *problem)
			fp.add(d.ID, nil)
			continue
		}
		gotC, err := Canonical(got)
		if err != nil {
			p.Problems = append(p.Problems, Problem{Kind: "source", ID: d.ID, Want: "a JSON _source", Got: snippet(got)})
			fp.add(d.ID, nil)
			continue
		}
		wantC, err := Canonical(d.Source)
		if err != nil {
			return nil, fmt.Errorf("corpus document %q: %w", d.ID, err)
		}
		if !bytes.Equal(gotC, wantC) {
			ws, gs := diffSnippets(d.Source, got)
			p.Problems = append(p.Problems, Problem{Kind: "source", ID: d.ID, Want: ws, Got: gs})
		}
		fp.add(d.ID, gotC)
	}
	p.Sample = fp.result()
	return p, nil
}

// identity reads GET /. A non-200 answer is recorded, not fatal: gateways need not serve it.
func (c esClient) identity(ctx context.Context) (Identity, error) {
	r, err := c.do(ctx, http.MethodGet, nil, nil, nil, "")
	if err != nil {
		return Identity{}, err
	}
	id := Identity{Product: r.Header.Get("X-Elastic-Product")}
	if r.Status != http.StatusOK {
		id.Error = httpErr("GET /", r).Error()
		// Elasticsearch's integration-test distribution has no rest-root module, so no GET /;
		// the local node's info gives the version and flavor instead.
		if n, err := c.do(ctx, http.MethodGet, []string{"_nodes", "_local"}, url.Values{"filter_path": {"nodes.*.name,nodes.*.version,nodes.*.build_flavor,nodes.*.build_hash,nodes.*.distribution"}}, nil, ""); err == nil && n.Status == http.StatusOK {
			var nodes struct {
				Nodes map[string]struct {
					Name         string `json:"name"`
					Version      string `json:"version"`
					BuildFlavor  string `json:"build_flavor"`
					BuildHash    string `json:"build_hash"`
					Distribution string `json:"distribution"`
				} `json:"nodes"`
			}
			if json.Unmarshal(n.Body, &nodes) == nil {
				for _, nd := range nodes.Nodes {
					id.Name, id.Version, id.BuildFlavor, id.BuildHash, id.Distribution = nd.Name, nd.Version, nd.BuildFlavor, nd.BuildHash, nd.Distribution
					if id.Distribution == "" && id.Product == "Elasticsearch" {
						id.Distribution = "elasticsearch"
					}
					id.Via = "GET /_nodes/_local (" + id.Error + ")"
					id.Error = ""
					break
				}
			}
		}
		return id, nil
	}
	var body struct {
		Name        string `json:"name"`
		ClusterName string `json:"cluster_name"`
		ClusterUUID string `json:"cluster_uuid"`
		Version     struct {
			Number        string `json:"number"`
			Distribution  string `json:"distribution"`
			BuildFlavor   string `json:"build_flavor"`
			BuildHash     string `json:"build_hash"`
			LuceneVersion string `json:"lucene_version"`
		} `json:"version"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil || body.Version.Number == "" {
		id.NotElasticsearch = "GET / answered 200 with a body that is not Elasticsearch's (no JSON object with version.number): " + snippet(r.Body)
		return id, nil
	}
	id.Name, id.ClusterName, id.ClusterUUID = body.Name, body.ClusterName, body.ClusterUUID
	id.Version, id.BuildFlavor, id.BuildHash = body.Version.Number, body.Version.BuildFlavor, body.Version.BuildHash
	id.LuceneVersion = body.Version.LuceneVersion
	// OpenSearch says "distribution":"opensearch"; Elasticsearch says nothing there but sends
	// its product header.
	id.Distribution = body.Version.Distribution
	if id.Distribution == "" && id.Product == "Elasticsearch" {
		id.Distribution = "elasticsearch"
	}
	return id, nil
}

// source fetches one document's _source, with its routing if it has one (on several shards a
// routed document is found only by its routing, and an index whose mapping requires routing
// answers routing_missing_exception without it). A missing document or an unexpected status
// is a Problem; only a failure to ask is an error.
func (c esClient) source(ctx context.Context, index, id, routing string) ([]byte, *Problem, error) {
	var q url.Values
	if routing != "" {
		q = url.Values{"routing": {routing}}
	}
	r, err := c.do(ctx, http.MethodGet, []string{index, "_doc", id}, q, nil, "")
	if err != nil {
		return nil, nil, err
	}
	switch r.Status {
	case http.StatusOK:
	case http.StatusNotFound:
		return nil, &Problem{Kind: "missing", ID: id, Want: "found", Got: "404"}, nil
	default:
		return nil, &Problem{Kind: "status", ID: id, Want: "200", Got: strconv.Itoa(r.Status) + " " + snippet(r.Body)}, nil
	}
	var body struct {
		Found  bool            `json:"found"`
		Source json.RawMessage `json:"_source"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		return nil, &Problem{Kind: "source", ID: id, Want: "a document", Got: snippet(r.Body)}, nil
	}
	if !body.Found {
		return nil, &Problem{Kind: "missing", ID: id, Want: "found", Got: "found:false"}, nil
	}
	if body.Source == nil {
		return nil, &Problem{Kind: "source", ID: id, Want: "_source", Got: "no _source"}, nil
	}
	return body.Source, nil, nil
}

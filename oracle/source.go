package oracle

import (
	"context"
	"fmt"
	"strings"

	"github.com/conform-dev/conform/fixtures"
	"github.com/conform-dev/conform/oracle/engine"
)

// Source computes or loads expectations for fixtures under settings.
type Source interface {
	// Name identifies the source in reports and manifests, credentials redacted.
	Name() string
	Expect(ctx context.Context, f *fixtures.Fixtures, s Settings) (*Expectations, error)
}

// ParseSource reads an --oracle value: "embedded" (also the empty string), "live:URL" or
// "golden:FILE".
func ParseSource(spec string) (Source, error) {
	kind, arg, hasArg := strings.Cut(spec, ":")
	switch kind {
	case "", "embedded":
		if hasArg {
			return nil, fmt.Errorf("oracle %q: embedded takes no argument", spec)
		}
		return Embedded{}, nil
	case "live":
		if arg == "" {
			return nil, fmt.Errorf("oracle live: needs a URL, as in live:http://localhost:9200")
		}
		ep, err := NewHTTPEndpoint(arg)
		if err != nil {
			return nil, fmt.Errorf("oracle live: %w", err)
		}
		return &Live{Endpoint: ep}, nil
	case "golden":
		if arg == "" {
			return nil, fmt.Errorf("oracle golden: needs a file, as in golden:es-8.15.0.golden.json")
		}
		return &Golden{Path: arg}, nil
	}
	shown := spec
	if strings.Contains(spec, "@") {
		shown = RedactURL(spec)
	}
	return nil, fmt.Errorf("unknown oracle %q: want embedded, live:URL or golden:FILE", shown)
}

// Embedded is the default oracle: a fresh in-process engine loaded with the fixtures.
type Embedded struct{}

// Name is "embedded".
func (Embedded) Name() string { return "embedded" }

// Expect loads the corpus into a new engine under the settings' index and computes every
// case's answer through the engine's Do.
func (Embedded) Expect(ctx context.Context, f *fixtures.Fixtures, s Settings) (*Expectations, error) {
	s = s.withDefaults(f.Workload)
	if !f.HasCorpus() {
		return nil, fmt.Errorf("the fixtures have no corpus (mapping.json and corpus.ndjson), so the embedded engine has nothing to answer from: check a workload alone with --oracle live:URL (an Elasticsearch holding the index) or --oracle golden:FILE, or copy a snapshot's files in beside it (conform snapshot)")
	}
	e := engine.New()
	if err := e.Load(s.Index, f.Mapping, f.Docs); err != nil {
		hint := ""
		if strings.Contains(err.Error(), "unsupported by conform's embedded engine") {
			hint = " (the embedded engine declines this index: check it with --oracle live:URL, an Elasticsearch holding it, or --oracle golden:FILE)"
		}
		return nil, fmt.Errorf("embedded engine: loading %d documents into %s: %w%s", len(f.Docs), s.Index, err, hint)
	}
	x, err := Compute(ctx, f.Workload, s, EngineDoer(e))
	if err != nil {
		return nil, fmt.Errorf("embedded engine: %w", err)
	}
	x.Source = Embedded{}.Name()
	if status, body := e.Do("GET", "/", nil); status == 200 {
		if id, err := parseIdentity(body); err == nil {
			x.Engine = id
		}
	}
	return x, nil
}

// EngineDoer adapts the embedded engine to a Doer.
func EngineDoer(e *engine.Engine) Doer {
	return func(ctx context.Context, r fixtures.Request) (int, []byte, error) {
		status, body := e.Do(r.Method, r.Path, r.Body)
		return status, body, nil
	}
}

package load

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/elastic/elastic-transport-go/v8/elastictransport"

	"github.com/conform-dev/conform/fixtures"
)

// Engine is an Elasticsearch-compatible engine for Run: its name in reports and progress
// lines, its URL as printed (without credentials) and the transport that reaches it.
type Engine struct {
	Name      string
	URL       string
	Transport elastictransport.Interface
	// Scrub, when set, cleans the engine's secrets out of a failed load's error before Run
	// returns it.
	Scrub func(error) error
}

// Plan is what `conform load` does: load every engine in turn, then the Qdrant backend, or
// with Probe only probe them.
type Plan struct {
	Engines []Engine
	// Qdrant, when set, is the Qdrant backend to dial after the engines.
	Qdrant *QdrantConfig
	// Index is the engines' index and Collection Qdrant's (default: the workload's index).
	Index, Collection string
	// Recreate replaces an index or collection that holds documents; IndexInAction names
	// _index in every bulk action line (ESOptions).
	Recreate, IndexInAction bool
	// Probe writes nothing: each engine is probed, not loaded.
	Probe bool
	// Log receives each load's progress, each line prefixed with the engine's name, and a
	// line saying why a load left an engine without the corpus.
	Log io.Writer
	// Text, when set, receives each engine's result as text (TargetResult.WriteText) as soon
	// as the engine is done.
	Text io.Writer
}

// Run carries out p and returns what `conform load` reports. An engine whose copy is not
// intact is named in the Summary's NotIntact, not an error: a probe reports it in its result
// alone, a load also says why on Log. The error, naming the engine ("es: ..."), is anything
// else that stops the plan: a refusal to overwrite (a NotEmptyError), a document the engine
// refused, an engine that does not answer. The engines done by then are in the Summary and
// were written to Text.
func Run(ctx context.Context, f *fixtures.Fixtures, p Plan) (*Summary, error) {
	if p.Log == nil {
		p.Log = io.Discard
	}
	out := &Summary{Corpus: f.Meta.SHA256.Corpus, Mapping: f.Meta.SHA256.Mapping, Documents: len(f.Docs)}
	for _, e := range p.Engines {
		res, intact, err := p.engine(ctx, f, e)
		if err != nil {
			return out, fmt.Errorf("%s: %w", e.Name, err)
		}
		if !intact {
			out.NotIntact = append(out.NotIntact, e.Name)
		}
		out.Targets = append(out.Targets, res)
		if p.Text != nil {
			res.WriteText(p.Text)
		}
	}
	if p.Qdrant != nil {
		res, intact, err := p.qdrant(ctx, f)
		if err != nil {
			return out, fmt.Errorf("qdrant: %w", err)
		}
		if !intact {
			out.NotIntact = append(out.NotIntact, "qdrant")
		}
		out.Qdrant = res
		if p.Text != nil {
			res.WriteText(p.Text)
		}
	}
	return out, nil
}

func (p Plan) engine(ctx context.Context, f *fixtures.Fixtures, e Engine) (TargetResult, bool, error) {
	res := TargetResult{Name: e.Name, URL: e.URL}
	if p.Probe {
		index := p.Index
		if index == "" {
			index = f.Workload.Index
		}
		probe, err := ProbeES(ctx, e.Transport, index, f, ProbeOptions{})
		if err != nil {
			return res, false, err
		}
		res.Probe = probe
		return res, probe.Intact(), nil
	}
	log := PrefixLines(p.Log, e.Name+": ")
	rep, err := LoadES(ctx, e.Transport, f, ESOptions{Index: p.Index, Recreate: p.Recreate, IndexInAction: p.IndexInAction, Log: log})
	intact, err := p.verified(e.Name, err)
	if err != nil {
		if e.Scrub != nil {
			err = e.Scrub(err)
		}
		return res, false, err
	}
	res.Load = rep
	if rep != nil {
		res.Probe = rep.Probe
	}
	return res, intact, nil
}

func (p Plan) qdrant(ctx context.Context, f *fixtures.Fixtures) (*QdrantResult, bool, error) {
	c, srv, err := DialQdrant(ctx, *p.Qdrant)
	if err != nil {
		return nil, false, err
	}
	defer c.Close()
	res := &QdrantResult{Addr: p.Qdrant.Addr, Server: srv}
	name := p.Collection
	if name == "" {
		name = f.Workload.Index
	}
	if p.Probe {
		if res.Probe, err = ProbeQdrant(ctx, c, name, f, ProbeOptions{}); err != nil {
			return nil, false, err
		}
		return res, res.Probe.Intact(), nil
	}
	res.Load, err = LoadQdrant(ctx, c, f, QdrantOptions{Collection: name, Recreate: p.Recreate, Log: PrefixLines(p.Log, "qdrant: ")})
	intact, err := p.verified("qdrant", err)
	if err != nil {
		return nil, false, err
	}
	if res.Load != nil {
		res.Probe = res.Load.Probe
	}
	return res, intact, nil
}

// verified reads a load's error: a VerifyError is a copy that is not intact, said on Log,
// and not an error of the plan.
func (p Plan) verified(name string, err error) (intact bool, _ error) {
	var ve *VerifyError
	if errors.As(err, &ve) {
		fmt.Fprintf(p.Log, "%s: %v\n", name, err)
		return false, nil
	}
	return err == nil, err
}

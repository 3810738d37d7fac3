package fuzz

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/conform-dev/conform/fixtures"
)

// Workload turns each group's minimal request into a case named as the group is, by what it
// exercises ("fuzz/terms-agg-brand-size0"), with the operation its report row counts it
// under: the regression cases a fuzzing run leaves. A group of several fields gives a case
// per field set, each its own reproducer under its own name. A group without a name (not
// from Run) is named op/NNN. A search that leaves track_total_hits to its default gets the default's
// value (10000) written out, because a workload's searches otherwise get the run's setting
// (true).
func Workload(index string, groups []*Group) (*fixtures.Workload, error) {
	w := &fixtures.Workload{Format: fixtures.WorkloadFormat, Index: index}
	count := map[string]int{}
	type saved struct {
		name  string
		repro *Disagreement
	}
	var all []saved
	for _, g := range groups {
		if len(g.Fields) == 0 {
			all = append(all, saved{g.Name, g.Repro})
		}
		for _, f := range g.Fields {
			all = append(all, saved{f.Name, f.Repro})
		}
	}
	for _, g := range all {
		c := g.repro.Minimal
		op := c.Op()
		name := g.name
		if name == "" {
			name = fmt.Sprintf("%s/%03d", op, count[op])
			count[op]++
		}
		kc := fixtures.Case{Name: name, Op: op, Method: c.Method, Path: c.Path}
		if c.Body != nil {
			b := clone(c.Body)
			if o, ok := b.(*Object); ok && kc.IsSearch() {
				if _, set := o.Get("track_total_hits"); !set {
					o.Set("track_total_hits", num(10000))
				}
			}
			kc.Body = json.RawMessage(Marshal(b))
		} else if op != fixtures.OpGet {
			kc.Body = json.RawMessage("{}")
		}
		w.Cases = append(w.Cases, kc)
	}
	return w, nil
}

// Reproducers counts the cases Save writes for groups: one per group, one per field set of a
// group of several.
func Reproducers(groups []*Group) int {
	n := 0
	for _, g := range groups {
		n += max(1, len(g.Fields))
	}
	return n
}

// Save writes a complete fixtures directory into dir: the run's mapping and corpus, the
// minimal disagreements as workload.json, and fixtures.json with the counts and hashes, so
// "conform check --fixtures DIR" runs them like any workload. An empty list of groups writes
// nothing and returns nil.
func Save(dir string, f *fixtures.Fixtures, groups []*Group) error {
	if len(groups) == 0 {
		return nil
	}
	w, err := Workload(f.Workload.Index, groups)
	if err != nil {
		return err
	}
	wb, err := w.Marshal()
	if err != nil {
		return err
	}
	// The written workload must read back: a case the fixtures reader refuses is a bug here.
	if _, err := fixtures.ParseWorkload(fixtures.WorkloadFile, wb); err != nil {
		return fmt.Errorf("the saved workload does not read back: %w", err)
	}
	out := &fixtures.Fixtures{Mapping: f.Mapping, Corpus: f.Corpus, Docs: f.Docs, Workload: w, WorkloadBytes: wb}
	out.Meta = fixtures.Meta{Format: fixtures.MetaFormat, Index: w.Index, Documents: len(f.Docs), Cases: w.CountByOp(),
		SHA256: fixtures.Hashes{Mapping: fixtures.SHA256(f.Mapping), Corpus: fixtures.SHA256(f.Corpus), Workload: fixtures.SHA256(wb)}}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := out.Write(dir); err != nil {
		return fmt.Errorf("writing %s: %w", filepath.Join(dir, fixtures.WorkloadFile), err)
	}
	return nil
}

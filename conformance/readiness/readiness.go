// Package readiness holds what a pre-flight probe of a target concludes, for every command
// that checks a target (check, run, experiment, fuzz and conformtest) and for the reports.
//
// A probe may stop a command only when every result would be meaningless: the target cannot
// be reached or never answers, or it plainly does not hold the corpus (no index, a document
// count that is not the corpus's); that is an error from the probe. Anything else a probe finds
// (sampled documents that differ, a mapping that differs or cannot be read, a GET / that is
// not Elasticsearch's) is a Finding: the cases still run and classify what the target does
// wrong, since a probe cannot tell data that is not there from data served wrongly and the
// cases can. A finding fails the command (exit 1) as a failing case does. Refused turns
// findings back into a refusal for a user who asks for it (--require-ready). The package
// probes nothing itself: conformance/lab does, through load's probes.
package readiness

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/conform-dev/conform/conformance"
)

// Kinds of finding.
const (
	// KindIdentity: GET / answered 200 with a body that is not Elasticsearch's.
	KindIdentity = "identity"
	// KindMapping: the index's mapping differs from the fixtures' in meaning, cannot be
	// told from it (another vocabulary), or could not be read.
	KindMapping = "mapping"
	// KindCount: the document count could not be read (neither _count nor a size-0 search
	// answered with one). A count that was read and differs is not a finding: it stops.
	KindCount = "count"
	// KindSample: sampled documents read with GET /{index}/_doc/{id} differ from the corpus.
	KindSample = "sample"
	// KindQdrant: the Qdrant backend's collection is not green or its sampled points
	// differ from the corpus.
	KindQdrant = "qdrant"
)

// Finding is one thing a readiness probe found wrong with a target that does not make every
// result meaningless. Summary is one line; Details are one line each (fields, documents).
type Finding struct {
	Target  string   `json:"target"`
	Kind    string   `json:"kind"`
	Summary string   `json:"summary"`
	Details []string `json:"details,omitempty"`
}

// String is the finding in one line: its kind, then its summary (alone when it starts with
// the kind: "mapping differs from the fixtures' ...").
func (f Finding) String() string {
	if strings.HasPrefix(f.Summary, f.Kind+" ") {
		return f.Summary
	}
	return f.Kind + ": " + f.Summary
}

// Result is what a readiness probe hands on for a target that may be checked: the identity
// it answered (GET / or its stand-in), the probes' records for the manifest, its findings,
// and what it learnt of the index for the check (conformance.Options.Index: deleted
// documents, fields holding several values). Facts it could not learn stay unknown, and the
// check then allows what they could allow; that is said, not a finding.
type Result struct {
	Identity json.RawMessage
	Probes   map[string]any
	Findings []Finding
	Index    conformance.IndexFacts
}

// Refused is the error of a target with findings when the user asked that findings refuse
// it (--require-ready): a lab that must not time a target holding the wrong variant.
type Refused struct {
	Target   string
	Findings []Finding
}

func (e *Refused) Error() string {
	parts := make([]string, len(e.Findings))
	for i, f := range e.Findings {
		parts[i] = f.String()
	}
	return fmt.Sprintf("%s refused at readiness (--require-ready): %s", Plural(len(e.Findings), "finding"), strings.Join(parts, "; "))
}

// Plural is "1 finding" or "n findings".
func Plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// Unique drops findings repeated (same target, kind and summary), keeping the first: an
// experiment asks every round and a target keeps its findings.
func Unique(fs []Finding) []Finding {
	seen := map[[3]string]bool{}
	var out []Finding
	for _, f := range fs {
		k := [3]string{f.Target, f.Kind, f.Summary}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, f)
	}
	return out
}

// For lists the findings of one target.
func For(fs []Finding, target string) []Finding {
	var out []Finding
	for _, f := range fs {
		if f.Target == target {
			out = append(out, f)
		}
	}
	return out
}

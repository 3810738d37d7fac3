package load

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"time"
)

// Summary is what `conform load` reports, as JSON with --json: the corpus and mapping
// loaded, and each engine's load report or probe.
type Summary struct {
	Corpus    string         `json:"corpus_sha256"`
	Mapping   string         `json:"mapping_sha256"`
	Documents int            `json:"documents"`
	Targets   []TargetResult `json:"targets,omitempty"`
	Qdrant    *QdrantResult  `json:"qdrant,omitempty"`
	// NotIntact names the engines ("qdrant" for the backend) that do not hold the corpus
	// intact, in the order Run reached them. It is the exit status's reason, not part of the
	// JSON: each result's probe says it there.
	NotIntact []string `json:"-"`
}

// TargetResult is one Elasticsearch-compatible engine's load report (nil for a probe alone)
// and probe.
type TargetResult struct {
	Name  string    `json:"name"`
	URL   string    `json:"url"` // without credentials
	Load  *ESReport `json:"load,omitempty"`
	Probe *Probe    `json:"probe,omitempty"`
}

// QdrantResult is the Qdrant backend's load report (nil for a probe alone) and probe.
type QdrantResult struct {
	Addr   string        `json:"addr"`
	Server QdrantServer  `json:"server"`
	Load   *QdrantReport `json:"load,omitempty"`
	Probe  *QdrantProbe  `json:"probe,omitempty"`
}

// WriteText writes the result as `conform load` prints it: a line for the load (with its first
// five warnings), one for the probe, one for the mapping and, when bulk replies rejected
// documents, one saying how many the engine holds and why the rest are not there.
func (r TargetResult) WriteText(w io.Writer) {
	if r.Load != nil {
		l := r.Load
		verb := "loaded"
		if l.Replaced != "" {
			verb = "replaced the " + map[string]string{"empty": "empty", "recreated": "existing"}[l.Replaced] + " index and loaded"
		}
		var notes string
		if l.IndexInAction {
			notes += ", action lines name _index"
		}
		if l.CountWaited > 0 {
			notes += fmt.Sprintf(", waited %s for the count", l.CountWaited.Round(time.Millisecond))
		}
		if l.Rejected > 0 {
			verb = strings.Replace(verb, "loaded", "sent", 1)
			notes += fmt.Sprintf(", %s rejected", thousands(l.Rejected))
		}
		fmt.Fprintf(w, "%s  %s  index %s: %s %d documents in %d batches (%d retries%s), %s\n",
			r.Name, r.URL, l.Index, verb, l.Documents, l.Batches, l.Retries, notes, l.Took.Round(time.Millisecond))
		// Every batch of an engine may be odd alike: the first few say what, --json has all.
		const shown = 5
		for i, warn := range l.Warnings {
			if i == shown {
				fmt.Fprintf(w, "%s  warning: and %d more (--json lists them all)\n", r.Name, len(l.Warnings)-shown)
				break
			}
			fmt.Fprintf(w, "%s  warning: %s\n", r.Name, warn)
		}
	}
	if p := r.Probe; p != nil {
		id := p.Identity
		who := strings.TrimSpace(id.Distribution + " " + id.Version)
		if who == "" {
			who = "unidentified (" + id.Error + ")"
		}
		fmt.Fprintf(w, "%s  %s  %s, index %s: count %d, %s\n", r.Name, r.URL, who, p.Index, p.Count, sampleLine(p.Sample, p.Intact(), p.Problems))
		if p.Mapping != nil {
			fmt.Fprintf(w, "%s  %s\n", r.Name, p.Mapping.Summary())
		}
		if line := r.Load.RejectedLine(); line != "" {
			fmt.Fprintf(w, "%s  %s\n", r.Name, line)
		}
	}
}

// WriteText writes the result as `conform load` prints it: a line for the load (with its
// warnings) and one for the probe.
func (r *QdrantResult) WriteText(w io.Writer) {
	if l := r.Load; l != nil {
		verb := "loaded"
		if l.Replaced != "" {
			verb = "replaced the " + map[string]string{"empty": "empty", "recreated": "existing"}[l.Replaced] + " collection and loaded"
		}
		fmt.Fprintf(w, "qdrant  %s  collection %s: %s %d points in %d batches of %d, %d payload indexes, %s\n",
			r.Addr, l.Collection, verb, l.Points, l.Batches, l.BatchPoints, len(l.Indexes), l.Took.Round(time.Millisecond))
		for _, warn := range l.Warnings {
			fmt.Fprintf(w, "qdrant  warning: %s\n", warn)
		}
	}
	if p := r.Probe; p != nil {
		fmt.Fprintf(w, "qdrant  %s  qdrant %s, collection %s %s: count %d, %s\n", r.Addr, r.Server.Version, p.Collection, p.Status, p.Count, sampleLine(p.Sample, p.Intact(), p.Problems))
		if p.Drift != nil && p.Drift.Values > 0 {
			fmt.Fprintf(w, "qdrant  %s\n", p.Drift.Summary())
		}
	}
}

// sampleLine describes a probe's fingerprint and whether the copy is intact, with its first
// three problems when it is not.
func sampleLine(s Fingerprint, intact bool, problems []Problem) string {
	line := fmt.Sprintf("sample sha256 %s (%d documents, every %d)", s.SHA256, s.Docs, s.Every)
	if intact {
		return line + ": intact"
	}
	var ps []string
	for i, p := range problems {
		if i == 3 {
			ps = append(ps, fmt.Sprintf("and %d more", len(problems)-3))
			break
		}
		ps = append(ps, p.String())
	}
	return line + ": NOT INTACT: " + strings.Join(ps, "; ")
}

// PrefixLines returns a writer that writes each line to w with prefix before it, so progress
// from several engines stays apart. A line is written once its newline arrives.
func PrefixLines(w io.Writer, prefix string) io.Writer { return &linePrefixer{w: w, prefix: prefix} }

type linePrefixer struct {
	w      io.Writer
	prefix string
	buf    bytes.Buffer
}

func (p *linePrefixer) Write(b []byte) (int, error) {
	p.buf.Write(b)
	for {
		line, err := p.buf.ReadBytes('\n')
		if err != nil {
			p.buf.Write(line) // an unfinished line waits for its end
			return len(b), nil
		}
		if _, err := fmt.Fprintf(p.w, "%s%s", p.prefix, line); err != nil {
			return 0, err
		}
	}
}

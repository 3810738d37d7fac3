package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/conform-dev/conform/load"
)

func cmdLoad(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "load", "[--target NAME=URL]... [--qdrant HOST:PORT [--collection NAME]] [flags]", `
Load the corpus into real engines, then prove it is there: the only conform command that
writes to an engine.

For each --target (Elasticsearch, OpenSearch, conform serve, or a gateway), load creates the
index from mapping.json, bulk-loads corpus.ndjson in batches (retrying 429s), refreshes, and
checks that _count equals the corpus size and that a fixed sample of documents reads back
equal to the corpus.

With --qdrant, it loads a payload-only Qdrant collection over gRPC instead: payload indexes
from the mapping, points with UUIDv5 ids and the raw _source (load/QDRANT.md gives the payload
schema), then an exact count, green status, per-index coverage and the same sample.

The count and the sample fingerprint are the proof, not the shape of the bulk replies. A
reply that lists fewer items than documents, none, or is not JSON is a warning naming the
batch; an item that reports an error fails the load, naming the document and the reason. The
first short reply is answered by sending that batch again with _index in every action line;
if the engine then lists every item, the rest of the load does the same. ZincSearch is known
to need this; --bulk-index-in-action starts that way.

An engine that indexes asynchronously is awaited: after the refresh, load polls _count,
showing progress on stderr, until it reaches the corpus size, for as long as --timeout leaves
(less a reserve for the sample) or until the count has not moved for a minute. Then it judges
the count, saying what it reached.

An existing index or collection that holds documents is left alone unless --recreate is
given. With --probe, nothing is written: load prints each engine's identity, count and sample
fingerprint, and exits 1 if a copy is not intact.

Secrets stay out of output: a URL's password is never printed, and Qdrant's API key is read
from the environment variable named by --qdrant-api-key-env, never from the command line.

Exit status 1 means an engine does not hold the corpus after loading (or, with --probe, no
longer holds it); 2 means a usage error, a refusal to overwrite, a document the engine
refused, or an engine error.`,
		"conform load --target es=http://127.0.0.1:9200 --target os=http://127.0.0.1:9201",
		"conform load --qdrant 127.0.0.1:6334 --collection catalogue",
		"QDRANT_KEY=... conform load --qdrant qdrant.internal:6334 --qdrant-tls --qdrant-api-key-env QDRANT_KEY",
		"conform load --target es=http://127.0.0.1:9200 --recreate --fixtures ./my-fixtures --index products",
		"ZINC_PASSWORD=... conform load --target zinc=http://127.0.0.1:4080/es --user admin --password-env ZINC_PASSWORD --bulk-index-in-action",
		"conform load --probe --target es=http://127.0.0.1:9200 --qdrant 127.0.0.1:6334 --json",
	)
	var targets listFlag
	fs.Var(&targets, "target", "an Elasticsearch-compatible engine to load, as `NAME=URL` (repeatable)")
	var tf targetFlags
	tf.registerAuth(fs)
	qaddr := fs.String("qdrant", "", "Qdrant's gRPC API to load, as `HOST:PORT` (port 6334 by default in Qdrant)")
	collection := fs.String("collection", "", "the Qdrant collection `NAME` (default: the workload's index name)")
	dir := fs.String("fixtures", "", "load the fixtures in `DIR` instead of the built-in default")
	index := fs.String("index", "", "the index `NAME` on the targets (default: the workload's index name)")
	recreate := fs.Bool("recreate", false, "delete and recreate an existing index or collection that holds documents")
	keyEnv := fs.String("qdrant-api-key-env", "", "read Qdrant's API key from the environment variable `VAR`")
	qtls := fs.Bool("qdrant-tls", false, "connect to Qdrant over TLS (system roots, TLS 1.3)")
	inAction := fs.Bool("bulk-index-in-action", false, "name _index in every bulk action line, not only in the path: ZincSearch needs it to list every item in its reply")
	probe := fs.Bool("probe", false, "write nothing; print each engine's identity, count and sample fingerprint")
	asJSON := fs.Bool("json", false, "print the reports as JSON, for a manifest")
	timeout := fs.Duration("timeout", 15*time.Minute, "give up after `DURATION`, waiting for an asynchronous engine's count included")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErr("load takes no arguments, got %q", fs.Args())
	}
	// Bulk requests carry a thousand documents: give each a generous timeout of its own.
	tf.timeout = 2 * time.Minute
	topts, err := tf.options(e)
	if err != nil {
		return err
	}
	ts, err := parseTargets(targets, topts)
	if err != nil {
		return err
	}
	if len(ts) == 0 && *qaddr == "" {
		return usageErr("load needs --target NAME=URL or --qdrant HOST:PORT (see conform load --help)")
	}
	if *qaddr == "" && (*collection != "" || *keyEnv != "" || *qtls) {
		return usageErr("--collection, --qdrant-api-key-env and --qdrant-tls need --qdrant")
	}
	if *inAction && (*probe || len(ts) == 0) {
		return usageErr("--bulk-index-in-action needs a --target to load (not --probe)")
	}
	apiKey := ""
	if *keyEnv != "" {
		if apiKey = e.getenv(*keyEnv); apiKey == "" {
			return usageErr("--qdrant-api-key-env: environment variable %s is empty or unset", *keyEnv)
		}
	}
	f, err := loadFixtures(*dir)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()

	out := loadOutput{Corpus: f.Meta.SHA256.Corpus, Mapping: f.Meta.SHA256.Mapping, Documents: len(f.Docs)}
	var verifyFailed []string
	for _, t := range ts {
		tp, err := t.Transport()
		if err != nil {
			return usageErr("--target %s: %v", t.Name, err)
		}
		res := loadTargetResult{Name: t.Name, URL: t.Redacted()}
		log := &linePrefixer{w: e.stderr, prefix: t.Name + ": "}
		if *probe {
			name := *index
			if name == "" {
				name = f.Workload.Index
			}
			if res.Probe, err = load.ProbeES(ctx, tp, name, f, load.ProbeOptions{}); err != nil {
				return loadErr(t.Name, err)
			}
			if !res.Probe.Intact() {
				verifyFailed = append(verifyFailed, t.Name)
			}
		} else {
			res.Load, err = load.LoadES(ctx, tp, f, load.ESOptions{Index: *index, Recreate: *recreate, IndexInAction: *inAction, Log: log})
			var ve *load.VerifyError
			switch {
			case errors.As(err, &ve):
				verifyFailed = append(verifyFailed, t.Name)
				fmt.Fprintf(e.stderr, "%s: %v\n", t.Name, err)
			case err != nil:
				return loadErr(t.Name, t.Scrub(err))
			}
			if res.Load != nil {
				res.Probe = res.Load.Probe
			}
		}
		out.Targets = append(out.Targets, res)
		if !*asJSON {
			printESResult(e.stdout, res)
		}
	}

	if *qaddr != "" {
		c, srv, err := load.DialQdrant(ctx, load.QdrantConfig{Addr: *qaddr, APIKey: apiKey, TLS: *qtls})
		if err != nil {
			return loadErr("qdrant", err)
		}
		defer c.Close()
		res := &loadQdrantResult{Addr: *qaddr, Server: srv}
		name := *collection
		if name == "" {
			name = f.Workload.Index
		}
		if *probe {
			if res.Probe, err = load.ProbeQdrant(ctx, c, name, f, load.ProbeOptions{}); err != nil {
				return loadErr("qdrant", err)
			}
			if !res.Probe.Intact() {
				verifyFailed = append(verifyFailed, "qdrant")
			}
		} else {
			log := &linePrefixer{w: e.stderr, prefix: "qdrant: "}
			res.Load, err = load.LoadQdrant(ctx, c, f, load.QdrantOptions{Collection: name, Recreate: *recreate, Log: log})
			var ve *load.VerifyError
			switch {
			case errors.As(err, &ve):
				verifyFailed = append(verifyFailed, "qdrant")
				fmt.Fprintf(e.stderr, "qdrant: %v\n", err)
			case err != nil:
				return loadErr("qdrant", err)
			}
			if res.Load != nil {
				res.Probe = res.Load.Probe
			}
		}
		out.Qdrant = res
		if !*asJSON {
			printQdrantResult(e.stdout, res)
		}
	}

	if *asJSON {
		b, err := json.MarshalIndent(out, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "%s\n", b)
	}
	if len(verifyFailed) > 0 {
		return failed("the corpus is not intact on %s", strings.Join(verifyFailed, ", "))
	}
	return nil
}

// loadOutput is what --json prints.
type loadOutput struct {
	Corpus    string             `json:"corpus_sha256"`
	Mapping   string             `json:"mapping_sha256"`
	Documents int                `json:"documents"`
	Targets   []loadTargetResult `json:"targets,omitempty"`
	Qdrant    *loadQdrantResult  `json:"qdrant,omitempty"`
}

type loadTargetResult struct {
	Name  string         `json:"name"`
	URL   string         `json:"url"` // without credentials
	Load  *load.ESReport `json:"load,omitempty"`
	Probe *load.Probe    `json:"probe,omitempty"`
}

type loadQdrantResult struct {
	Addr   string             `json:"addr"`
	Server load.QdrantServer  `json:"server"`
	Load   *load.QdrantReport `json:"load,omitempty"`
	Probe  *load.QdrantProbe  `json:"probe,omitempty"`
}

// loadErr classifies a failure to load: a refusal to overwrite and engine errors are exit 2.
func loadErr(name string, err error) error {
	var ne *load.NotEmptyError
	if errors.As(err, &ne) {
		return usageErr("%s: %v", name, err)
	}
	return &exitError{code: exitUsage, err: fmt.Errorf("%s: %w", name, err)}
}

func printESResult(w io.Writer, r loadTargetResult) {
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
	}
}

func printQdrantResult(w io.Writer, r *loadQdrantResult) {
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
	}
}

func sampleLine(s load.Fingerprint, intact bool, problems []load.Problem) string {
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

// linePrefixer writes each line with a prefix: progress from several engines stays apart.
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

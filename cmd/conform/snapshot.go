package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/conform-dev/conform/conformance/target"
	"github.com/conform-dev/conform/fixtures"
	"github.com/conform-dev/conform/load"
)

func cmdSnapshot(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "snapshot", "--from URL --index NAME --out DIR [flags]", `
Export one index of a live Elasticsearch or OpenSearch into a fixtures directory: your own
corpus, for every other command. It only reads.

DIR receives mapping.json (an index-creation body: the index's settings that change answers,
such as number_of_shards, analysis and index sorting, and its mappings, from GET
/{index}/_settings and GET /{index}/_mapping), corpus.ndjson (every document's _id and its
_source bytes exactly as the engine stores them, in bulk format) and fixtures.json (the count,
the SHA-256 of both files, the engine, the URL without credentials, the method, and when).
conform load loads it back; copy a workload.json in beside it (conform capture writes one) and
it is a complete fixtures directory for check, run, experiment, explain, fuzz and the rest.

The documents are read through a point in time with search_after on _shard_doc (Elasticsearch
7.12+, and OpenSearch's /_search/point_in_time), else a scroll sorted by _doc (--method
chooses), one page at a time: memory stays flat whatever the index's size, and progress goes to
stderr. The count and each primary shard's max_seq_no are read before and after: when the index
changed while it was read, the snapshot says so (on stderr and in fixtures.json) — it is the
index as it was when the point in time opened, not as it is after.

A source stored across several lines is written on one (bulk NDJSON needs it) and counted;
every other source is byte for byte what the engine returned. Credentials come from the URL's
user:pass@, --user with $CONFORM_PASSWORD, or $CONFORM_API_KEY, and are never written: the
URL recorded has none. Files are written under temporary names and renamed at the end, so an
interrupted snapshot (Ctrl-C, a timeout) leaves no corpus that looks complete.`,
		"conform snapshot --from http://127.0.0.1:9200 --index catalogue --out snap",
		"conform snapshot --from https://es.internal:9200 --user reader --ca ca.pem --index products --out fx-products",
		"conform snapshot --from http://127.0.0.1:9201 --index catalogue --out snap-os --method scroll",
		"conform load --fixtures snap --target es=http://127.0.0.1:9200 --recreate   # load it back",
	)
	from := fs.String("from", "", "the engine to read, as a `URL` (a user:pass@ in it is used, never written)")
	index := fs.String("index", "", "the index (or an alias of one index) to export, by `NAME`")
	out := fs.String("out", "", "write the fixtures into `DIR`")
	force := fs.Bool("force", false, "write into a DIR that is not empty (its fixture files are replaced)")
	pageSize := fs.Int("page-size", 0, "documents per request (`N`); 0 sizes a point in time's pages to about 4 MiB each (100 to 10000 documents), a scroll's to 1000")
	keepAlive := fs.Duration("keep-alive", 5*time.Minute, "how long the point in time or scroll lives between two pages")
	method := fs.String("method", "auto", "how documents are read (`METHOD`): auto (a point in time, else a scroll), pit or scroll")
	asJSON := fs.Bool("json", false, "print the report as JSON on stdout")
	noProgress := fs.Bool("no-progress", false, "no progress on stderr")
	var tf targetFlags
	tf.registerAuth(fs)
	fs.DurationVar(&tf.timeout, "timeout", time.Minute, "per-request timeout (a page of documents is one request)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErr("snapshot takes no arguments, got %q", fs.Args())
	}
	switch {
	case *from == "":
		return usageErr("snapshot needs --from URL (the engine to read)")
	case *index == "":
		return usageErr("snapshot needs --index NAME (the index to export)")
	case *out == "":
		return usageErr("snapshot needs --out DIR")
	case *pageSize < 0 || *pageSize > 10000:
		return usageErr("--page-size must be 0 (sized by the documents) or 1 to 10000 (Elasticsearch's max_result_window), not %d", *pageSize)
	case *keepAlive < time.Second:
		return usageErr("--keep-alive must be at least 1s")
	}
	m := ""
	switch *method {
	case "auto":
	case "pit":
		m = load.SnapshotPIT
	case "scroll":
		m = load.SnapshotScroll
	default:
		return usageErr("--method must be auto, pit or scroll, not %q", *method)
	}
	if err := target.ValidIndexName(*index); err != nil {
		return usageErr("--index: %v", err)
	}
	topts, err := tf.options(e)
	if err != nil {
		return err
	}
	t, err := target.Parse(*from, topts)
	if err != nil {
		return usageErr("--from: %v", err)
	}
	for _, w := range t.Warnings() {
		fmt.Fprintf(e.stderr, "warning: %s\n", w)
	}
	if err := fixtures.CheckOutDir(*out, *force); err != nil {
		return usageErr("--out: %v", err)
	}
	tp, err := t.Transport()
	if err != nil {
		return usageErr("--from: %v", err)
	}
	prog := newSnapshotProgress(e, *noProgress)
	rep, err := load.Snapshot(ctx, tp, load.SnapshotOptions{
		Index: *index, Dir: *out, From: t.URL(""), PageSize: *pageSize, KeepAlive: *keepAlive, Method: m,
		Progress: prog.show, Log: e.stderr,
	})
	prog.done()
	if err != nil {
		if ierr := target.Interruption(ctx); ierr != nil {
			err = fmt.Errorf("%w: %v", ierr, err)
		}
		// The whole text is scrubbed: a fault inside it would otherwise stand for all of it.
		return infra(fmt.Errorf("snapshot of %s on %s: %w", *index, t.URL(""), t.Scrub(errors.New(err.Error()))))
	}
	for _, w := range rep.Warnings {
		fmt.Fprintf(e.stderr, "warning: %s\n", w)
	}
	if rep.Changed != "" {
		fmt.Fprintf(e.stderr, "warning: the index changed while it was read: %s\n", rep.Changed)
	}
	if *asJSON {
		b, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "%s\n", b)
		return nil
	}
	w := e.stdout
	fmt.Fprintf(w, "snapshot of %s on %s (%s)\n", rep.Index, t.URL(""), rep.Identity)
	fmt.Fprintf(w, "  method     %s, %d pages of up to %d documents\n", rep.Method, rep.Pages, rep.MaxPage)
	fmt.Fprintf(w, "  documents  %d, corpus.ndjson %s, sha256 %s\n", rep.Documents, byteSize(rep.Bytes), rep.Meta.SHA256.Corpus)
	if rep.Routed > 0 {
		fmt.Fprintf(w, "  routed     %d documents with a custom _routing, kept as \"routing\" in their action lines\n", rep.Routed)
	}
	fmt.Fprintf(w, "  mapping    sha256 %s\n", rep.Meta.SHA256.Mapping)
	rate := float64(rep.Documents) / max(rep.Took.Seconds(), 1e-9)
	fmt.Fprintf(w, "  took       %s (%.0f documents/s)\n", rep.Took.Round(time.Millisecond), rate)
	if rep.Changed == "" {
		fmt.Fprintf(w, "  unchanged  count and max_seq_no the same before and after\n")
	} else {
		fmt.Fprintf(w, "  CHANGED    %s\n", rep.Changed)
	}
	fmt.Fprintf(w, "  written    %s\n", strings.Join([]string{filepath.Join(*out, fixtures.MappingFile), filepath.Join(*out, fixtures.CorpusFile), filepath.Join(*out, fixtures.MetaFile)}, ", "))
	fmt.Fprintf(w, "Load it back with: conform load --fixtures %s --target NAME=URL; copy a workload.json into %s to check it.\n", shellWord(*out), shellWord(*out))
	return nil
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// snapshotProgress shows a snapshot's progress on stderr: a line rewritten on a terminal, else
// a line every 10 s.
type snapshotProgress struct {
	e        *env
	mu       sync.Mutex
	last     time.Time
	terminal bool
	shown    bool
}

func newSnapshotProgress(e *env, off bool) *snapshotProgress {
	if off {
		return nil
	}
	return &snapshotProgress{e: e, terminal: e.stderrIsTerminal}
}

func (p *snapshotProgress) show(s load.SnapshotProgress) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	every := 10 * time.Second
	if p.terminal {
		every = 200 * time.Millisecond
	}
	now := time.Now()
	if now.Sub(p.last) < every {
		return
	}
	p.last = now
	pct := ""
	if s.Total > 0 {
		pct = fmt.Sprintf(" (%.0f%%)", 100*float64(s.Documents)/float64(s.Total))
	}
	rate := float64(s.Documents) / max(s.Elapsed.Seconds(), 1e-9)
	line := fmt.Sprintf("snapshot: %d of %d documents%s, %s, %.0f documents/s", s.Documents, s.Total, pct, byteSize(s.Bytes), rate)
	if p.terminal {
		fmt.Fprintf(p.e.stderr, "\r\033[K%s", line)
		p.shown = true
	} else {
		fmt.Fprintln(p.e.stderr, line)
	}
}

func (p *snapshotProgress) done() {
	if p != nil && p.shown {
		fmt.Fprintln(p.e.stderr)
	}
}

package main

import (
	"context"
	"encoding/json"
	"fmt"
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
schema), then an exact count, green status, per-index coverage and the same sample. Every
payload value of the sampled points is compared with what was written. Qdrant reads payloads
back through serde_json's inexact float parse, so some doubles come back one ulp off
(20.900000000000002 as 20.9): the load and --probe report those ("payload doubles: N of M ...
read back otherwise than sent") without failing, since the raw _source a gateway returns is
exact. Any other difference, such as a point another tool edited, is a problem.

The count and the sample fingerprint are the proof, not the shape of the bulk replies. A
reply that lists fewer items than documents, none, or is not JSON is a warning naming the
batch. Documents whose items report an error are rejected: they are counted, the load goes
on, and the end says "holds N of M documents; R rejected, first: ..." with the first five
documents and reasons, and exits 1. Where GET /{index}/_count is not served (404 or 405, as
in ZincSearch), the count is a search for no hits with track_total_hits true. The
first short reply is answered by sending that batch again with _index in every action line;
if the engine then lists every item, the rest of the load does the same. ZincSearch is known
to need this; --bulk-index-in-action starts that way.

An engine that indexes asynchronously is awaited: after the refresh, load polls _count,
showing progress on stderr, until it reaches the corpus size, for as long as --timeout leaves
(less a reserve for the sample) or until the count has not moved for a minute. Then it judges
the count, saying what it reached.

An existing index or collection that holds documents is left alone unless --recreate is
given. With --probe, nothing is written: load prints each engine's identity, count, sample
fingerprint and the mapping variant its index holds (GET /{index}/_mapping compared with the
fixtures' by field type: "designed", "price-double" or none), and exits 1 if a copy is not
intact, which includes an index whose field types differ from the fixtures'.

Secrets stay out of output: a URL's password is never printed, and Qdrant's API key is read
from the environment variable named by --qdrant-api-key-env, never from the command line.

Exit status 1 means an engine does not hold the corpus after loading (documents rejected or
lost, or, with --probe, no longer holds it); 2 means a usage error, a refusal to overwrite,
or an engine error.`,
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

	plan := load.Plan{Index: *index, Collection: *collection, Recreate: *recreate, IndexInAction: *inAction, Probe: *probe, Log: e.stderr}
	for _, t := range ts {
		tp, err := t.Transport()
		if err != nil {
			return usageErr("--target %s: %v", t.Name, err)
		}
		plan.Engines = append(plan.Engines, load.Engine{Name: t.Name, URL: t.Redacted(), Transport: tp, Scrub: t.Scrub})
	}
	if *qaddr != "" {
		plan.Qdrant = &load.QdrantConfig{Addr: *qaddr, APIKey: apiKey, TLS: *qtls}
	}
	if !*asJSON {
		plan.Text = e.stdout
	}
	out, err := load.Run(ctx, f, plan)
	if err != nil {
		return infra(err)
	}
	if *asJSON {
		b, err := json.MarshalIndent(out, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "%s\n", b)
	}
	if len(out.NotIntact) > 0 {
		return failed("the corpus is not intact on %s: its count, mapping or sampled documents differ from the fixtures'", strings.Join(out.NotIntact, ", "))
	}
	return nil
}

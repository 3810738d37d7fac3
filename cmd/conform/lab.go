package main

import (
	"context"
	"flag"
	"strings"

	"github.com/conform-dev/conform/conformance/lab"
	"github.com/conform-dev/conform/fixtures"
	"github.com/conform-dev/conform/load"
)

// labFlags describe the lab around the targets: a Qdrant backend to probe, and what the user
// declares about each engine (image ids, resource limits) for the manifest.
type labFlags struct {
	qdrant       string
	collection   string
	qdrantKeyEnv string
	qdrantTLS    bool
	sample       int
	images       listFlag
	limits       listFlag
	containers   string
	requireReady bool
}

func (l *labFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&l.qdrant, "qdrant", "", "probe a Qdrant backend's gRPC API at `HOST:PORT` before timing (health, version, collection status, exact count, sample fingerprint)")
	fs.StringVar(&l.collection, "collection", "", "the Qdrant collection `NAME` holding the corpus (with --qdrant)")
	fs.StringVar(&l.qdrantKeyEnv, "qdrant-api-key-env", "QDRANT_API_KEY", "environment `VAR` holding Qdrant's API key (used when set)")
	fs.BoolVar(&l.qdrantTLS, "qdrant-tls", false, "reach Qdrant over TLS")
	fs.IntVar(&l.sample, "sample", load.DefaultSampleDocs, "documents in the corpus fingerprint each target is checked against before timing")
	fs.Var(&l.images, "image", "record an engine's image id in the manifest, as `NAME=ID` (repeatable)")
	fs.Var(&l.limits, "limits", "record an engine's resource limits in the manifest, as `NAME=TEXT` (repeatable), e.g. es='2 CPUs, 4 GiB'")
	fs.BoolVar(&l.requireReady, "require-ready", false, "refuse (exit 2) a target with any readiness finding (a mapping or sampled documents that are not the fixtures') instead of measuring it")
	fs.StringVar(&l.containers, "containers", "", "comma-separated docker container `LIST` whose image ids and limits to record (default: the lab's, when docker answers)")
}

// open checks the lab flags and opens the lab: a flag given wrongly is a usage error, a Qdrant
// backend that cannot be dialled an infrastructure error.
func (l *labFlags) open(ctx context.Context, e *env, f *fixtures.Fixtures) (*lab.Lab, error) {
	for _, kv := range append(append([]string{}, l.images...), l.limits...) {
		if !strings.Contains(kv, "=") {
			return nil, usageErr("--image and --limits take NAME=VALUE, not %q", kv)
		}
	}
	if l.qdrant == "" && l.collection != "" {
		return nil, usageErr("--collection needs --qdrant HOST:PORT")
	}
	if l.qdrant != "" && l.collection == "" {
		return nil, usageErr("--qdrant needs --collection NAME")
	}
	c := lab.Config{Qdrant: l.qdrant, Collection: l.collection, QdrantTLS: l.qdrantTLS, SampleDocs: l.sample, Images: l.images, Limits: l.limits, Log: e.stderr, RequireReady: l.requireReady}
	if l.qdrant != "" {
		c.QdrantAPIKey = e.getenv(l.qdrantKeyEnv)
	}
	if l.containers != "" {
		c.Containers = strings.Split(l.containers, ",")
	}
	lb, err := lab.Open(ctx, c, f)
	return lb, infra(err)
}

package load

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/qdrant/go-client/qdrant"
	"google.golang.org/grpc"

	"github.com/conform-dev/conform/fixtures"
)

// IDNamespace is the UUID namespace of point ids: UUIDv5(NameSpaceDNS, "conform.dev"). A
// document's point id is UUIDv5(IDNamespace, _id), so a gateway finds a document by _id
// without a lookup. Changing it changes every point id: never do.
const IDNamespace = "9c80059c-345b-5c9e-827f-45d5a3c004e5"

var idNamespace = uuid.MustParse(IDNamespace)

// PointID is the Qdrant point id of the document with Elasticsearch _id id: the lowercase,
// hyphenated UUIDv5 of id in IDNamespace.
func PointID(id string) string {
	return uuid.NewSHA1(idNamespace, []byte(id)).String()
}

// QdrantConfig says how to reach Qdrant's gRPC port.
type QdrantConfig struct {
	Addr      string // HOST:PORT of the gRPC API, usually port 6334
	APIKey    string // sent in the api-key header; never printed
	TLS       bool
	TLSConfig *tls.Config // nil with TLS means go-client's default (TLS 1.3, system roots)
	// MaxMessageBytes raises grpc-go's 4 MB message limit both ways (default 256 MiB):
	// load/QDRANT.md Q6, qdrant/migration#30.
	MaxMessageBytes int
}

// QdrantServer is what Qdrant's HealthCheck says about the server.
type QdrantServer struct {
	Title   string `json:"title"`
	Version string `json:"version"`
	Commit  string `json:"commit,omitempty"`
}

// DialQdrant connects with go-client and asks HealthCheck who answers. The client's own
// version check is skipped (client 1.17 against the seed lab's server 1.19 would only warn);
// the version is returned for the manifest instead.
func DialQdrant(ctx context.Context, cfg QdrantConfig) (*qdrant.Client, QdrantServer, error) {
	host, port, err := splitHostPort(cfg.Addr)
	if err != nil {
		return nil, QdrantServer{}, err
	}
	limit := cfg.MaxMessageBytes
	if limit <= 0 {
		limit = 256 << 20
	}
	c, err := qdrant.NewClient(&qdrant.Config{
		Host: host, Port: port, APIKey: cfg.APIKey, UseTLS: cfg.TLS, TLSConfig: cfg.TLSConfig,
		SkipCompatibilityCheck: true,
		PoolSize:               1,
		GrpcOptions: []grpc.DialOption{grpc.WithDefaultCallOptions(
			grpc.MaxCallRecvMsgSize(limit), grpc.MaxCallSendMsgSize(limit))},
	})
	if err != nil {
		return nil, QdrantServer{}, fmt.Errorf("qdrant %s: %w", cfg.Addr, err)
	}
	srv, err := qdrantHealth(ctx, c)
	if err != nil {
		c.Close()
		return nil, QdrantServer{}, fmt.Errorf("qdrant %s: %w", cfg.Addr, err)
	}
	return c, srv, nil
}

func qdrantHealth(ctx context.Context, c *qdrant.Client) (QdrantServer, error) {
	h, err := c.HealthCheck(ctx)
	if err != nil {
		return QdrantServer{}, err
	}
	return QdrantServer{Title: h.GetTitle(), Version: h.GetVersion(), Commit: h.GetCommit()}, nil
}

func splitHostPort(addr string) (string, int, error) {
	i := len(addr) - 1
	for i >= 0 && addr[i] != ':' {
		i--
	}
	if i <= 0 {
		return "", 0, fmt.Errorf("qdrant address %q is not HOST:PORT", addr)
	}
	host, ps := addr[:i], addr[i+1:]
	if len(host) > 1 && host[0] == '[' && host[len(host)-1] == ']' {
		host = host[1 : len(host)-1]
	}
	port, err := strconv.Atoi(ps)
	if err != nil || port <= 0 || port > 65535 {
		return "", 0, fmt.Errorf("qdrant address %q: %q is not a port", addr, ps)
	}
	return host, port, nil
}

// QdrantOptions configure LoadQdrant.
type QdrantOptions struct {
	// Collection is the collection to create; empty means the workload's index name.
	Collection string
	// Recreate deletes an existing non-empty collection first. Without it LoadQdrant refuses
	// to touch one (an existing empty collection is replaced).
	Recreate bool
	// BatchPoints is the number of points per upsert (default 128; Qdrant's bulk-upload
	// guide recommends 64 to 256).
	BatchPoints int
	// MaxRetries bounds retries of a batch refused with ResourceExhausted (default 8).
	MaxRetries int
	// GreenTimeout bounds the wait for the collection to turn green after the upload
	// (default 2 minutes), polling every PollInterval (default 500ms).
	GreenTimeout time.Duration
	PollInterval time.Duration
	// SampleDocs is the verification sample size (default DefaultSampleDocs).
	SampleDocs int
	Log        io.Writer
}

func (o *QdrantOptions) defaults(f *fixtures.Fixtures) {
	if o.Collection == "" {
		o.Collection = f.Workload.Index
	}
	if o.BatchPoints <= 0 {
		o.BatchPoints = 128
	}
	if o.MaxRetries <= 0 {
		o.MaxRetries = 8
	}
	if o.GreenTimeout <= 0 {
		o.GreenTimeout = 2 * time.Minute
	}
	if o.PollInterval <= 0 {
		o.PollInterval = 500 * time.Millisecond
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
}

// IndexReport is one payload index after loading.
type IndexReport struct {
	Key    string `json:"key"`
	Field  string `json:"field"`
	ESType string `json:"es_type"`
	Type   string `json:"type"`
	// Want counts the corpus documents the index should cover.
	Want fieldCounts `json:"want"`
	// Present is Count(exact, must_not is_empty(key)) on the loaded collection.
	Present uint64 `json:"present"`
	// IndexedPoints is the collection info's payload_schema[key].points; nil if not reported.
	IndexedPoints *uint64 `json:"indexed_points,omitempty"`
}

// QdrantReport is what LoadQdrant did.
type QdrantReport struct {
	Collection  string        `json:"collection"`
	Server      QdrantServer  `json:"server"`
	Replaced    string        `json:"replaced,omitempty"` // "", "empty" or "recreated"
	Points      int           `json:"points"`
	Batches     int           `json:"batches"`
	BatchPoints int           `json:"batch_points"`
	Retries     int           `json:"retries"`
	Indexes     []IndexReport `json:"indexes"`
	Warnings    []string      `json:"warnings,omitempty"`
	Took        time.Duration `json:"took_ns"`
	Probe       *QdrantProbe  `json:"probe"`
}

// UpdateError is a write Qdrant did not complete: with Wait set, anything but
// UpdateStatus_Completed means the write may not be visible.
type UpdateError struct {
	Op     string
	Status qdrant.UpdateStatus
}

func (e *UpdateError) Error() string {
	return fmt.Sprintf("%s: status %s, want Completed", e.Op, e.Status)
}

// LoadQdrant loads the corpus into a payload-only collection: payload indexes first (with
// Wait), then batched upserts (with Wait, each checked Completed), then verification — exact
// count, green status, per-index coverage and the sample fingerprint. Every document is
// converted before anything is written, so a bad document leaves the engine untouched.
func LoadQdrant(ctx context.Context, c *qdrant.Client, f *fixtures.Fixtures, o QdrantOptions) (*QdrantReport, error) {
	o.defaults(f)
	start := time.Now()
	rep := &QdrantReport{Collection: o.Collection, BatchPoints: o.BatchPoints}
	var err error
	if rep.Server, err = qdrantHealth(ctx, c); err != nil {
		return nil, fmt.Errorf("qdrant health check: %w", err)
	}

	schema, err := NewQdrantSchema(f.Mapping)
	if err != nil {
		return nil, err
	}
	rep.Warnings = schema.Warnings
	indexes := schema.Indexes()
	want := make([]fieldCounts, len(indexes))
	points := make([]*qdrant.PointStruct, len(f.Docs))
	for i, d := range f.Docs {
		m, err := schema.Normalize(d)
		if err != nil {
			return nil, err
		}
		for j, ix := range indexes {
			want[j].observe(valuesAt(m, ix.Key))
		}
		payload, err := qdrant.TryValueMap(m)
		if err != nil {
			return nil, &DocError{ID: d.ID, Msg: err.Error()}
		}
		points[i] = &qdrant.PointStruct{
			Id: qdrant.NewIDUUID(PointID(d.ID)),
			// A payload-only point still needs an (empty) named-vector map: without one the
			// server answers "Expected some vectors" (load/QDRANT.md Q6, go-client#68).
			Vectors: qdrant.NewVectorsMap(map[string]*qdrant.Vector{}),
			Payload: payload,
		}
	}

	exists, err := c.CollectionExists(ctx, o.Collection)
	if err != nil {
		return nil, err
	}
	if exists {
		n, err := c.Count(ctx, &qdrant.CountPoints{CollectionName: o.Collection, Exact: qdrant.PtrOf(true)})
		if err != nil {
			return nil, err
		}
		if n > 0 && !o.Recreate {
			return nil, &NotEmptyError{What: "collection", Name: o.Collection, Count: int64(n)}
		}
		rep.Replaced = "empty"
		if n > 0 {
			rep.Replaced = "recreated"
		}
		fmt.Fprintf(o.Log, "deleting existing collection %s (%d points)\n", o.Collection, n)
		if err := c.DeleteCollection(ctx, o.Collection); err != nil {
			return nil, err
		}
	}
	fmt.Fprintf(o.Log, "creating collection %s (payload only, no vectors)\n", o.Collection)
	// No vectors config: a payload-only collection (load/QDRANT.md Q6, qdrant#9416).
	if err := c.CreateCollection(ctx, &qdrant.CreateCollection{CollectionName: o.Collection}); err != nil {
		return nil, err
	}
	for _, ix := range indexes {
		r, err := c.CreateFieldIndex(ctx, &qdrant.CreateFieldIndexCollection{
			CollectionName: o.Collection, FieldName: ix.Key,
			FieldType: ix.Type.Enum(), FieldIndexParams: ix.Params, Wait: qdrant.PtrOf(true),
		})
		if err != nil {
			return nil, err
		}
		if r.GetStatus() != qdrant.UpdateStatus_Completed {
			return nil, &UpdateError{Op: "creating payload index " + ix.Key, Status: r.GetStatus()}
		}
	}
	fmt.Fprintf(o.Log, "created %d payload indexes\n", len(indexes))

	for i := 0; i < len(points); i += o.BatchPoints {
		batch := points[i:min(i+o.BatchPoints, len(points))]
		retries, err := upsert(ctx, c, o, rep.Batches+1, batch)
		rep.Retries += retries
		if err != nil {
			return nil, err
		}
		rep.Batches++
		rep.Points += len(batch)
	}
	fmt.Fprintf(o.Log, "upserted %d points in %d batches\n", rep.Points, rep.Batches)

	problems, err := verifyQdrant(ctx, c, f, o, indexes, want, rep)
	if err != nil {
		return nil, err
	}
	rep.Took = time.Since(start)
	if len(problems) > 0 {
		return rep, &VerifyError{Engine: "collection " + o.Collection, Problems: problems}
	}
	fmt.Fprintf(o.Log, "verified %s: %d points, status %s, sample %s\n", o.Collection, rep.Probe.Count, rep.Probe.Status, rep.Probe.Sample.SHA256[:12])
	return rep, nil
}

// upsert writes one batch and waits for it, retrying when Qdrant asks to slow down.
func upsert(ctx context.Context, c *qdrant.Client, o QdrantOptions, n int, batch []*qdrant.PointStruct) (retries int, err error) {
	for attempt := 0; ; attempt++ {
		r, err := c.Upsert(ctx, &qdrant.UpsertPoints{CollectionName: o.Collection, Wait: qdrant.PtrOf(true), Points: batch})
		var slow *qdrant.QdrantResourceExhaustedError
		if errors.As(err, &slow) && attempt < o.MaxRetries {
			retries++
			wait := time.Duration(slow.RetryAfterS) * time.Second
			wait = min(max(wait, 100*time.Millisecond), 30*time.Second)
			fmt.Fprintf(o.Log, "upsert batch %d: resource exhausted, retrying in %s\n", n, wait)
			if err := sleep(ctx, wait); err != nil {
				return retries, err
			}
			continue
		}
		if err != nil {
			return retries, fmt.Errorf("upsert batch %d: %w", n, err)
		}
		if r.GetStatus() != qdrant.UpdateStatus_Completed {
			return retries, &UpdateError{Op: fmt.Sprintf("upsert batch %d", n), Status: r.GetStatus()}
		}
		return retries, nil
	}
}

// verifyQdrant waits for green, probes count and sample, and checks each payload index: its
// type, the exact number of points where the key is not empty, and the number of points the
// index reports.
func verifyQdrant(ctx context.Context, c *qdrant.Client, f *fixtures.Fixtures, o QdrantOptions, indexes []PayloadIndex, want []fieldCounts, rep *QdrantReport) ([]Problem, error) {
	info, err := waitGreen(ctx, c, o)
	if err != nil {
		return nil, err
	}
	var problems []Problem
	if info.GetStatus() != qdrant.CollectionStatus_Green {
		problems = append(problems, Problem{Kind: "status", Want: "green", Got: collectionStatus(info.GetStatus()) + " after " + o.GreenTimeout.String()})
	}
	probe, err := ProbeQdrant(ctx, c, o.Collection, f, ProbeOptions{SampleDocs: o.SampleDocs})
	if err != nil {
		return nil, err
	}
	rep.Probe = probe
	problems = append(problems, probe.Problems...)
	schema := info.GetPayloadSchema()
	for i, ix := range indexes {
		ir := IndexReport{Key: ix.Key, Field: ix.Field, ESType: ix.ESType, Type: ix.TypeName(), Want: want[i]}
		n, err := c.Count(ctx, &qdrant.CountPoints{
			CollectionName: o.Collection, Exact: qdrant.PtrOf(true),
			Filter: &qdrant.Filter{MustNot: []*qdrant.Condition{qdrant.NewIsEmpty(ix.Key)}},
		})
		if err != nil {
			return nil, err
		}
		ir.Present = n
		if n != want[i].Present {
			problems = append(problems, Problem{Kind: "index", Key: ix.Key, Want: fmt.Sprintf("%d points with a value", want[i].Present), Got: strconv.FormatUint(n, 10)})
		}
		si, ok := schema[ix.Key]
		switch {
		case !ok:
			problems = append(problems, Problem{Kind: "index", Key: ix.Key, Want: ix.TypeName() + " index", Got: "no index"})
		case si.GetDataType() != schemaType(ix.Type):
			problems = append(problems, Problem{Kind: "index", Key: ix.Key, Want: ix.TypeName() + " index", Got: si.GetDataType().String()})
		case si.Points != nil:
			ir.IndexedPoints = si.Points
			// payload_schema points counts the points with at least one value the index takes
			// (seen on Qdrant 1.17.0: not null, not a value of another kind). The loader writes
			// only values of the index's kind, so that is every point with a non-null value.
			if *si.Points != want[i].Indexed {
				problems = append(problems, Problem{Kind: "index", Key: ix.Key, Want: fmt.Sprintf("%d points indexed", want[i].Indexed), Got: strconv.FormatUint(*si.Points, 10)})
			}
		}
		rep.Indexes = append(rep.Indexes, ir)
	}
	return problems, nil
}

// waitGreen polls the collection info until it is green or GreenTimeout passes; it returns
// the last info either way.
func waitGreen(ctx context.Context, c *qdrant.Client, o QdrantOptions) (*qdrant.CollectionInfo, error) {
	deadline := time.Now().Add(o.GreenTimeout)
	for {
		info, err := c.GetCollectionInfo(ctx, o.Collection)
		if err != nil {
			return nil, err
		}
		if info.GetStatus() == qdrant.CollectionStatus_Green || !time.Now().Before(deadline) {
			return info, nil
		}
		fmt.Fprintf(o.Log, "collection %s is %s, waiting for green\n", o.Collection, collectionStatus(info.GetStatus()))
		if err := sleep(ctx, o.PollInterval); err != nil {
			return nil, err
		}
	}
}

func schemaType(t qdrant.FieldType) qdrant.PayloadSchemaType {
	switch t {
	case qdrant.FieldType_FieldTypeKeyword:
		return qdrant.PayloadSchemaType_Keyword
	case qdrant.FieldType_FieldTypeInteger:
		return qdrant.PayloadSchemaType_Integer
	case qdrant.FieldType_FieldTypeFloat:
		return qdrant.PayloadSchemaType_Float
	case qdrant.FieldType_FieldTypeDatetime:
		return qdrant.PayloadSchemaType_Datetime
	case qdrant.FieldType_FieldTypeBool:
		return qdrant.PayloadSchemaType_Bool
	}
	return qdrant.PayloadSchemaType_UnknownType
}

// collectionStatus names a status the way Qdrant's REST API does: green, yellow, grey, red.
func collectionStatus(s qdrant.CollectionStatus) string {
	switch s {
	case qdrant.CollectionStatus_Green:
		return "green"
	case qdrant.CollectionStatus_Yellow:
		return "yellow"
	case qdrant.CollectionStatus_Grey:
		return "grey"
	case qdrant.CollectionStatus_Red:
		return "red"
	}
	return "unknown"
}

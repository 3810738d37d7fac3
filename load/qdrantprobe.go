package load

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/qdrant/go-client/qdrant"

	"github.com/conform-dev/conform/fixtures"
)

// QdrantProbe is the state of a Qdrant collection's copy of the corpus, for the manifest:
// the server's health and version, the collection status, the exact point count, and the
// sample fingerprint over the sampled points' PayloadSource — the same fingerprint an
// Elasticsearch probe of an intact index gives.
type QdrantProbe struct {
	Collection string       `json:"collection"`
	At         time.Time    `json:"at"`
	Server     QdrantServer `json:"server"`
	// Status is green, yellow, grey or red.
	Status   string      `json:"status"`
	Count    int64       `json:"count"` // Count with Exact
	Sample   Fingerprint `json:"sample"`
	Expected Fingerprint `json:"expected"`
	Problems []Problem   `json:"problems,omitempty"`
}

// Intact reports whether the count and every sampled point match the corpus.
func (p *QdrantProbe) Intact() bool {
	return len(p.Problems) == 0 && p.Sample.SHA256 == p.Expected.SHA256
}

// Ready reports whether the collection is green (no optimisation running or pending).
func (p *QdrantProbe) Ready() bool { return p.Status == "green" }

// ProbeQdrant reads health, collection status, the exact count and the sampled points (by
// their PointID, with payload asked for explicitly: QDRANT-NOTES §1.1). A sampled point's
// PayloadSource must equal the corpus bytes exactly, since a gateway returns it verbatim. It
// writes nothing.
func ProbeQdrant(ctx context.Context, c *qdrant.Client, collection string, f *fixtures.Fixtures, o ProbeOptions) (*QdrantProbe, error) {
	p := &QdrantProbe{Collection: collection, At: time.Now().UTC()}
	var err error
	if p.Server, err = qdrantHealth(ctx, c); err != nil {
		return nil, fmt.Errorf("qdrant health check: %w", err)
	}
	info, err := c.GetCollectionInfo(ctx, collection)
	if err != nil {
		return nil, err
	}
	p.Status = collectionStatus(info.GetStatus())
	n, err := c.Count(ctx, &qdrant.CountPoints{CollectionName: collection, Exact: qdrant.PtrOf(true)})
	if err != nil {
		return nil, err
	}
	p.Count = int64(n)
	if p.Expected, err = ExpectedFingerprint(f, o.SampleDocs); err != nil {
		return nil, err
	}
	if want := int64(len(f.Docs)); p.Count != want {
		p.Problems = append(p.Problems, Problem{Kind: "count", Want: strconv.FormatInt(want, 10), Got: strconv.FormatInt(p.Count, 10)})
	}

	docs, every := Sample(f, o.SampleDocs)
	ids := make([]*qdrant.PointId, len(docs))
	for i, d := range docs {
		ids[i] = qdrant.NewIDUUID(PointID(d.ID))
	}
	pts, err := c.Get(ctx, &qdrant.GetPoints{
		CollectionName: collection, Ids: ids,
		WithPayload: qdrant.NewWithPayloadInclude(PayloadID, PayloadSource),
		WithVectors: qdrant.NewWithVectors(false),
	})
	if err != nil {
		return nil, err
	}
	byID := make(map[string]*qdrant.RetrievedPoint, len(pts))
	for _, pt := range pts {
		byID[pt.GetId().GetUuid()] = pt
	}
	fp := newFingerprinter(p.Count, every)
	for _, d := range docs {
		pt := byID[PointID(d.ID)]
		if pt == nil {
			p.Problems = append(p.Problems, Problem{Kind: "missing", ID: d.ID, Want: "point " + PointID(d.ID), Got: "none"})
			fp.add(d.ID, nil)
			continue
		}
		payload := pt.GetPayload()
		if got := payload[PayloadID].GetStringValue(); got != d.ID {
			p.Problems = append(p.Problems, Problem{Kind: "id", ID: d.ID, Want: strconv.Quote(d.ID), Got: strconv.Quote(got)})
		}
		sv, ok := payload[PayloadSource].GetKind().(*qdrant.Value_StringValue)
		if !ok {
			p.Problems = append(p.Problems, Problem{Kind: "source", ID: d.ID, Want: PayloadSource + " string", Got: "none"})
			fp.add(d.ID, nil)
			continue
		}
		raw := []byte(sv.StringValue)
		if string(raw) != string(d.Source) {
			ws, gs := diffSnippets(d.Source, raw)
			p.Problems = append(p.Problems, Problem{Kind: "source", ID: d.ID, Want: ws, Got: gs})
		}
		canon, err := Canonical(raw)
		if err != nil {
			fp.add(d.ID, nil)
			continue
		}
		fp.add(d.ID, canon)
	}
	p.Sample = fp.result()
	return p, nil
}

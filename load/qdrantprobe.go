package load

import (
	"context"
	"fmt"
	"math"
	"sort"
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
	// Drift compares the sampled points' structured double values with what the loader
	// sent. It is a note, not a problem: see PayloadDrift.
	Drift *PayloadDrift `json:"drift,omitempty"`
}

// PayloadDrift is how the structured double values of the sampled points read back. A real
// Qdrant has been seen to return some of them one ulp off what was sent (issue 22): a float
// field's 3.9 is loaded as its float32 value widened, 3.9000000953674316, and read back as
// 3.900000095367432, that value's 16-significant-digit rendering, which is another double. The sample
// fingerprint and every hit's _source are unaffected, since they come from _source_raw, which
// is a string and reads back byte for byte. A gateway that renders sort values, terms keys or
// metrics from the structured doubles must round them to the field's type first (float32 for
// float) or it answers a digit off Elasticsearch.
type PayloadDrift struct {
	Values  int            `json:"values"`  // double values compared
	Drifted int            `json:"drifted"` // of which read back as another double
	First   []DriftedValue `json:"first,omitempty"`
}

// DriftedValue is one double that read back otherwise than it was sent.
type DriftedValue struct {
	ID   string  `json:"id"`
	Key  string  `json:"key"` // the payload key, with [i] for an array element
	Sent float64 `json:"sent"`
	Read float64 `json:"read"`
	ULPs uint64  `json:"ulps"` // the distance in units in the last place
}

func (d DriftedValue) String() string {
	return fmt.Sprintf("%s %s: sent %s, read %s (%d ulp)", d.ID, d.Key,
		strconv.FormatFloat(d.Sent, 'g', -1, 64), strconv.FormatFloat(d.Read, 'g', -1, 64), d.ULPs)
}

// Summary is one line for conform load: how many sampled doubles drifted, with the first.
func (d *PayloadDrift) Summary() string {
	if d.Drifted == 0 {
		return fmt.Sprintf("payload doubles: the %d in the sample read back as sent", d.Values)
	}
	return fmt.Sprintf("payload doubles: %d of %d in the sample read back otherwise than sent, first %s; _source_raw is exact, so _source and the fingerprint are not affected, but a gateway must round these values to the field's type before rendering them",
		d.Drifted, d.Values, d.First[0])
}

// add compares the doubles of a sent value with the value read back at the same key.
func (d *PayloadDrift) add(id, key string, sent, read *qdrant.Value) {
	switch sv := sent.GetKind().(type) {
	case *qdrant.Value_DoubleValue:
		d.Values++
		rv, ok := read.GetKind().(*qdrant.Value_DoubleValue)
		if ok && math.Float64bits(rv.DoubleValue) == math.Float64bits(sv.DoubleValue) {
			return
		}
		d.Drifted++
		if len(d.First) < 5 {
			dv := DriftedValue{ID: id, Key: key, Sent: sv.DoubleValue}
			if ok {
				dv.Read, dv.ULPs = rv.DoubleValue, ulps(sv.DoubleValue, rv.DoubleValue)
			} else {
				dv.Read = math.NaN()
			}
			d.First = append(d.First, dv)
		}
	case *qdrant.Value_StructValue:
		rs := read.GetStructValue().GetFields()
		for k, v := range sv.StructValue.GetFields() {
			d.add(id, key+"."+k, v, rs[k])
		}
	case *qdrant.Value_ListValue:
		rl := read.GetListValue().GetValues()
		for i, v := range sv.ListValue.GetValues() {
			var r *qdrant.Value
			if i < len(rl) {
				r = rl[i]
			}
			d.add(id, fmt.Sprintf("%s[%d]", key, i), v, r)
		}
	}
}

// ulps is the distance between two finite doubles of the same sign in units in the last
// place (adjacent doubles are 1 apart); across signs it is the sum of both distances to zero.
func ulps(a, b float64) uint64 {
	ord := func(x float64) int64 {
		i := int64(math.Float64bits(x))
		if i < 0 {
			return math.MinInt64 - i
		}
		return i
	}
	d := ord(a) - ord(b)
	if d < 0 {
		d = -d
	}
	return uint64(d)
}

// Intact reports whether the count and every sampled point match the corpus.
func (p *QdrantProbe) Intact() bool {
	return len(p.Problems) == 0 && p.Sample.SHA256 == p.Expected.SHA256
}

// Ready reports whether the collection is green (no optimisation running or pending).
func (p *QdrantProbe) Ready() bool { return p.Status == "green" }

// ProbeQdrant reads health, collection status, the exact count and the sampled points (by
// their PointID, with the payload asked for explicitly: Qdrant's multi-id Get returns none
// otherwise). A sampled point's PayloadSource must equal the corpus bytes exactly, since a
// gateway returns it verbatim; its structured doubles are compared with what the loader
// sends and any drift is recorded (PayloadDrift), not failed. It writes nothing.
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
	// The whole payload: _es_id and _source_raw prove the copy, the structured values show
	// whether doubles read back as they were sent (PayloadDrift).
	pts, err := c.Get(ctx, &qdrant.GetPoints{
		CollectionName: collection, Ids: ids,
		WithPayload: qdrant.NewWithPayload(true),
		WithVectors: qdrant.NewWithVectors(false),
	})
	if err != nil {
		return nil, err
	}
	byID := make(map[string]*qdrant.RetrievedPoint, len(pts))
	for _, pt := range pts {
		byID[pt.GetId().GetUuid()] = pt
	}
	schema, err := NewQdrantSchema(f.Mapping)
	if err != nil {
		return nil, err
	}
	p.Drift = &PayloadDrift{}
	fp := newFingerprinter(p.Count, every)
	for _, d := range docs {
		pt := byID[PointID(d.ID)]
		if pt == nil {
			p.Problems = append(p.Problems, Problem{Kind: "missing", ID: d.ID, Want: "point " + PointID(d.ID), Got: "none"})
			fp.add(d.ID, nil)
			continue
		}
		payload := pt.GetPayload()
		if sent, err := schema.Payload(d); err == nil {
			for _, k := range sortedValueKeys(sent) {
				p.Drift.add(d.ID, k, sent[k], payload[k])
			}
		}
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

func sortedValueKeys(m map[string]*qdrant.Value) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

package load

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/qdrant/go-client/qdrant"
	"google.golang.org/protobuf/proto"

	"github.com/conform-dev/conform/fixtures"
	"github.com/conform-dev/conform/internal/serdefloat"
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
	// Drift is the comparison of the sampled points' structured payload with what the loader
	// writes: doubles that read back as Qdrant's JSON round trip of what was sent are counted
	// there, a note (see PayloadDrift); any other difference is a Problem.
	Drift *PayloadDrift `json:"drift,omitempty"`
}

// PayloadDrift is how the sampled points' structured payload reads back, compared value by
// value with what the loader writes for them. Qdrant stores a payload as serde_json text and
// parses it again on every read, without serde_json's float_roundtrip feature, so some doubles
// come back as the neighbouring double (serdefloat.RoundTrip): 20.900000000000002, a
// scaled_float price, reads back as 20.9, and float32(3.9) widened, 3.9000000953674316, as
// 3.900000095367432. Qdrant 1.17.0 does it to 1,240 of the designed catalogue's 28,893 doubles
// (load/QDRANT.md). Such a double is counted here, a note and not a problem: the sample
// fingerprint and every hit's _source come from _source_raw, a string, which reads back byte
// for byte. A gateway that renders sort values, terms keys or metrics from the structured
// doubles must round them to the field's type first (float32 for float, the scale for
// scaled_float) or it answers a digit off Elasticsearch. Any other difference (a value
// changed, added or gone) is a Problem of kind payload.
type PayloadDrift struct {
	Points   int            `json:"points"`   // sampled points whose payload was compared
	Compared int            `json:"compared"` // payload values compared: every leaf, of every kind
	Values   int            `json:"values"`   // of which doubles
	Drifted  int            `json:"drifted"`  // doubles read back as Qdrant's JSON round trip of what was sent, not as sent
	First    []DriftedValue `json:"first,omitempty"`
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
		return fmt.Sprintf("payload doubles: the %d in the sample read back as sent (%d payload values of %d points compared)", d.Values, d.Compared, d.Points)
	}
	return fmt.Sprintf("payload doubles: %d of %d in the sample read back otherwise than sent, first %s, each as Qdrant's JSON round trip reads it (%d payload values of %d points compared); _source_raw is exact, so _source and the fingerprint are not affected, but a gateway must round these values to the field's type before rendering them",
		d.Drifted, d.Values, d.First[0], d.Compared, d.Points)
}

// compare walks a value the loader sends and the value read back at the same key, counting
// leaves and drifted doubles, and returns a Problem for each other difference.
func (d *PayloadDrift) compare(id, key string, sent, read *qdrant.Value) []Problem {
	differ := func() []Problem {
		return []Problem{{Kind: "payload", ID: id, Key: key, Want: valueText(sent), Got: valueText(read)}}
	}
	if read == nil {
		d.Compared++
		return differ()
	}
	switch sv := sent.GetKind().(type) {
	case *qdrant.Value_DoubleValue:
		d.Compared++
		d.Values++
		rv, ok := read.GetKind().(*qdrant.Value_DoubleValue)
		switch {
		case !ok:
			return differ()
		case math.Float64bits(rv.DoubleValue) == math.Float64bits(sv.DoubleValue):
			return nil
		case math.Float64bits(rv.DoubleValue) != math.Float64bits(serdefloat.RoundTrip(sv.DoubleValue)):
			return differ()
		}
		d.Drifted++
		if len(d.First) < 5 {
			d.First = append(d.First, DriftedValue{ID: id, Key: key, Sent: sv.DoubleValue, Read: rv.DoubleValue, ULPs: ulps(sv.DoubleValue, rv.DoubleValue)})
		}
		return nil
	case *qdrant.Value_StructValue:
		rs, ok := read.GetKind().(*qdrant.Value_StructValue)
		if !ok {
			d.Compared++
			return differ()
		}
		return d.compareMaps(id, key+".", sv.StructValue.GetFields(), rs.StructValue.GetFields())
	case *qdrant.Value_ListValue:
		rl, ok := read.GetKind().(*qdrant.Value_ListValue)
		if !ok || len(rl.ListValue.GetValues()) != len(sv.ListValue.GetValues()) {
			d.Compared++
			return differ()
		}
		var ps []Problem
		for i, v := range sv.ListValue.GetValues() {
			ps = append(ps, d.compare(id, fmt.Sprintf("%s[%d]", key, i), v, rl.ListValue.GetValues()[i])...)
		}
		return ps
	}
	d.Compared++
	if !proto.Equal(sent, read) {
		return differ()
	}
	return nil
}

// compareMaps compares two payload objects key by key, in key order; prefix goes before each
// key in what it reports.
func (d *PayloadDrift) compareMaps(id, prefix string, sent, read map[string]*qdrant.Value) []Problem {
	var ps []Problem
	for _, k := range sortedValueKeys(sent) {
		ps = append(ps, d.compare(id, prefix+k, sent[k], read[k])...)
	}
	for _, k := range sortedValueKeys(read) {
		if _, ok := sent[k]; !ok {
			ps = append(ps, Problem{Kind: "payload", ID: id, Key: prefix + k, Want: "absent", Got: valueText(read[k])})
		}
	}
	return ps
}

// valueText renders a payload value as JSON for a Problem, shortened; a missing one is
// "absent".
func valueText(v *qdrant.Value) string {
	if v == nil {
		return "absent"
	}
	var b strings.Builder
	var write func(v *qdrant.Value)
	write = func(v *qdrant.Value) {
		switch k := v.GetKind().(type) {
		case *qdrant.Value_NullValue:
			b.WriteString("null")
		case *qdrant.Value_BoolValue:
			b.WriteString(strconv.FormatBool(k.BoolValue))
		case *qdrant.Value_IntegerValue:
			b.WriteString(strconv.FormatInt(k.IntegerValue, 10))
		case *qdrant.Value_DoubleValue:
			b.WriteString(strconv.FormatFloat(k.DoubleValue, 'g', -1, 64))
			if k.DoubleValue == math.Trunc(k.DoubleValue) && math.Abs(k.DoubleValue) < 1e21 {
				b.WriteString(".0") // a double, not an integer
			}
		case *qdrant.Value_StringValue:
			b.WriteString(strconv.Quote(k.StringValue))
		case *qdrant.Value_ListValue:
			b.WriteByte('[')
			for i, e := range k.ListValue.GetValues() {
				if i > 0 {
					b.WriteByte(',')
				}
				write(e)
			}
			b.WriteByte(']')
		case *qdrant.Value_StructValue:
			b.WriteByte('{')
			fields := k.StructValue.GetFields()
			for i, key := range sortedValueKeys(fields) {
				if i > 0 {
					b.WriteByte(',')
				}
				fmt.Fprintf(&b, "%q:", key)
				write(fields[key])
			}
			b.WriteByte('}')
		default:
			b.WriteString("?")
		}
	}
	write(v)
	return snippet([]byte(b.String()))
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
// gateway returns it verbatim, and every other payload value must read back as the loader
// writes it, but for doubles that read back as Qdrant's JSON round trip of what was sent,
// which are counted (PayloadDrift), not failed. It writes nothing.
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
			// _es_id and _source_raw have their own problems, below.
			for _, k := range []string{PayloadID, PayloadSource} {
				if _, ok := payload[k]; ok {
					p.Drift.Compared++
				}
			}
			p.Drift.Points++
			p.Problems = append(p.Problems, p.Drift.compareMaps(d.ID, "", without(sent, PayloadID, PayloadSource), without(payload, PayloadID, PayloadSource))...)
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

// without returns m less the keys given.
func without(m map[string]*qdrant.Value, keys ...string) map[string]*qdrant.Value {
	out := make(map[string]*qdrant.Value, len(m))
	for k, v := range m {
		out[k] = v
	}
	for _, k := range keys {
		delete(out, k)
	}
	return out
}

func sortedValueKeys(m map[string]*qdrant.Value) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

//go:build realengines

package realengines

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/qdrant/go-client/qdrant"
	"github.com/tidwall/gjson"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/conform-dev/conform/fixtures"
	"github.com/conform-dev/conform/internal/serdefloat"
	"github.com/conform-dev/conform/load"
	"github.com/conform-dev/conform/load/loadtest"
)

// qdrantEngine returns the gRPC address and HTTP URL of the Qdrant make engines started. When
// it started none, the test is skipped with the reason make engines recorded, loudly; under
// CI=true that fails only when QDRANT_BIN was set, since then a server was meant to run.
func qdrantEngine(t *testing.T) (grpcAddr, httpURL string) {
	t.Helper()
	st := state(t)
	if st["QDRANT_GRPC"] != "" {
		return st["QDRANT_GRPC"], st["QDRANT_URL"]
	}
	why := st["QDRANT_MISSING"]
	if why == "" {
		why = "make engines recorded no Qdrant (engines started by an older engines.sh?)"
	}
	if bin := os.Getenv("QDRANT_BIN"); bin != "" && os.Getenv("CI") == "true" {
		t.Fatalf("CI=true and QDRANT_BIN=%s is set, but make engines started no Qdrant: %s", bin, why)
	}
	t.Skipf("QDRANT TESTS NOT RUN: %s (lab/engines.sh says how to get Qdrant %s; set QDRANT_BIN and run make engines again)", why, "1.17.0")
	return "", ""
}

// qdrantREST sends one request to Qdrant's HTTP API, as another tool would, and returns the
// status and body.
func qdrantREST(t *testing.T, method, url, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	c := &http.Client{Timeout: 30 * time.Second}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func mustREST(t *testing.T, method, url, body string) []byte {
	t.Helper()
	code, b := qdrantREST(t, method, url, body)
	if code != http.StatusOK {
		t.Fatalf("%s %s %s: %d %s", method, url, body, code, b)
	}
	return b
}

// loadSummary runs conform load with --json and returns its exit code, the summary and the
// output.
func loadSummary(t *testing.T, args ...string) (int, *load.Summary, string) {
	t.Helper()
	code, out := conform(t, append(args, "--json")...)
	var s load.Summary
	if i := strings.Index(out, "{\n"); i >= 0 {
		if err := json.NewDecoder(strings.NewReader(out[i:])).Decode(&s); err != nil {
			t.Fatalf("conform %s: exit %d, JSON: %v\n%s", strings.Join(args, " "), code, err, tail(out))
		}
	} else {
		t.Fatalf("conform %s: exit %d, no JSON\n%s", strings.Join(args, " "), code, tail(out))
	}
	return code, &s, out
}

// expectedDrift is what the sampled points' doubles should do on a Qdrant that reads payloads
// back through serde_json's round trip: how many doubles, and how many of them drift.
func expectedDrift(t *testing.T, f *fixtures.Fixtures) (doubles, drifted int) {
	t.Helper()
	schema, err := load.NewQdrantSchema(f.Mapping)
	if err != nil {
		t.Fatal(err)
	}
	docs, _ := load.Sample(f, 0)
	for _, d := range docs {
		p, err := schema.Payload(d)
		if err != nil {
			t.Fatal(err)
		}
		walkDoubles(p, func(x float64) {
			doubles++
			if serdefloat.RoundTrip(x) != x {
				drifted++
			}
		})
	}
	return doubles, drifted
}

func walkDoubles(p map[string]*qdrant.Value, fn func(float64)) {
	var walk func(v *qdrant.Value)
	walk = func(v *qdrant.Value) {
		switch k := v.GetKind().(type) {
		case *qdrant.Value_DoubleValue:
			fn(k.DoubleValue)
		case *qdrant.Value_ListValue:
			for _, e := range k.ListValue.GetValues() {
				walk(e)
			}
		case *qdrant.Value_StructValue:
			walkDoubles(k.StructValue.GetFields(), fn)
		}
	}
	for _, v := range p {
		walk(v)
	}
}

// TestQdrant loads the designed catalogue into real Qdrant through the built binary, probes
// it, reads every point back, refuses and then performs a reload, finds a point deleted and a
// payload edited through Qdrant's HTTP API, and loads the price-double variant beside it.
func TestQdrant(t *testing.T) {
	grpcAddr, httpURL := qdrantEngine(t)
	f := fixtures.Default()
	const coll = "catalogue"

	out := mustConform(t, "load", "--qdrant", grpcAddr, "--collection", coll, "--recreate")
	if !strings.Contains(out, ": intact") {
		t.Fatalf("the load is not intact:\n%s", tail(out))
	}
	t.Logf("conform load --qdrant:\n%s", tail(out))

	t.Run("probe", func(t *testing.T) {
		code, s, out := loadSummary(t, "load", "--probe", "--qdrant", grpcAddr, "--collection", coll)
		p := s.Qdrant.Probe
		if code != 0 || !p.Intact() || p.Count != 10000 || p.Status != "green" {
			t.Fatalf("probe: exit %d, %+v\n%s", code, p, tail(out))
		}
		doubles, drifted := expectedDrift(t, f)
		d := p.Drift
		if d == nil || d.Points != 100 || d.Values != doubles || d.Drifted != drifted || d.Compared <= d.Values {
			t.Fatalf("drift = %+v, want 100 points, %d doubles, %d drifted as Qdrant's JSON round trip predicts", d, doubles, drifted)
		}
		for _, v := range d.First {
			if v.ULPs != 1 {
				t.Errorf("drifted by %d ulp: %s", v.ULPs, v)
			}
		}
		_, text := conform(t, "load", "--probe", "--qdrant", grpcAddr, "--collection", coll)
		t.Logf("Qdrant %s, conform load --probe --qdrant:\n%s", s.Qdrant.Server.Version, text)
	})

	t.Run("every-point", func(t *testing.T) { testEveryPoint(t, grpcAddr, coll, f) })

	t.Run("reload", func(t *testing.T) {
		code, out := conform(t, "load", "--qdrant", grpcAddr, "--collection", coll)
		if code != 2 || !strings.Contains(out, `collection "catalogue" already holds 10000 documents`) || !strings.Contains(out, "--recreate") {
			t.Fatalf("a reload without --recreate: exit %d, want 2 and a refusal\n%s", code, tail(out))
		}
		if n := gjson.GetBytes(mustREST(t, "POST", httpURL+"/collections/"+coll+"/points/count", `{"exact":true}`), "result.count").Int(); n != 10000 {
			t.Fatalf("the refused reload changed the collection: %d points", n)
		}
		out = mustConform(t, "load", "--qdrant", grpcAddr, "--collection", coll, "--recreate")
		if !strings.Contains(out, "replaced the existing collection and loaded 10000 points") || !strings.Contains(out, ": intact") {
			t.Fatalf("a reload with --recreate:\n%s", tail(out))
		}
	})

	t.Run("tampered", func(t *testing.T) {
		docs, _ := load.Sample(f, 0)
		gone, edited := docs[3], docs[7]
		mustREST(t, "POST", httpURL+"/collections/"+coll+"/points/delete?wait=true", fmt.Sprintf(`{"points":[%q]}`, load.PointID(gone.ID)))
		mustREST(t, "POST", httpURL+"/collections/"+coll+"/points/payload?wait=true", fmt.Sprintf(`{"payload":{"brand":"tampered"},"points":[%q]}`, load.PointID(edited.ID)))
		code, s, _ := loadSummary(t, "load", "--probe", "--qdrant", grpcAddr, "--collection", coll)
		p := s.Qdrant.Probe
		found := map[string]string{}
		for _, pr := range p.Problems {
			found[pr.Kind+" "+pr.ID+" "+pr.Key] = pr.String()
		}
		brand := gjson.GetBytes(edited.Source, "brand").String()
		want := map[string]string{
			"count  ":                         `count: want 10000, got 9999`,
			"missing " + gone.ID + " ":        fmt.Sprintf("missing %q: want point %s, got none", gone.ID, load.PointID(gone.ID)),
			"payload " + edited.ID + " brand": fmt.Sprintf(`payload %q brand: want %q, got "tampered"`, edited.ID, brand),
		}
		if code != 1 || p.Intact() || len(p.Problems) != len(want) {
			t.Errorf("probe of the tampered collection: exit %d, problems %v", code, p.Problems)
		}
		for k, w := range want {
			if found[k] != w {
				t.Errorf("problem %q = %q, want %q", k, found[k], w)
			}
		}
		_, text := conform(t, "load", "--probe", "--qdrant", grpcAddr, "--collection", coll)
		t.Logf("after deleting %s and editing %s's brand over HTTP, conform load --probe --qdrant:\n%s", gone.ID, edited.ID, text)
		mustConform(t, "load", "--qdrant", grpcAddr, "--collection", coll, "--recreate")
	})

	t.Run("price-double", func(t *testing.T) {
		fx := priceDouble(t)
		pd, err := fixtures.Load(fx)
		if err != nil {
			t.Fatal(err)
		}
		const pdColl = "catalogue-price-double"
		defer qdrantREST(t, "DELETE", httpURL+"/collections/"+pdColl, "")
		out := mustConform(t, "load", "--qdrant", grpcAddr, "--collection", pdColl, "--fixtures", fx, "--recreate")
		code, s, _ := loadSummary(t, "load", "--probe", "--qdrant", grpcAddr, "--collection", pdColl, "--fixtures", fx)
		p := s.Qdrant.Probe
		doubles, drifted := expectedDrift(t, pd)
		if code != 0 || !p.Intact() || p.Count != 10000 || p.Drift.Values != doubles || p.Drift.Drifted != drifted {
			t.Fatalf("price-double: exit %d, probe %+v, drift %+v, want %d doubles, %d drifted\n%s", code, p, p.Drift, doubles, drifted, tail(out))
		}
		t.Logf("price-double variant:\n%s", tail(out))
		testEveryPoint(t, grpcAddr, pdColl, pd)
	})
}

// testEveryPoint reads every point of the collection back with go-client and compares its
// payload with what the loader writes: each value equal, but for doubles that read back as
// serde_json's round trip of what was sent. It logs how many doubles drifted, and by field.
func testEveryPoint(t *testing.T, grpcAddr, coll string, f *fixtures.Fixtures) {
	ctx := context.Background()
	c, _, err := load.DialQdrant(ctx, load.QdrantConfig{Addr: grpcAddr})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	schema, err := load.NewQdrantSchema(f.Mapping)
	if err != nil {
		t.Fatal(err)
	}
	sent := map[string]map[string]*qdrant.Value{}
	ids := map[string]string{}
	for _, d := range f.Docs {
		p, err := schema.Payload(d)
		if err != nil {
			t.Fatal(err)
		}
		sent[load.PointID(d.ID)], ids[load.PointID(d.ID)] = p, d.ID
	}
	var (
		offset                   *qdrant.PointId
		points, doubles, drifted int
		byKey                    = map[string]int{}
		bad                      []string
	)
	for {
		pts, next, err := c.ScrollAndOffset(ctx, &qdrant.ScrollPoints{
			CollectionName: coll, Limit: qdrant.PtrOf(uint32(1000)), Offset: offset,
			WithPayload: qdrant.NewWithPayload(true), WithVectors: qdrant.NewWithVectors(false),
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, pt := range pts {
			points++
			want := sent[pt.GetId().GetUuid()]
			got := pt.GetPayload()
			if want == nil || len(got) != len(want) {
				bad = append(bad, fmt.Sprintf("point %s: %d keys, want %d", pt.GetId().GetUuid(), len(got), len(want)))
				continue
			}
			for k, w := range want {
				g := got[k]
				if wd, ok := w.GetKind().(*qdrant.Value_DoubleValue); ok {
					doubles++
					gd := g.GetDoubleValue()
					switch {
					case math.Float64bits(gd) == math.Float64bits(wd.DoubleValue):
					case math.Float64bits(gd) == math.Float64bits(serdefloat.RoundTrip(wd.DoubleValue)):
						drifted++
						byKey[k]++
					default:
						bad = append(bad, fmt.Sprintf("%s %s: sent %v, read %v", ids[pt.GetId().GetUuid()], k, wd.DoubleValue, g))
					}
					continue
				}
				if !proto.Equal(w, g) {
					bad = append(bad, fmt.Sprintf("%s %s: sent %v, read %v", ids[pt.GetId().GetUuid()], k, w, g))
				}
			}
		}
		if next == nil {
			break
		}
		offset = next
	}
	if points != len(f.Docs) || len(bad) > 0 {
		t.Fatalf("%d points read, want %d; %d values differ otherwise than serde_json's round trip predicts, first: %v", points, len(f.Docs), len(bad), bad[:min(5, len(bad))])
	}
	if drifted == 0 {
		t.Errorf("no double drifted: this Qdrant returns doubles exactly, and load/QDRANT.md must say which version does")
	}
	t.Logf("%s: every point read back: %d of its %d doubles one ulp off, as serde_json's round trip predicts each (by field: %v); every other value as written", coll, drifted, doubles, byKey)
}

// scratch creates a payload-only collection for a test and deletes it afterwards.
func scratch(t *testing.T, httpURL, name string) string {
	t.Helper()
	u := httpURL + "/collections/" + name
	qdrantREST(t, "DELETE", u, "")
	mustREST(t, "PUT", u, `{}`)
	t.Cleanup(func() { qdrantREST(t, "DELETE", u, "") })
	return u
}

// TestQdrantFakeAgrees runs one script of calls against real Qdrant and against the fake the
// unit tests use (load/loadtest.FakeQdrant), and requires the same answers: error codes and
// messages, counts, is_empty, payload_schema points, Get's order, duplicates and payload
// selectors, and doubles read back. A difference is a behaviour of the fake the real server
// contradicts.
func TestQdrantFakeAgrees(t *testing.T) {
	grpcAddr, _ := qdrantEngine(t)
	ctx := context.Background()
	real, _, err := load.DialQdrant(ctx, load.QdrantConfig{Addr: grpcAddr})
	if err != nil {
		t.Fatal(err)
	}
	defer real.Close()
	fq := loadtest.NewFakeQdrant()
	fakeAddr, err := fq.Start(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer fq.Close()
	fake, _, err := load.DialQdrant(ctx, load.QdrantConfig{Addr: fakeAddr})
	if err != nil {
		t.Fatal(err)
	}
	defer fake.Close()

	want, got := fakeScript(ctx, real), fakeScript(ctx, fake)
	for i := 0; i < max(len(want), len(got)); i++ {
		w, g := "", ""
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if w != g {
			t.Errorf("the fake contradicts Qdrant:\n  qdrant: %s\n  fake:   %s", w, g)
		}
	}
	t.Logf("the fake and Qdrant answered %d calls alike", len(want))
}

// fakeScript is what the loader and probe ask of Qdrant, and the edge cases of their answers,
// within what the fake serves (payload-only collections, UUID ids, counts with no filter or
// one must_not is_empty). Each line is a call and what came back.
func fakeScript(ctx context.Context, c *qdrant.Client) []string {
	const coll = "conform-fake-check"
	var out []string
	say := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	errText := func(err error) string {
		if err == nil {
			return "ok"
		}
		if st, ok := status.FromError(errors.Unwrap(err)); ok {
			return fmt.Sprintf("%s: %s", st.Code(), st.Message())
		}
		return err.Error()
	}
	h, err := c.HealthCheck(ctx)
	say("health: %s %s", h.GetTitle(), errText(err)) // the version is the server's, not a behaviour
	c.GetCollectionsClient().Delete(ctx, &qdrant.DeleteCollection{CollectionName: coll})
	ok, err := c.CollectionExists(ctx, coll)
	say("exists absent: %v %s", ok, errText(err))
	_, err = c.GetCollectionInfo(ctx, coll)
	say("info absent: %s", errText(err))
	dr, err := c.GetCollectionsClient().Delete(ctx, &qdrant.DeleteCollection{CollectionName: coll})
	say("delete absent: %v %s", dr.GetResult(), errText(err))
	say("create: %s", errText(c.CreateCollection(ctx, &qdrant.CreateCollection{CollectionName: coll})))
	say("create again: %s", errText(c.CreateCollection(ctx, &qdrant.CreateCollection{CollectionName: coll})))
	_, err = c.CreateFieldIndex(ctx, &qdrant.CreateFieldIndexCollection{CollectionName: coll, FieldName: "k", Wait: qdrant.PtrOf(true)})
	say("index without a type: %s", errText(err))
	type index struct {
		key string
		t   qdrant.FieldType
	}
	indexes := []index{
		{"k", qdrant.FieldType_FieldTypeKeyword}, {"n", qdrant.FieldType_FieldTypeInteger},
		{"f", qdrant.FieldType_FieldTypeFloat}, {"b", qdrant.FieldType_FieldTypeBool},
		{"d", qdrant.FieldType_FieldTypeDatetime}, {"o[].k", qdrant.FieldType_FieldTypeKeyword},
		{"o.k", qdrant.FieldType_FieldTypeKeyword},
	}
	for _, ix := range indexes {
		var params *qdrant.PayloadIndexParams
		if ix.t == qdrant.FieldType_FieldTypeInteger {
			params = qdrant.NewPayloadIndexParamsInt(&qdrant.IntegerIndexParams{Lookup: qdrant.PtrOf(true), Range: qdrant.PtrOf(true)})
		}
		r, err := c.CreateFieldIndex(ctx, &qdrant.CreateFieldIndexCollection{CollectionName: coll, FieldName: ix.key, FieldType: ix.t.Enum(), FieldIndexParams: params, Wait: qdrant.PtrOf(true)})
		say("index %s: %s %s", ix.key, r.GetStatus(), errText(err))
	}
	id := func(i int) *qdrant.PointId { return qdrant.NewIDUUID(fmt.Sprintf("00000000-0000-4000-8000-%012d", i)) }
	none := func() *qdrant.Vectors { return qdrant.NewVectorsMap(map[string]*qdrant.Vector{}) }
	_, err = c.Upsert(ctx, &qdrant.UpsertPoints{CollectionName: coll, Wait: qdrant.PtrOf(true), Points: []*qdrant.PointStruct{{Id: id(1), Payload: qdrant.NewValueMap(map[string]any{"k": "a"})}}})
	say("upsert without vectors: %s", errText(err))
	_, err = c.Upsert(ctx, &qdrant.UpsertPoints{CollectionName: coll, Wait: qdrant.PtrOf(true), Points: []*qdrant.PointStruct{{Id: id(1), Vectors: qdrant.NewVectorsDense([]float32{1, 2}), Payload: qdrant.NewValueMap(map[string]any{"k": "a"})}}})
	say("upsert with a vector: %s", errText(err))
	payloads := []map[string]any{
		{"k": "a", "n": 1, "f": 1.5, "b": true, "d": "2021-01-01T00:00:00Z", "o": []any{map[string]any{"k": "x"}}},
		{"k": nil, "n": nil, "f": nil, "b": nil, "d": nil, "o": nil},
		{"k": []any{}, "n": []any{}, "o": []any{}},
		{"k": []any{nil}, "n": []any{nil}, "o": []any{nil}},
		{"other": "x", "d": "nope"},
		{"k": []any{"a", nil}, "n": []any{2, nil}, "f": []any{20.900000000000002, 3}, "o": map[string]any{"k": "y"}, "d": "2021-01-01"},
		{"k": 5, "n": "x", "f": "x", "b": "true", "d": 12},
		{"k": "", "n": 2.0, "f": true, "o": []any{map[string]any{"k": []any{"p", "q"}}, map[string]any{"j": 1}}},
		{"n": 2.5, "d": "2021-01-01 10:11:12.123456"},
		{"n": -7.0, "d": "2021-01-01T10:11"},
	}
	var pts []*qdrant.PointStruct
	for i, p := range payloads {
		pts = append(pts, &qdrant.PointStruct{Id: id(i + 1), Vectors: none(), Payload: qdrant.NewValueMap(p)})
	}
	r, err := c.Upsert(ctx, &qdrant.UpsertPoints{CollectionName: coll, Wait: qdrant.PtrOf(true), Points: pts})
	say("upsert %d points: %s %s", len(pts), r.GetStatus(), errText(err))
	n, err := c.Count(ctx, &qdrant.CountPoints{CollectionName: coll, Exact: qdrant.PtrOf(true)})
	say("count: %d %s", n, errText(err))
	for _, key := range []string{"k", "n", "f", "b", "d", "o[].k", "o.k", "o", "other", "missing"} {
		n, err := c.Count(ctx, &qdrant.CountPoints{CollectionName: coll, Exact: qdrant.PtrOf(true), Filter: &qdrant.Filter{MustNot: []*qdrant.Condition{qdrant.NewIsEmpty(key)}}})
		say("count not is_empty(%s): %d %s", key, n, errText(err))
	}
	info, err := c.GetCollectionInfo(ctx, coll)
	say("info: %s points %d %s", info.GetStatus(), info.GetPointsCount(), errText(err))
	for _, ix := range indexes {
		si := info.GetPayloadSchema()[ix.key]
		say("payload_schema[%s]: %s points %d", ix.key, si.GetDataType(), si.GetPoints())
	}
	get := func(what string, ids []*qdrant.PointId, sel *qdrant.WithPayloadSelector) {
		pts, err := c.Get(ctx, &qdrant.GetPoints{CollectionName: coll, Ids: ids, WithPayload: sel})
		var got []string
		for _, p := range pts {
			got = append(got, p.GetId().GetUuid()[24:]+" "+payloadText(p.GetPayload()))
		}
		say("get %s: %s %s", what, strings.Join(got, " | "), errText(err))
	}
	get("3, absent, 1, 3 without a selector", []*qdrant.PointId{id(3), id(99), id(1), id(3)}, nil)
	get("1 and 6 including k", []*qdrant.PointId{id(1), id(6)}, qdrant.NewWithPayloadInclude("k"))
	get("1 excluding k", []*qdrant.PointId{id(1)}, qdrant.NewWithPayloadExclude("k"))
	var all []*qdrant.PointId
	for i := range payloads {
		all = append(all, id(i+1))
	}
	get("every point", all, qdrant.NewWithPayload(true))
	dr, err = c.GetCollectionsClient().Delete(ctx, &qdrant.DeleteCollection{CollectionName: coll})
	say("delete: %v %s", dr.GetResult(), errText(err))
	return out
}

// payloadText renders a payload with sorted keys, numbers as Go writes them and each value's
// kind, so an integer 2 and a double 2 differ.
func payloadText(p map[string]*qdrant.Value) string {
	var b strings.Builder
	var write func(v *qdrant.Value)
	write = func(v *qdrant.Value) {
		switch k := v.GetKind().(type) {
		case *qdrant.Value_NullValue:
			b.WriteString("null")
		case *qdrant.Value_BoolValue:
			fmt.Fprint(&b, k.BoolValue)
		case *qdrant.Value_IntegerValue:
			fmt.Fprintf(&b, "int(%d)", k.IntegerValue)
		case *qdrant.Value_DoubleValue:
			fmt.Fprintf(&b, "double(%s)", strconv.FormatFloat(k.DoubleValue, 'g', -1, 64))
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
			b.WriteString(payloadText(k.StructValue.GetFields()))
		}
	}
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(k + ":")
		write(p[k])
	}
	b.WriteByte('}')
	return b.String()
}

// TestQdrantFacts checks, on the real server, the facts about Qdrant that load/QDRANT.md ("What
// Qdrant does") states and the loader and a gateway rely on, each through Qdrant's HTTP API or
// go-client, on a scratch collection deleted afterwards. Its log is what QDRANT.md cites as
// seen.
func TestQdrantFacts(t *testing.T) {
	grpcAddr, httpURL := qdrantEngine(t)
	u := scratch(t, httpURL, "conform-facts")
	post := func(path, body string) (int, gjson.Result) {
		t.Helper()
		code, b := qdrantREST(t, "POST", u+path, body)
		return code, gjson.ParseBytes(b)
	}
	fact := func(ok bool, format string, args ...any) {
		t.Helper()
		if !ok {
			t.Errorf("NOT SEEN: "+format, args...)
			return
		}
		t.Logf("seen: "+format, args...)
	}
	for _, ix := range []string{
		`{"field_name":"i","field_schema":{"type":"integer","lookup":true,"range":true}}`,
		`{"field_name":"m","field_schema":{"type":"integer","lookup":true,"range":true}}`,
		`{"field_name":"big","field_schema":{"type":"integer","lookup":true,"range":true}}`,
		`{"field_name":"f","field_schema":"float"}`,
		`{"field_name":"k","field_schema":"keyword"}`,
		`{"field_name":"fk","field_schema":"keyword"}`,
		`{"field_name":"d","field_schema":"datetime"}`,
		`{"field_name":"b","field_schema":"bool"}`,
		`{"field_name":"ni","field_schema":"integer"}`,
		`{"field_name":"ii","field_schema":"integer"}`,
	} {
		mustREST(t, "PUT", u+"/index?wait=true", ix)
	}
	points := []string{
		`{"id":1,"vector":{},"payload":{"i":3,"f":1.5,"k":"a","m":[5,1],"d":"2021-01-01T00:00:00.000001Z","b":true,"ui":1,"uf":1.0,"ii":1.0,"n":[null],"ni":[null]}}`,
		`{"id":2,"vector":{},"payload":{"i":1,"f":2.5,"k":"b","m":[3],"d":"2021-01-01T00:00:00.000002Z","b":false,"n":null,"ni":null}}`,
		`{"id":3,"vector":{},"payload":{"i":2,"k":"a","m":[]}}`,
		`{"id":4,"vector":{},"payload":{"i":2,"f":0.5,"k":"c","m":[4]}}`,
		`{"id":5,"vector":{},"payload":{"k":"a"}}`,
		`{"id":6,"vector":{},"payload":{"big":9007199254740992}}`,
		`{"id":7,"vector":{},"payload":{"big":9007199254740993,"u64":18446744073709551615,"o":{"q":1,"b":2,"a":3},"x":1.50,"e":1e3}}`,
	}
	for i := 0; i < 12; i++ {
		v := fmt.Sprintf("v%02d", i)
		points = append(points, fmt.Sprintf(`{"id":%d,"vector":{},"payload":{"fk":%q}}`, 100+i, v))
		if i == 7 {
			points = append(points, fmt.Sprintf(`{"id":%d,"vector":{},"payload":{"fk":%q}}`, 200+i, v))
		}
	}
	mustREST(t, "PUT", u+"/points?wait=true", `{"points":[`+strings.Join(points, ",")+`]}`)

	ids := func(r gjson.Result) string {
		var out []string
		for _, p := range r.Get("result.points").Array() {
			out = append(out, p.Get("id").String())
		}
		return strings.Join(out, ",")
	}

	// Q2, ordered scrolls.
	code, r := post("/points/scroll", `{"order_by":"k","limit":10}`)
	fact(code == 400, "order_by on a keyword index is refused: %d %s", code, r.Get("status.error"))
	code, r = post("/points/scroll", `{"order_by":"ui","limit":10}`)
	fact(code == 400, "order_by on a field without a range index is refused: %d %s", code, r.Get("status.error"))
	code, r = post("/points/scroll", `{"order_by":"i","limit":10}`)
	got := ids(r)
	fact(code == 200 && (got == "2,3,4,1" || got == "2,4,3,1"), "order_by i asc returns %s: ties (3 and 4) in either order, point 5 without i never", got)
	code, r = post("/points/scroll", `{"order_by":"i","limit":10,"offset":1}`)
	fact(code == 400 && strings.Contains(r.Get("status.error").String(), "Cannot use an `offset` when using `order_by`"), "offset with order_by is refused: %d %s", code, r.Get("status.error"))
	code, r = post("/points/scroll", `{"order_by":"m","limit":10}`)
	fact(code == 200 && ids(r) == "1,2,4,1", "order_by on a multi-valued field repeats a point once per value: %s", ids(r))
	fact(r.Get("result.next_page_offset").Type == gjson.Null, "next_page_offset is null with order_by: %s", r.Get("result.next_page_offset").Raw)
	code, r = post("/points/scroll", `{"order_by":{"key":"big","start_from":9007199254740993},"limit":10}`)
	fact(code == 200 && ids(r) == "6,7", "an integer start_from of 2^53+1 is read as the double 2^53, so 2^53 is returned too: %s", ids(r))

	// Q3, counts and facets.
	code, r = post("/facet", `{"key":"f"}`)
	fact(code == 400, "a facet on a float index is refused: %d %s", code, r.Get("status.error"))
	code, r = post("/facet", `{"key":"d"}`)
	fact(code == 400, "a facet on a datetime index is refused: %d %s", code, r.Get("status.error"))
	code, r = post("/facet", `{"key":"fk"}`)
	hits := r.Get("result.hits").Array()
	var order []string
	for _, h := range hits {
		order = append(order, fmt.Sprintf("%s:%d", h.Get("value"), h.Get("count").Int()))
	}
	fact(code == 200 && len(hits) == 10 && strings.HasPrefix(strings.Join(order, " "), "v07:2 v00:1 v01:1"), "a facet without a limit returns 10 values, by count descending then value ascending: %s", strings.Join(order, " "))
	code, r = post("/facet", `{"key":"i","exact":true}`)
	fact(code == 200 && r.Get("result.hits.0.value").Int() == 2 && r.Get("result.hits.0.count").Int() == 2, "a facet on an integer index with lookup works: %s", r.Get("result.hits").Raw)

	// Q4, filters.
	count := func(filter string) string {
		code, r := post("/points/count", `{"exact":true,"filter":`+filter+`}`)
		if code != 200 {
			return fmt.Sprintf("%d %s", code, r.Get("status.error"))
		}
		return r.Get("result.count").String()
	}
	c := count(`{"must":[{"is_null":{"key":"n"}}]}`)
	fact(c == "1", "is_null on a key without an index matches an explicit null, not [null]: %s", c)
	c = count(`{"must":[{"is_null":{"key":"ni"}}]}`)
	fact(c == "2", "is_null on a key with a payload index matches an explicit null and [null]: %s", c)
	c = count(`{"must":[{"is_empty":{"key":"n"}}]}`)
	fact(c == "19", "is_empty matches null and a missing key, not [null]: %s of 20 points", c)
	c = count(`{"must":[{"key":"f","match":{"value":1.5}}]}`)
	fact(strings.HasPrefix(c, "400"), "a match on a double is refused: %s", c)
	c = count(`{"must":[{"key":"uf","match":{"value":1}}]}`)
	fact(c == "0", "an integer match does not match a stored 1.0 without an index: %s", c)
	c = count(`{"must":[{"key":"ii","match":{"value":1}}]}`)
	fact(c == "1", "but does with an integer index, which takes 1.0 as 1: %s", c)
	c = count(`{"must":[{"key":"m","match":{"value":5}}]}`)
	fact(c == "1", "a match on a multi-valued field matches any value: %s", c)
	c1, c2 := count(`{"should":[]}`), count(`{"must":[{"key":"k","match":{"value":"a"}}],"should":[]}`)
	t.Logf("seen: an empty should counts %s alone and %s beside a must that matches 3 (load/QDRANT.md: never send one)", c1, c2)

	// Q5, numbers, key order, datetimes.
	c = count(`{"must":[{"key":"d","range":{"gt":"2021-01-01T00:00:00.000001Z"}}]}`)
	fact(c == "1", "a datetime range resolves microseconds: %s", c)
	b := mustREST(t, "POST", u+"/points", `{"ids":[7],"with_payload":true}`)
	raw := gjson.GetBytes(b, "result.0.payload")
	fact(raw.Get("o").Raw == `{"q":1,"b":2,"a":3}`, "REST keeps a payload object's key order: %s", raw.Get("o").Raw)
	fact(raw.Get("x").Raw == "1.5" && raw.Get("e").Raw == "1000.0", "REST re-serialises numbers: 1.50 as %s, 1e3 as %s", raw.Get("x").Raw, raw.Get("e").Raw)
	ctx := context.Background()
	qc, srv, err := load.DialQdrant(ctx, load.QdrantConfig{Addr: grpcAddr})
	if err != nil {
		t.Fatal(err)
	}
	defer qc.Close()
	pts, err := qc.Get(ctx, &qdrant.GetPoints{CollectionName: "conform-facts", Ids: []*qdrant.PointId{qdrant.NewIDNum(7)}, WithPayload: qdrant.NewWithPayload(true)})
	if err != nil || len(pts) != 1 {
		t.Fatalf("get 7: %v %v", pts, err)
	}
	u64 := pts[0].GetPayload()["u64"]
	fact(u64.GetDoubleValue() == 18446744073709551615, "over gRPC a number that does not fit an i64 is a double: %v", u64)
	fact(pts[0].GetPayload()["big"].GetIntegerValue() == 9007199254740993, "and one that fits is an integer, exactly: %v", pts[0].GetPayload()["big"])

	// Q6, the server and the client.
	fact(srv.Title == "qdrant - vector search engine" && srv.Version != "", "HealthCheck: title %q, version %q, commit %q", srv.Title, srv.Version, srv.Commit)
	code, rb := qdrantREST(t, "GET", httpURL+"/readyz", "")
	fact(code == 200 && string(rb) == "all shards are ready", "GET /readyz: %d %s", code, rb)
	code, rb = qdrantREST(t, "GET", httpURL+"/healthz", "")
	fact(code == 200 && string(rb) == "healthz check passed", "GET /healthz: %d %s", code, rb)
	big := strings.Repeat("x", 100<<10)
	var heavy []string
	for i := 0; i < 48; i++ {
		heavy = append(heavy, fmt.Sprintf(`{"id":%d,"vector":{},"payload":{"s":%q}}`, 1000+i, big))
	}
	mustREST(t, "PUT", u+"/points?wait=true", `{"points":[`+strings.Join(heavy, ",")+`]}`)
	host, port, _ := strings.Cut(grpcAddr, ":")
	pn, _ := strconv.Atoi(port)
	plain, err := qdrant.NewClient(&qdrant.Config{Host: host, Port: pn, SkipCompatibilityCheck: true})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	_, err = plain.Scroll(ctx, &qdrant.ScrollPoints{CollectionName: "conform-facts", Limit: qdrant.PtrOf(uint32(100)), WithPayload: qdrant.NewWithPayload(true)})
	st, _ := status.FromError(errors.Unwrap(err))
	fact(st.Code() == codes.ResourceExhausted, "go-client with grpc-go's default 4 MB receive limit cannot read a 4.8 MB scroll: %v", err)
	_, err = qc.Scroll(ctx, &qdrant.ScrollPoints{CollectionName: "conform-facts", Limit: qdrant.PtrOf(uint32(100)), WithPayload: qdrant.NewWithPayload(true)})
	fact(err == nil, "the loader's client (limits raised to 256 MiB) can: %v", err)
}

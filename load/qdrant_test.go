package load

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"math/big"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/qdrant/go-client/qdrant"

	"github.com/conform-dev/conform/fixtures"
	"github.com/conform-dev/conform/load/loadtest"
)

// startQdrant serves a FakeQdrant on loopback and dials it the way conform load does.
func startQdrant(t testing.TB, fq *loadtest.FakeQdrant) *qdrant.Client {
	t.Helper()
	addr, err := fq.Start(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fq.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, srv, err := DialQdrant(ctx, QdrantConfig{Addr: addr})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if srv.Version != fq.Version || srv.Commit != "fakecommit" {
		t.Errorf("server = %+v", srv)
	}
	return c
}

func fastQdrant() QdrantOptions {
	return QdrantOptions{PollInterval: time.Millisecond, GreenTimeout: time.Second}
}

func TestIDNamespaceIsDerivedAsDocumented(t *testing.T) {
	if got := uuid.NewSHA1(uuid.NameSpaceDNS, []byte("conform.dev")).String(); got != IDNamespace {
		t.Errorf("UUIDv5(DNS, conform.dev) = %s, but IDNamespace is %s", got, IDNamespace)
	}
	// The UUIDv5 test vector of RFC 4122 implementations (Python's uuid5(NAMESPACE_DNS,
	// "python.org")) checks the construction itself.
	if got := uuid.NewSHA1(uuid.NameSpaceDNS, []byte("python.org")).String(); got != "886313e1-3b8a-5372-9b90-0c9aee199e5d" {
		t.Errorf("uuid5 test vector = %s", got)
	}
	id := PointID("SKU-03331")
	if u := uuid.MustParse(id); u.Version() != 5 || id != strings.ToLower(id) || id == PointID("SKU-03332") {
		t.Errorf("PointID = %s (version %d)", id, u.Version())
	}
}

func TestLoadQdrantWritesWhatTheGatewayReads(t *testing.T) {
	f := testFixtures(t, kindsMapping,
		[2]string{"a", `{"sku":"a","stock":12,"weight":129.0,"in_stock":"true","tags":["x","y"],"released":"2020-01-01"}`},
		[2]string{"b", `{"sku":"b","stock":12.0,"weight":129,"in_stock":false,"tags":[],"rating":4.1,"price":19.99}`},
		[2]string{"c", `{"sku":"c","stock":null,"tags":[null],"dims":{"width":3,"at":1577836800000},"note":"free text"}`},
	)
	fq := loadtest.NewFakeQdrant()
	c := startQdrant(t, fq)
	o := fastQdrant()
	o.BatchPoints = 2
	rep, err := LoadQdrant(context.Background(), c, f, o)
	if err != nil {
		t.Fatal(err)
	}
	fq.Lock()
	defer fq.Unlock()

	// A payload-only collection: no vectors of any kind.
	if len(fq.Creates) != 1 || fq.Creates[0].GetCollectionName() != "catalogue" ||
		fq.Creates[0].VectorsConfig != nil || fq.Creates[0].SparseVectorsConfig != nil {
		t.Errorf("create = %v", fq.Creates)
	}
	// Every payload index, with Wait, before the first upsert.
	schema := mustSchema(t, kindsMapping)
	want := schema.Indexes()
	if len(fq.FieldIndexes) != len(want) {
		t.Fatalf("%d payload indexes created, want %d", len(fq.FieldIndexes), len(want))
	}
	for i, ix := range fq.FieldIndexes {
		if ix.GetFieldName() != want[i].Key || ix.GetFieldType() != want[i].Type || !ix.GetWait() {
			t.Errorf("index %d = %v, want %s %s with wait", i, ix, want[i].Key, want[i].TypeName())
		}
		if ix.GetFieldType() == qdrant.FieldType_FieldTypeInteger {
			p := ix.GetFieldIndexParams().GetIntegerIndexParams()
			if !p.GetLookup() || !p.GetRange() {
				t.Errorf("integer index %s params = %v, want lookup and range", ix.GetFieldName(), p)
			}
		}
	}
	lastIndex, firstUpsert := -1, -1
	for i, call := range fq.Calls {
		if strings.HasSuffix(call, "/CreateFieldIndex") {
			lastIndex = i
		}
		if strings.HasSuffix(call, "/Upsert") && firstUpsert < 0 {
			firstUpsert = i
		}
	}
	if lastIndex < 0 || firstUpsert < lastIndex {
		t.Errorf("an upsert came before the last payload index: %v", fq.Calls)
	}
	// Batches of BatchPoints, each waited for, each point vectorless with its UUIDv5 id.
	if len(fq.Upserts) != 2 || len(fq.Upserts[0].Points) != 2 || len(fq.Upserts[1].Points) != 1 {
		t.Fatalf("upserts = %d", len(fq.Upserts))
	}
	ns := uuid.NewSHA1(uuid.NameSpaceDNS, []byte("conform.dev"))
	points := map[string]*qdrant.PointStruct{}
	for _, u := range fq.Upserts {
		if !u.GetWait() {
			t.Error("an upsert without wait")
		}
		for _, p := range u.Points {
			v := p.GetVectors()
			if v == nil || v.GetVectors() == nil || len(v.GetVectors().GetVectors()) != 0 {
				t.Errorf("point %v: vectors %v, want an empty named-vector map", p.GetId(), v)
			}
			points[p.GetPayload()[PayloadID].GetStringValue()] = p
		}
	}
	for _, d := range f.Docs {
		p := points[d.ID]
		if p == nil {
			t.Fatalf("document %s was not upserted", d.ID)
		}
		if want := uuid.NewSHA1(ns, []byte(d.ID)).String(); p.GetId().GetUuid() != want {
			t.Errorf("%s has point id %s, want UUIDv5 %s", d.ID, p.GetId().GetUuid(), want)
		}
		if got := p.GetPayload()[PayloadSource].GetStringValue(); got != string(d.Source) {
			t.Errorf("%s %s = %q, want the corpus bytes %q", d.ID, PayloadSource, got, d.Source)
		}
	}
	pa, pb, pc := points["a"].GetPayload(), points["b"].GetPayload(), points["c"].GetPayload()
	checks := []struct {
		reason string
		ok     bool
	}{
		{"an int stays an integer value", isInt(pa["stock"], 12)},
		{"12.0 in an integer field is the integer 12", isInt(pb["stock"], 12)},
		{"129.0 in a double field is a double", isDouble(pa["weight"], 129)},
		{"129 in a double field is a double", isDouble(pb["weight"], 129)},
		{`"true" is a bool`, isBool(pa["in_stock"], true)},
		{"false stays a bool", isBool(pb["in_stock"], false)},
		{"a float holds its float32 value", isDouble(pb["rating"], 4.099999904632568)},
		{"a scaled_float holds its scaled value", isDouble(pb["price"], 19.990000000000002)},
		{"a date is an RFC 3339 string", pa["released"].GetStringValue() == "2020-01-01T00:00:00.000Z"},
		{"the date's epoch-millis shadow is an integer", isInt(pa[PayloadEpochMillis].GetStructValue().GetFields()["released"], 1577836800000)},
		{"an epoch date inside an object, stored as an array of one", pc["dims"].GetListValue().GetValues()[0].GetStructValue().GetFields()["at"].GetStringValue() == "2020-01-01T00:00:00.000Z"},
		{"null stays null", isNull(pc["stock"])},
		{"arrays stay arrays", len(pa["tags"].GetListValue().GetValues()) == 2 && pb["tags"].GetListValue() != nil},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("%s: payloads a=%v b=%v c=%v", c.reason, pa, pb, pc)
		}
	}

	// Verification: exact counts everywhere and a report per index.
	for _, cnt := range fq.Counts {
		if !cnt.GetExact() {
			t.Errorf("a count without exact: %v", cnt)
		}
	}
	if !rep.Probe.Intact() || rep.Probe.Count != 3 || rep.Probe.Status != "green" || rep.Points != 3 || rep.Batches != 2 {
		t.Errorf("report = %+v, probe %+v", rep, rep.Probe)
	}
	byKey := map[string]IndexReport{}
	for _, ir := range rep.Indexes {
		byKey[ir.Key] = ir
	}
	// tags: a has values, b has [] (empty), c has [null] (not empty, nothing indexable).
	if ir := byKey["tags"]; ir.Want.Present != 2 || ir.Want.Indexed != 1 || ir.Present != 2 || ir.IndexedPoints == nil || *ir.IndexedPoints != 1 {
		t.Errorf("tags index report = %+v", ir)
	}
	if ir := byKey["stock"]; ir.Want.Present != 2 || ir.Want.Indexed != 2 {
		t.Errorf("stock index report = %+v", ir)
	}
	if ir := byKey["_epoch_ms.dims.at"]; ir.Want.Indexed != 1 {
		t.Errorf("dims.at shadow report = %+v", ir)
	}
	if len(rep.Warnings) != 1 {
		t.Errorf("warnings = %q", rep.Warnings)
	}
}

func isInt(v *qdrant.Value, n int64) bool {
	_, ok := v.GetKind().(*qdrant.Value_IntegerValue)
	return ok && v.GetIntegerValue() == n
}

func isDouble(v *qdrant.Value, x float64) bool {
	_, ok := v.GetKind().(*qdrant.Value_DoubleValue)
	return ok && v.GetDoubleValue() == x
}

func isNull(v *qdrant.Value) bool {
	_, ok := v.GetKind().(*qdrant.Value_NullValue)
	return ok
}

func isBool(v *qdrant.Value, b bool) bool {
	_, ok := v.GetKind().(*qdrant.Value_BoolValue)
	return ok && v.GetBoolValue() == b
}

func TestLoadQdrantDefaultCorpus(t *testing.T) {
	f := fixtures.Default()
	fq := loadtest.NewFakeQdrant()
	c := startQdrant(t, fq)
	rep, err := LoadQdrant(context.Background(), c, f, fastQdrant())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Points != 10000 || rep.Batches != 79 || rep.BatchPoints != 128 || !rep.Probe.Intact() {
		t.Errorf("report = %+v", rep)
	}
	fq.Lock()
	for i, u := range fq.Upserts {
		if n := len(u.Points); n > 128 || n < 1 || (n != 128 && i != len(fq.Upserts)-1) {
			t.Errorf("upsert %d has %d points", i, n)
		}
	}
	fq.Unlock()
	// The Qdrant fingerprint is the Elasticsearch one: the same corpus, the same hash.
	want, _ := ExpectedFingerprint(f, 0)
	if rep.Probe.Sample != want {
		t.Errorf("sample = %+v, want %+v", rep.Probe.Sample, want)
	}
}

func TestLoadQdrantRefusesANonEmptyCollection(t *testing.T) {
	f := smallDefault(t, 20)
	fq := loadtest.NewFakeQdrant()
	fq.AddCollection("catalogue", 5)
	c := startQdrant(t, fq)
	_, err := LoadQdrant(context.Background(), c, f, fastQdrant())
	var ne *NotEmptyError
	if !errors.As(err, &ne) || ne.What != "collection" || ne.Count != 5 {
		t.Fatalf("err = %v, want a NotEmptyError for 5 points", err)
	}
	fq.Lock()
	touched := len(fq.Creates) + len(fq.Deleted) + len(fq.Upserts) + len(fq.FieldIndexes)
	fq.Unlock()
	if touched != 0 || len(fq.Collection("catalogue").Points) != 5 {
		t.Errorf("refusing, the loader still wrote (%d writes)", touched)
	}

	o := fastQdrant()
	o.Recreate = true
	rep, err := LoadQdrant(context.Background(), c, f, o)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Replaced != "recreated" || len(fq.Collection("catalogue").Points) != 20 {
		t.Errorf("after --recreate: replaced %q, %d points", rep.Replaced, len(fq.Collection("catalogue").Points))
	}
}

func TestLoadQdrantReplacesAnEmptyCollection(t *testing.T) {
	f := smallDefault(t, 20)
	fq := loadtest.NewFakeQdrant()
	fq.AddCollection("catalogue", 0)
	rep, err := LoadQdrant(context.Background(), startQdrant(t, fq), f, fastQdrant())
	if err != nil || rep.Replaced != "empty" {
		t.Fatalf("err = %v, report %+v", err, rep)
	}
}

func TestLoadQdrantVerificationCatchesDamage(t *testing.T) {
	f := smallDefault(t, 300)
	docs, _ := Sample(f, 0)
	tests := []struct {
		reason string
		damage func(fq *loadtest.FakeQdrant)
		kinds  []string // problem kinds that must all be reported
	}{
		{"points lost: the exact count is wrong", func(fq *loadtest.FakeQdrant) { fq.DropPoints = 1 }, []string{"count"}},
		{"a stored source differs from the corpus", func(fq *loadtest.FakeQdrant) {
			fq.CorruptSource = map[string]string{PointID(docs[2].ID): `{"sku":"x"}`}
		}, []string{"source"}},
		{"an index covers fewer points than hold the field", func(fq *loadtest.FakeQdrant) {
			fq.IndexPointsDelta = map[string]int64{"brand": -1}
		}, []string{"index"}},
		{"the collection never turns green", func(fq *loadtest.FakeQdrant) {
			fq.StatusOverride = qdrant.CollectionStatus_Yellow
		}, []string{"status"}},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			fq := loadtest.NewFakeQdrant()
			tc.damage(fq)
			o := fastQdrant()
			o.GreenTimeout = 20 * time.Millisecond
			rep, err := LoadQdrant(context.Background(), startQdrant(t, fq), f, o)
			var ve *VerifyError
			if !errors.As(err, &ve) {
				t.Fatalf("err = %v, want a VerifyError", err)
			}
			got := map[string]bool{}
			for _, p := range ve.Problems {
				got[p.Kind] = true
			}
			for _, k := range tc.kinds {
				if !got[k] {
					t.Errorf("problems %+v lack %s", ve.Problems, k)
				}
			}
			if rep == nil || rep.Probe == nil {
				t.Error("the failed verification came back without its report")
			}
		})
	}
}

func TestLoadQdrantWaitsForGreen(t *testing.T) {
	f := smallDefault(t, 20)
	fq := loadtest.NewFakeQdrant()
	fq.YellowPolls = 3
	rep, err := LoadQdrant(context.Background(), startQdrant(t, fq), f, fastQdrant())
	if err != nil || rep.Probe.Status != "green" {
		t.Fatalf("err = %v, report %+v", err, rep)
	}
}

func TestLoadQdrantChecksUpdateStatus(t *testing.T) {
	f := smallDefault(t, 20)
	fq := loadtest.NewFakeQdrant()
	fq.UpsertStatus = qdrant.UpdateStatus_Acknowledged
	_, err := LoadQdrant(context.Background(), startQdrant(t, fq), f, fastQdrant())
	var ue *UpdateError
	if !errors.As(err, &ue) || ue.Status != qdrant.UpdateStatus_Acknowledged {
		t.Fatalf("err = %v, want an UpdateError", err)
	}
}

func TestLoadQdrantRetriesResourceExhausted(t *testing.T) {
	f := smallDefault(t, 20)
	fq := loadtest.NewFakeQdrant()
	fq.ResourceExhausted = 2
	rep, err := LoadQdrant(context.Background(), startQdrant(t, fq), f, fastQdrant())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Retries != 2 || len(fq.Collection("catalogue").Points) != 20 {
		t.Errorf("retries = %d", rep.Retries)
	}
}

func TestLoadQdrantConvertsBeforeWriting(t *testing.T) {
	f := testFixtures(t, kindsMapping, [2]string{"ok", `{"stock":1}`}, [2]string{"bad", `{"stock":"many"}`})
	fq := loadtest.NewFakeQdrant()
	_, err := LoadQdrant(context.Background(), startQdrant(t, fq), f, fastQdrant())
	var de *DocError
	if !errors.As(err, &de) || de.ID != "bad" || de.Field != "stock" {
		t.Fatalf("err = %v, want a DocError for bad.stock", err)
	}
	fq.Lock()
	defer fq.Unlock()
	if len(fq.Creates) != 0 {
		t.Error("the collection was created before every document converted")
	}
}

func TestDialQdrantSendsTheAPIKey(t *testing.T) {
	fq := loadtest.NewFakeQdrant()
	fq.APIKey = "s3cret-key"
	addr, err := fq.Start(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer fq.Close()
	ctx := context.Background()
	if _, _, err := DialQdrant(ctx, QdrantConfig{Addr: addr, APIKey: "wrong"}); err == nil {
		t.Error("a wrong API key was accepted")
	} else if strings.Contains(err.Error(), "wrong") {
		t.Errorf("the error shows the key: %v", err)
	}
	c, _, err := DialQdrant(ctx, QdrantConfig{Addr: addr, APIKey: "s3cret-key"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := LoadQdrant(ctx, c, smallDefault(t, 10), fastQdrant()); err != nil {
		t.Fatal(err)
	}
}

func TestDialQdrantOverTLS(t *testing.T) {
	cert, pool := selfSigned(t)
	fq := loadtest.NewFakeQdrant()
	addr, err := fq.Start(&tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS13})
	if err != nil {
		t.Fatal(err)
	}
	defer fq.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, srv, err := DialQdrant(ctx, QdrantConfig{Addr: addr, TLS: true, TLSConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS13}})
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if srv.Version != "1.17.0" {
		t.Errorf("server = %+v", srv)
	}
	// Plaintext against a TLS port fails, and so does TLS with an untrusted certificate.
	short, cancel2 := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel2()
	if _, _, err := DialQdrant(short, QdrantConfig{Addr: addr}); err == nil {
		t.Error("plaintext reached a TLS server")
	}
	if _, _, err := DialQdrant(short, QdrantConfig{Addr: addr, TLS: true}); err == nil {
		t.Error("an untrusted certificate was accepted")
	}
}

func selfSigned(t *testing.T) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "fake-qdrant"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, IsCA: true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	parsed, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(parsed)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, pool
}

func TestSplitHostPort(t *testing.T) {
	for _, tc := range []struct {
		in   string
		host string
		port int
		ok   bool
	}{
		{"127.0.0.1:6334", "127.0.0.1", 6334, true},
		{"qdrant:6334", "qdrant", 6334, true},
		{"[::1]:6334", "::1", 6334, true},
		{"localhost", "", 0, false},
		{":6334", "", 0, false},
		{"host:http", "", 0, false},
		{"host:70000", "", 0, false},
	} {
		h, p, err := splitHostPort(tc.in)
		if (err == nil) != tc.ok || h != tc.host || p != tc.port {
			t.Errorf("splitHostPort(%q) = %q, %d, %v", tc.in, h, p, err)
		}
	}
}

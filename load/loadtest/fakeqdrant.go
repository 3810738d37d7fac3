package loadtest

import (
	"context"
	"crypto/tls"
	"fmt"
	"math"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/qdrant/go-client/qdrant"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/conform-dev/conform/internal/serdefloat"
)

// FakeQdrant is a Qdrant double: an in-process gRPC server on 127.0.0.1 implementing the
// Qdrant, Collections and Points services (HealthCheck; CollectionExists, Create, Delete,
// Get; CreateFieldIndex, Upsert, Count, Get) with go-client's generated interfaces. It
// records every request and answers as Qdrant 1.17.0 was seen to answer the same calls
// (lab/realengines/qdrant_test.go, load/QDRANT.md "What Qdrant does"): a point without a
// vectors field and vectors in a payload-only collection are refused with Qdrant's codes and
// messages; Get drops missing ids, returns each id once, in the order asked, and no payload
// without an explicit selector; doubles read back through Qdrant's JSON round trip
// (serdefloat); is_empty and payload_schema points follow Qdrant's key paths (a.b does not
// walk an array at a, a[].b walks only an array) and count only values of the index's type.
//
// Where it is narrower than Qdrant, it says so rather than guess: it serves payload-only
// collections and UUID point ids only, and counts with no filter or one must_not is_empty.
type FakeQdrant struct {
	mu          sync.Mutex
	collections map[string]*FakeCollection
	srv         *grpc.Server
	addr        string

	// Version is what HealthCheck reports (default "1.17.0", the version its behaviours
	// were checked against).
	Version string
	// APIKey, when set, is required in the api-key header of every call.
	APIKey string

	// Misbehaviour.
	DropPoints        int                     // lose the last DropPoints points upserted, silently
	UpsertStatus      qdrant.UpdateStatus     // answer upserts with this status (default Completed)
	ResourceExhausted int                     // refuse the next N upserts with ResourceExhausted
	YellowPolls       int                     // report yellow this many times before green
	CorruptSource     map[string]string       // point id → _source_raw to store instead
	IndexPointsDelta  map[string]int64        // added to payload_schema[key].points
	StatusOverride    qdrant.CollectionStatus // non-zero: always report this status
	// ExactDoubles serves double payload values exactly as they were sent. By default they
	// read back as Qdrant 1.17.0 returns them, through serde_json's text round trip
	// (serdefloat.RoundTrip: 20.900000000000002 reads back as 20.9), as a Qdrant built with
	// serde_json's float_roundtrip feature would not. What is stored is unchanged.
	ExactDoubles bool

	// Records.
	Creates      []*qdrant.CreateCollection
	FieldIndexes []*qdrant.CreateFieldIndexCollection
	Upserts      []*qdrant.UpsertPoints
	Counts       []*qdrant.CountPoints
	Gets         []*qdrant.GetPoints
	Deleted      []string
	APIKeysSeen  []string
	// Calls is every call's method, e.g. "/qdrant.Points/Upsert", in arrival order.
	Calls []string
}

// FakeCollection is a collection's stored points, by point id in upsert order.
type FakeCollection struct {
	Points  map[string]map[string]*qdrant.Value
	Order   []string
	Indexes map[string]*qdrant.CreateFieldIndexCollection
}

// NewFakeQdrant returns a fake with no collections; call Start to serve it.
func NewFakeQdrant() *FakeQdrant {
	return &FakeQdrant{collections: map[string]*FakeCollection{}, Version: "1.17.0"}
}

// Start serves the fake on a free 127.0.0.1 port, over TLS when tlsConfig is not nil, and
// returns its HOST:PORT.
func (f *FakeQdrant) Start(tlsConfig *tls.Config) (string, error) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	opts := []grpc.ServerOption{
		grpc.UnaryInterceptor(f.checkKey),
		// go-client pings every 10s without streams; allow it as Qdrant does.
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: time.Second, PermitWithoutStream: true}),
	}
	if tlsConfig != nil {
		opts = append(opts, grpc.Creds(credentials.NewTLS(tlsConfig)))
	}
	f.srv = grpc.NewServer(opts...)
	qdrant.RegisterQdrantServer(f.srv, fakeQdrantService{f: f})
	qdrant.RegisterCollectionsServer(f.srv, fakeCollections{f: f})
	qdrant.RegisterPointsServer(f.srv, fakePoints{f: f})
	f.addr = lis.Addr().String()
	go f.srv.Serve(lis)
	return f.addr, nil
}

// Close stops the server.
func (f *FakeQdrant) Close() {
	if f.srv != nil {
		f.srv.Stop()
	}
}

// Collection returns a collection's state (nil if absent); read or change it only between
// Lock and Unlock.
func (f *FakeQdrant) Collection(name string) *FakeCollection {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.collections[name]
}

// AddCollection creates a collection holding n points with a trivial payload.
func (f *FakeQdrant) AddCollection(name string, n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := newCollection()
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("00000000-0000-4000-8000-%012d", i)
		c.Points[id] = map[string]*qdrant.Value{"n": qdrant.NewValueInt(int64(i))}
		c.Order = append(c.Order, id)
	}
	f.collections[name] = c
}

// Lock and Unlock guard the exported records while a test reads them.
func (f *FakeQdrant) Lock()   { f.mu.Lock() }
func (f *FakeQdrant) Unlock() { f.mu.Unlock() }

func newCollection() *FakeCollection {
	return &FakeCollection{Points: map[string]map[string]*qdrant.Value{}, Indexes: map[string]*qdrant.CreateFieldIndexCollection{}}
}

func (f *FakeQdrant) checkKey(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	keys := md.Get("api-key")
	f.mu.Lock()
	f.APIKeysSeen = append(f.APIKeysSeen, keys...)
	f.Calls = append(f.Calls, info.FullMethod)
	want := f.APIKey
	f.mu.Unlock()
	if want != "" && (len(keys) != 1 || keys[0] != want) {
		return nil, status.Error(codes.PermissionDenied, "Invalid api-key")
	}
	return h(ctx, req)
}

type fakeQdrantService struct {
	qdrant.UnimplementedQdrantServer
	f *FakeQdrant
}

func (s fakeQdrantService) HealthCheck(context.Context, *qdrant.HealthCheckRequest) (*qdrant.HealthCheckReply, error) {
	return &qdrant.HealthCheckReply{Title: "qdrant - vector search engine", Version: s.f.Version, Commit: proto.String("fakecommit")}, nil
}

type fakeCollections struct {
	qdrant.UnimplementedCollectionsServer
	f *FakeQdrant
}

func (s fakeCollections) CollectionExists(_ context.Context, r *qdrant.CollectionExistsRequest) (*qdrant.CollectionExistsResponse, error) {
	s.f.mu.Lock()
	defer s.f.mu.Unlock()
	_, ok := s.f.collections[r.GetCollectionName()]
	return &qdrant.CollectionExistsResponse{Result: &qdrant.CollectionExists{Exists: ok}}, nil
}

func (s fakeCollections) Create(_ context.Context, r *qdrant.CreateCollection) (*qdrant.CollectionOperationResponse, error) {
	s.f.mu.Lock()
	defer s.f.mu.Unlock()
	s.f.Creates = append(s.f.Creates, r)
	if _, ok := s.f.collections[r.GetCollectionName()]; ok {
		return nil, status.Errorf(codes.AlreadyExists, "Wrong input: Collection `%s` already exists!", r.GetCollectionName())
	}
	if r.GetVectorsConfig() != nil || r.GetSparseVectorsConfig() != nil {
		return nil, status.Error(codes.InvalidArgument, "FakeQdrant serves payload-only collections")
	}
	s.f.collections[r.GetCollectionName()] = newCollection()
	return &qdrant.CollectionOperationResponse{Result: true}, nil
}

func (s fakeCollections) Delete(_ context.Context, r *qdrant.DeleteCollection) (*qdrant.CollectionOperationResponse, error) {
	s.f.mu.Lock()
	defer s.f.mu.Unlock()
	s.f.Deleted = append(s.f.Deleted, r.GetCollectionName())
	_, ok := s.f.collections[r.GetCollectionName()]
	delete(s.f.collections, r.GetCollectionName())
	return &qdrant.CollectionOperationResponse{Result: ok}, nil
}

func (s fakeCollections) Get(_ context.Context, r *qdrant.GetCollectionInfoRequest) (*qdrant.GetCollectionInfoResponse, error) {
	s.f.mu.Lock()
	defer s.f.mu.Unlock()
	c, err := s.f.collection(r.GetCollectionName())
	if err != nil {
		return nil, err
	}
	st := qdrant.CollectionStatus_Green
	switch {
	case s.f.StatusOverride != 0:
		st = s.f.StatusOverride
	case s.f.YellowPolls > 0:
		s.f.YellowPolls--
		st = qdrant.CollectionStatus_Yellow
	}
	info := &qdrant.CollectionInfo{
		Status:        st,
		PointsCount:   proto.Uint64(uint64(len(c.Points))),
		PayloadSchema: map[string]*qdrant.PayloadSchemaInfo{},
	}
	for key, ix := range c.Indexes {
		// Qdrant 1.17.0 counts a point in payload_schema[key].points when the key holds at
		// least one value the index takes: a keyword index skips an integer, an integer index a
		// string, and both skip null.
		var n int64
		for _, p := range c.Points {
			for _, v := range valuesAt(p, key) {
				if indexes(ix.GetFieldType(), v) {
					n++
					break
				}
			}
		}
		n += s.f.IndexPointsDelta[key]
		info.PayloadSchema[key] = &qdrant.PayloadSchemaInfo{
			DataType: schemaType(ix.GetFieldType()), Params: ix.GetFieldIndexParams(), Points: proto.Uint64(uint64(n)),
		}
	}
	return &qdrant.GetCollectionInfoResponse{Result: info}, nil
}

func (f *FakeQdrant) collection(name string) (*FakeCollection, error) {
	c := f.collections[name]
	if c == nil {
		return nil, status.Errorf(codes.NotFound, "Not found: Collection `%s` doesn't exist!", name)
	}
	return c, nil
}

type fakePoints struct {
	qdrant.UnimplementedPointsServer
	f *FakeQdrant
}

func (s fakePoints) CreateFieldIndex(_ context.Context, r *qdrant.CreateFieldIndexCollection) (*qdrant.PointsOperationResponse, error) {
	s.f.mu.Lock()
	defer s.f.mu.Unlock()
	s.f.FieldIndexes = append(s.f.FieldIndexes, r)
	c, err := s.f.collection(r.GetCollectionName())
	if err != nil {
		return nil, err
	}
	if r.FieldType == nil {
		return nil, status.Error(codes.InvalidArgument, "cannot convert field_type")
	}
	c.Indexes[r.GetFieldName()] = r
	return &qdrant.PointsOperationResponse{Result: &qdrant.UpdateResult{Status: qdrant.UpdateStatus_Completed}}, nil
}

func (s fakePoints) Upsert(ctx context.Context, r *qdrant.UpsertPoints) (*qdrant.PointsOperationResponse, error) {
	s.f.mu.Lock()
	defer s.f.mu.Unlock()
	s.f.Upserts = append(s.f.Upserts, r)
	if s.f.ResourceExhausted > 0 {
		s.f.ResourceExhausted--
		grpc.SetTrailer(ctx, metadata.Pairs("retry-after", "0"))
		return nil, status.Error(codes.ResourceExhausted, "Too many requests")
	}
	c, err := s.f.collection(r.GetCollectionName())
	if err != nil {
		return nil, err
	}
	for _, p := range r.GetPoints() {
		if p.GetVectors() == nil {
			return nil, status.Error(codes.InvalidArgument, "Expected some vectors")
		}
		if p.GetVectors().GetVector() != nil || len(p.GetVectors().GetVectors().GetVectors()) > 0 {
			return nil, status.Error(codes.InvalidArgument, "Wrong input: Not existing vector name error: ")
		}
		if p.GetId().GetUuid() == "" {
			return nil, status.Error(codes.InvalidArgument, "FakeQdrant expects UUID point ids")
		}
	}
	pts := r.GetPoints()
	keep := len(pts)
	if s.f.DropPoints > 0 {
		drop := min(s.f.DropPoints, keep)
		s.f.DropPoints -= drop
		keep -= drop
	}
	for _, p := range pts[:keep] {
		id := p.GetId().GetUuid()
		payload := p.GetPayload()
		if alt, ok := s.f.CorruptSource[id]; ok {
			payload = cloneMap(payload)
			payload["_source_raw"] = qdrant.NewValueString(alt)
		}
		if _, ok := c.Points[id]; !ok {
			c.Order = append(c.Order, id)
		}
		c.Points[id] = payload
	}
	st := qdrant.UpdateStatus_Completed
	if s.f.UpsertStatus != 0 {
		st = s.f.UpsertStatus
	}
	return &qdrant.PointsOperationResponse{Result: &qdrant.UpdateResult{Status: st}}, nil
}

func cloneMap(m map[string]*qdrant.Value) map[string]*qdrant.Value {
	out := make(map[string]*qdrant.Value, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func (s fakePoints) Count(_ context.Context, r *qdrant.CountPoints) (*qdrant.CountResponse, error) {
	s.f.mu.Lock()
	defer s.f.mu.Unlock()
	s.f.Counts = append(s.f.Counts, r)
	c, err := s.f.collection(r.GetCollectionName())
	if err != nil {
		return nil, err
	}
	filter := r.GetFilter()
	if len(filter.GetMust()) > 0 || len(filter.GetShould()) > 0 || len(filter.GetMustNot()) > 1 {
		return nil, status.Error(codes.Unimplemented, "FakeQdrant counts with no filter or one must_not is_empty")
	}
	var notEmpty string
	if mn := filter.GetMustNot(); len(mn) == 1 {
		ie := mn[0].GetIsEmpty()
		if ie == nil {
			return nil, status.Error(codes.Unimplemented, "FakeQdrant counts with no filter or one must_not is_empty")
		}
		notEmpty = ie.GetKey()
	}
	var n uint64
	for _, p := range c.Points {
		if notEmpty == "" || len(valuesAt(p, notEmpty)) > 0 {
			n++
		}
	}
	return &qdrant.CountResponse{Result: &qdrant.CountResult{Count: n}}, nil
}

func (s fakePoints) Get(_ context.Context, r *qdrant.GetPoints) (*qdrant.GetResponse, error) {
	s.f.mu.Lock()
	defer s.f.mu.Unlock()
	s.f.Gets = append(s.f.Gets, r)
	c, err := s.f.collection(r.GetCollectionName())
	if err != nil {
		return nil, err
	}
	var out []*qdrant.RetrievedPoint
	seen := map[string]bool{}
	for _, id := range r.GetIds() {
		u := id.GetUuid()
		p, ok := c.Points[u]
		if !ok || seen[u] {
			continue // Qdrant drops missing ids silently and returns each id once
		}
		seen[u] = true
		payload := selectPayload(p, r.GetWithPayload())
		if !s.f.ExactDoubles {
			payload = roundTripDoubles(payload)
		}
		out = append(out, &qdrant.RetrievedPoint{Id: qdrant.NewIDUUID(u), Payload: payload})
	}
	return &qdrant.GetResponse{Result: out}, nil
}

// roundTripDoubles copies a payload with every double as Qdrant reads it back from the JSON
// text it stores (serdefloat.RoundTrip).
func roundTripDoubles(p map[string]*qdrant.Value) map[string]*qdrant.Value {
	var round func(v *qdrant.Value) *qdrant.Value
	round = func(v *qdrant.Value) *qdrant.Value {
		switch k := v.GetKind().(type) {
		case *qdrant.Value_DoubleValue:
			return qdrant.NewValueDouble(serdefloat.RoundTrip(k.DoubleValue))
		case *qdrant.Value_StructValue:
			return qdrant.NewValueFromFields(roundTripDoubles(k.StructValue.GetFields()))
		case *qdrant.Value_ListValue:
			vs := make([]*qdrant.Value, len(k.ListValue.GetValues()))
			for i, e := range k.ListValue.GetValues() {
				vs[i] = round(e)
			}
			return qdrant.NewValueFromList(vs...)
		}
		return v
	}
	if p == nil {
		return nil
	}
	out := make(map[string]*qdrant.Value, len(p))
	for k, v := range p {
		out[k] = round(v)
	}
	return out
}

// selectPayload applies a payload selector; none means no payload, as in Qdrant's
// multi-id retrieve (load/QDRANT.md, Q1).
func selectPayload(p map[string]*qdrant.Value, sel *qdrant.WithPayloadSelector) map[string]*qdrant.Value {
	switch {
	case sel == nil:
		return nil
	case sel.GetInclude() != nil:
		out := map[string]*qdrant.Value{}
		for _, k := range sel.GetInclude().GetFields() {
			if v, ok := p[k]; ok {
				out[k] = v
			}
		}
		return out
	case sel.GetExclude() != nil:
		out := cloneMap(p)
		for _, k := range sel.GetExclude().GetFields() {
			delete(out, k)
		}
		return out
	case sel.GetEnable():
		return p
	}
	return nil
}

// valuesAt returns the values at a payload key as Qdrant 1.17.0's is_empty sees them: a
// missing key or null gives none, an array at the end gives its elements (a null element
// included). On the way, "a.b" looks into an object at a and not into an array, "a[].b" into
// each element of an array at a and not into an object: seen on the real server
// (lab/realengines, TestQdrantFacts).
func valuesAt(p map[string]*qdrant.Value, key string) []*qdrant.Value {
	cur := []*qdrant.Value{qdrant.NewValueFromFields(p)}
	segs := strings.Split(key, ".")
	for _, seg := range segs {
		name, each := strings.CutSuffix(seg, "[]")
		var next []*qdrant.Value
		for _, v := range cur {
			c, ok := v.GetStructValue().GetFields()[name]
			if !ok {
				continue
			}
			if !each {
				next = append(next, c)
			} else if l, ok := c.GetKind().(*qdrant.Value_ListValue); ok {
				next = append(next, l.ListValue.GetValues()...)
			}
		}
		cur = next
	}
	var out []*qdrant.Value
	for _, v := range cur {
		switch k := v.GetKind().(type) {
		case *qdrant.Value_NullValue:
		case *qdrant.Value_ListValue:
			out = append(out, k.ListValue.GetValues()...)
		default:
			out = append(out, v)
		}
	}
	return out
}

// indexes says whether a payload index of type t takes the value v, as Qdrant 1.17.0 was seen
// to: a float index takes integers, an integer index doubles without a fraction (-7.0, not
// 2.5), a datetime index the strings it parses as dates, and none a value of another kind.
func indexes(t qdrant.FieldType, v *qdrant.Value) bool {
	switch k := v.GetKind().(type) {
	case *qdrant.Value_StringValue:
		return t == qdrant.FieldType_FieldTypeKeyword || t == qdrant.FieldType_FieldTypeDatetime && isDate(k.StringValue)
	case *qdrant.Value_IntegerValue:
		return t == qdrant.FieldType_FieldTypeInteger || t == qdrant.FieldType_FieldTypeFloat
	case *qdrant.Value_DoubleValue:
		return t == qdrant.FieldType_FieldTypeFloat || t == qdrant.FieldType_FieldTypeInteger && k.DoubleValue == math.Trunc(k.DoubleValue)
	case *qdrant.Value_BoolValue:
		return t == qdrant.FieldType_FieldTypeBool
	}
	return false
}

// isDate approximates the datetime forms Qdrant 1.17.0 was seen to index (load/QDRANT.md, Q5):
// RFC 3339, with or without the offset, a space for the T, hours and minutes after a space
// (but not after T), and a bare date.
func isDate(s string) bool {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999", "2006-01-02 15:04", "2006-01-02"} {
		if _, err := time.Parse(layout, s); err == nil {
			return true
		}
	}
	return false
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

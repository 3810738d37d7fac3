package load

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/qdrant/go-client/qdrant"

	"github.com/conform-dev/conform/fixtures"
)

func mustSchema(t testing.TB, mapping string) *QdrantSchema {
	t.Helper()
	s, err := NewQdrantSchema([]byte(mapping))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestNormalizeConvertsPerMapping(t *testing.T) {
	s := mustSchema(t, kindsMapping)
	tests := []struct {
		reason string
		source string
		field  string
		want   any
	}{
		{"an integer stays an integer", `{"stock":12}`, "stock", int64(12)},
		{"an integer field coerces 12.0 to 12", `{"stock":12.0}`, "stock", int64(12)},
		{"integer coercion truncates toward zero", `{"stock":-12.7}`, "stock", int64(-12)},
		{"a numeric string in an integer field is coerced", `{"stock":"40"}`, "stock", int64(40)},
		{"a long beyond 2^53 is exact", `{"views":9007199254740993}`, "views", int64(9007199254740993)},
		{"a long written with a fraction beyond 2^53 is exact", `{"views":9007199254740993.0}`, "views", int64(9007199254740993)},
		{"129.0 in a double field is a double", `{"weight":129.0}`, "weight", float64(129)},
		{"129 in a double field is a double too", `{"weight":129}`, "weight", float64(129)},
		{"a float field holds the float32 value", `{"rating":4.1}`, "rating", 4.099999904632568},
		{"a half_float field holds the half-precision value", `{"ratio":0.1}`, "ratio", 0.0999755859375},
		{"a scaled_float holds round(v*f)*(1/f)", `{"price":19.99}`, "price", 19.990000000000002},
		{"a scaled_float rounds half up like Java", `{"price":0.125}`, "price", 0.13},
		{"a date becomes RFC 3339 UTC with milliseconds", `{"released":"2020-01-01"}`, "released", "2020-01-01T00:00:00.000Z"},
		{"an offset is moved to UTC", `{"released":"2021-03-04T05:06:07+02:00"}`, "released", "2021-03-04T03:06:07.000Z"},
		{"sub-millisecond digits are dropped", `{"released":"2020-01-01T00:00:00.123456Z"}`, "released", "2020-01-01T00:00:00.123Z"},
		{"epoch millis become a date string", `{"released":1577836800123}`, "released", "2020-01-01T00:00:00.123Z"},
		{"epoch millis in a string become a date string", `{"released":"1577836800123"}`, "released", "2020-01-01T00:00:00.123Z"},
		{"a boolean stays a boolean", `{"in_stock":false}`, "in_stock", false},
		{`"true" becomes true`, `{"in_stock":"true"}`, "in_stock", true},
		{`"" is false, as Elasticsearch reads it`, `{"in_stock":""}`, "in_stock", false},
		{"a keyword keeps its bytes", `{"sku":"Ｚenith 𝔾"}`, "sku", "Ｚenith 𝔾"},
		{"a number in a keyword field is its literal", `{"sku":1.50}`, "sku", "1.50"},
		{"a keyword over ignore_above is not searchable", `{"code":"ABCDE"}`, "code", nil},
		{"a keyword within ignore_above is kept", `{"code":"ABCD"}`, "code", "ABCD"},
		{"arrays stay arrays, nulls stay null", `{"tags":["a",null,"b","a"]}`, "tags", []any{"a", nil, "b", "a"}},
		{"an empty array stays empty", `{"tags":[]}`, "tags", []any{}},
		{"null stays null", `{"stock":null}`, "stock", nil},
		{"objects convert their fields, a lone object as an array of one", `{"dims":{"width":"7","at":"2020-01-02"}}`, "dims", []any{map[string]any{"width": int64(7), "at": "2020-01-02T00:00:00.000Z"}}},
		{"an array of objects stays an array", `{"dims":[{"width":1},null,{"width":2}]}`, "dims", []any{map[string]any{"width": int64(1)}, nil, map[string]any{"width": int64(2)}}},
		{"text is kept as is", `{"note":"Hello"}`, "note", "Hello"},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			m, err := s.Normalize(fixtures.Doc{ID: "d1", Source: []byte(tc.source)})
			if err != nil {
				t.Fatal(err)
			}
			if got := m[tc.field]; !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%s = %#v (%T), want %#v (%T)", tc.field, got, got, tc.want, tc.want)
			}
			if m[PayloadID] != "d1" || m[PayloadSource] != tc.source {
				t.Errorf("reserved keys = %q, %q", m[PayloadID], m[PayloadSource])
			}
		})
	}
}

func TestNormalizeShadowsDatesAsEpochMillis(t *testing.T) {
	s := mustSchema(t, kindsMapping)
	m, err := s.Normalize(fixtures.Doc{ID: "d", Source: []byte(`{"released":"2020-01-01T00:00:01Z","dims":{"at":["1970-01-01",null,86400000]}}`)})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"released": int64(1577836801000),
		"dims":     map[string]any{"at": []any{int64(0), int64(86400000)}},
	}
	if !reflect.DeepEqual(m[PayloadEpochMillis], want) {
		t.Errorf("%s = %#v, want %#v", PayloadEpochMillis, m[PayloadEpochMillis], want)
	}
	m, err = s.Normalize(fixtures.Doc{ID: "d", Source: []byte(`{"released":null,"sku":"x"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := m[PayloadEpochMillis]; ok {
		t.Errorf("a document without dates has %s: %#v", PayloadEpochMillis, m[PayloadEpochMillis])
	}
}

func TestNormalizeRefusesWhatElasticsearchRefuses(t *testing.T) {
	s := mustSchema(t, kindsMapping)
	tests := []struct {
		reason, source, field string
	}{
		{"letters in an integer field", `{"stock":"abc"}`, "stock"},
		{"a byte out of range", `{"level":300}`, "level"},
		{"an integer beyond int32", `{"stock":2147483648}`, "stock"},
		{"a long beyond int64", `{"views":9223372036854775808}`, "views"},
		{"a hex string in a numeric field", `{"weight":"0x10"}`, "weight"},
		{"Infinity in a double field", `{"weight":"Infinity"}`, "weight"},
		{"a float beyond float32", `{"rating":1e39}`, "rating"},
		{"a half_float beyond 65504", `{"ratio":70000}`, "ratio"},
		{"a string that is not a boolean", `{"in_stock":"yes"}`, "in_stock"},
		{"a number in a boolean field", `{"in_stock":1}`, "in_stock"},
		{"an impossible date", `{"released":"2021-02-30"}`, "released"},
		{"a date in another format", `{"released":"01/02/2020"}`, "released"},
		{"an object in a keyword field", `{"sku":{"a":1}}`, "sku"},
		{"a scalar where an object is mapped", `{"dims":3}`, "dims"},
		{"a bad value inside an object", `{"dims":{"width":"wide"}}`, "dims.width"},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			_, err := s.Normalize(fixtures.Doc{ID: "bad1", Source: []byte(tc.source)})
			var de *DocError
			if !errors.As(err, &de) {
				t.Fatalf("err = %v, want a DocError", err)
			}
			if de.ID != "bad1" || de.Field != tc.field {
				t.Errorf("DocError names %q field %q, want bad1 field %q (%v)", de.ID, de.Field, tc.field, err)
			}
		})
	}
	if _, err := s.Normalize(fixtures.Doc{ID: "r", Source: []byte(`{"_es_id":"x"}`)}); err == nil {
		t.Error("a source using a reserved payload key was accepted")
	}
}

func TestPayloadKeepsNumberKinds(t *testing.T) {
	s := mustSchema(t, kindsMapping)
	src := `{"stock":12,"weight":129.0,"rating":4.1,"in_stock":"true","tags":["x",null],"note":7,"views":9007199254740993}`
	p, err := s.Payload(fixtures.Doc{ID: "k", Source: []byte(src)})
	if err != nil {
		t.Fatal(err)
	}
	kind := func(key string) string {
		switch p[key].GetKind().(type) {
		case *qdrant.Value_IntegerValue:
			return "integer"
		case *qdrant.Value_DoubleValue:
			return "double"
		case *qdrant.Value_BoolValue:
			return "bool"
		case *qdrant.Value_StringValue:
			return "string"
		case *qdrant.Value_ListValue:
			return "list"
		case *qdrant.Value_NullValue:
			return "null"
		}
		return "missing"
	}
	for key, want := range map[string]string{
		"stock": "integer", "weight": "double", "rating": "double", "in_stock": "bool",
		"tags": "list", "note": "integer", "views": "integer",
		PayloadID: "string", PayloadSource: "string",
	} {
		if got := kind(key); got != want {
			t.Errorf("%s is a %s value, want %s", key, got, want)
		}
	}
	if got := p["views"].GetIntegerValue(); got != 9007199254740993 {
		t.Errorf("views = %d, want 9007199254740993", got)
	}
	if got := p["weight"].GetDoubleValue(); got != 129 {
		t.Errorf("weight = %v", got)
	}
	if got := p[PayloadSource].GetStringValue(); got != src {
		t.Errorf("%s = %q, want the source bytes %q", PayloadSource, got, src)
	}
	if l := p["tags"].GetListValue().GetValues(); len(l) != 2 || !isNull(l[1]) {
		t.Errorf("tags = %v, want [x, null]", l)
	}
}

func TestIndexesFollowTheMapping(t *testing.T) {
	s := mustSchema(t, kindsMapping)
	var got []string
	for _, ix := range s.Indexes() {
		params := ""
		if ip := ix.Params.GetIntegerIndexParams(); ip != nil {
			params = " lookup=" + boolStr(ip.GetLookup()) + " range=" + boolStr(ip.GetRange())
		}
		got = append(got, ix.Key+" "+ix.TypeName()+params)
	}
	want := []string{
		"_es_id keyword",
		"code keyword",
		"dims[].at datetime",
		"_epoch_ms.dims.at integer lookup=true range=true",
		"dims[].width integer lookup=true range=true",
		"in_stock bool",
		"level integer lookup=true range=true",
		"price float",
		"rating float",
		"ratio float",
		"released datetime",
		"_epoch_ms.released integer lookup=true range=true",
		"sku keyword",
		"stock integer lookup=true range=true",
		"tags keyword",
		"views integer lookup=true range=true",
		"weight float",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("indexes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "note") {
		t.Errorf("warnings = %q, want one about the text field note", s.Warnings)
	}
}

func boolStr(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func TestSchemaRefusesBadMappings(t *testing.T) {
	for _, tc := range []struct{ reason, mapping string }{
		{"no properties", `{"mappings":{}}`},
		{"a reserved field name", `{"mappings":{"properties":{"_source_raw":{"type":"keyword"}}}}`},
		{"a scaled_float without a factor", `{"mappings":{"properties":{"p":{"type":"scaled_float"}}}}`},
		{"a custom date pattern", `{"mappings":{"properties":{"d":{"type":"date","format":"yyyy/MM/dd"}}}}`},
		{"properties under a leaf type", `{"mappings":{"properties":{"d":{"type":"long","properties":{}}}}}`},
		{"not JSON", `{"mappings":`},
	} {
		if _, err := NewQdrantSchema([]byte(tc.mapping)); err == nil {
			t.Errorf("%s: accepted", tc.reason)
		}
	}
}

// Nested and plain objects alike are stored as arrays of objects, so their fields' keys go
// through [] at every level.
func TestObjectIndexKeysUseArraySyntax(t *testing.T) {
	s := mustSchema(t, `{"mappings":{"properties":{"parts":{"type":"nested","properties":{"sku":{"type":"keyword"}}},"dims":{"properties":{"box":{"properties":{"w":{"type":"long"}}}}}}}}`)
	var keys []string
	for _, ix := range s.Indexes() {
		keys = append(keys, ix.Key+"="+ix.Field)
	}
	if got, want := strings.Join(keys, " "), "_es_id=_id dims[].box[].w=dims.box.w parts[].sku=parts.sku"; got != want {
		t.Errorf("indexes %s, want %s", got, want)
	}
}

func TestDefaultCorpusConverts(t *testing.T) {
	f := fixtures.Default()
	s := mustSchema(t, string(f.Mapping))
	if len(s.Warnings) != 0 {
		t.Errorf("warnings on the default mapping: %q", s.Warnings)
	}
	kinds := map[string]map[string]int{}
	for _, d := range f.Docs {
		m, err := s.Normalize(d)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range m {
			if kinds[k] == nil {
				kinds[k] = map[string]int{}
			}
			kinds[k][goKind(v)]++
		}
	}
	// Each field keeps one kind of value (plus null and arrays where the corpus has them).
	want := map[string][]string{
		"stock": {"int64", "nil"}, "views": {"int64"}, "rating": {"float64", "nil"},
		"weight": {"float64"}, "price": {"float64"}, "released": {"string"},
		"in_stock": {"bool"}, "tags": {"list"}, "color": {"string", "nil"},
	}
	for field, kinds1 := range want {
		var got []string
		for k := range kinds[field] {
			got = append(got, k)
		}
		if !sameSet(got, kinds1) {
			t.Errorf("%s has kinds %v, want %v", field, got, kinds1)
		}
	}
}

func goKind(v any) string {
	switch v.(type) {
	case nil:
		return "nil"
	case []any:
		return "list"
	case map[string]any:
		return "object"
	}
	return reflect.TypeOf(v).String()
}

func sameSet(a, b []string) bool {
	m := map[string]bool{}
	for _, x := range a {
		m[x] = true
	}
	if len(m) != len(b) {
		return false
	}
	for _, x := range b {
		if !m[x] {
			return false
		}
	}
	return true
}

func TestRoundHalfFloat(t *testing.T) {
	for _, tc := range []struct {
		reason string
		in     float64
		want   float64
	}{
		{"0.1 has no exact half", 0.1, 0.0999755859375},
		{"the largest half", 65504, 65504},
		{"just under the overflow midpoint rounds down", 65519, 65504},
		{"the overflow midpoint is infinite", 65520, math.Inf(1)},
		{"ties go to even (down)", 2049, 2048},
		{"ties go to even (up)", 2051, 2052},
		{"the smallest subnormal", 0x1p-24, 0x1p-24},
		{"below half the smallest subnormal is zero", 0x1p-26, 0},
		{"negative values round symmetrically", -0.1, -0.0999755859375},
		{"one is exact", 1, 1},
	} {
		if got := roundHalfFloat(tc.in); got != tc.want {
			t.Errorf("%s: roundHalfFloat(%v) = %v, want %v", tc.reason, tc.in, got, tc.want)
		}
	}
}

func TestValuesAtFollowsIsEmpty(t *testing.T) {
	var m map[string]any
	dec := json.NewDecoder(strings.NewReader(`{"a":null,"b":[],"c":[null],"d":"x","o":{"p":[1,2]},"l":[{"q":1},{"q":null},{}]}`))
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		key  string
		want int
	}{
		{"a", 0}, {"b", 0}, {"c", 1}, {"d", 1}, {"missing", 0}, {"o.p", 2},
		// Seen on Qdrant 1.17.0: a.b does not look into an array at a, a[].b only into one.
		{"l.q", 0}, {"l[].q", 1}, {"o[].p", 0},
	} {
		if got := len(valuesAt(m, tc.key)); got != tc.want {
			t.Errorf("valuesAt(%s) has %d values, want %d", tc.key, got, tc.want)
		}
	}
}

func FuzzNormalize(f *testing.F) {
	s := mustSchema(f, kindsMapping)
	for _, seed := range []string{`{"stock":12.0}`, `{"released":"2020-02-29T23:59:59.999+14:00"}`, `{"dims":{"at":[1,"x"]}}`, `{"price":1e308}`, `[]`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, src string) {
		// Any input gives a payload or an error, never a panic.
		p, err := s.Payload(fixtures.Doc{ID: "fz", Source: []byte(src)})
		if err == nil && p[PayloadSource].GetStringValue() != src {
			t.Errorf("%s lost its bytes", PayloadSource)
		}
	})
}

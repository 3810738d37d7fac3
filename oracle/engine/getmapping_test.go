package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/conform-dev/conform/fixtures"
)

func readMappingData(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "mapping", name))
	if err != nil {
		t.Fatal(err)
	}
	return []byte(strings.TrimSpace(string(b)))
}

// TestGetMappingMatchesRecorded compares GET /{index}/_mapping with the answers real
// Elasticsearch 8.15.0 gave for the same mappings (testdata/mapping/README.md), byte for byte.
func TestGetMappingMatchesRecorded(t *testing.T) {
	pd, err := fixtures.VariantMapping(fixtures.VariantPriceDouble)
	if err != nil {
		t.Fatal(err)
	}
	designed, err := fixtures.VariantMapping(fixtures.VariantDefault)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, index string
		put         []byte // the index body; nil: create it by indexing doc
		doc         string
		want        string
	}{
		{"price-double fixtures", "catalogue", pd, "", "es-catalogue-price-double.json"},
		{"parameters given", "rec-params", readMappingData(t, "put-params.json"), "", "es-put-params.json"},
		{"defaults given", "rec-defaults", readMappingData(t, "put-defaults.json"), "", "es-put-defaults.json"},
		{"root parameters", "rec-root", readMappingData(t, "put-root.json"), "", "es-put-root.json"},
		{"dynamic mapping", "rec-dynamic", nil, "doc-dynamic.json", "es-doc-dynamic.json"},
		{"date detection", "rec-detection", nil, "doc-detection.json", "es-doc-detection.json"},
		// Real 8.15 cannot map scaled_float; the expectation is OpenSearch 3.6.0's, which
		// agrees with Elasticsearch's ScaledFloatFieldMapper (getmapping.go).
		{"designed fixtures (scaled_float)", "catalogue", designed, "", "os-catalogue-designed.json"},
		{"scaled_float parameters", "rec-scaled", readMappingData(t, "put-scaled.json"), "", "os-put-scaled.json"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := New()
			if c.put != nil {
				if st, b := e.Do("PUT", "/"+c.index, c.put); st != 200 {
					t.Fatalf("PUT: %d %s", st, b)
				}
			} else if st, b := e.Do("PUT", "/"+c.index+"/_doc/1?refresh=true", readMappingData(t, c.doc)); st != 201 {
				t.Fatalf("PUT doc: %d %s", st, b)
			}
			st, got := e.Do("GET", "/"+c.index+"/_mapping", nil)
			want := readMappingData(t, c.want)
			if st != 200 || string(got) != string(want) {
				t.Errorf("GET /%s/_mapping: %d\n got %s\nwant %s", c.index, st, got, want)
			}
		})
	}
}

func TestGetMappingMissingIndex(t *testing.T) {
	st, got := New().Do("GET", "/nope/_mapping", nil)
	if want := readMappingData(t, "es-missing.json"); st != 404 || string(got) != string(want) {
		t.Errorf("GET /nope/_mapping: %d\n got %s\nwant %s", st, got, want)
	}
}

// TestGetMappingOutsideRenderer: what the renderer does not know how Elasticsearch writes is
// the subset's unsupported answer, not a guess.
func TestGetMappingOutsideRenderer(t *testing.T) {
	for _, c := range []struct{ name, put, target, want string }{
		{"meta", `{"mappings":{"properties":{"h":{"type":"half_float","meta":{"unit":"ms"}}}}}`, "/test/_mapping", "[meta] of field [h]"},
		{"_meta", `{"mappings":{"_meta":{"v":1}}}`, "/test/_mapping", "[_meta]"},
		{"opaque type", `{"mappings":{"properties":{"g":{"type":"geo_point"}}}}`, "/test/_mapping", "type [geo_point]"},
		{"several indices", `{}`, "/test,other/_mapping", "more than one index"},
		{"wildcard", `{}`, "/te*/_mapping", "more than one index"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newTest(t, c.put)
			st, r, raw := do(t, e, "GET", c.target, "")
			if st != 400 || r.Get("error.type").String() != UnsupportedType || !strings.Contains(raw, c.want) {
				t.Errorf("%s: %d %s, want the unsupported error naming %s", c.target, st, raw, c.want)
			}
		})
	}
	st, r, raw := do(t, New(), "GET", "/_mapping", "")
	if st != 400 || r.Get("error.type").String() != UnsupportedType {
		t.Errorf("GET /_mapping: %d %s", st, raw)
	}
}

// A property without a type: an object only with properties or just "enabled", else refused
// as real 8.15.0 refuses it (top-level, nested and multi-field messages checked there).
func TestMappingPropertyWithoutType(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{`{"mappings":{"properties":{"e":{}}}}`, "No type specified for field [e]"},
		{`{"mappings":{"properties":{"o":{"properties":{"e":{"dynamic":true}}}}}}`, "No type specified for field [e]"},
		{`{"mappings":{"properties":{"k":{"type":"keyword","fields":{"e":{"ignore_above":3}}}}}}`, "no type specified for property [e]"},
		{`{"mappings":{"properties":{"e":{"enabled":true}}}}`, ""},
		{`{"mappings":{"properties":{"e":{"properties":{}}}}}`, ""},
	} {
		st, r, raw := do(t, New(), "PUT", "/nt", c.body)
		if c.want == "" {
			if st != 200 {
				t.Errorf("%s: %d %s", c.body, st, raw)
			}
			continue
		}
		if st != 400 || r.Get("error.root_cause.0.reason").String() != c.want || r.Get("error.reason").String() != "Failed to parse mapping: "+c.want {
			t.Errorf("%s: %d %s, want 400 %q", c.body, st, raw, c.want)
		}
	}
	st, _, raw := do(t, newTest(t, `{"mappings":{"properties":{"e":{"enabled":true}}}}`), "GET", "/test/_mapping", "")
	if want := `{"test":{"mappings":{"properties":{"e":{"type":"object"}}}}}`; st != 200 || raw != want {
		t.Errorf("GET _mapping: %d %s, want %s", st, raw, want)
	}
}

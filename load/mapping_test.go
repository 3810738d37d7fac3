package load

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/conform-dev/conform/fixtures"
	"github.com/tidwall/gjson"
)

func variantBody(t *testing.T, v string) []byte {
	t.Helper()
	b, err := fixtures.VariantMapping(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// recorded reads the "mappings" of a GET /catalogue/_mapping answer recorded from a real
// engine (lab/engines.sh: Elasticsearch 8.15.0 loaded with price-double, OpenSearch 3.6.0 with
// the designed catalogue).
func recorded(t *testing.T, file string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + file)
	if err != nil {
		t.Fatal(err)
	}
	return []byte(gjson.GetBytes(b, "catalogue.mappings").Raw)
}

func TestCompareMapping(t *testing.T) {
	designed, priceDouble := variantBody(t, fixtures.VariantDefault), variantBody(t, fixtures.VariantPriceDouble)
	esPD, osDesigned := recorded(t, "mapping-es-8.15.0-price-double.json"), recorded(t, "mapping-os-3.6.0-designed.json")
	tests := []struct {
		why                  string
		fixtures, index      []byte
		fixtureName, variant string
		diffs                string // "field:want>got,..."
		extra                string
	}{
		{"real ES holding price-double, designed fixtures", designed, esPD, "designed", "price-double", "price:scaled_float(100)>double", ""},
		{"real ES holding price-double, price-double fixtures", priceDouble, esPD, "price-double", "price-double", "", ""},
		{"real OpenSearch holding the designed catalogue (scaling_factor 100.0 equals 100)", designed, osDesigned, "designed", "designed", "", ""},
		{"real OpenSearch, price-double fixtures", priceDouble, osDesigned, "price-double", "designed", "price:double>scaled_float(100)", ""},
		{"another scaling factor is another type", designed,
			[]byte(strings.Replace(string(osDesigned), `"scaling_factor":100.0`, `"scaling_factor":10`, 1)), "designed", "", "price:scaled_float(100)>scaled_float(10)", ""},
		{"a field the index lacks, one it adds", designed,
			[]byte(strings.Replace(string(osDesigned), `"brand":{"type":"keyword"}`, `"brandx":{"type":"keyword"}`, 1)), "designed", "", "brand:keyword>absent", "brandx"},
		{"multi-fields and objects by their leaves", []byte(`{"mappings":{"properties":{"a":{"type":"text","fields":{"raw":{"type":"keyword"}}},"o":{"type":"object","properties":{"n":{"type":"long"}}}}}}`),
			[]byte(`{"properties":{"a":{"type":"text","fields":{"raw":{"type":"wildcard"}}},"o":{"properties":{"n":{"type":"long"}}}}}`), "custom", "", "a.raw:keyword>wildcard", ""},
	}
	for _, tc := range tests {
		t.Run(tc.why, func(t *testing.T) {
			m, err := CompareMapping(tc.fixtures, tc.index)
			if err != nil {
				t.Fatal(err)
			}
			var diffs []string
			for _, d := range m.Differences {
				diffs = append(diffs, d.Field+":"+d.Want+">"+d.Got)
			}
			if m.Fixtures != tc.fixtureName || m.Variant != tc.variant || strings.Join(diffs, ",") != tc.diffs || strings.Join(m.Extra, ",") != tc.extra {
				t.Errorf("got fixtures %q, variant %q, differences %q, extra %q; want %q, %q, %q, %q",
					m.Fixtures, m.Variant, diffs, m.Extra, tc.fixtureName, tc.variant, tc.diffs, tc.extra)
			}
			if m.Matches() != (tc.diffs == "") {
				t.Errorf("Matches() = %v with differences %q", m.Matches(), diffs)
			}
		})
	}
}

// An engine loaded with the price-double variant is not intact against the designed fixtures:
// the probe names the field and the variant, and load --probe's text says so.
func TestProbeESComparesTheMapping(t *testing.T) {
	f := smallDefault(t, 300)
	for _, tc := range []struct {
		why     string
		mapping string
		noAPI   bool
		intact  bool
		line    string
	}{
		{"the fixtures' own mapping", string(f.Mapping), false, true, "mapping: the designed mapping, as the fixtures"},
		{"the price-double variant", string(variantBody(t, fixtures.VariantPriceDouble)), false, false,
			"mapping differs from the fixtures': the index holds the price-double mapping, the fixtures are the designed mapping: price is double where the fixtures map scaled_float(100)"},
		{"no mapping API: not compared, not failed", string(variantBody(t, fixtures.VariantPriceDouble)), true, true,
			"mapping not compared (GET /catalogue/_mapping answered HTTP 405)"},
	} {
		t.Run(tc.why, func(t *testing.T) {
			es := loadedFake(f, "catalogue")
			es.SetMapping("catalogue", tc.mapping)
			es.NoMappingAPI = tc.noAPI
			p, err := ProbeES(context.Background(), serveES(t, es), "catalogue", f, ProbeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if p.Intact() != tc.intact || p.Mapping == nil || p.Mapping.Summary() != tc.line {
				t.Fatalf("intact %v, mapping %q; want %v, %q", p.Intact(), p.Mapping.Summary(), tc.intact, tc.line)
			}
			var text strings.Builder
			(&TargetResult{Name: "es", URL: "http://es", Probe: p}).WriteText(&text)
			if !strings.Contains(text.String(), "es  "+tc.line+"\n") {
				t.Errorf("load --probe's text lacks the mapping line:\n%s", text.String())
			}
			if !tc.intact && !strings.Contains(text.String(), "NOT INTACT: mapping price: want scaled_float(100), got double") {
				t.Errorf("load --probe's text does not fail on the mapping:\n%s", text.String())
			}
		})
	}
}

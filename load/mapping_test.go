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
	return []byte(gjson.GetBytes(b, "catalogue.mappings").Raw) // the recordings name the index catalogue
}

func TestCompareMapping(t *testing.T) {
	designed, priceDouble := variantBody(t, fixtures.VariantDefault), variantBody(t, fixtures.VariantPriceDouble)
	esPD, osDesigned := recorded(t, "mapping-es-8.15.0-price-double.json"), recorded(t, "mapping-os-3.6.0-designed.json")
	// ZincSearch 0.4.10 (go install github.com/zincsearch/zincsearch/cmd/zincsearch@v0.4.10, run
	// on loopback): its own type names (bool, numeric), _id and @timestamp added; loaded with
	// released as keyword, since its date type takes one format and the corpus has five; a
	// price-double PUT maps price numeric; a designed PUT leaves the scaled_float price out.
	zincLoaded := recorded(t, "mapping-zincsearch-0.4.10-loaded-released-keyword.json")
	zincPD, zincDesigned := recorded(t, "mapping-zincsearch-0.4.10-price-double-put.json"), recorded(t, "mapping-zincsearch-0.4.10-designed-put.json")
	const zincUnsure = "price:scaled_float(100)>numeric,rating:float>numeric,stock:integer>numeric,views:long>numeric,weight:double>numeric"
	tests := []struct {
		why                  string
		fixtures, index      []byte
		fixtureName, variant string
		diffs                string // "field:want>got,..."
		unsure, spelled      string
		candidates, extra    string
	}{
		{"real ES holding price-double, designed fixtures", designed, esPD, "designed", "price-double", "price:scaled_float(100)>double", "", "", "", ""},
		{"real ES holding price-double, price-double fixtures", priceDouble, esPD, "price-double", "price-double", "", "", "", "", ""},
		{"real OpenSearch holding the designed catalogue (scaling_factor 100.0 equals 100)", designed, osDesigned, "designed", "designed", "", "", "", "", ""},
		{"real OpenSearch, price-double fixtures", priceDouble, osDesigned, "price-double", "designed", "price:double>scaled_float(100)", "", "", "", ""},
		{"another scaling factor is another type", designed,
			[]byte(strings.Replace(string(osDesigned), `"scaling_factor":100.0`, `"scaling_factor":10`, 1)), "designed", "", "price:scaled_float(100)>scaled_float(10)", "", "", "", ""},
		{"a field the index lacks, one it adds", designed,
			[]byte(strings.Replace(string(osDesigned), `"brand":{"type":"keyword"}`, `"brandx":{"type":"keyword"}`, 1)), "designed", "", "brand:keyword>absent", "", "", "", "brandx"},
		{"multi-fields and objects by their leaves", []byte(`{"mappings":{"properties":{"a":{"type":"text","fields":{"raw":{"type":"keyword"}}},"o":{"type":"object","properties":{"n":{"type":"long"}}}}}}`),
			[]byte(`{"properties":{"a":{"type":"text","fields":{"raw":{"type":"wildcard"}}},"o":{"properties":{"n":{"type":"long"}}}}}`), "custom", "", "a.raw:keyword>wildcard", "", "", "", ""},
		{"ZincSearch loaded: released keyword differs, numeric cannot be told, bool means boolean", designed, zincLoaded, "designed", "",
			"released:date>keyword", zincUnsure, "in_stock:boolean>bool", "", "@timestamp,_id"},
		{"ZincSearch's numeric price cannot tell designed from price-double", designed, zincPD, "designed", "",
			"", zincUnsure, "in_stock:boolean>bool", "designed,price-double", "@timestamp,_id"},
		{"ZincSearch with the designed PUT has no price until a document brings one", designed, zincDesigned, "designed", "",
			"price:scaled_float(100)>absent", strings.TrimPrefix(zincUnsure, "price:scaled_float(100)>numeric,"), "in_stock:boolean>bool", "", "@timestamp,_id"},
		{"a gateway that leaves out scaling_factor: the variant is still told by the type", designed,
			[]byte(strings.Replace(string(osDesigned), `,"scaling_factor":100.0`, ``, 1)), "designed", "designed", "", "price:scaled_float(100)>scaled_float", "", "", ""},
		{"a gateway that leaves out a type cannot say what the field is", priceDouble,
			[]byte(strings.Replace(string(esPD), `"color":{"type":"keyword"}`, `"color":{}`, 1)), "price-double", "price-double", "", "color:keyword>", "", "", ""},
		{"another spelling alone matches", designed,
			[]byte(strings.Replace(string(osDesigned), `"in_stock":{"type":"boolean"}`, `"in_stock":{"type":"bool"}`, 1)), "designed", "designed", "", "", "in_stock:boolean>bool", "", ""},
	}
	list := func(ds []FieldDiff) string {
		var out []string
		for _, d := range ds {
			out = append(out, d.Field+":"+d.Want+">"+d.Got)
		}
		return strings.Join(out, ",")
	}
	for _, tc := range tests {
		t.Run(tc.why, func(t *testing.T) {
			m, err := CompareMapping(tc.fixtures, tc.index)
			if err != nil {
				t.Fatal(err)
			}
			got := []string{m.Fixtures, m.Variant, list(m.Differences), list(m.Unsure), list(m.Spelled), strings.Join(m.Candidates, ","), strings.Join(m.Extra, ",")}
			want := []string{tc.fixtureName, tc.variant, tc.diffs, tc.unsure, tc.spelled, tc.candidates, tc.extra}
			if strings.Join(got, " | ") != strings.Join(want, " | ") {
				t.Errorf("fixtures | variant | differences | unsure | spelled | candidates | extra:\n got  %q\n want %q", got, want)
			}
			if m.Matches() != (tc.diffs == "" && tc.unsure == "") {
				t.Errorf("Matches() = %v with differences %q, unsure %q", m.Matches(), tc.diffs, tc.unsure)
			}
		})
	}
}

// The summary names the variant when it can be told, says when it cannot and why, and names
// the fields, in the index's own words.
func TestMappingSummary(t *testing.T) {
	designed := variantBody(t, fixtures.VariantDefault)
	for _, tc := range []struct{ file, want string }{
		{"mapping-zincsearch-0.4.10-price-double-put.json", "mapping cannot be told from the fixtures': the index holds a mapping that cannot tell the designed and price-double mappings apart, the fixtures are the designed mapping: " +
			"price is numeric, which does not say whether it is scaled_float(100); rating is numeric, which does not say whether it is float; stock is numeric, which does not say whether it is integer; " +
			"views is numeric, which does not say whether it is long; weight is numeric, which does not say whether it is double; and 1 more"},
		{"mapping-zincsearch-0.4.10-loaded-released-keyword.json", "mapping differs from the fixtures': the index holds a mapping of no known variant, the fixtures are the designed mapping: " +
			"released is keyword where the fixtures map date; price is numeric, which does not say whether it is scaled_float(100); rating is numeric, which does not say whether it is float; " +
			"stock is numeric, which does not say whether it is integer; views is numeric, which does not say whether it is long; and 2 more"},
	} {
		m, err := CompareMapping(designed, recorded(t, tc.file))
		if err != nil {
			t.Fatal(err)
		}
		if got := m.Summary(); got != tc.want {
			t.Errorf("%s:\n got  %s\n want %s", tc.file, got, tc.want)
		}
	}
	m, err := CompareMapping(designed, []byte(strings.Replace(string(recorded(t, "mapping-os-3.6.0-designed.json")), `"in_stock":{"type":"boolean"}`, `"in_stock":{"type":"bool"}`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := m.Summary(), "mapping: the designed mapping, as the fixtures (spelled otherwise: in_stock bool for boolean)"; got != want {
		t.Errorf("got %q, want %q", got, want)
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

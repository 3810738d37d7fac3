package load

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/elastic/elastic-transport-go/v8/elastictransport"

	"github.com/conform-dev/conform/fixtures"
)

// Designed is the name MappingCheck gives the fixtures' designed mapping (fixtures.VariantDefault).
const Designed = "designed"

// FieldDiff is one field whose type in the index differs from the fixtures'. Want is the
// fixtures' type, Got the index's; "absent" stands for a field one side does not map.
type FieldDiff struct {
	Field string `json:"field"`
	Want  string `json:"want"`
	Got   string `json:"got"`
}

func (d FieldDiff) String() string {
	return fmt.Sprintf("%s is %s where the fixtures map %s", d.Field, d.Got, d.Want)
}

// MappingCheck is an index's mapping compared with the fixtures', field by field, by type
// (and, for scaled_float, its scaling factor, which changes every sort value). Two mappings
// with the same types give the same answers to the workload, whatever their other parameters.
type MappingCheck struct {
	// Fixtures names the fixtures' mapping: a variant (Designed, fixtures.VariantPriceDouble)
	// when its types are one, else "custom".
	Fixtures string `json:"fixtures"`
	// Variant names the variant whose types the index has, or "" when it has none of them.
	Variant string `json:"variant,omitempty"`
	// Differences are the fields the fixtures map that the index types otherwise (or lacks).
	// Any of them fails readiness: the oracle's expectations assume the fixtures' types.
	Differences []FieldDiff `json:"differences,omitempty"`
	// Extra are fields the index maps and the fixtures do not. They do not fail readiness (the
	// workload never reads them); a strict, freshly loaded index has none.
	Extra []string `json:"extra,omitempty"`
	// NotServed says why the mapping could not be compared: the target does not serve GET
	// /{index}/_mapping (a gateway need not; the embedded engine does, for one index). It does not fail
	// readiness; the count and the sample still do their part.
	NotServed string `json:"not_served,omitempty"`
}

// Matches reports whether the index's types are the fixtures' (or could not be compared).
func (m *MappingCheck) Matches() bool { return m == nil || len(m.Differences) == 0 }

// Summary is one line: which variant the index holds and, when it is not the fixtures', the
// fields that differ.
func (m *MappingCheck) Summary() string {
	if m.NotServed != "" {
		return "mapping not compared (" + m.NotServed + ")"
	}
	holds := "a mapping of no known variant"
	if m.Variant != "" {
		holds = "the " + m.Variant + " mapping"
	}
	if m.Matches() {
		s := "mapping: " + holds + ", as the fixtures"
		if len(m.Extra) > 0 {
			s += fmt.Sprintf(" (and %d fields they do not map: %s)", len(m.Extra), strings.Join(firstN(m.Extra, 5), ", "))
		}
		return s
	}
	var ds []string
	for _, d := range firstN(m.Differences, 5) {
		ds = append(ds, d.String())
	}
	if n := len(m.Differences) - len(ds); n > 0 {
		ds = append(ds, fmt.Sprintf("and %d more", n))
	}
	return fmt.Sprintf("mapping differs from the fixtures': the index holds %s, the fixtures are the %s mapping: %s", holds, m.Fixtures, strings.Join(ds, "; "))
}

func firstN[T any](s []T, n int) []T {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// CompareMapping compares an index's mapping (the "mappings" object of GET
// /{index}/_mapping) with the fixtures' mapping body (mapping.json, the body of PUT /{index}).
func CompareMapping(fixturesBody, indexMappings []byte) (*MappingCheck, error) {
	want, err := bodyFieldTypes(fixturesBody)
	if err != nil {
		return nil, fmt.Errorf("the fixtures' mapping: %w", err)
	}
	got, err := mappingsFieldTypes(indexMappings)
	if err != nil {
		return nil, fmt.Errorf("the index's mapping: %w", err)
	}
	m := &MappingCheck{Fixtures: variantOf(want)}
	m.Variant = variantOf(got)
	if m.Variant == "custom" {
		m.Variant = ""
	}
	for _, f := range sortedFields(want) {
		g, ok := got[f]
		if !ok {
			g = "absent"
		}
		if g != want[f] {
			m.Differences = append(m.Differences, FieldDiff{Field: f, Want: want[f], Got: g})
		}
	}
	for _, f := range sortedFields(got) {
		if _, ok := want[f]; !ok {
			m.Extra = append(m.Extra, f)
		}
	}
	return m, nil
}

// variantOf names the fixtures variant whose field types are types, or "custom".
func variantOf(types map[string]string) string {
	for _, v := range append([]string{fixtures.VariantDefault}, fixtures.Variants...) {
		body, err := fixtures.VariantMapping(v)
		if err != nil {
			continue
		}
		vt, err := bodyFieldTypes(body)
		if err != nil || !sameTypes(vt, types) {
			continue
		}
		if v == fixtures.VariantDefault {
			return Designed
		}
		return v
	}
	return "custom"
}

func sameTypes(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func sortedFields(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// bodyFieldTypes reads the field types of an index-creation body ({"mappings":{...}}).
func bodyFieldTypes(body []byte) (map[string]string, error) {
	var b struct {
		Mappings json.RawMessage `json:"mappings"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		return nil, err
	}
	return mappingsFieldTypes(b.Mappings)
}

// mappingsFieldTypes flattens a "mappings" object to field path -> type: objects by their
// leaves (GET _mapping omits "type":"object"), multi-fields as parent.sub, scaled_float with
// its factor ("scaled_float(100)", the factor printed as a number so 100 and 100.0 agree).
func mappingsFieldTypes(mappings []byte) (map[string]string, error) {
	var m struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if len(mappings) == 0 {
		return nil, fmt.Errorf("no mappings")
	}
	if err := json.Unmarshal(mappings, &m); err != nil {
		return nil, err
	}
	out := map[string]string{}
	if err := flattenTypes("", m.Properties, out); err != nil {
		return nil, err
	}
	return out, nil
}

func flattenTypes(prefix string, props map[string]json.RawMessage, out map[string]string) error {
	for name, raw := range props {
		var def struct {
			Type          string                     `json:"type"`
			ScalingFactor json.Number                `json:"scaling_factor"`
			Properties    map[string]json.RawMessage `json:"properties"`
			Fields        map[string]json.RawMessage `json:"fields"`
		}
		if err := json.Unmarshal(raw, &def); err != nil {
			return fmt.Errorf("field %s%s: %w", prefix, name, err)
		}
		path := prefix + name
		if def.Properties != nil || def.Type == "object" {
			if def.Type != "" && def.Type != "object" {
				out[path] = def.Type
			}
			if err := flattenTypes(path+".", def.Properties, out); err != nil {
				return err
			}
			continue
		}
		t := def.Type
		if t == "scaled_float" && def.ScalingFactor != "" {
			if f, err := strconv.ParseFloat(string(def.ScalingFactor), 64); err == nil {
				t = "scaled_float(" + strconv.FormatFloat(f, 'g', -1, 64) + ")"
			}
		}
		out[path] = t
		if err := flattenTypes(path+".", def.Fields, out); err != nil {
			return err
		}
	}
	return nil
}

// mapping reads GET /{index}/_mapping and compares it with the fixtures'. Any answer but 200
// (a gateway without the API, the embedded engine's unsupported answer) or one it cannot read
// gives a check with NotServed set; only a failure to ask is an error.
func (c esClient) mapping(ctx context.Context, index string, f *fixtures.Fixtures) (*MappingCheck, error) {
	r, err := c.do(ctx, http.MethodGet, []string{index, "_mapping"}, nil, nil, "")
	if err != nil {
		return nil, err
	}
	op := opName("GET", index, "_mapping")
	if r.Status != http.StatusOK {
		// conform's embedded engine answers APIs outside its subset with this error type
		// (oracle/engine.UnsupportedType); it holds the fixtures it was started with.
		if bytes.Contains(r.Body, []byte(`"type":"conform_unsupported_exception"`)) {
			return &MappingCheck{NotServed: op + " is outside conform's embedded engine's subset"}, nil
		}
		return &MappingCheck{NotServed: fmt.Sprintf("%s answered HTTP %d", op, r.Status)}, nil
	}
	// The answer is keyed by the index's concrete name, which differs from the one asked
	// for when that is an alias: take the only entry.
	var byIndex map[string]struct {
		Mappings json.RawMessage `json:"mappings"`
	}
	if err := json.Unmarshal(r.Body, &byIndex); err != nil || len(byIndex) != 1 {
		return &MappingCheck{NotServed: op + ": not one index's mapping: " + snippet(r.Body)}, nil
	}
	for _, v := range byIndex {
		m, err := CompareMapping(f.Mapping, v.Mappings)
		if err != nil {
			return &MappingCheck{NotServed: op + ": " + err.Error()}, nil
		}
		return m, nil
	}
	return nil, nil
}

// ProbeMapping compares the mapping of the index on an Elasticsearch-compatible engine with
// the fixtures' (see MappingCheck). It writes nothing.
func ProbeMapping(ctx context.Context, tp elastictransport.Interface, index string, f *fixtures.Fixtures) (*MappingCheck, error) {
	return esClient{tp}.mapping(ctx, index, f)
}

package load

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/elastic/elastic-transport-go/v8/elastictransport"

	"github.com/conform-dev/conform/fixtures"
)

// Designed is the name MappingCheck gives the fixtures' designed mapping (fixtures.VariantDefault).
const Designed = "designed"

// FieldDiff is one field whose type in the index differs from the fixtures', or can only be
// read in another engine's words. Want is the fixtures' type, Got the index's as it spells it;
// "absent" stands for a field one side does not map.
type FieldDiff struct {
	Field string `json:"field"`
	Want  string `json:"want"`
	Got   string `json:"got"`
}

func (d FieldDiff) String() string {
	return fmt.Sprintf("%s is %s where the fixtures map %s", d.Field, d.Got, d.Want)
}

// unsureText says why a field's type cannot be told from the fixtures'.
func (d FieldDiff) unsureText() string {
	if d.Got == "" {
		return fmt.Sprintf("%s has no type, which does not say whether it is %s", d.Field, d.Want)
	}
	if d.Got == "scaled_float" {
		return fmt.Sprintf("%s is scaled_float without a scaling_factor, which does not say whether it is %s", d.Field, d.Want)
	}
	return fmt.Sprintf("%s is %s, which does not say whether it is %s", d.Field, d.Got, d.Want)
}

func (d FieldDiff) spelledText() string {
	return fmt.Sprintf("%s is %s, another spelling of %s", d.Field, d.Got, d.Want)
}

// MappingCheck is an index's mapping compared with the fixtures', field by field, by what each
// type means (and, for scaled_float, its scaling factor, which changes every sort value), not
// by how it is spelled: ZincSearch's bool is Elasticsearch's boolean. Two mappings whose types
// mean the same give the same answers to the workload, whatever their other parameters. A
// type name that stands for several of Elasticsearch's (ZincSearch's numeric) cannot tell
// which the index holds: the field is Unsure, and so, where the variants differ in it, is the
// variant.
type MappingCheck struct {
	// Fixtures names the fixtures' mapping: a variant (Designed, fixtures.VariantPriceDouble)
	// when its types are one, else "custom".
	Fixtures string `json:"fixtures"`
	// Variant names the variant whose types the index has, or "" when it has none of them or
	// they cannot be told apart (Candidates then lists those it cannot tell apart).
	Variant    string   `json:"variant,omitempty"`
	Candidates []string `json:"candidates,omitempty"`
	// Differences are the fields the fixtures map that the index types otherwise (or lacks).
	// Any of them is a finding at readiness: the oracle's expectations assume the fixtures' types.
	Differences []FieldDiff `json:"differences,omitempty"`
	// Unsure are fields whose type, in the index's vocabulary, does not say whether it is the
	// fixtures' (numeric for a float; scaled_float without its factor; no type at all). They
	// are a finding too: the cases show what the engine does with them.
	Unsure []FieldDiff `json:"unsure,omitempty"`
	// Spelled are fields whose type means the fixtures' but is spelled otherwise (bool for
	// boolean). They match.
	Spelled []FieldDiff `json:"spelled,omitempty"`
	// Extra are fields the index maps and the fixtures do not. They do not fail readiness (the
	// workload never reads them); a strict, freshly loaded index has none.
	Extra []string `json:"extra,omitempty"`
	// NotServed says why the mapping could not be compared: the target answered GET
	// /{index}/_mapping with an error or with something that is not one index's mapping. At
	// readiness it is a finding; for conform load it is not a problem (the count and the
	// sample prove a copy).
	NotServed string `json:"not_served,omitempty"`
}

// Matches reports whether the index's types mean the fixtures' (or could not be compared).
func (m *MappingCheck) Matches() bool {
	return m == nil || len(m.Differences) == 0 && len(m.Unsure) == 0
}

// Summary is one line: which variant the index holds and, when its types are not the
// fixtures', the fields that differ or cannot be told.
func (m *MappingCheck) Summary() string {
	if m.NotServed != "" {
		return "mapping not compared (" + m.NotServed + ")"
	}
	holds := "a mapping of no known variant"
	switch {
	case m.Variant != "":
		holds = "the " + m.Variant + " mapping"
	case len(m.Candidates) > 1:
		holds = "a mapping that cannot tell the " + andList(m.Candidates) + " mappings apart"
	}
	if m.Matches() {
		s := "mapping: " + holds + ", as the fixtures"
		var notes []string
		if len(m.Spelled) > 0 {
			var ss []string
			for _, d := range firstN(m.Spelled, 5) {
				ss = append(ss, d.Field+" "+d.Got+" for "+d.Want)
			}
			notes = append(notes, "spelled otherwise: "+strings.Join(ss, ", "))
		}
		if len(m.Extra) > 0 {
			notes = append(notes, fmt.Sprintf("and %d fields they do not map: %s", len(m.Extra), strings.Join(firstN(m.Extra, 5), ", ")))
		}
		if len(notes) > 0 {
			s += " (" + strings.Join(notes, "; ") + ")"
		}
		return s
	}
	head := "mapping differs from the fixtures'"
	if len(m.Differences) == 0 {
		head = "mapping cannot be told from the fixtures'"
	}
	ds := m.FieldLines()
	if len(ds) > 5 {
		ds = append(ds[:5], fmt.Sprintf("and %d more", len(ds)-5))
	}
	return fmt.Sprintf("%s: the index holds %s, the fixtures are the %s mapping: %s", head, holds, m.Fixtures, strings.Join(ds, "; "))
}

// FieldLines is a line per field that differs, then per field that cannot be told, then per
// field spelled otherwise.
func (m *MappingCheck) FieldLines() []string {
	var out []string
	for _, d := range m.Differences {
		out = append(out, d.String())
	}
	for _, d := range m.Unsure {
		out = append(out, d.unsureText())
	}
	for _, d := range m.Spelled {
		out = append(out, d.spelledText())
	}
	return out
}

// andList joins names as "a, b and c".
func andList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

func firstN[T any](s []T, n int) []T {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// sameAs maps another engine's type names to Elasticsearch's where they mean the same.
// OpenSearch spells the scalar types as Elasticsearch does.
var sameAs = map[string]string{
	"bool": "boolean", // ZincSearch (pkg/meta/mappings.go: text, keyword, numeric, bool, date)
}

// broad lists type names that stand for several of Elasticsearch's types, so a field of that
// type cannot be told to be one of them: ZincSearch's numeric holds every number as a float64,
// and string is Elasticsearch 2's, which was either keyword or text.
var broad = map[string][]string{
	"numeric": {"long", "integer", "short", "byte", "unsigned_long", "double", "float", "half_float", "scaled_float"},
	"string":  {"keyword", "text"},
}

// typeMatch is how an index's type (as spelled) stands to the fixtures' type want.
type typeMatch int

const (
	typeSame    typeMatch = iota // the same type, spelled the same
	typeSpelled                  // the same type, spelled otherwise
	typeUnsure                   // a type name that cannot say whether it is want
	typeDiffers                  // another type
)

// matchType compares an index's field type got (as flattenTypes writes it) with want.
func matchType(want, got string) typeMatch {
	if got == want {
		return typeSame
	}
	if sameAs[got] == want {
		return typeSpelled
	}
	base, _, _ := strings.Cut(want, "(")
	switch {
	case got == "":
		return typeUnsure // no type given: a gateway that leaves parameters out
	case got == "scaled_float" && base == "scaled_float":
		return typeUnsure // the factor left out
	case slices.Contains(broad[got], base):
		return typeUnsure
	}
	return typeDiffers
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
	m := &MappingCheck{Fixtures: variantName(want)}
	for _, f := range sortedFields(want) {
		g, ok := got[f]
		if !ok {
			m.Differences = append(m.Differences, FieldDiff{Field: f, Want: want[f], Got: "absent"})
			continue
		}
		d := FieldDiff{Field: f, Want: want[f], Got: g}
		switch matchType(want[f], g) {
		case typeSpelled:
			m.Spelled = append(m.Spelled, d)
		case typeUnsure:
			m.Unsure = append(m.Unsure, d)
		case typeDiffers:
			m.Differences = append(m.Differences, d)
		}
	}
	for _, f := range sortedFields(got) {
		if _, ok := want[f]; !ok {
			m.Extra = append(m.Extra, f)
		}
	}
	m.Candidates = variantsOf(got)
	if len(m.Candidates) == 1 {
		m.Variant = m.Candidates[0]
		m.Candidates = nil
	}
	return m, nil
}

// variantName names the fixtures variant whose field types are types, or "custom".
func variantName(types map[string]string) string {
	for _, v := range variants() {
		if sameTypes(v.types, types) {
			return v.name
		}
	}
	return "custom"
}

// variantsOf names the variants an index's types could be: the index maps every field of the
// variant with a type that means the same or cannot be told otherwise. Fields the variant does
// not map do not count: the workload never reads them (ZincSearch adds _id and @timestamp).
func variantsOf(got map[string]string) []string {
	var out []string
	for _, v := range variants() {
		ok := true
		for f, t := range v.types {
			g, present := got[f]
			if !present || matchType(t, g) == typeDiffers {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, v.name)
		}
	}
	return out
}

type variant struct {
	name  string
	types map[string]string
}

// variants are the fixtures' mapping variants with their field types, the designed first.
func variants() []variant {
	var out []variant
	for _, v := range append([]string{fixtures.VariantDefault}, fixtures.Variants...) {
		body, err := fixtures.VariantMapping(v)
		if err != nil {
			continue
		}
		vt, err := bodyFieldTypes(body)
		if err != nil {
			continue
		}
		name := v
		if v == fixtures.VariantDefault {
			name = Designed
		}
		out = append(out, variant{name, vt})
	}
	return out
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

package fuzz

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/conform-dev/conform/fixtures"
)

// Field kinds the generator knows; fields of any other type are left out.
const (
	kindKeyword = "keyword"
	kindInteger = "integer" // long, integer, short, byte
	kindFloat   = "float"   // double, float, half_float, scaled_float
	kindDate    = "date"
	kindBool    = "boolean"
)

// Field is one mapped field and the values the corpus holds for it.
type Field struct {
	Name string
	Type string // the mapping's type
	Kind string
	// DefaultFormat is whether a date field parses Elasticsearch's default format, so day-only
	// and full ISO timestamps can be derived from its values.
	DefaultFormat bool
	// Values are the distinct scalar values as written in the corpus, in first-seen order.
	Values []any
	// Millis are a date field's values in epoch milliseconds, sorted.
	Millis []int64
	// Numbers are a numeric field's values, sorted.
	Numbers []float64
	// Missing is whether some document has no value (absent, null or []).
	Missing bool
	// Multi is whether some document has more than one value.
	Multi bool
}

// Schema is what the generator draws from: the index, the typed fields and the documents' ids.
type Schema struct {
	Index  string
	Fields []*Field
	// Unique is the keyword field present once in every document with distinct values: it
	// ends every sort, so no two hits tie. Empty when the corpus has none.
	Unique string
	IDs    []string
	Docs   int
}

func (s *Schema) byKind(kinds ...string) []*Field {
	var out []*Field
	for _, f := range s.Fields {
		for _, k := range kinds {
			if f.Kind == k {
				out = append(out, f)
			}
		}
	}
	return out
}

var kinds = map[string]string{
	"keyword": kindKeyword, "long": kindInteger, "integer": kindInteger, "short": kindInteger, "byte": kindInteger,
	"double": kindFloat, "float": kindFloat, "half_float": kindFloat, "scaled_float": kindFloat,
	"date": kindDate, "boolean": kindBool,
}

// NewSchema reads the fixtures' mapping and corpus. Only top-level fields of the scalar types
// above are used; a mapping without any is an error.
func NewSchema(f *fixtures.Fixtures) (*Schema, error) {
	var m struct {
		Mappings struct {
			Properties map[string]struct {
				Type   string `json:"type"`
				Format string `json:"format"`
			} `json:"properties"`
		} `json:"mappings"`
	}
	if err := json.Unmarshal(f.Mapping, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", fixtures.MappingFile, err)
	}
	s := &Schema{Index: f.Workload.Index, Docs: len(f.Docs)}
	byName := map[string]*Field{}
	for name, p := range m.Mappings.Properties {
		k, ok := kinds[p.Type]
		if !ok {
			continue
		}
		fd := &Field{Name: name, Type: p.Type, Kind: k}
		if k == kindDate {
			fd.DefaultFormat = p.Format == "" || p.Format == "strict_date_optional_time||epoch_millis"
		}
		s.Fields = append(s.Fields, fd)
		byName[name] = fd
	}
	sort.Slice(s.Fields, func(i, j int) bool { return s.Fields[i].Name < s.Fields[j].Name })
	if len(s.Fields) == 0 {
		return nil, fmt.Errorf("%s maps no field of a type the fuzzer generates (%s)", fixtures.MappingFile, strings.Join(sortedKeys(kinds), ", "))
	}
	seen := map[string]map[string]bool{}
	present := map[string]int{}
	single := map[string]bool{}
	for _, f := range s.Fields {
		seen[f.Name] = map[string]bool{}
		single[f.Name] = true
	}
	for _, d := range f.Docs {
		s.IDs = append(s.IDs, d.ID)
		v, err := Parse(d.Source)
		if err != nil {
			return nil, fmt.Errorf("%s: document %s: %w", fixtures.CorpusFile, d.ID, err)
		}
		src, _ := v.(*Object)
		if src == nil {
			continue
		}
		for _, fd := range s.Fields {
			raw, ok := src.Get(fd.Name)
			vals := []any{raw}
			if a, isArr := raw.([]any); isArr {
				vals = a
			}
			n := 0
			for _, x := range vals {
				if x == nil || !ok {
					continue
				}
				n++
				key := string(Marshal(x))
				if !seen[fd.Name][key] {
					seen[fd.Name][key] = true
					fd.Values = append(fd.Values, x)
					fd.add(x)
				}
			}
			switch {
			case n == 0:
				fd.Missing = true
			case n > 1:
				fd.Multi = true
				single[fd.Name] = false
			}
			if n == 1 {
				present[fd.Name]++
			}
		}
	}
	for _, fd := range s.Fields {
		sort.Slice(fd.Millis, func(i, j int) bool { return fd.Millis[i] < fd.Millis[j] })
		sort.Float64s(fd.Numbers)
		if fd.Kind == kindKeyword && single[fd.Name] && !fd.Missing && present[fd.Name] == len(f.Docs) && len(fd.Values) == len(f.Docs) {
			if s.Unique == "" || fd.Name == "sku" {
				s.Unique = fd.Name
			}
		}
	}
	// A field with no value at all gives the generator nothing to draw from.
	kept := s.Fields[:0]
	for _, fd := range s.Fields {
		if len(fd.Values) > 0 && (fd.Kind != kindDate || len(fd.Millis) > 0) {
			kept = append(kept, fd)
		}
	}
	s.Fields = kept
	return s, nil
}

func (fd *Field) add(x any) {
	switch fd.Kind {
	case kindInteger, kindFloat:
		if n, ok := x.(json.Number); ok {
			if v, err := n.Float64(); err == nil && !math.IsInf(v, 0) {
				fd.Numbers = append(fd.Numbers, v)
			}
		}
	case kindDate:
		if !fd.DefaultFormat {
			return
		}
		if ms, ok := dateMillis(x); ok {
			fd.Millis = append(fd.Millis, ms)
		}
	}
}

// dateMillis reads a default-format date value: an ISO date or timestamp, or epoch millis.
func dateMillis(x any) (int64, bool) {
	switch v := x.(type) {
	case json.Number:
		n, err := strconv.ParseInt(string(v), 10, 64)
		return n, err == nil
	case string:
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02T15:04", "2006-01-02"} {
			if t, err := time.Parse(layout, v); err == nil {
				return t.UnixMilli(), true
			}
		}
	}
	return 0, false
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

package yamltest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf16"

	"gopkg.in/yaml.v3"
)

// Values are what YAML tests and JSON responses decode to: nil, bool, string, Number, []any
// and *Object. Numbers keep their kind and text, objects their key order.

// Number is a JSON or YAML number with its kind: an integer (any size) or a floating-point
// number (a double).
type Number struct {
	Text  string   // as written, or a JSON rendering
	Int   *big.Int // set for integers
	Float float64  // the double value (for integers too)
}

// IsInt reports whether the number was written as an integer.
func (n Number) IsInt() bool { return n.Int != nil }

// javaClass is the class the Java runner's parsers give the number: Integer, Long or
// BigInteger for integers by magnitude, Double otherwise. Two numbers of the same class are
// compared by value; of different classes, match compares them as doubles at the top level
// and finds them unequal when nested.
func (n Number) javaClass() string {
	if n.Int == nil {
		return "Double"
	}
	if n.Int.IsInt64() {
		v := n.Int.Int64()
		if v >= math.MinInt32 && v <= math.MaxInt32 {
			return "Integer"
		}
		return "Long"
	}
	return "BigInteger"
}

func intNumber(s string) (Number, bool) {
	i, ok := new(big.Int).SetString(s, 0)
	if !ok {
		return Number{}, false
	}
	f, _ := new(big.Float).SetInt(i).Float64()
	return Number{Text: i.String(), Int: i, Float: f}, true
}

func floatNumber(text string, f float64) Number {
	if !json.Valid([]byte(text)) || strings.ContainsAny(text, " \t") {
		text = strconv.FormatFloat(f, 'g', -1, 64)
		if !strings.ContainsAny(text, ".eE") {
			text += ".0"
		}
	}
	return Number{Text: text, Float: f}
}

// parseJSONNumber classifies a JSON number literal.
func parseJSONNumber(s string) (Number, error) {
	if !strings.ContainsAny(s, ".eE") {
		if n, ok := intNumber(s); ok {
			return n, nil
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return Number{}, fmt.Errorf("bad number %q", s)
	}
	return Number{Text: s, Float: f}, nil
}

// Object is a JSON object or YAML mapping with its key order.
type Object struct {
	Keys []string
	Map  map[string]any
}

func newObject() *Object { return &Object{Map: map[string]any{}} }

// Set adds or replaces a key, keeping the first position.
func (o *Object) Set(k string, v any) {
	if _, ok := o.Map[k]; !ok {
		o.Keys = append(o.Keys, k)
	}
	o.Map[k] = v
}

// Get returns a key's value and whether it is present.
func (o *Object) Get(k string) (any, bool) {
	v, ok := o.Map[k]
	return v, ok
}

// decodeJSON decodes one JSON value, keeping key order and number kinds.
func decodeJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	v, err := decodeJSONValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data after the JSON value")
	}
	return v, nil
}

// decodeJSONStream decodes a sequence of JSON values, as a bulk body given as a string is.
func decodeJSONStream(b []byte) ([]any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var out []any
	for {
		v, err := decodeJSONValue(dec)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
}

func decodeJSONValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := newObject()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := decodeJSONValue(dec)
				if err != nil {
					return nil, err
				}
				o.Set(kt.(string), v)
			}
			_, err := dec.Token()
			return o, err
		case '[':
			list := []any{}
			for dec.More() {
				v, err := decodeJSONValue(dec)
				if err != nil {
					return nil, err
				}
				list = append(list, v)
			}
			_, err := dec.Token()
			return list, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	case json.Number:
		return parseJSONNumber(string(t))
	default:
		return t, nil // string, bool or nil
	}
}

// fromYAML converts a YAML node, keeping key order and number kinds as the YAML wrote them.
// Timestamps stay strings, as Jackson's YAML parser leaves them.
func fromYAML(n *yaml.Node) (any, error) {
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return fromYAML(n.Content[0])
	case yaml.AliasNode:
		return fromYAML(n.Alias)
	case yaml.MappingNode:
		o := newObject()
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Tag == "!!merge" {
				return nil, fmt.Errorf("line %d: YAML merge keys are not supported", k.Line)
			}
			val, err := fromYAML(v)
			if err != nil {
				return nil, err
			}
			o.Set(k.Value, val)
		}
		return o, nil
	case yaml.SequenceNode:
		list := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := fromYAML(c)
			if err != nil {
				return nil, err
			}
			list = append(list, v)
		}
		return list, nil
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return nil, nil
		case "!!bool":
			var b bool
			if err := n.Decode(&b); err != nil {
				return nil, fmt.Errorf("line %d: %v", n.Line, err)
			}
			return b, nil
		case "!!int":
			if num, ok := intNumber(strings.ReplaceAll(n.Value, "_", "")); ok {
				return num, nil
			}
			return nil, fmt.Errorf("line %d: bad integer %q", n.Line, n.Value)
		case "!!float":
			var f float64
			if err := n.Decode(&f); err != nil {
				return nil, fmt.Errorf("line %d: %v", n.Line, err)
			}
			return floatNumber(n.Value, f), nil
		default:
			return n.Value, nil
		}
	}
	return nil, fmt.Errorf("line %d: unsupported YAML node", n.Line)
}

// encodeJSON renders a value as compact JSON, numbers as written and keys in order.
func encodeJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	if err := writeJSON(&b, v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func writeJSON(b *bytes.Buffer, v any) error {
	switch t := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(t))
	case string:
		q, _ := json.Marshal(t)
		b.Write(q)
	case Number:
		if t.Int == nil && (math.IsInf(t.Float, 0) || math.IsNaN(t.Float)) {
			return fmt.Errorf("%s cannot be written as JSON", t.Text)
		}
		b.WriteString(t.Text)
	case []any:
		b.WriteByte('[')
		for i, e := range t {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeJSON(b, e); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case *Object:
		b.WriteByte('{')
		for i, k := range t.Keys {
			if i > 0 {
				b.WriteByte(',')
			}
			q, _ := json.Marshal(k)
			b.Write(q)
			b.WriteByte(':')
			if err := writeJSON(b, t.Map[k]); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	default:
		return fmt.Errorf("cannot write %T as JSON", v)
	}
	return nil
}

// javaString renders a value as Java's toString would on the Java runner's parsed value
// (Map.toString, List.toString, Double.toString). Regular expressions in catch are matched
// against it, and is_true and is_false test it.
func javaString(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(t)
	case string:
		return t
	case Number:
		if t.Int != nil {
			return t.Int.String()
		}
		return javaDouble(t.Float)
	case []any:
		parts := make([]string, len(t))
		for i, e := range t {
			parts[i] = javaString(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case *Object:
		parts := make([]string, len(t.Keys))
		for i, k := range t.Keys {
			parts[i] = k + "=" + javaString(t.Map[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprint(v)
}

// javaDouble formats a double as Java's Double.toString: the shortest digits that round
// trip, plain with at least one fraction digit for 1e-3 <= |d| < 1e7, else d.dddE±n.
func javaDouble(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	abs := math.Abs(f)
	if abs >= 1e-3 && abs < 1e7 {
		s := strconv.FormatFloat(f, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(f, 'e', -1, 64) // 1.2345e+07
	mant, exp, _ := strings.Cut(s, "e")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	e, _ := strconv.Atoi(exp)
	return mant + "E" + strconv.Itoa(e)
}

// display renders a value for a failure message: JSON-like, numbers as written.
func display(v any) string {
	if v == nil {
		return "null"
	}
	b, err := encodeJSON(v)
	if err != nil {
		return javaString(v)
	}
	return string(b)
}

// utf16Len is Java's String.length().
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += len(utf16.Encode([]rune{r}))
	}
	return n
}

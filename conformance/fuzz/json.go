package fuzz

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
)

// A request body is a tree of JSON values that keeps key order and number text, so the
// shrinker can edit it and the request sent is exactly the one rendered. A value is nil
// (null), bool, json.Number, string, []any or *Object.

// Object is a JSON object with its keys in order.
type Object struct {
	Keys []string
	Vals []any
}

// Obj builds an object from key, value pairs.
func Obj(kv ...any) *Object {
	o := &Object{}
	for i := 0; i+1 < len(kv); i += 2 {
		o.Set(kv[i].(string), kv[i+1])
	}
	return o
}

// Set replaces the value of k, or appends it.
func (o *Object) Set(k string, v any) {
	for i, key := range o.Keys {
		if key == k {
			o.Vals[i] = v
			return
		}
	}
	o.Keys = append(o.Keys, k)
	o.Vals = append(o.Vals, v)
}

// Get returns the value of k.
func (o *Object) Get(k string) (any, bool) {
	for i, key := range o.Keys {
		if key == k {
			return o.Vals[i], true
		}
	}
	return nil, false
}

// Delete removes k.
func (o *Object) Delete(k string) {
	for i, key := range o.Keys {
		if key == k {
			o.Keys = append(o.Keys[:i:i], o.Keys[i+1:]...)
			o.Vals = append(o.Vals[:i:i], o.Vals[i+1:]...)
			return
		}
	}
}

// Len is the number of keys.
func (o *Object) Len() int { return len(o.Keys) }

// clone copies a tree deeply.
func clone(v any) any {
	switch x := v.(type) {
	case *Object:
		c := &Object{Keys: append([]string(nil), x.Keys...), Vals: make([]any, len(x.Vals))}
		for i, e := range x.Vals {
			c.Vals[i] = clone(e)
		}
		return c
	case []any:
		c := make([]any, len(x))
		for i, e := range x {
			c[i] = clone(e)
		}
		return c
	}
	return v
}

// num renders an integer as a JSON number.
func num(n int64) json.Number { return json.Number(strconv.FormatInt(n, 10)) }

// Marshal renders a tree as compact JSON, without HTML escaping.
func Marshal(v any) []byte {
	var b bytes.Buffer
	write(&b, v)
	return b.Bytes()
}

func write(b *bytes.Buffer, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		if x {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case json.Number:
		b.WriteString(string(x))
	case string:
		writeString(b, x)
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			write(b, e)
		}
		b.WriteByte(']')
	case *Object:
		if x == nil {
			b.WriteString("null")
			return
		}
		b.WriteByte('{')
		for i, k := range x.Keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, k)
			b.WriteByte(':')
			write(b, x.Vals[i])
		}
		b.WriteByte('}')
	default:
		panic(fmt.Sprintf("fuzz: %T in a JSON tree", v))
	}
}

func writeString(b *bytes.Buffer, s string) {
	var e bytes.Buffer
	enc := json.NewEncoder(&e)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	b.Write(bytes.TrimRight(e.Bytes(), "\n"))
}

// Parse reads JSON into a tree, keeping key order and number text.
func Parse(data []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	v, err := parseValue(d)
	if err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, fmt.Errorf("trailing data after the JSON value")
	}
	return v, nil
}

func parseValue(d *json.Decoder) (any, error) {
	t, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch x := t.(type) {
	case json.Delim:
		switch x {
		case '{':
			o := &Object{}
			for d.More() {
				kt, err := d.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := parseValue(d)
				if err != nil {
					return nil, err
				}
				o.Keys = append(o.Keys, k)
				o.Vals = append(o.Vals, v)
			}
			_, err := d.Token()
			return o, err
		case '[':
			a := []any{}
			for d.More() {
				v, err := parseValue(d)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			_, err := d.Token()
			return a, err
		}
		return nil, fmt.Errorf("unexpected %v", x)
	case float64:
		return json.Number(strconv.FormatFloat(x, 'g', -1, 64)), nil
	}
	return t, nil
}

// Nodes counts a tree's values (every object, array and scalar): the size of a reproducer.
func Nodes(v any) int {
	switch x := v.(type) {
	case *Object:
		n := 1
		for _, e := range x.Vals {
			n += Nodes(e)
		}
		return n
	case []any:
		n := 1
		for _, e := range x {
			n += Nodes(e)
		}
		return n
	}
	return 1
}

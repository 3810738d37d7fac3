package engine

import (
	"strings"

	"github.com/tidwall/gjson"
)

// filter_path follows Elasticsearch 8.15's response filtering. AbstractRestChannel.newBuilder
// splits the parameter with Strings.tokenizeByCommaToSet (tokens trimmed, empty ones dropped),
// takes a token starting with "-" as an exclude (the rest of it, so "-" alone excludes the empty
// name) and every other token as an include, and builds the response's XContentBuilder with
// them: JsonXContentGenerator wraps its generator in Jackson's FilteringGeneratorDelegate, once
// with a FilterPathBasedFilter of the includes and once with one of the excludes
// (libs/x-content/impl/.../JsonXContentGenerator.java, FilterPath.java,
// FilterPathBasedFilter.java). Errors are built with newErrorBuilder, which disables filtering,
// so an error body is never filtered. A filtering generator may not copy raw bytes
// (JsonXContentGenerator.mayWriteRawData is false once a filter is set), so every _source goes
// through a parser and out again: numbers re-printed, characters outside the BMP escaped
// (appendJackson), even where the filter keeps it whole.
//
// The rules, each measured on real Elasticsearch 8.15.0 (lab/realengines TestClientAPIs,
// filter_path):
//
//   - a path is dotted; each segment matches one field name, with * matching any run of
//     characters (Glob.globMatch); a ** segment matches one or more levels (so **._id does not
//     match a top-level _id, and _source.**.brand does not match _source.brand);
//   - the include pass keeps a value whose path a pattern matches whole, as it is (an empty
//     array or object included); where patterns continue below a path it keeps an object or an
//     array only if something is left in it, filtering an array's elements at the array's own
//     path, and drops scalars; it drops every other value;
//   - the exclude pass drops a value whose path a pattern matches whole, keeps values no pattern
//     reaches, and filters those patterns continue below like the include pass, except that it
//     keeps scalars; an object or array left empty is dropped (even one empty to begin with);
//   - the top-level object is always written, "{}" when nothing is left.
//
// A field name containing dots (an error's "resource.type") is one name: only a pattern segment
// with a wildcard can match it, as FilterPath does when matchFieldNamesWithDots is off.

// filterPath is a compiled filter_path parameter.
type filterPath struct {
	includes, excludes [][]string
}

// parseFilterPath reads a filter_path value; nil means no filtering.
func parseFilterPath(v string) *filterPath {
	fp := &filterPath{}
	seen := map[string]bool{}
	for _, tok := range strings.Split(v, ",") {
		tok = strings.TrimSpace(tok)
		if tok == "" || seen[tok] {
			continue
		}
		seen[tok] = true
		if rest, ok := strings.CutPrefix(tok, "-"); ok {
			fp.excludes = append(fp.excludes, strings.Split(rest, "."))
		} else {
			fp.includes = append(fp.includes, strings.Split(tok, "."))
		}
	}
	if len(fp.includes) == 0 && len(fp.excludes) == 0 {
		return nil
	}
	return fp
}

// apply filters a response body. sourcePaths are the paths (dotted, [] for "every element")
// whose values are documents' _source, re-serialised as Elasticsearch re-serialises them.
func (fp *filterPath) apply(body []byte, sourcePaths []string) ([]byte, *esError) {
	if len(body) == 0 || !gjson.ValidBytes(body) {
		return body, nil
	}
	v := gjson.ParseBytes(body)
	if !v.IsObject() {
		return body, nil
	}
	if len(sourcePaths) > 0 {
		out := reserializeSources(nil, v, sourcePaths, "")
		v = gjson.ParseBytes(out)
	}
	var err *esError
	if len(fp.includes) > 0 {
		var out []byte
		if out, _, err = filterValue(nil, v, fp.includes, allPositions(fp.includes), true); err != nil {
			return nil, err
		}
		v = gjson.ParseBytes(out)
	}
	if len(fp.excludes) > 0 {
		var out []byte
		if out, _, err = filterValue(nil, v, fp.excludes, allPositions(fp.excludes), false); err != nil {
			return nil, err
		}
		v = gjson.ParseBytes(out)
	}
	if v.Raw == "" || v.Raw == "[]" {
		return []byte("{}"), nil
	}
	return []byte(v.Raw), nil
}

// reserializeSources copies v, passing the values at the given paths through appendJackson.
// A path segment "[]" stands for every element of an array.
func reserializeSources(b []byte, v gjson.Result, paths []string, at string) []byte {
	for _, p := range paths {
		if p == at {
			return appendJackson(b, v)
		}
	}
	switch {
	case v.IsObject():
		b = append(b, '{')
		i := 0
		v.ForEach(func(k, x gjson.Result) bool {
			if i > 0 {
				b = append(b, ',')
			}
			i++
			b = append(b, k.Raw...)
			b = append(b, ':')
			b = reserializeSources(b, x, paths, join(at, k.String()))
			return true
		})
		return append(b, '}')
	case v.IsArray():
		b = append(b, '[')
		for i, x := range v.Array() {
			if i > 0 {
				b = append(b, ',')
			}
			b = reserializeSources(b, x, paths, join(at, "[]"))
		}
		return append(b, ']')
	}
	return append(b, v.Raw...)
}

func join(at, k string) string {
	if at == "" {
		return k
	}
	return at + "." + k
}

// filterValue filters an object or array at a path the patterns continue below (positions at),
// and reports whether anything is left in it.
func filterValue(b []byte, v gjson.Result, ps [][]string, at []pos, include bool) ([]byte, bool, *esError) {
	var err *esError
	n := 0
	// keep writes x at a position the patterns continue below, as the pass rules say.
	under := func(x gjson.Result, next []pos) bool {
		if x.IsObject() || x.IsArray() {
			var keep bool
			if b, keep, err = filterValue(b, x, ps, next, include); err != nil {
				return false
			}
			return keep
		}
		if include {
			return false
		}
		b = append(b, x.Raw...)
		return true
	}
	if v.IsArray() {
		b = append(b, '[')
		for _, x := range v.Array() {
			mark := len(b)
			if n > 0 {
				b = append(b, ',')
			}
			if !under(x, at) {
				if err != nil {
					return nil, false, err
				}
				b = b[:mark]
				continue
			}
			n++
		}
		return append(b, ']'), n > 0, nil
	}
	b = append(b, '{')
	v.ForEach(func(k, x gjson.Result) bool {
		key := k.String()
		whole, next := stepPatterns(ps, at, key)
		mark := len(b)
		if n > 0 {
			b = append(b, ',')
		}
		b = append(b, k.Raw...)
		b = append(b, ':')
		keep := false
		switch {
		case whole:
			keep = include
			if keep {
				b = append(b, x.Raw...)
			}
		case len(next) > 0:
			keep = under(x, next)
			if err != nil {
				return false
			}
		default:
			keep = !include
			if keep {
				b = append(b, x.Raw...)
			}
		}
		if !keep {
			b = b[:mark]
			return true
		}
		n++
		return true
	})
	if err != nil {
		return nil, false, err
	}
	return append(b, '}'), n > 0, nil
}

// stepPatterns matches one field name against the patterns at their positions: whole when a
// pattern ends there, next the positions that continue below it.
func stepPatterns(ps [][]string, at []pos, key string) (whole bool, next []pos) {
	for _, q := range at {
		seg := ps[q.p][q.i]
		last := q.i+1 == len(ps[q.p])
		if seg == "**" {
			// ** consumes this name and maybe more: it stays, and the segment after it may
			// match the next level.
			if last {
				whole = true
				continue
			}
			next = append(next, q, pos{q.p, q.i + 1})
			continue
		}
		if !globMatch(seg, key) {
			continue
		}
		if last {
			whole = true
		} else {
			next = append(next, pos{q.p, q.i + 1})
		}
	}
	return whole, next
}

package engine

import (
	"strings"

	"github.com/tidwall/gjson"
)

// Source filtering follows Elasticsearch 8.15's SourceFilter
// (server/src/main/java/org/elasticsearch/search/lookup/SourceFilter.java). With no wildcard
// among the excludes it filters the bytes: XContentParserConfiguration.withFiltering(includes,
// excludes, true) wraps the parser in Jackson's FilteringParserDelegate with a
// FilterPathBasedFilter for the includes, then one for the excludes, and the result is copied
// with copyCurrentStructure (numbers re-serialised, appendJackson). With a wildcard in an exclude
// it filters the parsed map instead (XContentMapValues.filter), whose HashMaps reorder the keys;
// the engine declines that.
//
// A pattern is a dotted path, each segment a glob where * matches within the segment. Each pass
// walks the source; at a key, the patterns that match the path so far decide:
//
//   - a pattern matches the whole path: the include pass keeps the value as it is (an empty object
//     or array included), the exclude pass drops it;
//   - patterns continue below the path: the value is filtered further. An object or an array is
//     kept only if something is left in it (so an empty object or array goes, even one that was
//     empty in the source); the elements of an array are filtered at the array's own path; a
//     scalar is dropped by the include pass and kept by the exclude pass;
//   - no pattern matches: the include pass drops the value, the exclude pass keeps it as it is.
//
// Confirmed on real Elasticsearch 8.15.0 (lab/realengines TestElasticsearchRules,
// source-filtering). Field names with dots (which filtersMatchFieldNamesWithDots lets a pattern
// match across) and ** patterns are declined.

// appendSource writes a document's _source: the original bytes, or the filtered object.
func appendSource(b []byte, src []byte, f sourceFilter) ([]byte, *esError) {
	if !f.filtering() {
		return append(b, src...), nil
	}
	inc, err := compilePatterns(f.includes, false)
	if err != nil {
		return nil, err
	}
	exc, err := compilePatterns(f.excludes, true)
	if err != nil {
		return nil, err
	}
	v := gjson.ParseBytes(src)
	if len(inc) > 0 {
		out, _, err := filterPass(nil, v, inc, allPositions(inc), true)
		if err != nil {
			return nil, err
		}
		v = gjson.ParseBytes(out)
	}
	if len(exc) > 0 {
		out, _, err := filterPass(nil, v, exc, allPositions(exc), false)
		if err != nil {
			return nil, err
		}
		v = gjson.ParseBytes(out)
	}
	return appendJackson(b, v), nil
}

func compilePatterns(ps []string, exclude bool) ([][]string, *esError) {
	var out [][]string
	for _, p := range ps {
		if exclude && strings.Contains(p, "*") {
			return nil, errUnsupportedf("the exclude pattern [%s]: with a wildcard among the excludes Elasticsearch filters the source as a HashMap, reordering its keys", p)
		}
		segs := strings.Split(p, ".")
		for _, s := range segs {
			if s == "" || s == "**" {
				return nil, errUnsupportedf("the source filter pattern [%s]", p)
			}
		}
		out = append(out, segs)
	}
	return out, nil
}

// pos is a pattern and how many of its segments the path has matched.
type pos struct{ p, i int }

func allPositions(ps [][]string) []pos {
	out := make([]pos, len(ps))
	for i := range ps {
		out[i] = pos{i, 0}
	}
	return out
}

// filterPass filters value v (an object or array, at a path that patterns continue below, with
// the positions at) and reports whether anything was left in it.
func filterPass(b []byte, v gjson.Result, ps [][]string, at []pos, include bool) ([]byte, bool, *esError) {
	var err *esError
	n := 0
	if v.IsArray() {
		b = append(b, '[')
		for _, x := range v.Array() {
			mark := len(b)
			if n > 0 {
				b = append(b, ',')
			}
			keep := true
			if x.IsObject() || x.IsArray() {
				b, keep, err = filterPass(b, x, ps, at, include)
				if err != nil {
					return nil, false, err
				}
			} else if include {
				keep = false
			} else {
				b = append(b, x.Raw...)
			}
			if !keep {
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
		var next []pos
		whole := false
		for _, q := range at {
			if globMatch(ps[q.p][q.i], key) {
				if q.i+1 == len(ps[q.p]) {
					whole = true
				} else {
					next = append(next, pos{q.p, q.i + 1})
				}
			}
		}
		if strings.Contains(key, ".") {
			err = errUnsupportedf("source filtering over field [%s]: Elasticsearch matches patterns across the dots of field names", key)
			return false
		}
		mark := len(b)
		if n > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, key)
		b = append(b, ':')
		keep := true
		switch {
		case whole:
			keep = include
			if keep {
				b = append(b, x.Raw...)
			}
		case len(next) > 0:
			if x.IsObject() || x.IsArray() {
				b, keep, err = filterPass(b, x, ps, next, include)
				if err != nil {
					return false
				}
			} else if include {
				keep = false
			} else {
				b = append(b, x.Raw...)
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

// globMatch is Elasticsearch's Glob.globMatch: * matches any run of characters, everything
// else itself.
func globMatch(pattern, s string) bool {
	if !strings.Contains(pattern, "*") {
		return pattern == s
	}
	return wildcardMatch(pattern, s)
}

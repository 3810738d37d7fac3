package conformance

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tidwall/gjson"
)

// IndexFacts are what the relation rule at exactly track_total_hits (acceptAtThreshold) needs
// to know of an index beyond its mapping: whether Lucene's Weight#count can count a term, range
// or exists query there depends on deleted documents and on fields holding several values.
// The zero value knows neither fact, and the rule then assumes the layout that lets
// Elasticsearch answer "gte" (a check must not fail an answer Elasticsearch gives).
type IndexFacts struct {
	// Deletions is whether the index holds deleted documents: GET /{index}/_stats/docs,
	// _all.total.docs.deleted (primaries and replicas, which are searched too).
	Deletions Deletions
	// MultiValued names the fields holding more than one value in some document of the
	// corpus, by dotted path (a field under an object array is multi-valued too); nil when
	// the documents are not known. A field is multi-valued when it or an object above it is
	// named: a multi-field (name.raw) indexes its parent's values.
	MultiValued map[string]bool
}

// Deletions is what an index said of its deleted documents.
type Deletions int

const (
	// DeletionsUnknown: the index was not asked, or did not answer (a gateway without
	// _stats, a 404, a body that is not Elasticsearch's); deletions are assumed possible.
	DeletionsUnknown Deletions = iota
	// DeletionsNone: the index reported no deleted documents.
	DeletionsNone
	// DeletionsSome: the index reported deleted documents, not yet merged away.
	DeletionsSome
)

func (d Deletions) String() string {
	switch d {
	case DeletionsNone:
		return "none"
	case DeletionsSome:
		return "some"
	}
	return "unknown"
}

// singleValued reports whether the corpus shows field holding at most one value in every
// document: false when the documents are not known.
func (f IndexFacts) singleValued(field string) bool {
	if f.MultiValued == nil || field == "" {
		return false
	}
	for p := field; ; {
		if f.MultiValued[p] {
			return false
		}
		i := strings.LastIndexByte(p, '.')
		if i < 0 {
			return true
		}
		p = p[:i]
	}
}

// String says the facts in a line, for a readiness log or a report's notes.
func (f IndexFacts) String() string {
	mv := "fields holding several values: not known (no corpus)"
	if f.MultiValued != nil {
		names := make([]string, 0, len(f.MultiValued))
		for n := range f.MultiValued {
			names = append(names, n)
		}
		sort.Strings(names)
		if len(names) == 0 {
			mv = "no field holds several values"
		} else {
			mv = fmt.Sprintf("fields holding several values: %s", strings.Join(names, ", "))
		}
	}
	return fmt.Sprintf("deleted documents: %s; %s", f.Deletions, mv)
}

// MultiValuedFields reads documents' _source and names the fields that hold more than one
// value in some document, as IndexFacts.MultiValued wants them: by dotted path, with an
// object's fields under its name and an array's elements all under the array's path (an
// object array is flattened, as Elasticsearch indexes a field that is not nested). null is
// no value. The result is empty, not nil, when no field holds several values.
func MultiValuedFields(sources [][]byte) map[string]bool {
	out := map[string]bool{}
	counts := map[string]int{}
	var walk func(path string, v gjson.Result)
	walk = func(path string, v gjson.Result) {
		switch {
		case v.IsArray():
			v.ForEach(func(_, e gjson.Result) bool {
				walk(path, e)
				return true
			})
		case v.IsObject():
			v.ForEach(func(k, e gjson.Result) bool {
				p := k.String()
				if path != "" {
					p = path + "." + p
				}
				walk(p, e)
				return true
			})
		case v.Type == gjson.Null || path == "":
		default:
			counts[path]++
			if counts[path] > 1 {
				out[path] = true
			}
		}
	}
	for _, src := range sources {
		clear(counts)
		walk("", gjson.ParseBytes(src))
	}
	return out
}

// CopyToTargets names the fields a mapping's copy_to sends other fields' values to, by dotted
// path. Elasticsearch copies each source field's value into the target as one more value of
// it, and leaves _source as sent (its reference, mapping/params/copy-to.asciidoc: "the values
// of multiple fields" go into "a group field"; "the original _source field will not be
// modified"), so a target may hold several values in a document whose _source shows it with
// one or none: IndexFacts.MultiValued must name it, or the corpus alone would call it
// single-valued. Naming a target with a single source too only widens the rule.
func CopyToTargets(mapping []byte) []string {
	var out []string
	var walk func(props gjson.Result)
	walk = func(props gjson.Result) {
		props.ForEach(func(_, def gjson.Result) bool {
			// copy_to is a field name or an array of them; Array() gives both as a list.
			for _, t := range def.Get("copy_to").Array() {
				out = append(out, t.String())
			}
			walk(def.Get("properties"))
			walk(def.Get("fields")) // a multi-field may copy too
			return true
		})
	}
	m := gjson.ParseBytes(mapping)
	if p := m.Get("mappings.properties"); p.Exists() {
		walk(p)
	} else {
		walk(m.Get("properties"))
	}
	sort.Strings(out)
	return out
}

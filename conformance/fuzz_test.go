package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzCheck checks arbitrary bodies against every test response. The check must not panic;
// its result must be consistent (Pass exactly when no difference fails, known classes only,
// pedantic failing every difference); and whether it finds a difference must agree with an
// independent reference: both bodies decoded into a normalised tree (objects as key-sorted
// member lists, numbers by kind and value, took's value ignored) and compared whole, with
// go-cmp showing where they differ when the check and the reference disagree.
//
// The seed corpus is testdata/fuzz/FuzzCheck (written by TestWriteFuzzSeeds -update): every
// test response, a selection of its mutations, and bodies no target should send.
func FuzzCheck(f *testing.F) {
	rs := loadResponses(f)
	xs := make([]*Expectation, len(rs))
	for i, r := range rs {
		xs[i] = mustCompile(f, r.status, string(r.body))
	}
	f.Fuzz(func(t *testing.T, which uint8, body []byte) {
		i := int(which) % len(rs)
		x := xs[i]
		res := x.Check(rs[i].status, body, nil)
		checkInvariants(t, res)
		ped := x.Check(rs[i].status, body, &Options{Pedantic: true})
		checkInvariants(t, ped)
		if len(ped.Diffs) != len(res.Diffs) || len(ped.Diffs) > 0 && ped.Pass {
			t.Fatalf("pedantic differs from strict beyond failing:\nstrict %s\npedantic %s", res, ped)
		}
		for j := range ped.Diffs {
			a, b := ped.Diffs[j], res.Diffs[j]
			if !a.Fails || a.Class != b.Class || a.Path != b.Path || a.Want != b.Want || a.Got != b.Got {
				t.Fatalf("pedantic difference %+v vs strict %+v", a, b)
			}
		}

		got, err := parse(body)
		if err != nil {
			if res.Pass || !slices.Contains(res.FailingClasses(), ClassDecode) {
				t.Fatalf("invalid JSON (%v) without a decode failure:\n%s", err, res)
			}
			return
		}
		want := x.root
		wref, ok1 := normalise(&want, true)
		gref, ok2 := normalise(&got, true)
		if !ok1 || !ok2 {
			return // numbers too extreme for the exact reference
		}
		if want.member("took") != nil && got.kind == kObject && got.member("took") != nil {
			tw, tg := want.member("took"), got.member("took")
			if tw.kind == kNumber && !tw.float && tw.raw[0] != '-' && tg.kind == kNumber && !tg.float && tg.raw[0] != '-' {
				setTook(&wref)
				setTook(&gref)
			}
		}
		// reflect.DeepEqual gives the verdict (go-cmp's Equal computes an edit script for
		// every unequal slice, which costs the fuzzer most of its throughput); go-cmp
		// renders the reference's differences when the two disagree.
		equal := reflect.DeepEqual(wref, gref)
		differs := false
		for _, d := range res.Diffs {
			if d.Class != ClassKeyOrder {
				differs = true
			}
		}
		if equal == differs {
			t.Fatalf("reference says equal=%v, check found differences=%v:\n%s\nreference diff:\n%s", equal, differs, res, cmp.Diff(wref, gref))
		}
	})
}

func checkInvariants(t *testing.T, r Result) {
	t.Helper()
	failing := false
	for _, d := range r.Diffs {
		if d.Class.Index() < 0 {
			t.Fatalf("unknown class in %+v", d)
		}
		if strings.Contains(d.Got, "internal error") {
			t.Fatalf("the check panicked: %+v", d)
		}
		if d.Relaxed != "" {
			t.Fatalf("relaxed difference without relaxations: %+v", d)
		}
		if len(d.Want) > maxText+300 || len(d.Got) > maxText+300 {
			t.Fatalf("difference text not clipped: %d, %d bytes", len(d.Want), len(d.Got))
		}
		failing = failing || d.Fails
	}
	if r.Pass == failing {
		t.Fatalf("Pass = %v with failing differences = %v", r.Pass, failing)
	}
	_ = r.String()
}

// ref is the reference's normalised JSON: what a typed client can tell apart, and nothing
// else. It is built from the package's own parser (tested against encoding/json in
// TestParseAgreesWithEncodingJSON) but compared by go-cmp, not by the walker.
type ref struct {
	Kind    string // null, bool, int, float, string, array, object, took
	Text    string // bool and string text; an integer or out-of-range float as an exact decimal
	F       float64
	Elems   []ref
	Members []member
}

type member struct {
	Key string
	Val ref
}

// normalise returns the reference tree of v; ok is false when a number is too extreme to
// normalise exactly at a bounded cost.
func normalise(v *value, top bool) (ref, bool) {
	switch v.kind {
	case kNull:
		return ref{Kind: "null"}, true
	case kBool:
		return ref{Kind: "bool", Text: v.str}, true
	case kString:
		return ref{Kind: "string", Text: v.str}, true
	case kNumber:
		if !v.float {
			n, ok := new(big.Int).SetString(v.raw, 10)
			if !ok {
				return ref{}, false
			}
			return ref{Kind: "int", Text: n.String()}, true
		}
		f, err := strconv.ParseFloat(v.raw, 64)
		if err == nil {
			return ref{Kind: "float", F: f}, true
		}
		if len(v.raw) > 400 || exponentOver(v.raw, 2000) {
			return ref{}, false
		}
		r, ok := new(big.Rat).SetString(v.raw)
		if !ok {
			return ref{}, false
		}
		return ref{Kind: "float", Text: r.RatString()}, true
	case kArray:
		out := ref{Kind: "array", Elems: []ref{}}
		for i := range v.elems {
			e, ok := normalise(&v.elems[i], false)
			if !ok {
				return ref{}, false
			}
			out.Elems = append(out.Elems, e)
		}
		return out, true
	}
	out := ref{Kind: "object", Members: []member{}}
	for i := range v.elems {
		e, ok := normalise(&v.elems[i], false)
		if !ok {
			return ref{}, false
		}
		out.Members = append(out.Members, member{v.keys[i], e})
	}
	slices.SortStableFunc(out.Members, func(a, b member) int { return strings.Compare(a.Key, b.Key) })
	return out, true
}

func exponentOver(lit string, max int) bool {
	i := strings.IndexAny(lit, "eE")
	if i < 0 {
		return false
	}
	e, err := strconv.Atoi(strings.TrimPrefix(lit[i+1:], "+"))
	return err != nil || e > max || e < -max
}

// setTook replaces the top-level took with a marker: the check compares only its kind.
func setTook(r *ref) {
	for i := range r.Members {
		if r.Members[i].Key == "took" {
			r.Members[i].Val = ref{Kind: "took"}
			return
		}
	}
}

// FuzzCompile compiles arbitrary bodies as expectations. Compile must not panic; a body it
// accepts must pass its own check without a difference; its mutations must not panic the
// mutator or the check. Bodies over 2 KiB are only compiled: a page of hits has hundreds of
// mutations, which would leave the fuzzer minimising one input for minutes.
func FuzzCompile(f *testing.F) {
	for _, r := range loadResponses(f) {
		if len(r.body) <= 2048 {
			f.Add(r.body)
		}
	}
	f.Add([]byte(sortedPage))
	f.Add([]byte(relevancePage))
	f.Fuzz(func(t *testing.T, body []byte) {
		// The parser accepts exactly what encoding/json accepts, up to its nesting limit.
		if _, err := parse(body); (err == nil) != json.Valid(body) && bytes.Count(body, []byte("["))+bytes.Count(body, []byte("{")) < maxDepth {
			t.Fatalf("parse error %v, but json.Valid = %v", err, json.Valid(body))
		}
		x, err := Compile(200, body)
		if err != nil {
			return
		}
		if r := x.Check(200, body, &Options{Pedantic: true}); !r.Pass || len(r.Diffs) != 0 {
			t.Fatalf("a body does not pass itself:\n%s", r)
		}
		if len(body) > 2048 {
			return
		}
		ms, err := Mutations(200, body)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			r := x.Check(m.Status, m.Body, nil)
			checkInvariants(t, r)
			if m.MustPass() == false && r.Pass && m.Class != ClassScore {
				// A mutation that changes nothing visible cannot be told apart; on arbitrary
				// bodies that happens (e.g. a hit swapped with an identical one), so only
				// the kinds that always change a value are held to failing here.
				switch m.Operator {
				case "status-404", "status-500", "status-200", "truncate", "not-json", "empty-body":
					t.Fatalf("%s passed", m)
				}
			}
		}
	})
}

// TestWriteFuzzSeeds writes the seed corpus of FuzzCheck under testdata/fuzz with -update,
// and otherwise checks it is there.
func TestWriteFuzzSeeds(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzCheck")
	if !*update {
		if files, _ := filepath.Glob(filepath.Join(dir, "*")); len(files) < 50 {
			t.Fatalf("%s has %d seeds; run go test -run TestWriteFuzzSeeds -update", dir, len(files))
		}
		return
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name string, which int, body []byte) {
		s := fmt.Sprintf("go test fuzz v1\nbyte(%q)\n[]byte(%q)\n", byte(which), body)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	keep := map[string]bool{
		"drop-hit": true, "swap-hits": true, "int-to-float": true, "float32-widen": true, "float32-narrow": true,
		"string-to-number": true, "pretty": true, "escape-unicode": true, "reorder-keys": true, "truncate": true,
		"total-as-int": true, "drop-bucket": true, "reorder-buckets": true, "flip-found": true, "change-error-type": true,
		"duplicate-source-field": true, "drop-total": true, "change-took": true,
	}
	for i, r := range loadResponses(t) {
		write(fmt.Sprintf("%s-expected", r.name), i, r.body)
		ms, err := Mutations(r.status, r.body)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, m := range ms {
			if keep[m.Operator] && !seen[m.Operator] {
				seen[m.Operator] = true
				write(fmt.Sprintf("%s-%s", r.name, m.Operator), i, m.Body)
			}
		}
	}
	for name, body := range map[string]string{
		"empty":           ``,
		"not-json":        `<html>502</html>`,
		"deep-objects":    strings.Repeat(`{"a":`, 1200) + "1" + strings.Repeat("}", 1200),
		"deep-arrays":     `{"hits":{"hits":` + strings.Repeat("[", 1500) + strings.Repeat("]", 1500) + `}}`,
		"huge-number":     `{"hits":{"total":{"value":` + strings.Repeat("9", 5000) + `}}}`,
		"huge-exponent":   `{"took":1e999999999,"hits":{"total":{"value":1E-99999}}}`,
		"escapes":         `{"_index":"\u0063atalogue","_id":"\ud835\udd3e","found":true,"_source":{"a\"b":"\\\/\b\f\n\r\t"}}`,
		"lone-surrogate":  `{"_id":"\ud800","found":true}`,
		"invalid-utf8":    "{\"_id\":\"\xff\xfe\",\"found\":true}",
		"wrong-types":     `{"took":"1","timed_out":0,"_shards":[],"hits":{"total":"10","max_score":{},"hits":{"0":{}}},"aggregations":[]}`,
		"nulls":           `{"took":null,"hits":null,"aggregations":null,"found":null,"error":null,"status":null}`,
		"duplicate-keys":  `{"hits":{"hits":[],"hits":[]},"hits":{}}`,
		"control-char":    "{\"a\":\"\x01\"}",
		"whitespace-only": " \t\r\n",
	} {
		for _, which := range []int{0, 4, 8} {
			write(fmt.Sprintf("bad-%s-%d", name, which), which, []byte(body))
		}
	}
}

// TestParseAgreesWithEncodingJSON checks the parser's strings against encoding/json's on
// valid UTF-8, so the reference in FuzzCheck rests on a tested reader.
func TestParseAgreesWithEncodingJSON(t *testing.T) {
	for _, s := range []string{
		`"plain"`, `"\u00fc"`, `"ü"`, `"\ud835\udd3e"`, `"\ud800"`, `"\udc00\ud800"`, `"\ud800x"`, `"\/\b\f\n\r\t\"\\"`,
		`"\u0000"`, `"東京"`, `"a\u0308"`, `"\uD834\uDD1E"`,
	} {
		v, err := parse([]byte(s))
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		var want string
		if err := json.Unmarshal([]byte(s), &want); err != nil {
			t.Fatal(err)
		}
		if v.str != want {
			t.Errorf("%s: parse gives %q, encoding/json %q", s, v.str, want)
		}
		if !unescapeEqual([]byte(s[1:len(s)-1]), want) {
			t.Errorf("%s: unescapeEqual disagrees", s)
		}
	}
	for _, r := range loadResponses(t) {
		var a, b any
		if err := json.Unmarshal(r.body, &a); err != nil {
			t.Fatal(err)
		}
		v, err := parse(r.body)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(appendJSON(nil, &v), &b); err != nil || !cmp.Equal(a, b) {
			t.Errorf("%s: does not round-trip (%v)", r.name, err)
		}
	}
}

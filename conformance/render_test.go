package conformance

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRenderGolden renders a few checks the way `conform explain` shows them: the result,
// then the expected and actual bodies trimmed around the differences. The output is compared
// with testdata/golden/*.txt; -update rewrites them (check the diff).
func TestRenderGolden(t *testing.T) {
	rs := map[string]response{}
	for _, r := range loadResponses(t) {
		rs[r.name] = r
	}
	for _, c := range []struct {
		name, response, operator string
		nth                      int
		opts                     *Options
	}{
		{"drop-first-hit", "page-price", "drop-hit", 0, nil},
		{"int-to-float", "page-price", "int-to-float", 0, nil},
		{"float32-widen-sort", "page-rating", "float32-widen", 1, nil},
		{"reorder-buckets", "terms-brand", "reorder-buckets", 0, nil},
		{"narrow-bucket-key-relaxed", "terms-rating", "float32-narrow", 0, &Options{Relax: []Relaxation{RelaxFloat32}}},
		{"flip-found", "get-found", "flip-found", 0, nil},
		{"change-error-type", "error-window", "change-error-type", 0, nil},
		{"drop-relation", "page-price", "drop-relation", 0, nil},
		{"reorder-keys-pedantic", "get-found", "reorder-keys", 0, &Options{Pedantic: true}},
		{"truncated", "counts", "truncate", 0, nil},
		{"status-200", "get-not-found", "status-200", 0, nil},
		{"relevance-score", "page-relevance", "change-score", 0, nil},
	} {
		r, ok := rs[c.response]
		if !ok {
			t.Fatalf("no response %s", c.response)
		}
		m := nthMutation(t, r, c.operator, c.nth)
		x := mustCompile(t, r.status, string(r.body))
		res := x.Check(m.Status, m.Body, c.opts)
		var b bytes.Buffer
		fmt.Fprintf(&b, "mutation: %s\noptions: %s\n\n", m, c.opts)
		if err := Render(&b, res); err != nil {
			t.Fatal(err)
		}
		paths := res.Paths()
		for _, side := range []struct {
			label string
			body  []byte
		}{{"expected", r.body}, {"actual", m.Body}} {
			fmt.Fprintf(&b, "\n--- %s, trimmed to %s\n", side.label, strings.Join(paths, ", "))
			trimmed, err := Trim(side.body, paths)
			if err != nil {
				fmt.Fprintf(&b, "(not JSON: %v)\n", err)
				continue
			}
			b.WriteString(trimmed)
		}
		golden(t, filepath.Join("testdata", "golden", c.name+".txt"), b.Bytes())
	}
}

func nthMutation(t *testing.T, r response, op string, nth int) Mutation {
	t.Helper()
	ms, err := Mutations(r.status, r.body)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if m.Operator == op {
			if nth == 0 {
				return m
			}
			nth--
		}
	}
	t.Fatalf("%s: no %s mutation", r.name, op)
	return Mutation{}
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it; check the diff):\n%s", path, got)
	}
}

func TestTrim(t *testing.T) {
	body := []byte(`{"a":{"b":[1,2,{"_id":"x","c":3,"d":4},5],"e":"f"},"g":null}`)
	got, err := Trim(body, []string{"a.b[2].c", "a.b[7]", "zz.q"})
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "a" : {
    "b" : [
      … 2 more elements,
      {
        "_id" : "x",
        "c" : 3,
        … 1 more key
      },
      … 1 more element,
      [7] : <absent>
    ],
    … 1 more key
  },
  … 1 more key,
  "zz" (and below) : <absent>
}
`
	if got != want {
		t.Errorf("Trim:\n%s\nwant:\n%s", got, want)
	}
	if _, err := Trim([]byte(`{"a":`), nil); err == nil {
		t.Error("Trim of invalid JSON gave no error")
	}
	if _, err := Trim(body, []string{"a.["}); err == nil {
		t.Error("Trim of a bad path gave no error")
	}
	// The whole body when the path is the root.
	if got, _ := Trim([]byte(`{"a":1}`), []string{""}); got != "{\"a\":1}\n" {
		t.Errorf("Trim root: %q", got)
	}
}

func TestRenderCompactsPrettyValues(t *testing.T) {
	pretty := "{\n  \"found\" : true,\n  \"_source\" : {\n    \"a\" : [ 1, 2 ]\n  }\n}"
	x := mustCompile(t, 200, pretty)
	r := x.Check(200, []byte(`{"found":true}`), nil)
	if got := r.String(); !strings.Contains(got, `_source: want {"a":[1,2]}, got <absent>`) {
		t.Errorf("rendering:\n%s", got)
	}
}

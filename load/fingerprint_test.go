package load

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestCanonicalComparesJSONValues(t *testing.T) {
	for _, tc := range []struct {
		reason string
		a, b   string
		equal  bool
	}{
		{"key order does not matter", `{"a":1,"b":[1,2]}`, `{ "b" : [1,2], "a" : 1 }`, true},
		{"an integer and its float spelling differ", `{"w":129}`, `{"w":129.0}`, false},
		{"float spellings of one value are equal", `{"p":1.50}`, `{"p":1.5e0}`, true},
		{"a float and its float32 widening differ", `4.1`, `4.099999904632568`, false},
		{"a numeric string is not a number", `"007"`, `7`, false},
		{"escapes of one string are equal", `"\u00e9\/"`, `"é/"`, true},
		{"array order matters", `[1,2]`, `[2,1]`, false},
		{"-0 is 0 as an integer", `-0`, `0`, true},
		{"integers beyond 2^64 compare exactly", `18446744073709551617`, `18446744073709551616`, false},
		{"null and missing differ", `{"a":null}`, `{}`, false},
		{"nested keys are sorted too", `{"o":{"y":1,"x":2}}`, `{"o":{"x":2,"y":1}}`, true},
	} {
		ca, err := Canonical([]byte(tc.a))
		if err != nil {
			t.Fatalf("%s: %v", tc.reason, err)
		}
		cb, err := Canonical([]byte(tc.b))
		if err != nil {
			t.Fatalf("%s: %v", tc.reason, err)
		}
		if bytes.Equal(ca, cb) != tc.equal {
			t.Errorf("%s: Canonical(%s)=%s, Canonical(%s)=%s, equal=%v, want %v", tc.reason, tc.a, ca, tc.b, cb, !tc.equal, tc.equal)
		}
	}
	for _, bad := range []string{`{"a":}`, `{"a":1} x`, ``, `[1,`} {
		if _, err := Canonical([]byte(bad)); err == nil {
			t.Errorf("Canonical(%q) accepted invalid JSON", bad)
		}
	}
}

func TestSampleIsEveryNthDocument(t *testing.T) {
	f := smallDefault(t, 1050)
	docs, every := Sample(f, 100)
	if every != 10 || len(docs) != 100 {
		t.Fatalf("every=%d docs=%d, want 10 and 100", every, len(docs))
	}
	for i, d := range docs {
		if d.ID != f.Docs[i*10].ID {
			t.Fatalf("sample[%d] = %s, want corpus[%d] = %s", i, d.ID, i*10, f.Docs[i*10].ID)
		}
	}
	small := testFixtures(t, kindsMapping, [2]string{"a", `{}`}, [2]string{"b", `{}`})
	if docs, every := Sample(small, 100); every != 1 || len(docs) != 2 {
		t.Errorf("two documents: every=%d docs=%d, want 1 and 2", every, len(docs))
	}
}

// The fingerprint of a fixed corpus is pinned: if this test fails, the scheme changed, and
// FingerprintScheme must change with it so old and new fingerprints are never compared.
func TestExpectedFingerprintIsStable(t *testing.T) {
	f := testFixtures(t, kindsMapping,
		[2]string{"a", `{"sku":"a","stock":1}`},
		[2]string{"b", `{"stock":2.0,"sku":"b"}`},
		[2]string{"c", `{"tags":["x","é"]}`},
	)
	fp, err := ExpectedFingerprint(f, 2)
	if err != nil {
		t.Fatal(err)
	}
	// Computed independently: sha256 of "conform-sample/1\ncount 3\nevery 1\n" then
	// `1:a 21:{"sku":"a","stock":1}` and `1:b 23:{"sku":"b","stock":f:2}`, each with "\n".
	const want = "20209d68701312e80d3abae4250a985226dab503f575bc29ada641dd6cba1a28"
	if fp.Scheme != FingerprintScheme || fp.Count != 3 || fp.Every != 1 || fp.Docs != 2 {
		t.Errorf("fingerprint = %+v", fp)
	}
	if fp.SHA256 != want {
		t.Errorf("sha256 = %s, want %s (scheme changed?)", fp.SHA256, want)
	}
	// The same documents with keys reordered and numbers respelled fingerprint the same.
	g := testFixtures(t, kindsMapping,
		[2]string{"a", `{"stock":1,"sku":"a"}`},
		[2]string{"b", `{"sku":"b","stock":20e-1}`},
		[2]string{"c", `{}`},
	)
	fg, _ := ExpectedFingerprint(g, 2)
	if fg.SHA256 != fp.SHA256 {
		t.Errorf("respelled corpus fingerprints %s, want %s", fg.SHA256, fp.SHA256)
	}
}

func FuzzCanonical(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":[1.5,"x",null,true]}`, `-0.0e-0`, `"\ud800"`, `{"a":1,"a":2}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := Canonical([]byte(s))
		if err != nil {
			return
		}
		if !json.Valid([]byte(s)) {
			t.Fatalf("Canonical accepted invalid JSON %q", s)
		}
		// Whitespace never matters.
		var indented bytes.Buffer
		if err := json.Indent(&indented, []byte(s), "", "  "); err != nil {
			t.Fatal(err)
		}
		c2, err := Canonical(indented.Bytes())
		if err != nil || !bytes.Equal(c, c2) {
			t.Fatalf("indenting %q changed its canonical form: %s vs %s (%v)", s, c, c2, err)
		}
	})
}

func TestDiffSnippets(t *testing.T) {
	long := strings.Repeat("x", 100)
	tests := []struct{ want, got, ws, gs string }{
		{`{"a":1}`, `{"a":2}`, `{"a":1} (from byte 5)`, `{"a":2}`},
		{long + `"price":36.25,"in_stock":false}`, long + `"price":36.26,"in_stock":false}`,
			`…xxxxxxxxxxxx"price":36.25,"in_stock":false} (from byte 112)`, `…xxxxxxxxxxxx"price":36.26,"in_stock":false}`},
		{`{"k":"é"}`, `{"k":"e"}`, `{"k":"é"} (from byte 6)`, `{"k":"e"}`},
		{`{"a":1}`, `{"a"`, `{"a":1} (from byte 4)`, `{"a"`},
		{`{}`, `{}` + long + long, `{} (from byte 2)`, `{}` + strings.Repeat("x", 70) + "…"},
	}
	for _, tc := range tests {
		ws, gs := diffSnippets([]byte(tc.want), []byte(tc.got))
		if ws != tc.ws || gs != tc.gs {
			t.Errorf("diffSnippets(%q, %q) = %q, %q; want %q, %q", tc.want, tc.got, ws, gs, tc.ws, tc.gs)
		}
	}
}

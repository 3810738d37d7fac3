package engine

import "testing"

// Strings are written as Elasticsearch 8.15.0's Jackson writes them; the rows outside the
// Basic Multilingual Plane were measured against real Elasticsearch (keyword sort values and
// terms keys of the catalogue's "𝔾alaxy" brand).
func TestAppendJSONStringAsJackson(t *testing.T) {
	for _, tc := range []struct{ in, want, why string }{
		{"Acme", `"Acme"`, "ASCII as is"},
		{"Müller 東京", `"Müller 東京"`, "BMP non-ASCII as is"},
		{"𝔾alaxy", `"\uD835\uDD3Ealaxy"`, "outside the BMP: an escaped surrogate pair, upper-case hex"},
		{"a😀b", `"a\uD83D\uDE00b"`, "an emoji between ASCII"},
		{"q\"\\\n\x01", `"q\"\\\n\u0001"`, "quote, backslash, short and long control escapes"},
		{"a/b", `"a/b"`, "slash as is"},
	} {
		if got := jsonString(tc.in); got != tc.want {
			t.Errorf("%s: jsonString(%q) = %s, want %s", tc.why, tc.in, got, tc.want)
		}
	}
}

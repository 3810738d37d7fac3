package yamltest

import (
	"os"
	"testing"
)

// FuzzParseSuite feeds arbitrary YAML to the test-file parser: an error or a suite, never a
// panic.
func FuzzParseSuite(f *testing.F) {
	for _, name := range []string{"testdata/pass.yml", "testdata/skip.yml", "testdata/fail.yml", "testdata/malformed.yml"} {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ParseSuite("fuzz.yml", "fuzz.yml", data)
	})
}

// FuzzDecodeJSON checks that whatever JSON the decoder accepts encodes back to JSON that
// decodes to an equal value.
func FuzzDecodeJSON(f *testing.F) {
	f.Add([]byte(`{"a":[1,2.0,"x",null,true,{"b":9223372036854775808}],"c":1e400}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := decodeJSON(data)
		if err != nil {
			return
		}
		b, err := encodeJSON(v)
		if err != nil {
			return // infinities cannot be written
		}
		w, err := decodeJSON(b)
		if err != nil {
			t.Fatalf("%s encodes to %s, which does not decode: %v", data, b, err)
		}
		if !equalValues(v, w) {
			t.Fatalf("%s round trips to %s", data, b)
		}
	})
}

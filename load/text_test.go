package load

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// Lines from several writers stay whole, each with its prefix, however they are split.
func TestPrefixLines(t *testing.T) {
	var b bytes.Buffer
	w := PrefixLines(&b, "es: ")
	for _, chunk := range []string{"loading", " 1000 documents\nbatch 1", "\nbatch 2\n", "unfinished"} {
		if n, err := fmt.Fprint(w, chunk); err != nil || n != len(chunk) {
			t.Fatalf("Write(%q) = %d, %v", chunk, n, err)
		}
	}
	if want := "es: loading 1000 documents\nes: batch 1\nes: batch 2\n"; b.String() != want {
		t.Errorf("wrote %q, want %q (an unfinished line waits)", b.String(), want)
	}
}

func TestSampleLine(t *testing.T) {
	fp := Fingerprint{SHA256: "abc", Docs: 64, Every: 156}
	ps := []Problem{{Kind: "missing", ID: "a"}, {Kind: "missing", ID: "b"}, {Kind: "missing", ID: "c"}, {Kind: "missing", ID: "d"}}
	for _, tc := range []struct {
		intact bool
		ps     []Problem
		want   string
	}{
		{true, nil, "sample sha256 abc (64 documents, every 156): intact"},
		{false, ps[:1], "sample sha256 abc (64 documents, every 156): NOT INTACT: " + ps[0].String()},
		{false, ps, "and 1 more"},
	} {
		if got := sampleLine(fp, tc.intact, tc.ps); !strings.HasSuffix(got, tc.want) && got != tc.want {
			t.Errorf("sampleLine(intact %v, %d problems) = %q, want it to end %q", tc.intact, len(tc.ps), got, tc.want)
		}
	}
}

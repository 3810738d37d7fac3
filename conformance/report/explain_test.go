package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/conform-dev/conform/fixtures"
	"github.com/conform-dev/conform/oracle"
)

func TestSameNote(t *testing.T) {
	for _, tc := range []struct {
		want, got, note string
	}{
		{`{"took":3,"a":1}`, `{"took":3,"a":1}`, " (byte for byte)"},
		{`{"took":3,"a":1}`, `{"took":12,"a":1}`, " (byte for byte but for took)"},
		{`{"took":3,"a":1}`, `{"took":3, "a":1}`, " (as JSON values; the bytes differ in layout)"},
		{`{"a":1}`, `{"a": 1}`, " (as JSON values; the bytes differ in layout)"},
	} {
		if got := SameNote([]byte(tc.want), []byte(tc.got)); got != tc.note {
			t.Errorf("SameNote(%s, %s) = %q, want %q", tc.want, tc.got, got, tc.note)
		}
	}
}

func TestExpectations(t *testing.T) {
	x := oracle.NewExpectations("embedded", oracle.Settings{Index: "catalogue", TrackTotalHits: "true"}, []oracle.Expected{
		{Request: fixtures.Request{Case: "get/000", Op: "get"}, Status: 200, Body: []byte(`{}`)},
		{Request: fixtures.Request{Case: "page/000", Op: "page"}, Status: 200, Body: []byte(`{}`), Warnings: []string{"a tie at the page boundary"}},
	})
	var out, warn bytes.Buffer
	Expectations(&out, &warn, x, 1234567*time.Microsecond)
	want := "oracle    embedded\n" +
		"settings  index catalogue, track_total_hits true\n" +
		"cases     2 (get 1, page 1, after 0, terms 0, counts 0)\n" +
		"warnings  1\n" +
		"hash      sha256 " + x.Hash() + "\n" +
		"time      1.235s\n"
	if out.String() != want {
		t.Errorf("wrote\n%s\nwant\n%s", out.String(), want)
	}
	if !strings.HasPrefix(warn.String(), "warning: ") || !strings.Contains(warn.String(), "a tie at the page boundary") || strings.Count(warn.String(), "\n") != 1 {
		t.Errorf("warnings %q, want one line", warn.String())
	}
}

package report

import "testing"

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

package runner

import (
	"fmt"
	"testing"
)

func TestParseClients(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    []int
		wantErr string
		reason  string
	}{
		{"1", []int{1}, "", "one level"},
		{"1,8", []int{1, 8}, "", "the default"},
		{" 8 , 1", []int{8, 1}, "", "spaces are ignored and the order given is kept"},
		{"0", nil, `"0" is not a positive integer`, "a level needs at least one client"},
		{"1, x", nil, `" x" is not a positive integer`, "the bad level is quoted as given"},
		{"", nil, `"" is not a positive integer`, "an empty list names no level"},
		{"1,,8", nil, `"" is not a positive integer`, "an empty level between commas"},
		{"-2", nil, `"-2" is not a positive integer`, "a negative level"},
	} {
		got, err := ParseClients(tc.in)
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if gotErr != tc.wantErr || fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("ParseClients(%q) = %v, %q; want %v, %q (%s)", tc.in, got, gotErr, tc.want, tc.wantErr, tc.reason)
		}
	}
}

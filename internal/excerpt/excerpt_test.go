package excerpt

import (
	"strings"
	"testing"
)

func TestLine(t *testing.T) {
	page := "<!DOCTYPE html>\n<html>\n<head>\n<title>502 Bad Gateway</title>\n</head>\n<body>\n<h1>Bad Gateway</h1>\n</body>\n</html>\n"
	for _, tc := range []struct {
		why, body, want string
	}{
		{"a 9-line HTML page is its first line and how much more there was", page, "<!DOCTYPE html>… (9 lines, 113 bytes)"},
		{"a short one-line body is itself", `{"error":"nope"}`, `{"error":"nope"}`},
		{"leading blank lines and spaces are skipped", "\n\n  404 page not found  \n", "404 page not found"},
		{"CRLF ends a line too", "first\r\nsecond", "first… (2 lines, 13 bytes)"},
		{"an empty body says so", "", "(empty body)"},
		{"a blank body says how long it was", " \n\t", "(blank body, 3 bytes)"},
		{"a long line is cut at Width bytes", strings.Repeat("a", 200), strings.Repeat("a", Width) + "… (200 bytes)"},
		{"a cut never splits a character", strings.Repeat("a", Width-1) + "é" + "b", strings.Repeat("a", Width-1) + "… (122 bytes)"},
		{"invalid UTF-8 is replaced", "a\xffb", "a\uFFFDb"},
	} {
		if got := Line([]byte(tc.body)); got != tc.want {
			t.Errorf("%s: Line(%q) = %q, want %q", tc.why, tc.body, got, tc.want)
		}
		if got := Line([]byte(tc.body)); strings.ContainsAny(got, "\r\n") {
			t.Errorf("%s: %q is more than one line", tc.why, got)
		}
	}
}

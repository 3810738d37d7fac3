// Package excerpt quotes a target's response body in an error message or a record: at most
// one line of it, so a 9-line HTML page from a proxy does not spread over a terminal, a log or
// results.json. It says how much it left out, so a reader knows there was more.
//
// It takes bytes and returns text; it does not decide when a body is worth quoting, and a
// record that must keep the body whole (a kept failure's body in results.json) does not use
// it.
package excerpt

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// Width is how many bytes of a line Line keeps.
const Width = 120

// Line is the first non-blank line of b, trimmed, at most Width bytes cut on a character
// boundary, with what was left out said after it: `<!DOCTYPE html>… (9 lines, 412 bytes)`. An
// empty or blank body is "(empty body)". Invalid UTF-8 is replaced, so the result is always
// valid text for JSON and terminals.
func Line(b []byte) string {
	trimmed := bytes.TrimSpace(b)
	if len(trimmed) == 0 {
		if len(b) == 0 {
			return "(empty body)"
		}
		return fmt.Sprintf("(blank body, %d bytes)", len(b))
	}
	lines := bytes.Count(trimmed, []byte{'\n'}) + 1
	first := trimmed
	if i := bytes.IndexAny(first, "\r\n"); i >= 0 {
		first = bytes.TrimSpace(first[:i])
	}
	cut := len(first) > Width
	if cut {
		end := Width
		for end > 0 && !utf8.RuneStart(first[end]) {
			end--
		}
		first = first[:end]
	}
	s := string(bytes.ToValidUTF8(first, []byte("\uFFFD")))
	if cut || lines > 1 {
		s += "…"
	}
	if lines > 1 {
		s += fmt.Sprintf(" (%d lines, %d bytes)", lines, len(b))
	} else if cut {
		s += fmt.Sprintf(" (%d bytes)", len(b))
	}
	return s
}

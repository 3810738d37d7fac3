package engine

import (
	"strconv"
	"unicode/utf8"
)

const hexDigits = "0123456789ABCDEF"

// appendJSONString writes s as a JSON string the way Jackson does: quote and backslash
// escaped, \b \t \n \f \r in short form, other control characters as \u00XX, everything else
// (including non-ASCII and "/") as is, except characters outside the Basic Multilingual
// Plane: Elasticsearch 8.15's Jackson writes those as an escaped UTF-16 surrogate pair in
// upper-case hex ("𝔾" as \uD835\uDD3E), as real Elasticsearch does for keyword sort values and
// terms keys (measured against 8.15.0; _source is raw bytes and keeps the character).
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0xF0 && c <= 0xF4 {
			if r, n := utf8.DecodeRuneInString(s[i:]); n == 4 && r >= 0x10000 {
				b = append(b, s[start:i]...)
				r -= 0x10000
				hi, lo := 0xD800+(r>>10), 0xDC00+(r&0x3FF)
				b = append(b, '\\', 'u', hexDigits[hi>>12], hexDigits[hi>>8&0xf], hexDigits[hi>>4&0xf], hexDigits[hi&0xf],
					'\\', 'u', hexDigits[lo>>12], hexDigits[lo>>8&0xf], hexDigits[lo>>4&0xf], hexDigits[lo&0xf])
				i += n - 1
				start = i + 1
				continue
			}
		}
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"':
			b = append(b, '\\', '"')
		case '\\':
			b = append(b, '\\', '\\')
		case '\b':
			b = append(b, '\\', 'b')
		case '\t':
			b = append(b, '\\', 't')
		case '\n':
			b = append(b, '\\', 'n')
		case '\f':
			b = append(b, '\\', 'f')
		case '\r':
			b = append(b, '\\', 'r')
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

func jsonString(s string) string { return string(appendJSONString(nil, s)) }

func appendInt(b []byte, v int64) []byte { return strconv.AppendInt(b, v, 10) }

// validUTF8 reports whether s is valid UTF-8; Jackson rejects invalid input.
func validUTF8(s string) bool { return utf8.ValidString(s) }

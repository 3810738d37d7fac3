package load

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// defaultDateFormat is Elasticsearch's format for a date field that names none.
const defaultDateFormat = "strict_date_optional_time||epoch_millis"

// supportedDateFormats are the built-in formats the loader parses. Custom patterns are
// refused rather than guessed.
var supportedDateFormats = map[string]bool{
	"strict_date_optional_time":       true,
	"date_optional_time":              true,
	"strict_date_optional_time_nanos": true,
	"epoch_millis":                    true,
	"epoch_second":                    true,
}

func dateFormats(format string) ([]string, error) {
	if format == "" {
		format = defaultDateFormat
	}
	var out []string
	for _, f := range strings.Split(format, "||") {
		f = strings.TrimSpace(f)
		if !supportedDateFormats[f] {
			return nil, fmt.Errorf("date format %q is not one the Qdrant loader parses (supported: strict_date_optional_time, date_optional_time, strict_date_optional_time_nanos, epoch_millis, epoch_second)", f)
		}
		out = append(out, f)
	}
	return out, nil
}

// isoRE is strict_date_optional_time: yyyy[-MM[-dd]] then optionally 'T' HH[:mm[:ss[.fraction]]]
// and an offset. UNCONFIRMED: the exact set of partial forms Elasticsearch accepts; the
// corpus generator writes only full dates, full date-times and epoch millis.
var isoRE = regexp.MustCompile(`^([0-9]{4})(?:-([0-9]{2})(?:-([0-9]{2})(?:T([0-9]{2})(?::([0-9]{2})(?::([0-9]{2})(?:[.,]([0-9]{1,9}))?)?)?(Z|[+-][0-9]{2}(?::?[0-9]{2})?)?)?)?)?$`)

// parseDate returns epoch milliseconds for a date value, trying the field's formats in order
// as Elasticsearch does. Numbers are tried as their literal text. Sub-millisecond digits are
// dropped (Elasticsearch's date type has millisecond resolution).
func parseDate(v any, formats []string) (int64, error) {
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case json.Number:
		s = x.String()
	default:
		return 0, fmt.Errorf("is %s, want a date string or epoch milliseconds", jsonKind(v))
	}
	for _, f := range formats {
		switch f {
		case "epoch_millis", "epoch_second":
			if !isIntegerLiteral(s) {
				continue
			}
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				continue
			}
			if f == "epoch_second" {
				if n > 9223372036854775 || n < -9223372036854775 {
					continue
				}
				n *= 1000
			}
			return n, nil
		default:
			if ms, ok := parseISO(s); ok {
				return ms, nil
			}
		}
	}
	return 0, fmt.Errorf("%q does not parse as %s", s, strings.Join(formats, "||"))
}

func parseISO(s string) (int64, bool) {
	m := isoRE.FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	num := func(i, def int) int {
		if m[i] == "" {
			return def
		}
		n, _ := strconv.Atoi(m[i])
		return n
	}
	year, month, day := num(1, 0), num(2, 1), num(3, 1)
	hour, minute, sec := num(4, 0), num(5, 0), num(6, 0)
	nanos := 0
	if frac := m[7]; frac != "" {
		frac += strings.Repeat("0", 9-len(frac))
		nanos, _ = strconv.Atoi(frac)
	}
	loc := time.UTC
	if z := m[8]; z != "" && z != "Z" {
		sign := 1
		if z[0] == '-' {
			sign = -1
		}
		digits := strings.ReplaceAll(z[1:], ":", "")
		h, _ := strconv.Atoi(digits[:2])
		mins := 0
		if len(digits) == 4 {
			mins, _ = strconv.Atoi(digits[2:])
		}
		if h > 18 || mins > 59 {
			return 0, false
		}
		loc = time.FixedZone("", sign*(h*3600+mins*60))
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, nanos, loc)
	// time.Date normalises 2021-02-30 to March; Elasticsearch rejects it.
	if t.Year() != year || int(t.Month()) != month || t.Day() != day || t.Hour() != hour ||
		t.Minute() != minute || t.Second() != sec {
		return 0, false
	}
	return t.UnixMilli(), true // floors, like Java's Instant.toEpochMilli
}

// formatDate writes epoch milliseconds as RFC 3339 in UTC with milliseconds, a form Qdrant's
// datetime index parses (load/QDRANT.md, Q5).
func formatDate(ms int64) (string, error) {
	t := time.UnixMilli(ms).UTC()
	if t.Year() < 0 || t.Year() > 9999 {
		return "", fmt.Errorf("%d ms is outside years 0000-9999, which RFC 3339 cannot write", ms)
	}
	return t.Format("2006-01-02T15:04:05.000Z07:00"), nil
}

package engine

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// A dateFormat is a mapping's or a request's date format: one or more alternatives separated
// by "||", tried in order when parsing; the first one prints. Elasticsearch's built-in names
// and Java DateTimeFormatter patterns are both supported, for the letters listed in
// compilePattern; anything else is refused as unsupported rather than guessed.
type dateFormat struct {
	spec string
	alts []dateAlt
}

// dateAlt is one alternative.
type dateAlt struct {
	name  string
	epoch int    // 0: not an epoch format; 1: epoch_millis; 2: epoch_second
	pat   []ptok // a compiled pattern, for everything else
	nanos bool   // prints fractions of 3 to 9 digits (the _nanos printers)
}

// fields are the date-time components a parser found; -1 marks an absent one.
type dfields struct {
	year, month, day, hour, minute, second, nano int64
	offset                                       int // seconds east of UTC
	hasOffset                                    bool
}

const defaultDateFormat = "strict_date_optional_time||epoch_millis"

var errBadDate = errors.New("bad date")

// namedPatterns maps Elasticsearch's built-in format names to an equivalent pattern in this
// file's pattern language ("[" opens an optional section). Only names whose definition was
// checked against Elasticsearch's DateFormatters are listed.
var namedPatterns = map[string]string{
	"strict_date_optional_time":       "yyyy[-MM[-dd['T'HH[:mm[:ss[.F]]][Z]]]]",
	"date_optional_time":              "y[-M[-d['T'H[:m[:s[.F]]][Z]]]]",
	"strict_date_optional_time_nanos": "yyyy[-MM[-dd['T'HH[:mm[:ss[.F]]][Z]]]]",
	"strict_date":                     "yyyy-MM-dd",
	"date":                            "y-M-d",
	"strict_date_time":                "yyyy-MM-dd'T'HH:mm:ss.FZ",
	"date_time":                       "y-M-d'T'H:m:s.FZ",
	"strict_date_time_no_millis":      "yyyy-MM-dd'T'HH:mm:ssZ",
	"date_time_no_millis":             "y-M-d'T'H:m:sZ",
	"strict_date_hour_minute_second":  "yyyy-MM-dd'T'HH:mm:ss",
	"date_hour_minute_second":         "y-M-d'T'H:m:s",
	"strict_date_hour_minute":         "yyyy-MM-dd'T'HH:mm",
	"date_hour_minute":                "y-M-d'T'H:m",
	"strict_year_month_day":           "yyyy-MM-dd",
	"year_month_day":                  "y-M-d",
	"strict_year_month":               "yyyy-MM",
	"year_month":                      "y-M",
	"strict_year":                     "yyyy",
	"year":                            "y",
	"basic_date":                      "yyyyMMdd",
}

// namedPrinters are the patterns the named formats print with.
var namedPrinters = map[string]string{
	"strict_date_optional_time":       "yyyy-MM-dd'T'HH:mm:ss.SSSX",
	"date_optional_time":              "yyyy-MM-dd'T'HH:mm:ss.SSSX",
	"strict_date_optional_time_nanos": "yyyy-MM-dd'T'HH:mm:ss.FX",
	"strict_date_time":                "yyyy-MM-dd'T'HH:mm:ss.SSSX",
	"date_time":                       "yyyy-MM-dd'T'HH:mm:ss.SSSX",
	"strict_date_time_no_millis":      "yyyy-MM-dd'T'HH:mm:ssX",
	"date_time_no_millis":             "yyyy-MM-dd'T'HH:mm:ssX",
	"strict_date_hour_minute_second":  "yyyy-MM-dd'T'HH:mm:ss",
	"date_hour_minute_second":         "yyyy-MM-dd'T'HH:mm:ss",
	"strict_date_hour_minute":         "yyyy-MM-dd'T'HH:mm",
	"date_hour_minute":                "yyyy-MM-dd'T'HH:mm",
	"strict_date":                     "yyyy-MM-dd",
	"date":                            "yyyy-MM-dd",
	"strict_year_month_day":           "yyyy-MM-dd",
	"year_month_day":                  "yyyy-MM-dd",
	"strict_year_month":               "yyyy-MM",
	"year_month":                      "yyyy-MM",
	"strict_year":                     "yyyy",
	"year":                            "yyyy",
	"basic_date":                      "yyyyMMdd",
}

type dateAltPair struct {
	parse, print []ptok
}

// parseDateFormat compiles a format specification.
func parseDateFormat(spec string) (*dateFormat, error) {
	f := &dateFormat{spec: spec}
	for _, part := range strings.Split(spec, "||") {
		name := strings.TrimSpace(part)
		if name == "" {
			return nil, fmt.Errorf("empty date format in [%s]", spec)
		}
		a := dateAlt{name: name}
		switch name {
		case "epoch_millis":
			a.epoch = 1
		case "epoch_second":
			a.epoch = 2
		default:
			src, ok := namedPatterns[name]
			if !ok {
				if isAllLetters(name) && strings.Contains(name, "_") {
					return nil, errUnsupportedf("date format [%s]", name)
				}
				src = name
			}
			p, err := compilePattern(src)
			if err != nil {
				return nil, err
			}
			a.pat = p
			a.nanos = strings.HasSuffix(name, "_nanos")
		}
		f.alts = append(f.alts, a)
	}
	return f, nil
}

func isAllLetters(s string) bool {
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c == '_') {
			return false
		}
	}
	return true
}

// ptok is one token of a compiled pattern.
type ptok struct {
	kind  byte   // 'y' 'M' 'd' 'H' 'm' 's' 'S' (fixed fraction) 'F' (1-9 digit fraction) 'Z' 'X' 'l' (literal) '[' (optional)
	n     int    // letter count
	lit   string // literal text
	inner []ptok // optional section
}

// compilePattern compiles a Java DateTimeFormatter pattern, or the pattern language of
// namedPatterns (which adds F, a fraction of 1 to 9 digits). Letters it does not know are
// refused.
func compilePattern(src string) ([]ptok, error) {
	toks, rest, err := compileSeq(src, 0)
	if err != nil {
		return nil, err
	}
	if rest != len(src) {
		return nil, fmt.Errorf("invalid date format [%s]: unbalanced ]", src)
	}
	return toks, nil
}

func compileSeq(src string, i int) ([]ptok, int, error) {
	var out []ptok
	for i < len(src) {
		c := src[i]
		switch {
		case c == '[':
			inner, j, err := compileSeq(src, i+1)
			if err != nil {
				return nil, 0, err
			}
			if j >= len(src) || src[j] != ']' {
				return nil, 0, fmt.Errorf("invalid date format [%s]: unclosed [", src)
			}
			out = append(out, ptok{kind: '[', inner: inner})
			i = j + 1
		case c == ']':
			return out, i, nil
		case c == '\'':
			j := i + 1
			var lit strings.Builder
			for {
				if j >= len(src) {
					return nil, 0, fmt.Errorf("invalid date format [%s]: unclosed quote", src)
				}
				if src[j] == '\'' {
					if j+1 < len(src) && src[j+1] == '\'' {
						lit.WriteByte('\'')
						j += 2
						continue
					}
					break
				}
				lit.WriteByte(src[j])
				j++
			}
			if j == i+1 {
				out = append(out, ptok{kind: 'l', lit: "'"})
			} else {
				out = append(out, ptok{kind: 'l', lit: lit.String()})
			}
			i = j + 1
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(src) && src[j] == c {
				j++
			}
			n := j - i
			k := c
			switch c {
			case 'y', 'u':
				k = 'y'
				if n == 2 {
					return nil, 0, errUnsupportedf("two-digit years in date format [%s]", src)
				}
			case 'M':
				if n > 2 {
					return nil, 0, errUnsupportedf("month names in date format [%s]", src)
				}
			case 'd', 'H', 'm', 's':
				if n > 2 {
					return nil, 0, fmt.Errorf("invalid date format [%s]: too many pattern letters: %c", src, c)
				}
			case 'S':
				if n > 9 {
					return nil, 0, fmt.Errorf("invalid date format [%s]: too many pattern letters: S", src)
				}
			case 'F', 'Z', 'X':
			default:
				return nil, 0, errUnsupportedf("pattern letter [%c] in date format [%s]", c, src)
			}
			out = append(out, ptok{kind: k, n: n})
			i = j
		default:
			out = append(out, ptok{kind: 'l', lit: string(c)})
			i++
		}
	}
	return out, i, nil
}

// parse parses s with the first alternative that accepts it. The result is in nanoseconds
// since the epoch when nanos is set, else in milliseconds. roundUp fills absent components
// with their largest values, as Elasticsearch's round-up parser does (§7.4.3): month and day
// 1, hour 23, minute and second 59, nanosecond 999,999,999.
func (f *dateFormat) parse(s string, roundUp bool, zone *time.Location, nanos bool) (int64, error) {
	for i := range f.alts {
		v, err := f.alts[i].parse(s, roundUp, zone, nanos)
		if err == nil {
			return v, nil
		}
	}
	return 0, errBadDate
}

func (a *dateAlt) parse(s string, roundUp bool, zone *time.Location, nanos bool) (int64, error) {
	if a.epoch != 0 {
		return parseEpoch(s, a.epoch == 2, roundUp, nanos)
	}
	fl := dfields{year: -1, month: -1, day: -1, hour: -1, minute: -1, second: -1, nano: -1}
	n, ok := matchSeq(a.pat, s, 0, &fl)
	if !ok || n != len(s) {
		return 0, errBadDate
	}
	return fl.resolve(roundUp, zone, nanos)
}

// parseEpoch parses epoch_millis or epoch_second text: an optional sign, digits and an
// optional fraction.
func parseEpoch(s string, seconds, roundUp, nanos bool) (int64, error) {
	if s == "" {
		return 0, errBadDate
	}
	neg := false
	body := s
	if body[0] == '-' {
		neg, body = true, body[1:]
	}
	intPart, frac, hasFrac := strings.Cut(body, ".")
	if intPart == "" || !allDigits(intPart) || hasFrac && (frac == "" || !allDigits(frac)) {
		return 0, errBadDate
	}
	whole, err := strconv.ParseInt(intPart, 10, 64)
	if err != nil {
		return 0, errBadDate
	}
	// sub is the fraction in nanoseconds of the unit's sub-part.
	unitNanos := int64(1_000_000)
	if seconds {
		unitNanos = 1_000_000_000
	}
	var sub int64
	if hasFrac {
		digits := frac
		scale := len(strconv.FormatInt(unitNanos, 10)) - 1
		if len(digits) > scale {
			digits = digits[:scale]
		}
		for len(digits) < scale {
			digits += "0"
		}
		sub, _ = strconv.ParseInt(digits, 10, 64)
	} else if roundUp && !seconds {
		// Elasticsearch's round-up epoch_millis parser fills the nanoseconds of the millisecond.
		sub = 999_999
	}
	total := whole*unitNanos + sub
	if whole > (1<<62)/unitNanos {
		if nanos {
			return 0, errBadDate
		}
		// Beyond the nanosecond range: work in milliseconds directly.
		ms := whole
		if seconds {
			ms = whole * 1000
		}
		if neg {
			ms = -ms
		}
		return ms, nil
	}
	if neg {
		total = -total
	}
	if nanos {
		return total, nil
	}
	return floorDiv(total, 1_000_000), nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func matchSeq(toks []ptok, s string, i int, fl *dfields) (int, bool) {
	for ti, t := range toks {
		switch t.kind {
		case '[':
			save := *fl
			if j, ok := matchSeq(t.inner, s, i, fl); ok {
				i = j
			} else {
				*fl = save
			}
		case 'l':
			if !strings.HasPrefix(s[i:], t.lit) {
				return 0, false
			}
			i += len(t.lit)
		case 'Z', 'X':
			j, off, ok := matchOffset(s, i, t)
			if !ok {
				return 0, false
			}
			fl.offset, fl.hasOffset = off, true
			i = j
		case 'S', 'F':
			minD, maxD := t.n, t.n
			if t.kind == 'F' {
				minD, maxD = 1, 9
			}
			j := i
			for j < len(s) && j-i < maxD && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			if j-i < minD {
				return 0, false
			}
			d := s[i:j]
			for len(d) < 9 {
				d += "0"
			}
			v, _ := strconv.ParseInt(d, 10, 64)
			fl.nano = v
			i = j
		default:
			minD, maxD := 1, 2
			switch {
			case t.kind == 'y' && t.n >= 4:
				minD, maxD = t.n, 9
			case t.kind == 'y':
				minD, maxD = 1, 9
			case t.n == 2:
				minD = 2
			}
			// Adjacent value parsing: a variable-width field followed directly by another
			// numeric field takes only its minimum width.
			if maxD > minD && ti+1 < len(toks) && isNumericTok(toks[ti+1]) {
				maxD = minD
			}
			j := i
			for j < len(s) && j-i < maxD && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			if j-i < minD {
				return 0, false
			}
			v, _ := strconv.ParseInt(s[i:j], 10, 64)
			switch t.kind {
			case 'y':
				fl.year = v
			case 'M':
				fl.month = v
			case 'd':
				fl.day = v
			case 'H':
				fl.hour = v
			case 'm':
				fl.minute = v
			case 's':
				fl.second = v
			}
			i = j
		}
	}
	return i, true
}

func isNumericTok(t ptok) bool {
	switch t.kind {
	case 'y', 'M', 'd', 'H', 'm', 's', 'S':
		return true
	}
	return false
}

// matchOffset parses a zone offset: "Z", or a sign and hours with optional minutes, with or
// without a colon.
func matchOffset(s string, i int, t ptok) (int, int, bool) {
	if i >= len(s) {
		return 0, 0, false
	}
	if s[i] == 'Z' {
		return i + 1, 0, true
	}
	if s[i] != '+' && s[i] != '-' {
		return 0, 0, false
	}
	sign := 1
	if s[i] == '-' {
		sign = -1
	}
	j := i + 1
	two := func(k int) (int, bool) {
		if k+2 > len(s) || s[k] < '0' || s[k] > '9' || s[k+1] < '0' || s[k+1] > '9' {
			return 0, false
		}
		return int(s[k]-'0')*10 + int(s[k+1]-'0'), true
	}
	h, ok := two(j)
	if !ok || h > 18 {
		return 0, 0, false
	}
	j += 2
	m := 0
	if j < len(s) && s[j] == ':' {
		if mm, ok := two(j + 1); ok {
			m, j = mm, j+3
		} else {
			return 0, 0, false
		}
	} else if mm, ok := two(j); ok {
		m, j = mm, j+2
	}
	if m > 59 {
		return 0, 0, false
	}
	return j, sign * (h*3600 + m*60), true
}

func (fl *dfields) resolve(roundUp bool, zone *time.Location, nanos bool) (int64, error) {
	def := func(v, normal, up int64) int64 {
		if v >= 0 {
			return v
		}
		if roundUp {
			return up
		}
		return normal
	}
	if fl.year < 0 {
		return 0, errBadDate
	}
	y := fl.year
	mo := def(fl.month, 1, 1)
	d := def(fl.day, 1, 1)
	h := def(fl.hour, 0, 23)
	mi := def(fl.minute, 0, 59)
	sec := def(fl.second, 0, 59)
	ns := def(fl.nano, 0, 999_999_999)
	if mo < 1 || mo > 12 || d < 1 || d > int64(daysIn(y, mo)) || h > 23 || mi > 59 || sec > 59 {
		return 0, errBadDate
	}
	loc := zone
	if fl.hasOffset {
		loc = time.FixedZone("", fl.offset)
	}
	if loc == nil {
		loc = time.UTC
	}
	t := time.Date(int(y), time.Month(mo), int(d), int(h), int(mi), int(sec), int(ns), loc)
	if nanos {
		if t.Year() < 1970 || t.Year() > 2262 {
			return 0, errBadDate
		}
		return t.UnixNano(), nil
	}
	return t.Unix()*1000 + int64(t.Nanosecond())/1_000_000, nil
}

func daysIn(y, m int64) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// format prints an instant (milliseconds, or nanoseconds when nanos is set) with the first
// alternative, in UTC.
func (f *dateFormat) format(v int64, nanos bool) string {
	a := &f.alts[0]
	if a.epoch != 0 {
		ms := v
		if nanos {
			ms = floorDiv(v, 1_000_000)
		}
		if a.epoch == 2 {
			return strconv.FormatInt(floorDiv(ms, 1000), 10)
		}
		return strconv.FormatInt(ms, 10)
	}
	var t time.Time
	if nanos {
		t = time.Unix(0, v).UTC()
	} else {
		t = time.UnixMilli(v).UTC()
	}
	pat := a.pat
	if p, ok := namedPrinters[a.name]; ok {
		pat, _ = compilePattern(p)
	}
	var b strings.Builder
	printSeq(&b, pat, t, a.nanos || nanos && a.name == "strict_date_optional_time_nanos")
	return b.String()
}

func printSeq(b *strings.Builder, toks []ptok, t time.Time, nanoPrinter bool) {
	pad := func(v int64, n int) {
		s := strconv.FormatInt(v, 10)
		neg := v < 0
		if neg {
			s = s[1:]
			b.WriteByte('-')
		}
		for i := len(s); i < n; i++ {
			b.WriteByte('0')
		}
		b.WriteString(s)
	}
	for _, tk := range toks {
		switch tk.kind {
		case '[':
			printSeq(b, tk.inner, t, nanoPrinter)
		case 'l':
			b.WriteString(tk.lit)
		case 'y':
			y := int64(t.Year())
			if tk.n >= 4 && y > 9999 {
				b.WriteByte('+')
			}
			pad(y, tk.n)
		case 'M':
			pad(int64(t.Month()), tk.n)
		case 'd':
			pad(int64(t.Day()), tk.n)
		case 'H':
			pad(int64(t.Hour()), tk.n)
		case 'm':
			pad(int64(t.Minute()), tk.n)
		case 's':
			pad(int64(t.Second()), tk.n)
		case 'S':
			d := fmt.Sprintf("%09d", t.Nanosecond())
			b.WriteString(d[:tk.n])
		case 'F':
			// The _nanos printers print 3 to 9 digits, dropping trailing zeros beyond the third.
			d := fmt.Sprintf("%09d", t.Nanosecond())
			d = strings.TrimRight(d, "0")
			for len(d) < 3 {
				d += "0"
			}
			b.WriteString(d)
		case 'X':
			b.WriteByte('Z')
		case 'Z':
			b.WriteString("+0000")
		}
	}
}

// parseDateMath parses a date with optional date math (§7.4): "now", "now-1d/d",
// "2014-11-18||/M". roundUp selects the round-up parser and rounding (gt and lte bounds).
func parseDateMath(s string, f *dateFormat, roundUp bool, zone *time.Location, now time.Time, nanos bool) (int64, error) {
	var t time.Time
	var math string
	loc := zone
	if loc == nil {
		loc = time.UTC
	}
	if strings.HasPrefix(s, "now") {
		t = now.In(loc)
		math = s[3:]
	} else {
		anchor, rest, found := strings.Cut(s, "||")
		if !found {
			return f.parse(s, roundUp, zone, nanos)
		}
		v, err := f.parse(anchor, false, zone, nanos)
		if err != nil {
			return 0, err
		}
		if nanos {
			t = time.Unix(0, v).In(loc)
		} else {
			t = time.UnixMilli(v).In(loc)
		}
		math = rest
	}
	t, err := applyDateMath(t, math, roundUp)
	if err != nil {
		return 0, err
	}
	if nanos {
		return t.UnixNano(), nil
	}
	return t.UnixMilli(), nil
}

func applyDateMath(t time.Time, m string, roundUp bool) (time.Time, error) {
	i := 0
	for i < len(m) {
		op := m[i]
		i++
		round := false
		sign := 1
		switch op {
		case '/':
			round = true
		case '+':
		case '-':
			sign = -1
		default:
			return t, fmt.Errorf("operator not supported for date math [%s]", m)
		}
		num := 1
		if !round {
			j := i
			for j < len(m) && m[j] >= '0' && m[j] <= '9' {
				j++
			}
			if j > i {
				n, err := strconv.Atoi(m[i:j])
				if err != nil {
					return t, fmt.Errorf("invalid date math [%s]", m)
				}
				num = n
			}
			i = j
		}
		if i >= len(m) {
			return t, fmt.Errorf("truncated date math [%s]", m)
		}
		unit := m[i]
		i++
		if round {
			y, mo, d := t.Date()
			loc := t.Location()
			switch unit {
			case 'y':
				t = time.Date(y, 1, 1, 0, 0, 0, 0, loc)
				if roundUp {
					t = t.AddDate(1, 0, 0)
				}
			case 'M':
				t = time.Date(y, mo, 1, 0, 0, 0, 0, loc)
				if roundUp {
					t = t.AddDate(0, 1, 0)
				}
			case 'w':
				wd := (int(t.Weekday()) + 6) % 7 // days since Monday
				t = time.Date(y, mo, d-wd, 0, 0, 0, 0, loc)
				if roundUp {
					t = t.AddDate(0, 0, 7)
				}
			case 'd':
				t = time.Date(y, mo, d, 0, 0, 0, 0, loc)
				if roundUp {
					t = t.AddDate(0, 0, 1)
				}
			case 'h', 'H':
				t = time.Date(y, mo, d, t.Hour(), 0, 0, 0, loc)
				if roundUp {
					t = t.Add(time.Hour)
				}
			case 'm':
				t = time.Date(y, mo, d, t.Hour(), t.Minute(), 0, 0, loc)
				if roundUp {
					t = t.Add(time.Minute)
				}
			case 's':
				t = time.Date(y, mo, d, t.Hour(), t.Minute(), t.Second(), 0, loc)
				if roundUp {
					t = t.Add(time.Second)
				}
			default:
				return t, fmt.Errorf("rounding unit not supported for date math [%s]", m)
			}
			if roundUp {
				t = t.Add(-time.Millisecond)
			}
			continue
		}
		n := sign * num
		switch unit {
		case 'y':
			t = t.AddDate(n, 0, 0)
		case 'M':
			t = addMonthsClamped(t, n)
		case 'w':
			t = t.AddDate(0, 0, 7*n)
		case 'd':
			t = t.AddDate(0, 0, n)
		case 'h', 'H':
			t = t.Add(time.Duration(n) * time.Hour)
		case 'm':
			t = t.Add(time.Duration(n) * time.Minute)
		case 's':
			t = t.Add(time.Duration(n) * time.Second)
		default:
			return t, fmt.Errorf("unit [%c] not supported for date math [%s]", unit, m)
		}
	}
	return t, nil
}

// addMonthsClamped adds months as java.time does: the day is clamped to the target month's
// length instead of overflowing into the next month.
func addMonthsClamped(t time.Time, n int) time.Time {
	y, mo, d := t.Date()
	total := int(mo) - 1 + n
	ny := y + total/12
	nm := total % 12
	if nm < 0 {
		nm += 12
		ny--
	}
	if dim := daysIn(int64(ny), int64(nm+1)); d > dim {
		d = dim
	}
	return time.Date(ny, time.Month(nm+1), d, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), t.Location())
}

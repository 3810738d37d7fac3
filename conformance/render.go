package conformance

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// String renders the result as Render does.
func (r Result) String() string {
	var b strings.Builder
	_ = Render(&b, r)
	return b.String()
}

// Render writes a text rendering of a result for `conform check` and `conform explain`: a
// summary line, then the differences grouped by class in Classes order, each with its path,
// the wanted and received JSON (long values elided in the middle) and a note where the
// difference is easy to misread (a number's kind, null against absent).
func Render(w io.Writer, r Result) error {
	var counts [32]struct{ failing, reported int }
	for _, d := range r.Diffs {
		i := d.Class.Index()
		if i < 0 {
			continue
		}
		if d.Fails {
			counts[i].failing++
		} else {
			counts[i].reported++
		}
	}
	var failing, reported []string
	nf, nr := 0, 0
	for i, c := range classOrder {
		if n := counts[i].failing; n > 0 {
			failing = append(failing, fmt.Sprintf("%s %d", c, n))
			nf += n
		}
		if n := counts[i].reported; n > 0 {
			reported = append(reported, fmt.Sprintf("%s %d", c, n))
			nr += n
		}
	}
	var b strings.Builder
	if r.Pass {
		b.WriteString("PASS")
	} else {
		fmt.Fprintf(&b, "FAIL: %s (%s)", plural(nf, "failing difference"), strings.Join(failing, ", "))
	}
	if nr > 0 {
		sep := "; "
		if r.Pass {
			sep = ": "
		}
		fmt.Fprintf(&b, "%s%s reported, not failing (%s)", sep, plural(nr, "difference"), strings.Join(reported, ", "))
	}
	b.WriteByte('\n')
	for i, c := range classOrder {
		if counts[i].failing+counts[i].reported == 0 {
			continue
		}
		switch {
		case counts[i].reported == 0:
			fmt.Fprintf(&b, "%s: fails\n", c)
		case counts[i].failing == 0:
			fmt.Fprintf(&b, "%s: reported\n", c)
		default:
			fmt.Fprintf(&b, "%s: fails (%d), reported (%d)\n", c, counts[i].failing, counts[i].reported)
		}
		for _, d := range r.Diffs {
			if d.Class == c {
				writeDiff(&b, d)
			}
		}
	}
	for _, d := range r.Diffs {
		if d.Class.Index() < 0 {
			fmt.Fprintf(&b, "%s (unknown class):\n", d.Class)
			writeDiff(&b, d)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

func writeDiff(b *strings.Builder, d Difference) {
	path := d.Path
	switch {
	case path == "" && d.Class == ClassStatus:
		path = "HTTP status"
	case path == "":
		path = "body"
	}
	want, got := elide(oneLineJSON(d.Want)), elide(oneLineJSON(d.Got))
	var notes []string
	if n := diffNote(d.Want, d.Got); n != "" {
		notes = append(notes, n)
	}
	if d.Relaxed != "" {
		notes = append(notes, "relaxed: "+string(d.Relaxed))
	} else if !d.Fails && d.Class.FailsByDefault() {
		notes = append(notes, "not failing")
	}
	note := ""
	if len(notes) > 0 {
		note = " (" + strings.Join(notes, "; ") + ")"
	}
	if len(path)+len(want)+len(got) < 100 {
		fmt.Fprintf(b, "  %s: want %s, got %s%s\n", path, want, got, note)
		return
	}
	fmt.Fprintf(b, "  %s%s\n    want %s\n    got  %s\n", path, note, want, got)
}

// oneLineJSON compacts JSON text that spans lines (a pretty-printed oracle's values) so each
// difference stays on its lines of the report.
func oneLineJSON(s string) string {
	if !strings.ContainsAny(s, "\n\r") {
		return s
	}
	v, err := parse([]byte(s))
	if err != nil {
		return strings.Join(strings.Fields(s), " ")
	}
	return string(appendJSON(nil, &v))
}

// elide shortens long JSON text for a one-screen report, keeping both ends.
func elide(s string) string {
	const max = 240
	if len(s) <= max {
		return s
	}
	head, tail := s[:160], s[len(s)-60:]
	for len(head) > 0 && head[len(head)-1]&0xc0 == 0x80 {
		head = head[:len(head)-1]
	}
	for len(tail) > 0 && tail[0]&0xc0 == 0x80 {
		tail = tail[1:]
	}
	if len(head) > 0 && head[len(head)-1] >= 0xc0 {
		head = head[:len(head)-1]
	}
	return fmt.Sprintf("%s … %s (%d bytes)", head, tail, len(s))
}

// diffNote explains a difference between two scalars that look alike.
func diffNote(want, got string) string {
	wv, werr := parse([]byte(want))
	gv, gerr := parse([]byte(got))
	switch {
	case werr == nil && wv.kind == kNull && got == Absent:
		return "null vs absent"
	case gerr == nil && gv.kind == kNull && want == Absent:
		return "absent vs null"
	case werr != nil || gerr != nil:
		return ""
	case wv.kind == kNumber && gv.kind == kNumber:
		kind := func(v value) string {
			if v.float {
				return "float"
			}
			return "integer"
		}
		if wv.float != gv.float && decimalEqual(wv.raw, gv.raw) {
			return "same value; " + kind(wv) + " vs " + kind(gv)
		}
		if wv.float && gv.float && !wv.frng && !gv.frng && float32(wv.f) == float32(gv.f) && !math.IsInf(wv.f, 0) {
			return "equal only as float32"
		}
	case wv.kind != gv.kind:
		return wv.kind.String() + " vs " + gv.kind.String()
	}
	return ""
}

// parsePath reads the paths Difference.Path uses: keys joined by dots, [N] for array
// indexes, ["key"] for keys that are not plain names.
func parsePath(p string) ([]pathStep, error) {
	var steps []pathStep
	for i := 0; i < len(p); {
		switch {
		case p[i] == '.' && i > 0:
			i++
			fallthrough
		case p[i] != '[':
			j := i
			for j < len(p) && p[j] != '.' && p[j] != '[' {
				j++
			}
			if j == i {
				return nil, fmt.Errorf("path %q: empty key at %d", p, i)
			}
			steps = append(steps, pathStep{key: p[i:j], idx: -1})
			i = j
		case i+1 < len(p) && p[i+1] == '"':
			end, _, err := scanString([]byte(p), i+1)
			if err != nil || end >= len(p) || p[end] != ']' {
				return nil, fmt.Errorf("path %q: bad quoted key at %d", p, i)
			}
			steps = append(steps, pathStep{key: unescape([]byte(p[i+2 : end-1])), idx: -1})
			i = end + 1
		default:
			j := strings.IndexByte(p[i:], ']')
			if j < 0 {
				return nil, fmt.Errorf("path %q: unclosed [ at %d", p, i)
			}
			n, err := strconv.Atoi(p[i+1 : i+j])
			if err != nil || n < 0 {
				return nil, fmt.Errorf("path %q: bad index at %d", p, i)
			}
			steps = append(steps, pathStep{idx: n})
			i += j + 1
		}
	}
	return steps, nil
}

// Trim renders a JSON body for `conform explain` around the given difference paths: the
// values at the paths in full, the objects and arrays on the way to them with a hit's _id or
// a bucket's key for context, and everything else elided as "… N more". A path that does not
// exist in this body is shown as <absent> where it would be. The output is indented like
// JSON but, with its elisions, is not JSON. An error means the body is not JSON.
func Trim(body []byte, paths []string) (string, error) {
	root, err := parse(body)
	if err != nil {
		return "", err
	}
	t := trimmer{marks: map[*value]uint8{}, absent: map[*value][]string{}}
	t.marks[&root] = markOnPath
	for _, p := range paths {
		steps, err := parsePath(p)
		if err != nil {
			return "", err
		}
		cur := &root
		for i, s := range steps {
			next := step(cur, s)
			if next == nil {
				label := strconv.Quote(s.key)
				if s.idx >= 0 {
					label = "[" + strconv.Itoa(s.idx) + "]"
				}
				if i < len(steps)-1 {
					label += " (and below)"
				}
				t.absent[cur] = appendNew(t.absent[cur], label)
				cur = nil
				break
			}
			if t.marks[next] != markTarget {
				t.marks[next] = markOnPath
			}
			cur = next
		}
		if cur != nil {
			t.marks[cur] = markTarget
		}
	}
	var b strings.Builder
	t.write(&b, &root, "")
	b.WriteByte('\n')
	return b.String(), nil
}

func appendNew(xs []string, x string) []string {
	for _, y := range xs {
		if y == x {
			return xs
		}
	}
	return append(xs, x)
}

func step(v *value, s pathStep) *value {
	switch {
	case s.idx >= 0 && v.kind == kArray && s.idx < len(v.elems):
		return &v.elems[s.idx]
	case s.idx < 0 && v.kind == kObject:
		return v.member(s.key)
	}
	return nil
}

const (
	markNone uint8 = iota
	markOnPath
	markTarget
)

type trimmer struct {
	marks  map[*value]uint8
	absent map[*value][]string
}

func (t *trimmer) write(b *strings.Builder, v *value, indent string) {
	mark := t.marks[v]
	container := v.kind == kObject || v.kind == kArray
	var compact string
	if mark == markTarget || !container {
		compact = string(appendJSON(nil, v))
	}
	switch {
	case !container || mark == markTarget && len(compact) <= 100:
		b.WriteString(compact)
		return
	case mark == markTarget && len(compact) <= 600:
		b.Write(appendIndented(nil, v, indent))
		return
	}
	// A large target (a whole hit list whose length differs) is shown one line per member.
	open, close := "{", "}"
	if v.kind == kArray {
		open, close = "[", "]"
	}
	inner := indent + "  "
	var lines []string
	skipped := 0
	flush := func() {
		if skipped > 0 {
			what := "element"
			if v.kind == kObject {
				what = "key"
			}
			lines = append(lines, inner+"… "+plural(skipped, "more "+what))
			skipped = 0
		}
	}
	for i := range v.elems {
		e := &v.elems[i]
		context := v.kind == kObject && (v.keys[i] == "_id" || v.keys[i] == "key") && e.kind != kObject && e.kind != kArray
		if t.marks[e] == markNone && !context && mark != markTarget {
			skipped++
			continue
		}
		flush()
		var l strings.Builder
		l.WriteString(inner)
		if v.kind == kObject {
			l.WriteString(quote(v.keys[i]) + " : ")
		}
		if mark == markTarget && t.marks[e] == markNone {
			l.WriteString(oneLine(string(appendJSON(nil, e))))
		} else {
			t.write(&l, e, inner)
		}
		lines = append(lines, l.String())
	}
	flush()
	for _, a := range t.absent[v] {
		lines = append(lines, inner+a+" : "+Absent)
	}
	if len(lines) == 0 {
		b.WriteString(open + " … " + close)
		return
	}
	b.WriteString(open + "\n" + strings.Join(lines, ",\n") + "\n" + indent + close)
}

// oneLine shortens JSON text to one line of a trimmed body.
func oneLine(s string) string {
	if len(s) <= 100 {
		return s
	}
	head := s[:80]
	for len(head) > 0 && head[len(head)-1]&0xc0 == 0x80 {
		head = head[:len(head)-1]
	}
	if len(head) > 0 && head[len(head)-1] >= 0xc0 {
		head = head[:len(head)-1]
	}
	return fmt.Sprintf("%s … (%d bytes)", head, len(s))
}

package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/conform-dev/conform/conformance"
	"github.com/conform-dev/conform/conformance/suite"
	"github.com/conform-dev/conform/fixtures"
	"github.com/conform-dev/conform/oracle"
)

// Verification writes `conform oracle verify`'s report: each case where the embedded oracle
// and the live Elasticsearch differ, with its request, the differences by class and path, and
// both bodies (trimmed around the differences unless full), then the totals.
func Verification(w io.Writer, v *suite.Verification, full bool) {
	for _, m := range v.Mismatches {
		c := v.Checks[m.Case]
		if c == nil {
			c = &suite.CaseCheck{}
		}
		var classes []string
		for _, cl := range c.Result.FailingClasses() {
			classes = append(classes, string(cl))
		}
		// Verify's own differences (a request asked differently, a case missing) come first.
		own := v.Own(m)
		if len(own) > 0 {
			classes = append([]string{"request"}, classes...)
		}
		fmt.Fprintf(w, "--- %s [%s]\n", m.Case, strings.Join(classes, ","))
		fmt.Fprintf(w, "request: %s %s", m.Live.Request.Method, m.Live.Request.Path)
		if m.Live.Request.Body != nil {
			fmt.Fprintf(w, " %s", m.Live.Request.Body)
		}
		fmt.Fprintln(w)
		for _, d := range own {
			fmt.Fprintf(w, "%s\n", d)
		}
		if c.CompileErr != nil {
			fmt.Fprintf(w, "the live answer cannot be checked: %v\n", c.CompileErr)
		}
		if m.Embedded == nil {
			continue
		}
		if c.Checked {
			var b strings.Builder
			conformance.Render(&b, c.Result)
			fmt.Fprint(w, b.String())
		}
		paths := c.Result.Paths()
		ShowBody(w, "live (expected)", m.Live.Status, m.Live.Body, paths, full)
		ShowBody(w, "embedded (checked)", m.Embedded.Status, m.Embedded.Body, paths, full)
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "%d of %d cases differ between the embedded oracle (hash %.12s) and %s (hash %.12s), %s check\n",
		len(v.Mismatches), len(v.Live.Cases), v.Embedded.Hash(), v.Live.Source, v.Live.Hash(), v.Options)
	if reported := v.ReportedOnly(); len(reported) > 0 {
		fmt.Fprintf(w, "reported, not failing (cases by class): %s\n", ClassesText(reported))
	}
	if n := len(v.Declined); n > 0 {
		fmt.Fprintf(w, "not compared: the embedded engine declines %s (%s)\n", Plural(n, "case"), ClipText(strings.Join(v.Declined, ", "), 200))
	}
}

// ShowBody writes a body under a title, trimmed around the difference paths unless full, or
// clipped when it is not JSON.
func ShowBody(w io.Writer, title string, status int, body []byte, paths []string, full bool) {
	fmt.Fprintf(w, "%s: status %d, %d bytes", title, status, len(body))
	if !json.Valid(body) {
		fmt.Fprintf(w, ", not JSON\n%s\n", strings.TrimRight(ClipText(string(body), 4000), "\r\n"))
		return
	}
	if !full && len(paths) > 0 {
		if trimmed, err := conformance.Trim(body, paths); err == nil {
			fmt.Fprintf(w, ", trimmed around the differences\n%s", trimmed)
			return
		}
	}
	fmt.Fprintf(w, "\n%s\n", IndentJSON(body))
}

// SameNote says how an actual body with no differences relates to the expected bytes: byte
// for byte, byte for byte but for took, or equal as JSON values only.
func SameNote(want, got []byte) string {
	switch {
	case bytes.Equal(want, got):
		return " (byte for byte)"
	case bytes.Equal(withoutTook(want), withoutTook(got)):
		return " (byte for byte but for took)"
	}
	return " (as JSON values; the bytes differ in layout)"
}

// withoutTook drops the value of a leading "took", which varies from answer to answer.
func withoutTook(b []byte) []byte {
	const prefix = `{"took":`
	if !bytes.HasPrefix(b, []byte(prefix)) {
		return b
	}
	i := len(prefix)
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return b[i:]
}

// Expectations writes what an oracle answered, as `conform oracle expect` and `record` print
// it: the source, the engine's identity, the settings, the cases by operation, the number of
// warnings, the hash run manifests record, and the time taken; each warning goes to
// warnings as it is counted, on a line of its own ("warning: ...").
func Expectations(w, warnings io.Writer, x *oracle.Expectations, took time.Duration) {
	fmt.Fprintf(w, "oracle    %s\n", x.Source)
	if x.Engine != nil {
		fmt.Fprintf(w, "engine    %s\n", x.Engine)
	}
	fmt.Fprintf(w, "settings  index %s, track_total_hits %s\n", x.Settings.Index, x.Settings.TrackTotalHits)
	counts := map[string]int{}
	for _, c := range x.Cases {
		counts[c.Request.Op]++
	}
	var parts []string
	for _, op := range fixtures.Ops {
		parts = append(parts, fmt.Sprintf("%s %d", op, counts[op]))
	}
	fmt.Fprintf(w, "cases     %d (%s)\n", len(x.Cases), strings.Join(parts, ", "))
	ws := x.Warnings()
	fmt.Fprintf(w, "warnings  %d\n", len(ws))
	for _, warn := range ws {
		fmt.Fprintf(warnings, "warning: %s\n", warn)
	}
	fmt.Fprintf(w, "hash      sha256 %s\n", x.Hash())
	fmt.Fprintf(w, "time      %s\n", took.Round(time.Millisecond))
}

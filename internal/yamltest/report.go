package yamltest

import (
	"fmt"
	"io"
	"strings"
)

// WriteResult writes one result as text: a status line, then for a skip its reason and for a
// failure where it failed, the assertion, expected and actual values and the response body
// (at most maxBody bytes of it; negative means all).
func WriteResult(w io.Writer, r Result, maxBody int) {
	tag := map[Status]string{Passed: "ok  ", Failed: "FAIL", Skipped: "skip"}[r.Status]
	fmt.Fprintf(w, "%s  %s  %s\n", tag, r.File, r.Test)
	switch r.Status {
	case Skipped:
		fmt.Fprintf(w, "      %s\n", r.Reason)
	case Failed:
		f := r.Failure
		where := f.Phase
		if f.Line > 0 {
			where = fmt.Sprintf("%s:%d (%s)", r.File, f.Line, f.Phase)
		}
		if f.Step != "" {
			fmt.Fprintf(w, "      at %s: %s\n", where, f.Step)
		} else {
			fmt.Fprintf(w, "      at %s\n", where)
		}
		fmt.Fprintf(w, "      %s\n", indent(f.Message))
		if f.Expected != "" || f.Actual != "" {
			fmt.Fprintf(w, "      expected: %s\n", indent(f.Expected))
			fmt.Fprintf(w, "      actual:   %s\n", indent(f.Actual))
		}
		if f.Response != "" {
			body := f.Response
			if maxBody >= 0 && len(body) > maxBody {
				body = fmt.Sprintf("%s… (%d more bytes)", body[:maxBody], len(body)-maxBody)
			}
			fmt.Fprintf(w, "      response: %s\n", indent(body))
		}
	}
}

func indent(s string) string {
	return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n        ")
}

// Summary is the report's last line: "N passed, M failed, K skipped".
func (r *Report) Summary() string {
	p, f, s := r.Counts()
	return fmt.Sprintf("%d passed, %d failed, %d skipped", p, f, s)
}

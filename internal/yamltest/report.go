package yamltest

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"
)

// WriteResult writes one result as text: a status line, then for a skip its reason and for a
// failure where it failed, the assertion, expected and actual values and the response body
// (at most maxBody bytes of it; negative means all).
func WriteResult(w io.Writer, r Result, maxBody int) {
	tag := map[Status]string{Passed: "ok  ", Failed: "FAIL", Skipped: "skip", Excluded: "excl"}[r.Status]
	fmt.Fprintf(w, "%s  %s  %s\n", tag, r.File, r.Test)
	switch r.Status {
	case Skipped, Excluded:
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

// Summary is the report's last line: "N passed, M failed, K skipped", and ", E excluded"
// when the exclusion list set some aside.
func (r *Report) Summary() string {
	p, f, s := r.Counts()
	out := fmt.Sprintf("%d passed, %d failed, %d skipped", p, f, s)
	if e := r.Excluded(); e > 0 {
		out += fmt.Sprintf(", %d excluded", e)
	}
	return out
}

// FeatureCount is how many skipped sections need one feature.
type FeatureCount struct {
	Feature string
	Count   int
}

// SkippedByFeature groups the skipped sections by what they need, most first.
func (r *Report) SkippedByFeature() []FeatureCount {
	n := map[string]int{}
	for _, res := range r.Results {
		if res.Status == Skipped {
			n[Feature(res.Reason)]++
		}
	}
	out := make([]FeatureCount, 0, len(n))
	for f, c := range n {
		out = append(out, FeatureCount{f, c})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Feature < out[j].Feature
	})
	return out
}

var (
	lineRef   = regexp.MustCompile(` \((?:setup|test|teardown) line \d+\)| \(line \d+\)`)
	subsetPre = regexp.MustCompile(`^outside the embedded engine's subset[^:]*: `)
)

// Feature is a skip reason without what varies from section to section (line numbers, the
// section's own wording after a colon), so that reasons group by the feature they name:
// "declined: the URL parameter [version]", "needs runner feature yaml".
func Feature(reason string) string {
	if subsetPre.MatchString(reason) {
		return "declined: " + strings.TrimPrefix(subsetPre.ReplaceAllString(reason, ""), "unsupported by conform's embedded engine: ")
	}
	reason = lineRef.ReplaceAllString(reason, "")
	for _, p := range []string{"needs runner feature ", "requires cluster_features ", "requires API capabilities", "uses API ", "skipped on versions "} {
		if strings.HasPrefix(reason, p) {
			if i := strings.Index(reason, ":"); i > 0 {
				return reason[:i]
			}
		}
	}
	return reason
}

// jsonResult is one section in WriteJSON's file.
type jsonResult struct {
	File    string   `json:"file"`
	Test    string   `json:"test"`
	Status  string   `json:"status"`
	Reason  string   `json:"reason,omitempty"`
	Failure *Failure `json:"failure,omitempty"`
}

// WriteJSON writes the report as JSON: target, version, warnings and every result.
func WriteJSON(path string, r *Report) error {
	out := struct {
		Target   string       `json:"target"`
		Version  string       `json:"version"`
		Warnings []string     `json:"warnings,omitempty"`
		Results  []jsonResult `json:"results"`
	}{Target: r.Target, Version: r.Version, Warnings: r.Warnings}
	for _, res := range r.Results {
		out.Results = append(out.Results, jsonResult{res.File, res.Test, res.Status.String(), res.Reason, res.Failure})
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

package fuzz

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/conform-dev/conform/conformance"
	"github.com/conform-dev/conform/fixtures"
)

// RenderOptions say how a report names its sides and reproduces a request.
type RenderOptions struct {
	Target, Oracle string
	// Index is the target's index name, for the rendered requests.
	Index string
	// Curl renders a request to the target as a shell command (conformance/target's Curl).
	Curl func(fixtures.Request) string
	// Features lists every feature's count too.
	Features bool
}

// Render writes the report: a summary line, then each group with one reproducer.
func (r *Report) Render(w io.Writer, o RenderOptions) {
	rate := 0.0
	if r.Elapsed > 0 {
		rate = float64(r.Requests) / r.Elapsed.Seconds()
	}
	fmt.Fprintf(w, "fuzz %s against oracle %s: seed %d, %d requests in %.1fs (%.0f requests/s), %s in %s\n",
		o.Target, o.Oracle, r.Seed, r.Requests, r.Elapsed.Seconds(), rate, plural(r.Disagreements, "disagreement"), plural(len(r.Groups), "group"))
	if r.Tiebreak != "" {
		fmt.Fprintf(w, "every sort ends in the unique field %s; weights %s\n", r.Tiebreak, r.Weights)
	} else {
		fmt.Fprintf(w, "sorts may end in a tie (--no-tiebreak): tied hits follow doc ids, which engines need not share; weights %s\n", r.Weights)
	}
	if r.Stopped != "" {
		fmt.Fprintf(w, "stopped early: %s\n", r.Stopped)
	}
	if r.OracleErrors > 0 {
		fmt.Fprintf(w, "warning: the oracle answered %s with an error (%d of them unsupported by the embedded engine); the generator should make none:\n", plural(r.OracleErrors, "request"), r.Unsupported)
		for _, e := range r.OracleErrorExamples {
			fmt.Fprintf(w, "  %s\n", e)
		}
	}
	if len(r.Groups) > 0 {
		fmt.Fprintf(w, "\ngroups by the shape of their minimal request (values left out as <str>, <num>, <bool>; names as <agg>, <key>; <field> for a group of several fields), largest first, with the requests each reproducer does not cover:\n")
		counts := make([]string, len(r.Groups))
		width := 0
		for i, g := range r.Groups {
			counts[i] = plural(len(g.Seqs), "request")
			if g.Uncovered > 0 {
				counts[i] += fmt.Sprintf(", %d not covered", g.Uncovered)
			}
			width = max(width, len(counts[i]))
		}
		for i, g := range r.Groups {
			fmt.Fprintf(w, "  %3d. %-*s  %s\n       %s\n", i+1, width, counts[i], g.Name, g.Shape)
			if len(g.Fields) > 0 {
				fmt.Fprintf(w, "       on %d field sets: %s\n", len(g.Fields), fieldList(g.Fields, 8))
			}
		}
		fmt.Fprintf(w, "(the first %d disagreements of each request kind and difference, its class at its place, are shrunk, a smaller request kept only while it shows that difference; after them one is counted in the group whose reproducer shows its difference and fits it, being made of parts of its request, or shrunk when none does, %d more of a difference at most, then counted with that difference's first group, not covered; groups that differ only by the fields they name are one)\n",
			r.ShrinkPerSignature, r.ShrinkUnfitted)
	}
	if o.Features {
		fmt.Fprintf(w, "\nfeatures (requests using each):\n")
		names := make([]string, 0, len(r.Features))
		for k := range r.Features {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			fmt.Fprintf(w, "  %-48s %d\n", k, r.Features[k])
		}
	}
	for i, g := range r.Groups {
		d := g.Repro
		fmt.Fprintf(w, "\n== group %d: %s, %s (requests %s)\n", i+1, g.Name, plural(len(g.Seqs), "request"), seqList(g.Seqs))
		fmt.Fprintf(w, "shape: %s\n", g.Shape)
		var sigs []string
		for i, s := range g.Signatures {
			if i == 4 {
				sigs = append(sigs, fmt.Sprintf("and %d more", len(g.Signatures)-4))
				break
			}
			sigs = append(sigs, fmt.Sprintf("%s (%d)", s.Signature, s.Requests))
		}
		fmt.Fprintf(w, "first failing difference: %s\n", strings.Join(sigs, ", "))
		var how []string
		if g.Shrunk > 0 {
			how = append(how, fmt.Sprintf("%d shrunk to this shape", g.Shrunk))
		}
		if g.Unshrunk > 0 {
			how = append(how, fmt.Sprintf("%d of this shape, unshrunk", g.Unshrunk))
		}
		if g.Fitted > 0 {
			how = append(how, fmt.Sprintf("%d that its reproducer fits", g.Fitted))
		}
		if g.Unplaced > 0 {
			how = append(how, fmt.Sprintf("%d that no reproducer fits, counted here unshrunk (their difference had %d shrinks of unfitted ones)", g.Unplaced, r.ShrinkUnfitted))
		}
		fmt.Fprintf(w, "requests: %s\n", strings.Join(how, ", "))
		switch {
		case g.Uncovered == 0:
			fmt.Fprintf(w, "covered: the reproducer shows the difference of every request of the group\n")
		default:
			elsewhere := g.Uncovered - g.Unplaced
			fmt.Fprintf(w, "not covered: %d of %s (%d that no reproducer fits, %d whose difference the reproducer does not show)\n",
				g.Uncovered, plural(len(g.Seqs), "request"), g.Unplaced, elsewhere)
		}
		if len(g.Fields) > 0 {
			fmt.Fprintf(w, "fields: %s: the same request and difference on each; the reproducer below names %s, and --save writes each field set's own\n",
				fieldList(g.Fields, 0), g.Fields[0].Fields)
		}
		switch {
		case !d.Shrunk:
			fmt.Fprintf(w, "not shrunk (%s): %d values\n", shrinkReason(r), d.Minimal.Size())
		default:
			fmt.Fprintf(w, "shrunk from %d to %d values (%d candidates tried)\n", d.Original.Size(), d.Minimal.Size(), d.Tried)
		}
		fmt.Fprintf(w, "reproducer: from request %d, the group's smallest; features of request %d: %s\n", d.Seq, d.Seq, strings.Join(d.Features, " "))
		req := d.Minimal.Request(fmt.Sprintf("fuzz/%d", d.Seq), o.Index)
		fmt.Fprintf(w, "\nRequest:\n  %s %s\n", req.Method, req.Path)
		if req.Body != nil {
			fmt.Fprintf(w, "  %s\n", req.Body)
		}
		if o.Curl != nil {
			fmt.Fprintf(w, "\nReproduce:\n  %s\n", o.Curl(req))
		}
		paths := d.Result.Paths()
		fmt.Fprintf(w, "\nExpected (%s): HTTP %d\n", o.Oracle, d.Want.Status)
		writeTrimmed(w, d.Want.Body, paths)
		fmt.Fprintf(w, "\nGot (%s): HTTP %d\n", o.Target, d.Got.Status)
		writeTrimmed(w, d.Got.Body, paths)
		fmt.Fprintf(w, "\nDifferences:\n")
		var b strings.Builder
		conformance.Render(&b, d.Result)
		for _, l := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
			fmt.Fprintf(w, "  %s\n", l)
		}
	}
}

func shrinkReason(r *Report) string {
	if r.Stopped != "" {
		return "the run stopped early"
	}
	return "nothing to shrink"
}

func writeTrimmed(w io.Writer, body []byte, paths []string) {
	s, err := conformance.Trim(body, paths)
	if err != nil {
		s = string(body)
		if len(s) > 4000 {
			s = s[:4000] + "…"
		}
	}
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		fmt.Fprintf(w, "  %s\n", l)
	}
}

// fieldList writes a group's field sets with their requests, the most first: "brand (12
// requests), color (8)", at most n of them (0: all).
func fieldList(fs []FieldGroup, n int) string {
	var parts []string
	for i, f := range fs {
		if n > 0 && i == n {
			parts = append(parts, fmt.Sprintf("and %d more", len(fs)-n))
			break
		}
		t := fmt.Sprintf("%s (%s", f.Fields, plural(f.Requests, "request"))
		if f.Uncovered > 0 {
			t += fmt.Sprintf(", %d not covered", f.Uncovered)
		}
		parts = append(parts, t+")")
	}
	return strings.Join(parts, ", ")
}

func seqList(seqs []int) string {
	var parts []string
	for i, s := range seqs {
		if i == 8 {
			parts = append(parts, fmt.Sprintf("and %d more", len(seqs)-8))
			break
		}
		parts = append(parts, fmt.Sprint(s))
	}
	return strings.Join(parts, ", ")
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// Op is the workload operation a case is saved as: get for a document read, page for a
// search returning hits, terms for aggregations with a terms aggregation, counts otherwise
// (_count, and filter or metric aggregations).
func (c *Case) Op() string {
	switch {
	case c.Method == "GET" && strings.Contains(c.Path, "/_doc/"):
		return fixtures.OpGet
	case strings.HasSuffix(c.Path, "/_count"):
		return fixtures.OpCounts
	}
	b, _ := c.Body.(*Object)
	if b != nil {
		if sz, ok := b.Get("size"); !ok || fmt.Sprint(sz) != "0" {
			return fixtures.OpPage
		}
		if strings.Contains(string(Marshal(b)), `"terms":{"field"`) {
			return fixtures.OpTerms
		}
	}
	return fixtures.OpCounts
}

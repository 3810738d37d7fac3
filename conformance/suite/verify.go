package suite

import (
	"context"
	"fmt"

	"github.com/conform-dev/conform/conformance"
	"github.com/conform-dev/conform/fixtures"
	"github.com/conform-dev/conform/oracle"
)

// Verification is the embedded oracle checked against a live Elasticsearch with the strict
// check: the live answer is the expectation, the embedded one is checked as a target's
// response would be.
type Verification struct {
	*oracle.Verification
	Options *conformance.Options
	// Checks holds each case's strict check, by case name.
	Checks map[string]*CaseCheck
}

// CaseCheck is the strict check of one case's embedded answer against the live one.
type CaseCheck struct {
	// Checked is false when the live answer could not be compiled (CompileErr says why).
	Checked    bool
	Result     conformance.Result
	CompileErr error
	// Lines counts how many of the mismatch's Differences came from the check; the ones
	// before them are Verify's own (a request asked differently, a missing case).
	Lines int
}

// Own lists a mismatch's differences that are not the strict check's.
func (v *Verification) Own(m oracle.Mismatch) []string {
	c := v.Checks[m.Case]
	if c == nil {
		return m.Differences
	}
	return m.Differences[:len(m.Differences)-c.Lines]
}

// Verify computes f's workload from the embedded engine and from live, and compares each case
// with the strict check under opts: the same comparator a target's responses get, so a case
// where they agree is one a conforming target passes.
func Verify(ctx context.Context, f *fixtures.Fixtures, s oracle.Settings, live oracle.Source, opts *conformance.Options) (*Verification, error) {
	v := &Verification{Options: opts, Checks: map[string]*CaseCheck{}}
	ov, err := oracle.Verify(ctx, f, s, oracle.Embedded{}, live, v.compare)
	if err != nil {
		return nil, err
	}
	v.Verification = ov
	return v, nil
}

// compare is oracle.Verify's Compare made of the strict check: the live answer compiled as
// the expectation, the embedded answer checked against it.
func (v *Verification) compare(live, embedded *oracle.Expected) []string {
	name := live.Request.Case
	exp, err := conformance.Compile(live.Status, live.Body)
	if err != nil {
		v.Checks[name] = &CaseCheck{CompileErr: err, Lines: 1}
		return []string{"the live answer cannot be checked: " + err.Error()}
	}
	res := exp.Check(embedded.Status, embedded.Body, v.Options)
	var out []string
	for i := range res.Diffs {
		if d := &res.Diffs[i]; d.Fails {
			out = append(out, fmt.Sprintf("%s %s: want %s, got %s", d.Class, Where(d), d.Want, d.Got))
		}
	}
	v.Checks[name] = &CaseCheck{Checked: true, Result: res, Lines: len(out)}
	return out
}

// ReportedOnly counts, by class, the cases whose check reported differences that did not fail.
func (v *Verification) ReportedOnly() map[string]int {
	var results []conformance.Result
	for _, c := range v.Checks {
		results = append(results, c.Result)
	}
	return ReportedOnly(results)
}

// Where names a difference's place as conformance.Render does: its path, the HTTP status, or
// the body.
func Where(d *conformance.Difference) string {
	switch {
	case d.Path != "":
		return d.Path
	case d.Class == conformance.ClassStatus:
		return "HTTP status"
	}
	return "body"
}

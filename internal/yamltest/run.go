package yamltest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/conform-dev/conform/internal/excerpt"
)

// Status is a test section's outcome.
type Status int

const (
	Passed Status = iota
	Failed
	Skipped
	// Excluded is a section the exclusion list (EXCLUDED.md) names: real Elasticsearch
	// 8.15.0 fails it, so it says nothing about a target.
	Excluded
)

func (s Status) String() string { return [...]string{"passed", "failed", "skipped", "excluded"}[s] }

// Result is the outcome of one test section.
type Result struct {
	// File is the suite's name, e.g. search/90_search_after.yml, prefixed "opensearch:" for a
	// file of OpenSearch's suite.
	File   string
	Test   string
	Status Status
	// Reason says why a test was skipped.
	Reason  string
	Failure *Failure
}

// Failure is the step that failed and what it saw.
type Failure struct {
	Phase    string `json:"phase"` // setup, test or teardown
	Line     int    `json:"line,omitempty"`
	Step     string `json:"step,omitempty"` // the assertion or call, e.g. match: {hits.total: 3}
	Message  string `json:"message"`
	Expected string `json:"expected,omitempty"` // empty when the step has no expected value
	Actual   string `json:"actual,omitempty"`
	Response string `json:"response,omitempty"` // the body of the last response, if any

	outsideSubset string
}

// Report is every result, in file and section order.
type Report struct {
	Target  string
	Version string
	// Warnings are about the target, found before any test ran (say, documents already in
	// it that searches over every index will count).
	Warnings []string
	Results  []Result
}

// Counts returns how many tests passed, failed and were skipped (excluded ones aside).
func (r *Report) Counts() (passed, failed, skipped int) {
	for _, res := range r.Results {
		switch res.Status {
		case Passed:
			passed++
		case Failed:
			failed++
		case Skipped:
			skipped++
		}
	}
	return
}

// Excluded counts the sections the exclusion list set aside.
func (r *Report) Excluded() int {
	n := 0
	for _, res := range r.Results {
		if res.Status == Excluded {
			n++
		}
	}
	return n
}

// Options configure a run.
type Options struct {
	Target Target
	// Version overrides the version the target reports in GET /, for version gates and
	// cluster features.
	Version string
	// Distribution is the distribution the test files are written for, "elasticsearch" or
	// "opensearch"; empty means from each file's path (a path with an "opensearch" directory
	// is OpenSearch's suite). Files written for another distribution than the target's are
	// skipped: their version gates count in the other distribution's versions.
	Distribution string
	// Run selects test sections by a regular expression over "file/section".
	Run *regexp.Regexp
	// OnResult, if set, is called with each result as it is known.
	OnResult func(Result)
	// OnWarning, if set, is called with each of the report's warnings before any test runs.
	OnWarning func(string)
	// Exclusions are sections not to run, by "file/section" (the file as Result.File names
	// it), each with its reason; see ReadExclusions.
	Exclusions map[string]string
}

// Files lists the YAML test files in paths: files as given, directories walked for .yml and
// .yaml files in lexical order. Each comes with its suite name.
func Files(paths []string) (files, names []string, err error) {
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, nil, err
		}
		if !st.IsDir() {
			files, names = append(files, p), append(names, suiteName(p, filepath.Dir(p)))
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && (strings.HasSuffix(path, ".yml") || strings.HasSuffix(path, ".yaml")) {
				found = append(found, path)
			}
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
		sort.Strings(found)
		for _, f := range found {
			files, names = append(files, f), append(names, suiteName(f, p))
		}
	}
	if len(files) == 0 {
		return nil, nil, errors.New("no YAML test files found")
	}
	return files, names, nil
}

// suiteName is a file's path within the rest-api-spec test tree when it is in one, or else its
// path relative to the directory it was found under, without a leading elasticsearch/ or
// opensearch/ directory (the distribution is told apart by its "opensearch:" prefix), so that
// an exclusion list names the same file however the tree is laid out.
func suiteName(file, root string) string {
	slash := filepath.ToSlash(file)
	if i := strings.LastIndex(slash, "rest-api-spec/test/"); i >= 0 {
		return slash[i+len("rest-api-spec/test/"):]
	}
	if rel, err := filepath.Rel(root, file); err == nil {
		slash = filepath.ToSlash(rel)
	}
	for _, d := range []string{"elasticsearch/", "opensearch/"} {
		if rest, ok := strings.CutPrefix(slash, d); ok && strings.Contains(rest, "/") {
			return rest
		}
	}
	return slash
}

// distributionOf guesses which distribution's suite a file belongs to from its path.
func distributionOf(file string) string {
	for _, part := range strings.Split(strings.ToLower(filepath.ToSlash(file)), "/") {
		if part == "opensearch" {
			return "opensearch"
		}
	}
	return "elasticsearch"
}

// Run runs every test section of the files under paths against the target. Setup errors
// (unreadable paths, a target that does not say its version) are returned; test outcomes,
// including files that do not parse, are results.
func Run(ctx context.Context, opt Options, paths ...string) (*Report, error) {
	files, names, err := Files(paths)
	if err != nil {
		return nil, err
	}
	r := &runner{opt: opt}
	if err := r.identify(ctx); err != nil {
		return nil, err
	}
	rep := &Report{Target: opt.Target.Name(), Version: r.version.String()}
	if r.preexisting > 0 {
		w := fmt.Sprintf("the target already holds %d documents before any test runs; tests that search or count every index "+
			"(a request without an index) will count them too and fail. Run against an empty cluster (say, conform serve --empty).", r.preexisting)
		rep.Warnings = append(rep.Warnings, w)
		if opt.OnWarning != nil {
			opt.OnWarning(w)
		}
	}
	emit := func(res Result) {
		rep.Results = append(rep.Results, res)
		if opt.OnResult != nil {
			opt.OnResult(res)
		}
	}
	for i, file := range files {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		data, err := os.ReadFile(file)
		if err != nil {
			return rep, err
		}
		// OpenSearch's suite has files of the same names as Elasticsearch's; tell them apart.
		shown := names[i]
		if distributionOf(file) == "opensearch" {
			shown = "opensearch:" + shown
		}
		suite, err := ParseSuite(file, names[i], data)
		if err != nil {
			emit(Result{File: shown, Test: "(file)", Status: Failed, Failure: &Failure{Phase: "parse", Message: err.Error()}})
			continue
		}
		dist := opt.Distribution
		if dist == "" {
			dist = distributionOf(file)
		}
		for _, test := range suite.Tests {
			if opt.Run != nil && !opt.Run.MatchString(suite.Name+"/"+test.Name) {
				continue
			}
			res := Result{File: shown, Test: test.Name}
			// A file written for the other distribution still runs: the behaviour it tests is
			// mostly shared (ES-SEMANTICS.md §10.7). Only its version gates are meaningless
			// here, since they count the other distribution's versions; where the two
			// distributions really differ, knownDivergences says so by name.
			r.foreign = dist != r.distribution
			if reason, ok := opt.Exclusions[shown+"/"+test.Name]; ok {
				res.Status, res.Reason = Excluded, reason
			} else if reason, skip := r.skipReason(suite, test); skip {
				res.Status, res.Reason = Skipped, reason
			} else {
				res.Status, res.Failure = r.runTest(ctx, suite, test)
				if res.Status == Skipped {
					res.Reason = fmt.Sprintf("outside the embedded engine's subset (%s line %d): %s", res.Failure.Phase, res.Failure.Line, res.Failure.outsideSubset)
					res.Failure = nil
				}
			}
			emit(res)
		}
	}
	return rep, nil
}

func displayDist(d string) string {
	if d == "opensearch" {
		return "OpenSearch"
	}
	return "Elasticsearch"
}

type runner struct {
	opt          Options
	version      Version
	distribution string
	// foreign is set while running a file written for the other distribution.
	foreign bool
	// preexisting is how many documents the target held before the run (GET /_count).
	preexisting int64
}

// identify learns the target's version and distribution from GET /, unless overridden.
func (r *runner) identify(ctx context.Context) error {
	r.distribution = "elasticsearch"
	var body []byte
	var getErr error
	conn, err := r.opt.Target.Begin(ctx)
	if err != nil {
		return fmt.Errorf("target %s: %w", r.opt.Target.Name(), err)
	}
	resp, err := conn.Do(ctx, &Request{Method: "GET", Path: "/", Header: http.Header{"Accept": {"application/json"}}})
	switch {
	case err != nil:
		getErr = err
	case resp.Status != 200:
		getErr = fmt.Errorf("answered HTTP %d: %s", resp.Status, excerpt.Line(resp.Body))
	default:
		body = resp.Body
	}
	if getErr == nil {
		// Elasticsearch's own runner starts every test on a wiped cluster; this one never
		// deletes what it did not create, so it says when the cluster is not empty.
		if c, err := conn.Do(ctx, &Request{Method: "GET", Path: "/_count", Header: http.Header{"Accept": {"application/json"}}}); err == nil && c.Status == 200 {
			r.preexisting = gjson.GetBytes(c.Body, "count").Int()
		}
	}
	conn.End(ctx, nil)
	if d := gjson.GetBytes(body, "version.distribution").String(); d != "" {
		r.distribution = strings.ToLower(d)
	}
	v := r.opt.Version
	if v == "" {
		v = gjson.GetBytes(body, "version.number").String()
	}
	if v == "" {
		if getErr == nil {
			getErr = errors.New("has no version.number")
		}
		return fmt.Errorf("GET / on %s %v; version gates need the target's version (give one with --es-version)", r.opt.Target.Name(), getErr)
	}
	r.version, err = ParseVersion(v)
	return err
}

// skipReason decides, before running anything, whether a test is skipped: its and the
// setup's and teardown's prerequisites, steps or APIs the runner lacks, and tests known to
// assert behaviour newer than the target.
func (r *runner) skipReason(s *Suite, t *Section) (string, bool) {
	var sections []*Section
	for _, sec := range []*Section{s.Setup, s.Teardown, t} {
		if sec != nil {
			sections = append(sections, sec)
		}
	}
	for _, sec := range sections {
		for _, p := range sec.Prereqs {
			if reason, skip := r.prereqSkip(p); skip {
				if sec != t {
					reason += " (" + sec.Name + ")"
				}
				return reason, true
			}
		}
	}
	for _, d := range knownDivergences {
		if (s.Name == d.file || strings.HasSuffix(s.Name, "/"+d.file)) && (d.section == "" || d.section == t.Name) && r.version.Less(d.before) {
			return d.reason, true
		}
	}
	for _, sec := range sections {
		for _, st := range sec.Steps {
			if st.unsupported != "" {
				return fmt.Sprintf("%s (line %d)", st.unsupported, st.line), true
			}
			if st.kind != "do" {
				continue
			}
			if _, ok := apis[st.do.api]; !ok && st.do.api != "raw" {
				return fmt.Sprintf("uses API %s (line %d), which this runner cannot map to HTTP", st.do.api, st.line), true
			}
		}
	}
	return "", false
}

func (r *runner) prereqSkip(p prereq) (string, bool) {
	because := func(s string) string {
		if p.reason != "" {
			return s + ": " + p.reason
		}
		return s
	}
	if p.awaitsFix != "" {
		return because("awaits fix " + p.awaitsFix), true
	}
	for _, f := range append(append([]string(nil), p.features...), p.testRunnerFeatures...) {
		if !runnerFeatures[f] {
			return "needs runner feature " + f, true
		}
	}
	if !p.requires && p.version != "" && !r.foreign {
		ranges, err := parseVersionRanges(p.version)
		if err != nil {
			return fmt.Sprintf("skip version %q does not parse: %v", p.version, err), true
		}
		for _, rg := range ranges {
			if rg.contains(r.version) {
				return because(fmt.Sprintf("skipped on versions %q, the target is %s", strings.TrimSpace(p.version), r.version)), true
			}
		}
	}
	for _, f := range p.clusterFeatures {
		present, known := hasFeature(r.version, f)
		if p.requires && !present {
			switch {
			case known && knownClusterFeatures[f].newerThan815 != "":
				return fmt.Sprintf("requires cluster_features %s: behaviour newer than 8.15 (%s)", f, knownClusterFeatures[f].newerThan815), true
			case known:
				return because(fmt.Sprintf("requires cluster_features %s, which %s %s does not have", f, displayDist(r.distribution), r.version)), true
			default:
				return because(fmt.Sprintf("requires cluster_features %s, unknown to this runner and taken as absent", f)), true
			}
		}
		if !p.requires && present {
			return because(fmt.Sprintf("skipped when the cluster has feature %s", f)), true
		}
	}
	for _, ki := range p.knownIssues {
		has, _ := hasFeature(r.version, ki[0])
		fixed, _ := hasFeature(r.version, ki[1])
		if has && !fixed {
			return because(fmt.Sprintf("known issue: has %s without its fix %s", ki[0], ki[1])), true
		}
	}
	if p.capabilities {
		return because("requires API capabilities, which this runner does not check"), true
	}
	if len(p.os) > 0 {
		return "skips on operating systems " + strings.Join(p.os, ", ") + ", which this runner cannot tell", true
	}
	return "", false
}

// runTest runs setup, the test and teardown on a clean cluster.
func (r *runner) runTest(ctx context.Context, s *Suite, t *Section) (Status, *Failure) {
	conn, err := r.opt.Target.Begin(ctx)
	if err != nil {
		return Failed, &Failure{Phase: "setup", Message: "starting a clean cluster: " + err.Error()}
	}
	x := &execution{ctx: ctx, conn: conn, suite: s, stash: newObject(), created: map[string]bool{}}
	var failure *Failure
	if s.Setup != nil {
		failure = x.runSteps("setup", s.Setup.Steps)
	}
	if failure == nil {
		failure = x.runSteps("test", t.Steps)
	}
	if s.Teardown != nil {
		if f := x.runSteps("teardown", s.Teardown.Steps); failure == nil {
			failure = f
		}
	}
	var created []string
	for name := range x.created {
		created = append(created, name)
	}
	sort.Strings(created)
	if err := conn.End(ctx, created); err != nil && failure == nil {
		failure = &Failure{Phase: "cleanup", Message: err.Error()}
	}
	if failure != nil && failure.outsideSubset != "" {
		return Skipped, failure
	}
	if failure != nil {
		return Failed, failure
	}
	return Passed, nil
}

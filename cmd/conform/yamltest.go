package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"

	"github.com/conform-dev/conform/internal/yamltest"
	"github.com/conform-dev/conform/oracle/engine"
)

func cmdYAMLTest(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "yamltest", "[--target URL] [--es-version V] [--distribution elasticsearch|opensearch] [--run REGEX] [--full] [--exclusions FILE] [--no-exclusions] [--json FILE] FILE|DIR...", `
Run Elasticsearch YAML REST tests (rest-api-spec/test: setup, teardown, do with catch, headers
and warnings, match, length, is_true, is_false, set and $stash, gt/gte/lt/lte, close_to,
contains, skip and requires) against a target, and report each test section as passed, failed
(the assertion, expected and actual values and the response body) or skipped (the reason).

The default target is the embedded engine: a fresh one per test section, served in process.
--target URL runs against a live cluster instead (userinfo is sent as basic auth and never
printed); after each test section the runner deletes the indices that section created, and
nothing else. Use an empty cluster (conform serve --empty, or a throwaway one): tests that
search or count every index see what is already there, and conform warns when it holds
documents.

An EXCLUDED.md at the root of a directory given lists sections real Elasticsearch 8.15.0
fails (a table of | file | section | reason |): they are reported as excluded, not run, and
counted apart; --exclusions FILE adds another such list (testdata/es-rest-tests/EXCLUDED.md
for a checkout of Elasticsearch's own tests, which has none); --no-exclusions runs them all.
--json FILE writes every result as JSON.

Version gates (skip version ranges, cluster_features such as gte_v7.13.0) are evaluated
against the target's GET / version. Tests that assert behaviour newer than Elasticsearch 8.15
are skipped with that reason. Files under a directory named "opensearch" are OpenSearch's
suite and run only against OpenSearch unless --distribution says otherwise.

The skipped sections are then counted by what they need (a runner feature, a version, what
the embedded engine declines). The last line is "N passed, M failed, K skipped", with
", E excluded" when the list set some aside.`,
		"conform yamltest testdata/es-rest-tests",
		"conform yamltest --run 'search_after' testdata/es-rest-tests/elasticsearch",
		"conform yamltest --target http://localhost:9200 search/90_search_after.yml",
		"conform yamltest --exclusions testdata/es-rest-tests/EXCLUDED.md ~/elasticsearch/rest-api-spec/src/yamlRestTest/resources/rest-api-spec/test",
	)
	targetURL := fs.String("target", "", "run against the cluster at `URL` instead of the embedded engine")
	version := fs.String("es-version", "", "evaluate version gates for `VERSION` instead of the target's GET / version")
	dist := fs.String("distribution", "", "the distribution the files are written for, `elasticsearch` or opensearch (default: from each path)")
	run := fs.String("run", "", "run only test sections whose \"file/section\" matches `REGEX`")
	full := fs.Bool("full", false, "print whole response bodies of failures instead of their first 2 KiB")
	var exclusionLists listFlag
	fs.Var(&exclusionLists, "exclusions", "also set aside the sections the exclusion list `FILE` names (repeatable)")
	noExclusions := fs.Bool("no-exclusions", false, "run the sections "+yamltest.ExclusionsFile+" and --exclusions exclude too")
	jsonOut := fs.String("json", "", "also write every section's result to `FILE` as JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usageErr("yamltest needs test files or directories")
	}
	opt := yamltest.Options{Version: *version}
	switch *dist {
	case "", "elasticsearch", "opensearch":
		opt.Distribution = *dist
	default:
		return usageErr("--distribution must be elasticsearch or opensearch, not %q", *dist)
	}
	if *version != "" {
		if _, err := yamltest.ParseVersion(*version); err != nil {
			return usageErr("--es-version: %v", err)
		}
	}
	if *run != "" {
		re, err := regexp.Compile(*run)
		if err != nil {
			return usageErr("--run: %v", err)
		}
		opt.Run = re
	}
	if !*noExclusions {
		ex, err := yamltest.ExclusionsFor(fs.Args(), exclusionLists...)
		if err != nil {
			return usageErr("%v", err)
		}
		opt.Exclusions = ex
	}
	if *targetURL != "" {
		t, err := yamltest.URLTarget(*targetURL, nil)
		if err != nil {
			return usageErr("--target: %v", err)
		}
		opt.Target = t
	} else {
		opt.Target = yamltest.HandlerTarget("embedded", func() (http.Handler, error) { return engine.New(), nil })
	}
	limit := 2048
	if *full {
		limit = -1
	}
	opt.OnResult = func(r yamltest.Result) { yamltest.WriteResult(e.stdout, r, limit) }
	opt.OnWarning = func(w string) { fmt.Fprintf(e.stdout, "warning: %s\n", w) }
	rep, err := yamltest.Run(ctx, opt, fs.Args()...)
	if err != nil {
		if rep != nil {
			fmt.Fprintln(e.stdout, rep.Summary())
		}
		return infraErr("yamltest: %v", err)
	}
	if *jsonOut != "" {
		if err := yamltest.WriteJSON(*jsonOut, rep); err != nil {
			return infraErr("yamltest: %v", err)
		}
	}
	fmt.Fprintf(e.stdout, "target %s, version %s\n", rep.Target, rep.Version)
	for _, w := range rep.Warnings {
		fmt.Fprintf(e.stdout, "warning: %s\n", w)
	}
	if groups := rep.SkippedByFeature(); len(groups) > 0 {
		fmt.Fprintln(e.stdout, "skipped, by what they need:")
		for _, g := range groups {
			fmt.Fprintf(e.stdout, "  %3d  %s\n", g.Count, g.Feature)
		}
	}
	fmt.Fprintln(e.stdout, rep.Summary())
	if _, failedN, _ := rep.Counts(); failedN > 0 {
		return &exitError{code: exitFail, err: errors.New("")}
	}
	return nil
}

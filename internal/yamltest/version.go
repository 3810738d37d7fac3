package yamltest

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Version is a release version, major.minor.patch; qualifiers such as -SNAPSHOT are dropped.
type Version struct{ Major, Minor, Patch int }

var versionRE = regexp.MustCompile(`^(\d+)\.(\d+)(?:\.(\d+))?`)

// ParseVersion reads "8.15.0", "8.15.0-SNAPSHOT" or "1.0.0.Beta1".
func ParseVersion(s string) (Version, error) {
	m := versionRE.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return Version{}, fmt.Errorf("%q is not a version", s)
	}
	v := Version{}
	v.Major, _ = strconv.Atoi(m[1])
	v.Minor, _ = strconv.Atoi(m[2])
	if m[3] != "" {
		v.Patch, _ = strconv.Atoi(m[3])
	}
	return v, nil
}

func (v Version) String() string { return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch) }

// Less orders versions.
func (v Version) Less(w Version) bool {
	if v.Major != w.Major {
		return v.Major < w.Major
	}
	if v.Minor != w.Minor {
		return v.Minor < w.Minor
	}
	return v.Patch < w.Patch
}

// versionRange is an inclusive range; an empty bound is open.
type versionRange struct {
	lo, hi       Version
	hasLo, hasHi bool
}

func (r versionRange) contains(v Version) bool {
	return (!r.hasLo || !v.Less(r.lo)) && (!r.hasHi || !r.hi.Less(v))
}

// parseVersionRanges reads a skip version such as " - 7.0.99", "8.1.0 - ", "all" or
// " - 8.0.99, 8.8.0 - ".
func parseVersionRanges(s string) ([]versionRange, error) {
	s = strings.TrimSpace(s)
	if s == "all" {
		return []versionRange{{}}, nil
	}
	var out []versionRange
	for _, part := range strings.Split(s, ",") {
		lo, hi, ok := strings.Cut(part, " - ")
		if !ok {
			// "x.y.z -" or "- x.y.z" without an inner space on one side.
			if strings.HasSuffix(strings.TrimSpace(part), "-") {
				lo, hi, ok = strings.TrimSuffix(strings.TrimSpace(part), "-"), "", true
			} else if strings.HasPrefix(strings.TrimSpace(part), "-") {
				lo, hi, ok = "", strings.TrimPrefix(strings.TrimSpace(part), "-"), true
			}
		}
		if !ok {
			return nil, fmt.Errorf("version range %q is not of the form [min] - [max]", part)
		}
		var r versionRange
		var err error
		if lo = strings.TrimSpace(lo); lo != "" {
			if r.lo, err = ParseVersion(lo); err != nil {
				return nil, err
			}
			r.hasLo = true
		}
		if hi = strings.TrimSpace(hi); hi != "" {
			if r.hi, err = ParseVersion(hi); err != nil {
				return nil, err
			}
			r.hasHi = true
		}
		out = append(out, r)
	}
	return out, nil
}

// runnerFeatures are the test runner features this runner implements (skip.features and
// requires.test_runner_features). Anything else skips the test.
var runnerFeatures = map[string]bool{
	"headers": true,
	// Every target conform tests is one node (or answers as one), which every selector
	// matches, so node_selector is accepted and the request sent to that node.
	"node_selector":          true,
	"warnings":               true,
	"warnings_regex":         true,
	"allowed_warnings":       true,
	"allowed_warnings_regex": true,
	"close_to":               true,
	"contains":               true,
	"stash_in_path":          true,
	"stash_in_key":           true,
	"embedded_stash_key":     true,
	// The runner never changes the number of shards, so tests that need the default run.
	"default_shards": true,
	// The runner never runs in FIPS 140 mode, so tests that must not run there may run.
	"fips_140": true,
}

// clusterFeature is a named cluster feature whose presence follows from the version: the
// releases that have it. Named features are only known where listed here.
type clusterFeature struct {
	since []Version // each a lowest release of a line that has it, e.g. 8.19.0 and 9.1.0
	// newerThan815 marks behaviour ES-SEMANTICS.md §3.5 lists as newer than 8.15.
	newerThan815 string
}

// knownClusterFeatures lists named cluster features the stored tests use.
var knownClusterFeatures = map[string]clusterFeature{
	// Historical features (RestTestLegacyFeatures in 8.x): named for the release that
	// brought them, present in every later one.
	"bulk_auto_id":       {since: []Version{{7, 5, 0}}},
	"bulk_require_alias": {since: []Version{{7, 10, 0}}},
	// PR #127968 / backport #128832: integer, short and byte sort as INT, so missing values
	// are 2147483647. In 9.1 and 8.19 (not 9.0).
	"search.sort.int_sort_for_int_short_byte_fields": {
		since:        []Version{{8, 19, 0}, {9, 1, 0}},
		newerThan815: "integer, short and byte fields sort as INT from 8.19/9.1 (PR #127968)",
	},
}

// hasFeature reports whether a cluster of version v has a feature, and whether the runner
// knows. Synthetic gte_vX.Y.Z features exist from release X.Y.Z on.
func hasFeature(v Version, name string) (present, known bool) {
	if rest, ok := strings.CutPrefix(name, "gte_v"); ok {
		w, err := ParseVersion(rest)
		if err != nil {
			return false, false
		}
		return !v.Less(w), true
	}
	f, ok := knownClusterFeatures[name]
	if !ok {
		return false, false
	}
	for i, since := range f.since {
		if v.Less(since) {
			continue
		}
		// Present in this line if v is below the next line's start or the next line has it too.
		if i+1 == len(f.since) || v.Major == since.Major {
			return true, true
		}
	}
	return false, true
}

// divergence is a test whose expectations describe behaviour newer than some release, where
// the test carries no gate that says so. It is keyed on the test file's path within the
// rest-api-spec test tree and, optionally, the section name.
type divergence struct {
	file    string // "search/630_format_sort_missing_dates.yml"
	section string // empty for every section
	before  Version
	reason  string
}

// knownDivergences lists the stored tests that assert post-8.15 behaviour behind gates an
// 8.15 cluster satisfies. 630_format_sort_missing_dates.yml requires only gte_v7.13.0 but tests
// PR #135899 (October 2025), which formats missing dates as null; 8.15 formats the sentinel or
// fails. The first release with the fix is UNCONFIRMED, so every release before 9.3.0 skips it.
var knownDivergences = []divergence{
	{file: "search/630_format_sort_missing_dates.yml", before: Version{9, 3, 0},
		reason: "behaviour newer than 8.15: missing dates sorted with a format render as null only since PR #135899 (2025-10); its gate gte_v7.13.0 does not say so"},
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/conform-dev/conform/conformance"
	"github.com/conform-dev/conform/conformance/target"
	"github.com/conform-dev/conform/fixtures"
	"github.com/conform-dev/conform/oracle"
)

func cmdExplain(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "explain", "CASE --target NAME=URL [--oracle SPEC] [--fixtures DIR]", `
Show one case whole: the request, a ready-to-paste curl for the target (and for a live oracle),
the expected and actual bodies trimmed around the differences, and every difference grouped by
class with its JSON path. Credentials never appear: curl commands read them from
$CONFORM_USER/$CONFORM_PASSWORD or $CONFORM_API_KEY.

CASE is a case name such as page/017 (conform check lists the failing ones). With no --target
it explains the case against the embedded engine. --full prints both bodies untrimmed.
Exit 0 when the case passes, 1 when it differs, 2 on an error.`,
		"conform explain page/017 --target gw=http://127.0.0.1:8080",
		"conform explain terms/004 --target os=https://127.0.0.1:9201 --oracle live:http://127.0.0.1:9200",
		"conform explain get/015 --target gw=http://127.0.0.1:8080 --full",
	)
	var targets listFlag
	fs.Var(&targets, "target", "the target as `NAME=URL`; none uses the embedded engine")
	var tf targetFlags
	tf.register(fs)
	var cf checkFlags
	cf.register(fs)
	fixturesDir := fs.String("fixtures", "", "read the corpus, mapping and workload from `DIR` (default: the built-in catalogue)")
	oracleSpec := fs.String("oracle", "embedded", "where the expected response comes from (`SPEC`): embedded, live:URL or golden:FILE")
	tth := fs.String("track-total-hits", envOr(e, "TRACK_TOTAL_HITS", "true"), "track_total_hits sent with every search: true, false or `N`")
	full := fs.Bool("full", false, "print both bodies whole instead of trimmed around the differences")
	// The case name may come before the flags, as the usage line shows.
	var name string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if name == "" && fs.NArg() > 0 {
		name = fs.Arg(0)
	} else if fs.NArg() > 0 {
		return usageErr("explain takes one case, got %q and %q", name, fs.Args())
	}
	if name == "" {
		return usageErr("explain needs a case name, such as page/017")
	}
	if len(targets) > 1 {
		return usageErr("explain takes one --target")
	}
	topts, err := tf.options(e)
	if err != nil {
		return err
	}
	opts, err := cf.options()
	if err != nil {
		return err
	}
	totalHits, err := fixtures.ParseTotalHits(*tth)
	if err != nil {
		return usageErr("--track-total-hits: %v", err)
	}
	f, err := loadFixtures(*fixturesDir)
	if err != nil {
		return err
	}
	c := f.Workload.Case(name)
	if c == nil {
		return usageErr("no case %q in the workload (names look like %s)", name, f.Workload.Cases[0].Name)
	}
	if len(targets) == 0 {
		srv, err := startEmbedded(f)
		if err != nil {
			return infra(err)
		}
		defer srv.Close()
		targets = listFlag{"embedded=" + srv.URL}
	}
	ts, err := parseTargets(targets, topts)
	if err != nil {
		return err
	}
	t := ts[0]
	x, err := expectations(ctx, e, *oracleSpec, topts, f, totalHits)
	if err != nil {
		return err
	}
	want := x.Get(name)
	var cursor []byte
	if c.After != "" {
		if cursor, err = oracle.Cursor(x.Get(c.After)); err != nil {
			return infra(fmt.Errorf("case %s: %w", name, err))
		}
	}
	req, err := t.Request(c, x.Settings.Index, x.Settings.TrackTotalHits, cursor)
	if err != nil {
		return infra(err)
	}
	w := e.stdout
	fmt.Fprintf(w, "case %s (%s) on target %s (%s), oracle %s, %s\n\n", name, c.Op, t.Name, t.Redacted(), x.Source, opts)
	fmt.Fprintf(w, "request: %s %s\n", req.Method, t.URL(req.Path))
	if len(req.Body) > 0 {
		fmt.Fprintf(w, "%s\n", indentJSON(req.Body))
	}
	if c.After != "" {
		fmt.Fprintf(w, "(search_after is the sort values of the last hit of %s, as the oracle answered it)\n", c.After)
	}
	for _, warn := range want.Warnings {
		fmt.Fprintf(w, "oracle warning: %s\n", warn)
	}
	fmt.Fprintf(w, "\ncurl for %s:\n  %s\n", t.Name, t.Curl(req))
	if url, ok := strings.CutPrefix(*oracleSpec, "live:"); ok {
		if ot, err := target.Parse("oracle="+url, target.Options{CAFile: topts.CAFile, Insecure: topts.Insecure}); err == nil {
			if oreq, err := c.Request(x.Settings.Index, x.Settings.TrackTotalHits, cursor); err == nil {
				fmt.Fprintf(w, "curl for the oracle:\n  %s\n", ot.Curl(oreq))
			}
		}
	}

	prepared, err := t.Prepare(req)
	if err != nil {
		return infra(err)
	}
	conn, err := t.Open(ctx, target.LayerLean, []*target.Prepared{prepared})
	if err != nil {
		return infra(fmt.Errorf("target %s: %w", t.Name, t.Scrub(err)))
	}
	defer conn.Close()
	ex, err := conn.Exchange(0)
	if err != nil {
		fmt.Fprintf(w, "\nno response: %v (class %s)\n", t.Scrub(err), target.ClassOf(err))
		return failed("case %s: no response from %s", name, t.Name)
	}
	exp, err := conformance.Compile(want.Status, want.Body)
	if err != nil {
		return infra(fmt.Errorf("the expected response of %s is unusable: %w", name, err))
	}
	res := exp.Check(ex.Status, ex.Body, opts)
	paths := res.Paths()
	show := func(title string, status int, body []byte) {
		fmt.Fprintf(w, "\n--- %s: status %d, %d bytes", title, status, len(body))
		if *full || len(paths) == 0 {
			fmt.Fprintf(w, "\n%s\n", indentJSON(body))
			return
		}
		trimmed, err := conformance.Trim(body, paths)
		if err != nil {
			fmt.Fprintf(w, " (not JSON: %v)\n%s\n", err, clipText(string(body), 2000))
			return
		}
		fmt.Fprintf(w, ", trimmed around the differences\n%s\n", trimmed)
	}
	show("expected ("+x.Source+")", want.Status, want.Body)
	show("actual ("+t.Name+")", ex.Status, ex.Body)
	fmt.Fprintf(w, "\n--- differences\n")
	var b bytes.Buffer
	conformance.Render(&b, res)
	w.Write(b.Bytes())
	if !res.Pass {
		return failed("case %s differs", name)
	}
	return nil
}

// indentJSON pretty-prints JSON, or returns the bytes as they are when they are not JSON.
func indentJSON(b []byte) string {
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return string(b)
	}
	return out.String()
}

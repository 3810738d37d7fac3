package conformtest

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/conform-dev/conform/conformance"
	"github.com/conform-dev/conform/conformance/lab"
	"github.com/conform-dev/conform/conformance/report"
	"github.com/conform-dev/conform/conformance/suite"
	"github.com/conform-dev/conform/conformance/target"
	"github.com/conform-dev/conform/fixtures"
)

// Option selects what Run and Check check, and how.
type Option func(*config)

type config struct {
	fixturesDir string
	oracle      string
	ops         []string
	tth         fixtures.TotalHits
	check       conformance.Options
	target      target.Options
	// requireReady makes a readiness finding stop the check (RequireReady).
	requireReady bool
	// err is the first option that could not be applied; Run and NewServer fail the test
	// with it, Check and Handler return it.
	err error
}

// Fixtures reads the corpus, mapping and workload from dir instead of the built-in catalogue.
func Fixtures(dir string) Option { return func(c *config) { c.fixturesDir = dir } }

// Oracle says where expected responses come from: "embedded" (the default), "golden:FILE" or
// "live:URL".
func Oracle(spec string) Option { return func(c *config) { c.oracle = spec } }

// Ops restricts the check to these operations: built-in (get, page, after, terms, counts) or
// the workload's own labels.
func Ops(ops ...string) Option { return func(c *config) { c.ops = ops } }

// TrackTotalHits is sent with every search that does not set it: "true" (the default),
// "false" or a non-negative threshold such as "10000". Any other value fails the test that
// uses the option (Run and NewServer call t.Fatalf; Check and Handler return the error).
func TrackTotalHits(v string) Option {
	return func(c *config) {
		tth, err := fixtures.ParseTotalHits(v)
		if err != nil {
			if c.err == nil {
				c.err = fmt.Errorf("conformtest.TrackTotalHits(%q): %w", v, err)
			}
			return
		}
		c.tth = tth
	}
}

// Relax relaxes the strict check by name (conformance.Relaxations lists them).
func Relax(r ...conformance.Relaxation) Option {
	return func(c *config) { c.check.Relax = append(c.check.Relax, r...) }
}

// Pedantic fails on the report-only classes too.
func Pedantic() Option { return func(c *config) { c.check.Pedantic = true } }

// TargetOptions sets how the URL is reached: credentials, CA, index override, timeout.
func TargetOptions(o target.Options) Option { return func(c *config) { c.target = o } }

// RequireReady makes a readiness finding (a mapping or sampled documents that are not the
// fixtures', a GET / that is not Elasticsearch's) stop the check with an error instead of
// failing a subtest of its own while the cases run: conform's --require-ready.
func RequireReady() Option { return func(c *config) { c.requireReady = true } }

func configure(opts []Option) (*config, *fixtures.Fixtures, error) {
	c := &config{oracle: "embedded", tth: fixtures.TotalHits("true")}
	for _, o := range opts {
		o(c)
	}
	if c.err != nil {
		return nil, nil, c.err
	}
	if err := c.check.Validate(); err != nil {
		return nil, nil, err
	}
	f, err := loadFixtures(c.fixturesDir)
	return c, f, err
}

func loadFixtures(dir string) (*fixtures.Fixtures, error) {
	if dir == "" {
		return fixtures.Default(), nil
	}
	return fixtures.Load(dir)
}

// Check runs the strict suite once against url and returns every case's outcome. Readiness
// comes first, as in conform check: a target that cannot be reached, has no index or does not
// hold exactly the corpus's number of documents is an error and nothing is checked; anything
// else it finds is in the run's Findings, and the cases run. A failing case is a value in the
// run; the error is for a check that could not be made.
func Check(ctx context.Context, url string, opts ...Option) (*suite.Run, error) {
	c, f, err := configure(opts)
	if err != nil {
		return nil, err
	}
	src, err := suite.OracleSource(c.oracle, c.target)
	if err != nil {
		return nil, err
	}
	x, err := suite.Expect(ctx, src, f, c.tth)
	if err != nil {
		return nil, err
	}
	t, err := target.Parse("target="+url, c.target)
	if err != nil {
		return nil, err
	}
	lb, err := lab.Open(ctx, lab.Config{RequireReady: c.requireReady}, f)
	if err != nil {
		return nil, err
	}
	defer lb.Close()
	return suite.Checker{Ready: lb.Ready}.Check(ctx, t, f, x, c.ops, &c.check)
}

// Run runs the strict suite against url as subtests of t, one per case, named like the case
// (page/017). A failing case's subtest fails with its differences by class and JSON path, the
// request, and a curl command that reproduces it. Each readiness finding is a failing subtest
// of its own, named readiness/KIND (readiness/mapping, readiness/sample), run first.
func Run(t *testing.T, url string, opts ...Option) {
	t.Helper()
	run, err := Check(t.Context(), url, opts...)
	if err != nil {
		t.Fatalf("conformtest: %v", err)
	}
	for _, f := range run.Findings {
		t.Run("readiness/"+f.Kind, func(t *testing.T) {
			t.Errorf("readiness: %s\n%s", f.Summary, strings.Join(f.Details, "\n"))
		})
	}
	for _, o := range run.Cases {
		t.Run(o.Case.Name, func(t *testing.T) {
			if o.Pass() {
				return
			}
			t.Errorf("%s [%s]\n%s", o.Case.Name, strings.Join(o.Classes(), ","), report.CaseFailure(run, o, nil))
		})
	}
	for _, d := range run.Declined {
		// A case the embedded oracle declines is skipped, saying what would check it.
		t.Run(d.Case.Name, func(t *testing.T) {
			t.Skipf("not checked: the embedded engine declines it (%s); give conformtest.Oracle(\"live:URL\") or a golden file", d.Reason)
		})
	}
	t.Logf("conformtest: %d of %d cases passed the strict check against oracle %s", len(run.Cases)-run.Failed, len(run.Cases), run.Oracle)
}

// Handler is the embedded Elasticsearch 8.15 engine preloaded with the corpus (Fixtures picks
// another): a stand-in for the backend Elasticsearch of a gateway under test.
func Handler(opts ...Option) (http.Handler, error) {
	_, f, err := configure(opts)
	if err != nil {
		return nil, err
	}
	return suite.Engine(f)
}

// NewServer serves Handler on a loopback httptest.Server, closed when tb's test ends.
func NewServer(tb testing.TB, opts ...Option) *httptest.Server {
	tb.Helper()
	h, err := Handler(opts...)
	if err != nil {
		tb.Fatalf("conformtest: %v", err)
	}
	srv := httptest.NewServer(h)
	tb.Cleanup(srv.Close)
	return srv
}

package lab_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/conform-dev/conform/conformance/lab"
	"github.com/conform-dev/conform/conformance/suite"
	"github.com/conform-dev/conform/conformance/target"
	"github.com/conform-dev/conform/fixtures"
	"github.com/conform-dev/conform/load"
	"github.com/conform-dev/conform/load/loadtest"
)

func generate(t *testing.T, docs int) *fixtures.Fixtures {
	t.Helper()
	o := fixtures.DefaultOptions
	o.Documents = docs
	o.Cases = fixtures.CaseCounts{Get: 1, Page: 1}
	f, err := fixtures.Generate(o)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// serve serves the embedded engine loaded with f and returns it as target "es".
func serve(t *testing.T, f *fixtures.Fixtures) *target.Target {
	t.Helper()
	eng, err := suite.Engine(f)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(eng)
	t.Cleanup(srv.Close)
	tg, err := target.Parse("es="+srv.URL, target.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

// Ready passes a target holding the fixtures' corpus and refuses one holding another.
func TestReady(t *testing.T) {
	f := generate(t, 300)
	for _, tc := range []struct {
		served *fixtures.Fixtures
		want   string // "" for ready
		why    string
	}{
		{f, "", "the corpus itself"},
		{generate(t, 200), "the corpus on es is not the fixtures' corpus: ", "a smaller corpus"},
	} {
		l, err := lab.Open(context.Background(), lab.Config{SampleDocs: 50}, f)
		if err != nil {
			t.Fatal(err)
		}
		ident, probes, err := l.Ready(context.Background(), serve(t, tc.served))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.why, err)
		case tc.want == "" && (len(ident) == 0 || probes["corpus"] == nil || probes["qdrant"] != nil):
			t.Errorf("%s: identity %s, probes %v; want an identity and the corpus probe alone", tc.why, ident, probes)
		case tc.want == "":
			if p := probes["corpus"].(*load.Probe); p.Sample.Docs != 50 || p.Count != 300 {
				t.Errorf("%s: sample of %d documents, count %d; want 50 and 300", tc.why, p.Sample.Docs, p.Count)
			}
		case err == nil || !strings.HasPrefix(err.Error(), tc.want):
			t.Errorf("%s: error %v, want one starting %q", tc.why, err, tc.want)
		}
		l.Close()
	}
}

// Open refuses a Qdrant address it cannot use, naming it.
func TestOpenBadQdrant(t *testing.T) {
	_, err := lab.Open(context.Background(), lab.Config{Qdrant: "localhost", Collection: "c"}, generate(t, 10))
	if err == nil || !strings.HasPrefix(err.Error(), "qdrant localhost: ") {
		t.Errorf("error %v, want one naming qdrant localhost", err)
	}
}

// Environment records the user's declarations as given, and docker's account or why there
// is none.
func TestEnvironmentDeclarations(t *testing.T) {
	l, err := lab.Open(context.Background(), lab.Config{
		Images: []string{"es=sha256:abc", "gw=sha256:def"}, Limits: []string{"es=2 CPUs, 4 GiB"},
		Containers: []string{"conform-test-no-such-container"},
	}, generate(t, 10))
	if err != nil {
		t.Fatal(err)
	}
	env := l.Environment(context.Background())
	for _, tc := range []struct{ name, key, want string }{
		{"es", "image_id", "sha256:abc"},
		{"es", "limits", "2 CPUs, 4 GiB"},
		{"gw", "image_id", "sha256:def"},
	} {
		if got := env[tc.name][tc.key]; got != tc.want {
			t.Errorf("%s.%s = %q, want %q", tc.name, tc.key, got, tc.want)
		}
	}
	if env["docker"] == nil {
		t.Errorf("no docker entry in %v", env)
	}
	if env["qdrant"] != nil {
		t.Errorf("a qdrant entry without a Qdrant backend: %v", env["qdrant"])
	}
}

// A target whose index holds another mapping variant is not ready, in run (Ready) and in check
// (MappingReady): the error names the variant and the field, and the log line says which
// variant the index holds either way.
func TestReadyComparesTheMapping(t *testing.T) {
	f := generate(t, 300)
	pd, err := fixtures.VariantMapping(fixtures.VariantPriceDouble)
	if err != nil {
		t.Fatal(err)
	}
	const want = "mapping differs from the fixtures': the index holds the price-double mapping, the fixtures are the designed mapping: price is double where the fixtures map scaled_float(100)"
	for _, tc := range []struct {
		mapping string
		err     string // "" for ready
		line    string
	}{
		{string(f.Mapping), "", "es: index catalogue: mapping: the designed mapping, as the fixtures\n"},
		{string(pd), want, "es: index catalogue: " + want + "\n"},
	} {
		es := loadtest.NewFakeES()
		docs := map[string]string{}
		for _, d := range f.Docs {
			docs[d.ID] = string(d.Source)
		}
		es.AddIndex("catalogue", docs)
		es.SetMapping("catalogue", tc.mapping)
		srv := httptest.NewServer(es)
		tg, err := target.Parse("es="+srv.URL, target.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var log strings.Builder
		l, err := lab.Open(context.Background(), lab.Config{SampleDocs: 50, Log: &log}, f)
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = l.Ready(context.Background(), tg)
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || err.Error() != tc.err) {
			t.Errorf("Ready: error %v, want %q", err, tc.err)
		}
		var check strings.Builder
		_, err = lab.MappingReady(context.Background(), tg, f, &check)
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || err.Error() != "es is not ready: "+tc.err) {
			t.Errorf("MappingReady: error %v, want %q", err, tc.err)
		}
		if log.String() != tc.line || check.String() != tc.line {
			t.Errorf("readiness lines %q and %q, want %q", log.String(), check.String(), tc.line)
		}
		srv.Close()
	}
}

// An experiment asks for readiness at every poll and round: the variant line is written once
// per target until it changes.
func TestReadyLogsTheVariantOnce(t *testing.T) {
	f := generate(t, 50)
	es := loadtest.NewFakeES()
	docs := map[string]string{}
	for _, d := range f.Docs {
		docs[d.ID] = string(d.Source)
	}
	es.AddIndex("catalogue", docs)
	es.SetMapping("catalogue", string(f.Mapping))
	srv := httptest.NewServer(es)
	defer srv.Close()
	tg, err := target.Parse("es="+srv.URL, target.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	l, err := lab.Open(context.Background(), lab.Config{SampleDocs: 10, Log: &log}, f)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, _, err := l.Ready(context.Background(), tg); err != nil {
			t.Fatal(err)
		}
	}
	if want := "es: index catalogue: mapping: the designed mapping, as the fixtures\n"; log.String() != want {
		t.Errorf("log %q, want %q once", log.String(), want)
	}
}

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

package lab_test

import (
	"context"
	"errors"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/conform-dev/conform/conformance"
	"github.com/conform-dev/conform/conformance/lab"
	"github.com/conform-dev/conform/conformance/readiness"
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
		{generate(t, 200), "the corpus on es is not the fixtures' corpus: index catalogue holds 200 documents, the corpus 300", "a smaller corpus"},
	} {
		l, err := lab.Open(context.Background(), lab.Config{SampleDocs: 50}, f)
		if err != nil {
			t.Fatal(err)
		}
		rr, err := l.Ready(context.Background(), serve(t, tc.served))
		ident, probes := rr.Identity, rr.Probes
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.why, err)
		case tc.want == "" && (len(ident) == 0 || probes["corpus"] == nil || probes["qdrant"] != nil || len(rr.Findings) > 0):
			t.Errorf("%s: identity %s, probes %v, findings %v; want an identity, the corpus probe alone and no finding", tc.why, ident, probes, rr.Findings)
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

// fakeES serves the fake Elasticsearch holding f's corpus under the given mapping, with
// wrap (when not nil) in front of it, as target "es".
func fakeES(t *testing.T, f *fixtures.Fixtures, mapping string, edit func(*loadtest.FakeES), docsEdit func(map[string]string), wrap func(http.Handler) http.Handler) *target.Target {
	t.Helper()
	es := loadtest.NewFakeES()
	docs := map[string]string{}
	for _, d := range f.Docs {
		docs[d.ID] = string(d.Source)
	}
	if docsEdit != nil {
		docsEdit(docs)
	}
	es.AddIndex("catalogue", docs)
	es.SetMapping("catalogue", mapping)
	if edit != nil {
		edit(es)
	}
	var h http.Handler = es
	if wrap != nil {
		h = wrap(es)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	tg, err := target.Parse("es="+srv.URL, target.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

// What readiness finds without stopping: another mapping variant (named, with the field), a
// mapping that cannot be read, sampled documents that differ, a GET / that is not
// Elasticsearch's. Each is a finding, the target is ready, and the log says each once;
// RequireReady refuses the same target, naming the findings. A wrong count or a missing index
// stops it either way.
func TestReadyFindings(t *testing.T) {
	f := generate(t, 300)
	pd, err := fixtures.VariantMapping(fixtures.VariantPriceDouble)
	if err != nil {
		t.Fatal(err)
	}
	const variant = "mapping differs from the fixtures': the index holds the price-double mapping, the fixtures are the designed mapping: price is double where the fixtures map scaled_float(100)"
	html := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/" {
				w.Header().Set("Content-Type", "text/html")
				io.WriteString(w, "<!DOCTYPE html>\n<html>\n<head><title>Login</title></head>\n<body>\nsign in\n</body>\n</html>\n")
				return
			}
			h.ServeHTTP(w, r)
		})
	}
	first := f.Docs[0].ID
	for _, tc := range []struct {
		why      string
		mapping  string
		edit     func(*loadtest.FakeES)
		docs     func(map[string]string)
		wrap     func(http.Handler) http.Handler
		findings string // kind: summary, one per line
		err      string // a stop
	}{
		{why: "the fixtures' own corpus and mapping", mapping: string(f.Mapping)},
		{why: "the price-double variant", mapping: string(pd), findings: variant},
		{why: "a mapping API that answers 405", mapping: string(f.Mapping), edit: func(es *loadtest.FakeES) { es.NoMappingAPI = true },
			findings: "mapping: the mapping of index catalogue could not be read, so its field types were not compared with the fixtures' (GET /catalogue/_mapping answered HTTP 405)"},
		{why: "a sampled document that differs", mapping: string(f.Mapping), docs: func(docs map[string]string) {
			docs[first] = strings.Replace(docs[first], `"sku":"`, `"sku":"X`, 1)
		}, findings: "sample: 1 of the 50 sampled documents (GET /catalogue/_doc/{id}) differ from the corpus; the first: source \"" + first + "\""},
		{why: "GET / answering a login page", mapping: string(f.Mapping), wrap: html,
			findings: "identity: GET / answered 200 with a body that is not Elasticsearch's (no JSON object with version.number): <!DOCTYPE html>… (7 lines, 88 bytes)"},
		{why: "a document too many", mapping: string(f.Mapping), docs: func(docs map[string]string) {
			docs["extra"] = `{"sku":"extra"}`
		}, err: "the corpus on es is not the fixtures' corpus: index catalogue holds 301 documents, the corpus 300"},
		{why: "no index", mapping: string(f.Mapping), wrap: func(h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if strings.HasPrefix(r.URL.Path, "/catalogue") {
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(404)
					io.WriteString(w, `{"error":{"type":"index_not_found_exception","reason":"no such index [catalogue]"},"status":404}`)
					return
				}
				h.ServeHTTP(w, r)
			})
		}, err: "there is no index catalogue (GET /catalogue/_count: HTTP 404: "},
	} {
		t.Run(tc.why, func(t *testing.T) {
			for _, strict := range []bool{false, true} {
				tg := fakeES(t, f, tc.mapping, tc.edit, tc.docs, tc.wrap)
				var log strings.Builder
				l, err := lab.Open(context.Background(), lab.Config{SampleDocs: 50, Log: &log, RequireReady: strict}, f)
				if err != nil {
					t.Fatal(err)
				}
				rr, err := l.Ready(context.Background(), tg)
				var got []string
				for _, f := range rr.Findings {
					if f.Target != "es" {
						t.Errorf("finding for target %q, want es", f.Target)
					}
					got = append(got, f.String())
				}
				switch {
				case tc.err != "":
					if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
						t.Errorf("error %v, want one starting %q", err, tc.err)
					}
				case strict && tc.findings != "":
					var refused *readiness.Refused
					if !errors.As(err, &refused) || !strings.Contains(err.Error(), "1 finding refused at readiness (--require-ready): "+tc.findings[:20]) {
						t.Errorf("strict: error %v, want a refusal naming %q", err, tc.findings)
					}
				case err != nil:
					t.Errorf("error %v, want ready", err)
				case !strings.HasPrefix(strings.Join(got, "\n"), tc.findings) || (tc.findings == "") != (len(got) == 0):
					t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), tc.findings)
				case tc.findings != "" && !strings.Contains(log.String(), "es: FINDING "+tc.findings[:20]):
					t.Errorf("log %q does not say the finding", log.String())
				}
			}
		})
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
		if _, err := l.Ready(context.Background(), tg); err != nil {
			t.Fatal(err)
		}
	}
	if want := "es: index catalogue: mapping: the designed mapping, as the fixtures\n"; log.String() != want {
		t.Errorf("log %q, want %q once", log.String(), want)
	}
}

// Ready learns the facts of the target's index the relation rule needs: the deleted documents
// GET /{index}/_stats/docs reports (assumed when it cannot say, and said in the log, not as a
// finding), and the corpus's multi-valued fields.
func TestReadyIndexFacts(t *testing.T) {
	f := generate(t, 50)
	sources := make([][]byte, len(f.Docs))
	for i, d := range f.Docs {
		sources[i] = d.Source
	}
	wantMulti := conformance.MultiValuedFields(sources)
	for _, tc := range []struct {
		name    string
		deleted int64
		noStats bool
		want    conformance.Deletions
		log     string // a line of the log holds it; "" for no deletions line
	}{
		{"none", 0, false, conformance.DeletionsNone, ""},
		{"some", 7, false, conformance.DeletionsSome, "es: index catalogue holds 7 deleted documents (GET /catalogue/_stats/docs)"},
		{"not served", 0, true, conformance.DeletionsUnknown, "es: the deleted documents of index catalogue are not known (GET /catalogue/_stats/docs: HTTP 405"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			es := loadtest.NewFakeES()
			es.Deleted, es.NoStats = tc.deleted, tc.noStats
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
			rr, err := l.Ready(context.Background(), tg)
			if err != nil {
				t.Fatal(err)
			}
			if rr.Index.Deletions != tc.want || len(rr.Findings) != 0 {
				t.Errorf("deletions %s, findings %v; want %s and no finding", rr.Index.Deletions, rr.Findings, tc.want)
			}
			if !maps.Equal(rr.Index.MultiValued, wantMulti) || rr.Index.MultiValued == nil {
				t.Errorf("multi-valued %v, want the corpus's %v", rr.Index.MultiValued, wantMulti)
			}
			if d, ok := rr.Probes["deletions"].(load.Deletions); !ok || d.Known == tc.noStats {
				t.Errorf("probes record deletions %#v", rr.Probes["deletions"])
			}
			got := strings.Contains(log.String(), "deleted documents")
			if tc.log == "" && got || tc.log != "" && !strings.Contains(log.String(), tc.log) {
				t.Errorf("log %q, want a line holding %q", log.String(), tc.log)
			}
		})
	}
}

package oracle

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/conform-dev/conform/fixtures"
)

func TestParseSource(t *testing.T) {
	tests := []struct {
		spec, name, err, reason string
	}{
		{"", "embedded", "", "the default"},
		{"embedded", "embedded", "", "by name"},
		{"embedded:x", "", "embedded takes no argument", "no argument"},
		{"live:http://127.0.0.1:9200", "live:http://127.0.0.1:9200", "", "plain URL"},
		{"live:https://elastic:s3cret@es.example:9243/prefix/", "live:https://***@es.example:9243/prefix", "", "credentials redacted, prefix kept"},
		{"live:", "", "needs a URL", "empty URL"},
		{"live:ftp://es", "", "scheme must be http or https", "scheme"},
		{"live:http://", "", "no host", "no host"},
		{"live:http://es:9200/?pretty", "", "query string", "no query string"},
		{"golden:testdata/es.golden.json", "golden:testdata/es.golden.json", "", "file"},
		{"golden:", "", "needs a file", "empty file"},
		{"opensearch", "", "unknown oracle", "unknown kind"},
		{"http://elastic:s3cret@es:9200", "", "want embedded, live:URL or golden:FILE", "a URL without live: must not echo the password"},
	}
	for _, tt := range tests {
		src, err := ParseSource(tt.spec)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseSource(%q) error %v, want %q (%s)", tt.spec, err, tt.err, tt.reason)
			}
			if err != nil && strings.Contains(err.Error(), "s3cret") {
				t.Errorf("ParseSource(%q) error shows the password: %v", tt.spec, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseSource(%q): %v (%s)", tt.spec, err, tt.reason)
			continue
		}
		if src.Name() != tt.name {
			t.Errorf("ParseSource(%q).Name() = %q, want %q (%s)", tt.spec, src.Name(), tt.name, tt.reason)
		}
	}
}

func liveFixtures() (*fixtures.Fixtures, *fakeEngine) {
	return fakeFixtures(fakeWorkload(), fakeDocs()), &fakeEngine{index: "cat", docs: fakeDocs()}
}

func TestLiveExpect(t *testing.T) {
	f, fe := liveFixtures()
	srv := fakeServer(t, fe, "/es", true)
	url := strings.Replace(srv.URL, "http://", "http://user:s3cret@", 1) + "/es"
	src, err := ParseSource("live:" + url)
	if err != nil {
		t.Fatal(err)
	}
	x, err := src.Expect(context.Background(), f, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if x.Source != src.Name() || strings.Contains(x.Source, "s3cret") || !strings.Contains(x.Source, "***@") {
		t.Errorf("Source = %q, want the redacted URL", x.Source)
	}
	if x.Engine == nil || x.Engine.Version != "8.15.0" || len(x.Caveats) != 0 {
		t.Errorf("engine %+v caveats %q, want 8.15.0 and none", x.Engine, x.Caveats)
	}
	// The same answers as asking the engine in process: the transport adds nothing.
	direct, err := Compute(context.Background(), f.Workload, Settings{}, (&fakeEngine{index: "cat", docs: fakeDocs()}).do)
	if err != nil {
		t.Fatal(err)
	}
	if x.Hash() != direct.Hash() {
		t.Errorf("live hash %s, in-process hash %s", x.Hash(), direct.Hash())
	}
}

func TestLiveRefusals(t *testing.T) {
	tests := []struct {
		name   string
		root   string
		docs   int
		url    func(u string) string
		want   []string
		reason string
	}{
		{"wrong password", "", 0, func(u string) string { return strings.Replace(u, "http://", "http://user:wrong@", 1) },
			[]string{"GET / on http://***@", "HTTP 401", "security_exception"}, "auth failure is reported without the password"},
		{"opensearch", `{"version":{"distribution":"opensearch","number":"3.9.0","build_type":"tar"},"tagline":"The OpenSearch Project: https://opensearch.org/"}`, 0,
			nil, []string{"is opensearch 3.9.0, not Elasticsearch", "the oracle must be Elasticsearch"}, "OpenSearch is not an oracle"},
		{"count", "", 1, nil, []string{"index cat on http://***@", "holds 10 documents but the corpus has 11"}, "an index without the corpus is refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, fe := liveFixtures()
			fe.root = tt.root
			for range tt.docs {
				f.Docs = append(f.Docs, fixtures.Doc{ID: "extra", Source: []byte(`{}`)})
			}
			srv := fakeServer(t, fe, "", true)
			url := strings.Replace(srv.URL, "http://", "http://user:s3cret@", 1)
			if tt.url != nil {
				url = tt.url(srv.URL)
			}
			src, err := ParseSource("live:" + url)
			if err != nil {
				t.Fatal(err)
			}
			_, err = src.Expect(context.Background(), f, Settings{})
			if err == nil {
				t.Fatalf("accepted (%s)", tt.reason)
			}
			for _, sub := range tt.want {
				if !strings.Contains(err.Error(), sub) {
					t.Errorf("error %q does not contain %q (%s)", err, sub, tt.reason)
				}
			}
			if strings.Contains(err.Error(), "s3cret") || strings.Contains(err.Error(), "wrong") {
				t.Errorf("error shows credentials: %v", err)
			}
		})
	}
}

func TestLiveOtherVersionIsACaveat(t *testing.T) {
	f, fe := liveFixtures()
	fe.root = `{"version":{"number":"8.14.3","build_flavor":"default"}}`
	srv := fakeServer(t, fe, "", false)
	x, err := (&Live{Endpoint: mustEndpoint(t, srv.URL)}).Expect(context.Background(), f, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if len(x.Caveats) != 1 || !strings.Contains(x.Caveats[0], "Elasticsearch 8.14.3, not 8.15.x") {
		t.Errorf("caveats %q, want one about 8.14.3", x.Caveats)
	}
	if w := x.Warnings(); len(w) != 1 || w[0] != x.Caveats[0] {
		t.Errorf("Warnings() = %q, want the caveat first", w)
	}
}

func TestHTTPEndpointTransportErrorHidesCredentials(t *testing.T) {
	f, fe := liveFixtures()
	srv := fakeServer(t, fe, "", true)
	url := strings.Replace(srv.URL, "http://", "http://user:s3cret@", 1)
	srv.Close()
	_, err := (&Live{Endpoint: mustEndpoint(t, url)}).Expect(context.Background(), f, Settings{})
	if err == nil || strings.Contains(err.Error(), "s3cret") || strings.Contains(err.Error(), "user:") {
		t.Fatalf("err = %v, want a connection error without credentials", err)
	}
}

func mustEndpoint(t *testing.T, url string) *HTTPEndpoint {
	t.Helper()
	ep, err := NewHTTPEndpoint(url)
	if err != nil {
		t.Fatal(err)
	}
	ep.Client = &http.Client{}
	return ep
}

func TestRecord(t *testing.T) {
	f, fe := liveFixtures()
	srv := fakeServer(t, fe, "", false)
	defer func(old func() time.Time) { now = old }(now)
	now = func() time.Time { return recordedAt }
	var out bytes.Buffer
	rec, err := Record(context.Background(), f, Settings{}, mustEndpoint(t, srv.URL), &out)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "rec.golden.json")
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	g := &Golden{Path: path}
	x, err := g.Expect(context.Background(), f, Settings{})
	if err != nil {
		t.Fatalf("the recording does not load: %v", err)
	}
	if x.Hash() != rec.Expectations.Hash() || !g.Header.RecordedAt.Equal(recordedAt) || g.Header.Source != "live:"+srv.URL {
		t.Errorf("loaded hash %s source %s at %v; recorded %s", x.Hash(), g.Header.Source, g.Header.RecordedAt, rec.Expectations.Hash())
	}
}

func TestRecordRefusals(t *testing.T) {
	t.Run("ties", func(t *testing.T) {
		w := fakeWorkload()
		w.Cases = append(w.Cases,
			searchCase("page/001", `{"size":2,"query":{"term":{"group":"B"}},"sort":[{"k":"asc"}]}`, ""),
			searchCase("page/002", `{"size":2,"query":{"term":{"group":"B"}}}`, ""))
		f := fakeFixtures(w, fakeDocs())
		srv := fakeServer(t, &fakeEngine{index: "cat", docs: fakeDocs()}, "", false)
		var out bytes.Buffer
		_, err := Record(context.Background(), f, Settings{}, mustEndpoint(t, srv.URL), &out)
		var unsettled *UnsettledError
		if !errors.As(err, &unsettled) {
			t.Fatalf("err = %v, want an UnsettledError", err)
		}
		if len(unsettled.Cases) != 2 || !strings.HasPrefix(unsettled.Cases[0], "page/001: page boundary inside a tie") ||
			!strings.HasPrefix(unsettled.Cases[1], "page/002: page boundary inside a tie") {
			t.Errorf("unsettled cases %q, want page/001 and page/002", unsettled.Cases)
		}
		if !strings.Contains(err.Error(), "page/001") || !strings.Contains(err.Error(), "page/002") {
			t.Errorf("the error does not list the cases: %v", err)
		}
		if out.Len() != 0 {
			t.Errorf("wrote %d bytes despite refusing", out.Len())
		}
	})
	t.Run("not elasticsearch", func(t *testing.T) {
		f, fe := liveFixtures()
		fe.root = `{"version":{"distribution":"opensearch","number":"3.9.0"}}`
		srv := fakeServer(t, fe, "", false)
		var out bytes.Buffer
		_, err := Record(context.Background(), f, Settings{}, mustEndpoint(t, srv.URL), &out)
		if err == nil || !strings.Contains(err.Error(), "not Elasticsearch") || out.Len() != 0 {
			t.Fatalf("err = %v, wrote %d bytes; want a refusal and nothing written", err, out.Len())
		}
	})
}

// doerSource is a Source over a fake engine.
type doerSource struct {
	name string
	fe   *fakeEngine
}

func (d doerSource) Name() string { return d.name }
func (d doerSource) Expect(ctx context.Context, f *fixtures.Fixtures, s Settings) (*Expectations, error) {
	x, err := Compute(ctx, f.Workload, s, d.fe.do)
	if err != nil {
		return nil, err
	}
	x.Source = d.name
	return x, nil
}

func TestVerify(t *testing.T) {
	f, _ := liveFixtures()
	live := doerSource{"live:fake", &fakeEngine{index: "cat", docs: fakeDocs()}}
	// The embedded engine lost a2, so page/000 ends on a3 and after/000 continues from it.
	docs := fakeDocs()
	docs = append(docs[:1], docs[2:]...)
	embedded := doerSource{"embedded", &fakeEngine{index: "cat", docs: docs}}
	cmp := func(want, got *Expected) []string {
		if want.Status != got.Status || !bytes.Equal(CanonicalBody(want.Body), CanonicalBody(got.Body)) {
			return []string{"answer differs"}
		}
		return nil
	}
	v, err := Verify(context.Background(), f, Settings{}, embedded, live, cmp)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range v.Mismatches {
		names = append(names, m.Case)
	}
	if got := strings.Join(names, " "); got != "after/000 page/000" {
		t.Fatalf("mismatches %q, want after/000 page/000 (workload order); get/000 and counts/000 agree", got)
	}
	after := v.Mismatches[0]
	if len(after.Differences) != 2 || !strings.Contains(after.Differences[0], "request: live asked") ||
		!strings.Contains(after.Differences[0], `"search_after":[2,2]`) || !strings.Contains(after.Differences[0], `"search_after":[3,3]`) {
		t.Errorf("after/000 differences %q, want the differing cursor and the answer", after.Differences)
	}
	if after.Live == nil || after.Embedded == nil {
		t.Error("a mismatch must carry both answers")
	}
	if v.Live.Source != "live:fake" || v.Embedded.Source != "embedded" {
		t.Errorf("sources %s, %s", v.Live.Source, v.Embedded.Source)
	}
}

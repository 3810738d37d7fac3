package suite_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/conform-dev/conform/conformance/suite"
	"github.com/conform-dev/conform/conformance/target"
	"github.com/conform-dev/conform/fixtures"
	"github.com/conform-dev/conform/oracle"
)

// TestLiveOracle: a live oracle is reached with the URL's own userinfo and the shared TLS and
// timeout options, never with the target's credentials or index.
func TestLiveOracle(t *testing.T) {
	var gotAuth []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotAuth = append(gotAuth, r.Header.Get("Authorization"))
		w.Write([]byte("{}"))
	}))
	defer srv.Close()
	targetOpts := target.Options{Username: "gw-user", Password: "gw-secret", APIKey: "gw-key", Index: "gw-alias", Timeout: 7 * time.Second}

	for _, tc := range []struct {
		url, wantAuth, reason string
	}{
		{srv.URL, "none", "the target's user and API key are dropped"},
		{strings.Replace(srv.URL, "http://", "http://es:pw@", 1), "basic (user es)", "the URL's userinfo is the oracle's own"},
	} {
		gotAuth = nil
		o, err := suite.LiveOracle(tc.url, targetOpts)
		if err != nil {
			t.Fatalf("%s: %v", tc.reason, err)
		}
		if o.Name != "oracle" || o.Auth() != tc.wantAuth || o.IndexFor("products") != "products" || strings.Contains(o.Redacted(), "pw") {
			t.Errorf("%s: LiveOracle(%s) = name %q, auth %q, index %q, shown %q", tc.reason, o.Redacted(), o.Name, o.Auth(), o.IndexFor("products"), o.Redacted())
		}
		if _, _, err := suite.Endpoint(o).Do(context.Background(), "GET", "/", nil); err != nil {
			t.Fatalf("%s: %v", tc.reason, err)
		}
		if len(gotAuth) != 1 || strings.Contains(gotAuth[0], "ApiKey") || (tc.wantAuth == "none") != (gotAuth[0] == "") {
			t.Errorf("%s: Authorization sent = %q", tc.reason, gotAuth)
		}
	}

	src, err := suite.OracleSource("live:"+srv.URL, targetOpts)
	if err != nil {
		t.Fatal(err)
	}
	if want := "live:" + srv.URL; src.Name() != want {
		t.Errorf("OracleSource(live:URL).Name() = %q, want %q", src.Name(), want)
	}
	if _, err := suite.LiveOracle("", targetOpts); err == nil || !strings.Contains(err.Error(), `target "oracle="`) {
		t.Errorf("LiveOracle(\"\") = %v, want the target parse error", err)
	}
}

// LiveTarget is the target a live oracle from OracleSource is reached through; other sources
// have none.
func TestLiveTarget(t *testing.T) {
	targetOpts := target.Options{Username: "gw-user", Password: "gw-secret", Index: "gw-alias"}
	src, err := suite.OracleSource("live:http://es:pw@127.0.0.1:1", targetOpts)
	if err != nil {
		t.Fatal(err)
	}
	lt, ok := suite.LiveTarget(src)
	want, err := suite.LiveOracle("http://es:pw@127.0.0.1:1", targetOpts)
	if err != nil {
		t.Fatal(err)
	}
	if !ok || lt.Name != want.Name || lt.Redacted() != want.Redacted() || lt.Auth() != want.Auth() || lt.IndexFor("products") != "products" {
		t.Errorf("LiveTarget = %v, %v; want LiveOracle's target %s", lt, ok, want.Redacted())
	}
	for _, spec := range []string{"embedded", "golden:es.golden.json"} {
		src, err := suite.OracleSource(spec, targetOpts)
		if err != nil {
			t.Fatal(err)
		}
		if lt, ok := suite.LiveTarget(src); ok || lt != nil {
			t.Errorf("LiveTarget(%s) = %v, %v; want none", spec, lt, ok)
		}
	}
	// A live source not made by OracleSource has no target to show.
	ep, err := oracle.NewHTTPEndpoint("http://127.0.0.1:1")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := suite.LiveTarget(&oracle.Live{Endpoint: ep}); ok {
		t.Error("LiveTarget of another endpoint found a target")
	}
}

// ExpectCase asks an embedded (or live) oracle for the case and the page it continues only, and
// reads a golden file whole.
func TestExpectCase(t *testing.T) {
	fx := smallFixtures(t)
	c := fx.Workload.Case("after/001")
	embedded, err := suite.OracleSource("embedded", target.Options{})
	if err != nil {
		t.Fatal(err)
	}
	x, err := suite.ExpectCase(context.Background(), embedded, fx, c, fixtures.TotalHits("true"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range x.Cases {
		names = append(names, e.Request.Case)
	}
	if want := []string{c.After, c.Name}; !slices.Equal(names, want) && !slices.Equal(names, []string{c.Name, c.After}) {
		t.Errorf("embedded: expectations of %v, want %v alone", names, want)
	}

	// A golden file of the whole workload, as if recorded from a live Elasticsearch: narrowed
	// fixtures would not match it.
	embeddedWhole := expect(t, fx)
	whole := oracle.NewExpectations("live:http://127.0.0.1:9200", embeddedWhole.Settings, embeddedWhole.Cases)
	path := filepath.Join(t.TempDir(), "golden.json")
	var b bytes.Buffer
	if err := oracle.WriteExpectations(&b, whole, fx.Meta, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	golden, err := suite.OracleSource("golden:"+path, target.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g, err := suite.ExpectCase(context.Background(), golden, fx, c, fixtures.TotalHits("true"))
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Cases) != len(fx.Workload.Cases) || g.Get(c.Name) == nil {
		t.Errorf("golden: %d expectations, want the whole workload's %d", len(g.Cases), len(fx.Workload.Cases))
	}
}

package suite_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/conform-dev/conform/conformance/suite"
	"github.com/conform-dev/conform/conformance/target"
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

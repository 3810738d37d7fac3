package target

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/conform-dev/conform/fixtures"
)

func TestParse(t *testing.T) {
	tests := []struct {
		why    string
		spec   string
		opts   Options
		name   string
		url    string // Redacted()
		prefix string
		dial   string
		auth   string
		index  string
	}{
		{why: "named spec", spec: "es=http://127.0.0.1:9200", name: "es", url: "http://127.0.0.1:9200", dial: "127.0.0.1:9200", auth: "none"},
		{why: "bare URL is named by its host and port", spec: "http://127.0.0.1:9201", name: "127.0.0.1:9201", url: "http://127.0.0.1:9201", dial: "127.0.0.1:9201", auth: "none"},
		{why: "bare URL without port is named by its host", spec: "https://Search.Example.com", name: "search.example.com", url: "https://Search.Example.com", dial: "Search.Example.com:443", auth: "none"},
		{why: "http without port dials 80", spec: "gw=http://gateway", name: "gw", url: "http://gateway", dial: "gateway:80", auth: "none"},
		{why: "path is a prefix, trailing slash dropped", spec: "gw=http://host:8080/es/", name: "gw", url: "http://host:8080/es", prefix: "/es", dial: "host:8080", auth: "none"},
		{why: "root path is no prefix", spec: "gw=http://host:8080/", name: "gw", url: "http://host:8080", dial: "host:8080", auth: "none"},
		{why: "userinfo gives basic auth and is redacted", spec: "es=http://elastic:s3cret@127.0.0.1:9200", name: "es", url: "http://elastic:***@127.0.0.1:9200", dial: "127.0.0.1:9200", auth: "basic (user elastic)"},
		{why: "percent-encoded password in userinfo", spec: "es=http://elastic:p%40ss%2Fword@h:1", name: "es", url: "http://elastic:***@h:1", dial: "h:1", auth: "basic (user elastic)"},
		{why: "flags give basic auth", spec: "es=http://h:1", opts: Options{Username: "u", Password: "pw"}, name: "es", url: "http://u:***@h:1", dial: "h:1", auth: "basic (user u)"},
		{why: "userinfo wins over flags", spec: "es=http://url:urlpw@h:1", opts: Options{Username: "flag", Password: "flagpw"}, name: "es", url: "http://url:***@h:1", dial: "h:1", auth: "basic (user url)"},
		{why: "api key is not in the URL", spec: "es=http://h:1", opts: Options{APIKey: "a2V5OnZhbHVl"}, name: "es", url: "http://h:1", dial: "h:1", auth: "api key"},
		{why: "index override", spec: "es=http://h:1", opts: Options{Index: "products-v2"}, name: "es", url: "http://h:1", dial: "h:1", auth: "none", index: "products-v2"},
		{why: "spaces around the spec", spec: "  es=http://h:1 ", name: "es", url: "http://h:1", dial: "h:1", auth: "none"},
	}
	for _, tc := range tests {
		t.Run(tc.why, func(t *testing.T) {
			tg, err := Parse(tc.spec, tc.opts)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tc.spec, err)
			}
			if tg.Name != tc.name || tg.Redacted() != tc.url || tg.Prefix != tc.prefix || tg.dialAddr != tc.dial || tg.Auth() != tc.auth || tg.Index != tc.index {
				t.Errorf("Parse(%q) = name %q url %q prefix %q dial %q auth %q index %q\nwant         name %q url %q prefix %q dial %q auth %q index %q",
					tc.spec, tg.Name, tg.Redacted(), tg.Prefix, tg.dialAddr, tg.Auth(), tg.Index,
					tc.name, tc.url, tc.prefix, tc.dial, tc.auth, tc.index)
			}
			if tg.Timeout != DefaultTimeout {
				t.Errorf("timeout %v, want the default %v", tg.Timeout, DefaultTimeout)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		why  string
		spec string
		opts Options
		want string // a substring of the error
	}{
		{"empty", "", Options{}, "no URL"},
		{"name without URL", "es=", Options{}, "no URL"},
		{"no scheme", "127.0.0.1:9200", Options{}, "needs a scheme"},
		{"no scheme, named", "es=localhost:9200", Options{}, "needs a scheme"},
		{"other scheme", "es=ftp://h", Options{}, "not http or https"},
		{"no host", "es=http:///x", Options{}, "no host"},
		{"query", "es=http://h:1/?pretty", Options{}, "query or fragment"},
		{"fragment", "es=http://h:1/#x", Options{}, "query or fragment"},
		{"bad name", "my es=http://h:1", Options{}, "use letters, digits"},
		{"name starting with a dash", "-es=http://h:1", Options{}, "use letters, digits"},
		{"basic and api key", "es=http://u:p@h:1", Options{APIKey: "k"}, "use one"},
		{"user with colon from flags", "es=http://h:1", Options{Username: "a:b", Password: "p"}, "cannot contain ':'"},
		{"upper-case index", "es=http://h:1", Options{Index: "Products"}, "lowercase"},
		{"index with slash", "es=http://h:1", Options{Index: "a/b"}, "must not contain"},
		{"index starting with underscore", "es=http://h:1", Options{Index: "_all"}, "must not start"},
		{"negative timeout", "es=http://h:1", Options{Timeout: -time.Second}, "negative"},
		{"missing CA file", "es=https://h:1", Options{CAFile: "/nonexistent/ca.pem"}, "reading CA file"},
		{"bad port", "es=http://h:port", Options{}, "not a valid URL"},
	}
	for _, tc := range tests {
		t.Run(tc.why, func(t *testing.T) {
			_, err := Parse(tc.spec, tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Parse(%q) error = %v, want one containing %q", tc.spec, err, tc.want)
			}
		})
	}
}

func TestParseCAFileWithoutCertificates(t *testing.T) {
	f := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(f, []byte("not a certificate\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Parse("es=https://h:1", Options{CAFile: f}); err == nil || !strings.Contains(err.Error(), "no PEM certificate") {
		t.Fatalf("error = %v, want a CA file without certificates reported", err)
	}
}

func TestParseAllRejectsDuplicateNames(t *testing.T) {
	if _, err := ParseAll([]string{"http://127.0.0.1:9200", "es=http://h:1", "http://127.0.0.1:9200/x"}, Options{}); err == nil || !strings.Contains(err.Error(), `"127.0.0.1:9200"`) {
		t.Fatalf("error = %v, want the duplicate name reported", err)
	}
	ts, err := ParseAll([]string{"es=http://127.0.0.1:9200", "os=http://127.0.0.1:9201"}, Options{})
	if err != nil || len(ts) != 2 {
		t.Fatalf("ParseAll = %v, %v", ts, err)
	}
}

// Parse errors must not repeat a password even when the URL does not parse.
func TestParseErrorsNeverShowThePassword(t *testing.T) {
	for _, spec := range []string{
		"es=http://elastic:hunter2@h:port",      // bad port after valid userinfo
		"es=http://elastic:hun/ter2@h:1",        // unescaped '/' in the password
		"es=http://elastic:hunter2@h:1/?pretty", // query
		"es=ftp://elastic:hunter2@h:1",          // scheme
		"elastic:hunter2@h:1",                   // no scheme
		"es=http://elastic:hun ter2@h:1",        // space
	} {
		_, err := Parse(spec, Options{})
		if err == nil {
			t.Errorf("Parse(%q) succeeded, want an error", spec)
			continue
		}
		if strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "ter2") {
			t.Errorf("Parse(%q) error shows the password: %v", spec, err)
		}
	}
}

func TestRedactedForms(t *testing.T) {
	tg, err := Parse("es=http://elastic:hunter2@127.0.0.1:9200/es", Options{})
	if err != nil {
		t.Fatal(err)
	}
	key, err := Parse("cloud=https://h:443", Options{APIKey: "c2VjcmV0LWFwaS1rZXk="})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := tg.String(), "es=http://elastic:***@127.0.0.1:9200/es"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if got, want := key.String(), "cloud=https://h:443 (api key)"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	holder := struct{ T *Target }{tg}
	for _, s := range []string{
		fmt.Sprint(tg), fmt.Sprintf("%v", *tg), fmt.Sprintf("%+v", *tg), fmt.Sprintf("%#v", *tg),
		fmt.Sprintf("%#v", tg), fmt.Sprintf("%d", *tg), fmt.Sprintf("%x", *tg), fmt.Sprintf("%+v", holder),
		fmt.Sprint(key), fmt.Sprintf("%+v", *key), fmt.Sprintf("%#v", *key),
	} {
		for _, secret := range []string{"hunter2", "c2VjcmV0LWFwaS1rZXk=", "ZWxhc3RpYzpodW50ZXIy"} {
			if strings.Contains(s, secret) {
				t.Errorf("a printed form shows a secret: %s", s)
			}
		}
	}
}

func TestScrub(t *testing.T) {
	tg, err := Parse("es=http://elastic:hunter2@127.0.0.1:9200", Options{})
	if err != nil {
		t.Fatal(err)
	}
	in := errors.New(`Get "http://elastic:hunter2@127.0.0.1:9200/": auth "Basic ZWxhc3RpYzpodW50ZXIy" failed; also https://bob:other@x/y`)
	got := tg.Scrub(in).Error()
	for _, secret := range []string{"hunter2", "ZWxhc3RpYzpodW50ZXIy", "other"} {
		if strings.Contains(got, secret) {
			t.Errorf("Scrub left %q in %q", secret, got)
		}
	}
	if !strings.Contains(got, "http://elastic:***@127.0.0.1:9200/") || !strings.Contains(got, "https://bob:***@x/y") {
		t.Errorf("Scrub(%q) = %q, want the URLs kept with userinfo redacted", in, got)
	}
	if tg.Scrub(nil) != nil {
		t.Error("Scrub(nil) is not nil")
	}
	timeout := tg.Scrub(&Fault{Class: ClassTimeout, Op: "read", Msg: "hunter2"})
	if ClassOf(timeout) != ClassTimeout || strings.Contains(timeout.Error(), "hunter2") {
		t.Errorf("Scrub of a timeout fault = %v (class %q), want class timeout kept and text scrubbed", timeout, ClassOf(timeout))
	}
	if errors.Unwrap(tg.Scrub(in)) != nil {
		t.Error("a scrubbed error unwraps to the original text")
	}
}

func TestIndexOverrideAndPrefixInRequests(t *testing.T) {
	c := &fixtures.Case{Name: "page/001", Op: fixtures.OpPage, Method: "POST", Path: "/{index}/_search", Body: []byte(`{"size":20}`)}
	plain, _ := Parse("es=http://127.0.0.1:9200", Options{})
	over, _ := Parse("gw=http://127.0.0.1:8080/es", Options{Index: "catalogue-alias"})
	for _, tc := range []struct {
		tg       *Target
		wantPath string
		wantURL  string
	}{
		{plain, "/catalogue/_search", "http://127.0.0.1:9200/catalogue/_search"},
		{over, "/catalogue-alias/_search", "http://127.0.0.1:8080/es/catalogue-alias/_search"},
	} {
		req, err := tc.tg.Request(c, "catalogue", "true", nil)
		if err != nil {
			t.Fatal(err)
		}
		if req.Path != tc.wantPath {
			t.Errorf("%s: path %q, want %q", tc.tg.Name, req.Path, tc.wantPath)
		}
		p, err := tc.tg.Prepare(req)
		if err != nil {
			t.Fatal(err)
		}
		if p.URL != tc.wantURL {
			t.Errorf("%s: URL %q, want %q", tc.tg.Name, p.URL, tc.wantURL)
		}
	}
}

func TestPrepareSerialisesOnce(t *testing.T) {
	tg, _ := Parse("gw=http://elastic:pw@127.0.0.1:8080/es", Options{})
	p, err := tg.Prepare(fixtures.Request{Case: "page/001", Method: "POST", Path: "/cat/_search", Body: []byte(`{"size":20}`)})
	if err != nil {
		t.Fatal(err)
	}
	want := "POST /es/cat/_search HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: conform\r\n" +
		"Content-Type: application/json\r\nContent-Length: 11\r\nAuthorization: Basic ZWxhc3RpYzpwdw==\r\n\r\n{\"size\":20}"
	if string(p.raw) != want {
		t.Errorf("serialised request:\n%q\nwant\n%q", p.raw, want)
	}
	get, err := tg.Prepare(fixtures.Request{Case: "get/001", Method: "GET", Path: "/cat/_doc/p1"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "GET /es/cat/_doc/p1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: conform\r\nAuthorization: Basic ZWxhc3RpYzpwdw==\r\n\r\n"; string(get.raw) != want {
		t.Errorf("serialised GET:\n%q\nwant\n%q", get.raw, want)
	}
	nd, err := tg.Prepare(fixtures.Request{Case: "msearch/0", Method: "POST", Path: "/_msearch", Body: []byte("{}\n{}\n"),
		ContentType: fixtures.MediaNDJSON, Accept: "application/json"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "POST /es/_msearch HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: conform\r\nContent-Type: application/x-ndjson\r\nContent-Length: 6\r\n" +
		"Accept: application/json\r\nAuthorization: Basic ZWxhc3RpYzpwdw==\r\n\r\n{}\n{}\n"; string(nd.raw) != want {
		t.Errorf("serialised NDJSON:\n%q\nwant\n%q", nd.raw, want)
	}
	if _, err := tg.Prepare(fixtures.Request{Case: "x/0", Method: "GET", Path: "/", Accept: "a\r\nX-Evil: 1"}); err == nil {
		t.Error("a header value with CR LF was serialised")
	}
	for _, s := range []string{fmt.Sprint(p), fmt.Sprintf("%+v", *p), fmt.Sprintf("%#v", p)} {
		if strings.Contains(s, "ZWxhc3RpYzpwdw") {
			t.Errorf("a printed Prepared shows the Authorization header: %s", s)
		}
	}
	for _, bad := range []fixtures.Request{
		{Case: "x", Method: "POST", Path: "cat/_search"},
		{Case: "x", Method: "POST", Path: "/cat/_search me"},
		{Case: "x", Method: "POST", Path: "/cat\r\nX: y"},
		{Case: "x", Method: "post", Path: "/cat"},
		{Case: "x", Method: "", Path: "/cat"},
	} {
		if _, err := tg.Prepare(bad); err == nil {
			t.Errorf("Prepare(%q %q) succeeded, want an error", bad.Method, bad.Path)
		}
	}
}

func TestWarnings(t *testing.T) {
	insecure, _ := Parse("es=https://es.internal:9200", Options{Insecure: true})
	if w := insecure.Warnings(); len(w) != 1 || !strings.Contains(w[0], "verification is disabled") {
		t.Errorf("insecure https target warnings = %q, want one about disabled verification", w)
	}
	plainCreds, _ := Parse("es=http://u:p@es.internal:9200", Options{})
	if w := plainCreds.Warnings(); len(w) != 1 || !strings.Contains(w[0], "plain http") {
		t.Errorf("warnings = %q, want one about credentials over plain http", w)
	}
	local, _ := Parse("es=http://u:p@127.0.0.1:9200", Options{})
	if w := local.Warnings(); len(w) != 0 {
		t.Errorf("loopback target warnings = %q, want none", w)
	}
}

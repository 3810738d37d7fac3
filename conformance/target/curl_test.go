package target

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/conform-dev/conform/fixtures"
)

func TestCurl(t *testing.T) {
	search := fixtures.Request{Case: "page/001", Method: "POST", Path: "/catalogue/_search", Body: []byte(`{"query":{"term":{"brand":"O'Neill"}},"size":20}`)}
	get := fixtures.Request{Case: "get/001", Method: "GET", Path: "/catalogue/_doc/p-00017"}
	tests := []struct {
		why  string
		spec string
		opts Options
		req  fixtures.Request
		want string
	}{
		{"search with a quote in the body", "es=http://127.0.0.1:9200", Options{}, search,
			`curl -sS -X 'POST' 'http://127.0.0.1:9200/catalogue/_search' -H 'Content-Type: application/json' -d '{"query":{"term":{"brand":"O'\''Neill"}},"size":20}'`},
		{"document read has no body", "es=http://127.0.0.1:9200", Options{}, get,
			`curl -sS -X 'GET' 'http://127.0.0.1:9200/catalogue/_doc/p-00017'`},
		{"basic auth from the URL becomes environment references", "es=http://elastic:hunter2@127.0.0.1:9200/es", Options{}, get,
			`curl -sS -X 'GET' 'http://127.0.0.1:9200/es/catalogue/_doc/p-00017' -u "$CONFORM_USER:$CONFORM_PASSWORD"`},
		{"api key becomes an environment reference", "cloud=https://h:443", Options{APIKey: "c2VjcmV0"}, get,
			`curl -sS -X 'GET' 'https://h:443/catalogue/_doc/p-00017' -H "Authorization: ApiKey $CONFORM_API_KEY"`},
		{"insecure https adds -k", "es=https://h:9200", Options{Insecure: true}, get,
			`curl -sS -k -X 'GET' 'https://h:9200/catalogue/_doc/p-00017'`},
		{"a body starting with @ is not a file name", "es=http://h:1", Options{}, fixtures.Request{Method: "POST", Path: "/x", Body: []byte("@/etc/passwd")},
			`curl -sS -X 'POST' 'http://h:1/x' -H 'Content-Type: application/json' --data-raw '@/etc/passwd'`},
		{"an NDJSON body keeps its newlines, with its own Content-Type", "es=http://h:1", Options{},
			fixtures.Request{Method: "POST", Path: "/_msearch", Body: []byte("{}\n{\"size\":0}\n"), ContentType: fixtures.MediaNDJSON},
			"curl -sS -X 'POST' 'http://h:1/_msearch' -H 'Content-Type: application/x-ndjson' --data-binary '{}\n{\"size\":0}\n'"},
		{"a case's Accept header is sent", "es=http://h:1", Options{},
			fixtures.Request{Method: "GET", Path: "/i/_doc/1", Accept: "application/vnd.elasticsearch+json; compatible-with=8"},
			`curl -sS -X 'GET' 'http://h:1/i/_doc/1' -H 'Accept: application/vnd.elasticsearch+json; compatible-with=8'`},
		{"HEAD asks for the head alone", "es=http://h:1", Options{}, fixtures.Request{Method: "HEAD", Path: "/i/_doc/1"},
			`curl -sS -I 'http://h:1/i/_doc/1'`},
	}
	for _, tc := range tests {
		t.Run(tc.why, func(t *testing.T) {
			tg, err := Parse(tc.spec, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			got := tg.Curl(tc.req)
			if got != tc.want {
				t.Errorf("Curl:\n got %s\nwant %s", got, tc.want)
			}
			for _, secret := range []string{"hunter2", "c2VjcmV0"} {
				if strings.Contains(got, secret) {
					t.Errorf("curl command shows a secret: %s", got)
				}
			}
		})
	}
}

func TestCurlCAFile(t *testing.T) {
	dir := t.TempDir()
	ca := filepath.Join(dir, "it's ca.pem")
	if err := os.WriteFile(ca, testCAPEM(t), 0o600); err != nil {
		t.Fatal(err)
	}
	tg, err := Parse("es=https://h:9200", Options{CAFile: ca})
	if err != nil {
		t.Fatal(err)
	}
	want := `curl -sS --cacert '` + strings.ReplaceAll(ca, "'", `'\''`) + `' -X 'GET' 'https://h:9200/'`
	if got := tg.Curl(fixtures.Request{Method: "GET", Path: "/"}); got != want {
		t.Errorf("Curl = %s\nwant %s", got, want)
	}
}

// The quoting is checked by a real shell: what printf receives must be the original bytes.
func TestShellQuoteRoundTripsThroughSh(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh on this machine")
	}
	for _, s := range []string{
		`{"a":"it's"}`, `''`, `\'`, `$HOME $(id) ` + "`id`", "line\nbreak", `"double" \ back`, "ünïcødé 😀", "",
	} {
		out, err := exec.Command(sh, "-c", "printf '%s' "+shellQuote(s)).Output()
		if err != nil {
			t.Fatalf("sh: %v", err)
		}
		if string(out) != s {
			t.Errorf("sh received %q, want %q", out, s)
		}
	}
}

func TestCurlSetup(t *testing.T) {
	req := fixtures.Request{Method: "GET", Path: "/i/_doc/1"}
	tests := []struct {
		spec       string
		opts       Options
		env        CurlEnv
		setup, has string
	}{
		{"es=http://h:9200", Options{}, DefaultCurlEnv, "", "curl -sS -X 'GET' 'http://h:9200/i/_doc/1'"},
		{"es=http://elastic:hunter2@h:9200", Options{}, DefaultCurlEnv,
			"export CONFORM_USER='elastic' CONFORM_PASSWORD='<password>'", `-u "$CONFORM_USER:$CONFORM_PASSWORD"`},
		{"es=http://o'brien:hunter2@h:9200", Options{}, OracleCurlEnv,
			`export CONFORM_ORACLE_USER='o'\''brien' CONFORM_ORACLE_PASSWORD='<password>'`, `-u "$CONFORM_ORACLE_USER:$CONFORM_ORACLE_PASSWORD"`},
		{"es=http://h:9200", Options{APIKey: "hunter2"}, DefaultCurlEnv,
			"export CONFORM_API_KEY='<API key>'", `-H "Authorization: ApiKey $CONFORM_API_KEY"`},
	}
	for _, tc := range tests {
		tg := mustTarget(t, tc.spec, tc.opts)
		setup, curl := tg.CurlSetup(tc.env), tg.CurlAs(req, tc.env)
		if setup != tc.setup || !strings.Contains(curl, tc.has) {
			t.Errorf("%s: setup %q, curl %q; want %q and a curl with %q", tc.spec, setup, curl, tc.setup, tc.has)
		}
		if strings.Contains(setup+curl, "hunter2") {
			t.Errorf("%s: a secret in %q / %q", tc.spec, setup, curl)
		}
	}
}

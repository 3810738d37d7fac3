package target

import (
	"bytes"
	"strings"

	"github.com/conform-dev/conform/fixtures"
)

// Environment variables a curl command from Curl reads the credentials from.
const (
	EnvUser     = "CONFORM_USER"
	EnvPassword = "CONFORM_PASSWORD"
	EnvAPIKey   = "CONFORM_API_KEY"
)

// CurlEnv names the environment variables a curl command reads credentials from.
type CurlEnv struct{ User, Password, APIKey string }

// DefaultCurlEnv is $CONFORM_USER, $CONFORM_PASSWORD and $CONFORM_API_KEY; OracleCurlEnv
// gives a live oracle's curl its own, so both commands can be pasted in one shell.
var (
	DefaultCurlEnv = CurlEnv{EnvUser, EnvPassword, EnvAPIKey}
	OracleCurlEnv  = CurlEnv{"CONFORM_ORACLE_USER", "CONFORM_ORACLE_PASSWORD", "CONFORM_ORACLE_API_KEY"}
)

// Curl renders a request to this target as a command to paste into a POSIX shell: method,
// full URL (prefix and index included), Content-Type and body, TLS options, and credentials
// as references to $CONFORM_USER, $CONFORM_PASSWORD or $CONFORM_API_KEY, never their values.
func (t *Target) Curl(req fixtures.Request) string { return t.CurlAs(req, DefaultCurlEnv) }

// CurlAs is Curl with the credentials read from env's variables.
func (t *Target) CurlAs(req fixtures.Request, env CurlEnv) string {
	var b strings.Builder
	b.WriteString("curl -sS")
	if t.Insecure && t.Scheme == "https" {
		b.WriteString(" -k")
	}
	if t.CAFile != "" && t.Scheme == "https" {
		b.WriteString(" --cacert ")
		b.WriteString(shellQuote(t.CAFile))
	}
	if req.Method == "HEAD" {
		// -X HEAD would wait for a body that never comes; -I asks for the head alone.
		b.WriteString(" -I ")
	} else {
		b.WriteString(" -X ")
		b.WriteString(shellQuote(req.Method))
		b.WriteByte(' ')
	}
	b.WriteString(shellQuote(t.URL(req.Path)))
	switch {
	case t.apiKey != "":
		b.WriteString(` -H "Authorization: ApiKey $` + env.APIKey + `"`)
	case t.authHeader != "":
		b.WriteString(` -u "$` + env.User + `:$` + env.Password + `"`)
	}
	if req.Accept != "" {
		b.WriteString(" -H ")
		b.WriteString(shellQuote("Accept: " + req.Accept))
	}
	if req.Body != nil {
		ct := req.ContentType
		if ct == "" {
			ct = fixtures.MediaJSON
		}
		b.WriteString(" -H ")
		b.WriteString(shellQuote("Content-Type: " + ct))
		// -d reads a file when its argument starts with '@'; --data-raw never does.
		// --data-binary keeps an NDJSON body's newlines as they are (its lines are JSON
		// values, so it never starts with the '@' that would make it read a file).
		if bytes.IndexByte(req.Body, '\n') >= 0 && req.Body[0] != '@' {
			b.WriteString(" --data-binary ")
		} else if len(req.Body) > 0 && req.Body[0] == '@' {
			b.WriteString(" --data-raw ")
		} else {
			b.WriteString(" -d ")
		}
		b.WriteString(shellQuote(string(req.Body)))
	}
	return b.String()
}

// CurlSetup is what to run before CurlAs's command so its credential references resolve: the
// user name (not a secret) and a placeholder for the password or API key, or "" when the
// target has no credentials.
func (t *Target) CurlSetup(env CurlEnv) string {
	switch {
	case t.apiKey != "":
		return "export " + env.APIKey + "='<API key>'"
	case t.authHeader != "":
		return "export " + env.User + "=" + shellQuote(t.username) + " " + env.Password + "='<password>'"
	}
	return ""
}

// shellQuote quotes s for a POSIX shell: inside single quotes nothing is special, and a single
// quote is written as '\” (close, escaped quote, reopen).
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

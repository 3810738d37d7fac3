package target

import (
	"strings"

	"github.com/conform-dev/conform/fixtures"
)

// Environment variables a curl command from Curl reads the credentials from.
const (
	EnvUser     = "CONFORM_USER"
	EnvPassword = "CONFORM_PASSWORD"
	EnvAPIKey   = "CONFORM_API_KEY"
)

// Curl renders a request to this target as a command to paste into a POSIX shell: method,
// full URL (prefix and index included), Content-Type and body, TLS options, and credentials
// as references to $CONFORM_USER, $CONFORM_PASSWORD or $CONFORM_API_KEY, never their values.
func (t *Target) Curl(req fixtures.Request) string {
	var b strings.Builder
	b.WriteString("curl -sS")
	if t.Insecure && t.Scheme == "https" {
		b.WriteString(" -k")
	}
	if t.CAFile != "" && t.Scheme == "https" {
		b.WriteString(" --cacert ")
		b.WriteString(shellQuote(t.CAFile))
	}
	b.WriteString(" -X ")
	b.WriteString(shellQuote(req.Method))
	b.WriteByte(' ')
	b.WriteString(shellQuote(t.URL(req.Path)))
	switch {
	case t.apiKey != "":
		b.WriteString(` -H "Authorization: ApiKey $` + EnvAPIKey + `"`)
	case t.authHeader != "":
		b.WriteString(` -u "$` + EnvUser + `:$` + EnvPassword + `"`)
	}
	if req.Body != nil {
		b.WriteString(" -H 'Content-Type: application/json'")
		// -d reads a file when its argument starts with '@'; --data-raw never does.
		if len(req.Body) > 0 && req.Body[0] == '@' {
			b.WriteString(" --data-raw ")
		} else {
			b.WriteString(" -d ")
		}
		b.WriteString(shellQuote(string(req.Body)))
	}
	return b.String()
}

// shellQuote quotes s for a POSIX shell: inside single quotes nothing is special, and a single
// quote is written as '\” (close, escaped quote, reopen).
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

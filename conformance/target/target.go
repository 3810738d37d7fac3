package target

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/conform-dev/conform/fixtures"
)

// DefaultTimeout bounds one request when Options.Timeout is zero. It is generous: a timeout is
// a failed response, and the lab's slowest cells are a few milliseconds.
const DefaultTimeout = 10 * time.Second

// Options are the settings a command line applies to every target it names. Credentials in a
// target's URL take precedence over Username and Password for that target.
type Options struct {
	Username string
	Password string
	// APIKey is the encoded API key Elasticsearch returns ("encoded"), sent as
	// "Authorization: ApiKey <APIKey>".
	APIKey string
	// CAFile is a PEM file of certificate authorities to trust for https targets, instead of
	// the system pool.
	CAFile string
	// Insecure skips TLS certificate verification. The target carries a warning saying so.
	Insecure bool
	// Index, when set, replaces the workload's index name in every request.
	Index string
	// Timeout bounds one request, from writing it to reading the last byte of the body.
	Timeout time.Duration
}

// Target is one endpoint conform sends requests to. Its printable forms never contain a
// credential.
type Target struct {
	// Name identifies the target in reports: the NAME of a NAME=URL spec, or the URL's host.
	Name string
	// Scheme is "http" or "https"; Host is host[:port] as given; Prefix is the URL's path
	// without a trailing slash ("" or "/es"), put before every request path.
	Scheme, Host, Prefix string
	// Index is the index override ("" keeps the workload's index).
	Index   string
	Timeout time.Duration
	// Insecure is true when TLS certificates are not verified.
	Insecure bool
	// CAFile is the CA bundle in use, if any (a path, not a secret).
	CAFile string

	username string
	password string
	apiKey   string
	// authHeader is the full Authorization header value, or "".
	authHeader string
	// secrets are the strings scrub removes from error texts.
	secrets []string
	// dialAddr is host:port with the scheme's default port filled in.
	dialAddr string
	tls      *tls.Config
}

// Parse reads a target spec: NAME=URL or a bare URL, whose name is then its host
// ("http://127.0.0.1:9200" is named "127.0.0.1:9200"). The URL's scheme must be http or
// https; its userinfo gives basic auth; its path is a prefix for every request (for an
// endpoint mounted under a path, "http://host/es" sends "/es/{index}/_search"). Errors never
// repeat a password given in the spec.
func Parse(spec string, o Options) (*Target, error) {
	name, raw := splitSpec(spec)
	shown := redactSpec(spec)
	bad := func(format string, args ...any) error {
		return fmt.Errorf("target %q: %s", shown, fmt.Sprintf(format, args...))
	}
	if raw == "" {
		return nil, bad("no URL; want NAME=URL or a URL such as http://127.0.0.1:9200")
	}
	if !strings.Contains(raw, "://") {
		return nil, bad("URL needs a scheme, e.g. http://%s", redactSpec(raw))
	}
	u, err := url.Parse(raw)
	if err != nil {
		// url.Error repeats the whole URL, password included; say what is wrong without it.
		// With userinfo present, even the inner message may quote part of a password, so say
		// only what to check.
		if strings.Contains(raw, "@") {
			return nil, bad("not a valid URL; percent-encode special characters in the user name and password")
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, bad("not a valid URL: %v", err)
	}
	t := &Target{Scheme: strings.ToLower(u.Scheme), Host: u.Host, Timeout: o.Timeout, Insecure: o.Insecure, CAFile: o.CAFile}
	switch t.Scheme {
	case "http", "https":
	default:
		return nil, bad("scheme %q is not http or https", u.Scheme)
	}
	if u.Hostname() == "" {
		return nil, bad("URL has no host")
	}
	if u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		return nil, bad("URL has a query or fragment; give only scheme, host, port and path prefix")
	}
	if port := u.Port(); port != "" {
		t.dialAddr = u.Host
	} else if t.Scheme == "https" {
		t.dialAddr = net.JoinHostPort(u.Hostname(), "443")
	} else {
		t.dialAddr = net.JoinHostPort(u.Hostname(), "80")
	}
	t.Prefix = strings.TrimRight(u.EscapedPath(), "/")
	if strings.ContainsAny(t.Prefix, " \t\r\n") {
		return nil, bad("path prefix %q contains white space", t.Prefix)
	}
	if name == "" {
		name = strings.ToLower(u.Host)
	} else if err := validName(name); err != nil {
		return nil, bad("%v", err)
	}
	t.Name = name

	t.username, t.password = o.Username, o.Password
	if u.User != nil {
		t.username = u.User.Username()
		t.password, _ = u.User.Password()
	}
	t.apiKey = o.APIKey
	switch {
	case t.apiKey != "" && (t.username != "" || t.password != ""):
		return nil, bad("both basic auth and an API key are given; use one")
	case t.apiKey != "":
		t.authHeader = "ApiKey " + t.apiKey
	case t.username != "" || t.password != "":
		if strings.Contains(t.username, ":") {
			return nil, bad("a basic-auth user name cannot contain ':'")
		}
		t.authHeader = "Basic " + base64.StdEncoding.EncodeToString([]byte(t.username+":"+t.password))
	}
	if strings.ContainsAny(t.authHeader, "\r\n") {
		return nil, bad("credentials contain a line break")
	}
	for _, s := range []string{t.password, t.apiKey, strings.TrimPrefix(t.authHeader, "Basic ")} {
		if len(s) >= 3 { // scrubbing shorter strings would mangle ordinary text
			t.secrets = append(t.secrets, s)
		}
	}
	if len(t.password) >= 3 {
		t.secrets = append(t.secrets, url.QueryEscape(t.password), url.PathEscape(t.password))
	}

	if o.Index != "" {
		if err := ValidIndexName(o.Index); err != nil {
			return nil, bad("%v", err)
		}
		t.Index = o.Index
	}
	if t.Timeout == 0 {
		t.Timeout = DefaultTimeout
	}
	if t.Timeout < 0 {
		return nil, bad("timeout %v is negative", t.Timeout)
	}
	if t.Scheme == "https" {
		cfg := &tls.Config{ServerName: u.Hostname(), NextProtos: []string{"http/1.1"}, InsecureSkipVerify: o.Insecure}
		if o.CAFile != "" {
			pem, err := os.ReadFile(o.CAFile)
			if err != nil {
				return nil, bad("reading CA file: %v", err)
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pem) {
				return nil, bad("CA file %s holds no PEM certificate", o.CAFile)
			}
			cfg.RootCAs = pool
		}
		t.tls = cfg
	}
	return t, nil
}

// ParseAll parses several specs with the same options and rejects duplicate names.
func ParseAll(specs []string, o Options) ([]*Target, error) {
	seen := map[string]bool{}
	var out []*Target
	for _, s := range specs {
		t, err := Parse(s, o)
		if err != nil {
			return nil, err
		}
		if seen[t.Name] {
			return nil, fmt.Errorf("two targets are named %q; name them with NAME=URL", t.Name)
		}
		seen[t.Name] = true
		out = append(out, t)
	}
	return out, nil
}

// splitSpec separates NAME=URL. A spec is NAME=URL only when the text before the first '='
// could not be the start of a URL, so a bare URL with '=' in its userinfo stays a URL.
func splitSpec(spec string) (name, raw string) {
	spec = strings.TrimSpace(spec)
	i := strings.IndexByte(spec, '=')
	if i < 0 || strings.ContainsAny(spec[:i], ":/@") {
		return "", spec
	}
	return spec[:i], spec[i+1:]
}

func validName(name string) error {
	if name == "" || len(name) > 64 {
		return fmt.Errorf("name %q must have 1 to 64 characters", name)
	}
	for i, r := range name {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || i > 0 && (r == '-' || r == '_' || r == '.')
		if !ok {
			return fmt.Errorf("name %q: use letters, digits, '-', '_' and '.', starting with a letter or digit", name)
		}
	}
	return nil
}

// ValidIndexName reports whether name can be put into a request path as it is, by
// Elasticsearch's rules for index names (lowercase, none of \/*?"<>| ,#: and no leading
// - _ +), so the path needs no escaping.
func ValidIndexName(name string) error {
	switch {
	case name == "" || name == "." || name == "..":
		return fmt.Errorf("index name %q is not allowed", name)
	case len(name) > 255:
		return fmt.Errorf("index name is longer than 255 bytes")
	case strings.ContainsAny(name[:1], "-_+"):
		return fmt.Errorf("index name %q must not start with '-', '_' or '+'", name)
	case strings.ContainsAny(name, "\\/*?\"<>| ,#:%"):
		return fmt.Errorf("index name %q must not contain any of \\/*?\"<>| ,#:%%", name)
	case strings.ToLower(name) != name:
		return fmt.Errorf("index name %q must be lowercase", name)
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f {
			return fmt.Errorf("index name %q contains a control character", name)
		}
	}
	return nil
}

// IndexFor returns the index requests should name: the override, or the workload's index.
func (t *Target) IndexFor(workloadIndex string) string {
	if t.Index != "" {
		return t.Index
	}
	return workloadIndex
}

// Request makes the concrete request of a case for this target, with the index override
// applied (see fixtures.Case.Request).
func (t *Target) Request(c *fixtures.Case, workloadIndex string, tth fixtures.TotalHits, searchAfter []byte) (fixtures.Request, error) {
	return c.Request(t.IndexFor(workloadIndex), tth, searchAfter)
}

// URL returns the URL of a request path on this target, with the prefix and without
// credentials.
func (t *Target) URL(path string) string {
	return t.Scheme + "://" + t.Host + t.Prefix + path
}

// Redacted returns the target's URL with any password replaced by "***"
// ("http://elastic:***@127.0.0.1:9200/es"). An API key never appears in it.
func (t Target) Redacted() string {
	user := ""
	if t.username != "" || t.password != "" {
		user = url.User(t.username).String() + ":***@"
	}
	return t.Scheme + "://" + user + t.Host + t.Prefix
}

// String is NAME=REDACTED-URL, with " (api key)" when an API key is used.
func (t Target) String() string {
	s := t.Name + "=" + t.Redacted()
	if t.apiKey != "" {
		s += " (api key)"
	}
	return s
}

// Format prints String for every verb (%#v included), so no formatting of a Target, or of a
// struct holding one, can print the credentials held in its unexported fields.
func (t Target) Format(f fmt.State, verb rune) { io.WriteString(f, t.String()) }

// Auth describes the authentication in use without revealing it: "none", "basic (user NAME)"
// or "api key".
func (t *Target) Auth() string {
	switch {
	case t.apiKey != "":
		return "api key"
	case t.authHeader != "":
		return "basic (user " + t.username + ")"
	}
	return "none"
}

// Warnings are caveats the user should see before results are trusted, such as disabled
// certificate verification.
func (t *Target) Warnings() []string {
	var w []string
	if t.Insecure && t.Scheme == "https" {
		w = append(w, fmt.Sprintf("target %s: TLS certificate verification is disabled (--insecure); anyone on the path can read and alter its traffic", t.Name))
	}
	if t.Scheme == "http" && t.authHeader != "" && !isLoopback(t.dialAddr) {
		w = append(w, fmt.Sprintf("target %s: credentials are sent over plain http", t.Name))
	}
	return w
}

func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Scrub returns err with every credential of the target, and any URL userinfo, replaced by
// "***". The result keeps err's fault class but does not unwrap to err, so no caller can
// reach the unscrubbed text.
func (t *Target) Scrub(err error) error {
	if err == nil {
		return nil
	}
	var f *Fault
	if errors.As(err, &f) {
		return &Fault{Class: f.Class, Op: f.Op, Msg: scrubText(f.Msg, t.secrets)}
	}
	return &scrubbed{msg: scrubText(err.Error(), t.secrets), timeout: isTimeout(err)}
}

// scrubbed is an error whose text has been cleaned; it remembers whether it was a timeout.
type scrubbed struct {
	msg     string
	timeout bool
}

func (e *scrubbed) Error() string { return e.msg }
func (e *scrubbed) Timeout() bool { return e.timeout }

// scrubText replaces each secret, and the userinfo of any URL in s, with "***".
func scrubText(s string, secrets []string) string {
	for _, sec := range secrets {
		if sec != "" {
			s = strings.ReplaceAll(s, sec, "***")
		}
	}
	return redactUserinfo(s)
}

// redactUserinfo rewrites "scheme://user:pass@host" as "scheme://user:***@host" wherever it
// occurs in s.
func redactUserinfo(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "://")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i+3])
		s = s[i+3:]
		end := strings.IndexAny(s, "/?# \t\n\"'")
		if end < 0 {
			end = len(s)
		}
		at := strings.LastIndexByte(s[:end], '@')
		if at < 0 {
			continue
		}
		user := s[:at]
		if c := strings.IndexByte(user, ':'); c >= 0 {
			user = user[:c]
		}
		b.WriteString(user + ":***@")
		s = s[at+1:]
	}
}

// redactSpec is a spec as it may be shown in an error. It may not parse as a URL (a password
// with an unescaped '/' or '@'), so everything between the scheme and the last '@' is
// treated as userinfo, and only the user name before the first ':' is kept.
func redactSpec(spec string) string {
	i := strings.Index(spec, "://")
	if i < 0 {
		if at := strings.LastIndexByte(spec, '@'); at >= 0 {
			return "***@" + spec[at+1:]
		}
		return spec
	}
	rest := spec[i+3:]
	at := strings.LastIndexByte(rest, '@')
	if at < 0 {
		return spec
	}
	user := rest[:at]
	if c := strings.IndexAny(user, ":/"); c >= 0 {
		user = user[:c]
	}
	return spec[:i+3] + user + ":***@" + rest[at+1:]
}

package oracle

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/conform-dev/conform/fixtures"
	"github.com/tidwall/gjson"
)

// Endpoint is how the oracle reaches a live engine. HTTPEndpoint is a small net/http one;
// conformance/target can provide another (API keys, CA files, TLS options) by implementing
// these two methods.
type Endpoint interface {
	// Name is the endpoint's URL with any credentials redacted, fit for output and errors.
	Name() string
	// Do sends one request: method, target (path and optional query string, starting with
	// '/') and body. It returns the status and body; an error means no answer.
	Do(ctx context.Context, method, target string, body []byte) (status int, resp []byte, err error)
}

// maxResponse bounds a response body read from a live engine.
const maxResponse = 256 << 20

// HTTPEndpoint reaches an engine over HTTP(S). Userinfo in the URL becomes basic auth and the
// URL's path becomes a prefix of every request path. It never puts credentials in a message.
type HTTPEndpoint struct {
	base     url.URL // scheme, host and path prefix; no userinfo
	user     string
	password string
	hasAuth  bool
	// Client sends the requests; nil means a client with a 60 s timeout.
	Client *http.Client
}

// NewHTTPEndpoint parses an http or https URL such as https://user:pass@es.example:9200/prefix.
func NewHTTPEndpoint(raw string) (*HTTPEndpoint, error) {
	u, err := url.Parse(raw)
	if err != nil {
		// url.Error quotes the input, credentials included: say what is wrong without it.
		return nil, fmt.Errorf("%s is not a URL", RedactURL(raw))
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("%s: the scheme must be http or https", RedactURL(raw))
	}
	if u.Host == "" {
		return nil, fmt.Errorf("%s: no host", RedactURL(raw))
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("%s: a query string or fragment has no meaning here", RedactURL(raw))
	}
	e := &HTTPEndpoint{}
	if u.User != nil {
		e.hasAuth = true
		e.user = u.User.Username()
		e.password, _ = u.User.Password()
	}
	e.base = url.URL{Scheme: u.Scheme, Host: u.Host, Path: strings.TrimSuffix(u.Path, "/")}
	return e, nil
}

// RedactURL returns a URL for display: userinfo, if any, is replaced by "***". A string that
// does not parse is shown only up to its scheme, since it may hold credentials.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		if i := strings.Index(raw, "://"); i >= 0 {
			return raw[:i+3] + "…"
		}
		return "(unparsable URL)"
	}
	if u.User == nil {
		return u.String()
	}
	u.User = nil
	return strings.Replace(u.String(), "://", "://***@", 1)
}

// Name is the redacted URL.
func (e *HTTPEndpoint) Name() string {
	s := e.base.String()
	if e.hasAuth {
		s = strings.Replace(s, "://", "://***@", 1)
	}
	return s
}

// Do implements Endpoint.
func (e *HTTPEndpoint) Do(ctx context.Context, method, target string, body []byte) (int, []byte, error) {
	if !strings.HasPrefix(target, "/") {
		return 0, nil, fmt.Errorf("request target %q does not start with /", target)
	}
	full := e.base.Scheme + "://" + e.base.Host + e.base.Path + target
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, full, rd)
	if err != nil {
		return 0, nil, fmt.Errorf("%s %s: %v", method, target, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	if e.hasAuth {
		req.SetBasicAuth(e.user, e.password)
	}
	client := e.Client
	if client == nil {
		client = &http.Client{Timeout: 60 * time.Second}
	}
	resp, err := client.Do(req)
	if err != nil {
		// The request URL carries no userinfo, so the error cannot leak credentials.
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse+1))
	if err != nil {
		return 0, nil, fmt.Errorf("%s %s: reading the response: %w", method, target, err)
	}
	if len(b) > maxResponse {
		return 0, nil, fmt.Errorf("%s %s: response larger than %d MiB", method, target, maxResponse>>20)
	}
	return resp.StatusCode, b, nil
}

// RequestEndpoint is an Endpoint that also sends a request's own headers (an NDJSON body's
// Content-Type, a case's Accept); EndpointDoer uses it when the endpoint has it.
type RequestEndpoint interface {
	Endpoint
	DoRequest(ctx context.Context, r fixtures.Request) (status int, resp []byte, err error)
}

// EndpointDoer adapts an Endpoint to a Doer.
func EndpointDoer(ep Endpoint) Doer {
	if re, ok := ep.(RequestEndpoint); ok {
		return re.DoRequest
	}
	return func(ctx context.Context, r fixtures.Request) (int, []byte, error) {
		return ep.Do(ctx, r.Method, r.Path, r.Body)
	}
}

// Identify asks an engine for GET / and returns what it says about itself.
func Identify(ctx context.Context, ep Endpoint) (*Identity, error) {
	status, body, err := ep.Do(ctx, "GET", "/", nil)
	if err != nil {
		return nil, fmt.Errorf("GET / on %s: %w", ep.Name(), err)
	}
	if status != 200 {
		id, nerr := identifyByNodes(ctx, ep)
		if nerr != nil {
			return nil, fmt.Errorf("GET / on %s answered HTTP %d%s, and %v", ep.Name(), status, errorReason(body), nerr)
		}
		id.Via = fmt.Sprintf("GET /_nodes/_local (GET / answered HTTP %d)", status)
		return id, nil
	}
	return parseIdentity(body)
}

// NodesIdentityPath asks a node about itself when GET / is not served: Elasticsearch's
// integration-test distribution has no rest-root module, and some proxies block the root.
const NodesIdentityPath = "/_nodes/_local?filter_path=nodes.*.version,nodes.*.build_flavor,nodes.*.build_type,nodes.*.build_hash,nodes.*.distribution"

// identifyByNodes reads the local node's version and flavor from the nodes info API.
// Elasticsearch reports build_flavor "default"; OpenSearch has none.
func identifyByNodes(ctx context.Context, ep Endpoint) (*Identity, error) {
	status, body, err := ep.Do(ctx, "GET", NodesIdentityPath, nil)
	if err != nil {
		return nil, fmt.Errorf("GET /_nodes/_local: %w", err)
	}
	if status != 200 {
		return nil, fmt.Errorf("GET /_nodes/_local answered HTTP %d%s", status, errorReason(body))
	}
	var node gjson.Result
	gjson.GetBytes(body, "nodes").ForEach(func(_, v gjson.Result) bool { node = v; return false })
	if !node.Exists() || node.Get("version").String() == "" {
		return nil, errors.New("GET /_nodes/_local names no node with a version")
	}
	return &Identity{
		Version:      node.Get("version").String(),
		BuildFlavor:  node.Get("build_flavor").String(),
		Distribution: node.Get("distribution").String(),
	}, nil
}

func parseIdentity(body []byte) (*Identity, error) {
	if !gjson.ValidBytes(body) {
		return nil, errors.New("GET / did not answer JSON")
	}
	id := &Identity{
		Version:      gjson.GetBytes(body, "version.number").String(),
		BuildFlavor:  gjson.GetBytes(body, "version.build_flavor").String(),
		Distribution: gjson.GetBytes(body, "version.distribution").String(),
		Tagline:      gjson.GetBytes(body, "tagline").String(),
	}
	if id.Version == "" {
		return nil, errors.New("GET / has no version.number")
	}
	return id, nil
}

// String renders an identity for people: "Elasticsearch 8.15.0 (default)".
func (id *Identity) String() string {
	if id == nil {
		return "unknown engine"
	}
	name := "Elasticsearch"
	if id.Distribution != "" && id.Distribution != "elasticsearch" {
		name = id.Distribution
	}
	s := name + " " + id.Version
	if id.BuildFlavor != "" {
		s += " (" + id.BuildFlavor + ")"
	}
	return s
}

// checkElasticsearch refuses an engine that is not Elasticsearch and returns a caveat when it
// is not 8.15.x. Elasticsearch's GET / has version.build_flavor and no version.distribution;
// OpenSearch's has distribution "opensearch" and no build_flavor.
func checkElasticsearch(name string, id *Identity) (caveats []string, err error) {
	if (id.Distribution != "" && id.Distribution != "elasticsearch") || id.BuildFlavor == "" {
		return nil, fmt.Errorf("%s is %s, not Elasticsearch (GET / has version.distribution %q and version.build_flavor %q); "+
			"the oracle must be Elasticsearch", name, id, id.Distribution, id.BuildFlavor)
	}
	if !strings.HasPrefix(id.Version, "8.15.") {
		caveats = append(caveats, fmt.Sprintf("%s is Elasticsearch %s, not 8.15.x: conform's reference is Elasticsearch 8.15, "+
			"and answers may differ between versions", name, id.Version))
	}
	return caveats, nil
}

// Live is a live Elasticsearch used as the oracle: each case is asked once, before timing. The
// index must already hold the fixtures' corpus.
type Live struct {
	Endpoint Endpoint
}

// Name is "live:" and the redacted URL.
func (l *Live) Name() string { return "live:" + l.Endpoint.Name() }

// Expect checks that the endpoint is Elasticsearch and holds as many documents as the corpus,
// then computes every case's answer. Fixtures without a corpus (a workload alone) have no
// count to check: the live index is what the cases are asked of, as it is.
func (l *Live) Expect(ctx context.Context, f *fixtures.Fixtures, s Settings) (*Expectations, error) {
	id, err := Identify(ctx, l.Endpoint)
	if err != nil {
		return nil, err
	}
	caveats, err := checkElasticsearch(l.Endpoint.Name(), id)
	if err != nil {
		return nil, err
	}
	s = s.withDefaults(f.Workload)
	if f.HasCorpus() {
		if err := checkCount(ctx, l.Endpoint, s.Index, len(f.Docs)); err != nil {
			return nil, err
		}
	} else {
		caveats = append(caveats, fmt.Sprintf("the fixtures have no corpus: %s answers from whatever its index %s holds now", l.Endpoint.Name(), s.Index))
	}
	x, err := Compute(ctx, f.Workload, s, EndpointDoer(l.Endpoint))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", l.Name(), err)
	}
	x.Source, x.Engine, x.Caveats = l.Name(), id, caveats
	return x, nil
}

// checkCount makes sure the live index holds the corpus before its answers are trusted.
func checkCount(ctx context.Context, ep Endpoint, index string, want int) error {
	target := "/" + url.PathEscape(index) + "/_count"
	status, body, err := ep.Do(ctx, "GET", target, nil)
	if err != nil {
		return fmt.Errorf("GET %s on %s: %w", target, ep.Name(), err)
	}
	if status != 200 {
		return fmt.Errorf("GET %s on %s answered HTTP %d%s; is the corpus loaded?", target, ep.Name(), status, errorReason(body))
	}
	got := gjson.GetBytes(body, "count")
	if !got.Exists() {
		return fmt.Errorf("GET %s on %s has no count", target, ep.Name())
	}
	if int(got.Int()) != want {
		return fmt.Errorf("index %s on %s holds %d documents but the corpus has %d; load the fixtures' corpus first", index, ep.Name(), got.Int(), want)
	}
	return nil
}

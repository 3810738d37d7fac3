package oracle

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"

	"github.com/conform-dev/conform/fixtures"
	"github.com/conform-dev/conform/oracle/engine"
	"github.com/tidwall/gjson"
)

// Settings are the run settings that change what the oracle is asked.
type Settings struct {
	// Index is the index name the cases read; empty means the workload's own index.
	Index string
	// TrackTotalHits is sent with every search that does not set it; empty means "true".
	TrackTotalHits fixtures.TotalHits
}

// withDefaults fills the empty settings from the workload.
func (s Settings) withDefaults(w *fixtures.Workload) Settings {
	if s.Index == "" && w != nil {
		s.Index = w.Index
	}
	if s.TrackTotalHits == "" {
		s.TrackTotalHits = "true"
	}
	return s
}

// Expected is the answer to one case: the concrete request and what Elasticsearch returns.
type Expected struct {
	Request fixtures.Request
	Status  int
	Body    []byte
	// Warnings are caveats about this answer, such as a page boundary inside a tie, that make
	// it a poor reference; they never change the answer.
	Warnings []string
}

// Identity is what an engine says about itself in GET /.
type Identity struct {
	Version      string `json:"version"`
	BuildFlavor  string `json:"build_flavor,omitempty"`
	Distribution string `json:"distribution,omitempty"`
	Tagline      string `json:"tagline,omitempty"`
	// Via says where the identity came from when GET / did not give it: "GET /_nodes/_local
	// (GET / answered HTTP 405)". Elasticsearch's integration-test distribution lacks the
	// rest-root module that serves GET /.
	Via string `json:"via,omitempty"`
}

// Expectations are every case's expected answer, computed once before timing and then shared
// read-only: nothing in this type changes after construction, so concurrent readers are safe.
type Expectations struct {
	// Source names the oracle, with credentials redacted ("embedded", "live:https://es:9200",
	// "golden:testdata/es-8.15.0.golden.json").
	Source   string
	Settings Settings
	Cases    []Expected // workload order
	// Engine is the oracle engine's GET / identity, when it has one.
	Engine *Identity
	// Caveats are source-level warnings (an Elasticsearch that is not 8.15.x, for example).
	Caveats []string

	byName map[string]int
}

// NewExpectations builds expectations from cases in workload order and indexes them by name.
func NewExpectations(source string, s Settings, cases []Expected) *Expectations {
	x := &Expectations{Source: source, Settings: s, Cases: cases}
	x.index()
	return x
}

func (x *Expectations) index() {
	x.byName = make(map[string]int, len(x.Cases))
	for i := range x.Cases {
		x.byName[x.Cases[i].Request.Case] = i
	}
}

// Get returns the expectation of the named case, or nil.
func (x *Expectations) Get(name string) *Expected {
	if x.byName != nil {
		if i, ok := x.byName[name]; ok {
			return &x.Cases[i]
		}
		return nil
	}
	// Built as a literal rather than by NewExpectations: scan, and never write, so concurrent
	// readers stay safe.
	for i := range x.Cases {
		if x.Cases[i].Request.Case == name {
			return &x.Cases[i]
		}
	}
	return nil
}

// Declined lists the cases the oracle declined to answer, in workload order: the embedded
// engine answers conform_unsupported_exception to a request outside its subset (full text,
// scripts, other aggregations...). Such an answer is no expectation of Elasticsearch's: the
// case needs a live Elasticsearch (--oracle live:URL) or a golden file recorded from one.
func (x *Expectations) Declined() []*Expected {
	var out []*Expected
	for i := range x.Cases {
		if engine.IsUnsupported(x.Cases[i].Status, x.Cases[i].Body) {
			out = append(out, &x.Cases[i])
		}
	}
	return out
}

// IsDeclined reports whether the oracle declined case name (see Declined).
func (x *Expectations) IsDeclined(name string) bool {
	e := x.Get(name)
	return e != nil && engine.IsUnsupported(e.Status, e.Body)
}

// DeclinedReason is what the embedded engine said about a declined answer ("unsupported by
// conform's embedded engine: ..."), or "".
func DeclinedReason(e *Expected) string {
	if e == nil || !engine.IsUnsupported(e.Status, e.Body) {
		return ""
	}
	return gjson.GetBytes(e.Body, "error.reason").String()
}

// Warnings lists every caveat: the source's, then each case's prefixed with its name, in
// workload order.
func (x *Expectations) Warnings() []string {
	out := append([]string(nil), x.Caveats...)
	for _, c := range x.Cases {
		for _, w := range c.Warnings {
			out = append(out, c.Request.Case+": "+w)
		}
	}
	return out
}

// HashFormat names the canonical form Hash digests; it is the first bytes hashed, so a change
// of form changes every hash.
const HashFormat = "conform-expectations/1"

// Hash is the hex SHA-256 of the expectations in a canonical form, recorded in manifests so
// results checked against different answers are never combined.
//
// The digest covers HashFormat and a newline, then for each case in order six netstrings
// (decimal byte length, ':', the bytes, ','): case name, method, path (index substituted, with
// any query string), request body with insignificant JSON whitespace removed, decimal HTTP
// status, and the canonical response body. The canonical response body is the body with
// insignificant JSON whitespace removed and the value of a top-level "took" member replaced by
// 0, because took is a measurement rather than part of the answer; key order, number text and
// everything else are kept byte for byte. A body that is not JSON is hashed as it is.
// Warnings, the source name and the engine identity are not part of the hash: two oracles that
// give the same answers have the same hash, and a golden file hashes like the live
// Elasticsearch it was recorded from.
func (x *Expectations) Hash() string {
	h := sha256.New()
	h.Write([]byte(HashFormat + "\n"))
	var buf []byte
	net := func(b []byte) {
		buf = strconv.AppendInt(buf[:0], int64(len(b)), 10)
		buf = append(buf, ':')
		h.Write(buf)
		h.Write(b)
		h.Write([]byte{','})
	}
	for _, c := range x.Cases {
		net([]byte(c.Request.Case))
		net([]byte(c.Request.Method))
		net([]byte(c.Request.Path))
		net(compactJSON(c.Request.Body))
		net([]byte(strconv.Itoa(c.Status)))
		net(CanonicalBody(c.Body))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// CanonicalBody is the form of a response body that Hash digests: compact JSON with a
// top-level took of 0, and the took of each search of an _msearch ("responses": [{"took":..},
// ...]) too, or the bytes unchanged when they are not JSON. (An answer with no "responses"
// array, every answer of the five built-in operations, canonicalises as before it was
// looked at, so recorded hashes keep.)
func CanonicalBody(body []byte) []byte {
	if !json.Valid(body) {
		return body
	}
	var b bytes.Buffer
	if err := json.Compact(&b, body); err != nil {
		return body
	}
	out := b.Bytes()
	if len(out) == 0 || out[0] != '{' {
		return out
	}
	type span struct{ at, n int }
	var spans []span // took values to write as 0, in body order
	if took := gjson.GetBytes(out, "took"); took.Exists() && took.Index > 0 && took.Raw != "0" {
		spans = append(spans, span{took.Index, len(took.Raw)})
	}
	if items := gjson.GetBytes(out, "responses.#.took"); items.IsArray() {
		vals := items.Array()
		for i, at := range items.Indexes {
			if i < len(vals) && at > 0 && vals[i].Raw != "0" {
				spans = append(spans, span{at, len(vals[i].Raw)})
			}
		}
	}
	if len(spans) == 0 {
		return out
	}
	canon := make([]byte, 0, len(out))
	last := 0
	for _, sp := range spans {
		if sp.at < last {
			return out // not in body order: leave the body as it is rather than guess
		}
		canon = append(canon, out[last:sp.at]...)
		canon = append(canon, '0')
		last = sp.at + sp.n
	}
	return append(canon, out[last:]...)
}

// compactJSON removes insignificant whitespace from JSON, and returns anything else unchanged.
func compactJSON(b []byte) []byte {
	if len(b) == 0 {
		return b
	}
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		return b
	}
	return out.Bytes()
}

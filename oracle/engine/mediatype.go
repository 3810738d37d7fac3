package engine

import (
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Media types and REST API compatibility, as Elasticsearch 8.15 negotiates them for every
// request before any handler runs. Each rule below was measured on real Elasticsearch 8.15.0
// (lab/realengines TestClientAPIs, headers):
//
//   - Accept and Content-Type are parsed as ParsedMediaType.parseMediaType does
//     (libs/x-content/.../ParsedMediaType.java): a value that is empty, "*/*" or holds a comma (a
//     media range) counts as absent; otherwise "type/subtype" must be tchars and each parameter
//     "name=value" without spaces around "=", else the request fails with 400
//     media_type_header_exception "Invalid media-type value on headers [Accept]" (or
//     [Content-Type]), caused by illegal_argument_exception "invalid media-type [v]" or "invalid
//     parameters for header [v]" (RestRequest's constructor, which parses Accept first).
//   - The compatible-with parameter is a version (RestCompatibleVersionHelper.getCompatibleVersion):
//     Accept's must be 8 or 7 ("Accept version must be either version 8 or 7, but found 9.
//     Accept=<the header as sent>"); with a body, Content-Type's must be too, must equal
//     Accept's (an absent one counts as 8), and both or neither must carry one; a failure is
//     400 media_type_header_exception "Invalid media-type value on headers [Accept,
//     Content-Type]" caused by status_exception with that message. Version 7 (on Accept, or on
//     Content-Type with a body) is REST API compatibility with 7.x: documents and hits carry
//     "_type":"_doc". A compatible-with that is not a number makes Elasticsearch drop the
//     connection (Byte.parseByte's NumberFormatException escapes); the engine declines it.
//   - A body whose Content-Type is no JSON media type is refused by RestController with 406
//     {"error":"Content-Type header [<value>] is not supported","status":406}, an absent header
//     counting as the empty value; its parameters are not checked (charset=ISO-8859-1 passes).
//     Without a body, Content-Type is not checked.
//   - The response's Content-Type is the Accept header's media type when it names an XContent
//     type, written as that type's canonical name followed by Accept's parameters, lower-cased
//     ("application/json;charset=utf-8", "application/vnd.elasticsearch+json;compatible-with=8";
//     application/x-ndjson and application/* answer application/json); otherwise the request
//     body's type without parameters; otherwise application/json.
//
// YAML, CBOR and Smile (by Accept, Content-Type or format=) are declined: the engine writes JSON.

// mediaType is a parsed Accept or Content-Type header.
type mediaType struct {
	raw      string
	typ, sub string
	params   map[string]string
}

var tchars = regexp.MustCompile("^[a-zA-z0-9!#$%&'*+\\-.^_`|~]+$")

var paramSplit = regexp.MustCompile(`[\s\t]*;`)

// parseMediaType returns nil for an absent value or a media range, and the reason an invalid
// value is refused.
func parseMediaType(v string) (*mediaType, string) {
	if v == "" || v == "*/*" || strings.Contains(v, ",") {
		return nil, ""
	}
	elems := paramSplit.Split(strings.ToLower(v), -1)
	ts := strings.Split(elems[0], "/")
	if len(ts) != 2 || !tchars.MatchString(strings.TrimSpace(ts[0])) || !tchars.MatchString(strings.TrimSpace(ts[1])) {
		return nil, "invalid media-type [" + v + "]"
	}
	m := &mediaType{raw: v, typ: strings.TrimSpace(ts[0]), sub: strings.TrimSpace(ts[1]), params: map[string]string{}}
	for _, p := range elems[1:] {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		kv := strings.Split(p, "=")
		if len(kv) != 2 || kv[0] == "" || kv[1] == "" || isSpace(kv[0][len(kv[0])-1]) || isSpace(kv[1][0]) {
			return nil, "invalid parameters for header [" + v + "]"
		}
		m.params[strings.TrimSpace(kv[0])] = strings.TrimSpace(kv[1])
	}
	return m, ""
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// xcontent is the XContent type a media type names: "json", "vnd+json", "yaml", ... or "".
func (m *mediaType) xcontent() string {
	if m == nil || m.typ != "application" {
		return ""
	}
	switch m.sub {
	case "json", "x-ndjson", "*":
		return "json"
	case "vnd.elasticsearch+json", "vnd.elasticsearch+x-ndjson":
		return "vnd+json"
	case "yaml", "smile", "cbor", "vnd.elasticsearch+yaml", "vnd.elasticsearch+smile", "vnd.elasticsearch+cbor":
		return "other"
	}
	return ""
}

func canonical(x string) string {
	if x == "vnd+json" {
		return "application/vnd.elasticsearch+json"
	}
	return "application/json"
}

// responseHeader writes the canonical media type with the header's parameters. Elasticsearch
// keeps them in an immutable Map whose iteration order varies from one JVM start to the next;
// the engine writes them sorted by name (with one parameter, as clients send, there is no order).
func (m *mediaType) responseHeader() string {
	s := canonical(m.xcontent())
	keys := make([]string, 0, len(m.params))
	for k := range m.params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		s += ";" + k + "=" + m.params[k]
	}
	return s
}

// negotiation is what the headers decide: the response's Content-Type, and REST API
// compatibility with 7.x.
type negotiation struct {
	contentType string
	v7          bool
}

// negotiate applies the rules above to a request's headers; hasBody is whether it has content.
// A refusal is returned as the status and body Elasticsearch sends.
func negotiate(h http.Header, hasBody bool, format string) (negotiation, int, []byte) {
	n := negotiation{contentType: "application/json"}
	acceptRaw := h.Get("Accept")
	accept, aerr := parseMediaType(acceptRaw)
	ctRaw := h.Get("Content-Type")
	ct, cerr := parseMediaType(ctRaw)
	if aerr != "" || cerr != "" {
		e := headerErr("Accept", aerr)
		if aerr == "" {
			e = headerErr("Content-Type", cerr)
		} else if cerr != "" {
			// RestRequest parses both and adds the second failure as suppressed.
			sup := headerErr("Content-Type", cerr)
			e.suppressed = append(e.suppressed, sup)
		}
		return n, e.status, e.body()
	}
	av, aok := compatVersion(accept)
	cv, cok := compatVersion(ct)
	if !aok || !cok {
		e := errUnsupportedf("a compatible-with parameter that is not a number (Elasticsearch 8.15 drops the connection)")
		return n, e.status, e.body()
	}
	if fail := checkVersions(accept, ct, av, cv, hasBody); fail != "" {
		// Elasticsearch keeps the two names in a Set.of (RestRequest.MediaTypeHeaderException),
		// whose iteration order Java draws at every JVM start: 8.15.0 answered [Accept,
		// Content-Type] on one start and [Content-Type, Accept] on another. Either is its
		// answer; the check reports an error's reason without failing it (class other).
		e := newErr(400, "media_type_header_exception", "Invalid media-type value on headers [Accept, Content-Type]")
		e.causedBy = newErr(400, "status_exception", "%s", fail)
		return n, e.status, e.body()
	}
	n.v7 = av == 7 || hasBody && cv == 7
	if hasBody {
		switch ct.xcontent() {
		case "json", "vnd+json":
		case "other":
			e := errUnsupportedf("request bodies of Content-Type [%s]: the engine reads JSON only", ctRaw)
			return n, e.status, e.body()
		default:
			return n, 406, []byte(`{"error":` + jsonString("Content-Type header ["+strings.Join(h.Values("Content-Type"), ",")+"] is not supported") + `,"status":406}`)
		}
	}
	if format != "" {
		if strings.ToLower(format) != "json" {
			e := errUnsupportedf("format [%s]: the engine writes JSON only", format)
			return n, e.status, e.body()
		}
		return n, 200, nil
	}
	switch accept.xcontent() {
	case "json", "vnd+json":
		n.contentType = accept.responseHeader()
		return n, 200, nil
	case "other":
		e := errUnsupportedf("Accept [%s]: the engine writes JSON only", acceptRaw)
		return n, e.status, e.body()
	}
	if hasBody {
		n.contentType = canonical(ct.xcontent())
	}
	return n, 200, nil
}

func headerErr(name, reason string) *esError {
	e := newErr(400, "media_type_header_exception", "Invalid media-type value on headers [%s]", name)
	e.causedBy = errIllegalArg("%s", reason)
	return e
}

// compatVersion reads the compatible-with parameter: 0 when absent, false when not a number.
func compatVersion(m *mediaType) (int, bool) {
	if m == nil {
		return 0, true
	}
	v, ok := m.params["compatible-with"]
	if !ok {
		return 0, true
	}
	n, err := strconv.ParseInt(v, 10, 8)
	if err != nil {
		return 0, false
	}
	return int(n), true
}

// checkVersions is RestCompatibleVersionHelper.getCompatibleVersion's validation.
func checkVersions(accept, ct *mediaType, av, cv int, hasBody bool) string {
	str := func(m *mediaType) string {
		if m == nil {
			return "null"
		}
		return m.raw
	}
	a, c := av, cv
	if a == 0 {
		a = 8
	}
	if c == 0 {
		c = 8
	}
	if a > 8 || a < 7 {
		return "Accept version must be either version 8 or 7, but found " + strconv.Itoa(a) + ". Accept=" + str(accept)
	}
	if !hasBody {
		return ""
	}
	if c > 8 || c < 7 {
		return "Content-Type version must be either version 8 or 7, but found " + strconv.Itoa(c) + ". Content-Type=" + str(ct)
	}
	if c != a {
		return "A compatible version is required on both Content-Type and Accept headers if either one has requested a compatible version and the compatible versions must match. Accept=" + str(accept) + ", Content-Type=" + str(ct)
	}
	if (cv == 0) != (av == 0) {
		return "A compatible version is required on both Content-Type and Accept headers if either one has requested a compatible version. Accept=" + str(accept) + ", Content-Type=" + str(ct)
	}
	return ""
}

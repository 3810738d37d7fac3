package engine

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tidwall/gjson"
)

// Point in time, as Elasticsearch 8.15 serves it (RestOpenPointInTimeAction,
// RestClosePointInTimeAction, SearchContextId, RestSearchAction.preparePointInTime), each answer
// measured on real Elasticsearch 8.15.0 (lab/realengines TestClientAPIs, pit):
//
//   - POST /{index}/_pit?keep_alive=1m answers {"id":"..."}; keep_alive is required
//     ("Validation Failed: 1: [keep_alive] is not specified;"), at most 24h (search.max_keep_alive).
//   - The id is SearchContextId's encoding, base64url with padding: the transport version
//     (8.15.0's, 8702002, as a vint), the shards (index name, index uuid, shard number; the node
//     id, no cluster alias, the context id as a long, the session id, no searcher id) and
//     the alias filters per index uuid (none). The engine writes its own node id and session.
//   - A search names the point in time in its body, {"pit":{"id":...,"keep_alive":...}}, and no
//     index (action_request_validation_exception "[indices] cannot be used with point in
//     time..."; so are routing and preference). Its response starts with "pit_id". A sort gets
//     the implicit tiebreaker _shard_doc ascending (the shard's request index << 32 | the
//     document number: the document number on one shard) unless it sorts on _shard_doc already;
//     no sort, no tiebreaker. keep_alive, when given, renews the context.
//   - An id whose context is gone (closed, expired, or never on this node) fails with 404
//     search_phase_execution_exception, each shard's search_context_missing_exception "No
//     search context found for id [N]" on the node the id names. An id that is not base64 fails
//     as Java's Base64 decoder does ("Last unit does not have enough valid bits").
//   - DELETE /_pit {"id":...} answers {"succeeded":true,"num_freed":1}, or 404
//     {"succeeded":false,"num_freed":0} when nothing was open.
//
// The engine's point in time is the index as it was when it opened: searching one over an index
// written since is declined, as is one over several indices.

const (
	// pitTransportVersion is TransportVersions.V_8_15_0's id, the version 8.15.0 writes ids with.
	pitTransportVersion = 8_702_002
	// maxKeepAlive is search.max_keep_alive's default.
	maxKeepAlive = 24 * time.Hour
)

// pitContext is an open point in time.
type pitContext struct {
	ix        *index
	gen       uint64
	keepAlive time.Duration
	expires   time.Time
}

// pits holds an engine's open points in time.
type pits struct {
	mu      sync.Mutex
	open    map[int64]*pitContext
	next    int64
	session string
}

func (p *pits) init() {
	if p.open == nil {
		p.open = map[int64]*pitContext{}
		var b [16]byte
		_, _ = rand.Read(b[:])
		p.session = base64.RawURLEncoding.EncodeToString(b[:])[:22]
	}
}

// pitID is a decoded point-in-time id.
type pitID struct {
	index, uuid, node, session string
	ctx                        int64
}

func encodePIT(id pitID) string {
	var b []byte
	b = binary.AppendUvarint(b, pitTransportVersion)
	b = binary.AppendUvarint(b, 1)
	b = appendJavaString(b, id.index)
	b = appendJavaString(b, id.uuid)
	b = binary.AppendUvarint(b, 0) // shard number
	b = appendJavaString(b, id.node)
	b = append(b, 0) // no cluster alias
	b = binary.BigEndian.AppendUint64(b, uint64(id.ctx))
	b = appendJavaString(b, id.session)
	b = append(b, 0) // no searcher id
	b = binary.AppendUvarint(b, 1)
	b = appendJavaString(b, id.uuid)
	b = append(b, 0, 0) // AliasFilter: no filter, no aliases
	return base64.URLEncoding.EncodeToString(b)
}

// appendJavaString is StreamOutput.writeString for the ASCII names the engine writes.
func appendJavaString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// decodePIT reads an id. A failure of the base64 decoding is Java's message; an id that decodes
// but is not one the engine can read is declined (ok false, no error).
func decodePIT(s string) (pitID, *esError, bool) {
	raw, msg := javaBase64URLDecode(s)
	if msg != "" {
		return pitID{}, errIllegalArg("%s", msg), false
	}
	r := bytes.NewReader(raw)
	str := func() (string, bool) {
		n, err := binary.ReadUvarint(r)
		if err != nil || n > uint64(r.Len()) {
			return "", false
		}
		b := make([]byte, n)
		_, _ = r.Read(b)
		return string(b), true
	}
	var id pitID
	var ok bool
	if _, err := binary.ReadUvarint(r); err != nil {
		return id, nil, false
	}
	if n, err := binary.ReadUvarint(r); err != nil || n != 1 {
		return id, nil, false
	}
	if id.index, ok = str(); !ok {
		return id, nil, false
	}
	if id.uuid, ok = str(); !ok {
		return id, nil, false
	}
	if shard, err := binary.ReadUvarint(r); err != nil || shard != 0 {
		return id, nil, false
	}
	if id.node, ok = str(); !ok {
		return id, nil, false
	}
	if alias, err := r.ReadByte(); err != nil || alias != 0 {
		return id, nil, false
	}
	var ctx [8]byte
	if n, _ := r.Read(ctx[:]); n != 8 {
		return id, nil, false
	}
	id.ctx = int64(binary.BigEndian.Uint64(ctx[:]))
	if id.session, ok = str(); !ok {
		return id, nil, false
	}
	return id, nil, true
}

// javaBase64URLDecode is java.util.Base64.getUrlDecoder().decode, with its error messages.
func javaBase64URLDecode(s string) ([]byte, string) {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	if len(s) == 1 {
		return nil, "Input byte[] should at least have 2 bytes for base64 bytes"
	}
	var out []byte
	bits, n := 0, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '=' {
			// Base64.Decoder.decode0: "=" ends the data; it must complete a unit of two
			// ("==") or three characters, and nothing may follow.
			if n == 0 || n == 2 && (i+1 == len(s) || s[i+1] != '=') {
				return nil, "Input byte array has wrong 4-byte ending unit"
			}
			if n == 2 {
				i++
			}
			if n != 1 && i+1 < len(s) {
				return nil, fmt.Sprintf("Input byte array has incorrect ending byte at %d", i+1)
			}
			break
		}
		v := strings.IndexByte(alphabet, c)
		if v < 0 {
			return nil, fmt.Sprintf("Illegal base64 character %x", c)
		}
		bits = bits<<6 | v
		n++
		if n == 4 {
			out = append(out, byte(bits>>16), byte(bits>>8), byte(bits))
			bits, n = 0, 0
		}
	}
	switch n {
	case 1:
		return nil, "Last unit does not have enough valid bits"
	case 2:
		out = append(out, byte(bits>>4))
	case 3:
		out = append(out, byte(bits>>10), byte(bits>>2))
	}
	return out, ""
}

// parseKeepAlive is TimeValue.parseTimeValue for the forms clients send: a whole number and a
// unit.
func parseKeepAlive(v, setting string) (time.Duration, *esError) {
	s := strings.ToLower(strings.TrimSpace(v))
	units := []struct {
		suffix string
		unit   time.Duration
	}{{"nanos", time.Nanosecond}, {"micros", time.Microsecond}, {"ms", time.Millisecond}, {"s", time.Second},
		{"m", time.Minute}, {"h", time.Hour}, {"d", 24 * time.Hour}}
	for _, u := range units {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
			if err != nil || n < 0 {
				return 0, errUnsupportedf("the time value [%s] for [%s]", v, setting)
			}
			return time.Duration(n) * u.unit, nil
		}
	}
	if s == "-1" || s == "0" {
		return 0, errUnsupportedf("the time value [%s] for [%s]", v, setting)
	}
	return 0, errIllegalArg("failed to parse setting [%s] with value [%s] as a time value: unit is missing or unrecognized", setting, v)
}

func (e *Engine) handleOpenPIT(method, path, expr string, params url.Values) (int, []byte) {
	if method != "POST" {
		return methodNotAllowed(path, method, "POST")
	}
	if err := checkParams(path, params, "keep_alive", "routing", "preference", "ignore_unavailable", "expand_wildcards",
		"allow_partial_search_results", "max_concurrent_shard_requests"); err != nil {
		return errResp(err)
	}
	var msg []string
	if expr == "" {
		msg = append(msg, "[index] is not specified")
	}
	if !params.Has("keep_alive") {
		msg = append(msg, "[keep_alive] is not specified")
	}
	if len(msg) > 0 {
		var s strings.Builder
		for i, m := range msg {
			fmt.Fprintf(&s, "%d: %s;", i+1, m)
		}
		return errResp(newErr(400, "action_request_validation_exception", "Validation Failed: %s", s.String()))
	}
	keep, err := parseKeepAlive(params.Get("keep_alive"), "keep_alive")
	if err != nil {
		return errResp(err)
	}
	if keep > maxKeepAlive {
		return errResp(errUnsupportedf("a keep_alive over search.max_keep_alive (24h)"))
	}
	ixs, err := e.resolveIndices(expr)
	if err != nil {
		return errResp(err)
	}
	if len(ixs) != 1 {
		return errResp(errUnsupportedf("a point in time over %d indices", len(ixs)))
	}
	ix := ixs[0]
	ix.readLock()
	gen := ix.gen
	ix.mu.RUnlock()
	now := time.Now()
	e.pit.mu.Lock()
	e.pit.init()
	e.pit.reap(now)
	e.pit.next++
	ctx := e.pit.next
	e.pit.open[ctx] = &pitContext{ix: ix, gen: gen, keepAlive: keep, expires: now.Add(keep)}
	session := e.pit.session
	e.pit.mu.Unlock()
	id := encodePIT(pitID{index: ix.name, uuid: ix.uuid, node: nodeID, session: session, ctx: ctx})
	return 200, []byte(`{"id":` + jsonString(id) + `}`)
}

// reap drops expired contexts; the caller holds mu.
func (p *pits) reap(now time.Time) {
	for k, c := range p.open {
		if now.After(c.expires) {
			delete(p.open, k)
		}
	}
}

func (e *Engine) handleClosePIT(method, path string, params url.Values, body []byte) (int, []byte) {
	if method != "DELETE" {
		return methodNotAllowed(path, method, "DELETE")
	}
	if err := checkParams(path, params); err != nil {
		return errResp(err)
	}
	body = trimSpace(body)
	if len(body) == 0 {
		return errResp(newErr(400, "parse_exception", "request body or source parameter is required"))
	}
	if !gjson.ValidBytes(body) || !gjson.ParseBytes(body).IsObject() {
		return errResp(errUnsupportedf("a DELETE /_pit body that is not a JSON object"))
	}
	var id string
	var err *esError
	gjson.ParseBytes(body).ForEach(func(k, v gjson.Result) bool {
		if k.String() != "id" || v.Type != gjson.String {
			err = errIllegalArg("Unknown parameter [%s] in request body or parameter is of the wrong type[FIELD_NAME] ", k.String())
			return false
		}
		// ClosePointInTimeRequest decodes the id as it reads it.
		id = v.Str
		if id != "" {
			_, err, _ = decodePIT(id)
		}
		return err == nil
	})
	if err != nil {
		return errResp(err)
	}
	if id == "" {
		return errResp(errIllegalArg("search context id is is not provided"))
	}
	pid, derr, ok := decodePIT(id)
	if derr != nil {
		return errResp(derr)
	}
	if !ok {
		return errResp(errUnsupportedf("a point in time id the engine cannot read"))
	}
	e.pit.mu.Lock()
	e.pit.init()
	e.pit.reap(time.Now())
	_, found := e.pit.open[pid.ctx]
	if found && pid.node == nodeID && pid.session == e.pit.session {
		delete(e.pit.open, pid.ctx)
	} else {
		found = false
	}
	e.pit.mu.Unlock()
	if !found {
		return 404, []byte(`{"succeeded":false,"num_freed":0}`)
	}
	return 200, []byte(`{"succeeded":true,"num_freed":1}`)
}

// pitRef is a search body's "pit".
type pitRef struct {
	id        string
	keepAlive time.Duration
	hasKeep   bool
}

// parsePITRef reads {"id":..., "keep_alive":...}; body is the whole request body, for the
// [line:col] Elasticsearch's parser puts in front of its messages.
func parsePITRef(v gjson.Result, body []byte) (*pitRef, *esError) {
	if !v.IsObject() {
		return nil, errUnsupportedf("a [pit] that is not an object")
	}
	p := &pitRef{}
	var err *esError
	v.ForEach(func(k, x gjson.Result) bool {
		switch k.String() {
		case "id":
			p.id = x.String()
			if _, derr, _ := decodePIT(p.id); derr != nil {
				e := newErr(400, "x_content_parse_exception", "%s [pit] failed to parse field [id]", lineCol(body, x.Index))
				e.causedBy = derr
				err = e
			}
		case "keep_alive":
			p.keepAlive, err = parseKeepAlive(x.String(), "keep_alive")
			p.hasKeep = true
		default:
			err = newErr(400, "x_content_parse_exception", "%s [pit] unknown field [%s]", lineCol(body, k.Index), k.String())
		}
		return err == nil
	})
	if err != nil {
		return nil, err
	}
	if p.id == "" {
		return nil, errIllegalArg("point in time id is not provided")
	}
	return p, nil
}

// lineCol is Jackson's "[line:column]" of a byte offset, both from 1.
func lineCol(body []byte, off int) string {
	if off < 0 || off > len(body) {
		off = 0
	}
	line, col := 1, 1
	for _, c := range body[:off] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return "[" + strconv.Itoa(line) + ":" + strconv.Itoa(col) + "]"
}

// resolvePIT finds the index of a search's point in time and renews its keep-alive, or says what
// Elasticsearch answers for a context that is gone.
func (e *Engine) resolvePIT(p *pitRef) (*index, *esError) {
	pid, derr, ok := decodePIT(p.id)
	if derr != nil {
		return nil, derr
	}
	if !ok {
		return nil, errUnsupportedf("a point in time id the engine cannot read")
	}
	now := time.Now()
	e.pit.mu.Lock()
	e.pit.init()
	e.pit.reap(now)
	c := e.pit.open[pid.ctx]
	if c != nil && (pid.node != nodeID || pid.session != e.pit.session) {
		c = nil
	}
	if c != nil {
		if p.hasKeep {
			c.keepAlive = p.keepAlive
		}
		c.expires = now.Add(c.keepAlive)
	}
	e.pit.mu.Unlock()
	if c == nil {
		missing := newErr(404, "search_context_missing_exception", "No search context found for id [%d]", pid.ctx)
		return nil, errSearchPhase([]shardFailure{{index: pid.index, node: pid.node, err: missing}})
	}
	c.ix.readLock()
	changed := c.ix.gen != c.gen
	c.ix.mu.RUnlock()
	if changed {
		return nil, errUnsupportedf("a point in time over index [%s], written since it was opened", c.ix.name)
	}
	return c.ix, nil
}

// pitIndices validates a search with a point in time (RestSearchAction.preparePointInTime and
// SearchRequest.validate) and returns its index.
func (e *Engine) pitIndices(r *searchReq, expr string, params url.Values) ([]*index, *esError) {
	var msg []string
	if expr != "" {
		msg = append(msg, "[indices] cannot be used with point in time. Do not specify any index with point in time.")
	}
	for _, p := range []string{"routing", "preference"} {
		if params.Has(p) {
			msg = append(msg, "["+p+"] cannot be used with point in time")
		}
	}
	if len(msg) > 0 {
		var s strings.Builder
		for i, m := range msg {
			fmt.Fprintf(&s, "%d: %s;", i+1, m)
		}
		return nil, newErr(400, "action_request_validation_exception", "Validation Failed: %s", s.String())
	}
	ix, err := e.resolvePIT(r.pit)
	if err != nil {
		return nil, err
	}
	return []*index{ix}, nil
}

// validateShardDoc is SearchRequest.validate's check that _shard_doc sorts only within a point
// in time.
func (r *searchReq) validateShardDoc() *esError {
	if r.pit != nil {
		return nil
	}
	for _, s := range r.sorts {
		if s.field == "_shard_doc" {
			return newErr(400, "action_request_validation_exception", "Validation Failed: 1: [_shard_doc] sort field cannot be used without [point in time];")
		}
	}
	return nil
}

package engine

import (
	"fmt"
	"strconv"
)

// UnsupportedType is the error type the engine answers, with status 400, for a request outside
// the scalar subset it implements (full-text analysis it cannot reproduce exactly, scripts,
// other aggregations...). It is not an Elasticsearch type: a client can always tell "the
// engine does not know" from an answer Elasticsearch would give.
const UnsupportedType = "conform_unsupported_exception"

// UnsupportedHeader carries the reason of an unsupported answer to a HEAD request, which has
// no body to say it in.
const UnsupportedHeader = "X-Conform-Unsupported"

// IsUnsupported reports whether a response is the engine's unsupported answer.
func IsUnsupported(status int, body []byte) bool {
	return status == 400 && indexOf(body, []byte(`"type":"`+UnsupportedType+`"`)) >= 0
}

func indexOf(b, sub []byte) int {
	for i := 0; i+len(sub) <= len(b); i++ {
		if string(b[i:i+len(sub)]) == string(sub) {
			return i
		}
	}
	return -1
}

// esError is an exception in Elasticsearch's error envelope.
type esError struct {
	status int
	typ    string
	reason string
	// extra are fields written after reason, in order, as raw JSON values.
	extra []kv
	// rootCauses, when set, replace the default root cause (the error itself).
	rootCauses []*esError
	causedBy   *esError
	// suppressed are exceptions Java attached with addSuppressed, written after caused_by.
	suppressed []*esError
}

type kv struct {
	k string
	v string // raw JSON
}

func (e *esError) Error() string { return e.typ + ": " + e.reason }

func (e *esError) with(k, rawJSON string) *esError {
	e.extra = append(e.extra, kv{k, rawJSON})
	return e
}

func newErr(status int, typ, format string, args ...any) *esError {
	return &esError{status: status, typ: typ, reason: fmt.Sprintf(format, args...)}
}

func errUnsupportedf(format string, args ...any) *esError {
	return &esError{status: 400, typ: UnsupportedType,
		reason: "unsupported by conform's embedded engine: " + fmt.Sprintf(format, args...)}
}

func errIllegalArg(format string, args ...any) *esError {
	return newErr(400, "illegal_argument_exception", format, args...)
}

// errParsing is a parsing_exception. Elasticsearch adds the line and column of the offending
// token; the engine gives line 1 and the byte offset plus one, which is exact for a
// single-line body.
func errParsing(pos int, format string, args ...any) *esError {
	e := newErr(400, "parsing_exception", format, args...)
	if pos >= 0 {
		e.with("line", "1").with("col", strconv.Itoa(pos+1))
	}
	return e
}

func errXContent(pos int, format string, args ...any) *esError {
	e := newErr(400, "x_content_parse_exception", format, args...)
	if pos >= 0 {
		e.extra = append([]kv{{"line", "1"}, {"col", strconv.Itoa(pos + 1)}}, e.extra...)
	}
	return e
}

func errIndexNotFound(index string) *esError {
	q := jsonString(index)
	return newErr(404, "index_not_found_exception", "no such index [%s]", index).
		with("resource.type", `"index_or_alias"`).with("resource.id", q).
		with("index_uuid", `"_na_"`).with("index", q)
}

// nodeID is the engine's fixed node id, shaped like Elasticsearch's.
const nodeID = "c0nf0rmEmbeddedEngine1"

// shardFailure is a failure of the query phase on one index; the coordinator wraps all of
// them in a search_phase_execution_exception.
type shardFailure struct {
	index string
	err   *esError
	node  string // the node that failed, the engine's own when empty
}

func (f shardFailure) nodeName() string {
	if f.node == "" {
		return nodeID
	}
	return f.node
}

func errSearchPhase(failures []shardFailure) *esError {
	top := &esError{status: failures[0].err.status, typ: "search_phase_execution_exception", reason: "all shards failed"}
	top.with("phase", `"query"`).with("grouped", "true")
	var fs []byte
	fs = append(fs, '[')
	seen := map[string]bool{}
	for i, f := range failures {
		if i > 0 {
			fs = append(fs, ',')
		}
		fs = append(fs, `{"shard":0,"index":`...)
		fs = appendJSONString(fs, f.index)
		fs = append(fs, `,"node":`...)
		fs = appendJSONString(fs, f.nodeName())
		fs = append(fs, `,"reason":`...)
		fs = f.err.appendCause(fs)
		fs = append(fs, '}')
		key := f.err.typ + "\x00" + f.err.reason
		if !seen[key] {
			seen[key] = true
			top.rootCauses = append(top.rootCauses, f.err)
		}
	}
	fs = append(fs, ']')
	top.with("failed_shards", string(fs))
	top.causedBy = guessedCause(failures[0].err)
	for _, f := range failures {
		if f.err.status > top.status {
			top.status = f.err.status
		}
	}
	return top
}

// appendCause writes {"type","reason",extra...,"caused_by"}.
func (e *esError) appendCause(b []byte) []byte {
	b = append(b, `{"type":`...)
	b = appendJSONString(b, e.typ)
	b = append(b, `,"reason":`...)
	b = appendJSONString(b, e.reason)
	for _, x := range e.extra {
		b = append(b, ',')
		b = appendJSONString(b, x.k)
		b = append(b, ':')
		b = append(b, x.v...)
	}
	if e.causedBy != nil {
		b = append(b, `,"caused_by":`...)
		b = e.causedBy.appendCause(b)
	}
	if len(e.suppressed) > 0 {
		b = append(b, `,"suppressed":[`...)
		for i, s := range e.suppressed {
			if i > 0 {
				b = append(b, ',')
			}
			b = s.appendCause(b)
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// body renders the full envelope: {"error":{"root_cause":[...],...},"status":N}.
func (e *esError) body() []byte {
	b := make([]byte, 0, 256)
	b = append(b, `{"error":{"root_cause":[`...)
	roots := e.rootCauses
	if roots == nil {
		roots = []*esError{e}
	}
	for i, r := range roots {
		if i > 0 {
			b = append(b, ',')
		}
		rc := *r
		rc.causedBy, rc.suppressed = nil, nil
		b = rc.appendCause(b)
	}
	b = append(b, "],"...)
	inner := e.appendCause(nil)
	b = append(b, inner[1:len(inner)-1]...)
	b = append(b, `},"status":`...)
	b = strconv.AppendInt(b, int64(e.status), 10)
	return append(b, '}')
}

// javaExceptions are the error types the engine produces that are plain Java exceptions, not
// ElasticsearchExceptions.
var javaExceptions = map[string]bool{
	"illegal_argument_exception": true, "number_format_exception": true,
	"illegal_state_exception": true, "x_content_parse_exception": true,
}

// guessedCause is the top-level caused_by of "all shards failed". AbstractSearchAsyncAction
// passes ElasticsearchException.guessRootCauses(first failure's cause)[0], and
// SearchPhaseExecutionException.deduplicateCause drops it when it is that failure's cause
// itself. An ElasticsearchException whose own cause is a plain Java exception is its own guessed
// root cause, so a query_shard_exception leaves no caused_by; a plain Java exception comes back
// wrapped, its type and reason with itself as the cause, so the window error shows
// illegal_argument_exception twice. Both confirmed on real Elasticsearch 8.15.0
// (lab/realengines TestElasticsearchRules, errors).
func guessedCause(e *esError) *esError {
	g := e
	for !javaExceptions[g.typ] && g.causedBy != nil && !javaExceptions[g.causedBy.typ] {
		g = g.causedBy
	}
	if javaExceptions[g.typ] {
		return &esError{status: g.status, typ: g.typ, reason: g.reason, causedBy: g}
	}
	if g == e {
		return nil
	}
	return g
}

package oracle

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/conform-dev/conform/fixtures"
)

// GoldenFormat is the format tag of a golden file and of `conform oracle expect` output.
// GOLDEN.md beside this file documents the format.
const GoldenFormat = "conform-golden/1"

// GoldenHeader is everything in a golden file except the cases.
type GoldenHeader struct {
	Format string `json:"format"`
	// Source is the oracle that answered, credentials redacted: "live:URL" for a recording.
	Source     string          `json:"source"`
	Engine     *Identity       `json:"engine,omitempty"`
	RecordedAt time.Time       `json:"recorded_at"`
	Fixtures   fixtures.Hashes `json:"fixtures"`
	Settings   GoldenSettings  `json:"settings"`
	Hash       string          `json:"hash"` // Expectations.Hash of the cases
	Caveats    []string        `json:"caveats,omitempty"`
}

// GoldenSettings are the settings the answers were computed under.
type GoldenSettings struct {
	Index          string `json:"index"`
	TrackTotalHits string `json:"track_total_hits"`
}

// goldenCase is one line of a golden file.
type goldenCase struct {
	Case   string          `json:"case"`
	Op     string          `json:"op"`
	Method string          `json:"method"`
	Path   string          `json:"path"`
	Body   json.RawMessage `json:"body,omitempty"`
	// BodyText holds a request body that is not one JSON value (an _msearch's NDJSON).
	BodyText *string `json:"body_text,omitempty"`
	Status   int     `json:"status"`
	// Response is the body when it is JSON; ResponseText holds any other body.
	Response     json.RawMessage `json:"response,omitempty"`
	ResponseText *string         `json:"response_text,omitempty"`
	Warnings     []string        `json:"warnings,omitempty"`
}

// GoldenError is a problem in a golden file, located by line when it is on one.
type GoldenError struct {
	File string
	Line int
	Msg  string
}

func (e *GoldenError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("golden file %s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("golden file %s: %s", e.File, e.Msg)
}

// WriteExpectations writes expectations in the golden format: a header line, then one case per
// line, so a diff of two files reads case by case. meta gives the fixtures' hashes and at the
// time recorded. JSON bodies are written compact and otherwise byte for byte (no HTML
// escaping), so a golden file hashes like the answers it was recorded from.
func WriteExpectations(w io.Writer, x *Expectations, meta fixtures.Meta, at time.Time) error {
	h := GoldenHeader{
		Format:     GoldenFormat,
		Source:     x.Source,
		Engine:     x.Engine,
		RecordedAt: at.UTC(),
		Fixtures:   meta.SHA256,
		Settings:   GoldenSettings{Index: x.Settings.Index, TrackTotalHits: string(x.Settings.TrackTotalHits)},
		Hash:       x.Hash(),
		Caveats:    x.Caveats,
	}
	bw := bufio.NewWriter(w)
	head, err := marshalLine(h)
	if err != nil {
		return err
	}
	bw.Write(head[:len(head)-1]) // drop the closing brace to append the cases
	bw.WriteString(`,"cases":[` + "\n")
	for i, c := range x.Cases {
		gc := goldenCase{Case: c.Request.Case, Op: c.Request.Op, Method: c.Request.Method, Path: c.Request.Path,
			Status: c.Status, Warnings: c.Warnings}
		if c.Request.Body != nil {
			if json.Valid(c.Request.Body) {
				gc.Body = c.Request.Body
			} else {
				text := string(c.Request.Body)
				gc.BodyText = &text
			}
		}
		if len(c.Body) > 0 && json.Valid(c.Body) {
			gc.Response = c.Body
		} else {
			text := string(c.Body)
			gc.ResponseText = &text
		}
		line, err := marshalLine(gc)
		if err != nil {
			return fmt.Errorf("case %s: %w", c.Request.Case, err)
		}
		bw.Write(line)
		if i < len(x.Cases)-1 {
			bw.WriteByte(',')
		}
		bw.WriteByte('\n')
	}
	bw.WriteString("]}\n")
	return bw.Flush()
}

// marshalLine encodes v compactly on one line without HTML escaping.
func marshalLine(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'}), nil
}

// ReadExpectations parses a golden file (or `conform oracle expect` output) and checks that its
// cases hash to the hash in its header. It does not compare it with any fixtures; Golden.Expect
// does. Errors name the file and, where there is one, the line.
func ReadExpectations(file string, data []byte) (*GoldenHeader, *Expectations, error) {
	h, x, _, err := readGolden(file, data)
	return h, x, err
}

func readGolden(file string, data []byte) (*GoldenHeader, *Expectations, []int, error) {
	bad := func(off int64, format string, args ...any) error {
		return &GoldenError{File: file, Line: lineAt(data, off), Msg: fmt.Sprintf(format, args...)}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	tok, err := dec.Token()
	if err != nil {
		return nil, nil, nil, jsonErr(file, data, 0, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, nil, nil, bad(0, "must be a JSON object (format, source, ..., cases)")
	}
	var h GoldenHeader
	var cases []Expected
	var lines []int
	seen := map[string]bool{}
	for dec.More() {
		keyOff := skipSpace(data, dec.InputOffset())
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, nil, jsonErr(file, data, 0, err)
		}
		key, _ := tok.(string)
		if seen[key] {
			return nil, nil, nil, bad(keyOff, "%q appears twice", key)
		}
		seen[key] = true
		var dst any
		switch key {
		case "format":
			dst = &h.Format
		case "source":
			dst = &h.Source
		case "engine":
			dst = &h.Engine
		case "recorded_at":
			dst = &h.RecordedAt
		case "fixtures":
			dst = &h.Fixtures
		case "settings":
			dst = &h.Settings
		case "hash":
			dst = &h.Hash
		case "caveats":
			dst = &h.Caveats
		case "cases":
			if h.Format != GoldenFormat {
				return nil, nil, nil, bad(keyOff, "format is %q, want %q (and it must come first)", h.Format, GoldenFormat)
			}
			tok, err := dec.Token()
			if err != nil {
				return nil, nil, nil, jsonErr(file, data, 0, err)
			}
			if d, ok := tok.(json.Delim); !ok || d != '[' {
				return nil, nil, nil, bad(keyOff, "cases must be an array")
			}
			for dec.More() {
				base := valueBase(data, dec.InputOffset())
				start := skipSpace(data, base)
				var raw json.RawMessage
				if err := dec.Decode(&raw); err != nil {
					return nil, nil, nil, relocate(file, data, base, err)
				}
				c, err := parseGoldenCase(file, data, start, raw)
				if err != nil {
					return nil, nil, nil, err
				}
				cases = append(cases, c)
				lines = append(lines, lineAt(data, start))
			}
			if _, err := dec.Token(); err != nil {
				return nil, nil, nil, jsonErr(file, data, 0, err)
			}
			continue
		default:
			return nil, nil, nil, bad(keyOff, "unknown field %q", key)
		}
		base := valueBase(data, dec.InputOffset())
		if err := dec.Decode(dst); err != nil {
			return nil, nil, nil, relocate(file, data, base, err)
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, nil, nil, jsonErr(file, data, 0, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, nil, nil, bad(dec.InputOffset(), "trailing data after the JSON object")
	}
	if h.Format != GoldenFormat {
		return nil, nil, nil, bad(0, "format is %q, want %q", h.Format, GoldenFormat)
	}
	for _, field := range []string{"source", "recorded_at", "fixtures", "settings", "hash", "cases"} {
		if !seen[field] {
			return nil, nil, nil, &GoldenError{File: file, Msg: fmt.Sprintf("has no %q", field)}
		}
	}
	if len(cases) == 0 {
		return nil, nil, nil, &GoldenError{File: file, Msg: "has no cases"}
	}
	names := map[string]int{}
	for i, c := range cases {
		if prev, dup := names[c.Request.Case]; dup {
			return nil, nil, nil, &GoldenError{File: file, Line: lines[i], Msg: fmt.Sprintf("case %q repeats line %d", c.Request.Case, lines[prev])}
		}
		names[c.Request.Case] = i
	}
	tth, err := fixtures.ParseTotalHits(h.Settings.TrackTotalHits)
	if err != nil {
		return nil, nil, nil, &GoldenError{File: file, Msg: "settings: " + err.Error()}
	}
	x := NewExpectations(h.Source, Settings{Index: h.Settings.Index, TrackTotalHits: tth}, cases)
	x.Engine, x.Caveats = h.Engine, h.Caveats
	if got := x.Hash(); got != h.Hash {
		return nil, nil, nil, &GoldenError{File: file, Msg: fmt.Sprintf(
			"its cases hash to %s but its header records %s: the file was edited or truncated", short(got), short(h.Hash))}
	}
	return &h, x, lines, nil
}

func parseGoldenCase(file string, data []byte, start int64, raw []byte) (Expected, error) {
	var gc goldenCase
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	if err := d.Decode(&gc); err != nil {
		return Expected{}, jsonErr(file, data, start, err)
	}
	bad := func(format string, args ...any) error {
		return &GoldenError{File: file, Line: lineAt(data, start), Msg: fmt.Sprintf(format, args...)}
	}
	switch {
	case gc.Case == "":
		return Expected{}, bad("a case has no name")
	case gc.Method == "" || !strings.HasPrefix(gc.Path, "/"):
		return Expected{}, bad("case %s: method and a path starting with / are required", gc.Case)
	case gc.Status < 100 || gc.Status > 599:
		return Expected{}, bad("case %s: status %d is not an HTTP status", gc.Case, gc.Status)
	case gc.Response == nil && gc.ResponseText == nil:
		return Expected{}, bad("case %s: has neither response nor response_text", gc.Case)
	case gc.Response != nil && gc.ResponseText != nil:
		return Expected{}, bad("case %s: has both response and response_text", gc.Case)
	case gc.Body != nil && gc.BodyText != nil:
		return Expected{}, bad("case %s: has both body and body_text", gc.Case)
	}
	x := Expected{
		Request:  fixtures.Request{Case: gc.Case, Op: gc.Op, Method: gc.Method, Path: gc.Path},
		Status:   gc.Status,
		Warnings: gc.Warnings,
	}
	if gc.Body != nil && !bytes.Equal(gc.Body, []byte("null")) {
		x.Request.Body = []byte(gc.Body)
	}
	if gc.BodyText != nil {
		x.Request.Body = []byte(*gc.BodyText)
	}
	if gc.Response != nil {
		x.Body = []byte(gc.Response)
	} else {
		x.Body = []byte(*gc.ResponseText)
	}
	return x, nil
}

// Golden is an oracle read from a golden file recorded from a live Elasticsearch.
type Golden struct {
	Path string
	// Header is set by Expect to the file's header.
	Header *GoldenHeader
}

// Name is "golden:" and the file.
func (g *Golden) Name() string { return "golden:" + g.Path }

// Expect reads the golden file and refuses it unless it was recorded from a live engine for
// exactly these fixtures and settings: the corpus, mapping and workload hashes, the index and
// track_total_hits, and every case's request must match. The requests sent are then the
// workload's own bytes.
func (g *Golden) Expect(ctx context.Context, f *fixtures.Fixtures, s Settings) (*Expectations, error) {
	data, err := os.ReadFile(g.Path)
	if err != nil {
		return nil, fmt.Errorf("reading golden file: %w", err)
	}
	h, x, lines, err := readGolden(g.Path, data)
	if err != nil {
		return nil, err
	}
	refuse := func(line int, format string, args ...any) error {
		return &GoldenError{File: g.Path, Line: line, Msg: fmt.Sprintf(format, args...)}
	}
	if !strings.HasPrefix(h.Source, "live:") {
		return nil, refuse(1, "was written by the %s oracle, not recorded from a live Elasticsearch; record one with `conform oracle record`", h.Source)
	}
	hashes := []struct{ what, file, got string }{
		{"corpus", h.Fixtures.Corpus, f.Meta.SHA256.Corpus},
		{"mapping", h.Fixtures.Mapping, f.Meta.SHA256.Mapping},
		{"workload", h.Fixtures.Workload, f.Meta.SHA256.Workload},
	}
	for _, c := range hashes {
		if c.file != c.got {
			return nil, fmt.Errorf("golden file %s recorded for %s sha256 %s, fixtures have %s", g.Path, c.what, short(c.file), short(c.got))
		}
	}
	s = s.withDefaults(f.Workload)
	if h.Settings.Index != s.Index {
		return nil, fmt.Errorf("golden file %s recorded with index %q, this run uses %q", g.Path, h.Settings.Index, s.Index)
	}
	if h.Settings.TrackTotalHits != string(s.TrackTotalHits) {
		return nil, fmt.Errorf("golden file %s recorded with track_total_hits %s, this run uses %s", g.Path, h.Settings.TrackTotalHits, s.TrackTotalHits)
	}
	w := f.Workload
	if len(x.Cases) != len(w.Cases) {
		return nil, fmt.Errorf("golden file %s has %d cases, the workload has %d", g.Path, len(x.Cases), len(w.Cases))
	}
	for i := range w.Cases {
		c := &w.Cases[i]
		if x.Cases[i].Request.Case != c.Name {
			return nil, refuse(lines[i], "case %d is %s, the workload's is %s", i, x.Cases[i].Request.Case, c.Name)
		}
		var cursor json.RawMessage
		if c.After != "" {
			page := x.Get(c.After)
			if page == nil {
				return nil, refuse(lines[i], "case %s continues %s, which the file does not have", c.Name, c.After)
			}
			if cursor, err = Cursor(page); err != nil {
				return nil, refuse(lines[i], "case %s continues %s: %v", c.Name, c.After, err)
			}
		}
		req, err := c.Request(s.Index, s.TrackTotalHits, cursor)
		if err != nil {
			return nil, err
		}
		rec := x.Cases[i].Request
		if rec.Method != req.Method || rec.Path != req.Path || !bytes.Equal(compactJSON(rec.Body), compactJSON(req.Body)) {
			return nil, refuse(lines[i], "case %s was recorded as %s %s %s, the workload asks %s %s %s",
				c.Name, rec.Method, rec.Path, rec.Body, req.Method, req.Path, req.Body)
		}
		x.Cases[i].Request = req
	}
	x.Source = g.Name()
	g.Header = h
	return x, nil
}

// lineAt returns the 1-based line of a byte offset.
func lineAt(data []byte, off int64) int {
	off = max(0, min(off, int64(len(data))))
	return bytes.Count(data[:off], []byte{'\n'}) + 1
}

func skipSpace(data []byte, off int64) int64 {
	for off < int64(len(data)) {
		switch data[off] {
		case ' ', '\t', '\r', '\n', ',', ':':
			off++
		default:
			return off
		}
	}
	return off
}

// valueBase returns where json.Decoder starts counting the offsets of a value's syntax errors:
// after the ',' or ':' that precedes it, before any other white space.
func valueBase(data []byte, off int64) int64 {
	p := off
	for p < int64(len(data)) && (data[p] == ' ' || data[p] == '\t' || data[p] == '\r' || data[p] == '\n') {
		p++
	}
	if p < int64(len(data)) && (data[p] == ',' || data[p] == ':') {
		return p + 1
	}
	return off
}

// relocate locates an error of a Decode that started at base. json.Decoder counts a syntax
// error's offset over the bytes its Decode calls scanned, not from the start of the input, so
// the value is decoded again from base by a fresh decoder to find where it breaks.
func relocate(file string, data []byte, base int64, err error) error {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		var raw json.RawMessage
		if err2 := json.NewDecoder(bytes.NewReader(data[base:])).Decode(&raw); err2 != nil {
			return jsonErr(file, data, base, err2)
		}
	}
	return jsonErr(file, data, base, err)
}

// jsonErr locates a decoding error; base is the offset of the decoded text within data.
func jsonErr(file string, data []byte, base int64, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return &GoldenError{File: file, Line: lineAt(data, base+syn.Offset), Msg: "invalid JSON: " + syn.Error()}
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			field = "value"
		}
		return &GoldenError{File: file, Line: lineAt(data, base+typ.Offset), Msg: fmt.Sprintf("%s is JSON %s, want %s", field, typ.Value, typ.Type)}
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return &GoldenError{File: file, Line: lineAt(data, int64(len(data))), Msg: "unexpected end of JSON (truncated?)"}
	}
	return &GoldenError{File: file, Line: lineAt(data, base), Msg: strings.TrimPrefix(err.Error(), "json: ")}
}

func short(h string) string {
	if h == "" {
		return "nothing"
	}
	if len(h) > 12 {
		return h[:12] + "…"
	}
	return h
}

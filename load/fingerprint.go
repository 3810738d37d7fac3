package load

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"io"
	"math/big"
	"sort"
	"strconv"
	"unicode/utf8"

	"github.com/conform-dev/conform/fixtures"
	"github.com/conform-dev/conform/internal/excerpt"
)

// FingerprintScheme names how Fingerprint is computed; it changes whenever the same corpus
// would hash differently, so fingerprints of different schemes are never compared.
const FingerprintScheme = "conform-sample/1"

// DefaultSampleDocs is how many documents a fingerprint samples. It is fixed, not a knob of
// each run, so fingerprints taken before different rounds compare.
const DefaultSampleDocs = 100

// Sample is the fixed, deterministic set of documents a fingerprint covers: every Every-th
// document of the corpus in corpus order, starting with the first, at most n of them.
func Sample(f *fixtures.Fixtures, n int) (docs []fixtures.Doc, every int) {
	if n <= 0 {
		n = DefaultSampleDocs
	}
	every = max(1, len(f.Docs)/n)
	for i := 0; i < len(f.Docs) && len(docs) < n; i += every {
		docs = append(docs, f.Docs[i])
	}
	return docs, every
}

// Fingerprint is a SHA-256 over a count and the sampled documents' sources, each in
// canonical JSON, so the same corpus gives the same fingerprint on any engine that returns
// its documents as the same JSON values.
type Fingerprint struct {
	Scheme string `json:"scheme"`
	Count  int64  `json:"count"`
	Every  int    `json:"every"`
	Docs   int    `json:"docs"`
	SHA256 string `json:"sha256"`
}

// fingerprinter accumulates a Fingerprint. Each document contributes its _id and either its
// canonical source or a marker that it was missing or not JSON.
type fingerprinter struct {
	h     hash.Hash
	every int
	count int64
	docs  int
}

func newFingerprinter(count int64, every int) *fingerprinter {
	h := sha256.New()
	fmt.Fprintf(h, "%s\ncount %d\nevery %d\n", FingerprintScheme, count, every)
	return &fingerprinter{h: h, every: every, count: count}
}

// add records a document: canonical is its canonical source, or nil when it was missing.
func (fp *fingerprinter) add(id string, canonical []byte) {
	fp.docs++
	if canonical == nil {
		fmt.Fprintf(fp.h, "%d:%s missing\n", len(id), id)
		return
	}
	fmt.Fprintf(fp.h, "%d:%s %d:", len(id), id, len(canonical))
	fp.h.Write(canonical)
	fp.h.Write([]byte{'\n'})
}

func (fp *fingerprinter) result() Fingerprint {
	return Fingerprint{Scheme: FingerprintScheme, Count: fp.count, Every: fp.every, Docs: fp.docs, SHA256: hex.EncodeToString(fp.h.Sum(nil))}
}

// ExpectedFingerprint is the fingerprint of an intact copy of the corpus.
func ExpectedFingerprint(f *fixtures.Fixtures, sampleDocs int) (Fingerprint, error) {
	docs, every := Sample(f, sampleDocs)
	fp := newFingerprinter(int64(len(f.Docs)), every)
	for _, d := range docs {
		c, err := Canonical(d.Source)
		if err != nil {
			return Fingerprint{}, fmt.Errorf("corpus document %q: %w", d.ID, err)
		}
		fp.add(d.ID, c)
	}
	return fp.result(), nil
}

// Canonical writes a JSON value in a form where equal JSON values give equal bytes, in the
// sense of conform's strict check: object keys sorted by their UTF-8 bytes, no insignificant
// space, strings re-escaped one way, and numbers by kind and value — an integer literal as its
// exact decimal ("-0" as "0"), any other number as the shortest float64 that round-trips
// ("1.50" and "1.5e0" both "f:1.5"; "129.0" is "f:129", never "129"). Duplicate keys are kept,
// in order of key then value.
func Canonical(raw []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var buf bytes.Buffer
	if err := canonicalValue(dec, &buf); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("trailing data after the JSON value")
	}
	return buf.Bytes(), nil
}

func canonicalValue(dec *json.Decoder, buf *bytes.Buffer) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			type member struct{ key, value []byte }
			var members []member
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return err
				}
				var v bytes.Buffer
				if err := canonicalValue(dec, &v); err != nil {
					return err
				}
				members = append(members, member{key: canonicalString(kt.(string)), value: v.Bytes()})
			}
			if _, err := dec.Token(); err != nil {
				return err
			}
			sort.SliceStable(members, func(i, j int) bool {
				if c := bytes.Compare(members[i].key, members[j].key); c != 0 {
					return c < 0
				}
				return bytes.Compare(members[i].value, members[j].value) < 0
			})
			buf.WriteByte('{')
			for i, m := range members {
				if i > 0 {
					buf.WriteByte(',')
				}
				buf.Write(m.key)
				buf.WriteByte(':')
				buf.Write(m.value)
			}
			buf.WriteByte('}')
		case '[':
			buf.WriteByte('[')
			for i := 0; dec.More(); i++ {
				if i > 0 {
					buf.WriteByte(',')
				}
				if err := canonicalValue(dec, buf); err != nil {
					return err
				}
			}
			if _, err := dec.Token(); err != nil {
				return err
			}
			buf.WriteByte(']')
		}
	case string:
		buf.Write(canonicalString(t))
	case json.Number:
		s := t.String()
		if isIntegerLiteral(s) {
			n, ok := new(big.Int).SetString(s, 10)
			if !ok {
				return fmt.Errorf("bad integer %s", s)
			}
			buf.WriteString(n.String())
			return nil
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			// Out of float64 range: keep the literal, which still compares exactly.
			buf.WriteString("n:" + s)
			return nil
		}
		buf.WriteString("f:" + strconv.FormatFloat(f, 'g', -1, 64))
	case bool:
		buf.WriteString(strconv.FormatBool(t))
	case nil:
		buf.WriteString("null")
	}
	return nil
}

func canonicalString(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'})
}

// Problem is one way an engine's copy of the corpus differs from the fixtures.
type Problem struct {
	// Kind is count, mapping (Key names the field, Want and Got its types), missing, source,
	// id, payload (a Qdrant payload value other than the loader writes: Key names it, Want
	// and Got are JSON, or absent), status or index.
	Kind string `json:"kind"`
	ID   string `json:"id,omitempty"`  // the document, for missing, source, id and payload
	Key  string `json:"key,omitempty"` // the payload key, for payload and index; the field, for mapping
	Want string `json:"want,omitempty"`
	Got  string `json:"got,omitempty"`
}

func (p Problem) String() string {
	var b bytes.Buffer
	b.WriteString(p.Kind)
	if p.ID != "" {
		fmt.Fprintf(&b, " %q", p.ID)
	}
	if p.Key != "" {
		fmt.Fprintf(&b, " %s", p.Key)
	}
	if p.Want != "" || p.Got != "" {
		fmt.Fprintf(&b, ": want %s, got %s", p.Want, p.Got)
	}
	return b.String()
}

// VerifyError reports a copy of the corpus that is not intact after loading. Problems are
// the data; the message shows the first few.
type VerifyError struct {
	Engine   string // "index catalogue" or "collection catalogue"
	Problems []Problem
	// Note, if any, says what the loader saw before it judged, such as how long it waited
	// for the count to rise.
	Note string
	// Rejected, if any, is ESReport.RejectedLine: how many documents the engine holds and
	// how many its bulk replies rejected, with the first few. It leads the message, since it
	// says why the rest are missing.
	Rejected string
}

func (e *VerifyError) Error() string {
	var b bytes.Buffer
	if e.Rejected != "" {
		fmt.Fprintf(&b, "%s %s; ", e.Engine, e.Rejected)
	}
	fmt.Fprintf(&b, "%s is not intact: %d problem(s)", e.Engine, len(e.Problems))
	for i, p := range e.Problems {
		if i == 5 {
			fmt.Fprintf(&b, "; and %d more", len(e.Problems)-5)
			break
		}
		b.WriteString("; ")
		b.WriteString(p.String())
	}
	if e.Note != "" {
		b.WriteString(" (" + e.Note + ")")
	}
	return b.String()
}

// snippet quotes an engine's body in a Problem or an error: its first line, at most 120
// bytes, saying how much more there was (a proxy's HTML error page is one line of a message).
func snippet(b []byte) string { return excerpt.Line(b) }

// diffSnippets shows two differing texts around their first difference, so a long source
// that differs in one field does not print as two identical prefixes.
func diffSnippets(want, got []byte) (string, string) {
	const before, width = 24, 72
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	start := max(0, i-before)
	for start > 0 && start < len(want) && !utf8.RuneStart(want[start]) {
		start-- // never split a character
	}
	cut := func(b []byte) string {
		if start >= len(b) {
			return fmt.Sprintf("(ends at byte %d)", len(b))
		}
		end := min(len(b), start+width)
		for end < len(b) && !utf8.RuneStart(b[end]) {
			end++
		}
		s := string(b[start:end])
		if start > 0 {
			s = "…" + s
		}
		if end < len(b) {
			s += "…"
		}
		return s
	}
	at := fmt.Sprintf(" (from byte %d)", i)
	return cut(want) + at, cut(got)
}

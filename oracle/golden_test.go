package oracle

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/conform-dev/conform/fixtures"
)

var update = flag.Bool("update", false, "rewrite testdata golden files from the current output (check the diff before committing)")

var recordedAt = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

// trickyDoer answers like fe, except that get/000's body has text JSON encoders like to
// rewrite (<, &, U+2028, astral-plane characters, number text) and get/001 answers plain text.
func trickyDoer(fe *fakeEngine) Doer {
	return func(ctx context.Context, r fixtures.Request) (int, []byte, error) {
		switch r.Case {
		case "get/000":
			return 200, []byte("{\"_index\":\"cat\",\"_id\":\"a1\",\"found\":true,\"_source\":{\"s\":\"<&> é \u2028 😀\",\"n\":1.0E20,\"f\":19.990000000000002,\"i\":129.0}}"), nil
		case "get/001":
			return 404, []byte("Not Found"), nil
		}
		return fe.do(ctx, r)
	}
}

// recorded computes the fake workload as if from a live Elasticsearch.
func recorded(t *testing.T) (*fixtures.Fixtures, *Expectations) {
	t.Helper()
	fe := &fakeEngine{index: "cat", docs: fakeDocs()}
	f := fakeFixtures(fakeWorkload(), fakeDocs())
	x, err := Compute(context.Background(), f.Workload, Settings{}, trickyDoer(fe))
	if err != nil {
		t.Fatal(err)
	}
	x.Source = "live:http://***@es.example:9200"
	x.Engine = &Identity{Version: "8.15.0", BuildFlavor: "default", Tagline: "You Know, for Search"}
	return f, x
}

func writeGolden(t *testing.T, x *Expectations, meta fixtures.Meta) (string, []byte) {
	t.Helper()
	var b bytes.Buffer
	if err := WriteExpectations(&b, x, meta, recordedAt); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "es.golden.json")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, b.Bytes()
}

func TestWriteExpectationsFormat(t *testing.T) {
	f, x := recorded(t)
	_, got := writeGolden(t, x, f.Meta)
	want := filepath.Join("testdata", "fake.golden.json")
	if *update {
		if err := os.WriteFile(want, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(want)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, b) {
		t.Errorf("WriteExpectations output differs from %s (go test -update rewrites it; check the diff):\n%s", want, got)
	}
	lines := strings.Split(strings.TrimSuffix(string(got), "\n"), "\n")
	if len(lines) != len(x.Cases)+2 {
		t.Errorf("%d lines, want a header line, one line per case and a closing line", len(lines))
	}
}

func TestGoldenRoundTrip(t *testing.T) {
	f, x := recorded(t)
	path, _ := writeGolden(t, x, f.Meta)
	g := &Golden{Path: path}
	got, err := g.Expect(context.Background(), f, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Source != "golden:"+path || g.Name() != got.Source {
		t.Errorf("Source = %q, want golden:%s", got.Source, path)
	}
	if got.Hash() != x.Hash() {
		t.Errorf("hash after the round trip %s, before %s", got.Hash(), x.Hash())
	}
	if got.Engine == nil || got.Engine.Version != "8.15.0" || !g.Header.RecordedAt.Equal(recordedAt) {
		t.Errorf("header lost: engine %+v, recorded at %v", got.Engine, g.Header.RecordedAt)
	}
	if got.Settings != x.Settings {
		t.Errorf("settings %+v, want %+v", got.Settings, x.Settings)
	}
	for i := range x.Cases {
		w, g := x.Cases[i], got.Cases[i]
		if w.Request.Case != g.Request.Case || w.Request.Op != g.Request.Op || w.Request.Method != g.Request.Method ||
			w.Request.Path != g.Request.Path || !bytes.Equal(w.Request.Body, g.Request.Body) {
			t.Errorf("case %d request %+v, want %+v", i, g.Request, w.Request)
		}
		if w.Status != g.Status || !bytes.Equal(w.Body, g.Body) {
			t.Errorf("case %s answer %d %s, want byte for byte %d %s", w.Request.Case, g.Status, g.Body, w.Status, w.Body)
		}
	}
}

func TestGoldenRefusals(t *testing.T) {
	tests := []struct {
		name     string
		edit     func(f *fixtures.Fixtures, s *Settings, file []byte) []byte
		want     []string
		location string // "path:line" suffix expected, if any
	}{
		{"corpus", func(f *fixtures.Fixtures, s *Settings, b []byte) []byte {
			f.Meta.SHA256.Corpus = "def0123456789abcdef"
			return b
		}, []string{"recorded for corpus sha256 ", ", fixtures have def012345678…"}, ""},
		{"mapping", func(f *fixtures.Fixtures, s *Settings, b []byte) []byte {
			f.Meta.SHA256.Mapping = "0000000000000000"
			return b
		}, []string{"recorded for mapping sha256", "fixtures have 000000000000…"}, ""},
		{"workload", func(f *fixtures.Fixtures, s *Settings, b []byte) []byte {
			f.Meta.SHA256.Workload = "1111111111111111"
			return b
		}, []string{"recorded for workload sha256"}, ""},
		{"index", func(f *fixtures.Fixtures, s *Settings, b []byte) []byte {
			s.Index = "products"
			return b
		}, []string{`recorded with index "cat", this run uses "products"`}, ""},
		{"track_total_hits", func(f *fixtures.Fixtures, s *Settings, b []byte) []byte {
			s.TrackTotalHits = "false"
			return b
		}, []string{"recorded with track_total_hits true, this run uses false"}, ""},
		{"not recorded from live", func(f *fixtures.Fixtures, s *Settings, b []byte) []byte {
			return bytes.Replace(b, []byte(`"source":"live:http://***@es.example:9200"`), []byte(`"source":"embedded"`), 1)
		}, []string{"written by the embedded oracle, not recorded from a live Elasticsearch"}, ":1"},
		{"format", func(f *fixtures.Fixtures, s *Settings, b []byte) []byte {
			return bytes.Replace(b, []byte(GoldenFormat), []byte("conform-golden/0"), 1)
		}, []string{`format is "conform-golden/0", want "conform-golden/1"`}, ":1"},
		{"malformed line", func(f *fixtures.Fixtures, s *Settings, b []byte) []byte {
			lines := bytes.Split(b, []byte("\n"))
			lines[3] = append([]byte(`{"case":"x",`), lines[3]...)
			return bytes.Join(lines, []byte("\n"))
		}, []string{"invalid JSON"}, ":4"},
		{"unknown field", func(f *fixtures.Fixtures, s *Settings, b []byte) []byte {
			lines := bytes.Split(b, []byte("\n"))
			lines[2] = bytes.Replace(lines[2], []byte(`{"case"`), []byte(`{"extra":1,"case"`), 1)
			return bytes.Join(lines, []byte("\n"))
		}, []string{`unknown field "extra"`}, ":3"},
		{"edited answer", func(f *fixtures.Fixtures, s *Settings, b []byte) []byte {
			return bytes.Replace(b, []byte(`"status":404`), []byte(`"status":200`), 1)
		}, []string{"the file was edited or truncated"}, ""},
		{"truncated", func(f *fixtures.Fixtures, s *Settings, b []byte) []byte {
			lines := bytes.Split(b, []byte("\n"))
			return bytes.Join(lines[:4], []byte("\n"))
		}, []string{"unexpected end of JSON"}, ":4"},
		{"repeated case", func(f *fixtures.Fixtures, s *Settings, b []byte) []byte {
			lines := bytes.Split(b, []byte("\n"))
			lines[3] = append([]byte(nil), lines[2]...)
			return bytes.Join(lines, []byte("\n"))
		}, []string{`case "get/001" repeats line 3`}, ":4"},
		{"case order", func(f *fixtures.Fixtures, s *Settings, b []byte) []byte {
			f.Workload.Cases[0], f.Workload.Cases[1] = f.Workload.Cases[1], f.Workload.Cases[0]
			return b
		}, []string{"case 0 is get/000, the workload's is get/001"}, ":2"},
		{"request", func(f *fixtures.Fixtures, s *Settings, b []byte) []byte {
			f.Workload.Cases[4].Body = json.RawMessage(`{"size":0,"query":{"term":{"group":"A"}}}`)
			return b
		}, []string{"case counts/000 was recorded as POST /cat/_search", `the workload asks POST /cat/_search {"size":0,"query":{"term":{"group":"A"}}`}, ":6"},
		{"case count", func(f *fixtures.Fixtures, s *Settings, b []byte) []byte {
			f.Workload.Cases = f.Workload.Cases[:4]
			return b
		}, []string{"has 5 cases, the workload has 4"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, x := recorded(t)
			_, data := writeGolden(t, x, f.Meta)
			var s Settings
			data = tt.edit(f, &s, data)
			path := filepath.Join(t.TempDir(), "edited.golden.json")
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := (&Golden{Path: path}).Expect(context.Background(), f, s)
			if err == nil {
				t.Fatal("the golden file was accepted")
			}
			msg := err.Error()
			if !strings.Contains(msg, path) {
				t.Errorf("error %q does not name the file", msg)
			}
			if tt.location != "" && !strings.Contains(msg, path+tt.location+":") {
				t.Errorf("error %q does not point at %s%s", msg, path, tt.location)
			}
			for _, sub := range tt.want {
				if !strings.Contains(msg, sub) {
					t.Errorf("error %q does not contain %q", msg, sub)
				}
			}
		})
	}
}

func TestGoldenMissingFile(t *testing.T) {
	f, _ := recorded(t)
	_, err := (&Golden{Path: filepath.Join(t.TempDir(), "none.json")}).Expect(context.Background(), f, Settings{})
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("err = %v, want a not-exist error", err)
	}
}

func TestReadExpectationsAcceptsExpectOutput(t *testing.T) {
	f, x := recorded(t)
	x.Source = "embedded"
	_, data := writeGolden(t, x, f.Meta)
	h, got, err := ReadExpectations("expect.json", data)
	if err != nil {
		t.Fatal(err)
	}
	if h.Source != "embedded" || got.Hash() != x.Hash() || len(got.Cases) != len(x.Cases) {
		t.Errorf("read back source %q hash %s, want embedded %s", h.Source, got.Hash(), x.Hash())
	}
}

// A captured workload's requests need not be JSON (an _msearch's NDJSON) and its answers need
// not be either (a HEAD's empty body): both are kept as text and read back the same.
func TestGoldenNonJSONRequestAndAnswer(t *testing.T) {
	nd := "{}\n{\"size\":0}\n"
	x := NewExpectations("live:http://es", Settings{Index: "i", TrackTotalHits: "true"}, []Expected{
		{Request: fixtures.Request{Case: "msearch/0", Op: "msearch", Method: "POST", Path: "/i/_msearch", Body: []byte(nd)}, Status: 200, Body: []byte(`{"took":1,"responses":[]}`)},
		{Request: fixtures.Request{Case: "exists/0", Op: "exists", Method: "HEAD", Path: "/i/_doc/1"}, Status: 200, Body: []byte{}},
	})
	_, data := writeGolden(t, x, fixtures.Meta{})
	_, got, err := ReadExpectations("g.json", data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if string(got.Cases[0].Request.Body) != nd || got.Cases[1].Status != 200 || len(got.Cases[1].Body) != 0 {
		t.Errorf("read back: %+v", got.Cases)
	}
	if got.Hash() != x.Hash() {
		t.Error("the hash changed through the file")
	}
}

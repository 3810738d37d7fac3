package oracle

import (
	"bytes"
	"context"
	"testing"
	"time"
)

// FuzzReadExpectations feeds arbitrary bytes to the golden-file parser: it must return an
// error or expectations, never panic, and whatever it accepts must write back to a file that
// reads the same.
func FuzzReadExpectations(f *testing.F) {
	_, x := recordedForFuzz()
	var b bytes.Buffer
	if err := WriteExpectations(&b, x, fakeFixtures(fakeWorkload(), fakeDocs()).Meta, time.Unix(0, 0)); err != nil {
		f.Fatal(err)
	}
	f.Add(b.Bytes())
	f.Add([]byte(`{"format":"conform-golden/1","cases":[]}`))
	f.Add([]byte(`{"format":"conform-golden/1","source":"live:x","recorded_at":"2025-01-01T00:00:00Z","fixtures":{},"settings":{"index":"i","track_total_hits":"true"},"hash":"","cases":[{"case":"a","method":"GET","path":"/","status":200,"response_text":""}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, x, err := ReadExpectations("fuzz.json", data)
		if err != nil {
			return
		}
		var out bytes.Buffer
		meta := fakeFixtures(fakeWorkload(), fakeDocs()).Meta
		meta.SHA256 = h.Fixtures
		if err := WriteExpectations(&out, x, meta, h.RecordedAt); err != nil {
			t.Fatalf("accepted but cannot write back: %v", err)
		}
		_, again, err := ReadExpectations("again.json", out.Bytes())
		if err != nil {
			t.Fatalf("written back but does not read: %v\n%s", err, out.Bytes())
		}
		if again.Hash() != x.Hash() {
			t.Fatalf("hash changed across a round trip")
		}
	})
}

func recordedForFuzz() (*fakeEngine, *Expectations) {
	fe := &fakeEngine{index: "cat", docs: fakeDocs()}
	x, err := Compute(context.Background(), fakeWorkload(), Settings{}, trickyDoer(fe))
	if err != nil {
		panic(err)
	}
	x.Source = "live:http://es:9200"
	return fe, x
}

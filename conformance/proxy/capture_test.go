package proxy

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/conform-dev/conform/fixtures"
)

// TestCapture: a client's session through capture gets the answers it gets from the engine
// directly; the reads become a workload that the fixtures package reads, identical requests
// once with their count; the writes are counted; no credential reaches the files.
func TestCapture(t *testing.T) {
	eng := engineServer(t)
	out := t.TempDir()
	c, err := NewCapture(CaptureConfig{Upstream: mustURL(t, eng.URL), Out: out, FlushEvery: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	px := httptest.NewServer(c.Handler())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()

	for _, r := range session {
		ds, db := send(t, eng.URL, r.method, r.path, r.body)
		ps, pb := send(t, px.URL, r.method, r.path, r.body, "Authorization", "ApiKey c2VjcmV0LWtleQ==", "Cookie", "sid=s3cr3t")
		if ds != ps || stripTook(db) != stripTook(pb) {
			t.Errorf("%s %s: direct %d %s, through capture %d %s", r.method, r.path, ds, db, ps, pb)
		}
	}
	send(t, px.URL, "PUT", "/scratch", `{}`)
	send(t, px.URL, "POST", "/scratch/_doc/1", `{"a":1}`)
	send(t, px.URL, "GET", "/", "")

	// Written as it goes, before the end.
	deadline := time.Now().Add(20 * time.Second)
	for {
		b, _ := os.ReadFile(filepath.Join(out, CaptureFile))
		var s CaptureSummary
		if json.Unmarshal(b, &s) == nil && s.Recorded == int64(len(session)) && s.Writes == 2 {
			if s.Finished {
				t.Error("finished while running")
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("capture.json never showed the session: %s", b)
		}
		time.Sleep(10 * time.Millisecond)
	}
	px.Close()
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	s := c.Summary(true)
	if s.Reads != int64(len(session)) || s.Recorded != s.Reads || s.Cases != len(session)-1 || s.Writes != 2 || s.WritesBy["index"] != 1 || s.WritesBy["doc"] != 1 || s.Other != 1 {
		t.Errorf("summary %+v", s)
	}
	for _, name := range []string{WorkloadFile, CaptureFile} {
		b, _ := os.ReadFile(filepath.Join(out, name))
		for _, secret := range []string{"c2VjcmV0LWtleQ", "s3cr3t", "ApiKey", "Cookie"} {
			if strings.Contains(string(b), secret) {
				t.Errorf("%s holds %q", name, secret)
			}
		}
	}
	f, err := fixtures.Load(out)
	if err != nil {
		t.Fatalf("the workload does not load: %v", err)
	}
	if f.HasCorpus() || f.Workload.Index != "catalogue" || len(f.Workload.Cases) != len(session)-1 || f.Workload.Cases[0].Count != 2 {
		t.Errorf("workload %+v", f.Workload)
	}
	var finished CaptureSummary
	b, _ := os.ReadFile(filepath.Join(out, CaptureFile))
	if json.Unmarshal(b, &finished) != nil || !finished.Finished {
		t.Errorf("capture.json not marked finished: %s", b)
	}
}

// stripTook blanks took, which varies from answer to answer.
func stripTook(s string) string {
	if i := strings.Index(s, `"took":`); i >= 0 {
		j := i + len(`"took":`)
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		return s[:i] + s[j:]
	}
	return s
}

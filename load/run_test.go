package load

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/conform-dev/conform/load/loadtest"
)

// Run loads every engine in order, writing each result as text as soon as it is done and
// each load's progress under the engine's name; a probe afterwards writes nothing.
func TestRunLoadsThenProbesEveryEngine(t *testing.T) {
	f := smallDefault(t, 300)
	es, os := loadtest.NewFakeES(), loadtest.NewFakeES()
	os.Distribution = "opensearch"
	engines := []Engine{{Name: "es", URL: "http://es", Transport: serveES(t, es)}, {Name: "os", URL: "http://os", Transport: serveES(t, os)}}
	var text, log bytes.Buffer
	sum, err := Run(context.Background(), f, Plan{Engines: engines, Log: &log, Text: &text})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Corpus != f.Meta.SHA256.Corpus || sum.Mapping != f.Meta.SHA256.Mapping || sum.Documents != 300 || len(sum.Targets) != 2 || sum.Qdrant != nil {
		t.Fatalf("summary = %+v", sum)
	}
	if sum.NotIntact != nil {
		t.Errorf("not intact: %v, want none", sum.NotIntact)
	}
	var want bytes.Buffer
	for i, r := range sum.Targets {
		if r.Name != engines[i].Name || r.URL != engines[i].URL || r.Load == nil || r.Probe != r.Load.Probe || !r.Probe.Intact() {
			t.Errorf("target %d = %+v", i, r)
		}
		r.WriteText(&want)
	}
	if text.String() != want.String() {
		t.Errorf("text = %q, want each result's text in order, %q", text.String(), want.String())
	}
	for _, line := range strings.SplitAfter(strings.TrimSuffix(log.String(), "\n"), "\n") {
		if !strings.HasPrefix(line, "es: ") && !strings.HasPrefix(line, "os: ") {
			t.Errorf("log line %q has no engine prefix", line)
		}
	}
	if !strings.Contains(log.String(), "es: creating index catalogue") || !strings.Contains(log.String(), "os: verified catalogue") {
		t.Errorf("log:\n%s", log.String())
	}

	before := len(es.Requests)
	log.Reset()
	sum, err = Run(context.Background(), f, Plan{Engines: engines[:1], Probe: true, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	if r := sum.Targets[0]; r.Load != nil || r.Probe == nil || !r.Probe.Intact() || r.Probe.Index != "catalogue" || sum.NotIntact != nil {
		t.Errorf("probe = %+v, not intact %v", r, sum.NotIntact)
	}
	for _, r := range es.Requests[before:] {
		if !strings.HasPrefix(r, "GET ") {
			t.Errorf("a probe sent %s", r)
		}
	}
	if log.Len() != 0 {
		t.Errorf("a probe logged %q", log.String())
	}
}

// A copy that is not intact is named in NotIntact, not returned as an error; a probe says so
// in its result alone, a load also on Log, and the engines after it are still done.
func TestRunReportsACopyThatIsNotIntact(t *testing.T) {
	f := smallDefault(t, 300)
	for _, tc := range []struct {
		reason  string
		probe   bool
		delta   int64 // the damaged engine's count is off by this
		wantLog string
	}{
		{"a probe that finds a damaged copy", true, -2, ""},
		{"a load that does not verify", false, 1, "bad: index catalogue is not intact: 1 problem(s); count: want 300, got 301\n"},
	} {
		bad, good := loadtest.NewFakeES(), loadtest.NewFakeES()
		if tc.probe {
			for _, fe := range []*loadtest.FakeES{bad, good} {
				if _, err := LoadES(context.Background(), serveES(t, fe), f, ESOptions{}); err != nil {
					t.Fatal(err)
				}
			}
		}
		bad.CountDelta = tc.delta
		engines := []Engine{{Name: "bad", Transport: serveES(t, bad)}, {Name: "good", Transport: serveES(t, good)}}
		var log, text bytes.Buffer
		sum, err := Run(context.Background(), f, Plan{Engines: engines, Probe: tc.probe, Log: &log, Text: &text})
		if err != nil {
			t.Fatalf("%s: %v", tc.reason, err)
		}
		if !reflect.DeepEqual(sum.NotIntact, []string{"bad"}) || len(sum.Targets) != 2 {
			t.Errorf("%s: not intact %v, %d targets; want [bad] and both targets", tc.reason, sum.NotIntact, len(sum.Targets))
		}
		if p := sum.Targets[0].Probe; p == nil || p.Intact() {
			t.Errorf("%s: the damaged engine's probe = %+v", tc.reason, p)
		}
		if !strings.Contains(text.String(), "bad  ") || !strings.Contains(text.String(), ": NOT INTACT: count: want 300") {
			t.Errorf("%s: text:\n%s", tc.reason, text.String())
		}
		var said string
		for _, line := range strings.SplitAfter(log.String(), "\n") {
			if strings.Contains(line, "not intact") {
				said += line
			}
		}
		if said != tc.wantLog {
			t.Errorf("%s: logged %q about the copy, want %q", tc.reason, said, tc.wantLog)
		}
	}
}

// Anything else stops the plan with an error naming the engine; the engines done before it
// are in the summary and the text, and a failed load's error goes through the engine's Scrub.
func TestRunStopsAtAnEngineError(t *testing.T) {
	f := smallDefault(t, 300)
	fresh, full := loadtest.NewFakeES(), loadtest.NewFakeES()
	if _, err := LoadES(context.Background(), serveES(t, full), f, ESOptions{}); err != nil {
		t.Fatal(err)
	}
	scrubbed := 0
	scrub := func(err error) error { scrubbed++; return err }
	engines := []Engine{{Name: "fresh", Transport: serveES(t, fresh)}, {Name: "full", Transport: serveES(t, full), Scrub: scrub}}
	var text bytes.Buffer
	sum, err := Run(context.Background(), f, Plan{Engines: engines, Text: &text})
	var ne *NotEmptyError
	if !errors.As(err, &ne) || !strings.HasPrefix(err.Error(), "full: index ") || scrubbed != 1 {
		t.Fatalf("error %v (scrubbed %d times); want full's NotEmptyError, scrubbed once", err, scrubbed)
	}
	if len(sum.Targets) != 1 || sum.Targets[0].Name != "fresh" || !strings.HasPrefix(text.String(), "fresh  ") || strings.Contains(text.String(), "full") {
		t.Errorf("done before the error: %+v\n%s", sum.Targets, text.String())
	}

	// A probe's error is named too (it is not scrubbed: the transport has done that).
	empty := loadtest.NewFakeES()
	_, err = Run(context.Background(), f, Plan{Engines: []Engine{{Name: "empty", Transport: serveES(t, empty), Scrub: scrub}}, Probe: true})
	if err == nil || !strings.HasPrefix(err.Error(), "empty: ") || scrubbed != 1 {
		t.Errorf("probing an engine without the index: %v (scrubbed %d times)", err, scrubbed)
	}
}

// The Qdrant backend comes after the engines, under the name qdrant.
func TestRunQdrant(t *testing.T) {
	f := smallDefault(t, 300)
	fq := loadtest.NewFakeQdrant()
	addr, err := fq.Start(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fq.Close)
	var log, text bytes.Buffer
	plan := Plan{Qdrant: &QdrantConfig{Addr: addr}, Collection: "products", Log: &log, Text: &text}
	sum, err := Run(context.Background(), f, plan)
	if err != nil {
		t.Fatal(err)
	}
	q := sum.Qdrant
	if q == nil || q.Addr != addr || q.Server.Version != fq.Version || q.Load == nil || q.Probe != q.Load.Probe || !q.Probe.Intact() || sum.NotIntact != nil {
		t.Fatalf("qdrant = %+v, not intact %v", q, sum.NotIntact)
	}
	if !strings.HasPrefix(text.String(), "qdrant  "+addr+"  collection products: loaded 300 points") || !strings.Contains(log.String(), "qdrant: ") {
		t.Errorf("text:\n%s\nlog:\n%s", text.String(), log.String())
	}
	// Another collection with too few points fails a probe: named, not an error.
	fq.AddCollection("short", 3)
	plan.Collection, plan.Probe = "short", true
	sum, err = Run(context.Background(), f, plan)
	if err != nil || !reflect.DeepEqual(sum.NotIntact, []string{"qdrant"}) || sum.Qdrant.Probe == nil || sum.Qdrant.Load != nil {
		t.Errorf("probing a short collection: %v, not intact %v, %+v", err, sum.NotIntact, sum.Qdrant)
	}
	// A refusal to overwrite is the plan's error.
	plan.Collection, plan.Probe = "products", false
	if _, err := Run(context.Background(), f, plan); err == nil || !strings.HasPrefix(err.Error(), "qdrant: collection") {
		t.Errorf("reloading: %v", err)
	}
}

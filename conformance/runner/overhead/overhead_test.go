package overhead

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/conform-dev/conform/conformance/target/targettest"
)

func TestParseWrk(t *testing.T) {
	f, err := ParseWrk("Running 1s test @ http://127.0.0.1:1\nconform-wrk requests=20000 duration_us=2000000 errors=0 p50_us=41\n")
	if err != nil || f.P50 != 41*time.Microsecond || f.Throughput != 10000 {
		t.Errorf("ParseWrk = %+v, %v; want p50 41µs, 10000 req/s", f, err)
	}
	for _, bad := range []string{
		"no figures here",
		"conform-wrk requests=10 duration_us=1000000 errors=3 p50_us=41",
		"conform-wrk requests=0 duration_us=0 errors=0 p50_us=0",
		"conform-wrk requests=x",
	} {
		if _, err := ParseWrk(bad); err == nil {
			t.Errorf("ParseWrk(%q) succeeded", bad)
		}
	}
}

// The whole measurement against an in-process server, with a stand-in for wrk that prints
// fixed figures, so the report's arithmetic can be checked.
func TestMeasureOverheadReport(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "wrk")
	script := "#!/bin/sh\nif [ \"$1\" = -v ]; then echo 'wrk 4.1.0 [epoll]'; exit 1; fi\n" +
		"echo 'conform-wrk requests=5000 duration_us=1000000 errors=0 p50_us=40'\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	srv, err := targettest.NewServer("127.0.0.1:0", 200, targettest.SearchPage(20))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var out bytes.Buffer
	rep, err := Measure(context.Background(), &out, Options{URL: srv.URL, Wrk: fake, Duration: time.Second,
		Rounds: 1, Check: "page", ServerNote: "an in-process server"})
	if err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{"wrk 4.1.0", "round 1 (wrk first)", "40.0µs", "5000", "goal: lean p50 at 1 client <= 1.15 x wrk", "caveat: with 1 round(s)"} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q:\n%s", want, text)
		}
	}
	if len(rep.Figures) != 1 || rep.Figures[0]["lean"][1].Throughput <= 0 || rep.Figures[0]["wrk"][8].P50 != 40*time.Microsecond {
		t.Errorf("figures %+v", rep.Figures)
	}
	ratios := rep.Ratios("lean", 1, true)
	if len(ratios) != 1 || ratios[0] != float64(rep.Figures[0]["lean"][1].P50)/float64(40*time.Microsecond) {
		t.Errorf("p50 ratio %v, want lean's p50 over 40µs", ratios)
	}
}

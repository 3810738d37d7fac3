package overhead

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/conform-dev/conform/conformance/suite"
	"github.com/conform-dev/conform/conformance/target"
	"github.com/conform-dev/conform/conformance/target/targettest"
	"github.com/conform-dev/conform/fixtures"
)

func TestParseWrk(t *testing.T) {
	f, err := ParseWrk("Running 1s test @ http://127.0.0.1:1\nconform-wrk requests=20000 duration_us=2000000 errors=0 status=7 p50_us=41\n")
	if err != nil || f.P50 != 41*time.Microsecond || f.Throughput != 10000 || f.Requests != 20000 || f.StatusErrors != 7 {
		t.Errorf("ParseWrk = %+v, %v; want p50 41µs, 10000 req/s, 20000 requests, 7 error statuses", f, err)
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

// fakeWrk writes a stand-in for wrk that prints fixed figures (and statuses error statuses)
// and burns no CPU, so the report's arithmetic can be checked.
func fakeWrk(t *testing.T, statuses int) string {
	t.Helper()
	fake := filepath.Join(t.TempDir(), "wrk")
	script := "#!/bin/sh\nif [ \"$1\" = -v ]; then echo 'wrk 4.1.0 [epoll]'; exit 1; fi\n" +
		"echo 'conform-wrk requests=5000 duration_us=1000000 errors=0 status=" + strconv.Itoa(statuses) + " p50_us=40'\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return fake
}

// The whole measurement against an in-process static server.
func TestMeasureOverheadReport(t *testing.T) {
	srv, err := targettest.NewServer("127.0.0.1:0", 200, targettest.SearchPage(20))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	tg, err := target.Parse("loopback="+srv.URL, target.Options{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	work, err := StaticWorkload(tg, "page")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	rep, err := Measure(context.Background(), &out, Options{Target: tg, Workload: work, Wrk: fakeWrk(t, 0), Duration: time.Second,
		Rounds: 1, ServerNote: "an in-process server"})
	if err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{"wrk 4.1.0", "round 1 (wrk first)", "40.0µs", "5000", "the whole page's bytes (the static server's check, not the strict one)",
		"goal: lean p50 at 1 client <= 1.15 x wrk", "caveat: with 1 round(s)", "the server's CPU is not measured"} {
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
	if lean := rep.Figures[0]["lean"][8]; lean.Requests < 1000 || lean.CPU() <= 0 {
		t.Errorf("lean at 8 clients: %d requests, CPU %v per request; want its measured phase and CPU", lean.Requests, lean.CPU())
	}
}

// The real path: the embedded engine with the corpus, the workload's get cases, every
// response checked strictly, the server's CPU read from /proc for this process.
func TestMeasureOverheadOnTheRealPath(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: loads the corpus twice (the server's and the oracle's); make test-unit runs it")
	}
	f := fixtures.Default()
	srv, err := suite.StartEmbedded(f)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	tg, err := target.Parse("loopback="+srv.URL, target.Options{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	work, err := SuiteWorkload(context.Background(), tg, f, fixtures.OpGet, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(work.Reqs) != 256 || work.NotOK == 0 || work.NotOK >= 256 || work.Static != nil {
		t.Fatalf("get workload: %d requests, %d expecting an error status, static %v", len(work.Reqs), work.NotOK, work.Static)
	}
	want := 5000 * work.NotOK / len(work.Reqs)
	var out bytes.Buffer
	o := Options{Target: tg, Workload: work, Wrk: fakeWrk(t, want), Duration: time.Second, Rounds: 1, ServerNote: "in-process", ServerPID: os.Getpid()}
	rep, err := Measure(context.Background(), &out, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"the workload's 256 get cases", "strict, against the embedded oracle's answer", "from a Lua request hook",
		fmt.Sprintf("the server's (pid %d)", os.Getpid()), "goal: lean CPU per checked request at 8 clients <= 1.25 x wrk"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("report lacks %q:\n%s", w, out.String())
		}
	}
	if lean := rep.Figures[0]["lean"][8]; lean.Server <= 0 || lean.CPU() <= 0 {
		t.Errorf("lean at 8 clients: server CPU %v, client CPU %v per request; want both measured", lean.Server, lean.CPU())
	}

	// wrk counting a different number of error statuses than the workload expects (a server
	// answering 404 to everything, say) is an error, not a figure.
	o.Wrk = fakeWrk(t, 5000)
	if _, err := Measure(context.Background(), io.Discard, o); err == nil || !strings.Contains(err.Error(), "responses of an error status") {
		t.Errorf("wrk with 5000 error statuses: %v", err)
	}
}

func TestWrkScriptCarriesTheRequestBytes(t *testing.T) {
	raw := []byte("GET /a\"b\\c HTTP/1.1\r\nHost: x\r\n\r\n\x00\xff")
	if got, want := luaString(raw), `"GET /a\034b\092c HTTP/1.1\013\010Host: x\013\010\013\010\000\255"`; got != want {
		t.Errorf("luaString = %s, want %s", got, want)
	}
	srv, err := targettest.NewServer("127.0.0.1:0", 200, []byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	tg, _ := target.Parse("t="+srv.URL, target.Options{})
	reqs, err := tg.PrepareAll([]fixtures.Request{{Case: "get/000", Method: "GET", Path: "/catalogue/_doc/SKU-1"}, {Case: "get/001", Method: "GET", Path: "/catalogue/_doc/SKU-2"}})
	if err != nil {
		t.Fatal(err)
	}
	path, err := writeWrkScript(&Workload{Reqs: reqs})
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(path)
	b, _ := os.ReadFile(path)
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("script mode %v, want 0600 (it may hold an Authorization header)", fi.Mode().Perm())
	}
	for _, want := range []string{luaString(reqs[0].Raw()), luaString(reqs[1].Raw()), "request = function()", "status=%d"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("script lacks %s:\n%s", want, b)
		}
	}
}

func TestParseStat(t *testing.T) {
	d, err := parseStat("4242 (conform (x) y) S 1 2 3 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 9 0 1234 5678 90 18446744073709551615")
	if err != nil || d != 3*time.Second {
		t.Errorf("parseStat = %v, %v; want 3s (300 ticks)", d, err)
	}
	for _, bad := range []string{"", "4242 (x) S 1 2", "4242 (x) S 1 2 3 0 -1 4194560 100 0 0 0 zz 50"} {
		if _, err := parseStat(bad); err == nil {
			t.Errorf("parseStat(%q) succeeded", bad)
		}
	}
}

// TestServerNotes pins what the report says about each server: the static page's note must
// say it is not a user's path.
func TestServerNotes(t *testing.T) {
	tg, err := target.Parse("gw=http://u:secret@127.0.0.1:8080/es", target.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ why, got, want string }{
		{"the engine names the corpus's size", LoopbackNote(ServerEngine, 5000), "the embedded engine holding the corpus (5000 documents), in a separate process"},
		{"the static page is flagged as not a user's path", LoopbackNote(ServerStatic, 5000),
			fmt.Sprintf("STATIC: a separate process answering every request with a fixed 20-hit search response (%d bytes); not the path a user times", len(StaticPage()))},
		{"a user's target is named without its password", TargetNote(tg), "yours: gw at http://127.0.0.1:8080/es"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: %q, want %q", tc.why, tc.got, tc.want)
		}
	}
}

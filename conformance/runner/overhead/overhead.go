package overhead

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/conform-dev/conform/conformance"
	"github.com/conform-dev/conform/conformance/runner"
	"github.com/conform-dev/conform/conformance/suite"
	"github.com/conform-dev/conform/conformance/target"
	"github.com/conform-dev/conform/conformance/target/targettest"
	"github.com/conform-dev/conform/fixtures"
	"github.com/conform-dev/conform/oracle"
)

// The overhead goals: conform's timed path may add at most 15% to wrk's median latency at one
// client, and lose at most 5% of wrk's throughput at eight.
// Its CPU per checked request may be at most 1.25 times wrk's.
const (
	P50Goal        = 1.15
	ThroughputGoal = 0.95
	CPUGoal        = 1.25
)

// Body is the request every run sends: a page case's body.
const Body = `{"query":{"bool":{"filter":[{"term":{"category":"tools"}}]}},"sort":[{"price":"asc"},{"sku":"asc"}],"size":20,"track_total_hits":true}`

// StaticPage is what the static server answers to every request.
func StaticPage() []byte { return targettest.SearchPage(20) }

// Serve is the server process: it prints its URL on stdout and serves a fixed 20-hit search
// page until stdin closes, which happens when the parent exits for any reason.
func Serve(stdout io.Writer, stdin io.Reader) error {
	srv, err := targettest.NewServer("127.0.0.1:0", 200, targettest.SearchPage(20))
	if err != nil {
		return err
	}
	defer srv.Close()
	fmt.Fprintln(stdout, srv.URL)
	io.Copy(io.Discard, stdin)
	return nil
}

// StartServer starts cmd, a process that runs Serve, and reads the URL it prints; stop ends
// it. A process of its own keeps the server off the measuring process's Go scheduler.
func StartServer(cmd *exec.Cmd) (url string, stop func(), err error) {
	// The server is the same for every measurement: a GOMAXPROCS meant for the clients does
	// not reach it.
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	env := cmd.Env
	cmd.Env = nil
	for _, kv := range env {
		if !strings.HasPrefix(kv, "GOMAXPROCS=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return "", nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	if cmd.Stderr == nil {
		cmd.Stderr = os.Stderr
	}
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop = func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "http://") {
		stop()
		return "", nil, fmt.Errorf("the server process did not print its URL (%q, %v)", line, err)
	}
	return strings.TrimSpace(line), stop, nil
}

// Servers conform overhead measures against.
const (
	// ServerEngine is the embedded engine holding the corpus, in a process of its own: the
	// path a user times, every response checked strictly against the oracle's answer.
	ServerEngine = "engine"
	// ServerStatic answers every request with the same 20-hit page and the check reads only
	// status and length (or compares the bytes): the client's floor, not a user's path.
	ServerStatic = "static"
)

// LoopbackNote is what the report says about the loopback server of kind (ServerEngine or
// ServerStatic) that conform started in a process of its own; docs is the corpus's size.
func LoopbackNote(kind string, docs int) string {
	if kind == ServerStatic {
		return fmt.Sprintf("STATIC: a separate process answering every request with a fixed 20-hit search response (%d bytes); not the path a user times", len(StaticPage()))
	}
	return fmt.Sprintf("the embedded engine holding the corpus (%d documents), in a separate process", docs)
}

// TargetNote is what the report says about a server the user gave as the target.
func TargetNote(t *target.Target) string { return fmt.Sprintf("yours: %s at %s", t.Name, t.URL("")) }

// ServeEngine is the engine server process: it serves f in the embedded engine (as the
// default target of conform run is served), prints its URL on stdout and serves until stdin
// closes.
func ServeEngine(stdout io.Writer, stdin io.Reader, f *fixtures.Fixtures) error {
	srv, err := suite.StartEmbedded(f)
	if err != nil {
		return err
	}
	defer srv.Close()
	fmt.Fprintln(stdout, srv.URL)
	io.Copy(io.Discard, stdin)
	return nil
}

// Workload is what every run sends, and how every response is checked.
type Workload struct {
	Reqs  []*target.Prepared
	Check runner.Check
	// Static is the one request of the static server's workload, which wrk sends without
	// its Lua request hook; nil for a workload of many requests.
	Static *fixtures.Request
	// Note and CheckNote describe the requests and the check in the report.
	Note, CheckNote string
	// NotOK counts the requests whose right answer has a status wrk calls an error (not 2xx
	// or 3xx, as a missing document's 404): wrk's count of those must match.
	NotOK int
}

// StaticWorkload is the static server's: one page request, checked by status and length
// ("status") or by comparing the whole page's bytes ("page").
func StaticWorkload(tg *target.Target, check string) (*Workload, error) {
	req := fixtures.Request{Case: "page/000", Op: fixtures.OpPage, Method: "POST", Path: "/catalogue/_search", Body: []byte(Body)}
	reqs, err := tg.PrepareAll([]fixtures.Request{req})
	if err != nil {
		return nil, err
	}
	page := targettest.SearchPage(20)
	w := &Workload{Reqs: reqs, Static: &req, Note: fmt.Sprintf("POST /catalogue/_search (%d-byte body)", len(Body))}
	switch check {
	case "status":
		w.CheckNote = "status and length only (the static server's check, not the strict one)"
		w.Check = func(_, status int, body []byte) runner.Verdict {
			return runner.Verdict{Pass: status == 200 && len(body) == len(page), Classes: []string{"status"}}
		}
	case "page":
		w.CheckNote = "the whole page's bytes (the static server's check, not the strict one)"
		w.Check = func(_, status int, body []byte) runner.Verdict {
			return runner.Verdict{Pass: status == 200 && string(body) == string(page), Classes: []string{"status"}}
		}
	default:
		return nil, fmt.Errorf("the static server's check is status or page, not %q", check)
	}
	return w, nil
}

// SuiteWorkload is the workload's cases of op as conform run sends them to tg, each response
// checked strictly against the embedded oracle's answer for f.
func SuiteWorkload(ctx context.Context, tg *target.Target, f *fixtures.Fixtures, op string, opts *conformance.Options) (*Workload, error) {
	x, err := oracle.Embedded{}.Expect(ctx, f, oracle.Settings{Index: f.Workload.Index})
	if err != nil {
		return nil, err
	}
	s, err := runner.NewSuite(f, x, []string{op})
	if err != nil {
		return nil, err
	}
	reqs, err := s.Requests(tg, op)
	if err != nil {
		return nil, err
	}
	prepared, err := tg.PrepareAll(reqs)
	if err != nil {
		return nil, err
	}
	notOK := 0
	for i := range f.Workload.Cases {
		c := &f.Workload.Cases[i]
		if e := x.Get(c.Name); c.Op == op && e != nil && (e.Status < 200 || e.Status >= 400) {
			notOK++
		}
	}
	return &Workload{Reqs: prepared, Check: s.Check(op, opts), NotOK: notOK,
		Note:      fmt.Sprintf("the workload's %d %s cases, in turn", len(prepared), op),
		CheckNote: "strict, against the embedded oracle's answer (conform run's check)"}, nil
}

// Options are one measurement's settings.
type Options struct {
	// Target is the server to measure against; Workload what is sent to it.
	Target   *target.Target
	Workload *Workload
	// Wrk is the wrk executable.
	Wrk        string
	WrkThreads int
	Duration   time.Duration
	Rounds     int
	AllLayers  bool
	// ServerNote describes the server in the report (LoopbackNote, TargetNote).
	ServerNote string
	// ServerPID is the server's process, whose CPU time is read from /proc (Linux); 0 when
	// it is not known, and the server's CPU is then not reported.
	ServerPID int
}

// Figure is one run: its median latency and throughput, and the CPU time per request of the
// client (the measuring process, or wrk) and of the server, as the OS accounts them.
type Figure struct {
	P50        time.Duration
	Throughput float64
	Requests   int
	// StatusErrors are the responses wrk counted as errors for their status (not 2xx or
	// 3xx); conform's layers check every status strictly instead.
	StatusErrors int
	// User and Sys are the client's CPU per request; zero when not measured.
	User, Sys time.Duration
	// Server is the server's CPU per request over the same span; zero when not measured.
	Server time.Duration
}

// CPU is the client's whole CPU time per request.
func (f Figure) CPU() time.Duration { return f.User + f.Sys }

// Report is what Measure measured: each round's figures by layer name ("wrk" first) and
// client count.
type Report struct {
	// Figures[round][name][clients]
	Figures []map[string]map[int]Figure
	Names   []string
}

// Clients are the client counts every layer and wrk run at.
var Clients = []int{1, 8}

// Ratios are, per round, the ratio of name's figure to wrk's at clients: of the median
// latency when p50, else of the throughput.
func (r *Report) Ratios(name string, clients int, p50 bool) []float64 {
	var out []float64
	for _, round := range r.Figures {
		f, w := round[name][clients], round["wrk"][clients]
		if p50 && w.P50 > 0 {
			out = append(out, float64(f.P50)/float64(w.P50))
		}
		if !p50 && w.Throughput > 0 {
			out = append(out, f.Throughput/w.Throughput)
		}
	}
	return out
}

// CPURatios are, per round, the ratio of name's client CPU per request to wrk's at clients;
// empty when either was not measured.
func (r *Report) CPURatios(name string, clients int) []float64 {
	var out []float64
	for _, round := range r.Figures {
		f, w := round[name][clients], round["wrk"][clients]
		if f.CPU() > 0 && w.CPU() > 0 {
			out = append(out, float64(f.CPU())/float64(w.CPU()))
		}
	}
	return out
}

// GoalsMet reports whether the lean layer met every goal measured, on the medians over
// rounds (the CPU goal only where both sides' CPU was measured).
func (r *Report) GoalsMet() bool {
	cpu := r.CPURatios("lean", 8)
	return medianOf(r.Ratios("lean", 1, true)) <= P50Goal && medianOf(r.Ratios("lean", 8, false)) >= ThroughputGoal &&
		(len(cpu) == 0 || medianOf(cpu) <= CPUGoal)
}

func medianOf(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// Measure runs the rounds against o.Target and writes the report to w.
func Measure(ctx context.Context, w io.Writer, o Options) (*Report, error) {
	tg, work := o.Target, o.Workload
	script, err := writeWrkScript(work)
	if err != nil {
		return nil, err
	}
	defer os.Remove(script)
	version := wrkVersion(o.Wrk)

	layers := []target.Layer{target.LayerLean}
	if o.AllLayers {
		layers = target.Layers
	}
	rep := &Report{Names: []string{"wrk"}}
	for _, l := range layers {
		rep.Names = append(rep.Names, l.String())
	}
	server := newCPUReader(o.ServerPID)

	fmt.Fprintf(w, "conform overhead: conform's request layers against %s on the same loopback server\n", version)
	fmt.Fprintf(w, "server:  %s\n", o.ServerNote)
	fmt.Fprintf(w, "request: %s, one keep-alive connection per client\n", work.Note)
	if work.Static == nil {
		fmt.Fprintf(w, "wrk:     the same request bytes, in turn, from a Lua request hook\n")
	}
	fmt.Fprintf(w, "check:   %s, by whichever goroutine or event loop drives the client, after its timer stops; wrk checks the status only\n", work.CheckNote)
	fmt.Fprintf(w, "CPU:     per request, user+sys, from the OS: getrusage over conform's measured phase, wrk's whole process%s\n", server.note())
	fmt.Fprintf(w, "host:    %d CPUs, GOMAXPROCS %d, load average before: %s\n", runtime.NumCPU(), runtime.GOMAXPROCS(0), loadAverage())
	fmt.Fprintf(w, "runs:    %v each, %d rounds, order reversed every other round\n\n", o.Duration, o.Rounds)

	// Size each conform run so it lasts about as long as wrk's: a short probe gives the rate.
	requests := map[string]int{}
	for _, l := range layers {
		for _, c := range Clients {
			f, err := trial(ctx, tg, l, work, c, 200*c, nil)
			if err != nil {
				return nil, err
			}
			requests[key(l.String(), c)] = max(1000, int(f.Throughput*o.Duration.Seconds()))
		}
	}

	type run struct {
		name    string
		clients int
	}
	var order []run
	for _, c := range Clients {
		for _, n := range rep.Names {
			order = append(order, run{n, c})
		}
	}
	for round := 0; round < o.Rounds; round++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		runs := slices.Clone(order)
		if round%2 == 1 {
			slices.Reverse(runs)
		}
		figs := map[string]map[int]Figure{}
		for _, n := range rep.Names {
			figs[n] = map[int]Figure{}
		}
		for _, ru := range runs {
			var f Figure
			if ru.name == "wrk" {
				f, err = runWrk(ctx, o, script, ru.clients, server)
			} else {
				l, _ := target.ParseLayer(ru.name)
				f, err = trial(ctx, tg, l, work, ru.clients, requests[key(ru.name, ru.clients)], server)
			}
			if err != nil {
				return nil, err
			}
			figs[ru.name][ru.clients] = f
		}
		rep.Figures = append(rep.Figures, figs)
		fmt.Fprintf(w, "round %d (%s first)\n", round+1, runs[0].name)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "  layer\tp50 1 client\treq/s 1 client\tCPU/req 1 client\tp50 8 clients\treq/s 8 clients\tCPU/req 8 clients\tserver CPU/req 8 clients\t\n")
		for _, n := range rep.Names {
			a, b := figs[n][1], figs[n][8]
			fmt.Fprintf(tw, "  %s\t%s\t%.0f\t%s\t%s\t%.0f\t%s\t%s\t\n", n, micros(a.P50), a.Throughput, cpuCell(a),
				micros(b.P50), b.Throughput, cpuCell(b), orNone(b.Server))
		}
		tw.Flush()
		fmt.Fprintln(w)
	}

	fmt.Fprintf(w, "ratio to wrk in the same round: median over %d rounds (each round's ratio in brackets)\n", o.Rounds)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  layer\tp50 @1 client\treq/s @1 client\tp50 @8 clients\treq/s @8 clients\tCPU/req @8 clients\n")
	for _, n := range rep.Names[1:] {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\n", n,
			ratioCell(rep.Ratios(n, 1, true)), ratioCell(rep.Ratios(n, 1, false)),
			ratioCell(rep.Ratios(n, 8, true)), ratioCell(rep.Ratios(n, 8, false)), ratioCell(rep.CPURatios(n, 8)))
	}
	tw.Flush()
	p50, tput := medianOf(rep.Ratios("lean", 1, true)), medianOf(rep.Ratios("lean", 8, false))
	fmt.Fprintf(w, "\ngoal: lean p50 at 1 client <= %.2f x wrk: %.3f, %s\n", P50Goal, p50, metWord(p50 <= P50Goal))
	fmt.Fprintf(w, "goal: lean req/s at 8 clients >= %.2f x wrk: %.3f, %s\n", ThroughputGoal, tput, metWord(tput >= ThroughputGoal))
	if cpu := rep.CPURatios("lean", 8); len(cpu) > 0 {
		fmt.Fprintf(w, "goal: lean CPU per checked request at 8 clients <= %.2f x wrk: %.3f, %s\n", CPUGoal, medianOf(cpu), metWord(medianOf(cpu) <= CPUGoal))
	} else {
		fmt.Fprintf(w, "goal: lean CPU per checked request: not measured on this platform\n")
	}
	fmt.Fprintf(w, "load average after: %s\n", loadAverage())
	if o.Rounds < 3 {
		fmt.Fprintf(w, "caveat: with %d round(s) one noisy run decides the figure; use --rounds 3 or more\n", o.Rounds)
	}
	return rep, nil
}

func key(name string, clients int) string { return name + "/" + strconv.Itoa(clients) }

func metWord(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT met"
}

func ratioCell(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprintf("%.2f", x)
	}
	return fmt.Sprintf("%.2f [%s]", medianOf(xs), strings.Join(parts, " "))
}

func micros(d time.Duration) string { return fmt.Sprintf("%.1fµs", float64(d)/1e3) }

func cpuCell(f Figure) string {
	if f.CPU() == 0 {
		return "-"
	}
	return fmt.Sprintf("%s (%.1f+%.1f)", micros(f.CPU()), float64(f.User)/1e3, float64(f.Sys)/1e3)
}

func orNone(d time.Duration) string {
	if d == 0 {
		return "-"
	}
	return micros(d)
}

func medianDuration(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

// trial runs one of conform's layers; server, when not nil, reads the server's CPU over the
// measured phase.
func trial(ctx context.Context, tg *target.Target, l target.Layer, work *Workload, clients, requests int, server *cpuReader) (Figure, error) {
	var s0, s1 time.Duration
	t := runner.Trial{Clients: clients, Warmup: 100 * clients, Requests: requests, Cases: len(work.Reqs), Check: work.Check,
		Open: func(ctx context.Context, _ int) (target.Exchanger, error) { return tg.Open(ctx, l, work.Reqs) }}
	if server != nil {
		t.OnMeasure = func(start bool) {
			if start {
				s0 = server.read()
			} else {
				s1 = server.read()
			}
		}
	}
	r, err := runner.RunTrial(ctx, t)
	if err != nil {
		return Figure{}, fmt.Errorf("%s at %d clients: %w", l, clients, err)
	}
	if r.Incomplete {
		return Figure{}, fmt.Errorf("%s at %d clients: interrupted", l, clients)
	}
	if r.Failed > 0 || r.WarmupFailed > 0 {
		return Figure{}, fmt.Errorf("%s at %d clients: %d responses failed the check (%v %v)", l, clients, r.Failed+r.WarmupFailed, r.Failures, r.WarmupFailures)
	}
	n := r.Passed + r.Failed
	f := Figure{P50: medianDuration(r.Latencies), Throughput: r.Throughput, Requests: n}
	if n > 0 {
		f.User, f.Sys = r.UserCPU/time.Duration(n), r.SysCPU/time.Duration(n)
		if s1 > s0 {
			f.Server = (s1 - s0) / time.Duration(n)
		}
	}
	return f, nil
}

// wrkDone is the Lua done hook that makes wrk print exact figures.
const wrkDone = `done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("conform-wrk requests=%d duration_us=%d errors=%d status=%d p50_us=%d\n",
    summary.requests, summary.duration, e.connect + e.read + e.write + e.timeout, e.status,
    latency:percentile(50)))
end
`

// writeWrkScript writes the Lua script that makes wrk send the workload and print exact
// figures. A static workload's one request is wrk's own static request; otherwise a request
// hook hands wrk the prepared requests' bytes in turn (the same bytes conform writes). The
// file may hold an Authorization header: it is the caller's, mode 0600, and removed after.
func writeWrkScript(work *Workload) (string, error) {
	var b strings.Builder
	if req := work.Static; req != nil {
		body := string(req.Body)
		if strings.Contains(body, "]==]") {
			return "", errors.New("request body cannot be quoted for wrk's Lua")
		}
		fmt.Fprintf(&b, "wrk.method = %q\nwrk.path = %q\nwrk.body = [==[%s]==]\nwrk.headers[\"Content-Type\"] = \"application/json\"\n", req.Method, req.Path, body)
	} else {
		b.WriteString("local reqs = {\n")
		for _, p := range work.Reqs {
			b.WriteString("  ")
			b.WriteString(luaString(p.Raw()))
			b.WriteString(",\n")
		}
		b.WriteString("}\nlocal i = 0\nrequest = function()\n  i = i + 1\n  if i > #reqs then i = 1 end\n  return reqs[i]\nend\n")
	}
	b.WriteString(wrkDone)
	f, err := os.CreateTemp("", "conform-wrk-*.lua")
	if err != nil {
		return "", err
	}
	defer f.Close()
	if _, err := f.WriteString(b.String()); err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// luaString quotes b as a Lua string literal, every byte kept: printable ASCII as itself,
// everything else (CR and LF included, which a long bracket would normalise) as \ddd.
func luaString(b []byte) string {
	out := make([]byte, 0, len(b)+16)
	out = append(out, '"')
	for _, c := range b {
		if c >= 0x20 && c < 0x7f && c != '"' && c != '\\' {
			out = append(out, c)
			continue
		}
		out = append(out, '\\', '0'+c/100, '0'+c/10%10, '0'+c%10)
	}
	return string(append(out, '"'))
}

// runWrk runs wrk with c connections and reads the line its done hook prints, with wrk's
// own CPU time from the OS and, when server is not nil, the server's over the same span.
func runWrk(ctx context.Context, o Options, script string, c int, server *cpuReader) (Figure, error) {
	threads := o.WrkThreads
	if threads <= 0 {
		threads = min(c, 2)
	}
	threads = min(threads, c)
	args := []string{"-t" + strconv.Itoa(threads), "-c" + strconv.Itoa(c), "-d" + strconv.Itoa(int(o.Duration.Seconds())) + "s",
		"--timeout", "5s", "-s", script, o.Target.URL("/")}
	cmd := exec.CommandContext(ctx, o.Wrk, args...)
	var s0 time.Duration
	if server != nil {
		s0 = server.read()
	}
	out, err := cmd.CombinedOutput()
	var s1 time.Duration
	if server != nil {
		s1 = server.read()
	}
	if err != nil {
		return Figure{}, fmt.Errorf("wrk %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	f, err := ParseWrk(string(out))
	if err != nil {
		return Figure{}, err
	}
	// wrk cycles through the requests on each thread from the first, so its count of error
	// statuses is the workload's share to within one cycle's worth per thread.
	n, k := len(o.Workload.Reqs), o.Workload.NotOK
	if want := f.Requests * k / n; f.StatusErrors < want-threads*k-1 || f.StatusErrors > want+threads*k+1 {
		return Figure{}, fmt.Errorf("wrk saw %d responses of an error status in %d requests; the workload expects %d of its %d requests to have one (about %d):\n%s",
			f.StatusErrors, f.Requests, k, n, want, out)
	}
	if f.Requests > 0 && cmd.ProcessState != nil {
		n := time.Duration(f.Requests)
		f.User, f.Sys = cmd.ProcessState.UserTime()/n, cmd.ProcessState.SystemTime()/n
		if s1 > s0 {
			f.Server = (s1 - s0) / n
		}
	}
	return f, nil
}

// ParseWrk reads the figures line the Lua script's done hook makes wrk print.
func ParseWrk(out string) (Figure, error) {
	for _, line := range strings.Split(out, "\n") {
		if !strings.HasPrefix(line, "conform-wrk ") {
			continue
		}
		v := map[string]int64{}
		for _, kv := range strings.Fields(line)[1:] {
			k, s, _ := strings.Cut(kv, "=")
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return Figure{}, fmt.Errorf("wrk printed %q", line)
			}
			v[k] = n
		}
		if v["errors"] > 0 {
			return Figure{}, fmt.Errorf("wrk saw %d connection, read, write or timeout errors:\n%s", v["errors"], out)
		}
		if v["duration_us"] <= 0 || v["requests"] <= 0 {
			return Figure{}, fmt.Errorf("wrk made no requests:\n%s", out)
		}
		return Figure{P50: time.Duration(v["p50_us"]) * time.Microsecond, Requests: int(v["requests"]), StatusErrors: int(v["status"]),
			Throughput: float64(v["requests"]) / (float64(v["duration_us"]) / 1e6)}, nil
	}
	return Figure{}, fmt.Errorf("wrk's output has no figures (was the Lua script run?):\n%s", out)
}

func wrkVersion(wrk string) string {
	out, _ := exec.Command(wrk, "-v").CombinedOutput()
	first, _, _ := strings.Cut(string(out), "\n")
	if f := strings.Fields(first); len(f) >= 2 {
		return f[0] + " " + f[1]
	}
	return filepath.Base(wrk)
}

func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

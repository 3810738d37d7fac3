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

	"github.com/conform-dev/conform/conformance/runner"
	"github.com/conform-dev/conform/conformance/target"
	"github.com/conform-dev/conform/conformance/target/targettest"
	"github.com/conform-dev/conform/fixtures"
)

// The overhead goals: conform's timed path may add at most 15% to wrk's median latency at one
// client, and lose at most 5% of wrk's throughput at eight.
const (
	P50Goal        = 1.15
	ThroughputGoal = 0.95
)

// Body is the request every run sends: a page case's body.
const Body = `{"query":{"bool":{"filter":[{"term":{"category":"tools"}}]}},"sort":[{"price":"asc"},{"sku":"asc"}],"size":20,"track_total_hits":true}`

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

// Options are one measurement's settings.
type Options struct {
	// URL is the loopback server's (StartServer's); Wrk the wrk executable.
	URL        string
	Wrk        string
	WrkThreads int
	Duration   time.Duration
	Rounds     int
	AllLayers  bool
	Check      string
	ServerNote string
}

// Figure is one run: its median latency and throughput.
type Figure struct {
	P50        time.Duration
	Throughput float64
}

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

// GoalsMet reports whether the lean layer met both goals, on the medians over rounds.
func (r *Report) GoalsMet() bool {
	return medianOf(r.Ratios("lean", 1, true)) <= P50Goal && medianOf(r.Ratios("lean", 8, false)) >= ThroughputGoal
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

// Measure runs the rounds against the server at o.URL and writes the report to w.
func Measure(ctx context.Context, w io.Writer, o Options) (*Report, error) {
	tg, err := target.Parse("loopback="+o.URL, target.Options{Timeout: 5 * time.Second})
	if err != nil {
		return nil, err
	}
	req := fixtures.Request{Case: "page/000", Op: fixtures.OpPage, Method: "POST", Path: "/catalogue/_search", Body: []byte(Body)}
	reqs, err := tg.PrepareAll([]fixtures.Request{req})
	if err != nil {
		return nil, err
	}
	page := targettest.SearchPage(20)
	check := func(_, status int, body []byte) runner.Verdict {
		if status != 200 || len(body) != len(page) {
			return runner.Verdict{Classes: []string{"status"}}
		}
		return runner.Verdict{Pass: true}
	}
	if o.Check == "page" {
		check = func(_, status int, body []byte) runner.Verdict {
			if status != 200 || string(body) != string(page) {
				return runner.Verdict{Classes: []string{"status"}}
			}
			return runner.Verdict{Pass: true}
		}
	}
	script, err := writeWrkScript(req)
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

	fmt.Fprintf(w, "conform overhead: conform's request layers against %s on the same loopback server\n", version)
	fmt.Fprintf(w, "server:  %s answering every request with a fixed 20-hit search response (%d bytes)\n", o.ServerNote, len(page))
	fmt.Fprintf(w, "request: POST /catalogue/_search (%d-byte body), one keep-alive connection per client\n", len(Body))
	fmt.Fprintf(w, "check:   %s, on each client's goroutine after its timer stops\n", o.Check)
	fmt.Fprintf(w, "host:    %d CPUs, GOMAXPROCS %d, load average before: %s\n", runtime.NumCPU(), runtime.GOMAXPROCS(0), loadAverage())
	fmt.Fprintf(w, "runs:    %v each, %d rounds, order reversed every other round\n\n", o.Duration, o.Rounds)

	// Size each conform run so it lasts about as long as wrk's: a short probe gives the rate.
	requests := map[string]int{}
	for _, l := range layers {
		for _, c := range Clients {
			r, err := trial(ctx, tg, l, reqs, c, 200*c, check)
			if err != nil {
				return nil, err
			}
			requests[key(l.String(), c)] = max(1000, int(r.Throughput*o.Duration.Seconds()))
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
				f, err = runWrk(ctx, o, script, ru.clients)
			} else {
				l, _ := target.ParseLayer(ru.name)
				var r *runner.Result
				r, err = trial(ctx, tg, l, reqs, ru.clients, requests[key(ru.name, ru.clients)], check)
				if err == nil {
					if r.Failed > 0 || r.WarmupFailed > 0 {
						err = fmt.Errorf("%s at %d clients: %d responses failed the check (%v)", ru.name, ru.clients, r.Failed+r.WarmupFailed, r.Failures)
					}
					f = Figure{P50: medianDuration(r.Latencies), Throughput: r.Throughput}
				}
			}
			if err != nil {
				return nil, err
			}
			figs[ru.name][ru.clients] = f
		}
		rep.Figures = append(rep.Figures, figs)
		fmt.Fprintf(w, "round %d (%s first)\n", round+1, runs[0].name)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "  layer\tp50 1 client\treq/s 1 client\tp50 8 clients\treq/s 8 clients\t\n")
		for _, n := range rep.Names {
			a, b := figs[n][1], figs[n][8]
			fmt.Fprintf(tw, "  %s\t%s\t%.0f\t%s\t%.0f\t\n", n, micros(a.P50), a.Throughput, micros(b.P50), b.Throughput)
		}
		tw.Flush()
		fmt.Fprintln(w)
	}

	fmt.Fprintf(w, "ratio to wrk in the same round: median over %d rounds (each round's ratio in brackets)\n", o.Rounds)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  layer\tp50 @1 client\treq/s @1 client\tp50 @8 clients\treq/s @8 clients\n")
	for _, n := range rep.Names[1:] {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", n,
			ratioCell(rep.Ratios(n, 1, true)), ratioCell(rep.Ratios(n, 1, false)),
			ratioCell(rep.Ratios(n, 8, true)), ratioCell(rep.Ratios(n, 8, false)))
	}
	tw.Flush()
	p50, tput := medianOf(rep.Ratios("lean", 1, true)), medianOf(rep.Ratios("lean", 8, false))
	fmt.Fprintf(w, "\ngoal: lean p50 at 1 client <= %.2f x wrk: %.3f, %s\n", P50Goal, p50, metWord(p50 <= P50Goal))
	fmt.Fprintf(w, "goal: lean req/s at 8 clients >= %.2f x wrk: %.3f, %s\n", ThroughputGoal, tput, metWord(tput >= ThroughputGoal))
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

func medianDuration(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func trial(ctx context.Context, tg *target.Target, l target.Layer, reqs []*target.Prepared, clients, requests int, check runner.Check) (*runner.Result, error) {
	r, err := runner.RunTrial(ctx, runner.Trial{Clients: clients, Warmup: 100 * clients, Requests: requests, Cases: len(reqs), Check: check,
		Open: func(ctx context.Context, _ int) (target.Exchanger, error) { return tg.Open(ctx, l, reqs) }})
	if err != nil {
		return nil, fmt.Errorf("%s at %d clients: %w", l, clients, err)
	}
	if r.Incomplete {
		return nil, fmt.Errorf("%s at %d clients: interrupted", l, clients)
	}
	return r, nil
}

// writeWrkScript writes the Lua script that makes wrk send req and print exact figures.
func writeWrkScript(req fixtures.Request) (string, error) {
	body := string(req.Body)
	if strings.Contains(body, "]==]") {
		return "", errors.New("request body cannot be quoted for wrk's Lua")
	}
	script := fmt.Sprintf(`wrk.method = %q
wrk.path = %q
wrk.body = [==[%s]==]
wrk.headers["Content-Type"] = "application/json"
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("conform-wrk requests=%%d duration_us=%%d errors=%%d p50_us=%%d\n",
    summary.requests, summary.duration, e.connect + e.read + e.write + e.status + e.timeout,
    latency:percentile(50)))
end
`, req.Method, req.Path, body)
	f, err := os.CreateTemp("", "conform-wrk-*.lua")
	if err != nil {
		return "", err
	}
	defer f.Close()
	if _, err := f.WriteString(script); err != nil {
		return "", err
	}
	return f.Name(), nil
}

// runWrk runs wrk with c connections and reads the line its done hook prints.
func runWrk(ctx context.Context, o Options, script string, c int) (Figure, error) {
	threads := o.WrkThreads
	if threads <= 0 {
		threads = min(c, 2)
	}
	threads = min(threads, c)
	args := []string{"-t" + strconv.Itoa(threads), "-c" + strconv.Itoa(c), "-d" + strconv.Itoa(int(o.Duration.Seconds())) + "s",
		"--timeout", "5s", "-s", script, o.URL}
	out, err := exec.CommandContext(ctx, o.Wrk, args...).CombinedOutput()
	if err != nil {
		return Figure{}, fmt.Errorf("wrk %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return ParseWrk(string(out))
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
			return Figure{}, fmt.Errorf("wrk saw %d errors:\n%s", v["errors"], out)
		}
		if v["duration_us"] <= 0 || v["requests"] <= 0 {
			return Figure{}, fmt.Errorf("wrk made no requests:\n%s", out)
		}
		return Figure{P50: time.Duration(v["p50_us"]) * time.Microsecond,
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

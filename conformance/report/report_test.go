package report

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/ (check the diff before committing)")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update creates it)", err)
	}
	if string(want) != string(got) {
		t.Errorf("%s differs from its golden file (go test -update rewrites it; check the diff)\n--- got\n%s", name, got)
	}
}

// sample is a small fixed run: two targets, two operations, two concurrency levels.
func sample() *Results {
	start := time.Date(2026, 12, 2, 11, 0, 0, 0, time.UTC)
	r := &Results{
		Format: ResultsFormat, Complete: true, Methodology: "closed-loop-pass-only/v1",
		StartedAt: start, FinishedAt: start.Add(95 * time.Second),
		Settings: Settings{Ops: []string{"get", "terms"}, Clients: []int{1, 8}, Requests: 200, Trials: 3, Warmup: 40,
			TrackTotalHits: "true", Timeout: "5s", Index: "catalogue", Check: []string{"strict"}},
		Fixtures: Fixtures{Source: "built-in default", Documents: 10000, CorpusSHA256: "c0", MappingSHA256: "m0", WorkloadSHA256: "w0"},
		Oracle:   Oracle{Source: "embedded", SHA256: "o0"},
		Targets: []Target{
			{Name: "es", URL: "http://***@127.0.0.1:9200", Identity: json.RawMessage(`{"name":"n1","version":{"number":"8.15.0","build_flavor":"default"}}`)},
			{Name: "gateway", URL: "http://127.0.0.1:8080/es"},
		},
	}
	for ti, target := range []string{"es", "gateway"} {
		for oi, op := range r.Settings.Ops {
			for _, n := range r.Settings.Clients {
				base := 0.3 + 0.1*float64(oi) + 0.05*float64(ti) + 0.2*float64(n-1)/7
				c := Cell{Target: target, Op: op, Clients: n, FailuresByClass: map[string]int{}}
				for k := 1; k <= 3; k++ {
					p50 := base * (1 + 0.02*float64(k-2))
					c.Trials = append(c.Trials, Trial{Trial: k, P50Ms: Millis(p50), P95Ms: Millis(p50 * 1.8), P99Ms: Millis(p50 * 2.5), MeanMs: Millis(p50 * 1.1), MaxMs: Millis(p50 * 4),
						ThroughputRPS: float64(n) * 1000 / p50, Passed: 200, FailuresByClass: map[string]int{}})
					// conform's CPU: every trial of es; two of three of gateway's (their median is
					// the mean), none of its terms trials at 8 clients ("–").
					if target == "es" || (k != 1 && !(op == "terms" && n == 8)) {
						c.Trials[k-1].ClientCPU = &CPU{UserUs: 1.5 + float64(k), SysUs: 10 + float64(oi+n)}
					}
				}
				c.MedianP50Ms, c.P50RangeMs = Millis(base), &[2]float64{base * 0.98, base * 1.02}
				c.MedianP95Ms, c.MedianThroughputRPS, c.Passed = Millis(base*1.8), float64(n)*1000/base, 600
				c.Histogram = &Histogram{EdgesMs: []float64{0.1, 0.2, 0.5, 1, 2}, Counts: []int{10, 300, 250, 40}}
				if target == "gateway" && op == "terms" && n == 8 {
					c.Passed, c.Failed, c.FailuresByClass["aggregations"] = 598, 2, 2
					c.Trials[1].Passed, c.Trials[1].Failed, c.Trials[1].FailuresByClass["aggregations"] = 198, 2, 2
				}
				r.Cells = append(r.Cells, c)
			}
		}
	}
	r.Failures = []Failure{{Target: "gateway", Op: "terms", Clients: 8, Trial: 2, Case: "terms/004", Class: "aggregations",
		Method: "POST", Path: "/catalogue/_search", Status: 200,
		Diffs: []Difference{{Class: "aggregations", Path: "aggregations.by_brand.buckets[3].doc_count", Want: "41", Got: "40", Fails: true}}}}
	return r
}

func TestMarkdownGolden(t *testing.T) { golden(t, "report.md", Markdown(sample())) }
func TestHTMLGolden(t *testing.T)     { golden(t, "report.html", HTML(sample())) }

func TestBenchstatLines(t *testing.T) {
	out := string(Benchstat(sample()))
	if !strings.Contains(out, "BenchmarkConform/target=es/op=get/clients=1 200 294000 ns/op") {
		t.Fatalf("missing the first trial line:\n%s", out)
	}
	if n := strings.Count(out, "BenchmarkConform/"); n != 2*2*2*3 {
		t.Fatalf("%d benchmark lines, want one per trial (24)", n)
	}
}

func TestMarkdownIncompleteAndFailures(t *testing.T) {
	r := sample()
	r.Complete, r.Incomplete = false, "interrupted by signal"
	md := string(Markdown(r))
	for _, want := range []string{"**Incomplete run**: interrupted by signal", "| Read one document | 0.300 / 0.500 | 0.350 / 0.550 |",
		"aggregations.by_brand.buckets[3].doc_count", "conform explain terms/004 --target gateway=URL", "## Failures\n", "version 8.15.0"} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	if strings.Contains(md, "user:") {
		t.Error("a credential reached the report")
	}
}

func TestWriteAllIsValidAndAtomic(t *testing.T) {
	dir := t.TempDir()
	r := sample()
	m := &Manifest{Format: ManifestFormat, Kind: "run", Host: HostFacts(), Command: RedactArgs([]string{"run", "--target", "es=http://u:p@h:9200"})}
	if err := WriteAll(dir, r, m); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{ResultsFile, MarkdownFile, HTMLFile, ManifestFile, BenchstatFile} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	var back Results
	data, _ := os.ReadFile(filepath.Join(dir, ResultsFile))
	if err := json.Unmarshal(data, &back); err != nil || len(back.Cells) != len(r.Cells) {
		t.Fatalf("results.json does not read back: %v", err)
	}
	man, _ := os.ReadFile(filepath.Join(dir, ManifestFile))
	if strings.Contains(string(man), "u:p") {
		t.Fatal("manifest leaks a credential")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

// A round's files go into rounds/round-N of the experiment's directory: results.json after
// every trial (the directory made on the first), everything but a manifest once it is done.
func TestWriteRound(t *testing.T) {
	dir := t.TempDir()
	if got, want := RoundDir(dir, 3), filepath.Join(dir, "rounds", "round-3"); got != want {
		t.Errorf("RoundDir = %s, want %s", got, want)
	}
	r := sample()
	if err := WriteRoundResults(dir, 2, r); err != nil {
		t.Fatal(err)
	}
	rd := filepath.Join(dir, "rounds", "round-2")
	if entries, err := os.ReadDir(rd); err != nil || len(entries) != 1 || entries[0].Name() != ResultsFile {
		t.Fatalf("after a trial %s holds %v (%v), want results.json alone", rd, entries, err)
	}
	if err := WriteRound(dir, 2, r); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{ResultsFile, MarkdownFile, HTMLFile, BenchstatFile} {
		if _, err := os.Stat(filepath.Join(rd, f)); err != nil {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(rd, ManifestFile)); !os.IsNotExist(err) {
		t.Errorf("a round has a manifest of its own (%v); the experiment's records every round", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the experiment's directory holds %v, want rounds alone", entries)
	}
}

func TestRedactArgs(t *testing.T) {
	tests := []struct{ in, want []string }{
		{[]string{"--target", "es=http://elastic:changeme@127.0.0.1:9200/es"}, []string{"--target", "es=http://***@127.0.0.1:9200/es"}},
		{[]string{"--api-key", "c2VjcmV0"}, []string{"--api-key", "***"}},
		{[]string{"--api-key=c2VjcmV0"}, []string{"--api-key=***"}},
		{[]string{"--baseline", "a=https://u:p@x", "--candidate", "b=https://y"}, []string{"--baseline", "a=https://***@x", "--candidate", "b=https://y"}},
		{[]string{"--switch-cmd", "restart http://a:b@h/x and https://c:d@i"}, []string{"--switch-cmd", "restart http://***@h/x and https://***@i"}},
	}
	for _, tc := range tests {
		got := RedactArgs(tc.in)
		if strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("RedactArgs(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestIdentityLine(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"name":"os1","version":{"distribution":"opensearch","number":"3.9.0"}}`, "opensearch 3.9.0 node os1"},
		{`{"version":{"number":"8.15.0","build_flavor":"default"}}`, "version 8.15.0"},
		{`not json`, ""},
		{`{"name":"conform-embedded","version":"8.15.0","distribution":"elasticsearch","build_flavor":"conform-embedded"}`, "elasticsearch 8.15.0 (conform-embedded) node conform-embedded"},
	}
	for _, tc := range tests {
		if got := IdentityLine(json.RawMessage(tc.in)); got != tc.want {
			t.Errorf("IdentityLine(%s) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// File names in a run's output directory.
const (
	ResultsFile   = "results.json"
	MarkdownFile  = "report.md"
	HTMLFile      = "report.html"
	ManifestFile  = "manifest.json"
	BenchstatFile = "benchstat.txt"
)

// WriteFileAtomic replaces path with data through a temporary file and a rename, so a reader
// (or a run killed mid-write) never sees a half-written file.
func WriteFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// MarshalJSON writes v indented, with HTML characters unescaped, ending in a newline.
func MarshalJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// WriteResults writes results.json only: the runner calls it after every trial so an
// interrupted run leaves valid results behind.
func WriteResults(dir string, r *Results) error {
	data, err := MarshalJSON(r)
	if err != nil {
		return err
	}
	return WriteFileAtomic(filepath.Join(dir, ResultsFile), data)
}

// WriteAll writes every output of a run: results.json, report.md, report.html, manifest.json
// and benchstat.txt.
func WriteAll(dir string, r *Results, m *Manifest) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := WriteResults(dir, r); err != nil {
		return err
	}
	if err := WriteFileAtomic(filepath.Join(dir, MarkdownFile), Markdown(r)); err != nil {
		return err
	}
	if err := WriteFileAtomic(filepath.Join(dir, HTMLFile), HTML(r)); err != nil {
		return err
	}
	if err := WriteFileAtomic(filepath.Join(dir, BenchstatFile), Benchstat(r)); err != nil {
		return err
	}
	if m != nil {
		data, err := MarshalJSON(m)
		if err != nil {
			return err
		}
		if err := WriteFileAtomic(filepath.Join(dir, ManifestFile), data); err != nil {
			return err
		}
	}
	return nil
}

// Benchstat renders the trials in the Go benchmark format, one line per trial, so two runs
// can be compared with `benchstat old.txt new.txt`. The iteration count is the number of
// passed responses; ns/op is the trial's p50. A trial in which no response passed has no line.
func Benchstat(r *Results) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "goos: %s\ngoarch: %s\n", runtime.GOOS, runtime.GOARCH)
	if cpu := HostCPU(); cpu != "" {
		fmt.Fprintf(&b, "cpu: %s\n", cpu)
	}
	fmt.Fprintf(&b, "pkg: conform\n")
	fmt.Fprintf(&b, "methodology: %s\n", r.Methodology)
	fmt.Fprintf(&b, "corpus-sha256: %s\nworkload-sha256: %s\noracle-sha256: %s\n", r.Fixtures.CorpusSHA256, r.Fixtures.WorkloadSHA256, r.Oracle.SHA256)
	fmt.Fprintf(&b, "track-total-hits: %s\n", r.Settings.TrackTotalHits)
	fmt.Fprintf(&b, "layer: %s\n", r.Settings.TimedLayer())
	for _, c := range r.Cells {
		name := fmt.Sprintf("BenchmarkConform/target=%s/op=%s/clients=%d", benchName(c.Target), c.Op, c.Clients)
		for _, t := range c.Trials {
			if t.P50Ms == nil {
				// No response passed: no latency to give benchstat, which reads every ns/op
				// as a measurement.
				continue
			}
			fmt.Fprintf(&b, "%s %d %.0f ns/op %.0f p95-ns %.0f p99-ns %.2f passed/s %d failed\n",
				name, t.Passed, *t.P50Ms*1e6, *t.P95Ms*1e6, *t.P99Ms*1e6, t.ThroughputRPS, t.Failed)
		}
	}
	return b.Bytes()
}

// benchName keeps a target name inside one benchmark name segment.
func benchName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '/' || r == '=' || r == '\t' {
			return '_'
		}
		return r
	}, s)
}

// RoundDir is where an experiment written into dir keeps one round's own files:
// rounds/round-N.
func RoundDir(dir string, round int) string {
	return filepath.Join(dir, "rounds", fmt.Sprintf("round-%d", round))
}

// WriteRoundResults writes a round's results.json into its RoundDir, making the directory: an
// experiment calls it after every trial of the round.
func WriteRoundResults(dir string, round int, r *Results) error {
	rd := RoundDir(dir, round)
	if err := os.MkdirAll(rd, 0o755); err != nil {
		return err
	}
	return WriteResults(rd, r)
}

// WriteRound writes every output of a finished round into its RoundDir, as WriteAll writes a
// run's, without a manifest (the experiment's records every round).
func WriteRound(dir string, round int, r *Results) error {
	return WriteAll(RoundDir(dir, round), r, nil)
}

// WriteExperiment writes an experiment's files into dir: results.json (every round merged),
// report.md, report.html, benchstat.txt, verdict.json and manifest.json, each atomically.
func WriteExperiment(dir string, rep *Experiment, man *Manifest) error {
	if err := WriteResults(dir, rep.Results); err != nil {
		return err
	}
	files := map[string][]byte{
		MarkdownFile:  ExperimentMarkdown(rep),
		HTMLFile:      ExperimentHTML(rep),
		BenchstatFile: Benchstat(rep.Results),
	}
	v, err := MarshalJSON(VerdictOf(rep))
	if err != nil {
		return err
	}
	files[VerdictFile] = v
	m, err := MarshalJSON(man)
	if err != nil {
		return err
	}
	files[ManifestFile] = m
	for name, data := range files {
		if err := WriteFileAtomic(filepath.Join(dir, name), data); err != nil {
			return err
		}
	}
	return nil
}

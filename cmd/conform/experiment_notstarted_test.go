package main

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/conform-dev/conform/conformance/report"
)

// An experiment stopped before round 1 finished (Ctrl-C during the warm-up, a target down
// before round 1) still writes verdict.json, incomplete with 0 rounds, and the reports, whose
// first line says so.
func TestExperimentStoppedBeforeRoundOne(t *testing.T) {
	checkFiles := func(t *testing.T, dir, reason string) {
		t.Helper()
		v := readVerdict(t, dir)
		if v.Verdict != "incomplete" || v.Complete || len(v.Rounds) != 0 || v.MeasuredResponses != 0 || v.PlannedRounds != 4 || v.PlannedResponses == 0 ||
			len(v.Reasons) == 0 || !strings.Contains(v.Reasons[0], "0 of 4 planned rounds finished") || !strings.Contains(v.Reasons[0], reason) {
			t.Errorf("verdict.json: %+v", v)
		}
		md, err := os.ReadFile(filepath.Join(dir, report.MarkdownFile))
		if err != nil {
			t.Fatal(err)
		}
		if first := strings.SplitN(string(md), "\n", 2)[0]; !strings.HasPrefix(first, "# INCOMPLETE: 0 of 4 rounds finished, nothing decided: ") || !strings.Contains(first, reason) {
			t.Errorf("report.md's first line: %s", first)
		}
		html, err := os.ReadFile(filepath.Join(dir, report.HTMLFile))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(html, []byte("<title>INCOMPLETE: 0 of 4 rounds finished")) {
			t.Errorf("report.html's title: %.300s", html)
		}
		for _, f := range []string{report.ResultsFile, report.ManifestFile} {
			if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
				t.Error(err)
			}
		}
	}

	t.Run("interrupted during the warm-up", func(t *testing.T) {
		ctx, cancel := context.WithCancelCause(context.Background())
		defer cancel(nil)
		eng := loadedEngine(t)
		var served atomic.Int64
		// The warm-up's first passes; readiness takes a handful of requests.
		interrupting := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if served.Add(1) == 120 {
				cancel(errors.New("interrupted (Ctrl-C)"))
			}
			eng.ServeHTTP(w, r)
		})
		base := httptest.NewServer(interrupting)
		defer base.Close()
		cand := httptest.NewServer(loadedEngine(t))
		defer cand.Close()
		dir := t.TempDir()
		var stdout, stderr bytes.Buffer
		e := &env_{stdout: &stdout, stderr: &stderr, vars: experimentEnv}
		code := conform(ctx, e.env(), []string{"experiment", "--baseline", "a=" + base.URL, "--candidate", "b=" + cand.URL,
			"--ops", "get", "--clients", "1", "--rounds", "4", "--out", dir, "--no-progress"})
		if code != exitUsage {
			t.Fatalf("exit %d, want 2\n%s\n%s", code, stdout.String(), stderr.String())
		}
		if !strings.Contains(stderr.String(), "interrupted (Ctrl-C)") || !strings.Contains(stderr.String(), "says incomplete, 0 rounds") {
			t.Errorf("stderr: %s", stderr.String())
		}
		checkFiles(t, dir, "interrupted (Ctrl-C)")
	})

	t.Run("a target down before round 1", func(t *testing.T) {
		down := httptest.NewServer(http.NotFoundHandler())
		downURL := down.URL
		down.Close()
		cand := httptest.NewServer(loadedEngine(t))
		defer cand.Close()
		dir := t.TempDir()
		code, out, errOut := runCLI(t, experimentEnv, "experiment", "--baseline", "a="+downURL, "--candidate", "b="+cand.URL,
			"--ops", "get", "--clients", "1", "--rounds", "4", "--ready-timeout", "300ms", "--out", dir, "--no-progress")
		if code != exitUsage {
			t.Fatalf("exit %d, want 2\n%s\n%s", code, out, errOut)
		}
		checkFiles(t, dir, "target a not ready")
	})
}

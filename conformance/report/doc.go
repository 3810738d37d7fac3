// Package report is the last stage of a run: it writes what the runner measured as
// results.json (the documented schema other tools read), report.md, a self-contained
// report.html with inline SVG charts, manifest.json (the evidence needed to replay or audit a
// run) and a benchstat-compatible text file, and an experiment's files (WriteExperiment, and each round's in its RoundDir); the
// text the commands print of those results (RunSummary, CompareText after Incomparable has
// found nothing that forbids comparing two runs and PairTargets has picked the targets,
// Expectations); and a strict check's (conformance/suite) summary text, JUnit XML and JSON
// failure records, and `conform oracle verify`'s report.
//
// It takes finished summaries, not samples or targets: it never times, checks or talks to an
// engine, and every file it writes is replaced atomically, so a run interrupted at any moment
// leaves valid files behind. Secrets never reach it: targets arrive already redacted.
package report

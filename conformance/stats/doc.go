// Package stats summarises latency samples: it sits after the runner, which hands it the
// latencies of passing responses of one trial, and before the report and the experiment, which
// take its trial and cell summaries. Quantiles are exact over all samples of a trial, computed
// with one named definition (Hyndman and Fan type 7, see QuantileDefinition) used everywhere,
// including the median of a cell's trial p50s.
//
// It is pure: it takes samples and returns numbers. It does no timing, no I/O, and no
// significance testing; comparing variants and deciding a verdict belong to package
// experiment. A trial with no passing response has no latency quantiles; the summaries say so
// with counts rather than inventing a number.
package stats

// Package fuzz is conform's random differential tester: it sits beside the check, taking the
// fixtures (mapping and corpus), an oracle and a target, and hands on disagreements shrunk to
// minimal requests, grouped, each with one reproducer, and a workload that "conform check"
// runs as permanent regression cases.
//
// The generator draws requests from a seed inside the embedded engine's supported subset
// (term, terms, range, exists, ids, prefix and nested bool queries; field sorts ending in the
// unique key; from/size, search_after, track_total_hits, _source filtering; terms, filter,
// filters and metric aggregations; _count; GET _doc), with values taken from the corpus so
// filters match something. It will not generate what the engine refuses as unsupported, nor
// what Elasticsearch answers nondeterministically (hits tied on every sort key), unless asked.
// The invariants need no oracle: they hold on any correct engine. A ProgressDisplay shows a
// run's progress as "conform fuzz" does on stderr.
package fuzz

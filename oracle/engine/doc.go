// Package engine is conform's embedded Elasticsearch 8.15 engine for the scalar subset: it
// sits in the oracle stage, computing in process (no JVM) the responses Elasticsearch 8.15
// would send, and it is also served over HTTP by "conform serve" as the default target. It
// takes an index-creation body and documents (fixtures, or the bulk and document APIs) and
// hands on response bytes: GET by id, _search (filter and term-level queries, field sorts,
// search_after, from/size, track_total_hits, _source filtering), terms/filter/filters and
// single-value metric aggregations, and _count, with Elasticsearch's key order, Java number
// rendering and error envelopes. The reference is ES-SEMANTICS.md; each rule's comment cites the
// Elasticsearch 8.15 source it follows, or the real-engine case (lab/realengines) that confirmed
// it on real Elasticsearch 8.15.0.
//
// It keeps what Elasticsearch keeps: the raw _source bytes, doc values per field already in
// their sort representation, and insertion order as the document number that breaks ties.
// It will not guess: anything outside the subset (full-text analysis beyond ASCII text,
// scripts, other aggregations, several shards...) answers 400 with the type
// conform_unsupported_exception, and PageTies tells an oracle when a page boundary splits
// documents equal on every sort key, whose order a real cluster may not share.
//
// DelayReads wraps the engine (or any handler) to wait a fixed time before each read, as
// conform serve --delay does for a deliberately slower candidate.
package engine

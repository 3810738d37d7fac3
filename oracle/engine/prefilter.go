package engine

// The pre-filter ("can_match") phase. Before the query phase of a search over several shards,
// Elasticsearch 8.15 may first ask every shard whether the query can match there at all, and
// each shard that answers no is counted in _shards.skipped (server/src/main/java/org/
// elasticsearch/action/search/TransportSearchAction.java, shouldPreFilterSearchShards):
//
//   - the phase runs for query_then_fetch when pre_filter_shard_size < the number of shards
//     and the request either can rewrite to match_none (SearchService#canRewriteToMatchNone:
//     a query that is not absent nor match_all, no suggest, and no top-level aggregation that
//     must visit every document: global, or terms with min_doc_count 0,
//     AggregatorFactories.Builder#mustVisitAllDocs) or has a primary field sort (its first
//     sort is on a field or _doc, not _score);
//   - pre_filter_shard_size, when the request does not set it, is 1 for a primary field sort
//     (or read-only indices) and the cluster's default, 128, otherwise.
//
// Which shards are skipped then depends on each shard's rewrite of the query against its own
// mapping and value ranges (a range outside a date field's bounds, a field the index does not
// map): the engine, whose every index is one shard, does not model that rewrite, so it
// declines a search where the phase runs with a query that may rewrite to match_none
// (search/140_pre_filter_search_shards.yml: a date range over three one-shard indices skips
// one on Elasticsearch). With no query or match_all every shard can match (SearchService
// #canMatch keeps a shard whose query is not match_none and only records its sort bounds), so
// nothing is skipped there, unless track_total_hits is false under a primary field sort: the
// query phase then passes the bottom sort values on and a shard that cannot compete may answer
// nothing (SearchQueryThenFetchAsyncAction's bottom sort collector), which the engine declines
// too. Over one shard the phase never runs.

// defaultPreFilterShardSize is the cluster default of search.pre_filter_shard_size
// (SearchRequest.DEFAULT_PRE_FILTER_SHARD_SIZE).
const defaultPreFilterShardSize = 128

// preFilterMaySkip reports whether Elasticsearch would run the pre-filter phase for r over
// shards shards and may skip a shard there or in the query phase; preFilter is the request's
// pre_filter_shard_size, 0 when not set.
func preFilterMaySkip(r *searchReq, preFilter, shards int) bool {
	if shards < 2 {
		return false
	}
	primaryFieldSort := len(r.sorts) > 0 && r.sorts[0].field != "_score"
	if preFilter == 0 {
		preFilter = defaultPreFilterShardSize
		if primaryFieldSort {
			preFilter = 1
		}
	}
	if preFilter >= shards || !canRewriteToMatchNone(r) && !primaryFieldSort {
		return false
	}
	return canRewriteToMatchNone(r) || primaryFieldSort && r.tth == trackDisabled
}

// canRewriteToMatchNone is SearchService#canRewriteToMatchNone for the requests the engine
// parses (it declines suggest and global aggregations).
func canRewriteToMatchNone(r *searchReq) bool {
	if r.query == nil {
		return false
	}
	if _, all := r.query.(qMatchAll); all {
		return false
	}
	for _, a := range r.aggs {
		if a.typ == "global" || a.typ == "terms" && a.minDocCount == 0 {
			return false
		}
	}
	return true
}

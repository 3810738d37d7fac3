"""A scripted session of the Python elasticsearch client (8.15) against one URL.

Used by lab/realengines/shadow_test.go: it runs the same reads (and one write to a scratch
index) against Elasticsearch directly and through conform capture, and prints one JSON line
per request, {"name", "status", "body"}, so the test can compare the two runs answer by
answer. Usage: python session.py URL SCRATCH_INDEX
"""
import json
import sys

from elasticsearch import ApiError, Elasticsearch

url, scratch = sys.argv[1], sys.argv[2]
# No retries: a 502 from the proxy must show, not be retried away.
es = Elasticsearch(url, max_retries=0, retry_on_status=())
INDEX = "catalogue"


def out(name, fn):
    try:
        r = fn()
        status, body = r.meta.status, r.body
    except ApiError as e:
        status, body = e.meta.status, e.body
    if isinstance(body, bool):  # exists() answers a bool
        body = None
    print(json.dumps({"name": name, "status": status, "body": body}, sort_keys=False))


out("search-term", lambda: es.search(index=INDEX, query={"term": {"brand": "acme"}},
                                     sort=[{"price": "desc"}, "sku"], size=10))
out("int-sort-missing", lambda: es.search(index=INDEX, sort=[{"stock": {"missing": "_first"}}, "sku"], size=5))
out("null-keyword-after", lambda: es.search(index=INDEX, sort=["tags", "sku"], track_total_hits=False,
                                            search_after=[None, "SKU-48164"], size=5))
out("after-aggs", lambda: es.search(index=INDEX, query={"ids": {"values": ["SKU-33107"]}}, sort=["views", "sku"],
                                    track_total_hits=False, aggs={"a0": {"terms": {"field": "sku"}}},
                                    search_after=[399000, "SKU-09836"]))
out("terms", lambda: es.search(index=INDEX, size=0, aggs={"brands": {"terms": {"field": "brand"}}}))
out("count", lambda: es.count(index=INDEX, query={"range": {"views": {"gte": 1000}}}))
out("get", lambda: es.get(index=INDEX, id="SKU-33107"))
out("get-missing", lambda: es.get(index=INDEX, id="no-such-doc"))
out("exists", lambda: es.exists(index=INDEX, id="SKU-33107"))
out("mget", lambda: es.mget(index=INDEX, ids=["SKU-33107", "SKU-09836", "nope"]))
out("msearch", lambda: es.msearch(searches=[{"index": INDEX}, {"query": {"term": {"brand": "acme"}}, "sort": ["sku"], "size": 2},
                                            {"index": INDEX}, {"size": 0, "track_total_hits": True}]))
out("write", lambda: es.index(index=scratch, id="1", document={"a": 1}, refresh=True))
out("search-term-again", lambda: es.search(index=INDEX, query={"term": {"brand": "acme"}},
                                           sort=[{"price": "desc"}, "sku"], size=10))
es.options(ignore_status=404).indices.delete(index=scratch)

"""The subset's calls through the official Python client (elasticsearch-py), as a user makes them.

Usage: calls.py URL. Prints a JSON list of {"call", "result"} on stdout: what the client returned
for each call (the body of its response, or the status and body of the error it raised), with
took, point-in-time ids and index uuids blanked, since they differ from engine to engine. lab/realengines
TestPythonClient runs it against conform serve and real Elasticsearch 8.15.0 and compares.
With the 9.x client (compatible-with=9) every call is refused by both: the same error.
"""
import json
import sys

import elasticsearch
from elasticsearch import ApiError, Elasticsearch

PAGE = {"size": 5, "query": {"bool": {"filter": [{"term": {"category": "tools"}}, {"range": {"price": {"lt": 50}}}]}},
        "sort": [{"price": "desc"}, {"sku": "asc"}], "track_total_hits": True}
TERMS = {"size": 0, "aggs": {"by_brand": {"terms": {"field": "brand", "size": 5}, "aggs": {"avg_price": {"avg": {"field": "price"}}}}}}
SCRATCH = "conform-clients-py"


def blank(v):
    if isinstance(v, dict):
        return {k: ("-" if k in ("took", "pit_id", "id", "index_uuid") else blank(x)) for k, x in v.items()}
    if isinstance(v, list):
        return [blank(x) for x in v]
    return v


def main(url):
    es = Elasticsearch(url, request_timeout=60)
    out = []

    def call(name, fn):
        try:
            r = fn()
            body = r.body if hasattr(r, "body") else r
            out.append({"call": name, "result": blank(body if not isinstance(r, bool) else r)})
            return body
        except ApiError as e:
            out.append({"call": name, "result": {"status": e.meta.status, "error": blank(e.body)}})
            return None

    call("info", lambda: es.info())
    call("ping", lambda: bool(es.ping()))
    call("get", lambda: es.get(index="catalogue", id="SKU-49561"))
    call("get missing", lambda: es.get(index="catalogue", id="nope"))
    call("exists", lambda: bool(es.exists(index="catalogue", id="SKU-03331")))
    call("exists missing", lambda: bool(es.exists(index="catalogue", id="nope")))
    page = call("search", lambda: es.search(index="catalogue", **PAGE))
    if page and page["hits"]["hits"]:
        after = page["hits"]["hits"][-1]["sort"]
        call("search_after", lambda: es.search(index="catalogue", search_after=after, **PAGE))
    call("terms", lambda: es.search(index="catalogue", **TERMS))
    call("count", lambda: es.count(index="catalogue", query={"term": {"brand": "Acme"}}))
    ops = [{"index": {"_id": "1"}}, {"n": 1}, {"index": {"_id": "2"}}, {"n": 2}, {"create": {"_id": "1"}}, {"n": 3}]
    call("bulk", lambda: es.bulk(index=SCRATCH, operations=ops, refresh=True))
    call("count scratch", lambda: es.count(index=SCRATCH))
    call("delete scratch", lambda: es.options(ignore_status=404).indices.delete(index=SCRATCH))
    call("mget", lambda: es.mget(index="catalogue", ids=["SKU-03331", "SKU-11250", "nope"], source_includes=["brand", "tags"]))
    call("msearch", lambda: es.msearch(searches=[{"index": "catalogue"}, TERMS, {"index": "nope"}, {}, {"index": "catalogue"}, PAGE], typed_keys=True))
    call("search filter_path", lambda: es.search(index="catalogue", filter_path="hits.hits._id,hits.hits.sort", **PAGE))
    pit = call("open pit", lambda: es.open_point_in_time(index="catalogue", keep_alive="1m"))
    if pit:
        pid, after = pit["id"], None
        for i in range(2):
            kw = {"search_after": after} if after else {}
            res = call("pit page %d" % i, lambda: es.search(pit={"id": pid, "keep_alive": "1m"}, size=4, sort=[{"rating": "desc"}], source=["rating"], **kw))
            after = res["hits"]["hits"][-1]["sort"] if res and res["hits"]["hits"] else None
        call("close pit", lambda: es.close_point_in_time(id=pid))
        call("close pit again", lambda: es.close_point_in_time(id=pid))
    json.dump({"client": "elasticsearch-py " + elasticsearch.__versionstr__, "steps": out}, sys.stdout, ensure_ascii=False, sort_keys=True)


if __name__ == "__main__":
    main(sys.argv[1])

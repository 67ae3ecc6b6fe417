"""The benchmark's commands for the qdrant-edge driver (bench/engine-vs-qdrant-edge.ts):
timed loops that return latencies and ids, so the comparison is not a JSON-lines round
trip per query. qdrant_edge_driver.py dispatches any command it does not know here."""

import time
import uuid

import qdrant_edge as q

from edge_filters import to_filter


def out_id(point_id):
    return str(point_id) if isinstance(point_id, uuid.UUID) else point_id


def search_many(shard, req):
    """Searches each of `vectors` in turn; returns per-query latencies and result ids."""
    params = q.SearchParams(exact=req.get("exact", False), hnsw_ef=req.get("hnsw_ef"))
    flt = to_filter(req.get("filter"))
    latencies, ids = [], []
    for vector in req["vectors"]:
        started = time.perf_counter()
        result = shard.search(
            q.SearchRequest(query=q.Query.Nearest(vector), limit=req["limit"], params=params, filter=flt)
        )
        latencies.append(time.perf_counter() - started)
        ids.append([out_id(p.id) for p in result])
    return {"latencies": latencies, "ids": ids}


COMMANDS = {"search_many": search_many}

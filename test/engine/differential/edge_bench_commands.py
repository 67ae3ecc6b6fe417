"""The benchmark's commands for the qdrant-edge driver (bench/engine-vs-qdrant-edge.ts):
timed loops that return latencies and ids, so the comparison is not a JSON-lines round
trip per query, and a bulk load from a file, so 100k 768-d vectors need not cross the
pipe as JSON. qdrant_edge_driver.py dispatches any command it does not know here."""

import time
import uuid
from array import array

import qdrant_edge as q

from edge_filters import to_filter


def out_id(point_id):
    return str(point_id) if isinstance(point_id, uuid.UUID) else point_id


def to_quantization(config):
    """A shard's scalar int8 quantization from `{quantile?, always_ram?}`, or None."""
    if config is None:
        return None
    return q.ScalarQuantizationConfig(
        type=q.ScalarType.Int8, quantile=config.get("quantile"), always_ram=config.get("always_ram")
    )


def search_params(req):
    """`exact`, `hnsw_ef` and `quantization` ({ignore, rescore, oversampling}) of a request."""
    quantization = req.get("quantization")
    return q.SearchParams(
        exact=req.get("exact", False),
        hnsw_ef=req.get("hnsw_ef"),
        quantization=None
        if quantization is None
        else q.QuantizationSearchParams(
            ignore=quantization.get("ignore", False),
            rescore=quantization.get("rescore"),
            oversampling=quantization.get("oversampling"),
        ),
    )


def search_many(shard, req):
    """Searches each of `vectors` in turn; returns per-query latencies and result ids."""
    params = search_params(req)
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


def load_points(shard, req):
    """Upserts the little-endian float32 vectors of the file at `path` (`dim` floats each) as
    points 0, 1, ... with payload {"bucket": id % `buckets`}, `batch` points per update;
    returns the seconds the updates took (reading the file excluded)."""
    dim, batch, buckets = req["dim"], req.get("batch", 1000), req["buckets"]
    floats = array("f")
    with open(req["path"], "rb") as f:
        floats.frombytes(f.read())
    count = len(floats) // dim
    seconds = 0.0
    for start in range(0, count, batch):
        points = [
            q.Point(i, floats[i * dim : (i + 1) * dim].tolist(), {"bucket": i % buckets})
            for i in range(start, min(count, start + batch))
        ]
        started = time.perf_counter()
        shard.update(q.UpdateOperation.upsert_points(points))
        seconds += time.perf_counter() - started
    return {"count": count, "seconds": seconds}


COMMANDS = {"search_many": search_many, "load_points": load_points}

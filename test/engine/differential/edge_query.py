"""Qdrant's query API over qdrant-edge, for the differential driver: REST query bodies
(`points/query`, `points/query/groups`, `points/search/groups`) translated into qdrant_edge
requests.

qdrant-edge is Qdrant's shard: what Qdrant's collection layer does before a query reaches
a shard is done here the way that layer does it, and the engine is checked against that:
ids in a query are looked up and their vectors sent (and the ids left out of the results
with a `must_not` `has_id`), `average_vector` recommendation becomes a nearest query on
`avg(positive) + (avg(positive) - avg(negative))`, and groups are built from the whole
ranked list (a group per string or integer value at `group_by`, each keeping its best
`group_size` points, the first `limit` groups to appear).
"""

import qdrant_edge as q

from edge_filters import to_filter


def to_with_payload(value):
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, list):
        return q.PayloadSelector.Include(value)
    if "include" in value:
        return q.PayloadSelector.Include(value["include"])
    return q.PayloadSelector.Exclude(value["exclude"])


def to_order_by(value):
    if value is None:
        return None
    if isinstance(value, str):
        return q.OrderBy(value)
    direction = {"asc": q.Direction.Asc, "desc": q.Direction.Desc}.get(value.get("direction"))
    return q.OrderBy(value["key"], direction, value.get("start_from"))


def to_params(params):
    if not params:
        return None
    return q.SearchParams(exact=params.get("exact", False), hnsw_ef=params.get("hnsw_ef"))


def is_id(value):
    return isinstance(value, (int, str)) and not isinstance(value, bool)


class Source:
    """Where a stage's ids take their vectors from: its shard, or `lookup_from`'s."""

    def __init__(self, shard, lookup=None):
        self.shard = shard
        self.lookup = lookup


def read_vector(source, value, referenced):
    if is_id(value):
        shard = source.lookup if source.lookup is not None else source.shard
        records = shard.retrieve([value], False, True)
        if not records:
            raise ValueError(f"No point with id {value} found")
        # Ids of another collection name no point of this one: nothing is left out.
        if source.lookup is None:
            referenced.add(value)
        return list(records[0].vector)
    if isinstance(value, dict):
        return value[""]
    return value


def mean(vectors):
    return [sum(column) / len(vectors) for column in zip(*vectors)]


def to_pairs(source, raw, referenced):
    pairs = raw if isinstance(raw, list) else [raw]
    return [
        q.ContextPair(read_vector(source, p["positive"], referenced), read_vector(source, p["negative"], referenced))
        for p in pairs
    ]


def to_scoring(source, query, referenced):
    if query is None:
        return None
    if isinstance(query, list) or is_id(query):
        return q.Query.Nearest(read_vector(source, query, referenced))
    if "nearest" in query:
        return q.Query.Nearest(read_vector(source, query["nearest"], referenced))
    if "recommend" in query:
        r = query["recommend"]
        strategy = r.get("strategy") or "average_vector"
        positives = [read_vector(source, v, referenced) for v in r.get("positive") or []]
        negatives = [read_vector(source, v, referenced) for v in r.get("negative") or []]
        if strategy == "average_vector":
            if not positives:
                raise ValueError("At least one positive vector ID required with this strategy")
            vector = mean(positives)
            if negatives:
                vector = [2 * p - n for p, n in zip(vector, mean(negatives))]
            return q.Query.Nearest(vector)
        examples = q.RecommendQuery(positives, negatives)
        if strategy == "best_score":
            return q.Query.RecommendBestScore(examples)
        return q.Query.RecommendSumScores(examples)
    if "discover" in query:
        d = query["discover"]
        target = read_vector(source, d["target"], referenced)
        return q.Query.Discover(q.DiscoverQuery(target, to_pairs(source, d["context"], referenced)))
    if "context" in query:
        return q.Query.Context(q.ContextQuery(to_pairs(source, query["context"], referenced)))
    if "order_by" in query:
        return to_order_by(query["order_by"])
    if "fusion" in query:
        return q.Fusion.Rrf(k=2) if query["fusion"] == "rrf" else q.Fusion.Dbsf()
    if "rrf" in query:
        return q.Fusion.Rrf(k=query["rrf"].get("k", 2), weights=query["rrf"].get("weights"))
    if "sample" in query:
        return q.Sample.Random
    raise ValueError(f"unknown query {query}")


def with_exclusion(flt, referenced):
    """The stage's filter, leaving out the points its query named by id."""
    if not referenced:
        return flt
    out = {"must_not": [{"has_id": sorted(referenced, key=str)}]}
    if flt:
        out["must"] = [flt]
    return out


def listed(value):
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def source_of(shard, req, shards):
    lookup = req.get("lookup_from")
    return Source(shard, shards[lookup["collection"]] if lookup else None)


def to_prefetch(shard, p, shards):
    referenced = set()
    scoring = to_scoring(source_of(shard, p, shards), p.get("query"), referenced)
    return q.Prefetch(
        limit=p.get("limit", 10),
        query=scoring,
        prefetches=[to_prefetch(shard, inner, shards) for inner in listed(p.get("prefetch"))] or None,
        params=to_params(p.get("params")),
        filter=to_filter(with_exclusion(p.get("filter"), referenced)),
        score_threshold=p.get("score_threshold"),
    )


def query(shard, req, shards):
    """A `points/query` body; the scored points. `shards` finds `lookup_from`'s shard."""
    referenced = set()
    scoring = to_scoring(source_of(shard, req, shards), req.get("query"), referenced)
    return shard.query(
        q.QueryRequest(
            limit=req.get("limit", 10),
            offset=req.get("offset"),
            query=scoring,
            prefetches=[to_prefetch(shard, p, shards) for p in listed(req.get("prefetch"))] or None,
            filter=to_filter(with_exclusion(req.get("filter"), referenced)),
            with_vector=req.get("with_vector", req.get("with_vectors", False)),
            with_payload=to_with_payload(req.get("with_payload", False)),
            score_threshold=req.get("score_threshold"),
            params=to_params(req.get("params")),
        )
    )


def values_at(payload, key):
    """Values at a plain or `a.b` key, arrays at the end looked into."""
    values = [payload]
    for step in key.split("."):
        values = [v[step] for v in values if isinstance(v, dict) and step in v]
    out = []
    for v in values:
        for item in v if isinstance(v, list) else [v]:
            if item not in out:
                out.append(item)
    return out


def groups(shard, req, shards):
    """A `points/query/groups` or `points/search/groups` body; [(group id, points)]."""
    body = {k: v for k, v in req.items() if k not in ("group_by", "group_size", "limit", "vector", "cmd", "name")}
    if "vector" in req:
        body["query"] = req["vector"]
    body["limit"] = max(1, shard.count(q.CountRequest(exact=True)))
    body["params"] = {**(req.get("params") or {}), "exact": True}
    body["with_payload"] = True
    ranked = query(shard, body, shards)
    limit = req.get("limit", 10)
    size = req.get("group_size", 3)
    found = {}
    order = []
    for point in ranked:
        for value in values_at(point.payload or {}, req["group_by"]):
            if isinstance(value, bool) or not isinstance(value, (str, int)):
                continue
            key = (type(value).__name__, value)
            if key not in found:
                if len(found) == limit:
                    continue
                found[key] = []
                order.append((value, key))
            if len(found[key]) < size:
                found[key].append(point.id)
    # The points as the request asked to see them.
    shown = {}
    wanted = {pid for pids in found.values() for pid in pids}
    shown_body = {**body, "with_payload": req.get("with_payload", False), "with_vector": req.get("with_vector", False)}
    for point in query(shard, shown_body, shards):
        if point.id in wanted:
            shown[point.id] = point
    return [(value, [shown[pid] for pid in found[key]]) for value, key in order]

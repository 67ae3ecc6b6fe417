"""Runs requests against qdrant-edge (Qdrant's Rust core, in-process) for the engine's
differential tests and benchmark.

Speaks JSON lines on stdin/stdout: each request is one object with a "cmd", each answer
one object, {"ok": result} or {"error": message}. Requests carry Qdrant REST shapes
(filters, payloads, ids as the REST API has them); this driver translates them into
qdrant_edge objects and the answers back into REST shapes, so the TypeScript side can
compare them with the engine's HTTP answers field by field.
"""

import json
import shutil
import sys
import tempfile
import time
import uuid

import qdrant_edge as q

import edge_bench_commands
from edge_bench_commands import search_params, to_quantization
import edge_query as query_api
from edge_query import to_order_by, to_with_payload
from edge_filters import to_filter

SHARDS = {}
ROOT = tempfile.mkdtemp(prefix="qdrant-edge-diff-")

DISTANCES = {
    "Cosine": q.Distance.Cosine,
    "Euclid": q.Distance.Euclid,
    "Dot": q.Distance.Dot,
    "Manhattan": q.Distance.Manhattan,
}

SCHEMA_TYPES = {
    "keyword": q.PayloadSchemaType.Keyword,
    "integer": q.PayloadSchemaType.Integer,
    "float": q.PayloadSchemaType.Float,
    "geo": q.PayloadSchemaType.Geo,
    "text": q.PayloadSchemaType.Text,
    "bool": q.PayloadSchemaType.Bool,
    "datetime": q.PayloadSchemaType.Datetime,
    "uuid": q.PayloadSchemaType.Uuid,
}

TOKENIZERS = {
    "word": q.TokenizerType.Word,
    "whitespace": q.TokenizerType.Whitespace,
    "prefix": q.TokenizerType.Prefix,
    "multilingual": q.TokenizerType.Multilingual,
}


def out_id(point_id):
    return str(point_id) if isinstance(point_id, uuid.UUID) else point_id


def to_schema(schema):
    if isinstance(schema, str):
        return SCHEMA_TYPES[schema]
    kind = schema["type"]
    params = {k: v for k, v in schema.items() if k != "type"}
    if kind == "text":
        if "tokenizer" in params:
            params["tokenizer"] = TOKENIZERS[params["tokenizer"]]
        return q.TextIndexParams(**params)
    if kind == "integer":
        return q.IntegerIndexParams(**params)
    if kind == "keyword":
        return q.KeywordIndexParams(**params)
    if kind == "float":
        return q.FloatIndexParams(**params)
    if kind == "datetime":
        return q.DatetimeIndexParams(**params)
    return SCHEMA_TYPES[kind]


def record_out(r, with_order=False):
    out = {"id": out_id(r.id), "payload": r.payload, "vector": r.vector}
    if with_order and r.order_value is not None:
        out["order_value"] = r.order_value
    return out


def scored_out(p):
    out = {"id": out_id(p.id), "score": p.score, "payload": p.payload, "vector": p.vector}
    if p.order_value is not None:
        out["order_value"] = p.order_value
    return out


UPDATE_MODES = {
    "upsert": q.UpdateMode.Upsert,
    "insert_only": q.UpdateMode.InsertOnly,
    "update_only": q.UpdateMode.UpdateOnly,
}


def with_vector_of(req):
    """`with_vector`, or its alias `with_vectors`, as Qdrant's serde reads them."""
    return req.get("with_vector", req.get("with_vectors", False))


def selector_op(req, by_ids, by_filter, *args):
    if req.get("points") is not None:
        return by_ids(req["points"], *args)
    return by_filter(to_filter(req["filter"]), *args)


def search(shard, req):
    params = search_params(req)
    result = shard.search(
        q.SearchRequest(
            query=q.Query.Nearest(req["vector"]),
            limit=req["limit"],
            offset=req.get("offset"),
            filter=to_filter(req.get("filter")),
            params=params,
            with_vector=with_vector_of(req),
            with_payload=to_with_payload(req.get("with_payload", False)),
            score_threshold=req.get("score_threshold"),
        )
    )
    return [scored_out(p) for p in result]


def shards_by_name():
    return {name: entry[0] for name, entry in SHARDS.items()}


def handle(req):
    cmd = req["cmd"]
    if cmd == "ping":
        return "pong"
    if cmd == "create":
        path = tempfile.mkdtemp(dir=ROOT)
        config = q.EdgeConfig(
            vectors=q.EdgeVectorParams(size=req["size"], distance=DISTANCES[req["distance"]]),
            quantization_config=to_quantization(req.get("quantization")),
        )
        SHARDS[req["name"]] = (q.EdgeShard.create(path, config), path)
        return True
    if cmd == "drop":
        shard, path = SHARDS.pop(req["name"])
        shard.close()
        shutil.rmtree(path, ignore_errors=True)
        return True
    shard = SHARDS[req["name"]][0]
    if cmd == "upsert":
        points = [q.Point(p["id"], p["vector"], p.get("payload")) for p in req["points"]]
        condition = to_filter(req.get("update_filter"))
        mode = UPDATE_MODES[req["update_mode"]] if req.get("update_mode") else None
        for i in range(0, len(points), 1000):
            shard.update(q.UpdateOperation.upsert_points(points[i : i + 1000], condition, mode))
        return True
    if cmd == "optimize":
        started = time.perf_counter()
        shard.optimize()
        return {"seconds": time.perf_counter() - started, "indexed": shard.info().indexed_vectors_count}
    if cmd == "delete":
        shard.update(
            selector_op(req, q.UpdateOperation.delete_points, q.UpdateOperation.delete_points_by_filter)
        )
        return True
    if cmd == "set_payload":
        op = selector_op(
            req, q.UpdateOperation.set_payload, q.UpdateOperation.set_payload_by_filter, req["payload"], req.get("key")
        )
        shard.update(op)
        return True
    if cmd == "overwrite_payload":
        op = selector_op(
            req, q.UpdateOperation.overwrite_payload, q.UpdateOperation.overwrite_payload_by_filter, req["payload"]
        )
        shard.update(op)
        return True
    if cmd == "delete_payload":
        op = selector_op(
            req, q.UpdateOperation.delete_payload, q.UpdateOperation.delete_payload_by_filter, req["keys"]
        )
        shard.update(op)
        return True
    if cmd == "clear_payload":
        shard.update(
            selector_op(req, q.UpdateOperation.clear_payload, q.UpdateOperation.clear_payload_by_filter)
        )
        return True
    if cmd == "update_vectors":
        vectors = [q.PointVectors(p["id"], p["vector"]) for p in req["points"]]
        shard.update(q.UpdateOperation.update_vectors(vectors, to_filter(req.get("update_filter"))))
        return True
    if cmd == "create_index":
        shard.update(q.UpdateOperation.create_field_index(req["field"], to_schema(req["schema"])))
        return True
    if cmd == "delete_index":
        shard.update(q.UpdateOperation.delete_field_index(req["field"]))
        return True
    if cmd == "search":
        return search(shard, req)
    if cmd == "search_batch":
        return [search(shard, one) for one in req["searches"]]
    if cmd == "query":
        return {"points": [scored_out(p) for p in query_api.query(shard, req, shards_by_name())]}
    if cmd == "query_batch":
        return [
            {"points": [scored_out(p) for p in query_api.query(shard, one, shards_by_name())]}
            for one in req["searches"]
        ]
    if cmd == "query_groups":
        groups = query_api.groups(shard, req, shards_by_name())
        return {"groups": [{"id": value, "hits": [scored_out(p) for p in hits]} for value, hits in groups]}
    if cmd == "facet":
        response = shard.facet(
            q.FacetRequest(
                req["key"], limit=req.get("limit", 10), exact=True, filter=to_filter(req.get("filter"))
            )
        )
        return {"hits": [{"value": h.value, "count": h.count} for h in response]}
    if cmd == "scroll":
        records, next_offset = shard.scroll(
            q.ScrollRequest(
                offset=req.get("offset"),
                limit=req.get("limit", 10),
                filter=to_filter(req.get("filter")),
                with_payload=to_with_payload(req.get("with_payload", True)),
                with_vector=with_vector_of(req),
                order_by=to_order_by(req.get("order_by")),
            )
        )
        with_order = req.get("order_by") is not None
        return {
            "points": [record_out(r, with_order) for r in records],
            "next_page_offset": out_id(next_offset) if next_offset is not None else None,
        }
    if cmd == "count":
        return {"count": shard.count(q.CountRequest(exact=True, filter=to_filter(req.get("filter"))))}
    if cmd == "retrieve":
        records = shard.retrieve(
            req["ids"], to_with_payload(req.get("with_payload", True)), with_vector_of(req)
        )
        return [record_out(r) for r in records]
    bench = edge_bench_commands.COMMANDS.get(cmd)
    if bench is not None:
        return bench(shard, req)
    raise ValueError(f"unknown command {cmd}")


def main():
    try:
        for line in sys.stdin:
            if not line.strip():
                continue
            try:
                answer = {"ok": handle(json.loads(line))}
            except Exception as error:  # every failure goes back to the caller as data
                answer = {"error": f"{type(error).__name__}: {error}"}
            sys.stdout.write(json.dumps(answer) + "\n")
            sys.stdout.flush()
    finally:
        for shard, _ in SHARDS.values():
            shard.close()
        shutil.rmtree(ROOT, ignore_errors=True)


if __name__ == "__main__":
    main()

"""Drives the official Python client (`qdrant-client`, sync and async) against the vector plane.

Run by test/vector/python-client.test.ts with the project's venv (.tools/venv, made by
`node hack/python/ensure-venv.mjs`). The collections `py_docs` and `py_edits` (size 4, Cosine)
exist before it runs, made through POST /api/v1/collections. Configured the way the README
tells a user: `prefix="api/v1"` and the client's own `api_key=`. Prints one JSON line of what
it saw; exits 1 with the first check that failed. No pytest: the standard library and the
client only.
"""

import asyncio
import json
import os
import sys
import warnings

from qdrant_client import AsyncQdrantClient, QdrantClient, models
from qdrant_client.http.exceptions import UnexpectedResponse

URL = os.environ["SVC_VECTORS_URL"]
KEY = os.environ["SVC_API_KEY"]
# The client's own 5 s read timeout failed a filtered query on a loaded CI machine: the
# checks are of answers, not of latency.
TIMEOUT_S = 60
COLLECTION = "py_docs"
EDITS = "py_edits"
ATTESTED = {"__svc_agent_id": None, "__svc_deployment_id": None}

# The client warns that an API key travels over plain http; the test server is on loopback.
warnings.simplefilter("ignore")


def check(condition, what):
    if not condition:
        print(f"check failed: {what}", file=sys.stderr)
        sys.exit(1)


def sync_calls(seen):
    client = QdrantClient(
        url=URL, prefix="api/v1", api_key=KEY, check_compatibility=False, timeout=TIMEOUT_S
    )
    check(client.collection_exists(COLLECTION), "collection_exists is true for py_docs")
    check(not client.collection_exists("py_missing"), "collection_exists is false for py_missing")

    info = client.get_collection(COLLECTION)
    check(info.status == models.CollectionStatus.GREEN, f"status green, got {info.status}")
    vectors = info.config.params.vectors
    check(vectors.size == 4 and vectors.distance == models.Distance.COSINE, f"vectors {vectors}")
    names = [c.name for c in client.get_collections().collections]
    check(COLLECTION in names, f"get_collections lists py_docs: {names}")

    points = [
        models.PointStruct(id=i, vector=[1.0, float(i), 0.5, 0.25], payload={"n": i})
        for i in range(10)
    ]
    check(
        client.upsert(COLLECTION, points=points, wait=True).status
        == models.UpdateStatus.COMPLETED,
        "upsert completed",
    )
    hits = client.query_points(COLLECTION, query=[1.0, 4.0, 0.5, 0.25], limit=3).points
    check(len(hits) == 3 and hits[0].id == 4, f"query_points nearest is 4: {hits}")
    page, next_offset = client.scroll(COLLECTION, limit=5)
    check(len(page) == 5 and next_offset == 5, f"scroll pages by 5: {next_offset}")
    check(client.count(COLLECTION, exact=True).count == 10, "count is 10")

    client.set_payload(COLLECTION, payload={"tag": "x"}, points=[1], wait=True)
    payload = client.retrieve(COLLECTION, ids=[1])[0].payload
    check(
        payload == {"n": 1, "tag": "x", "__svc_agent_id": None, "__svc_deployment_id": None},
        f"retrieve after set_payload: {payload}",
    )

    check(client.delete_collection("py_missing") is False, "delete of a missing collection")
    try:
        client.recreate_collection(
            "py_recreated",
            vectors_config=models.VectorParams(size=4, distance=models.Distance.COSINE),
        )
        check(False, "recreate_collection's create is refused (PUT /collections/{name})")
    except UnexpectedResponse as refused:
        # Its delete of the missing collection passed; the engine-native create is the contract's 405.
        check(refused.status_code == 405, f"recreate's create is 405, got {refused.status_code}")
    seen["sync"] = {"points_count": info.points_count, "collections": len(names)}


def edit_calls(seen):
    """Payload indexes, query-time quantization params, payload edits and point deletes."""
    client = QdrantClient(
        url=URL, prefix="api/v1", api_key=KEY, check_compatibility=False, timeout=TIMEOUT_S
    )
    points = [
        models.PointStruct(id=i + 1, vector=[1.0, float(i), float(i % 4), 0.25], payload={"n": i})
        for i in range(12)
    ]
    client.upsert(EDITS, points=points, wait=True)
    indexed = client.create_payload_index(
        EDITS, field_name="n", field_schema=models.PayloadSchemaType.INTEGER, wait=True
    )
    check(indexed.status == models.UpdateStatus.COMPLETED, f"create_payload_index: {indexed}")

    params = models.SearchParams(
        hnsw_ef=32,
        quantization=models.QuantizationSearchParams(ignore=False, rescore=True, oversampling=2.0),
    )
    only_from_3 = models.Filter(must=[models.FieldCondition(key="n", range=models.Range(gte=3))])
    hits = client.query_points(
        EDITS, query=[1.0, 5.0, 1.0, 0.25], limit=3, search_params=params, query_filter=only_from_3
    ).points
    check(hits[0].id == 6 and all(h.payload["n"] >= 3 for h in hits), f"filtered query: {hits}")
    batch = client.query_batch_points(
        EDITS,
        requests=[
            models.QueryRequest(query=[1.0, 0.0, 0.0, 0.25], limit=1, params=params),
            models.QueryRequest(query=[1.0, 11.0, 3.0, 0.25], limit=1),
        ],
    )
    check([r.points[0].id for r in batch] == [1, 12], f"query_batch_points: {batch}")

    def read(point_id):
        return client.retrieve(EDITS, ids=[point_id])[0].payload

    client.set_payload(EDITS, payload={"tag": "x", "extra": 1}, points=[1], wait=True)
    client.delete_payload(EDITS, keys=["extra"], points=[1], wait=True)
    check(read(1) == {"n": 0, "tag": "x", **ATTESTED}, f"after delete_payload: {read(1)}")
    client.overwrite_payload(EDITS, payload={"only": True}, points=[2], wait=True)
    check(read(2) == {"only": True, **ATTESTED}, f"after overwrite_payload: {read(2)}")
    client.clear_payload(EDITS, points_selector=[3], wait=True)
    check(read(3) == ATTESTED, f"after clear_payload: {read(3)}")

    client.delete(EDITS, points_selector=models.PointIdsList(points=[4, 5]), wait=True)
    below_6 = models.Filter(must=[models.FieldCondition(key="n", range=models.Range(lt=6))])
    client.delete(EDITS, points_selector=models.FilterSelector(filter=below_6), wait=True)
    # ids 1 and 6 held n below 6; 2 and 3 lost n; 4 and 5 were deleted by id.
    left = client.count(EDITS, exact=True).count
    check(left == 8, f"count after the deletes is 8, got {left}")
    page, _ = client.scroll(EDITS, scroll_filter=only_from_3, limit=20)
    check(sorted(p.id for p in page) == list(range(7, 13)), f"scroll with a filter: {page}")
    seen["edits"] = {"points_count": left}


async def async_calls(seen):
    client = AsyncQdrantClient(
        url=URL, prefix="api/v1", api_key=KEY, check_compatibility=False, timeout=TIMEOUT_S
    )
    try:
        check(await client.collection_exists(COLLECTION), "async collection_exists")
        info = await client.get_collection(COLLECTION)
        check(info.config.params.vectors.size == 4, f"async get_collection: {info.config}")
        check(info.points_count == 10, f"async points_count 10, got {info.points_count}")
        hits = await client.query_points(COLLECTION, query=[1.0, 2.0, 0.5, 0.25], limit=2)
        check(len(hits.points) == 2, "async query_points")
        await client.set_payload(EDITS, payload={"async": True}, points=[12], wait=True)
        payload = (await client.retrieve(EDITS, ids=[12]))[0].payload
        check(payload == {"n": 11, "async": True, **ATTESTED}, f"async set_payload: {payload}")
        await client.delete(EDITS, points_selector=[12], wait=True)
        check((await client.count(EDITS, exact=True)).count == 7, "async delete and count")
        seen["async"] = {"points_count": info.points_count}
    finally:
        await client.close()


def main():
    seen = {}
    sync_calls(seen)
    edit_calls(seen)
    asyncio.run(async_calls(seen))
    print(json.dumps(seen))


if __name__ == "__main__":
    main()

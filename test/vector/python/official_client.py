"""Drives the official Python client (`qdrant-client`, sync and async) against the vector plane.

Run by test/vector/python-client.test.ts with the project's venv (.tools/venv, made by
`node hack/python/ensure-venv.mjs`). The collection `py_docs` (size 4, Cosine) exists before
it runs, made through POST /api/v1/collections. Configured the way the README tells a user:
`prefix="api/v1"` and the client's own `api_key=`. Prints one JSON line of what it saw;
exits 1 with the first check that failed. No pytest: the standard library and the client only.
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
COLLECTION = "py_docs"

# The client warns that an API key travels over plain http; the test server is on loopback.
warnings.simplefilter("ignore")


def check(condition, what):
    if not condition:
        print(f"check failed: {what}", file=sys.stderr)
        sys.exit(1)


def sync_calls(seen):
    client = QdrantClient(url=URL, prefix="api/v1", api_key=KEY, check_compatibility=False)
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


async def async_calls(seen):
    client = AsyncQdrantClient(url=URL, prefix="api/v1", api_key=KEY, check_compatibility=False)
    try:
        check(await client.collection_exists(COLLECTION), "async collection_exists")
        info = await client.get_collection(COLLECTION)
        check(info.config.params.vectors.size == 4, f"async get_collection: {info.config}")
        check(info.points_count == 10, f"async points_count 10, got {info.points_count}")
        hits = await client.query_points(COLLECTION, query=[1.0, 2.0, 0.5, 0.25], limit=2)
        check(len(hits.points) == 2, "async query_points")
        seen["async"] = {"points_count": info.points_count}
    finally:
        await client.close()


def main():
    seen = {}
    sync_calls(seen)
    asyncio.run(async_calls(seen))
    print(json.dumps(seen))


if __name__ == "__main__":
    main()

"""A minimal ASGI service: the platform imports this module and serves `app`."""
import json
import os


async def app(scope, receive, send):
    if scope["type"] != "http":
        return
    path = scope["path"]
    if path == "/svc/run" and scope["method"] == "POST":
        # A scheduled or manual run of a service agent arrives here with the run's payload.
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        print("run requested with", body.decode() or "{}", flush=True)
        payload = b'{"ok": true}'
    else:
        payload = json.dumps({"hello": "from python", "path": path, "agent": os.environ.get("SVC_AGENT_NAME")}).encode()
    await send({"type": "http.response.start", "status": 200, "headers": [[b"content-type", b"application/json"]]})
    await send({"type": "http.response.body", "body": payload})

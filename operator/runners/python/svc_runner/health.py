"""ASGI middleware in front of the user's app: `/health` belongs to the platform.

The contract says the platform answers `GET /health` and a `/health` route in user code is never
reached, so readiness reflects that the process serves, not what the app chose to report. Every
other scope (http, websocket, lifespan) goes to the app unchanged.
"""

from __future__ import annotations

from typing import Any, Awaitable, Callable, MutableMapping

from .errors import error_line, write_error_file

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

HEALTH_PATH = "/health"
_HEALTH_BODY = b'{"status":"ok"}'


class HealthMiddleware:
    """ASGI3 application answering `/health` itself and passing everything else to `app`."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "http" and scope["path"] == HEALTH_PATH:
            await _answer_health(scope, send)
        elif kind == "websocket" and scope["path"] == HEALTH_PATH:
            # Closing before accepting makes the server refuse the handshake (HTTP 403).
            await send({"type": "websocket.close", "code": 1008})
        elif kind == "lifespan":
            await self._lifespan(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    async def _lifespan(self, scope: Scope, receive: Receive, send: Send) -> None:
        # A failing startup hook (FastAPI's on_startup, a lifespan context) is an entry point
        # that does not load: uvicorn exits with 3, and the reason must reach the error file.
        startup_failed = False

        async def watched_send(message: Message) -> None:
            nonlocal startup_failed
            if message["type"] == "lifespan.startup.failed":
                startup_failed = True
                lines = [line for line in str(message.get("message") or "").splitlines() if line]
                write_error_file(lines[-1].strip() if lines else "Application startup failed.")
            await send(message)

        try:
            await self.app(scope, receive, watched_send)
        except Exception as exc:
            # The exception's own line beats the last line of a formatted message. An app that
            # merely does not speak lifespan raises without failing startup, which is no error;
            # the cancellation uvicorn uses to stop the lifespan task is not one either.
            if startup_failed:
                write_error_file(error_line(exc))
            raise


async def _answer_health(scope: Scope, send: Send) -> None:
    if scope["method"] in ("GET", "HEAD"):
        status, body = 200, _HEALTH_BODY
        headers = [(b"content-type", b"application/json"), (b"cache-control", b"no-store")]
    else:
        status, body = 405, b""
        headers = [(b"allow", b"GET, HEAD")]
    headers.append((b"content-length", str(len(body)).encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    # uvicorn drops the body of a HEAD response itself.
    await send({"type": "http.response.body", "body": body})

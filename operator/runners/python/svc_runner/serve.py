"""`serve` mode: imports the entry point, wraps its ASGI `app` and serves it with uvicorn.

uvicorn and the libraries it speaks HTTP and WebSockets with are imported when this module is,
which `__main__` does before the user's directories go on sys.path: the runner's pinned server
stack is the one that serves, even when the app's requirements pin another uvicorn, h11 or
websockets (user code importing those gets the runner's copies, already loaded).
"""

from __future__ import annotations

import copy
import os
import signal
import socket
import stat
import sys
from pathlib import Path
from typing import Any

from .lean_uvicorn import install as _lean_uvicorn

_lean_uvicorn()  # before uvicorn is imported: see lean_uvicorn.py

import uvicorn  # noqa: E402
import uvicorn.lifespan.on  # noqa: F401  (loaded lazily by uvicorn otherwise; see above)
import uvicorn.loops.asyncio  # noqa: F401
import uvicorn.protocols.http.h11_impl  # noqa: F401
import uvicorn.protocols.websockets.websockets_sansio_impl  # noqa: F401
from uvicorn.config import LOGGING_CONFIG
from uvicorn.middleware.asgi2 import ASGI2Middleware

from .errors import EXIT_ENTRYPOINT_FAILED, EntrypointError, report_exception, report_message
from .health import HealthMiddleware
from .loader import asgi_interface, find_app, import_entrypoint
from .network import await_network

#: The runner could not listen (port taken, bad host, socket directory missing).
EXIT_CANNOT_LISTEN = 1

# Below the pod's 30 s termination grace, so in-flight requests finish before SIGKILL.
GRACEFUL_SHUTDOWN_SECONDS = 20


def load_app(app_dir: Path, entrypoint: str) -> Any:
    """The entry point's `app` as an ASGI3 application; raises what loading raised."""
    # Module-level code that reads sys.argv must not see the runner's own arguments.
    sys.argv = [str(app_dir / entrypoint)]
    app = find_app(import_entrypoint(app_dir, entrypoint), entrypoint)
    return app if asgi_interface(app, entrypoint) == "asgi3" else ASGI2Middleware(app)


def _log_config() -> dict[str, Any]:
    # stdout belongs to the user's program; the server's own lines all go to stderr.
    config = copy.deepcopy(LOGGING_CONFIG)
    config["handlers"]["access"]["stream"] = "ext://sys.stderr"
    return config


def _bind(host: str, port: int) -> socket.socket:
    # Bound here rather than by uvicorn, which exits with 3 when it cannot bind: 3 is reserved
    # for "the user's entry point failed", and a taken port is not that.
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    return sock


def _bind_unix(path: str) -> socket.socket:
    # A socket file left by a previous process of the service (it crashed) is replaced; any
    # other file there is not.
    try:
        if stat.S_ISSOCK(os.stat(path).st_mode):
            os.unlink(path)
    except FileNotFoundError:
        pass
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.bind(path)
    except OSError:
        sock.close()
        raise
    return sock


def serve(
    app_dir: Path, entrypoint: str, host: str, port: int, socket_path: str | None = None
) -> int:
    """Serves the entry point's `app` until SIGTERM/SIGINT; returns the process exit code.

    On the Unix socket `socket_path` when given (the local driver), on host:port otherwise.

    uvicorn itself exits with 3 (SystemExit) when the app's lifespan startup fails.
    """
    await_network()
    try:
        app = load_app(app_dir, entrypoint)
    except EntrypointError as exc:
        report_message(str(exc))
        return EXIT_ENTRYPOINT_FAILED
    except (Exception, SystemExit) as exc:
        # SystemExit too: a module that calls sys.exit() while imported did not load.
        report_exception(exc)
        return EXIT_ENTRYPOINT_FAILED

    address = f"unix:{socket_path}" if socket_path else f"http://{host}:{port}"
    try:
        sock = _bind_unix(socket_path) if socket_path else _bind(host, port)
    except OSError as exc:
        print(f"svc-runner: cannot listen on {address}: {exc}", file=sys.stderr, flush=True)
        return EXIT_CANNOT_LISTEN

    config = uvicorn.Config(
        HealthMiddleware(app),
        interface="asgi3",
        # Explicit choices, so an httptools or uvloop among the app's dependencies changes nothing.
        http="h11",
        ws="websockets-sansio",
        loop="asyncio",
        lifespan="auto",
        access_log=False,
        log_config=_log_config(),
        use_colors=False,
        server_header=False,
        timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_SECONDS,
    )
    server = uvicorn.Server(config)
    # From here on a SIGTERM/SIGINT is the server's to handle, also one that comes before uvicorn
    # puts in its own handlers: it is recorded, and uvicorn, once running, shuts down at once (a
    # handler that did nothing once lost such a signal, and the service never stopped). After a
    # graceful shutdown uvicorn re-raises the signal to this handler, which only records it again,
    # so the runner returns 0 instead of dying by the signal: a stopped service is a clean exit.
    signal.signal(signal.SIGTERM, server.handle_exit)
    signal.signal(signal.SIGINT, server.handle_exit)
    print(f"svc-runner: serving {entrypoint} on {address}", file=sys.stderr, flush=True)
    server.run(sockets=[sock])
    return 0

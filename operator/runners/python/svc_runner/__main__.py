"""Command line of the Python runner.

    python -m svc_runner serve --app-dir DIR --entrypoint FILE [--port P] [--host H | --socket PATH]
    python -m svc_runner run   --app-dir DIR --entrypoint FILE
    python -m svc_runner check --app-dir DIR --entrypoint FILE

with PYTHONPATH=<repo>/operator/runners/python:DIR/.svc/deps (both are added here as well).
Defaults suit a runner image whose pod passes only the mode with workingDir /app: --app-dir is
the working directory, --entrypoint $SVC_ENTRYPOINT or main.py, --port $PORT or 8080, --host
0.0.0.0. The local driver passes --socket PATH instead: the runner serves on a Unix socket at PATH
(a stale socket file there is replaced), the only way its edge reaches a sandboxed service.
SVC_RUNNER_ERROR_FILE, when set, names a file that receives the one-line reason of a failure.
SVC_ARTIFACT_URL, when set (a cluster pod), is where the agent's built code is fetched from into
an empty --app-dir first (fetch.py).

Exit codes. serve: 0 after a graceful SIGTERM/SIGINT shutdown; 1 cannot listen; 2 bad command
line; 3 the entry point failed to import, has no usable `app`, or its startup hook failed (never
healthy). run: the script's own code (0, SystemExit's code, 1 on an uncaught exception); 3 when
the entry point file does not exist. check (a build step: compiles, runs nothing): 0, or 3 when
the entry point is missing or does not compile.
"""

import os
import sys

# `python -m` puts the working directory first on sys.path, and in a runner image that is the
# app directory: a user file named like a module the runner imports (logging.py, uvicorn.py)
# must not replace it. The app directory goes back on the path, first, once the runner is loaded.
if sys.path and sys.path[0] in ("", os.getcwd()):
    del sys.path[0]

import argparse  # noqa: E402
import site  # noqa: E402
from pathlib import Path  # noqa: E402

_RUNNER_PARENT = str(Path(__file__).resolve().parent.parent)


def _parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m svc_runner", description=(__doc__ or "").split("\n")[0]
    )
    parser.add_argument("mode", choices=("serve", "run", "check"))
    parser.add_argument("--app-dir", default=os.getcwd(), help="the agent's code (default: cwd)")
    parser.add_argument(
        "--entrypoint",
        default=os.environ.get("SVC_ENTRYPOINT") or "main.py",
        help="file relative to --app-dir (default: $SVC_ENTRYPOINT or main.py)",
    )
    # A string default goes through `type` too, so a bad $PORT is a usage error (exit 2).
    parser.add_argument("--port", type=int, default=os.environ.get("PORT") or "8080")
    parser.add_argument("--host", default="0.0.0.0")
    parser.add_argument("--socket", default=None, help="serve on this Unix socket path instead")
    return parser.parse_args(argv)


def _set_user_paths(app_dir: Path, deps: Path) -> None:
    # Deps and the app dir are taken off and put back at the front in a known order: app code
    # shadows its dependencies, which shadow the runner's environment (as PYTHONPATH intends).
    for entry in (str(app_dir), str(deps)):
        while entry in sys.path:
            sys.path.remove(entry)
    sys.path[0:0] = [str(app_dir), str(deps)]
    if _RUNNER_PARENT not in sys.path:
        sys.path.append(_RUNNER_PARENT)
    if deps.is_dir():
        # Honours .pth files pip may have installed with --target (old namespace packages).
        site.addsitedir(str(deps))


def main(argv: list[str] | None = None) -> int:
    """Parses the command line, prepares sys.path and the working directory, runs the mode."""
    args = _parse(argv)
    app_dir = Path(args.app_dir).resolve()
    deps = app_dir / ".svc" / "deps"
    if not app_dir.is_dir():
        print(f"svc-runner: --app-dir {app_dir} is not a directory", file=sys.stderr)
        return 2
    # The runner's server stack must load before the user's dependencies are importable.
    while str(deps) in sys.path:
        sys.path.remove(str(deps))
    if args.mode != "check":
        from .fetch import fetch_or_exit

        fetch_or_exit(app_dir)
    os.chdir(app_dir)
    if args.mode == "check":
        from .check import check

        return check(app_dir, args.entrypoint)
    # Piped stdout is block-buffered; the agent's logs should show each line as it is printed.
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(line_buffering=True)

    if args.mode == "serve":
        from .serve import serve

        _set_user_paths(app_dir, deps)
        return serve(app_dir, args.entrypoint, args.host, args.port, args.socket)

    from .run import run

    _set_user_paths(app_dir, deps)
    return run(app_dir, args.entrypoint)


if __name__ == "__main__":
    sys.exit(main())

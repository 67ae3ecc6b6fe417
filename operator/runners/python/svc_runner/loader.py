"""Loads the user's entry point as an ordinary module and finds its ASGI `app`.

The module is imported under a name derived from its file, never `__main__`, so a block guarded
by `if __name__ == '__main__':` (typically `uvicorn.run(app)`) does not run: the platform serves
the app itself, and user code must not start a server.
"""

from __future__ import annotations

import importlib.util
import inspect
import keyword
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from .errors import EntrypointError

#: The module name used when the file's own name cannot be one (or is already taken).
FALLBACK_MODULE_NAME = "_svc_entrypoint"


def entrypoint_path(app_dir: Path, entrypoint: str) -> Path:
    """The entry point's absolute path; EntrypointError when there is no such file."""
    path = (app_dir / entrypoint).resolve()
    if not path.is_file():
        # Named relative to the code: where the code sits (/app, a build directory) is not the user's.
        raise EntrypointError(f"The entry point {entrypoint} was not found in the agent's code.")
    return path


def module_name(app_dir: Path, path: Path) -> str:
    """`main` for main.py, `pkg.api` for pkg/api.py: the name `import` would have given it.

    A name that is not importable (`my-app.py`) or is already loaded (a user file called
    `json.py` must not replace the json module the runner uses) falls back to a private name.
    """
    try:
        parts = path.relative_to(app_dir.resolve()).with_suffix("").parts
    except ValueError:
        return FALLBACK_MODULE_NAME
    if not parts or not all(p.isidentifier() and not keyword.iskeyword(p) for p in parts):
        return FALLBACK_MODULE_NAME
    name = ".".join(parts)
    return FALLBACK_MODULE_NAME if name in sys.modules else name


def import_entrypoint(app_dir: Path, entrypoint: str) -> ModuleType:
    """Imports the entry point; whatever its top level raises propagates to the caller."""
    path = entrypoint_path(app_dir, entrypoint)
    name = module_name(app_dir, path)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise EntrypointError(f"The entry point {entrypoint} is not a Python module.")
    module = importlib.util.module_from_spec(spec)
    # Registered before it runs, as `import` does, so dataclasses, pickling and circular
    # imports that look the module up by name find it.
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


def find_app(module: ModuleType, entrypoint: str) -> Any:
    """The module's `app` attribute; EntrypointError when it has none."""
    app = getattr(module, "app", None)
    if app is None:
        raise EntrypointError(
            f"The entry point {entrypoint} does not export `app` (an ASGI application)."
        )
    return app


def _positional_parameters(func: Any) -> int | None:
    try:
        params = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        return None
    kinds = [p.kind for p in params]
    if inspect.Parameter.VAR_POSITIONAL in kinds:
        return None
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return sum(1 for kind in kinds if kind in positional)


def asgi_interface(app: Any, entrypoint: str) -> str:
    """`asgi3` or `asgi2` for a callable `app`, decided the way uvicorn decides it.

    Raises EntrypointError for what can never serve: a non-callable, or a WSGI application
    (Flask, Django's WSGI handler), which would otherwise start and fail every request.
    """
    if not callable(app):
        raise EntrypointError(
            f"`app` in {entrypoint} is not an ASGI application: "
            f"a {type(app).__name__} is not callable."
        )
    if inspect.isclass(app):
        # An ASGI2 application class is instantiated per connection with the scope.
        return "asgi3" if hasattr(app, "__await__") else "asgi2"
    call = app if inspect.isroutine(app) else type(app).__call__
    if inspect.iscoroutinefunction(call):
        return "asgi3"
    arity = _positional_parameters(app)
    if arity == 2:
        raise EntrypointError(
            f"`app` in {entrypoint} looks like a WSGI application (environ, start_response); "
            "the Python runtimes serve ASGI. Use an ASGI framework, or wrap it with "
            "asgiref.wsgi.WsgiToAsgi."
        )
    return "asgi2" if arity == 1 else "asgi3"

"""uvicorn without its command line.

uvicorn's package imports `uvicorn.main`, its click command line, even when it is embedded
(`from uvicorn.main import Server, main, run` in its `__init__`): click and what it loads take
about 17 ms of each service's cold start, which the runner, serving through `uvicorn.Server`,
never uses. `install()` puts a stand-in for `uvicorn.main` in place before uvicorn is imported:
it gives the package the real `Server`, and a `main` and `run` that load the real module the
first time they are called, so an app that calls `uvicorn.run` still gets it.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import Any


def _real() -> types.ModuleType:
    """The real `uvicorn.main`, loaded in place of the stand-in."""
    module = sys.modules.get("uvicorn.main")
    if module is None or getattr(module, "__svc_stand_in__", False):
        sys.modules.pop("uvicorn.main", None)
        module = importlib.import_module("uvicorn.main")
    return module


def _main(*args: Any, **kwargs: Any) -> Any:
    return _real().main(*args, **kwargs)


def _run(*args: Any, **kwargs: Any) -> Any:
    return _real().run(*args, **kwargs)


def _attribute(name: str) -> Any:
    if name.startswith("__"):
        # The import machinery asks for `__path__` and the like; a plain module has none.
        raise AttributeError(name)
    if name == "Server":
        from uvicorn.server import Server

        return Server
    if name == "main":
        return _main
    if name == "run":
        return _run
    return getattr(_real(), name)


def install() -> None:
    """Puts the stand-in in place; does nothing once uvicorn is imported."""
    if "uvicorn" in sys.modules or "uvicorn.main" in sys.modules:
        return
    stand_in = types.ModuleType("uvicorn.main")
    stand_in.__svc_stand_in__ = True  # type: ignore[attr-defined]
    stand_in.__getattr__ = _attribute  # type: ignore[method-assign]
    sys.modules["uvicorn.main"] = stand_in

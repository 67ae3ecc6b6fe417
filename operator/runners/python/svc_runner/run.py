"""`run` mode: runs a job agent's entry point once as a plain script, as `python FILE` would.

It runs as `__main__`, so its `if __name__ == '__main__':` block runs, unlike in `serve`.
"""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

from .errors import EXIT_ENTRYPOINT_FAILED, EntrypointError, report_exception, report_message
from .loader import entrypoint_path

#: The script raised an uncaught exception.
EXIT_UNCAUGHT_EXCEPTION = 1


def _exit_code(code: object) -> int:
    # The interpreter's own rules for SystemExit: None is success, an int is the code, anything
    # else is printed and means 1.
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr, flush=True)
    return 1


def run(app_dir: Path, entrypoint: str) -> int:
    """Runs the script and returns the exit code `python FILE` would have exited with."""
    try:
        path = entrypoint_path(app_dir, entrypoint)
    except EntrypointError as exc:
        report_message(str(exc))
        return EXIT_ENTRYPOINT_FAILED
    sys.argv = [str(path)]
    # `python FILE` puts the script's own directory first.
    sys.path.insert(0, str(path.parent))
    try:
        runpy.run_path(str(path), run_name="__main__")
    except SystemExit as exc:
        return _exit_code(exc.code)
    except Exception as exc:
        report_exception(exc)
        return EXIT_UNCAUGHT_EXCEPTION
    return 0

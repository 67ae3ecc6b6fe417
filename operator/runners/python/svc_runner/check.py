"""`check` mode: compiles the entry point without running it, as a build step.

A job's entry point is only run by its first run; a syntax error in it should fail the deploy that
brought it, with the interpreter's message, file and line, not that run. Nothing is imported and
nothing is written (no `__pycache__`).
"""

from __future__ import annotations

from pathlib import Path

from .errors import EXIT_ENTRYPOINT_FAILED, EntrypointError, error_line, report_message
from .loader import entrypoint_path


def check(app_dir: Path, entrypoint: str) -> int:
    """0 when the entry point compiles; otherwise reports why and returns EXIT_ENTRYPOINT_FAILED."""
    try:
        path = entrypoint_path(app_dir, entrypoint)
    except EntrypointError as exc:
        report_message(str(exc))
        return EXIT_ENTRYPOINT_FAILED
    try:
        compile(path.read_bytes(), str(path), "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        # ValueError: a source with null bytes, which Python refuses to compile.
        report_message(error_line(exc))
        return EXIT_ENTRYPOINT_FAILED
    return 0

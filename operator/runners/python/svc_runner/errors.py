"""How a failure of the user's code reaches the platform.

A deploy's reason must carry the interpreter's own message, so a failure is reported in three
places: the full traceback on stderr (it becomes the agent's logs), the one-line `Type: message`
in the file named by SVC_RUNNER_ERROR_FILE (the driver reads it as the reason; stderr is too
noisy to parse), and the exit code, which tells the driver whose fault it was.
"""

from __future__ import annotations

import os
import runpy
import sys
import traceback
from pathlib import Path
from types import TracebackType

#: The entry point could not be loaded or does not export a servable `app`.
EXIT_ENTRYPOINT_FAILED = 3

_RUNNER_DIR = str(Path(__file__).resolve().parent)
_RUNPY_FILE = runpy.__file__


class EntrypointError(Exception):
    """The entry point cannot be served; the message is written for the user, as is."""


def _is_runner_frame(filename: str) -> bool:
    return (
        filename.startswith(_RUNNER_DIR)
        or filename.startswith("<frozen ")
        or filename == _RUNPY_FILE
    )


def user_traceback(exc: BaseException) -> TracebackType | None:
    """The exception's traceback without the runner's, runpy's and importlib's leading frames.

    The user should see their own code at the top of the traceback, as with `python main.py`.
    """
    tb = exc.__traceback__
    while tb is not None and _is_runner_frame(tb.tb_frame.f_code.co_filename):
        tb = tb.tb_next
    return tb


def code_path(filename: str) -> str:
    """`filename` as the user knows it: relative to the agent's code (the working directory).

    The code sits at /app in a pod or a sandbox and in a build directory on a host; neither is
    the user's business. A file outside the code (a dependency, the interpreter) keeps its name.
    """
    try:
        path = Path(filename).resolve()
        return str(path.relative_to(Path.cwd().resolve()))
    except (OSError, ValueError):
        return filename


def error_line(exc: BaseException) -> str:
    """The `Type: message` line Python prints last for an uncaught exception, on one line.

    A SyntaxError (IndentationError, TabError) also names its file, relative to the agent's
    code, and line, as Python's own `str()` of one does: `SyntaxError: invalid syntax (main.py,
    line 3)`.
    """
    exc_type = type(exc)
    name = exc_type.__qualname__
    if exc_type.__module__ not in ("builtins", "__main__"):
        name = f"{exc_type.__module__}.{name}"
    if isinstance(exc, SyntaxError) and exc.filename and exc.lineno:
        return f"{name}: {exc.msg} ({code_path(exc.filename)}, line {exc.lineno})"
    lines = [line.strip() for line in traceback.format_exception_only(exc_type, exc)]
    # A SyntaxError's lines start with the file and the caret; notes (3.11) come after it.
    for line in lines:
        if line == name or line.startswith(f"{name}:"):
            return line
    return lines[-1] if lines else name


def write_error_file(line: str) -> None:
    """Writes the one-line reason to SVC_RUNNER_ERROR_FILE, when the caller asked for it."""
    path = os.environ.get("SVC_RUNNER_ERROR_FILE")
    if not path:
        return
    try:
        Path(path).write_text(f"{line}\n", encoding="utf-8")
    except OSError as exc:
        # The reason still reaches stderr; a bad path must not mask the user's error.
        print(f"svc-runner: could not write SVC_RUNNER_ERROR_FILE {path}: {exc}", file=sys.stderr)


def report_exception(exc: BaseException) -> None:
    """Prints the user's traceback to stderr and records its `Type: message` line."""
    traceback.print_exception(type(exc), exc, user_traceback(exc), file=sys.stderr)
    write_error_file(error_line(exc))
    sys.stderr.flush()


def report_message(message: str) -> None:
    """Prints a runner-made message to stderr and records it as the reason."""
    print(message, file=sys.stderr, flush=True)
    write_error_file(message)

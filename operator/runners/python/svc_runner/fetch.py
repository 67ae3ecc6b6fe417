"""The agent's built code, fetched by the runner itself before it starts it (in a cluster pod).

A pod's runner finds $SVC_ARTIFACT_URL set (the API server's internal route of the deployment's
build artifact, with a read token) and an empty app directory: it downloads the artifact (a
tar.gz of regular files, as the build step packs it) into the directory, then runs the agent as
it would locally. Done here rather than in an init container of the builder image, a wake from
zero no longer waits for a second container to start and for the kubelet to notice it ended (up
to a second). A restarted container finds the code there (the directory is the pod's volume)
and does not fetch again. The URL leaves the environment before any user code runs.
"""

import os
import shutil
import sys
import tarfile
import time
import urllib.error
import urllib.request
from pathlib import Path

RETRY_FOR_S = 60.0
_RETRYABLE = {502, 503, 504}
_DONE = ".svc/fetched"


def _entry_path(app_dir: Path, name: str) -> Path:
    """Where an archive entry goes; refuses a name that would leave the app directory."""
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if name.startswith("/") or not parts or ".." in parts:
        raise ValueError(f"artifact entry {name!r} is outside the app directory")
    return app_dir.joinpath(*parts)


def _unpack(stream, app_dir: Path) -> None:
    with tarfile.open(fileobj=stream, mode="r|gz") as archive:
        for member in archive:
            if member.isdir():
                _entry_path(app_dir, member.name).mkdir(parents=True, exist_ok=True)
                continue
            if not member.isreg():
                raise ValueError(f"artifact entry {member.name!r} is not a regular file")
            path = _entry_path(app_dir, member.name)
            path.parent.mkdir(parents=True, exist_ok=True)
            source = archive.extractfile(member)
            with open(path, "wb") as out:
                while chunk := source.read(1 << 16):
                    out.write(chunk)
            os.chmod(path, member.mode & 0o755)


def _empty(app_dir: Path) -> None:
    for entry in app_dir.iterdir():
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        else:
            entry.unlink()


def fetch_artifact(app_dir: Path) -> None:
    """Fetches $SVC_ARTIFACT_URL into `app_dir` when set and not fetched yet; drops it from the
    environment. Retries 502/503/504 and unreachable for a minute (the API server restarting)."""
    url = os.environ.pop("SVC_ARTIFACT_URL", None)
    if not url or (app_dir / _DONE).exists():
        return
    deadline = time.monotonic() + RETRY_FOR_S
    attempt = 0
    while True:
        _empty(app_dir)
        try:
            with urllib.request.urlopen(url, timeout=30) as res:
                _unpack(res, app_dir)
            (app_dir / _DONE).parent.mkdir(parents=True, exist_ok=True)
            (app_dir / _DONE).touch()
            return
        except urllib.error.HTTPError as err:
            if err.code not in _RETRYABLE or time.monotonic() >= deadline:
                raise RuntimeError(f"fetching the agent's code failed ({err.code})") from None
        except (urllib.error.URLError, ConnectionError, TimeoutError) as err:
            if time.monotonic() >= deadline:
                raise RuntimeError(f"fetching the agent's code failed: {err}") from None
        time.sleep(min(0.25 * 2**attempt, 2.0, max(deadline - time.monotonic(), 0)))
        attempt += 1


def fetch_or_exit(app_dir: Path) -> None:
    """`fetch_artifact`, printing the reason and exiting 1 when it fails."""
    try:
        fetch_artifact(app_dir)
    except (RuntimeError, ValueError, tarfile.TarError, OSError) as err:
        print(f"svc-runner: {err}", file=sys.stderr)
        sys.exit(1)

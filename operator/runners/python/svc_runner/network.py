"""Waiting for a sandbox's network before the user's code runs.

The local driver lets a sandboxed service's process start while pasta still wires its network
namespace (the two overlap, so a wake from zero waits on neither alone). It names a file in
SVC_AWAIT_NETWORK that it creates once pasta is done; the runner loads its own server stack at
once, but imports the user's entry point only once that file exists, so module-level code that
connects somewhere (the internet, the platform's front doors) finds the network as it always has.
"""

from __future__ import annotations

import os
import sys
import time

#: The most the runner waits; past it, the app is loaded anyway and the wait is reported.
AWAIT_NETWORK_SECONDS = 10.0


def await_network() -> None:
    """Returns once the file SVC_AWAIT_NETWORK names exists; at once when it names none."""
    ready = os.environ.get("SVC_AWAIT_NETWORK")
    if not ready:
        return
    deadline = time.monotonic() + AWAIT_NETWORK_SECONDS
    while not os.path.exists(ready):
        if time.monotonic() > deadline:
            print(
                f"svc-runner: the sandbox's network was not up after {AWAIT_NETWORK_SECONDS:.0f} s;"
                " loading the app anyway",
                file=sys.stderr,
                flush=True,
            )
            return
        time.sleep(0.002)

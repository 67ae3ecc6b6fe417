"""Waiting for a sandbox's network before the user's code runs.

The local driver lets a sandboxed service's process start while pasta still wires its network
namespace (the two overlap, a wake from zero waits on neither alone), and says so with
SVC_AWAIT_NETWORK=1. The runner then loads its own server stack at once, but imports the user's
entry point only once the namespace has its default route, so module-level code that connects
somewhere finds the network as it always has.
"""

from __future__ import annotations

import os
import sys
import time

#: The most the runner waits; past it, the app is loaded anyway and the wait is reported.
AWAIT_NETWORK_SECONDS = 10.0


def _has_default_route(route_table: str = "/proc/net/route") -> bool:
    try:
        with open(route_table, encoding="ascii") as table:
            next(table, None)  # the header
            return any(line.split()[1:2] == ["00000000"] for line in table)
    except OSError:
        return False


def await_network(route_table: str = "/proc/net/route") -> None:
    """Returns once the network namespace has a default route, when the driver asked for it."""
    if os.environ.get("SVC_AWAIT_NETWORK") != "1":
        return
    deadline = time.monotonic() + AWAIT_NETWORK_SECONDS
    while not _has_default_route(route_table):
        if time.monotonic() > deadline:
            print(
                f"svc-runner: the sandbox's network was not up after {AWAIT_NETWORK_SECONDS:.0f} s;"
                " loading the app anyway",
                file=sys.stderr,
                flush=True,
            )
            return
        time.sleep(0.002)

"""Waiting for something another thread, process or server does: a condition and a deadline.

Tests never sleep a fixed time and hope. What they wait for is a condition that
another party makes true (a server answers, a worker appears, a lock is waited on);
they poll it here until it holds or the deadline passes, and then assert what they
need with their own message. The deadline bounds a hang; it is never a timed check.
Where the waited-for code can signal (a ``threading.Event``), tests wait on that instead.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")

#: How often a condition is polled: short against the waits, long against the probes.
INTERVAL = 0.02


def until(condition: Callable[[], object], timeout: float, interval: float = INTERVAL) -> bool:
    """True as soon as ``condition()`` holds; False once ``timeout`` seconds passed first."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(interval)  # the one poll pause of the suite's waits
    return True


async def until_async(
    probe: Callable[[], Awaitable[T | None]], timeout: float, interval: float = INTERVAL
) -> T | None:
    """The first result of ``probe()`` that is not None, or None once ``timeout`` passed."""
    deadline = time.monotonic() + timeout
    while (found := await probe()) is None:
        if time.monotonic() > deadline:
            return None
        await asyncio.sleep(interval)  # the async twin's poll pause
    return found

"""What a cold ``memvault`` process does to start quickly.

Importing the engine creates a few hundred thousand objects, nearly none of them
garbage, and the cyclic collector walks them again and again as they pile up: about a
tenth of a cold command's time (``bench/cli_latency.py``). The imports run with the
collector paused; it runs again as soon as they are done, so a long command (``serve``,
``import``) collects as usual.

numpy's OpenBLAS starts a thread per core when it loads, with a buffer each: 60 ms of a
cold command on this machine, for products of a query with a few hundred vectors that
one thread does in microseconds. A command that serves (``serve``, ``mcp``) keeps the
pool; any other runs with one BLAS thread unless ``OPENBLAS_NUM_THREADS`` says otherwise.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager


@contextmanager
def importing() -> Iterator[None]:
    """Pause the cyclic garbage collector while a block imports modules."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


#: Commands that keep running and serve searches: they keep OpenBLAS's thread pool.
SERVING = frozenset({"serve", "mcp"})


def one_blas_thread(argv: Sequence[str]) -> None:
    """One OpenBLAS thread for a short command (before numpy loads; see above). Any word
    of ``argv`` that names a serving command keeps the pool: a guess that errs toward
    numpy's default."""
    if not SERVING.intersection(argv):
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


__all__ = ["SERVING", "importing", "one_blas_thread"]

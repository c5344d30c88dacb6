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

jieba loads its whole dictionary (most of a second) the first time a process cuts
Chinese, for the few hundred lookups a query or a write needs. A short command reads
it from a table on disk a word at a time instead (``memvault.jieba_table``, the same
words); a command that serves or indexes many entries loads it whole, as the library
does, since a lookup in memory is cheaper.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path


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


#: Commands that cut much Chinese (they serve, or index many entries): they load jieba's
#: whole dictionary.
MANY_WORDS = SERVING | {"import", "import-from", "reindex", "migrate-store", "migrate-v1"}


def jieba_word_table(argv: Sequence[str]) -> None:
    """jieba's dictionary from the word table for a short command (see above); any word
    of ``argv`` that names a command of :data:`MANY_WORDS` keeps the whole dictionary."""
    if not MANY_WORDS.intersection(argv):
        from ..text import use_word_table

        use_word_table(_cache_dir)


def _cache_dir() -> Path:
    """The user's cache directory, read only when Chinese appears (the settings module
    is not loaded by ``--help``)."""
    from ..config import user_cache_dir

    return user_cache_dir()


__all__ = ["MANY_WORDS", "SERVING", "importing", "jieba_word_table", "one_blas_thread"]

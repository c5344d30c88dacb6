"""Embedding calls and interpreter exit: no model runs while the interpreter finalises.

A local model runs native code that releases the GIL (torch ops, onnxruntime sessions,
tokenizers). When a script ends while a daemon thread is inside such a call — the
background embedder, a search on a server thread, or the manager's prefetch thread that
missed its timeout — CPython starts finalising, and the thread is ended (``pthread_exit``)
as soon as it asks for the GIL back. That unwinds through a C++ destructor that may not
throw (torch's ``pybind11::gil_scoped_release``), and the C++ runtime aborts the process:
"terminate called without an active exception", exit code 134.

Every embedder the engine calls is wrapped by :func:`guarded`. At exit the gate closes
before finalisation begins: calls running then finish (one batch at most), calls not yet
started are refused with :class:`EmbeddingStopped`. The entries whose vectors were not
written keep keyword recall and are back-filled the next time a vault opens the store.
"""

from __future__ import annotations

import atexit
import sys
import threading
from collections.abc import Sequence

from ..errors import EmbeddingError
from .base import Embedder, RoutedEmbedder, Vectors, embed_queries

#: The longest the exit waits for calls already running (a batch, or a remote request
#: with its own timeout). Past it the process exits anyway.
EXIT_WAIT_SECONDS = 120.0


class EmbeddingStopped(EmbeddingError):
    """The interpreter is exiting, so no embedding call starts any more."""


class _Gate:
    """Counts embedding calls in flight; closed once, at interpreter exit."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._active = 0
        self._closed = False
        self._armed = False
        self._modules = 0  # modules imported when the exit handler was last registered

    @property
    def closed(self) -> bool:
        return self._closed

    def arm(self) -> None:
        """Register the exit handler (once, when the first guarded embedder is made)."""
        with self._cond:
            if not self._armed:
                self._armed = True
                self._modules = len(sys.modules)
                atexit.register(_close_at_exit)

    def enter(self) -> None:
        with self._cond:
            if self._closed:
                raise EmbeddingStopped(
                    "the process is exiting, so no embedding call starts any more: searches "
                    "use keyword recall, and entries left without a vector are back-filled "
                    "when a vault next opens the store"
                )
            self._active += 1

    def leave(self) -> None:
        with self._cond:
            self._active -= 1
            self._cond.notify_all()
        self._stay_first()

    def close(self, timeout: float = EXIT_WAIT_SECONDS) -> bool:
        """Refuse new calls and wait for the running ones; False if ``timeout`` ran out."""
        with self._cond:
            self._closed = True
            return self._cond.wait_for(lambda: self._active == 0, timeout)

    def _stay_first(self) -> None:
        # atexit runs handlers last-registered first. A call that imported libraries
        # (the first one loads the model) may have let them register exit handlers of
        # their own; moving ours to the top again makes it run before any of theirs.
        # Never while the exit runs (the main thread has finished by then): a handler
        # re-registered during it would be skipped.
        modules = len(sys.modules)
        if modules == self._modules or not threading.main_thread().is_alive():
            return
        with self._cond:
            if self._closed or not self._armed:
                return
            self._modules = modules
            atexit.unregister(_close_at_exit)
            atexit.register(_close_at_exit)


_gate = _Gate()


def _close_at_exit() -> None:
    _gate.close()


def exiting() -> bool:
    """True once the interpreter has begun to exit (the gate is closed)."""
    return _gate.closed


class ExitGuarded:
    """An embedder whose calls the interpreter's exit waits for, and refuses once it began."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def dim(self) -> int:
        return self.inner.dim

    def embed(self, texts: Sequence[str]) -> Vectors:
        _gate.enter()
        try:
            return self.inner.embed(texts)
        finally:
            _gate.leave()

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        """The inner model's query side (e5's ``query: `` prefix, the bilingual model's
        calibrated query), not its passage side: without this a guarded model would
        embed every search as if it were stored text."""
        _gate.enter()
        try:
            return embed_queries(self.inner, texts)
        finally:
            _gate.leave()


class RoutedGuarded(ExitGuarded):
    """A guarded :class:`~.base.RoutedEmbedder` that stays one: its query side takes
    the routes to embed for, and it tells the routes of stored vectors."""

    inner: RoutedEmbedder

    def __init__(self, inner: RoutedEmbedder) -> None:
        super().__init__(inner)

    def routes_of(self, vectors: Vectors) -> frozenset[str]:
        return self.inner.routes_of(vectors)

    def embed_queries(self, texts: Sequence[str], among: frozenset[str] | None = None) -> Vectors:
        _gate.enter()
        try:
            return embed_queries(self.inner, texts, among)
        finally:
            _gate.leave()


def guarded(embedder: Embedder | None) -> Embedder | None:
    """``embedder`` behind the exit gate (None stays None; a guarded one is kept as is)."""
    if embedder is None or isinstance(embedder, ExitGuarded):
        return embedder
    _gate.arm()
    if isinstance(embedder, RoutedEmbedder):
        return RoutedGuarded(embedder)
    return ExitGuarded(embedder)


__all__ = [
    "EXIT_WAIT_SECONDS",
    "EmbeddingStopped",
    "ExitGuarded",
    "RoutedGuarded",
    "exiting",
    "guarded",
]

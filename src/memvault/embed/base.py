"""The embedder contract: texts in, unit-length float32 vectors out, and what names them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

Vectors = npt.NDArray[np.float32]


@runtime_checkable
class Embedder(Protocol):
    """Anything that turns texts into vectors.

    ``name`` identifies the vector space: it is stored with every vector, and vectors
    of different names are never compared (a new name re-embeds lazily). ``dim`` is the
    vector length; ``embed`` returns an ``(len(texts), dim)`` float32 array whose rows
    have unit length. ``embed`` embeds what is stored; a model that embeds search
    queries differently also has ``embed_queries`` (see :func:`embed_queries`).
    """

    @property
    def name(self) -> str: ...

    @property
    def dim(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> Vectors: ...


@runtime_checkable
class QueryEmbedder(Embedder, Protocol):
    """An embedder with a query side of its own (e5: ``query: `` vs ``passage: ``)."""

    def embed_queries(self, texts: Sequence[str]) -> Vectors: ...


@runtime_checkable
class RoutedEmbedder(QueryEmbedder, Protocol):
    """An embedder that embeds each stored text with one of several models (its *route*,
    e.g. by the text's language) and can tell the routes back from stored vectors.

    Why: a query is embedded by every model, as it may match a stored text of any
    route; when the vectors searched all came from some routes, the other models'
    work on the query changes no score and can be skipped (``among``). With ``among``
    a query vector scores exactly as the full one against stored vectors of those
    routes; against others it may score anything.
    """

    def routes_of(self, vectors: Vectors) -> frozenset[str]: ...

    def embed_queries(
        self, texts: Sequence[str], among: frozenset[str] | None = None
    ) -> Vectors: ...


def embed_queries(
    embedder: Embedder, texts: Sequence[str], among: frozenset[str] | None = None
) -> Vectors:
    """Vectors of search queries: the query side where the model has one, else ``embed``;
    ``among``: the routes of the stored vectors they will meet (:class:`RoutedEmbedder`;
    ignored by other embedders; ``None``: any)."""
    if among is not None and isinstance(embedder, RoutedEmbedder):
        return embedder.embed_queries(texts, among)
    if isinstance(embedder, QueryEmbedder):
        return embedder.embed_queries(texts)
    return embedder.embed(texts)


@dataclass(frozen=True, slots=True)
class ModelIdentity:
    """Everything that decides which space a vector lives in.

    Two vectors are comparable only when all four agree: the same model in another
    form (float vs int8 weights, another file) or with another pooling or normaliser
    gives slightly different vectors, so each gets its own ``key``.
    """

    name: str  # the model as its authors name it, e.g. "all-MiniLM-L6-v2"
    variant: str  # the weights' form and file, e.g. "onnx-int8-8199be6f"
    dim: int
    normaliser: str  # how a text's vector is made from the model's output, e.g. "mean-l2"

    @property
    def key(self) -> str:
        """The name stored with each vector: ``name/variant/dim/normaliser``."""
        return f"{self.name}/{self.variant}/{self.dim}/{self.normaliser}"


def normalize(vectors: npt.ArrayLike) -> Vectors:
    """Rows scaled to unit length (zero rows stay zero), as float32."""
    array = np.asarray(vectors, dtype=np.float32)
    if array.ndim == 1:
        array = array[None, :]
    norms = np.linalg.norm(array, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    scaled: Vectors = (array / norms).astype(np.float32, copy=False)
    return scaled


__all__ = [
    "Embedder",
    "ModelIdentity",
    "QueryEmbedder",
    "RoutedEmbedder",
    "Vectors",
    "embed_queries",
    "normalize",
]

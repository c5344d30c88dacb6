"""A model-free embedder: hashed token counts projected to a fixed size.

It captures shared words only (no meaning), needs nothing installed and is
deterministic, which makes it the fallback when no model is available and a
fast stand-in in tests of the vector machinery.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

from ..text import tokenize
from .base import Vectors, normalize


class HashingEmbedder:
    """Signed feature hashing of search tokens (the same tokens the keyword index uses)."""

    def __init__(self, dim: int = 256) -> None:
        if dim < 8:
            raise ValueError("dim must be at least 8")
        self._dim = dim

    @property
    def name(self) -> str:
        return f"hashing-{self._dim}"

    @property
    def dim(self) -> int:
        return self._dim

    def embed(self, texts: Sequence[str]) -> Vectors:
        out = np.zeros((len(texts), self._dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for token in tokenize(text):
                digest = hashlib.blake2b(token.encode(), digest_size=8).digest()
                value = int.from_bytes(digest, "little")
                out[row, value % self._dim] += 1.0 if value >> 63 else -1.0
        return normalize(out)


__all__ = ["HashingEmbedder"]

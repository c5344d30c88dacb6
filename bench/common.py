"""What the benchmark runners share: a vector cache across runs and ``--set`` overrides.

Neither changes what is measured: the cache holds the same model's vectors of the same
texts (stored text only; a query is always embedded as a user's search embeds it), and
the overrides are the config a user could write.
"""

from __future__ import annotations

import json
import pickle
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memvault.embed.base import Embedder


class CachedEmbedder:
    """Remembers vectors by text across runs (a pickle file), so re-runs embed nothing
    twice; ``passthrough = True`` sends everything to the model, for timing a search as
    a user gets it."""

    def __init__(self, inner: Embedder, path: Path | None) -> None:
        self.inner = inner
        self.path = path
        self.cache: dict[str, Any] = {}
        self.passthrough = False  # set while querying, so query latency is real
        if path is not None and path.exists():
            self.cache = pickle.loads(path.read_bytes())

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def dim(self) -> int:
        return self.inner.dim

    def embed(self, texts: Sequence[str]) -> Any:
        import numpy as np

        if self.passthrough or not texts:
            return self.inner.embed(texts)
        missing = [t for t in dict.fromkeys(texts) if t not in self.cache]
        if missing:
            for text, vec in zip(missing, self.inner.embed(missing), strict=True):
                self.cache[text] = vec
        return np.stack([self.cache[t] for t in texts])

    def embed_queries(self, texts: Sequence[str]) -> Any:
        from memvault.embed import embed_queries

        return embed_queries(self.inner, texts)  # queries are never cached: latency is real

    def save(self) -> None:
        """Merge into the file (another run may have saved since this one loaded it)."""
        if self.path is None:
            return
        if self.path.exists():
            on_disk = pickle.loads(self.path.read_bytes())
            on_disk.update(self.cache)
            self.cache = on_disk
        partial = self.path.with_suffix(".partial")
        partial.write_bytes(pickle.dumps(self.cache))
        partial.replace(self.path)


def session_date(raw: str) -> str:
    """LoCoMo's '1:56 pm on 8 May, 2023' -> '8 May 2023' (the raw text when no date is in it)."""
    m = re.search(r"(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})", raw or "")
    return f"{int(m.group(1))} {m.group(2)} {m.group(3)}" if m else (raw or "")


def parse_sets(pairs: list[str]) -> dict[str, Any]:
    """``section.field=value`` pairs into nested config overrides (values parsed as JSON)."""
    out: dict[str, Any] = {}
    for pair in pairs:
        dotted, _, raw = pair.partition("=")
        try:
            value = json.loads(raw)
        except json.JSONDecodeError:
            value = raw
        node = out
        *parents, leaf = dotted.split(".")
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = value
    return out


__all__ = ["CachedEmbedder", "parse_sets", "session_date"]

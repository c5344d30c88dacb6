"""Embeddings from any OpenAI-compatible ``/v1/embeddings`` endpoint.

Batches inputs, retries transient failures (connection errors, 429 and 5xx)
with exponential backoff, and checks every answer's shape before trusting it.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import httpx
import numpy as np

from ..errors import EmbeddingError
from .base import Vectors, normalize

_RETRY_STATUS = {408, 409, 429, 500, 502, 503, 504}


class OpenAIEmbedder:
    """A client for ``POST {base_url}/embeddings`` (base_url usually ends in ``/v1``)."""

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        dim: int,
        api_key: str | None = None,
        batch_size: int = 128,
        timeout: float = 30.0,
        max_retries: int = 3,
        send_dimensions: bool = False,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise EmbeddingError(f"embedding base_url {base_url!r} must start with http(s)://")
        if dim <= 0:
            raise EmbeddingError("embedding dim must be a positive integer")
        self.model = model
        self._dim = dim
        self.batch_size = max(1, batch_size)
        self.max_retries = max(0, max_retries)
        self.send_dimensions = send_dimensions
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(
            base_url=base_url.rstrip("/"), headers=headers, timeout=timeout, transport=transport
        )

    @property
    def name(self) -> str:
        return f"openai:{self.model}:{self._dim}"

    @property
    def dim(self) -> int:
        return self._dim

    def close(self) -> None:
        self._client.close()

    def _post(self, batch: Sequence[str]) -> Any:
        body: dict[str, Any] = {"model": self.model, "input": list(batch)}
        if self.send_dimensions:
            body["dimensions"] = self._dim
        delay = 0.5
        for attempt in range(self.max_retries + 1):
            try:
                response = self._client.post("/embeddings", json=body)
            except httpx.TransportError as exc:
                if attempt == self.max_retries:
                    raise EmbeddingError(
                        f"embedding endpoint unreachable after {attempt + 1} tries: {exc}; "
                        "check embedding base_url and the network"
                    ) from exc
            else:
                if response.status_code == 200:
                    return response.json()
                if response.status_code not in _RETRY_STATUS or attempt == self.max_retries:
                    raise EmbeddingError(
                        f"embedding endpoint answered {response.status_code}: "
                        f"{response.text[:200]}; check the model name and API key"
                    )
            time.sleep(delay)
            delay *= 2
        raise AssertionError("unreachable")

    def embed(self, texts: Sequence[str]) -> Vectors:
        out = np.zeros((len(texts), self._dim), dtype=np.float32)
        for start in range(0, len(texts), self.batch_size):
            batch = texts[start : start + self.batch_size]
            payload = self._post(batch)
            try:
                items = sorted(payload["data"], key=lambda d: d["index"])
                vectors = np.asarray([d["embedding"] for d in items], dtype=np.float32)
            except (KeyError, TypeError, ValueError) as exc:
                raise EmbeddingError(f"embedding endpoint sent a malformed answer: {exc}") from exc
            if vectors.shape != (len(batch), self._dim):
                raise EmbeddingError(
                    f"embedding endpoint returned shape {vectors.shape}, expected "
                    f"({len(batch)}, {self._dim}): set dim to the model's vector size"
                )
            out[start : start + len(batch)] = vectors
        return normalize(out)


__all__ = ["OpenAIEmbedder"]

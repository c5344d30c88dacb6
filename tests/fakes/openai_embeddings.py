"""A loopback server speaking OpenAI's ``POST /v1/embeddings`` wire format.

Vectors are deterministic (hashed words), so texts that share words get similar
vectors. It can be told to fail the next N requests with a status code, and it
records every request body and Authorization header it saw.
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np

from .loopback import LoopbackJSONServer


def fake_vector(text: str, dim: int) -> list[float]:
    vec = np.zeros(dim, dtype=np.float64)
    for word in text.lower().split():
        h = int.from_bytes(hashlib.sha256(word.encode()).digest()[:8], "little")
        vec[h % dim] += 1.0
    norm = np.linalg.norm(vec) or 1.0
    return (vec / norm).tolist()


class FakeEmbeddingServer(LoopbackJSONServer):
    def __init__(self, *, dim: int = 32, api_key: str | None = "test-key") -> None:
        super().__init__()
        self.dim = dim
        self.api_key = api_key
        self.requests: list[dict[str, Any]] = []
        self.fail_next: list[int] = []

    def answer(
        self, path: str, auth: str | None, body: dict[str, Any]
    ) -> tuple[int, dict[str, Any]]:
        self.requests.append({"path": path, "body": body, "auth": auth})
        if path != "/v1/embeddings":
            return 404, {"error": {"message": "not found"}}
        if self.fail_next:
            return self.fail_next.pop(0), {"error": {"message": "try again"}}
        if self.api_key and auth != f"Bearer {self.api_key}":
            return 401, {"error": {"message": "invalid api key"}}
        inputs = body.get("input")
        if isinstance(inputs, str):
            inputs = [inputs]
        data = [
            {"object": "embedding", "index": i, "embedding": fake_vector(t, self.dim)}
            for i, t in enumerate(inputs)
        ]
        data.reverse()  # the API does not promise order; clients must sort by index
        return 200, {
            "object": "list",
            "data": data,
            "model": body.get("model"),
            "usage": {"prompt_tokens": 0, "total_tokens": 0},
        }

"""A loopback server speaking OpenAI's ``POST /v1/embeddings`` wire format.

Vectors are deterministic (hashed words), so texts that share words get similar
vectors. It can be told to fail the next N requests with a status code, and it
records every request body and Authorization header it saw.
"""

from __future__ import annotations

import hashlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np


def fake_vector(text: str, dim: int) -> list[float]:
    vec = np.zeros(dim, dtype=np.float64)
    for word in text.lower().split():
        h = int.from_bytes(hashlib.sha256(word.encode()).digest()[:8], "little")
        vec[h % dim] += 1.0
    norm = np.linalg.norm(vec) or 1.0
    return (vec / norm).tolist()


class FakeEmbeddingServer:
    def __init__(self, *, dim: int = 32, api_key: str | None = "test-key") -> None:
        self.dim = dim
        self.api_key = api_key
        self.requests: list[dict[str, Any]] = []
        self.fail_next: list[int] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, status: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                outer.requests.append(
                    {"path": self.path, "body": body, "auth": self.headers.get("Authorization")}
                )
                if self.path != "/v1/embeddings":
                    self._send(404, {"error": {"message": "not found"}})
                    return
                if outer.fail_next:
                    self._send(outer.fail_next.pop(0), {"error": {"message": "try again"}})
                    return
                if outer.api_key and self.headers.get("Authorization") != f"Bearer {outer.api_key}":
                    self._send(401, {"error": {"message": "invalid api key"}})
                    return
                inputs = body.get("input")
                if isinstance(inputs, str):
                    inputs = [inputs]
                data = [
                    {"object": "embedding", "index": i, "embedding": fake_vector(t, outer.dim)}
                    for i, t in enumerate(inputs)
                ]
                data.reverse()  # the API does not promise order; clients must sort by index
                self._send(
                    200,
                    {
                        "object": "list",
                        "data": data,
                        "model": body.get("model"),
                        "usage": {"prompt_tokens": 0, "total_tokens": 0},
                    },
                )

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> FakeEmbeddingServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

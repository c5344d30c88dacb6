"""A fake Hindsight 1.1.0 server on 127.0.0.1: the routes memvault's client calls, with
the same JSON shapes, kept in memory; plus scripted faults the real server will not
produce on demand (HTTP 500s, answers slower than the client's deadline).

Recall scores a memory by the share of the query's words it contains; reflect answers
with the texts it found. ``stop()`` closes the port (connection refused), ``start()``
opens it again on the same port with the memories kept.
"""

from __future__ import annotations

import json
import re
import threading
import time
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self
from urllib.parse import parse_qs, unquote, urlparse

_BANK = re.compile(r"^/v1/default/banks/(?P<bank>[^/]+)(?P<rest>/.*)?$")
_WORD = re.compile(r"\w+")


@dataclass
class Unit:
    id: str
    text: str
    document_id: str | None
    context: str | None
    metadata: dict[str, str] = field(default_factory=dict)
    mentioned_at: str | None = None  # the item's ``timestamp``, as the real server keeps it


@dataclass
class FakeBank:
    bank_id: str
    mission: str = ""
    retain_mission: str = ""
    units: list[Unit] = field(default_factory=list)


def _words(text: str) -> set[str]:
    return {w.casefold() for w in _WORD.findall(text) if len(w) > 2}


class FakeHindsight:
    """Serves at ``base_url`` while started. ``fail_next(n)`` answers the next ``n``
    requests with HTTP 500; ``delay`` (seconds) slows every answer."""

    def __init__(self) -> None:
        self.banks: dict[str, FakeBank] = {}
        self.requests: list[tuple[str, str, dict[str, Any]]] = []
        self.delay = 0.0
        self._failures = 0
        self._lock = threading.Lock()
        self._port = 0
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- control ----------------------------------------------------------------------

    def fail_next(self, n: int = 1) -> None:
        with self._lock:
            self._failures = n

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._port}"

    def start(self) -> Self:
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"  # one request per connection: stop() refuses all

            def log_message(self, *args: Any) -> None:
                pass

            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length", "0") or 0)
                raw = self.rfile.read(length) if length else b""
                body = json.loads(raw) if raw else {}
                status, answer = outer.handle(self.command, self.path, body)
                data = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _handle

        self._server = ThreadingHTTPServer(("127.0.0.1", self._port), Handler)
        self._server.daemon_threads = True
        self._port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            assert self._thread is not None
            self._thread.join(5)
            self._server = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- routes -----------------------------------------------------------------------

    def handle(self, method: str, raw_path: str, body: dict[str, Any]) -> tuple[int, Any]:
        url = urlparse(raw_path)
        with self._lock:
            self.requests.append((method, url.path, body))
            failing = self._failures > 0
            if failing:
                self._failures -= 1
        if self.delay:
            time.sleep(self.delay)
        if failing:
            return 500, {"detail": "scripted failure"}
        if url.path == "/health":
            return 200, {"status": "healthy", "database": "connected"}
        if url.path == "/version":
            flags = (
                "observations mcp worker bank_config_api bank_llm_health file_upload_api "
                "document_export_api document_import_api audit_log llm_trace store_document_text"
            )
            return 200, {"api_version": "1.1.0", "features": dict.fromkeys(flags.split(), False)}
        match = _BANK.match(url.path)
        if match is None:
            return 404, {"detail": "Not Found"}
        bank_id, rest = unquote(match["bank"]), match["rest"] or ""
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        with self._lock:
            return self._bank_route(method, bank_id, rest, body, query)

    def _bank_route(
        self, method: str, bank_id: str, rest: str, body: dict[str, Any], query: dict[str, str]
    ) -> tuple[int, Any]:
        if method == "PUT" and rest == "":
            bank = self.banks.setdefault(bank_id, FakeBank(bank_id))
            bank.mission = body.get("reflect_mission") or body.get("mission") or bank.mission
            bank.retain_mission = body.get("retain_mission") or bank.retain_mission
            return 200, self._profile(bank)
        bank_or_none = self.banks.get(bank_id)
        if bank_or_none is None:
            return 404, {"detail": f"Bank '{bank_id}' not found"}
        bank = bank_or_none
        if method == "DELETE" and rest == "":
            del self.banks[bank_id]
            return 200, {"success": True, "message": f"Bank '{bank_id}' deleted"}
        if method == "GET" and rest == "/config":
            missions = {"reflect_mission": bank.mission, "retain_mission": bank.retain_mission}
            return 200, {"bank_id": bank_id, "config": missions}
        if method == "POST" and rest == "/memories":
            items = body.get("items", [])
            for item in items:
                doc = item.get("document_id")
                if doc is not None:  # retaining a document again replaces it
                    bank.units = [u for u in bank.units if u.document_id != doc]
            for item in items:
                content = item["content"]
                bank.units.append(
                    Unit(
                        str(uuid.uuid4()),
                        content,
                        item.get("document_id"),
                        item.get("context"),
                        dict(item.get("metadata") or {}),
                        item.get("timestamp"),
                    )
                )
            return 200, {
                "success": True,
                "bank_id": bank_id,
                "items_count": len(items),
                "async": bool(body.get("async")),
            }
        if method == "DELETE" and rest == "/memories":
            count = len(bank.units)
            bank.units = []
            return 200, {"success": True, "message": "cleared", "deleted_count": count}
        if method == "POST" and rest == "/memories/recall":
            return 200, {"results": [self._result(u, s) for u, s in self._search(bank, body)]}
        if method == "POST" and rest == "/reflect":
            found = self._search(bank, body)
            text = " ".join(u.text for u, _ in found) or "I do not know."
            memories = [{"id": u.id, "text": u.text, "type": "world"} for u, _ in found]
            return 200, {"text": text, "based_on": {"memories": memories}}
        if method == "GET" and rest == "/memories/list":
            units = [
                u
                for u in bank.units
                if "document_id" not in query or u.document_id == query["document_id"]
            ]
            limit, offset = int(query.get("limit", 100)), int(query.get("offset", 0))
            return 200, {
                "items": [
                    {"id": u.id, "text": u.text, "document_id": u.document_id}
                    for u in units[offset : offset + limit]
                ],
                "total": len(units),
                "limit": limit,
                "offset": offset,
            }
        if method == "DELETE" and rest.startswith("/documents/"):
            doc = unquote(rest.removeprefix("/documents/"))
            doomed = [u for u in bank.units if u.document_id == doc]
            if not doomed:
                return 404, {"detail": f"Document '{doc}' not found"}
            bank.units = [u for u in bank.units if u.document_id != doc]
            return 200, {
                "success": True,
                "message": "deleted",
                "document_id": doc,
                "memory_units_deleted": len(doomed),
            }
        if method == "GET" and rest == "/stats":
            return 200, {
                "bank_id": bank_id,
                "total_nodes": len(bank.units),
                "total_links": 0,
                "total_documents": len({u.document_id for u in bank.units if u.document_id}),
                "nodes_by_fact_type": {"world": len(bank.units)},
                "links_by_link_type": {},
                "links_by_fact_type": {},
                "links_breakdown": {},
                "pending_operations": 0,
                "failed_operations": 0,
            }
        return 404, {"detail": "Not Found"}

    @staticmethod
    def _profile(bank: FakeBank) -> dict[str, Any]:
        return {
            "bank_id": bank.bank_id,
            "name": bank.bank_id,
            "disposition": {"skepticism": 3, "literalism": 3, "empathy": 3},
            "mission": bank.mission,
            "background": None,
        }

    @staticmethod
    def _search(bank: FakeBank, body: dict[str, Any]) -> list[tuple[Unit, float]]:
        wanted = _words(body.get("query", ""))
        scored = []
        for unit in bank.units:
            if not wanted:
                continue
            score = len(wanted & _words(unit.text)) / len(wanted)
            if score > 0:
                scored.append((unit, round(score, 6)))
        scored.sort(key=lambda pair: -pair[1])
        return scored

    @staticmethod
    def _result(unit: Unit, score: float) -> dict[str, Any]:
        return {
            "id": unit.id,
            "text": unit.text,
            "type": "world",
            "context": unit.context,
            "document_id": unit.document_id,
            "metadata": unit.metadata or None,
            "mentioned_at": unit.mentioned_at,
            "scores": {"final": score, "semantic": score},
        }

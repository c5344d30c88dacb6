"""``HindsightConnection``: the one place memvault talks to a Hindsight server.

The ``hindsight-client`` package (the optional ``memvault[hindsight]`` extra) is async
underneath: its sync methods run a coroutine on whatever event loop the calling thread
has, and its aiohttp session belongs to that loop. memvault calls Hindsight from many
threads (the manager's prefetch workers, the sync queue, gateway requests), so the
connection owns one event loop on a daemon thread and submits every call there: the
session always lives on the loop that made it, two banks can be recalled concurrently
with ``asyncio.gather``, each call has a deadline, and ``close`` shuts the session on
its own loop (the client otherwise leaks an "unclosed client session" warning).

Every failure (refused connection, HTTP error, deadline) becomes ``UpstreamError``
naming the server, so callers degrade with one ``except``.
"""

from __future__ import annotations

import asyncio
import importlib.util
import logging
import threading
from collections.abc import Awaitable, Callable, Coroutine
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any, TypeVar

from ...errors import ConfigError, MemvaultError, UpstreamError

log = logging.getLogger(__name__)

T = TypeVar("T")

EXTRA = "memvault[hindsight]"
DEFAULT_TIMEOUT = 10.0


def client_installed() -> bool:
    """Whether ``hindsight-client`` can be imported (without importing it)."""
    return importlib.util.find_spec("hindsight_client") is not None


def _client_class() -> Any:
    try:
        from hindsight_client import Hindsight
    except ImportError:
        raise ConfigError(
            "memory.provider is 'hindsight' but the hindsight-client package is not "
            f"installed; install the extra with: pip install '{EXTRA}'",
            field="memory.provider",
        ) from None
    return Hindsight


def _status_of(exc: BaseException) -> int | None:
    status = getattr(exc, "status", None)
    return status if isinstance(status, int) else None


def describe(exc: BaseException) -> str:
    """One line about a client failure: its HTTP status when it has one."""
    status = _status_of(exc)
    first = str(exc).splitlines()[0] if str(exc) else ""
    if status is not None:
        return f"HTTP {status} ({type(exc).__name__})"
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


class HindsightConnection:
    """A ``hindsight_client.Hindsight`` on its own event loop, with a deadline per call.

    ``timeout`` (seconds) bounds every call, including connecting; a call that misses
    it is cancelled and raises ``UpstreamError``.
    """

    def __init__(
        self, api_url: str, *, api_key: str | None = None, timeout: float = DEFAULT_TIMEOUT
    ) -> None:
        if timeout <= 0:
            raise ConfigError(f"timeout must be a positive number of seconds, got {timeout!r}")
        cls = _client_class()
        self.api_url = api_url.rstrip("/")
        self.timeout = timeout
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="memvault-hindsight", daemon=True
        )
        self._thread.start()
        self._closed = False

        async def make() -> Any:  # built on the loop, so its session belongs to it
            return cls(self.api_url, api_key=api_key, timeout=timeout, max_attempts=1)

        self._client = self._submit(make())

    # -- plumbing ---------------------------------------------------------------------

    def _submit(self, coro: Coroutine[Any, Any, T], what: str = "call") -> T:
        if self._closed:
            coro.close()
            raise UpstreamError(f"the Hindsight connection to {self.api_url} is closed")

        async def bounded() -> T:
            return await asyncio.wait_for(coro, self.timeout)

        future = asyncio.run_coroutine_threadsafe(bounded(), self._loop)
        try:
            return future.result(self.timeout + 1.0)
        except (TimeoutError, FutureTimeout):
            future.cancel()
            raise UpstreamError(
                f"Hindsight at {self.api_url} did not answer the {what} within "
                f"{self.timeout:g} s; check that the server is running and reachable",
                provider="hindsight",
            ) from None
        except MemvaultError:
            raise
        except Exception as exc:  # aiohttp / ApiException / pydantic: all upstream trouble
            raise UpstreamError(
                f"Hindsight at {self.api_url} failed the {what}: {describe(exc)}; check "
                "the server's log and that hindsight.api_url is right",
                provider="hindsight",
                status=_status_of(exc),
            ) from None

    def run(self, make: Callable[[Any], Awaitable[T]], what: str = "call") -> T:
        """``make(client)`` awaited on the connection's loop, within the deadline."""

        async def call() -> T:
            return await make(self._client)

        return self._submit(call(), what)

    def gather(self, makes: list[Callable[[Any], Awaitable[Any]]], what: str) -> list[Any]:
        """Several calls at once (one deadline for all); each result, or its exception."""

        async def call() -> list[Any]:
            return list(
                await asyncio.gather(
                    *(make(self._client) for make in makes), return_exceptions=True
                )
            )

        return self._submit(call(), what)

    # -- operations -------------------------------------------------------------------

    def create_bank(self, bank_id: str, *, mission: str = "", retain_mission: str = "") -> None:
        """Create the bank, or update its missions (``PUT`` is an upsert)."""
        self.run(
            lambda c: c._acreate_bank(
                bank_id,
                reflect_mission=mission or None,
                retain_mission=retain_mission or None,
            ),
            f"creation of bank {bank_id}",
        )

    def retain(
        self,
        bank_id: str,
        text: str,
        *,
        document_id: str | None = None,
        context: str | None = None,
        metadata: dict[str, str] | None = None,
    ) -> None:
        item: dict[str, Any] = {"content": text, "context": context, "metadata": metadata}
        self.run(
            lambda c: c.aretain_batch(bank_id, [item], document_id=document_id),
            f"retain into bank {bank_id}",
        )

    @staticmethod
    def recall_call(bank_id: str, query: str, *, budget: str, max_tokens: int) -> Any:
        return lambda c: c.arecall(bank_id, query, budget=budget, max_tokens=max_tokens)

    @staticmethod
    def reflect_call(bank_id: str, query: str, *, budget: str, context: str | None) -> Any:
        return lambda c: c.areflect(
            bank_id, query, budget=budget, context=context, include_facts=True
        )

    def delete_document(self, bank_id: str, document_id: str) -> int:
        """Forget one document (Hindsight has no per-memory delete); 0 when it is gone."""

        async def call(c: Any) -> int:
            try:
                answer = await c._documents_api.delete_document(
                    bank_id, document_id, _request_timeout=self.timeout
                )
            except Exception as exc:
                if _status_of(exc) == 404:
                    return 0
                raise
            return int(answer.memory_units_deleted)

        return self.run(call, f"deletion of document {document_id}")

    def has_document(self, bank_id: str, document_id: str) -> bool:
        async def call(c: Any) -> bool:
            try:
                listed = await c.alist_memories(bank_id, document_id=document_id, limit=1)
            except Exception as exc:
                if _status_of(exc) == 404:
                    return False
                raise
            return bool(listed.total)

        return self.run(call, f"lookup of document {document_id}")

    def clear(self, bank_id: str) -> int | None:
        answer = self.run(
            lambda c: c._memory_api.clear_bank_memories(bank_id, _request_timeout=self.timeout),
            f"clearing of bank {bank_id}",
        )
        deleted = answer.deleted_count
        return None if deleted is None else int(deleted)

    def count(self, bank_id: str) -> int:
        """Memories in the bank (0 for a bank that does not exist yet)."""

        async def call(c: Any) -> int:
            try:
                stats = await c._banks_api.get_agent_stats(bank_id, _request_timeout=self.timeout)
            except Exception as exc:
                if _status_of(exc) == 404:
                    return 0
                raise
            return int(stats.total_nodes)

        return self.run(call, f"stats of bank {bank_id}")

    def version(self) -> str:
        return str(self.run(lambda c: c.aget_version(), "version check").api_version)

    def close(self) -> None:
        """Close the client's HTTP session on its loop, then stop the loop. Idempotent."""
        if self._closed:
            return
        try:
            self.run(lambda c: c.aclose(), "close")
        except MemvaultError as exc:
            log.warning("hindsight: closing the client failed: %s", exc)
        self._closed = True
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)
        if not self._thread.is_alive():
            self._loop.close()


__all__ = ["DEFAULT_TIMEOUT", "EXTRA", "HindsightConnection", "client_installed", "describe"]

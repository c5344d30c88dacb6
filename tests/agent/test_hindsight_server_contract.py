"""The contract of the real Hindsight server (1.1.0) that memvault's provider builds on.

These tests drive the server ``make hindsight`` installs (``tests/servers/hindsight.py``:
mock LLM, hashing embeddings, rrf reranker, throw-away PostgreSQL) through
``hindsight-client`` from the main venv, and through raw HTTP where that is the
clearer statement. What they pin down, for whoever writes against it:

Client (``hindsight_client.Hindsight``; use the ``a``-prefixed coroutines) -> route -> answer

- ``acreate_bank(bank_id, name=, mission=, retain_mission=, ...)``
  -> ``PUT /v1/default/banks/{bank_id}`` (creates or updates; idempotent)
  -> ``BankProfileResponse``: ``bank_id``, ``name`` (defaults to the id), ``mission``.
  ``retain_mission`` lands in the bank configuration
  (``aget_bank_config`` -> ``GET …/{bank_id}/config`` -> ``{"bank_id", "config": {...}}``).
  ``GET …/{bank_id}/profile`` answers 410 in 1.1.0: read the config instead.
- ``aretain(bank_id, content, document_id=, context=, tags=, metadata=, timestamp=,
  retain_async=)`` -> ``POST …/{bank_id}/memories`` (one item of a batch)
  -> ``RetainResponse``: ``success``, ``bank_id``, ``items_count``, ``async``, and
  ``operation_id`` only when ``retain_async=True`` (the work then finishes in the
  background). It reports NO memory ids: the handle for forgetting is the
  ``document_id`` the caller passes; retaining again with the same ``document_id``
  replaces that document's memories. A retain creates the bank if it is missing.
- ``arecall(bank_id, query, budget="low"|"mid"|"high", max_tokens=, types=, tags=)``
  -> ``POST …/{bank_id}/memories/recall`` -> ``RecallResponse.results``: a list of
  ``RecallResult`` with ``id`` (memory uuid), ``text``, ``type`` (``world``,
  ``experience``, ``observation``), ``document_id``, ``context``, ``tags``,
  ``metadata``, ``mentioned_at`` and ``scores`` (``final``, ``keyword``,
  ``semantic``, ``reranker``; the ones a channel did not produce are None), best
  first. Recall on a bank that does not exist raises ``NotFoundException`` (404).
- ``areflect(bank_id, query, budget=, context=, max_tokens=)``
  -> ``POST …/{bank_id}/reflect`` -> ``ReflectResponse.text`` (the mock LLM answers
  a fixed text), ``usage``, ``based_on`` (facts, when ``include_facts=True``).
- ``alist_memories(bank_id, document_id=, limit=, offset=, search_query=)``
  -> ``GET …/{bank_id}/memories/list`` -> ``ListMemoryUnitsResponse``: ``items``
  (``id``, ``text``, ``fact_type``, ``document_id``, ``tags``, ``state``, …),
  ``total``, ``limit``, ``offset``.
- ``documents.delete_document(bank_id, document_id)``
  -> ``DELETE …/{bank_id}/documents/{document_id}`` -> ``DeleteDocumentResponse``:
  ``success``, ``document_id``, ``memory_units_deleted``; an unknown document raises
  ``NotFoundException``. There is no per-memory DELETE: forgetting goes by document.
- ``memory.clear_bank_memories(bank_id)`` -> ``DELETE …/{bank_id}/memories``
  -> ``DeleteResponse``: ``success``, ``deleted_count``; the bank itself stays.
- ``banks.get_agent_stats(bank_id)`` -> ``GET …/{bank_id}/stats`` -> ``BankStatsResponse``:
  ``total_nodes`` (memories), ``total_documents``, ``nodes_by_fact_type``,
  ``pending_operations``, …. The server caches these for
  ``HINDSIGHT_API_BANK_STATS_CACHE_TTL_SECONDS`` (60 s by default; 0 on the test server).
- ``adelete_bank(bank_id)`` -> ``DELETE /v1/default/banks/{bank_id}``.
- Authentication: with the server's API-key extension on
  (``HINDSIGHT_API_TENANT_EXTENSION`` / ``HINDSIGHT_API_TENANT_API_KEY``) every call
  but ``/health`` needs ``Hindsight(api_key=...)`` (sent as a Bearer token); a missing
  or wrong key raises ``UnauthorizedException`` (401).
- ``aget_version()`` -> ``GET /version`` -> ``VersionResponse``: ``api_version``,
  ``features``; ``monitoring.health_endpoint_health_get()`` -> ``GET /health`` ->
  ``{"status": "healthy", "database": "connected", ...}``.

The mock LLM turns every sentence of the text it is given into a fact, and that
text includes parts of Hindsight's own extraction prompt (for instance the
``Context:`` line and the retain mission): a bank holds more memories than the
sentences retained, so tests look for their sentence instead of counting.

The client opens an aiohttp session on its first request, bound to that event loop,
and does not close it by itself: in async code ``await client.aclose()`` before the
loop ends, or aiohttp warns "Unclosed client session" (its sync ``close()`` inside a
running loop only schedules the close). One client therefore serves one event loop.
"""

from __future__ import annotations

import asyncio
import gc
import uuid
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, TypeVar

import httpx
import pytest
from hindsight_client import Hindsight
from hindsight_client_api.exceptions import NotFoundException, UnauthorizedException

from tests.servers.hindsight import HindsightServer, pinned_version
from tests.waiting import until_async

T = TypeVar("T")


def bank_name(label: str) -> str:
    """A bank id no other test (or xdist worker) uses."""
    return f"mv-test-{label}-{uuid.uuid4().hex[:10]}"


@asynccontextmanager
async def client_for(server: HindsightServer) -> AsyncIterator[Hindsight]:
    client = Hindsight(base_url=server.base_url, timeout=30.0)
    try:
        yield client
    finally:
        await client.aclose()


def run(server: HindsightServer, body: Callable[[Hindsight], Awaitable[T]]) -> T:
    """Run ``body(client)`` in a fresh event loop with a client that is closed after."""

    async def main() -> T:
        async with client_for(server) as client:
            return await body(client)

    return asyncio.run(main())


def texts(results: list[Any]) -> list[str]:
    return [r.text for r in results]


def test_health_and_version(hindsight: HindsightServer) -> None:
    health = httpx.get(f"{hindsight.base_url}/health", timeout=10.0)
    assert health.status_code == 200
    assert health.json()["status"] == "healthy"
    assert health.json()["database"] == "connected"

    version = run(hindsight, lambda c: c.aget_version())
    assert version.api_version == pinned_version()
    raw = httpx.get(f"{hindsight.base_url}/version", timeout=10.0).json()
    assert raw["api_version"] == version.api_version


def test_create_bank_is_a_put_that_updates(hindsight: HindsightServer) -> None:
    bank = bank_name("bank")

    async def body(c: Hindsight) -> tuple[Any, Any, dict[str, Any]]:
        first = await c.acreate_bank(bank, mission="notes about the user")
        again = await c.acreate_bank(
            bank, mission="facts about the user", retain_mission="keep preferences only"
        )
        return first, again, await c.aget_bank_config(bank)

    first, again, config = run(hindsight, body)
    assert (first.bank_id, first.mission) == (bank, "notes about the user")
    assert (again.bank_id, again.mission) == (bank, "facts about the user")
    assert config["config"]["retain_mission"] == "keep preferences only"

    # The same route with plain HTTP; the bank's name is its id unless one is given.
    raw = httpx.put(
        f"{hindsight.base_url}/v1/default/banks/{bank}",
        json={"name": "Work notes", "mission": "m"},
        timeout=10.0,
    )
    assert raw.status_code == 200
    assert raw.json()["bank_id"] == bank
    assert raw.json()["name"] == "Work notes"


def test_retain_then_recall_finds_the_sentence_with_its_document(
    hindsight: HindsightServer,
) -> None:
    bank, other = bank_name("recall"), bank_name("other")

    async def body(c: Hindsight) -> tuple[Any, Any, Any]:
        await c.acreate_bank(bank)
        await c.acreate_bank(other)
        retained = await c.aretain(
            bank,
            "Alice keeps three cats in Lisbon.",
            document_id="doc-cats",
            context="chat",
            tags=["user"],
        )
        await c.aretain(other, "Bob grows tomatoes in Porto.", document_id="doc-tomatoes")
        return (
            retained,
            await c.arecall(bank, "How many cats does Alice keep?", budget="low"),
            await c.arecall(other, "How many cats does Alice keep?", budget="low"),
        )

    retained, found, elsewhere = run(hindsight, body)
    assert retained.success and retained.items_count == 1
    assert retained.var_async is False and retained.operation_id is None
    hit = next(r for r in found.results if "three cats" in r.text)
    assert hit.document_id == "doc-cats"
    assert hit.tags == ["user"]
    assert hit.context == "chat"
    assert hit.type == "world"
    uuid.UUID(hit.id)  # a memory id is a uuid
    assert hit.scores is not None and hit.scores.final > 0
    # Results come best first, and the other bank's memory is not among them.
    finals = [r.scores.final for r in found.results if r.scores is not None]
    assert finals == sorted(finals, reverse=True)
    assert not any("tomatoes" in t for t in texts(found.results))
    assert not any("cats" in t for t in texts(elsewhere.results))


def test_recall_on_a_missing_bank_is_not_found(hindsight: HindsightServer) -> None:
    with pytest.raises(NotFoundException):
        run(hindsight, lambda c: c.arecall(bank_name("missing"), "anything"))


def test_retain_async_reports_an_operation(hindsight: HindsightServer) -> None:
    bank = bank_name("async")

    async def body(c: Hindsight) -> tuple[Any, list[str]]:
        answer = await c.aretain(bank, "Dana plays the oboe.", retain_async=True)

        async def oboe() -> list[str] | None:  # the worker picks the operation up later
            texts = [m.text for m in (await c.alist_memories(bank)).items]
            return texts if any("oboe" in t for t in texts) else None

        return answer, await until_async(oboe, timeout=30) or []

    answer, listed = run(hindsight, body)
    assert answer.var_async is True
    uuid.UUID(answer.operation_id)
    assert any("Dana plays the oboe." in t for t in listed)


def test_reflect_answers_with_the_mock_llm(hindsight: HindsightServer) -> None:
    bank = bank_name("reflect")

    async def body(c: Hindsight) -> Any:
        await c.aretain(bank, "Erin is learning Japanese.", document_id="d")
        return await c.areflect(bank, "What is Erin learning?")

    answer = run(hindsight, body)
    assert isinstance(answer.text, str) and answer.text.strip()


def test_list_memories_by_document_and_the_same_ids_as_recall(
    hindsight: HindsightServer,
) -> None:
    bank = bank_name("list")

    async def body(c: Hindsight) -> tuple[Any, Any, Any]:
        await c.aretain(bank, "Frank drives a red tractor.", document_id="doc-frank")
        await c.aretain(bank, "Gina sails a blue boat.", document_id="doc-gina")
        return (
            await c.alist_memories(bank, document_id="doc-frank"),
            await c.alist_memories(bank, limit=2),
            await c.arecall(bank, "red tractor", budget="low"),
        )

    frank, page, recalled = run(hindsight, body)
    assert frank.items and {m.document_id for m in frank.items} == {"doc-frank"}
    assert any(m.text == "Frank drives a red tractor." for m in frank.items)
    assert not any("boat" in m.text for m in frank.items)
    assert len(page.items) == 2 and page.total > 2 and page.limit == 2
    hit = next(r for r in recalled.results if "tractor" in r.text)
    assert hit.id in {m.id for m in frank.items}


def test_retaining_a_document_again_replaces_its_memories(hindsight: HindsightServer) -> None:
    bank = bank_name("replace")

    async def body(c: Hindsight) -> list[str]:
        await c.aretain(bank, "Hugo likes jazz.", document_id="doc-hugo")
        await c.aretain(bank, "Hugo likes opera.", document_id="doc-hugo")
        return [m.text for m in (await c.alist_memories(bank, document_id="doc-hugo")).items]

    listed = run(hindsight, body)
    assert "Hugo likes opera." in listed
    assert "Hugo likes jazz." not in listed


def test_delete_document_forgets_its_memories_only(hindsight: HindsightServer) -> None:
    bank = bank_name("forget")

    async def body(c: Hindsight) -> tuple[Any, Any, Any, Any]:
        await c.aretain(bank, "Ivy collects old maps.", document_id="doc-ivy")
        await c.aretain(bank, "Jack restores old clocks.", document_id="doc-jack")
        deleted = await c.documents.delete_document(bank, "doc-ivy")
        after = await c.arecall(bank, "old maps clocks", budget="low")
        left = await c.alist_memories(bank, document_id="doc-ivy")
        try:
            await c.documents.delete_document(bank, "doc-ivy")
        except NotFoundException as exc:
            again: Any = exc
        else:
            again = None
        return deleted, after, left, again

    deleted, after, left, again = run(hindsight, body)
    assert deleted.success and deleted.document_id == "doc-ivy"
    assert deleted.memory_units_deleted >= 1
    assert left.total == 0
    assert not any("maps" in t for t in texts(after.results))
    assert any("clocks" in t for t in texts(after.results))
    assert isinstance(again, NotFoundException)


def test_clear_bank_empties_it_and_keeps_the_bank(hindsight: HindsightServer) -> None:
    bank = bank_name("clear")

    async def body(c: Hindsight) -> tuple[Any, Any, Any, Any]:
        await c.acreate_bank(bank, mission="kept")
        await c.aretain(bank, "Kim runs marathons.", document_id="d1")
        await c.aretain(bank, "Kim bakes sourdough.", document_id="d2")
        cleared = await c.memory.clear_bank_memories(bank)
        listed = await c.alist_memories(bank)
        recalled = await c.arecall(bank, "Kim marathons sourdough", budget="low")
        config = await c.aget_bank_config(bank)
        return cleared, listed, recalled, config

    cleared, listed, recalled, config = run(hindsight, body)
    assert cleared.success and cleared.deleted_count >= 2
    assert listed.total == 0 and listed.items == []
    assert recalled.results == []
    assert config["bank_id"] == bank  # the bank is still there


def test_stats_count_memories_and_documents(hindsight: HindsightServer) -> None:
    bank = bank_name("stats")

    async def body(c: Hindsight) -> tuple[Any, Any, Any]:
        await c.acreate_bank(bank)
        empty = await c.banks.get_agent_stats(bank)
        await c.aretain(bank, "Lena paints murals.", document_id="d1")
        await c.aretain(bank, "Lena teaches chess.", document_id="d2")
        full = await c.banks.get_agent_stats(bank)
        listed = await c.alist_memories(bank)
        return empty, full, listed

    empty, full, listed = run(hindsight, body)
    assert (empty.total_nodes, empty.total_documents) == (0, 0)
    assert full.bank_id == bank
    assert full.total_documents == 2
    assert full.total_nodes == listed.total >= 2


def test_delete_bank_then_recall_is_not_found(hindsight: HindsightServer) -> None:
    bank = bank_name("drop")

    async def body(c: Hindsight) -> None:
        await c.aretain(bank, "Mia owns a kayak.", document_id="d")
        await c.adelete_bank(bank)
        await c.arecall(bank, "kayak")

    with pytest.raises(NotFoundException):
        run(hindsight, body)


def unclosed_session_warnings(close: bool, server: HindsightServer) -> list[str]:
    """The 'Unclosed client session' warnings one client use leaves, closed or not."""

    async def use() -> None:
        client = Hindsight(base_url=server.base_url, timeout=30.0)
        await client.aget_version()
        if close:
            await client.aclose()

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        asyncio.run(use())
        gc.collect()
    return [str(w.message) for w in caught if "Unclosed client session" in str(w.message)]


def test_aclose_closes_the_aiohttp_session(hindsight: HindsightServer) -> None:
    # Left open, the client leaks its session (so the check below can see a leak) ...
    assert unclosed_session_warnings(close=False, server=hindsight)
    # ... and aclose() in the same event loop closes it.
    assert unclosed_session_warnings(close=True, server=hindsight) == []


def test_stop_and_start_keep_the_port_and_the_data(hindsight: HindsightServer) -> None:
    bank = bank_name("restart")
    run(hindsight, lambda c: c.aretain(bank, "Noah repairs bicycles.", document_id="d"))
    url = hindsight.base_url
    hindsight.stop()
    try:
        assert not hindsight.running
        with pytest.raises(httpx.TransportError):
            httpx.get(f"{url}/health", timeout=2.0)
    finally:
        hindsight.start()
    assert hindsight.base_url == url
    found = run(hindsight, lambda c: c.arecall(bank, "bicycles", budget="low"))
    assert any("bicycles" in t for t in texts(found.results))


def test_api_key_extension_wants_the_clients_bearer_token() -> None:
    """memvault's ``hindsight.api_key`` is the server's tenant API key (a server of its own)."""
    from tests.servers.hindsight import hindsight_server, installed, missing_message

    if not installed():
        pytest.fail(missing_message(), pytrace=False)
    secret = "memvault-test-secret"
    environment = {
        "HINDSIGHT_API_TENANT_EXTENSION": (
            "hindsight_api.extensions.builtin.tenant:ApiKeyTenantExtension"
        ),
        "HINDSIGHT_API_TENANT_API_KEY": secret,
    }

    async def retain(base_url: str, key: str | None) -> Any:
        client = Hindsight(base_url=base_url, api_key=key, timeout=30.0)
        try:
            return await client.aretain("keyed", "Pia sings in a choir.", document_id="d")
        except UnauthorizedException as exc:
            return exc
        finally:
            await client.aclose()

    with hindsight_server(environment) as server:
        assert httpx.get(f"{server.base_url}/health", timeout=10.0).status_code == 200
        assert asyncio.run(retain(server.base_url, None)).status == 401
        assert asyncio.run(retain(server.base_url, "wrong")).status == 401
        assert asyncio.run(retain(server.base_url, secret)).success

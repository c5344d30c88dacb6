"""Conversation-aware indexing: turns of a session are found by their neighbours' words.

Each test stores turns the way an integration does (one by one or in batches, with a
``session_id`` and the documented metadata keys) and asks with words that only a
*neighbouring* turn says; the engine, not the caller, must have put that context in
the index, kept it current as turns arrive, change and go, and left the entries'
own fields (metadata included) exactly as written.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from memvault import Vault, VaultConfig, load_config
from memvault.agent.providers.vault import VaultProvider, thread_session
from memvault.errors import ValidationError
from memvault.stores.values import SearchDoc, View

RACE = "I ran a charity race for the children's hospital last weekend"
ASK = "That sounds wonderful! What did you do afterwards?"
PAINT = "I painted a sunrise over the harbour with watercolours"
KAYAK = "Next month I want to try kayaking on the river"


def found(vault: Vault, query: str, user: str = "u", **kw: Any) -> list[str]:
    return [h.entry.content for h in vault.search(query, user_id=user, limit=10, **kw)]


def turn(speaker: str, index: int | None = None, **extra: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {"speaker": speaker, **extra}
    if index is not None:
        meta["turn_index"] = index
    return meta


def test_a_turn_is_found_by_the_words_of_its_neighbour(vault: Vault) -> None:
    vault.add(RACE, user_id="u", session_id="s1", metadata=turn("Mel", 0))
    vault.add(ASK, user_id="u", session_id="s1", metadata=turn("Caro", 1))
    # "watercolours" is said only by the third turn; before it arrives nothing has it.
    assert found(vault, "watercolours") == []
    vault.add(PAINT, user_id="u", session_id="s1", metadata=turn("Mel", 2))
    hits = found(vault, "watercolours")
    assert hits[0] == PAINT  # its own words rank first (body weight)
    assert ASK in hits and RACE in hits  # the two turns before it now carry its words
    # ...and the painting turn is found by the race it came after.
    assert PAINT in found(vault, "charity hospital")


def test_user_metadata_and_fields_come_back_unchanged(vault: Vault) -> None:
    meta = turn("Mel", 0, session_date="8 May 2023", mood="happy")
    first = vault.add(RACE, user_id="u", session_id="s1", metadata=meta)
    vault.add(PAINT, user_id="u", session_id="s1", metadata=turn("Mel", 1))
    again = vault.get(first.id, user_id="u")
    assert again.metadata == meta
    assert again.content == RACE and again.updated_at == first.updated_at
    exported = next(r for r in vault.export(user_id="u") if r["id"] == first.id)
    assert exported["metadata"] == meta and "watercolours" not in str(exported)


def test_window_is_a_setting_and_zero_turns_it_off(store: Any, tmp_path: Path) -> None:
    cfg = load_config(
        environ={}, home=tmp_path / "h", embedding={"provider": "none"}, conversation={"window": 0}
    )
    vault = Vault(store=store, config=cfg)
    vault.add(RACE, user_id="u", session_id="s1", metadata=turn("Mel", 0))
    vault.add(PAINT, user_id="u", session_id="s1", metadata=turn("Mel", 1))
    assert found(vault, "watercolours") == [PAINT]


def test_only_turns_within_the_window_are_context(store: Any, tmp_path: Path) -> None:
    cfg = load_config(
        environ={}, home=tmp_path / "h", embedding={"provider": "none"}, conversation={"window": 1}
    )
    vault = Vault(store=store, config=cfg)
    for i, text in enumerate([RACE, ASK, PAINT]):
        vault.add(text, user_id="u", session_id="s1", metadata=turn("Mel", i))
    assert set(found(vault, "watercolours")) == {PAINT, ASK}  # RACE is two turns away


def test_turn_index_orders_turns_that_arrive_out_of_order(store: Any, tmp_path: Path) -> None:
    cfg = load_config(
        environ={}, home=tmp_path / "h", embedding={"provider": "none"}, conversation={"window": 1}
    )
    vault = Vault(store=store, config=cfg)
    vault.add(RACE, user_id="u", session_id="s1", metadata=turn("Mel", 0))
    vault.add(KAYAK, user_id="u", session_id="s1", metadata=turn("Mel", 2))
    assert set(found(vault, "kayaking")) == {KAYAK, RACE}  # neighbours while 1 is missing
    vault.add(PAINT, user_id="u", session_id="s1", metadata=turn("Mel", 1))
    # Turn 1 now sits between them: the race turn's neighbour is the painting, not the kayak.
    assert set(found(vault, "kayaking")) == {KAYAK, PAINT}
    assert set(found(vault, "charity")) == {RACE, PAINT}


def test_insertion_order_under_a_clock_that_stands_still(store: Any, config: VaultConfig) -> None:
    now = datetime(2025, 3, 1, tzinfo=UTC)
    cfg = config.model_copy(
        update={"conversation": config.conversation.model_copy(update={"window": 1})}
    )
    vault = Vault(store=store, config=cfg, clock=lambda: now)
    for text in (RACE, ASK, PAINT, KAYAK):
        vault.add(text, user_id="u", session_id="s1", metadata=turn("Mel"))
    # Without a turn_index, the order the turns were written in is their order.
    assert set(found(vault, "watercolours")) == {PAINT, ASK, KAYAK}
    assert set(found(vault, "kayaking")) == {KAYAK, PAINT}
    times = [e.created_at for e in sorted(vault.list(user_id="u"), key=lambda e: e.created_at)]
    assert [e.content for e in sorted(vault.list(user_id="u"), key=lambda e: e.created_at)] == [
        RACE,
        ASK,
        PAINT,
        KAYAK,
    ]
    assert len(set(times)) == 4 and times[0] == now


def test_sessions_users_and_agent_spaces_do_not_mix(vault: Vault) -> None:
    vault.add(RACE, user_id="u", session_id="s1", metadata=turn("Mel", 0))
    vault.add(PAINT, user_id="u", session_id="s2", metadata=turn("Mel", 1))
    vault.add(KAYAK, user_id="other", session_id="s1", metadata=turn("Mel", 1))
    vault.add(ASK, user_id="u", agent_id="a", session_id="s1", metadata=turn("Caro", 1))
    assert found(vault, "watercolours") == [PAINT]
    assert found(vault, "kayaking") == []
    # The agent's private turn lends no words to the shared one, even to the agent.
    assert found(vault, "afterwards", agent_id="a") == [ASK]
    assert found(vault, "charity", agent_id="a") == [RACE]


def test_add_many_batches_and_later_turns_update_earlier_ones(vault: Vault) -> None:
    first = [
        {"content": RACE, "session_id": "s1", "metadata": turn("Mel", 0)},
        {"content": ASK, "session_id": "s1", "metadata": turn("Caro", 1)},
    ]
    vault.add_many(first, user_id="u")
    assert set(found(vault, "afterwards")) == {ASK, RACE}
    vault.add_many(
        [{"content": PAINT, "session_id": "s1", "metadata": turn("Mel", 2)}], user_id="u"
    )
    assert set(found(vault, "watercolours")) == {PAINT, ASK, RACE}


def test_updating_a_turn_refreshes_its_neighbours(vault: Vault) -> None:
    race = vault.add(RACE, user_id="u", session_id="s1", metadata=turn("Mel", 0))
    paint = vault.add(PAINT, user_id="u", session_id="s1", metadata=turn("Mel", 1))
    vault.update(paint.id, user_id="u", content=KAYAK)
    assert found(vault, "watercolours") == []
    assert set(found(vault, "kayaking")) == {KAYAK, RACE}
    # The updated turn keeps its own context, and the neighbour's entry is untouched.
    assert KAYAK in found(vault, "charity")
    assert vault.get(race.id, user_id="u").updated_at == race.updated_at
    # Moving a turn elsewhere in the session (a new turn_index) moves its context too.
    vault.add("Fine weather today", user_id="u", session_id="s1", metadata=turn("Caro", 3))
    ask = vault.add(ASK, user_id="u", session_id="s1", metadata=turn("Caro", 5))
    assert RACE not in found(vault, "afterwards")  # three turns away
    vault.update(ask.id, user_id="u", metadata=turn("Caro", 0))
    assert RACE in found(vault, "afterwards")


def test_deleting_a_turn_refreshes_its_neighbours(vault: Vault) -> None:
    race = vault.add(RACE, user_id="u", session_id="s1", metadata=turn("Mel", 0))
    paint = vault.add(PAINT, user_id="u", session_id="s1", metadata=turn("Mel", 1))
    kayak = vault.add(KAYAK, user_id="u", session_id="s1", metadata=turn("Mel", 2))
    assert RACE in found(vault, "watercolours")
    vault.delete(paint.id, user_id="u")
    assert found(vault, "watercolours") == []
    # With the middle turn gone, the other two are each other's neighbours now.
    assert RACE in found(vault, "kayaking")
    vault.delete_many([kayak.id], user_id="u")
    assert found(vault, "kayaking") == []
    assert found(vault, "charity") == [RACE]
    assert vault.get(race.id, user_id="u").metadata == turn("Mel", 0)


def test_import_builds_the_context_too(vault: Vault) -> None:
    for i, text in enumerate([RACE, PAINT]):
        vault.add(text, user_id="u", session_id="s1", metadata=turn("Mel", i))
    vault.import_(list(vault.export(user_id="u")), user_id="copy")
    assert set(found(vault, "watercolours", user="copy")) == {PAINT, RACE}


def test_refreshing_a_neighbour_keeps_its_vector(tmp_path: Path) -> None:
    cfg = load_config(
        environ={}, home=tmp_path, embedding={"provider": "hashing", "background": False}
    )
    with Vault(tmp_path / "v.db", config=cfg) as vault:
        race = vault.add(RACE, user_id="u", session_id="s1", metadata=turn("Mel", 0))
        assert vault.embedder is not None
        model = vault.embedder.name
        assert vault.store.load_vectors("u", model).ids == [race.id]
        vault.add(PAINT, user_id="u", session_id="s1", metadata=turn("Mel", 1))
        assert sorted(vault.store.load_vectors("u", model).ids) == sorted(
            e.id for e in vault.list(user_id="u")
        )


@pytest.mark.parametrize(
    ("metadata", "field"),
    [
        ({"turn_index": "3"}, "metadata.turn_index"),
        ({"turn_index": -1}, "metadata.turn_index"),
        ({"turn_index": True}, "metadata.turn_index"),
        ({"speaker": 7}, "metadata.speaker"),
        ({"speaker": "  "}, "metadata.speaker"),
        ({"session_date": ["8 May"]}, "metadata.session_date"),
    ],
)
def test_conversation_keys_are_validated_on_every_write(
    vault: Vault, metadata: dict[str, Any], field: str
) -> None:
    with pytest.raises(ValidationError) as add:
        vault.add("x", user_id="u", session_id="s1", metadata=metadata)
    assert add.value.context["field"] == field
    with pytest.raises(ValidationError):
        vault.add_many([{"content": "x", "metadata": metadata}], user_id="u")
    entry = vault.add("x", user_id="u")
    with pytest.raises(ValidationError):
        vault.update(entry.id, user_id="u", metadata=metadata)
    assert vault.count(user_id="u") == 1


def test_a_failed_write_leaves_no_refreshed_neighbour(vault: Vault) -> None:
    vault.add(RACE, user_id="u", session_id="s1", metadata=turn("Mel", 0))
    batch = [
        {"content": PAINT, "session_id": "s1", "metadata": turn("Mel", 1)},
        {"content": KAYAK, "session_id": "s1", "metadata": turn("Mel", 2), "id": "dup"},
        {"content": ASK, "session_id": "s1", "metadata": turn("Mel", 3), "id": "dup"},
    ]
    with pytest.raises(Exception):  # noqa: B017 - the store's conflict, whichever class
        vault.add_many(batch, user_id="u")
    assert found(vault, "watercolours") == []
    assert vault.count(user_id="u") == 1


# -- the integration surfaces ---------------------------------------------------------


def test_sync_turn_archives_are_turns_of_the_thread(vault: Vault, tmp_path: Path) -> None:
    provider = VaultProvider(vault)
    provider.initialize(user_id="u", thread_id="thread-1", base_dir=str(tmp_path))
    provider.sync_turn("I ran a charity race", "Congratulations!", turn_index=1)
    provider.sync_turn("Then I painted the harbour in watercolours", "Lovely.", turn_index=2)
    archived = vault.list(user_id="u")
    assert {e.session_id for e in archived} == {"thread-1"}
    assert len(found(vault, "watercolours")) == 2
    assert thread_session("a b/c") == thread_session("a b/c") != "a b/c"
    assert thread_session("") is None


@pytest.fixture
def gateway(alice: httpx.Client) -> httpx.Client:
    return alice


def test_http_turns_get_context(gateway: httpx.Client) -> None:
    for i, text in enumerate([RACE, ASK, PAINT]):
        body = {"content": text, "session_id": "s1", "metadata": turn("Mel", i)}
        r = gateway.post("/v1/memories", json=body)
        assert r.status_code == 201, r.text
        assert r.json()["metadata"] == turn("Mel", i)
    r = gateway.post("/v1/memories/search", json={"query": "watercolours"})
    assert {h["entry"]["content"] for h in r.json()["results"]} == {RACE, ASK, PAINT}
    bad = {"content": "x", "session_id": "s1", "metadata": {"turn_index": "two"}}
    r = gateway.post("/v1/memories", json=bad)
    assert r.status_code == 422 and "turn_index" in r.text


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_mcp_memory_save_turns_get_context(
    anyio_backend: str, config: VaultConfig, tmp_path: Path
) -> None:
    pytest.importorskip("mcp", reason="the 'mcp' extra is not installed")
    from tests.mcp.test_server import in_process

    with Vault(config=config) as vault:
        async with in_process(vault, "u", tmp_path) as session:
            for i, text in enumerate([RACE, PAINT]):
                args = {"action": "create", "name": f"turn {i}", "type": "user", "content": text}
                args |= {"session_id": "s1", "speaker": "Mel", "turn_index": i}
                result = await session.call_tool("memory_save", {**args, "session_date": "May"})
                assert not result.is_error, result.content
            # The index finds the race turn by its neighbour's word...
            found = vault.search("watercolours", user_id="u")
            assert {h.entry.content for h in found} == {RACE, PAINT}
            # ...and memory_recall answers what context() would inject (issue 33: the
            # same relevance gate), the turn whose own text holds the word.
            recall = await session.call_tool("memory_recall", {"query": "watercolours"})
            recalled = json.loads(recall.content[0].text)["memories"]
            assert [m["content"] for m in recalled] == [PAINT]
            assert PAINT in vault.context("watercolours", user_id="u")
            assert RACE not in vault.context("watercolours", user_id="u")
            stored = {e.content: e for e in vault.list(user_id="u")}
            assert stored[RACE].metadata == {
                "speaker": "Mel",
                "turn_index": 0,
                "session_date": "May",
            }
            assert stored[RACE].session_id == "s1"
            update = {"action": "update", "id": stored[RACE].id, "name": "x", "type": "user"}
            refused = await session.call_tool("memory_save", {**update, "turn_index": 3})
            assert refused.is_error


def test_index_document_of_a_turn_holds_its_neighbours(vault: Vault) -> None:
    """The context lives in the engine's index document, not in the entry."""
    race = vault.add(RACE, user_id="u", session_id="s1", metadata=turn("Mel", 0))
    vault.add(PAINT, user_id="u", session_id="s1", metadata=turn("Mel", 1))
    doc = vault._writer.doc(vault.get(race.id, user_id="u"))
    assert (
        isinstance(doc, SearchDoc) and "watercolour" in doc.extra and "watercolour" not in doc.body
    )
    assert vault.store.get(View("u", all_agents=True), race.id) == vault.get(race.id, user_id="u")


def test_a_turn_imported_with_a_later_time_keeps_its_place(vault: Vault) -> None:
    """Insertion order only breaks clock ties: a time well ahead of the clock is kept."""
    later = datetime(2999, 1, 1, tzinfo=UTC)
    record = {"content": KAYAK, "session_id": "s1", "created_at": later.isoformat()}
    vault.add_many([{**record, "metadata": turn("Mel")}], user_id="u")
    race = vault.add(RACE, user_id="u", session_id="s1", metadata=turn("Mel"))
    assert race.created_at < later
    assert set(found(vault, "kayaking")) == {KAYAK, RACE}


LUNCH = "Lunch plans: we meet at the harbour cafe beside the old lighthouse"
SHORT = "Perfect, count me in"
REPORT = (
    "Here is the full quarterly report you asked for. Revenue grew in every region, "
    "costs fell in two of them, the hiring plan is on track, and the board approved "
    "the budget for the new warehouse; the details of each line follow below."
)


def test_the_window_cuts_neighbours_and_leaves_long_turns_alone(tmp_path: Path) -> None:
    """A neighbour lends only its start; a turn long enough to stand alone borrows
    nothing; the entries themselves are stored whole either way."""

    def vault_with(name: str, **conversation: int) -> Vault:
        config = load_config(
            environ={},
            home=tmp_path / name,
            embedding={"provider": "none"},
            conversation={"window": 1, **conversation},
        )
        v = Vault(config=config)
        for i, text in enumerate([LUNCH, SHORT, REPORT]):
            v.add(text, user_id="u", session_id="s", metadata=turn("Ann" if i else "Bo", i))
        return v

    with vault_with("whole") as whole:
        assert set(found(whole, "lighthouse")) == {LUNCH, SHORT}
        assert set(found(whole, "warehouse")) == {REPORT, SHORT}
        assert set(found(whole, "perfect")) == {SHORT, LUNCH, REPORT}
    with vault_with("cut", neighbour_chars=24, alone_chars=len(REPORT)) as cut:
        # "lighthouse" is past the first 24 characters of "Bo: Lunch plans: we meet…".
        assert found(cut, "lighthouse") == [LUNCH]
        assert set(found(cut, "lunch")) == {LUNCH, SHORT}
        assert found(cut, "warehouse") == [REPORT]
        # The report stands alone; the lunch turn, shorter, still borrows its neighbour.
        assert set(found(cut, "perfect")) == {SHORT, LUNCH}
        assert REPORT in [e.content for e in cut.list(user_id="u")]

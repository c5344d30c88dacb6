"""``ProfileStore``: one profile document per user and agent, saved whole with
optimistic revisions — a save at a stale revision (or a second first save) changes
nothing and raises ``ConflictError``, and of two writers racing at one revision exactly
one wins. Documents come back as the very text that was saved."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from datetime import datetime, timedelta

import pytest

from memvault import ConflictError, Store, ValidationError
from memvault.stores.protocols import ProfileStore
from memvault.stores.values import MAX_PROFILE_BYTES, StoredProfile

from .support import T0, entry, put


def _doc(**fields: object) -> str:
    return json.dumps(fields, ensure_ascii=False)


def _save(
    store: Store, doc: str, revision: int, *, user: str = "alice", agent: str | None = None
) -> StoredProfile:
    return store.put_profile(
        user, agent, doc, revision=revision, now=T0 + timedelta(minutes=revision)
    )


def test_every_backend_keeps_profile_documents(store: Store) -> None:
    assert isinstance(store, ProfileStore)
    assert store.get_profile("alice", None) is None and store.profiles("alice") == []


def test_a_saved_profile_reads_back_whole(store: Store) -> None:
    saved = _save(store, _doc(user={"workContext": "writes Rust"}), 0)
    assert saved == StoredProfile("alice", None, _doc(user={"workContext": "writes Rust"}), 1, T0)
    assert store.get_profile("alice", None) == saved


def test_each_save_is_the_next_revision_and_replaces_the_document(store: Store) -> None:
    _save(store, _doc(n=1), 0)
    second = _save(store, _doc(n=2), 1)
    third = _save(store, _doc(n=3), 2)
    assert (second.revision, third.revision) == (2, 3)
    got = store.get_profile("alice", None)
    assert got is not None
    assert (got.document, got.revision, got.updated_at) == (_doc(n=3), 3, T0 + timedelta(minutes=2))


def test_a_stale_revision_conflicts_and_changes_nothing(store: Store) -> None:
    _save(store, _doc(n=1), 0)
    current = _save(store, _doc(n=2), 1)
    for stale in (1, 0, 5):
        with pytest.raises(ConflictError, match="revision 2, not") as caught:
            _save(store, _doc(n="lost"), stale)
        assert caught.value.context["revision"] == 2
    assert store.get_profile("alice", None) == current
    assert store.profiles("alice") == [current]


def test_a_second_first_save_conflicts_instead_of_overwriting(store: Store) -> None:
    first = _save(store, _doc(by="first"), 0)
    with pytest.raises(ConflictError, match="revision 1, not 0"):
        _save(store, _doc(by="second"), 0)
    assert store.get_profile("alice", None) == first


def test_a_revision_for_a_profile_never_saved_conflicts(store: Store) -> None:
    with pytest.raises(ConflictError, match="revision 0, not 1"):
        _save(store, _doc(n=1), 1)
    assert store.get_profile("alice", None) is None


def test_the_users_own_profile_and_each_agents_are_separate_documents(store: Store) -> None:
    own = _save(store, _doc(who="user"), 0)
    coder = _save(store, _doc(who="coder"), 0, agent="coder")
    assert (own.agent_id, coder.agent_id) == (None, "coder")
    assert store.get_profile("alice", None) == own
    assert store.get_profile("alice", "coder") == coder
    assert store.get_profile("alice", "writer") is None
    # Revisions count per document.
    assert _save(store, _doc(who="coder 2"), 1, agent="coder").revision == 2
    assert store.get_profile("alice", None) == own


def test_another_users_profile_is_never_visible(store: Store) -> None:
    _save(store, _doc(secret="alice's"), 0)
    _save(store, _doc(secret="alice's coder"), 0, agent="coder")
    assert store.get_profile("bob", None) is None
    assert store.get_profile("bob", "coder") is None
    assert store.profiles("bob") == []
    assert store.delete_profile("bob", None) is False
    with pytest.raises(ConflictError):  # bob has none: his first save is at revision 0
        _save(store, _doc(n=1), 1, user="bob")
    bobs = _save(store, _doc(secret="bob's"), 0, user="bob")
    assert store.profiles("bob") == [bobs]
    assert store.get_profile("alice", None).document == _doc(secret="alice's")  # type: ignore[union-attr]


def test_a_users_profiles_list_their_own_first_then_by_agent(store: Store) -> None:
    for agent in ("zeta", "alpha", "Beta", "9lives"):
        _save(store, _doc(agent=agent), 0, agent=agent)
    _save(store, _doc(agent=None), 0)
    _save(store, _doc(other=True), 0, user="bob", agent="alpha")
    listed = store.profiles("alice")
    assert [p.agent_id for p in listed] == [None, "9lives", "Beta", "alpha", "zeta"]
    assert all(p.user_id == "alice" and p.revision == 1 for p in listed)


def test_a_deleted_profile_is_gone_and_starts_again_at_revision_0(store: Store) -> None:
    _save(store, _doc(n=1), 0)
    _save(store, _doc(n=2), 1)
    coder = _save(store, _doc(n=1), 0, agent="coder")
    assert store.delete_profile("alice", None) is True
    assert store.delete_profile("alice", None) is False
    assert store.get_profile("alice", None) is None
    assert store.profiles("alice") == [coder]
    with pytest.raises(ConflictError):
        _save(store, _doc(n=3), 2)
    assert _save(store, _doc(n="again"), 0).revision == 1


def test_erasing_a_user_erases_their_profiles(store: Store) -> None:
    put(store, entry("e1", "likes tea"))
    _save(store, _doc(n=1), 0)
    _save(store, _doc(n=1), 0, agent="coder")
    bobs = _save(store, _doc(n=1), 0, user="bob")
    store.erase_user("alice")
    assert store.profiles("alice") == [] and store.get_profile("alice", "coder") is None
    assert store.profiles("bob") == [bobs]
    assert _save(store, _doc(n="fresh"), 0).revision == 1


def test_a_rolled_back_block_leaves_no_profile(store: Store) -> None:
    kept = _save(store, _doc(n=1), 0, agent="coder")
    with pytest.raises(RuntimeError), store.atomic():
        _save(store, _doc(n=1), 0)
        _save(store, _doc(n=2), 1, agent="coder")
        store.delete_profile("alice", "coder")
        assert store.get_profile("alice", "coder") is None  # the block reads its own writes
        raise RuntimeError("the enclosing write failed")
    assert store.get_profile("alice", None) is None
    assert store.profiles("alice") == [kept]


def test_a_save_joins_the_enclosing_block_and_a_conflict_inside_it_is_survivable(
    store: Store,
) -> None:
    with store.atomic():
        first = _save(store, _doc(n=1), 0)
        assert store.get_profile("alice", None) == first
        with pytest.raises(ConflictError):
            _save(store, _doc(n="duplicate"), 0)  # the block goes on after the conflict
        with pytest.raises(ConflictError):
            _save(store, _doc(n="stale"), 5)
        _save(store, _doc(n=2), 1)
        put(store, entry("e1", "written in the same block"))
    got = store.get_profile("alice", None)
    assert got is not None and (got.document, got.revision) == (_doc(n=2), 2)


@pytest.mark.parametrize(
    "document",
    [
        _doc(user={"workContext": "在上海做后端开发，喜欢喝乌龙茶"}, facts=["用户说中文"]),
        '{ "spacing" :  [1,2 ,3],\n\t"order": "kept", "a": "é 🐘 ﷺ" }',
        "",
        "not JSON at all: a store keeps whatever text it is given",
    ],
)
def test_the_document_text_round_trips_exactly(store: Store, document: str) -> None:
    _save(store, document, 0, agent="coder")
    got = store.get_profile("alice", "coder")
    assert got is not None and got.document == document
    assert store.profiles("alice")[0].document == document


def test_a_document_over_the_limit_is_refused_on_every_backend(store: Store) -> None:
    at_limit = json.dumps({"pad": "x" * (MAX_PROFILE_BYTES - 11)})
    assert len(at_limit.encode()) == MAX_PROFILE_BYTES
    _save(store, at_limit, 0)
    assert store.get_profile("alice", None).document == at_limit  # type: ignore[union-attr]
    # The limit is in bytes of UTF-8: fewer characters than bytes here.
    chinese = json.dumps({"pad": "中" * (MAX_PROFILE_BYTES // 3)}, ensure_ascii=False)
    assert len(chinese) < MAX_PROFILE_BYTES < len(chinese.encode())
    for oversize in (at_limit + " ", chinese):
        with pytest.raises(ValidationError, match="over the limit"):
            _save(store, oversize, 1)
    assert store.get_profile("alice", None).revision == 1  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda s: s.put_profile("alice", "", "{}", revision=0, now=T0), "agent_id"),
        (lambda s: s.put_profile("alice", None, "{}", revision=-1, now=T0), "revision"),
        (lambda s: s.put_profile("alice", None, "{}", revision=True, now=T0), "revision"),
        (lambda s: s.put_profile("alice", None, b"{}", revision=0, now=T0), "JSON text"),
        (lambda s: s.put_profile("alice", None, "{\x00}", revision=0, now=T0), "NUL"),
        (lambda s: s.put_profile("alice", None, "\ud800", revision=0, now=T0), "Unicode"),
        (
            lambda s: s.put_profile("alice", None, "{}", revision=0, now=datetime(2026, 1, 1)),
            "timezone",
        ),
    ],
)
def test_bad_saves_are_refused_before_anything_is_written(
    store: Store, call: Callable[[Store], object], message: str
) -> None:
    with pytest.raises(ValidationError, match=message):
        call(store)
    assert store.profiles("alice") == []


def _race(store: Store, revision: int, agent: str | None) -> tuple[list[int], int]:
    """Two threads save at ``revision`` at once; the revisions they saved, and how many
    got a ``ConflictError``."""
    start = threading.Barrier(2)
    won: list[int] = []
    lost: list[BaseException] = []

    def writer(name: str) -> None:
        start.wait()
        try:
            saved = store.put_profile(
                "alice", agent, _doc(by=name, at=revision), revision=revision, now=T0
            )
            won.append(saved.revision)
        except BaseException as exc:
            lost.append(exc)

    threads = [threading.Thread(target=writer, args=(n,)) for n in ("one", "two")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    unexpected = [e for e in lost if not isinstance(e, ConflictError)]
    assert unexpected == []
    return won, len(lost)


@pytest.mark.parametrize("agent", [None, "coder"])
def test_of_two_writers_at_the_same_revision_exactly_one_wins(
    store: Store, agent: str | None
) -> None:
    for revision in range(8):  # revision 0 races two first saves (inserts)
        won, conflicts = _race(store, revision, agent)
        assert (won, conflicts) == ([revision + 1], 1)
        got = store.get_profile("alice", agent)
        assert got is not None and got.revision == revision + 1
        assert json.loads(got.document)["at"] == revision

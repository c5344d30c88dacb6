"""``WorkspaceStore``: a session's state card saved by compare-and-set with every
revision kept beside it, tasks saved the same way, and each session tied to one
workspace — all per user, erased with the user, rolled back with an enclosing block."""

from __future__ import annotations

import threading
from dataclasses import replace
from datetime import timedelta

import pytest

from memvault import ConflictError, Store, ValidationError
from memvault.stores.protocols import WorkspaceStore
from memvault.stores.workspace_values import MAX_CARD_DOCUMENT_BYTES, StoredCard, StoredTask

from .support import T0, entry, put


def _card(
    store: Store, doc: str, revision: int, *, user: str = "alice", session: str = "s1"
) -> StoredCard:
    return store.put_card(
        user,
        session,
        doc,
        revision=revision,
        diff=f'{{"n": {revision}}}',
        actor="tool",
        now=T0 + timedelta(minutes=revision),
    )


def _task(
    task_id: str = "t1",
    *,
    user: str = "alice",
    ws: str = "w1",
    session: str = "s1",
    status: str = "todo",
    title: str = "write the parser",
) -> StoredTask:
    return StoredTask(
        user_id=user,
        task_id=task_id,
        workspace_id=ws,
        session_id=session,
        title=title,
        notes="",
        status=status,
        revision=0,
        created_at=T0,
        updated_at=T0,
    )


def test_every_backend_keeps_the_workspace(store: Store) -> None:
    assert isinstance(store, WorkspaceStore)
    assert store.get_card("alice", "s1") is None and store.card_revisions("alice", "s1") == []
    assert store.tasks("alice") == [] and store.session_links("alice") == []


def test_each_card_save_is_the_next_revision_and_every_revision_is_kept(store: Store) -> None:
    first = _card(store, '{"goal": "a"}', 0)
    assert first == StoredCard("alice", "s1", '{"goal": "a"}', 1, "tool", T0)
    _card(store, '{"goal": "b"}', 1)
    third = _card(store, '{"goal": "c"}', 2)
    assert store.get_card("alice", "s1") == third and third.revision == 3
    revisions = store.card_revisions("alice", "s1")
    assert [(r.revision, r.document, r.diff) for r in revisions] == [
        (1, '{"goal": "a"}', '{"n": 0}'),
        (2, '{"goal": "b"}', '{"n": 1}'),
        (3, '{"goal": "c"}', '{"n": 2}'),
    ]
    assert revisions[2].changed_at == T0 + timedelta(minutes=2)


def test_a_stale_card_revision_conflicts_and_changes_nothing(store: Store) -> None:
    _card(store, '{"goal": "a"}', 0)
    current = _card(store, '{"goal": "b"}', 1)
    for stale in (0, 1, 7):
        with pytest.raises(ConflictError, match="revision 2, not"):
            _card(store, '{"goal": "lost"}', stale)
    assert store.get_card("alice", "s1") == current
    assert len(store.card_revisions("alice", "s1")) == 2


def test_of_two_card_writers_at_one_revision_exactly_one_wins(store: Store) -> None:
    _card(store, "{}", 0)
    outcomes: list[str] = []
    barrier = threading.Barrier(2)

    def write(doc: str) -> None:
        barrier.wait()
        try:
            _card(store, doc, 1)
            outcomes.append("won")
        except ConflictError:
            outcomes.append("lost")

    threads = [threading.Thread(target=write, args=(f'{{"w": {i}}}',)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["lost", "won"]
    assert [r.revision for r in store.card_revisions("alice", "s1")] == [1, 2]


def test_cards_are_per_user_and_session_and_deleted_with_their_revisions(store: Store) -> None:
    _card(store, '{"a": 1}', 0)
    other = _card(store, '{"a": 2}', 0, session="s2")
    bobs = _card(store, '{"b": 1}', 0, user="bob")
    assert store.get_card("bob", "s2") is None
    assert [c.session_id for c in store.cards("alice")] == ["s1", "s2"]
    assert store.delete_card("alice", "s1") is True and store.delete_card("alice", "s1") is False
    assert store.card_revisions("alice", "s1") == [] and store.cards("alice") == [other]
    assert store.cards("bob") == [bobs]
    assert _card(store, '{"a": "again"}', 0).revision == 1


def test_an_oversized_card_is_refused_before_anything_is_written(store: Store) -> None:
    with pytest.raises(ValidationError, match="over the store's limit"):
        _card(store, "x" * (MAX_CARD_DOCUMENT_BYTES + 1), 0)
    with pytest.raises(ValidationError, match="NUL"):
        _card(store, "a\x00b", 0)
    assert store.get_card("alice", "s1") is None


def test_a_session_is_linked_to_its_first_workspace_only(store: Store) -> None:
    assert store.link_session("alice", "s1", "w1", now=T0) == "w1"
    assert store.link_session("alice", "s1", "w2", now=T0) == "w1"
    assert store.link_session("bob", "s1", "w2", now=T0) == "w2"
    link = store.session_link("alice", "s1")
    assert link is not None and (link.workspace_id, link.linked_at) == ("w1", T0)
    assert [s.workspace_id for s in store.session_links("alice")] == ["w1"]
    assert store.unlink_session("alice", "s1") is True
    assert store.link_session("alice", "s1", "w2", now=T0) == "w2"


def test_tasks_save_by_revision_and_list_by_workspace_and_session(store: Store) -> None:
    first = store.put_task(_task("t1"), revision=0)
    assert first.revision == 1 and first.created_at == T0
    store.put_task(_task("t2", session="s2"), revision=0)
    store.put_task(_task("t3", ws="w2", session="s3"), revision=0)
    store.put_task(_task("t9", user="bob"), revision=0)
    with pytest.raises(ConflictError, match="exists already"):
        store.put_task(_task("t1"), revision=0)
    moved = store.put_task(
        replace(_task("t1", status="doing"), updated_at=T0 + timedelta(hours=1)), revision=1
    )
    assert (moved.revision, moved.status, moved.created_at) == (2, "doing", T0)
    with pytest.raises(ConflictError, match="changed meanwhile"):
        store.put_task(_task("t1", status="done"), revision=1)
    assert store.get_task("alice", "t1") == moved
    assert [t.task_id for t in store.tasks("alice")] == ["t1", "t2", "t3"]
    assert [t.task_id for t in store.tasks("alice", workspace_id="w1")] == ["t1", "t2"]
    assert [t.task_id for t in store.tasks("alice", session_id="s2")] == ["t2"]
    assert store.get_task("bob", "t1") is None and store.tasks("bob", workspace_id="w2") == []
    assert store.delete_task("alice", "t2") is True and store.delete_task("alice", "t2") is False
    with pytest.raises(ConflictError, match="no longer exists"):
        store.put_task(_task("t2"), revision=1)


def test_erasing_a_user_erases_their_workspace(store: Store) -> None:
    put(store, entry("e1", "likes tea"))
    _card(store, "{}", 0)
    store.put_task(_task("t1"), revision=0)
    store.link_session("alice", "s1", "w1", now=T0)
    bobs = _card(store, "{}", 0, user="bob")
    store.put_task(_task("t1", user="bob"), revision=0)
    store.erase_user("alice")
    assert store.get_card("alice", "s1") is None and store.card_revisions("alice", "s1") == []
    assert store.tasks("alice") == [] and store.session_links("alice") == []
    assert store.cards("bob") == [bobs] and len(store.tasks("bob")) == 1


def test_a_rolled_back_block_leaves_no_card_task_or_link(store: Store) -> None:
    with pytest.raises(RuntimeError), store.atomic():
        store.link_session("alice", "s1", "w1", now=T0)
        _card(store, "{}", 0)
        store.put_task(_task("t1"), revision=0)
        assert store.get_card("alice", "s1") is not None  # the block reads its own writes
        raise RuntimeError("the enclosing write failed")
    assert store.get_card("alice", "s1") is None and store.card_revisions("alice", "s1") == []
    assert store.tasks("alice") == [] and store.session_link("alice", "s1") is None


def test_a_conflict_inside_a_block_is_survivable(store: Store) -> None:
    with store.atomic():
        _card(store, "{}", 0)
        with pytest.raises(ConflictError):
            _card(store, '{"dup": 1}', 0)
        store.put_task(_task("t1"), revision=0)
        with pytest.raises(ConflictError):
            store.put_task(_task("t1"), revision=0)
        _card(store, '{"n": 2}', 1)
    got = store.get_card("alice", "s1")
    assert got is not None and got.revision == 2
    assert [r.revision for r in store.card_revisions("alice", "s1")] == [1, 2]


def test_text_reads_back_exactly(store: Store) -> None:
    doc = '{ "goal" : "在上海做后端 é 🐘",\n\t"x": [1 ,2] }'
    _card(store, doc, 0)
    got = store.get_card("alice", "s1")
    assert got is not None and got.document == doc
    saved = store.put_task(_task("t1", title="修复 🐘 bug"), revision=0)
    assert store.get_task("alice", "t1") == saved and saved.title == "修复 🐘 bug"

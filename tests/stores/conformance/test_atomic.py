"""``Transactional``: ``atomic()`` makes several writes one, and nests with savepoints."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest

from memvault import ConflictError, MemoryEntry, SQLiteStore, Store, StoreError
from memvault.stores.protocols import Transactional
from memvault.stores.values import Mutation, SearchDoc, VectorItem

from .support import OWNER, audit_row, doc, entry, hit_ids, ids, put


class Boom(Exception):
    pass


def _retitle(title: str) -> Mutation:
    def mutate(current: MemoryEntry) -> tuple[MemoryEntry, SearchDoc]:
        new = current.replace(name=title)
        return new, doc(new)

    return mutate


def test_every_backend_is_transactional(store: Store) -> None:
    assert isinstance(store, Transactional)


def test_writes_inside_atomic_are_committed_together(store: Store) -> None:
    with store.atomic():
        (e1,) = put(store, entry("e1", "walrus"))
        store.update(OWNER, "e1", _retitle("tusks"))
        store.append_audit(audit_row("alice", "inside"))
        store.set_reveal_secret("alice", b"salt", b"digest")
        assert store.get(OWNER, "e1") is not None  # the block reads its own writes
    assert store.get(OWNER, "e1").name == "tusks"  # type: ignore[union-attr]
    assert hit_ids(store, OWNER, "walrus") == ["e1"]
    assert [r.action for r in store.audit_log("alice")] == ["inside"]
    assert store.reveal_secret("alice") == (b"salt", b"digest")
    assert e1.id == "e1"


def test_an_exception_leaving_the_outer_block_rolls_everything_back(store: Store) -> None:
    (kept,) = put(store, entry("kept", "walrus before"))
    with pytest.raises(Boom), store.atomic():
        put(store, entry("e1", "narwhal"))
        store.update(OWNER, "kept", _retitle("changed"))
        store.delete(OWNER, ["kept"])
        store.put_vectors("alice", "m", [VectorItem("e1", kept.updated_at, np.ones(2, "f4"))])
        store.append_audit(audit_row("alice", "inside"))
        store.set_reveal_secret("alice", b"salt", b"digest")
        raise Boom
    assert ids(store.list_entries(OWNER)) == ["kept"]
    assert store.get(OWNER, "kept") == kept
    assert hit_ids(store, OWNER, "narwhal") == []
    assert hit_ids(store, OWNER, "walrus") == ["kept"]
    assert store.load_vectors("alice", "m").ids == []
    assert store.audit_log("alice") == []
    assert store.reveal_secret("alice") is None


def test_a_failing_inner_block_rolls_back_only_its_own_writes(store: Store) -> None:
    with store.atomic():
        put(store, entry("outer1", "first"))
        with pytest.raises(Boom), store.atomic():
            put(store, entry("inner", "second"))
            store.update(OWNER, "outer1", _retitle("from inner"))
            raise Boom
        assert store.get(OWNER, "inner") is None
        put(store, entry("outer2", "third"))
        with store.atomic():  # a nested block that succeeds joins the outer one
            put(store, entry("inner2", "fourth"))
    assert sorted(ids(store.list_entries(OWNER))) == ["inner2", "outer1", "outer2"]
    assert store.get(OWNER, "outer1").name == ""  # type: ignore[union-attr]
    assert hit_ids(store, OWNER, "second") == []


def test_an_outer_failure_also_undoes_inner_blocks_that_succeeded(store: Store) -> None:
    with pytest.raises(Boom), store.atomic():
        with store.atomic():
            put(store, entry("inner", "x"))
            with store.atomic():
                put(store, entry("deepest", "y"))
        raise Boom
    assert store.count(OWNER) == 0


def test_a_failing_store_call_inside_a_block_undoes_only_that_call(store: Store) -> None:
    put(store, entry("e1", "existing"))
    with store.atomic():
        put(store, entry("e2", "kept"))
        with pytest.raises(ConflictError):
            put(store, entry("e3", "lost"), entry("e1", "duplicate"))
        put(store, entry("e4", "also kept"))
    assert sorted(ids(store.list_entries(OWNER))) == ["e1", "e2", "e4"]
    assert store.get(OWNER, "e1").content == "existing"  # type: ignore[union-attr]


def test_another_thread_never_sees_a_half_written_block(store: Store) -> None:
    # Another thread either waits for the block (a lock) or reads the last commit
    # (SQLite's per-thread reader): it never sees the first write without the second.
    seen: list[tuple[bool, bool]] = []

    def look() -> None:
        found = {e.id for e in store.get_many(OWNER, ["a", "b"])}
        seen.append(("a" in found, "b" in found))

    with store.atomic():
        put(store, entry("a", "first half"))
        other = threading.Thread(target=look)
        other.start()
        other.join(timeout=0.3)
        assert seen in ([], [(False, False)])
        put(store, entry("b", "second half"))
    other.join(timeout=10)
    assert seen in ([(False, False)], [(True, True)])
    assert store.count(OWNER) == 2


def test_atomic_on_a_closed_store_raises_store_error(store: Store) -> None:
    store.close()
    with pytest.raises(StoreError), store.atomic():
        pass


def test_another_connection_sees_nothing_before_the_outer_commit(tmp_path: Path) -> None:
    writer, reader = SQLiteStore(tmp_path / "v.db"), SQLiteStore(tmp_path / "v.db")
    try:
        with writer.atomic():
            put(writer, entry("e1", "pending"))
            with writer.atomic():
                put(writer, entry("e2", "pending too"))
            assert reader.count(OWNER) == 0
            assert hit_ids(reader, OWNER, "pending") == []
        assert reader.count(OWNER) == 2
        with pytest.raises(Boom), writer.atomic():
            put(writer, entry("e3", "never"))
            raise Boom
        assert reader.count(OWNER) == 2 and writer.count(OWNER) == 2
    finally:
        writer.close()
        reader.close()


# -- after_commit: what lives beside the store follows committed writes only ---------------


def test_a_hook_outside_any_block_runs_at_once(store: Store) -> None:
    ran: list[str] = []
    store.after_commit(lambda: ran.append("now"))
    assert ran == ["now"]


def test_hooks_wait_for_the_outermost_commit_and_see_the_committed_rows(store: Store) -> None:
    seen: list[list[str]] = []

    def read_from_another_thread() -> None:
        # The embedding worker reads on a connection (and thread) of its own.
        found: list[list[str]] = []
        reader = threading.Thread(
            target=lambda: found.append(sorted(ids(store.list_entries(OWNER))))
        )
        reader.start()
        reader.join()
        seen.append(found[0])

    with store.atomic():
        put(store, entry("e1", "walrus"))
        store.after_commit(read_from_another_thread)
        with store.atomic():
            put(store, entry("e2", "narwhal"))
            store.after_commit(read_from_another_thread)
        assert seen == []  # the savepoint's release is not the commit
    assert seen == [["e1", "e2"], ["e1", "e2"]]


def test_a_rolled_back_block_drops_its_hooks_and_keeps_the_outer_ones(store: Store) -> None:
    ran: list[str] = []
    with store.atomic():
        store.after_commit(lambda: ran.append("outer"))
        with pytest.raises(Boom), store.atomic():
            store.after_commit(lambda: ran.append("undone"))
            raise Boom
    assert ran == ["outer"]
    with pytest.raises(Boom), store.atomic():
        store.after_commit(lambda: ran.append("never"))
        raise Boom
    assert ran == ["outer"]
    store.after_commit(lambda: ran.append("after"))  # nothing left open on this thread
    assert ran == ["outer", "after"]

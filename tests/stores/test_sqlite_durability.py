"""Concurrent writers, all-or-nothing writes and WAL mode on a real SQLite file."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import textwrap
import threading
from contextlib import closing
from pathlib import Path

import pytest

from memvault import (
    ConflictError,
    MemoryEntry,
    SQLiteStore,
    StoreError,
    ValidationError,
    Vault,
    VaultConfig,
)
from memvault.retrieval.keyword import search_doc
from memvault.stores.values import SearchDoc, View

PROCESSES = 4
PER_PROCESS = 250

# Each writer opens its own Vault (its own connection) and adds one entry per
# transaction, so the four processes really interleave on the file's write lock.
WRITER = textwrap.dedent(
    """
    import sys
    from memvault import Vault, load_config

    path, proc, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    config = load_config(environ={}, embedding={"provider": "none"})
    with Vault(path, config=config) as vault:
        sys.stdin.readline()  # start together
        for i in range(count):
            vault.add(f"entry {i} of writer {proc}: zq{proc}w{i}", user_id="shared-user")
    """
)


def fts_hits(path: Path, word: str) -> int:
    """Rows of the full-text index that hold ``word``, read straight from the file."""
    with closing(sqlite3.connect(path)) as conn:
        row = conn.execute(
            "SELECT count(*) FROM memories_fts WHERE memories_fts MATCH ?", (f'"{word}"',)
        ).fetchone()
    return int(row[0])


@pytest.mark.slow
def test_concurrent_writer_processes_lose_nothing(sqlite_path: Path, config: VaultConfig) -> None:
    # Create the schema first: opening a brand-new file concurrently is a separate
    # matter: tests/stores/test_sqlite_migrations.py,
    # test_opening_waits_while_another_connection_writes.
    Vault(sqlite_path, config=config).close()

    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(sqlite_path), str(p), str(PER_PROCESS)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for p in range(PROCESSES)
    ]
    for w in writers:
        assert w.stdin is not None
        w.stdin.write("go\n")
        w.stdin.flush()
    results = [w.communicate(timeout=120) for w in writers]
    for w, (_, stderr) in zip(writers, results, strict=True):
        assert w.returncode == 0, stderr

    with Vault(sqlite_path, config=config) as vault:
        assert vault.count(user_id="shared-user") == PROCESSES * PER_PROCESS
        contents = {d["content"] for d in vault.export(user_id="shared-user")}
        assert len(contents) == PROCESSES * PER_PROCESS
        for p in range(PROCESSES):
            for i in range(PER_PROCESS):
                word = f"zq{p}w{i}"
                hits = vault.search(word, user_id="shared-user", limit=1)
                assert [h.entry.content for h in hits] == [f"entry {i} of writer {p}: {word}"]
        assert vault.health()["integrity"] == "ok"


# -- a write that fails halfway leaves nothing ---------------------------------------


def test_add_many_with_an_invalid_record_in_the_middle_writes_nothing(
    sqlite_vault: Vault, sqlite_path: Path
) -> None:
    records = [
        {"content": "quokka one"},
        {"content": "wombat", "kind": "opinion"},
        {"content": "x"},
    ]
    with pytest.raises(ValidationError):
        sqlite_vault.add_many(records, user_id="alice")

    assert sqlite_vault.count(user_id="alice") == 0
    assert sqlite_vault.search("quokka", user_id="alice") == []
    assert fts_hits(sqlite_path, "quokka") == 0


def test_a_batch_clashing_on_its_third_item_leaves_no_row_and_no_index_entry(
    tmp_path: Path,
) -> None:
    path = tmp_path / "batch.db"
    store = SQLiteStore(path)
    existing = MemoryEntry(id="taken", user_id="alice", content="the original platypus")
    store.insert([(existing, search_doc(existing))])
    batch = [
        MemoryEntry(id="n1", user_id="alice", content="quokka"),
        MemoryEntry(id="n2", user_id="alice", content="wombat"),
        MemoryEntry(id="taken", user_id="alice", content="numbat"),
        MemoryEntry(id="n4", user_id="alice", content="bilby"),
    ]

    with pytest.raises(ConflictError):
        store.insert([(e, search_doc(e)) for e in batch])

    owner = View("alice", all_agents=True)
    assert [e.id for e in store.list_entries(owner)] == ["taken"]
    assert store.get(owner, "taken") == existing
    for word in ("quokka", "wombat", "numbat", "bilby"):
        assert store.keyword_search(owner, [word]) == []
        assert fts_hits(path, word) == 0
    assert fts_hits(path, "platypus") == 1
    store.close()


def test_a_mutation_that_raises_inside_the_transaction_changes_nothing(
    sqlite_vault: Vault, sqlite_path: Path
) -> None:
    original = sqlite_vault.add("the cat sat on the mat", user_id="alice", name="cat")
    store = sqlite_vault.store
    calls: list[MemoryEntry] = []

    def mutate(current: MemoryEntry) -> tuple[MemoryEntry, SearchDoc]:
        calls.append(current)
        raise RuntimeError("failed after reading the current entry")

    with pytest.raises(RuntimeError):
        store.update(View("alice", all_agents=True), original.id, mutate)

    assert calls == [original]
    assert sqlite_vault.get(original.id, user_id="alice") == original
    # The store still takes writes: the failed transaction was rolled back, not left open.
    updated = sqlite_vault.update(original.id, user_id="alice", content="the dog barked")
    assert sqlite_vault.get(original.id, user_id="alice") == updated
    assert fts_hits(sqlite_path, "dog") == 1
    assert fts_hits(sqlite_path, "mat") == 0


def test_a_failed_write_leaves_other_connections_a_consistent_view(
    sqlite_vault: Vault, sqlite_path: Path, config: VaultConfig
) -> None:
    sqlite_vault.add("kept", user_id="alice", id="k1")
    with pytest.raises(ConflictError):
        sqlite_vault.add_many(
            [{"content": "aardvark", "id": "n1"}, {"content": "again", "id": "k1"}],
            user_id="alice",
        )
    with Vault(sqlite_path, config=config) as other:
        assert [e.id for e in other.list(user_id="alice")] == ["k1"]
        assert other.search("aardvark", user_id="alice") == []


def test_committed_entries_survive_reopening(sqlite_path: Path, config: VaultConfig) -> None:
    with Vault(sqlite_path, config=config) as vault:
        added = vault.add_many([{"content": f"note {i}"} for i in range(50)], user_id="alice")
    with Vault(sqlite_path, config=config) as vault:
        assert list(vault.export(user_id="alice")) == [e.to_dict() for e in added]


# -- WAL -----------------------------------------------------------------------------


def test_file_databases_use_wal(sqlite_vault: Vault, sqlite_path: Path) -> None:
    sqlite_vault.add("x", user_id="alice")
    with closing(sqlite3.connect(sqlite_path)) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert sqlite_vault.health()["journal_mode"] == "wal"


def test_reads_on_other_threads_go_on_while_a_write_is_open(tmp_path: Path) -> None:
    """WAL readers neither wait for an open write transaction nor see its changes."""
    store = SQLiteStore(tmp_path / "readers.db")
    first = MemoryEntry(id="m1", user_id="alice", content="the first wombat")
    store.insert([(first, search_doc(first))])
    view = View("alice", all_agents=True)
    seen: dict[str, object] = {}
    reader_done = threading.Event()

    def read() -> None:
        got = store.get(view, "m1")
        seen["content"] = got.content if got else None
        seen["hits"] = [e.id for e, _ in store.keyword_search(view, ["wombat"])]
        reader_done.set()

    def mutate(current: MemoryEntry) -> tuple[MemoryEntry, SearchDoc]:
        # Inside the write transaction: a reader that queued behind it would
        # never finish, and the wait below would run out.
        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        seen["finished_during_write"] = reader_done.wait(timeout=30)
        new = current.replace(content="a numbat now")
        return new, search_doc(new)

    store.update(view, "m1", mutate)

    assert seen["finished_during_write"] is True
    assert seen["content"] == "the first wombat"  # the committed state, not the open write
    assert seen["hits"] == ["m1"]
    after = store.get(view, "m1")
    assert after is not None and after.content == "a numbat now"
    store.close()


def test_a_closed_store_refuses_reads_and_writes_clearly(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "closed.db")
    entry = MemoryEntry(id="m1", user_id="alice", content="kept")
    store.insert([(entry, search_doc(entry))])
    view = View("alice", all_agents=True)
    assert store.get(view, "m1") is not None  # opens this thread's reader

    store.close()
    store.close()  # closing twice is harmless

    with pytest.raises(StoreError, match="closed"):
        store.get(view, "m1")
    with pytest.raises(StoreError, match="closed"):
        store.insert([(entry.replace(id="m2"), search_doc(entry))])
    reopened = SQLiteStore(tmp_path / "closed.db")
    assert reopened.get(view, "m1") is not None
    reopened.close()


def open_files_on(path: Path) -> int:
    """File descriptors of this process open on ``path`` (Linux /proc)."""
    count = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{fd}") == str(path):
                count += 1
        except OSError:
            continue
    return count


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs Linux /proc")
def test_threads_that_end_do_not_leave_read_connections_open(tmp_path: Path) -> None:
    path = tmp_path / "threads.db"
    store = SQLiteStore(path)
    entry = MemoryEntry(id="m1", user_id="alice", content="kept")
    store.insert([(entry, search_doc(entry))])
    view = View("alice", all_agents=True)
    baseline = open_files_on(path)

    for _ in range(40):  # a thread per task, as some apps do
        worker = threading.Thread(target=store.get, args=(view, "m1"))
        worker.start()
        worker.join()

    # Each new reader closes those of ended threads: one reader left, not forty (SQLite
    # may hold one closed connection's descriptor back for reuse while others lock).
    assert open_files_on(path) <= baseline + 2
    store.close()
    assert open_files_on(path) == 0


def test_a_process_stopped_in_its_first_open_leaves_a_database_the_next_opens(
    tmp_path: Path, config: VaultConfig
) -> None:
    """The file appears with its header: a start killed right after the file was made
    (Ctrl-C during a first `memvault serve`) leaves no empty file that the next open
    would have to refuse as a database whose memories were lost."""
    db = tmp_path / "memvault.db"
    code = (
        "import os, sys\n"
        "from pathlib import Path\n"
        "from memvault.stores.sqlite import create_private\n"
        "assert create_private(Path(sys.argv[1]))\n"
        "os._exit(0)  # killed before anything else of the open ran\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    subprocess.run([sys.executable, "-c", code, str(db)], env=env, check=True, timeout=120)
    assert db.stat().st_size > 0 and db.stat().st_mode & 0o077 == 0
    assert [p.name for p in tmp_path.iterdir()] == ["memvault.db"]  # no spare left
    with Vault(db, config=config) as vault:
        vault.add("still works", user_id="u")
        assert [e.content for e in vault.list(user_id="u")] == ["still works"]

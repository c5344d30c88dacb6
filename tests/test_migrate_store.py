"""``migrate_store`` and ``memvault migrate-store``: a vault copied between real stores
(SQLite files, a throw-away PostgreSQL and MariaDB), verified, resumed, refused."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import quote, urlsplit

import pytest

from memvault import ConflictError, Store, ValidationError, Vault, load_config
from memvault.embed import HashingEmbedder
from memvault.migrate import migrate_store, vault_checksum
from memvault.stores import open_store
from memvault.stores.values import View

from .cli_process import run_cli
from .servers import mariadb
from .servers.postgres import postgres_database

CARD = "4111 1111 1111 1111"
QUERIES = ["go services", "coffee in lisbon", "deploy key", "bullet points"]


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now


def sqlite_url(path: Path) -> str:
    return "sqlite://" + quote(str(path))


def _mariadb_url() -> str:
    if not mariadb.available():
        pytest.fail(f"no MariaDB: make test installs mariadb-server (apt), or set {mariadb.ENV}")
    return mariadb.fresh_database()


@pytest.fixture(autouse=True)
def _drop_mariadb_databases() -> Iterator[None]:
    yield
    mariadb.drop_created()


def _vault(store: Store, home: Path) -> Vault:
    config = load_config(environ={}, home=home, embedding={"background": False})
    return Vault(store=store, config=config, embedder=HashingEmbedder(), clock=Clock())


def fill(store: Store, home: Path) -> None:
    """Two users' memories through the public API: agents, metadata, a redacted entry
    with its sealed original, vectors, a reveal challenge with its audit records."""
    v = _vault(store, home)
    for n in range(12):
        v.add(f"Alice writes Go services, note {n}", user_id="alice", metadata={"n": n})
    v.add("Prefers answers in bullet points", user_id="alice", agent_id="helper", kind="feedback")
    v.add(f"My card is {CARD} and the deploy key is here", user_id="alice", name="card")
    v.add("Bob drinks coffee in Lisbon", user_id="bob", importance=0.9)
    v.add("Bob keeps the deploy key in a vault", user_id="bob", agent_id="ops")
    v.set_reveal_secret(user_id="alice", secret="correct horse battery")


def searches(store: Store, home: Path, user: str) -> list[list[str]]:
    v = _vault(store, home)
    return [[h.entry.id for h in v.search(q, user_id=user, limit=5)] for q in QUERIES]


def same_vault(source: Store, target: Store, user: str) -> None:
    owner = View(user, all_agents=True)
    assert target.count(owner) == source.count(owner) > 0
    assert vault_checksum(target, user) == vault_checksum(source, user)
    assert sorted(e.id for e in target.iter_entries(owner)) == sorted(
        e.id for e in source.iter_entries(owner)
    )
    for model in source.vector_models(user):
        there, here = target.load_vectors(user, model), source.load_vectors(user, model)
        assert sorted(there.ids) == sorted(here.ids)
    assert target.reveal_secret(user) == source.reveal_secret(user)
    keys = [(r.at, r.action, r.outcome, r.entry_id) for r in source.audit_log(user)]
    assert [(r.at, r.action, r.outcome, r.entry_id) for r in target.audit_log(user)] == keys


@pytest.mark.postgres
def test_sqlite_to_postgres_copies_everything_and_search_finds_the_same(tmp_path: Path) -> None:
    source = open_store(tmp_path / "src.db")
    target = open_store(postgres_database())
    fill(source, tmp_path)
    before = {u: searches(source, tmp_path, u) for u in ("alice", "bob")}

    report = migrate_store(source, target)

    assert [u.user_id for u in report.users] == ["alice", "bob"]
    assert report.entries == report.copied == 16
    alice = report.users[0]
    assert alice.vectors == 14 and alice.originals == 1 and alice.audit_copied > 0
    for user in ("alice", "bob"):
        same_vault(source, target, user)
        assert searches(target, tmp_path, user) == before[user]
    # the sealed original is readable on the target with the same key (reveal path)
    v = _vault(target, tmp_path)
    card = next(e for e in v.list(user_id="alice", limit=50) if e.name == "card")
    assert CARD not in card.content
    v.authorize_reveal(card.id, user_id="alice", secret="correct horse battery")
    assert CARD in v.reveal(card.id, user_id="alice").content
    assert "16 entries (16 copied, 0 already there)" in report.summary()
    source.close()
    target.close()


@pytest.mark.postgres
@pytest.mark.mariadb
def test_postgres_to_mariadb_one_user_only(tmp_path: Path) -> None:
    source = open_store(postgres_database())
    target = open_store(_mariadb_url())
    fill(source, tmp_path)
    before = searches(source, tmp_path, "bob")

    report = migrate_store(source, target, user_id="bob")

    assert [u.user_id for u in report.users] == ["bob"] and report.copied == 2
    same_vault(source, target, "bob")
    assert searches(target, tmp_path, "bob") == before
    assert target.count(View("alice", all_agents=True)) == 0
    assert target.user_ids() == ["bob"]
    source.close()
    target.close()


@pytest.mark.mariadb
def test_an_interrupted_copy_to_mariadb_resumes_and_finishes(tmp_path: Path) -> None:
    source = open_store(tmp_path / "src.db")
    target = open_store(_mariadb_url())
    fill(source, tmp_path)
    seen: list[tuple[int, int]] = []

    def cut_off(done: int, total: int) -> None:
        seen.append((done, total))
        if done >= 6:
            raise KeyboardInterrupt  # as a person's Ctrl-C in the middle of the run

    with pytest.raises(KeyboardInterrupt):
        migrate_store(source, target, batch=3, progress=cut_off)
    assert seen == [(3, 16), (6, 16)]
    owner = View("alice", all_agents=True)
    partial = target.count(owner)
    assert partial == 6  # whole batches only
    assert target.audit_log("alice") == []

    report = migrate_store(source, target, batch=3)

    assert report.entries == 16 and report.copied == 10
    for user in ("alice", "bob"):
        same_vault(source, target, user)
    again = migrate_store(source, target)
    assert again.copied == 0 and all(u.audit_copied == 0 for u in again.users)
    same_vault(source, target, "alice")
    source.close()
    target.close()


def test_a_target_with_other_data_for_the_same_ids_is_refused_untouched(tmp_path: Path) -> None:
    source = open_store(tmp_path / "src.db")
    target = open_store(tmp_path / "dst.db")
    fill(source, tmp_path)
    last = list(source.iter_entries(View("bob", all_agents=True)))[-1]
    doc = source.search_docs("bob", [last.id])[last.id]
    target.insert([(last.replace(content="something else entirely"), doc)])

    with pytest.raises(ConflictError, match=r"other data.*nothing was written"):
        migrate_store(source, target)
    assert target.user_ids() == ["bob"]
    assert target.count(View("bob", all_agents=True)) == 1
    assert target.count(View("alice", all_agents=True)) == 0


def test_bad_arguments_are_refused(tmp_path: Path) -> None:
    store = open_store(tmp_path / "a.db")
    other = open_store(tmp_path / "b.db")
    with pytest.raises(ValidationError, match="same store"):
        migrate_store(store, store)
    with pytest.raises(ValidationError, match="batch"):
        migrate_store(store, other, batch=0)
    with pytest.raises(ValidationError):
        migrate_store(store, other, user_id="")


# -- the command ---------------------------------------------------------------------


def run(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_cli(home, *args)


def test_the_command_copies_verifies_and_says_so_in_one_line(tmp_path: Path) -> None:
    source = open_store(tmp_path / "src.db")
    fill(source, tmp_path)
    source.close()
    src, dst = sqlite_url(tmp_path / "src.db"), sqlite_url(tmp_path / "dst.db")

    done = run(tmp_path, "migrate-store", "--from", src, "--to", dst, "--user", "alice")

    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines() == [
        "migrated 1 user: 14 entries (14 copied, 0 already there), 14 vectors, 1 originals, "
        f"{_audit_count(tmp_path / 'src.db')} audit records copied; "
        "verified: counts and checksums match"
    ]
    again = run(tmp_path, "migrate-store", "--from", src, "--to", dst)
    assert again.returncode == 0, again.stderr
    assert "16 entries (2 copied, 14 already there)" in again.stdout
    s, t = open_store(tmp_path / "src.db"), open_store(tmp_path / "dst.db")
    for user in ("alice", "bob"):
        same_vault(s, t, user)
    s.close()
    t.close()


def _audit_count(path: Path) -> int:
    store = open_store(path)
    try:
        return len(store.audit_log("alice", limit=1000))
    finally:
        store.close()


def test_the_command_fails_in_one_line_without_the_password(tmp_path: Path) -> None:
    source = open_store(tmp_path / "src.db")
    fill(source, tmp_path)
    source.close()
    url = "postgresql://memvault:hunter2secret@127.0.0.1:1/memvault"

    failed = run(tmp_path, "migrate-store", "--from", str(tmp_path / "src.db"), "--to", url)

    assert failed.returncode == 1
    assert len(failed.stderr.strip().splitlines()) == 1, failed.stderr
    assert "hunter2secret" not in failed.stderr + failed.stdout
    assert urlsplit(url).password not in failed.stderr

    missing = run(tmp_path, "migrate-store", "--from", str(tmp_path / "nope.db"), "--to", url)
    assert missing.returncode == 2 and "no SQLite file" in missing.stderr
    assert not (tmp_path / "nope.db").exists()

    conflict = run(tmp_path, "migrate-store", "--from", "x.db", "--to", "x.db")
    assert conflict.returncode == 2
    assert "same store" in conflict.stderr

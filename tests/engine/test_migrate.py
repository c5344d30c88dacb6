"""``migrate_store`` and ``memvault migrate-store``: a vault copied between real stores
(SQLite files, a throw-away PostgreSQL and MariaDB), verified, resumed, refused."""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import quote, urlsplit

import numpy as np
import pytest

from memvault import ConflictError, Store, ValidationError, Vault, load_config
from memvault.embed import HashingEmbedder
from memvault.engine.migrate import migrate_store, vault_checksum
from memvault.engine.signing import signing_key
from memvault.errors import AuthorizationError, RevealLockedError
from memvault.model import MemoryEntry
from memvault.stores import open_store
from memvault.stores.values import VectorItem, View
from tests.cli_process import invoke, run_cli
from tests.servers import mariadb
from tests.servers.postgres import postgres_database

CARD = "4111 1111 1111 1111"
QUERIES = ["go services", "coffee in lisbon", "deploy key", "bullet points"]
PROFILE = '{"user": {"workContext": "writes Go services", "personalContext": "住在上海"}}'


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
    with its sealed original, vectors, a reveal challenge with its audit records; and
    their profile documents (the user's own and an agent's)."""
    v = _vault(store, home)
    for n in range(12):
        v.add(f"Alice writes Go services, note {n}", user_id="alice", metadata={"n": n})
    v.add("Prefers answers in bullet points", user_id="alice", agent_id="helper", kind="feedback")
    v.add(f"My card is {CARD} and the deploy key is here", user_id="alice", name="card")
    v.add("Bob drinks coffee in Lisbon", user_id="bob", importance=0.9)
    v.add("Bob keeps the deploy key in a vault", user_id="bob", agent_id="ops")
    v.set_reveal_secret(user_id="alice", secret="correct horse battery")
    at = datetime(2026, 3, 1, 8, 0, tzinfo=UTC)
    store.put_profile("alice", None, PROFILE, revision=0, now=at)
    store.put_profile("alice", None, PROFILE.replace("Go", "Go and Rust"), revision=1, now=at)
    store.put_profile("alice", "helper", '{"facts": []}', revision=0, now=at)
    store.put_profile("bob", None, '{"user": {"topOfMind": "Lisbon"}}', revision=0, now=at)
    v.upsert_card(user_id="alice", session_id="s1", goal="move to Rust", workspace_id="w1")
    v.upsert_card(user_id="alice", session_id="s1", decisions=["keep Go for ops"], actor="tool")
    v.add_task(user_id="alice", workspace_id="w1", session_id="s1", title="port the CLI")
    v.add_task(
        user_id="bob", workspace_id="home", session_id="b1", title="book 订票", status="done"
    )


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
    same_profiles(source, target, user)
    same_workspace(source, target, user)


def same_workspace(source: Store, target: Store, user: str) -> None:
    """Every card with its whole history (numbers, diffs, actors, times), and the tasks."""
    cards = source.cards(user)
    assert [c.session_id for c in target.cards(user)] == [c.session_id for c in cards]
    for card in cards:
        history = source.card_revisions(user, card.session_id)
        assert target.card_revisions(user, card.session_id) == history
    key = [(t.task_id, t.title, t.status, t.session_id, t.created_at) for t in source.tasks(user)]
    assert key
    assert [
        (t.task_id, t.title, t.status, t.session_id, t.created_at) for t in target.tasks(user)
    ] == key
    assert target.session_links(user) == source.session_links(user)


def test_a_target_with_another_card_history_is_refused_and_a_prefix_is_finished(
    tmp_path: Path,
) -> None:
    source = open_store(tmp_path / "src.db")
    target = open_store(tmp_path / "dst.db")
    fill(source, tmp_path)
    first = source.card_revisions("alice", "s1")[0]
    target.put_card(
        "alice", "s1", '{"goal": "other"}', revision=0, diff="[]", actor="x", now=first.changed_at
    )
    with pytest.raises(ConflictError, match=r"another state card history.*nothing was written"):
        migrate_store(source, target)
    assert target.user_ids() == [] and target.tasks("alice") == []
    # A run cut short after the first revision: the next one replays the rest.
    target.delete_card("alice", "s1")
    target.put_card(
        "alice",
        "s1",
        first.document,
        revision=0,
        diff=first.diff,
        actor=first.actor,
        now=first.changed_at,
    )
    report = migrate_store(source, target)
    assert [
        (u.workspace.cards, u.workspace.revisions, u.workspace.tasks) for u in report.users
    ] == [
        (1, 2, 1),
        (0, 0, 1),
    ]
    assert "1 state card, 2 tasks" in report.summary()
    for user in ("alice", "bob"):
        same_vault(source, target, user)


def same_profiles(source: Store, target: Store, user: str) -> None:
    """The user's profile documents, each with its time (revisions start again at 1)."""
    documents = [(p.agent_id, p.document, p.updated_at) for p in source.profiles(user)]
    assert documents
    assert [(p.agent_id, p.document, p.updated_at) for p in target.profiles(user)] == documents


@pytest.mark.postgres
def test_sqlite_to_postgres_copies_everything_and_search_finds_the_same(tmp_path: Path) -> None:
    source = open_store(tmp_path / "src.db")
    target = open_store(postgres_database())
    fill(source, tmp_path)
    before = {u: searches(source, tmp_path, u) for u in ("alice", "bob")}
    key = signing_key(source, "openai-agents")

    report = migrate_store(source, target)

    # what an integration signed stays its own in the copy
    assert signing_key(target, "openai-agents") == key
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


def test_a_target_with_another_profile_document_is_refused_untouched(tmp_path: Path) -> None:
    source = open_store(tmp_path / "src.db")
    target = open_store(tmp_path / "dst.db")
    fill(source, tmp_path)
    mine = target.put_profile("bob", None, '{"user": {}}', revision=0, now=datetime.now(UTC))

    with pytest.raises(ConflictError, match=r"another profile document.*nothing was written"):
        migrate_store(source, target)
    assert target.user_ids() == [] and target.profiles("bob") == [mine]
    assert target.profiles("alice") == []
    # The same document there already is no conflict: the run copies the rest.
    target.delete_profile("bob", None)
    bobs = source.get_profile("bob", None)
    assert bobs is not None
    target.put_profile("bob", None, bobs.document, revision=0, now=bobs.updated_at)
    report = migrate_store(source, target)
    assert [u.profiles for u in report.users] == [2, 1]
    for user in ("alice", "bob"):
        same_vault(source, target, user)
    assert target.get_profile("alice", None).revision == 1  # type: ignore[union-attr]


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
        f"{_audit_count(tmp_path / 'src.db')} audit records copied, 2 profile documents, "
        "1 state card, 1 task; verified: counts and checksums match"
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


# -- re-embedding, reveal state, conflicts ----------------------------------------------

NEW_MODEL = HashingEmbedder(dim=64)  # another vector space than the source's hashing-256


def _text_of(home: Path) -> Callable[[MemoryEntry], str]:
    return _vault(open_store("memory://"), home).embed_text


def _same_entries(source: Store, target: Store, user: str) -> None:
    assert vault_checksum(target, user, models=()) == vault_checksum(source, user, models=())
    assert target.reveal_secret(user) == source.reveal_secret(user)
    keys = [(r.at, r.action, r.outcome, r.entry_id) for r in source.audit_log(user)]
    assert [(r.at, r.action, r.outcome, r.entry_id) for r in target.audit_log(user)] == keys
    same_profiles(source, target, user)


def _embedded_with_new_model(target: Store, user: str, home: Path) -> None:
    """Every entry has a vector of the new model, the one that model gives its text."""
    assert target.vector_models(user) == [NEW_MODEL.name]
    entries = {e.id: e for e in target.iter_entries(View(user, all_agents=True))}
    stored = target.load_vectors(user, NEW_MODEL.name)
    assert sorted(stored.ids) == sorted(entries)
    text_of = _text_of(home)
    expected = NEW_MODEL.embed([text_of(entries[i]) for i in stored.ids])
    assert np.allclose(stored.matrix, expected, atol=1e-6)


@pytest.mark.postgres
def test_sqlite_to_postgres_re_embeds_with_the_target_model(tmp_path: Path) -> None:
    source = open_store(tmp_path / "src.db")
    target = open_store(postgres_database())
    fill(source, tmp_path)
    assert source.vector_models("alice") == ["hashing-256"]

    report = migrate_store(source, target, embedder=NEW_MODEL, text_of=_text_of(tmp_path))

    assert report.model == NEW_MODEL.name and report.copied == 16
    assert [u.embedded for u in report.users] == [14, 2]
    assert "16 vectors (16 embedded anew with hashing-64)" in report.summary()
    for user in ("alice", "bob"):
        _same_entries(source, target, user)
        _embedded_with_new_model(target, user, tmp_path)
    # search by meaning runs on the new model's vectors
    config = load_config(environ={}, home=tmp_path, embedding={"background": False})
    v = Vault(store=target, config=config, embedder=NEW_MODEL)
    found = v.explain("coffee Lisbon", user_id="bob", limit=3)
    assert found.hits and found.hits[0].entry.content == "Bob drinks coffee in Lisbon"
    again = migrate_store(source, target, embedder=NEW_MODEL, text_of=_text_of(tmp_path))
    assert again.copied == 0 and all(u.embedded == 0 for u in again.users)
    source.close()
    target.close()


def test_a_copy_with_the_old_vectors_is_re_embedded_by_a_run_with_the_new_model(
    tmp_path: Path,
) -> None:
    source = open_store(tmp_path / "src.db")
    target = open_store(tmp_path / "dst.db")
    fill(source, tmp_path)

    def cut_off(done: int, total: int) -> None:
        if done >= 6:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):  # 6 entries copied with their hashing-256 vectors
        migrate_store(source, target, batch=3, progress=cut_off)

    report = migrate_store(source, target, batch=3, embedder=NEW_MODEL, text_of=_text_of(tmp_path))

    assert report.copied == 10 and sum(u.embedded for u in report.users) == 16
    for user in ("alice", "bob"):
        _same_entries(source, target, user)
        stored = target.load_vectors(user, NEW_MODEL.name)
        assert sorted(stored.ids) == sorted(
            e.id for e in source.iter_entries(View(user, all_agents=True))
        )
        assert target.vector_models(user) == [NEW_MODEL.name]  # the new ones replaced them


def test_a_source_with_the_target_model_copies_its_vectors_and_embeds_the_rest(
    tmp_path: Path,
) -> None:
    source = open_store(tmp_path / "src.db")
    target = open_store(tmp_path / "dst.db")
    fill(source, tmp_path)
    text_of = _text_of(tmp_path)
    entries = list(source.iter_entries(View("bob", all_agents=True)))
    first = entries[0]
    marker = np.zeros(64, dtype=np.float32)
    marker[0] = 1.0  # not what the model would give: proves it was copied, not re-made
    source.put_vectors("bob", NEW_MODEL.name, [VectorItem(first.id, first.updated_at, marker)])

    report = migrate_store(source, target, user_id="bob", embedder=NEW_MODEL, text_of=text_of)

    assert report.users[0].embedded == 1 and report.users[0].vectors == 2
    stored = target.load_vectors("bob", NEW_MODEL.name)
    by_id = dict(zip(stored.ids, stored.matrix, strict=True))
    assert np.array_equal(by_id[first.id], marker)
    assert np.allclose(by_id[entries[1].id], NEW_MODEL.embed([text_of(entries[1])])[0])
    assert target.vector_models("bob") == [NEW_MODEL.name]


def _lock_out(store: Store, home: Path) -> Vault:
    """Wrong answers until alice's reveal locks; returns the vault on ``store``."""
    v = _vault(store, home)
    card = next(e for e in v.list(user_id="alice", limit=50) if e.name == "card")
    for _ in range(5):
        with pytest.raises(AuthorizationError):
            v.authorize_reveal(card.id, user_id="alice", secret="wrong guess")
    with pytest.raises(RevealLockedError):
        v.authorize_reveal(card.id, user_id="alice", secret="correct horse battery")
    return v


@pytest.mark.postgres
@pytest.mark.mariadb
def test_postgres_to_mariadb_moves_wrong_answers_and_the_lock(tmp_path: Path) -> None:
    source = open_store(postgres_database())
    target = open_store(_mariadb_url())
    fill(source, tmp_path)
    _lock_out(source, tmp_path)

    migrate_store(source, target)

    for user in ("alice", "bob"):
        same_vault(source, target, user)
    v = _vault(target, tmp_path)
    card = next(e for e in v.list(user_id="alice", limit=50) if e.name == "card")
    with pytest.raises(RevealLockedError):  # a move does not lift the lock
        v.authorize_reveal(card.id, user_id="alice", secret="correct horse battery")
    v.unlock_reveal(user_id="alice", actor="admin")
    v.authorize_reveal(card.id, user_id="alice", secret="correct horse battery")
    assert CARD in v.reveal(card.id, user_id="alice").content
    # and the source kept its own state: reading it for the copy wrote nothing
    with pytest.raises(RevealLockedError):
        _vault(source, tmp_path).authorize_reveal(
            card.id, user_id="alice", secret="correct horse battery"
        )
    source.close()
    target.close()


def test_a_target_with_the_audit_log_but_not_the_lock_is_refused(tmp_path: Path) -> None:
    source = open_store(tmp_path / "src.db")
    target = open_store(tmp_path / "dst.db")
    fill(source, tmp_path)
    _lock_out(source, tmp_path)
    for record in source.audit_log("alice", limit=1000):  # as a copy by an older memvault
        target.append_audit(record)
    written = len(target.audit_log("alice", limit=1000))

    with pytest.raises(ConflictError, match=r"another reveal state.*nothing was written"):
        migrate_store(source, target)
    assert target.count(View("alice", all_agents=True)) == 0
    assert len(target.audit_log("alice", limit=1000)) == written


def test_the_command_refuses_a_conflict_in_one_line_with_exit_2(tmp_path: Path) -> None:
    source = open_store(tmp_path / "src.db")
    target = open_store(tmp_path / "dst.db")
    fill(source, tmp_path)
    last = list(source.iter_entries(View("bob", all_agents=True)))[-1]
    doc = source.search_docs("bob", [last.id])[last.id]
    target.insert([(last.replace(content="something else entirely"), doc)])
    source.close()
    target.close()

    failed = run(
        tmp_path,
        "migrate-store",
        "--from",
        sqlite_url(tmp_path / "src.db"),
        "--to",
        sqlite_url(tmp_path / "dst.db"),
    )

    assert failed.returncode == 2 and failed.stdout == ""
    (line,) = failed.stderr.strip().splitlines()
    assert f"already holds memory {last.id!r} of user 'bob' with other data" in line
    assert "erase that user there first" in line and "nothing was written" in line
    t = open_store(tmp_path / "dst.db")
    assert t.user_ids() == ["bob"] and t.count(View("alice", all_agents=True)) == 0
    t.close()


def _run_with(home: Path, embedder: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"MEMVAULT_HOME": str(home), "MEMVAULT_EMBEDDER": embedder}
    return invoke(["migrate-store", *args], env=env)


@pytest.mark.postgres
def test_the_command_re_embeds_with_the_configured_local_model(tmp_path: Path) -> None:
    from memvault.embed.bilingual import BilingualEmbedder

    source = open_store(tmp_path / "src.db")
    fill(source, tmp_path)
    url = postgres_database()

    done = _run_with(tmp_path, "local", "--from", sqlite_url(tmp_path / "src.db"), "--to", url)

    assert done.returncode == 0, done.stderr
    local = BilingualEmbedder()  # the default local model
    assert f"16 vectors (16 embedded anew with {local.name})" in done.stdout
    target = open_store(url)
    assert target.vector_models("bob") == [local.name]
    config = load_config(environ={}, home=tmp_path, embedding={"background": False})
    v = Vault(store=target, config=config, embedder=local)
    hits = v.search("where does Bob like his espresso", user_id="bob", limit=1)
    assert [h.entry.content for h in hits] == ["Bob drinks coffee in Lisbon"]
    entry = hits[0].entry
    (stored,) = [
        row for i, row in zip(*_ids_rows(target, "bob", local.name), strict=True) if i == entry.id
    ]
    assert float(stored @ local.embed([v.embed_text(entry)])[0]) > 0.999
    _same_entries(source, target, "bob")
    # --keep-vectors copies them as they are, whatever the configuration says
    kept = postgres_database()
    done = _run_with(
        tmp_path, "local", "--from", sqlite_url(tmp_path / "src.db"), "--to", kept, "--keep-vectors"
    )
    assert done.returncode == 0, done.stderr
    assert "16 vectors, " in done.stdout and "anew" not in done.stdout
    assert open_store(kept).vector_models("bob") == ["hashing-256"]
    source.close()
    target.close()


def _ids_rows(store: Store, user: str, model: str) -> tuple[list[str], np.ndarray]:
    stored = store.load_vectors(user, model)
    return stored.ids, stored.matrix

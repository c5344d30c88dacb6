"""Recorded schema migrations of the PostgreSQL store.

Like the SQLite store's: each migration is registered with ``@migration(version,
name)`` and ``apply_migrations`` runs the missing ones in order, each in its own
transaction together with the ``memvault_migrations`` row that records it, under an
advisory lock, so concurrent openers (several workers starting at once) apply each
step exactly once and a failure leaves the previous version in place.

The tables hold the same columns as SQLite's; text columns compare bytewise
(``COLLATE "C"``) so ids and times sort exactly as they do there. Every table's key
starts with ``user_id``, and every statement of the store filters on it.

Why one file of about 700 lines: as for SQLite, it is the ordered list of every
migration, each beside its version number, appended to and never edited; one file keeps
the order readable top to bottom.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import psycopg
import psycopg.errors

from ..sql.co_mentions import fold_stored
from ..sql.migrations import TABLE_SQL, VERSION_SQL, Registry, failed, record_params, record_sql
from ..values import SearchDoc
from .sql import term_counts

# The keyword index's pending list, in kB (PostgreSQL's default is 4096).
_GIN_PENDING_KB = 256

# The advisory lock every migration step takes (any number no other app uses).
_MIGRATION_LOCK = 7_316_001


_registry: Registry[Callable[[psycopg.Connection[Any]], None]] = Registry()
migration = _registry.migration
MIGRATIONS = _registry.steps


def _run(conn: psycopg.Connection[Any], script: str) -> None:
    """Run a script of statements separated by lines holding just ``;;``."""
    for statement in script.split("\n;;\n"):
        if statement.strip():
            conn.execute(statement.encode())


_T = 'text COLLATE "C"'


@migration(1, "memories table, keyword keys and per-view keyword statistics")
def _memories(conn: psycopg.Connection[Any]) -> None:
    # fts_keys: the entry's distinct index-form tokens plus its owner's scope key, under
    # one GIN index, so a term lookup walks only the caller's posting list. fts_len: its
    # token count (bm25.doc_length). keyword_stats: entries and tokens per (user, agent
    # space, '' = shared), kept by a trigger, so BM25 knows the caller's view size at once.
    _run(
        conn,
        f"""
        CREATE TABLE memories (
            pk bigint GENERATED ALWAYS AS IDENTITY,
            id {_T} NOT NULL,
            user_id {_T} NOT NULL,
            content {_T} NOT NULL,
            agent_id {_T},
            session_id {_T},
            workspace_id {_T},
            name {_T} NOT NULL DEFAULT '',
            description {_T} NOT NULL DEFAULT '',
            kind {_T} NOT NULL,
            mem_class {_T} NOT NULL,
            domain {_T},
            category {_T},
            confidence double precision,
            importance double precision NOT NULL,
            tier {_T} NOT NULL,
            created_at {_T} NOT NULL,
            updated_at {_T} NOT NULL,
            last_accessed_at {_T},
            access_count bigint NOT NULL DEFAULT 0,
            expires_at {_T},
            status {_T},
            sensitivity {_T} NOT NULL,
            metadata {_T} NOT NULL DEFAULT '{{}}',
            source {_T} NOT NULL,
            quarantine {_T},
            approved_at {_T},
            fts_head {_T} NOT NULL DEFAULT '',
            fts_body {_T} NOT NULL DEFAULT '',
            fts_extra {_T} NOT NULL DEFAULT '',
            fts_keys text[] NOT NULL,
            fts_len integer NOT NULL,
            PRIMARY KEY (user_id, id)
        )
        ;;
        CREATE INDEX memories_by_user ON memories (user_id, agent_id, created_at)
        ;;
        CREATE INDEX memories_by_user_time ON memories (user_id, created_at, id)
        ;;
        CREATE INDEX memories_by_pk ON memories (user_id, pk)
        ;;
        CREATE INDEX memories_quarantined ON memories (user_id, created_at)
        WHERE quarantine IS NOT NULL
        ;;
        CREATE INDEX memories_by_session ON memories (user_id, session_id, created_at, id)
        WHERE session_id IS NOT NULL
        ;;
        CREATE INDEX memories_keys ON memories USING gin (fts_keys)
        ;;
        CREATE TABLE keyword_stats (
            user_id {_T} NOT NULL,
            agent {_T} NOT NULL,
            entries bigint NOT NULL,
            tokens bigint NOT NULL,
            PRIMARY KEY (user_id, agent)
        )
        ;;
        CREATE FUNCTION memvault_keyword_stats() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP IN ('UPDATE', 'DELETE') THEN
                UPDATE keyword_stats SET entries = entries - 1, tokens = tokens - OLD.fts_len
                WHERE user_id = OLD.user_id AND agent = coalesce(OLD.agent_id, '');
                DELETE FROM keyword_stats
                WHERE user_id = OLD.user_id AND agent = coalesce(OLD.agent_id, '')
                  AND entries <= 0;
            END IF;
            IF TG_OP IN ('UPDATE', 'INSERT') THEN
                INSERT INTO keyword_stats (user_id, agent, entries, tokens)
                VALUES (NEW.user_id, coalesce(NEW.agent_id, ''), 1, NEW.fts_len)
                ON CONFLICT (user_id, agent) DO UPDATE
                SET entries = keyword_stats.entries + 1,
                    tokens = keyword_stats.tokens + excluded.tokens;
            END IF;
            RETURN NULL;
        END $$
        ;;
        CREATE TRIGGER keyword_stats_insert_delete AFTER INSERT OR DELETE ON memories
        FOR EACH ROW EXECUTE FUNCTION memvault_keyword_stats()
        ;;
        CREATE TRIGGER keyword_stats_update AFTER UPDATE ON memories
        FOR EACH ROW WHEN (OLD.agent_id IS DISTINCT FROM NEW.agent_id
                           OR OLD.fts_len IS DISTINCT FROM NEW.fts_len)
        EXECUTE FUNCTION memvault_keyword_stats()
        """,
    )


@migration(2, "embeddings: one float32 vector per entry, and the vector log")
def _embeddings(conn: psycopg.Connection[Any]) -> None:
    # The log says "this entry's vectors changed", so a process holding vectors in memory
    # re-reads just those. Writers of one user's log rows take a per-user advisory lock
    # before drawing a seq and hold it to commit, so within a user seq order is commit
    # order and a reader that saw seq n never misses a later-committed change below it.
    _run(
        conn,
        f"""
        CREATE TABLE embeddings (
            user_id {_T} NOT NULL,
            entry_id {_T} NOT NULL,
            model {_T} NOT NULL,
            dim integer NOT NULL,
            vector bytea NOT NULL,
            PRIMARY KEY (user_id, entry_id),
            FOREIGN KEY (user_id, entry_id) REFERENCES memories (user_id, id) ON DELETE CASCADE
        )
        ;;
        CREATE INDEX embeddings_by_model ON embeddings (model, user_id)
        ;;
        CREATE TABLE vector_log (
            seq bigint GENERATED ALWAYS AS IDENTITY,
            user_id {_T} NOT NULL,
            entry_id {_T} NOT NULL,
            PRIMARY KEY (user_id, seq)
        )
        ;;
        CREATE INDEX vector_log_by_seq ON vector_log (seq)
        ;;
        CREATE FUNCTION memvault_vector_log() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
            owner text;
            entry text;
        BEGIN
            IF TG_OP = 'DELETE' THEN
                owner := OLD.user_id; entry := OLD.entry_id;
            ELSE
                owner := NEW.user_id; entry := NEW.entry_id;
            END IF;
            PERFORM pg_advisory_xact_lock(hashtextextended('memvault-vectors:' || owner, 0));
            INSERT INTO vector_log (user_id, entry_id) VALUES (owner, entry);
            RETURN NULL;
        END $$
        ;;
        CREATE TRIGGER vector_log_change AFTER INSERT OR UPDATE OR DELETE ON embeddings
        FOR EACH ROW EXECUTE FUNCTION memvault_vector_log()
        ;;
        CREATE FUNCTION memvault_vector_stale() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            DELETE FROM embeddings WHERE user_id = NEW.user_id AND entry_id = NEW.id;
            RETURN NULL;
        END $$
        ;;
        CREATE TRIGGER memories_vector_stale AFTER UPDATE ON memories
        FOR EACH ROW WHEN (OLD.name IS DISTINCT FROM NEW.name
                           OR OLD.content IS DISTINCT FROM NEW.content
                           OR OLD.description IS DISTINCT FROM NEW.description
                           OR OLD.metadata IS DISTINCT FROM NEW.metadata)
        EXECUTE FUNCTION memvault_vector_stale()
        """,
    )


@migration(3, "sealed originals, reveal state and the append-only audit log")
def _sensitive(conn: psycopg.Connection[Any]) -> None:
    _run(
        conn,
        f"""
        CREATE TABLE originals (
            user_id {_T} NOT NULL,
            entry_id {_T} NOT NULL,
            sealed bytea NOT NULL,
            PRIMARY KEY (user_id, entry_id),
            FOREIGN KEY (user_id, entry_id) REFERENCES memories (user_id, id) ON DELETE CASCADE
        )
        ;;
        CREATE TABLE reveal_secrets (
            user_id {_T} PRIMARY KEY,
            salt bytea NOT NULL,
            digest bytea NOT NULL
        )
        ;;
        CREATE TABLE reveal_users (
            user_id {_T} PRIMARY KEY,
            failures integer NOT NULL DEFAULT 0,
            first_failure_at {_T},
            locked_at {_T}
        )
        ;;
        CREATE TABLE reveal_grants (
            user_id {_T} NOT NULL,
            entry_id {_T} NOT NULL,
            granted_until {_T} NOT NULL,
            version {_T} NOT NULL,
            PRIMARY KEY (user_id, entry_id)
        )
        ;;
        CREATE FUNCTION memvault_grant_forget() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            DELETE FROM reveal_grants WHERE user_id = OLD.user_id AND entry_id = OLD.id;
            RETURN NULL;
        END $$
        ;;
        CREATE TRIGGER reveal_grants_forget AFTER DELETE ON memories
        FOR EACH ROW EXECUTE FUNCTION memvault_grant_forget()
        ;;
        CREATE TABLE audit_log (
            seq bigint GENERATED ALWAYS AS IDENTITY,
            at {_T} NOT NULL,
            user_id {_T} NOT NULL,
            entry_id {_T},
            actor {_T} NOT NULL,
            action {_T} NOT NULL,
            outcome {_T} NOT NULL,
            detail {_T} NOT NULL DEFAULT '',
            PRIMARY KEY (user_id, seq)
        )
        ;;
        CREATE TABLE audit_erasing (user_id {_T} PRIMARY KEY)
        ;;
        CREATE FUNCTION memvault_audit_guard() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP = 'DELETE'
               AND EXISTS (SELECT 1 FROM audit_erasing WHERE user_id = OLD.user_id) THEN
                RETURN OLD;
            END IF;
            RAISE EXCEPTION 'the audit log is append-only';
        END $$
        ;;
        CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log
        FOR EACH ROW EXECUTE FUNCTION memvault_audit_guard()
        """,
    )


@migration(4, "a pgvector copy of each vector, where the server has pgvector")
def _pgvector(conn: psycopg.Connection[Any]) -> None:
    # One column for every model and size (``vector`` without a dimension); the HNSW
    # indexes are per dimension, on ``vec::vector(n)`` WHERE dim = n, made when the first
    # vector of that size arrives (vectors.py), so there is one per size for the whole
    # table, never one per user. Without pgvector nothing changes: vectors stay bytes,
    # searched in the application, and `memvault doctor` says so.
    available = conn.execute(
        "SELECT 1 FROM pg_available_extensions WHERE name = 'vector'"
    ).fetchone()
    if available is None:
        return
    installed = conn.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'").fetchone()
    if installed is None:
        conn.execute("SAVEPOINT pgvector")
        try:
            conn.execute("CREATE EXTENSION vector")
        except psycopg.errors.InsufficientPrivilege:
            conn.execute("ROLLBACK TO SAVEPOINT pgvector")
            return  # a superuser may add it later (then see vectors.py: has_vec)
        conn.execute("RELEASE SAVEPOINT pgvector")
    conn.execute("ALTER TABLE embeddings ADD COLUMN vec vector")
    rows = conn.execute("SELECT user_id, entry_id, vector FROM embeddings").fetchall()
    with conn.cursor() as cur:
        cur.executemany(
            "UPDATE embeddings SET vec = %s::vector WHERE user_id = %s AND entry_id = %s",
            [(vector_text(bytes(v)), u, e) for u, e, v in rows],
        )


@migration(5, "set-based triggers: keyword statistics and the vector log once per statement")
def _set_based_triggers(conn: psycopg.Connection[Any]) -> None:
    # The per-row triggers of migrations 1 and 2 cost one upsert of the same statistics
    # row (and one advisory lock and log insert) per entry: a bulk insert of 1,000
    # entries rewrote that row 1,000 times. These fire once per statement, over its
    # transition table, and leave the same rows behind. Updates keep the per-row
    # trigger (it fires only when an entry's agent or length changes).
    _run(
        conn,
        """
        DROP TRIGGER keyword_stats_insert_delete ON memories
        ;;
        CREATE FUNCTION memvault_keyword_stats_added() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            INSERT INTO keyword_stats AS s (user_id, agent, entries, tokens)
            SELECT user_id, coalesce(agent_id, ''), count(*), sum(fts_len)
            FROM added GROUP BY 1, 2 ORDER BY 1, 2
            ON CONFLICT (user_id, agent) DO UPDATE
            SET entries = s.entries + excluded.entries, tokens = s.tokens + excluded.tokens;
            RETURN NULL;
        END $$
        ;;
        CREATE FUNCTION memvault_keyword_stats_removed() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            WITH gone AS (
                SELECT user_id, coalesce(agent_id, '') AS agent, count(*) AS n,
                       sum(fts_len) AS t
                FROM removed GROUP BY 1, 2
            )
            UPDATE keyword_stats s SET entries = s.entries - gone.n, tokens = s.tokens - gone.t
            FROM gone WHERE s.user_id = gone.user_id AND s.agent = gone.agent;
            DELETE FROM keyword_stats s
            USING (SELECT DISTINCT user_id, coalesce(agent_id, '') AS agent FROM removed) gone
            WHERE s.user_id = gone.user_id AND s.agent = gone.agent AND s.entries <= 0;
            RETURN NULL;
        END $$
        ;;
        CREATE TRIGGER keyword_stats_insert AFTER INSERT ON memories
        REFERENCING NEW TABLE AS added
        FOR EACH STATEMENT EXECUTE FUNCTION memvault_keyword_stats_added()
        ;;
        CREATE TRIGGER keyword_stats_delete AFTER DELETE ON memories
        REFERENCING OLD TABLE AS removed
        FOR EACH STATEMENT EXECUTE FUNCTION memvault_keyword_stats_removed()
        ;;
        DROP TRIGGER vector_log_change ON embeddings
        ;;
        CREATE FUNCTION memvault_vector_log_rows() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
            owner text;
        BEGIN
            -- The per-user locks of migration 2, taken in one order (no deadlocks).
            FOR owner IN SELECT DISTINCT user_id FROM changed ORDER BY 1 LOOP
                PERFORM pg_advisory_xact_lock(hashtextextended('memvault-vectors:' || owner, 0));
            END LOOP;
            INSERT INTO vector_log (user_id, entry_id) SELECT user_id, entry_id FROM changed;
            RETURN NULL;
        END $$
        ;;
        CREATE TRIGGER vector_log_insert AFTER INSERT ON embeddings
        REFERENCING NEW TABLE AS changed
        FOR EACH STATEMENT EXECUTE FUNCTION memvault_vector_log_rows()
        ;;
        CREATE TRIGGER vector_log_update AFTER UPDATE ON embeddings
        REFERENCING NEW TABLE AS changed
        FOR EACH STATEMENT EXECUTE FUNCTION memvault_vector_log_rows()
        ;;
        CREATE TRIGGER vector_log_delete AFTER DELETE ON embeddings
        REFERENCING OLD TABLE AS changed
        FOR EACH STATEMENT EXECUTE FUNCTION memvault_vector_log_rows()
        """,
    )


# A user with at least this many vectors of one size has them in the HNSW index
# (vectors.py: EXACT_BELOW, the same number; smaller users are scanned exactly).
INDEXED_FROM = 5_000


@migration(6, "HNSW over the vectors of users with many of them only")
def _hnsw_for_large_users(conn: psycopg.Connection[Any]) -> None:
    # Keeping every vector in the HNSW graph cost each insert a graph walk (a bulk
    # load ran at ~600 vectors/s against ~12,000/s without the index), yet a user with
    # fewer than INDEXED_FROM vectors is searched by an exact scan and never uses it.
    # ``indexed`` marks the rows of users past that size; the per-size HNSW indexes
    # (made again by vectors.py with the next vector) cover those rows alone, and the
    # rows not in them have a small btree index of their own, so a user who grows past
    # the size has the rest marked at once.
    _run(
        conn,
        """
        ALTER TABLE embeddings ADD COLUMN indexed boolean NOT NULL DEFAULT false
        ;;
        CREATE INDEX embeddings_unindexed ON embeddings (user_id, dim) WHERE NOT indexed
        """,
    )
    for (name,) in conn.execute(
        "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() "
        "AND tablename = 'embeddings' AND indexname LIKE 'embeddings\\_hnsw\\_%%'"
    ).fetchall():
        conn.execute(f'DROP INDEX "{name}"'.encode())
    conn.execute(
        "UPDATE embeddings e SET indexed = true FROM (SELECT user_id, dim FROM embeddings "
        "GROUP BY user_id, dim HAVING count(*) >= %s) big "
        "WHERE e.user_id = big.user_id AND e.dim = big.dim",
        (INDEXED_FROM,),
    )


@migration(7, "per-entry term frequencies beside the keyword keys, for BM25 in the server")
def _term_frequencies(conn: psycopg.Connection[Any]) -> None:
    # Three arrays parallel to fts_keys: how often each key occurs in the head, body
    # and extra text. keyword.py ranks a view's matching entries with them in one
    # statement instead of reading every matching entry's text into the application.
    # sql.term_counts builds them for new rows the same way.
    for column in ("fts_tf_head", "fts_tf_body", "fts_tf_extra"):
        conn.execute(
            f"ALTER TABLE memories ADD COLUMN {column} integer[] NOT NULL DEFAULT '{{}}'".encode()
        )
    last = 0
    while True:
        rows = conn.execute(
            "SELECT pk, fts_keys, fts_head, fts_body, fts_extra FROM memories "
            "WHERE pk > %s ORDER BY pk LIMIT 2000",
            (last,),
        ).fetchall()
        if not rows:
            break
        with conn.cursor() as cur:
            cur.executemany(
                "UPDATE memories SET fts_tf_head = %s, fts_tf_body = %s, fts_tf_extra = %s "
                "WHERE pk = %s",
                [
                    (*term_counts(keys, SearchDoc(head, body, extra)), pk)
                    for pk, keys, head, body, extra in rows
                ],
            )
        last = int(rows[-1][0])


@migration(8, "the keyword GIN index with a short pending list")
def _gin_without_pending_list(conn: psycopg.Connection[Any]) -> None:
    # With GIN's fast update, new keys wait in a pending list (4 MB by default) that
    # every search reads through in full until it is merged: after a bulk load of
    # 20,000 entries one term lookup took 8.8 ms instead of 0.26 ms once merged.
    # Without the list each insert merges its keys itself (bulk loads ran 5x slower);
    # a short list is merged in bulk often, so searches read little of it.
    conn.execute(f"ALTER INDEX memories_keys SET (gin_pending_list_limit = {_GIN_PENDING_KB})")
    conn.execute("SELECT gin_clean_pending_list('memories_keys'::regclass)")


@migration(9, "the token ledger: one row per LLM call")
def _llm_usage(conn: psycopg.Connection[Any]) -> None:
    # Keyed by user first, like every user-data table (the sharding rule); the global
    # daily budget reads across users through the time index.
    _run(
        conn,
        f"""
        CREATE TABLE IF NOT EXISTS llm_usage (
            seq bigint GENERATED ALWAYS AS IDENTITY,
            user_id {_T} NOT NULL,
            at {_T} NOT NULL,
            agent_id {_T},
            operation {_T} NOT NULL,
            model {_T} NOT NULL,
            tokens_in bigint NOT NULL,
            tokens_out bigint NOT NULL,
            seconds double precision NOT NULL,
            outcome {_T} NOT NULL,
            PRIMARY KEY (user_id, seq)
        )
        ;;
        CREATE INDEX IF NOT EXISTS llm_usage_by_user ON llm_usage (user_id, at)
        ;;
        CREATE INDEX IF NOT EXISTS llm_usage_by_time ON llm_usage (at)
        """,
    )


@migration(10, "source subject: who an entry is about or from")
def _source_subject(conn: psycopg.Connection[Any]) -> None:
    # Existing rows name nobody (NULL); adding a nullable column rewrites no row.
    conn.execute(f"ALTER TABLE memories ADD COLUMN IF NOT EXISTS source_subject {_T}")


@migration(11, "validity of entries (supersession) and the versions table of their history")
def _history(conn: psycopg.Connection[Any]) -> None:
    # Existing rows are current (NULL valid_to). A version row is the entry as it was
    # before one change; it goes with its entry (cascade), so deleting or erasing an
    # entry leaves no old text of it behind. Its key starts with user_id, like every
    # table of users' data (tests/stores/test_postgres_sharding.py). Re-runnable, like 7 and 8.
    _run(
        conn,
        f"""
        ALTER TABLE memories ADD COLUMN IF NOT EXISTS valid_from {_T},
            ADD COLUMN IF NOT EXISTS valid_to {_T},
            ADD COLUMN IF NOT EXISTS superseded_by {_T},
            ADD COLUMN IF NOT EXISTS supersedes {_T}
        ;;
        CREATE TABLE IF NOT EXISTS memory_versions (
            user_id {_T} NOT NULL,
            entry_id {_T} NOT NULL,
            seq integer NOT NULL,
            at {_T} NOT NULL,
            actor {_T} NOT NULL,
            action {_T} NOT NULL,
            changed {_T} NOT NULL,
            snapshot {_T} NOT NULL,
            PRIMARY KEY (user_id, entry_id, seq),
            FOREIGN KEY (user_id, entry_id) REFERENCES memories (user_id, id) ON DELETE CASCADE
        )
        """,
    )


@migration(12, "the entity graph: entities, their names, entry links and relations")
def _entity_graph(conn: psycopg.Connection[Any]) -> None:
    # Links and relations go with their entry (ON DELETE CASCADE); what a view sees of
    # them is decided by joining the entry (stores.sql.graph). Keys start with user_id.
    # IF NOT EXISTS: a step re-run over its own tables (a rolled-back record) finishes.
    _run(
        conn,
        f"""
        CREATE TABLE IF NOT EXISTS graph_entities (
            user_id {_T} NOT NULL,
            entity_id {_T} NOT NULL,
            name {_T} NOT NULL,
            type {_T} NOT NULL,
            PRIMARY KEY (user_id, entity_id)
        )
        ;;
        CREATE TABLE IF NOT EXISTS graph_names (
            user_id {_T} NOT NULL,
            name_key {_T} NOT NULL,
            entity_id {_T} NOT NULL,
            PRIMARY KEY (user_id, name_key)
        )
        ;;
        CREATE INDEX IF NOT EXISTS graph_names_by_entity ON graph_names (user_id, entity_id)
        ;;
        CREATE TABLE IF NOT EXISTS graph_links (
            user_id {_T} NOT NULL,
            entry_id {_T} NOT NULL,
            entity_id {_T} NOT NULL,
            PRIMARY KEY (user_id, entry_id, entity_id),
            FOREIGN KEY (user_id, entry_id) REFERENCES memories (user_id, id) ON DELETE CASCADE
        )
        ;;
        CREATE INDEX IF NOT EXISTS graph_links_by_entity ON graph_links (user_id, entity_id)
        ;;
        CREATE TABLE IF NOT EXISTS graph_relations (
            user_id {_T} NOT NULL,
            entry_id {_T} NOT NULL,
            source_id {_T} NOT NULL,
            target_id {_T} NOT NULL,
            rel_type {_T} NOT NULL,
            PRIMARY KEY (user_id, entry_id, source_id, target_id, rel_type),
            FOREIGN KEY (user_id, entry_id) REFERENCES memories (user_id, id) ON DELETE CASCADE
        )
        ;;
        CREATE INDEX IF NOT EXISTS graph_relations_by_source ON graph_relations (user_id, source_id)
        ;;
        CREATE INDEX IF NOT EXISTS graph_relations_by_target ON graph_relations (user_id, target_id)
        """,
    )


@migration(13, "profile documents: one JSON document per user and agent, with its revision")
def _profiles(conn: psycopg.Connection[Any]) -> None:
    # agent_key '' is the user's own profile (stores.sql.profiles). The document is text,
    # not jsonb, so it reads back exactly as it was given (jsonb would reorder its keys
    # and respace it). The key starts with user_id, like every table of users' data.
    _run(
        conn,
        f"""
        CREATE TABLE IF NOT EXISTS profiles (
            user_id {_T} NOT NULL,
            agent_key {_T} NOT NULL,
            document text NOT NULL,
            revision integer NOT NULL,
            updated_at {_T} NOT NULL,
            PRIMARY KEY (user_id, agent_key)
        )
        """,
    )


@migration(14, "the workspace: state cards and their revisions, tasks, sessions' workspaces")
def _workspace(conn: psycopg.Connection[Any]) -> None:
    # Documents and diffs are text, not jsonb, so they read back exactly as saved
    # (stores.sql.workspace). Every key starts with user_id.
    _run(
        conn,
        f"""
        CREATE TABLE IF NOT EXISTS workspace_sessions (
            user_id {_T} NOT NULL,
            session_id {_T} NOT NULL,
            workspace_id {_T} NOT NULL,
            linked_at {_T} NOT NULL,
            PRIMARY KEY (user_id, session_id)
        )
        ;;
        CREATE TABLE IF NOT EXISTS cards (
            user_id {_T} NOT NULL,
            session_id {_T} NOT NULL,
            document text NOT NULL,
            revision integer NOT NULL,
            actor text NOT NULL,
            updated_at {_T} NOT NULL,
            PRIMARY KEY (user_id, session_id)
        )
        ;;
        CREATE TABLE IF NOT EXISTS card_revisions (
            user_id {_T} NOT NULL,
            session_id {_T} NOT NULL,
            revision integer NOT NULL,
            document text NOT NULL,
            diff text NOT NULL,
            actor text NOT NULL,
            changed_at {_T} NOT NULL,
            PRIMARY KEY (user_id, session_id, revision)
        )
        ;;
        CREATE TABLE IF NOT EXISTS tasks (
            user_id {_T} NOT NULL,
            task_id {_T} NOT NULL,
            workspace_id {_T} NOT NULL,
            session_id {_T} NOT NULL,
            title text NOT NULL,
            notes text NOT NULL,
            status {_T} NOT NULL,
            revision integer NOT NULL,
            created_at {_T} NOT NULL,
            updated_at {_T} NOT NULL,
            PRIMARY KEY (user_id, task_id)
        )
        ;;
        CREATE INDEX IF NOT EXISTS tasks_by_workspace ON tasks (user_id, workspace_id)
        ;;
        CREATE INDEX IF NOT EXISTS tasks_by_session ON tasks (user_id, session_id)
        """,
    )


def vector_text(raw: bytes) -> str:
    """float32 bytes as pgvector's text form (each value round-trips exactly)."""
    return "[" + ",".join(map(repr, np.frombuffer(raw, dtype=np.float32).tolist())) + "]"


@migration(15, "vault settings: what the whole vault records, such as its embedding model")
def _settings(conn: psycopg.Connection[Any]) -> None:
    _run(
        conn,
        f"""
        CREATE TABLE IF NOT EXISTS vault_settings (
            name {_T} PRIMARY KEY,
            value text NOT NULL
        )
        """,
    )


@migration(16, "co-mentions as places on the entry links, not relation rows")
def _co_mention_places(conn: psycopg.Connection[Any]) -> None:
    # stores.graph_values, co-mentions as places: the stored mentioned_with rows become
    # two numbers per link.
    conn.execute("ALTER TABLE graph_links ADD COLUMN IF NOT EXISTS co_first smallint")
    conn.execute("ALTER TABLE graph_links ADD COLUMN IF NOT EXISTS co_last smallint")

    def many(sql: str, rows: list[tuple[Any, ...]]) -> None:
        with conn.cursor() as cur:
            cur.executemany(sql, rows)

    fold_stored(lambda sql, args: conn.execute(sql, args).fetchall(), many, "%s")


LATEST_VERSION = _registry.latest


def current_version(conn: psycopg.Connection[Any]) -> int:
    row = conn.execute(VERSION_SQL).fetchone()
    return int(row[0]) if row else 0


def apply_migrations(conn: psycopg.Connection[Any], target: int | None = None) -> list[int]:
    """Bring the schema up to ``target`` (default: latest); returns the versions applied.

    ``conn`` is in autocommit mode; each step is one transaction of its own.
    """
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
        conn.execute(TABLE_SQL)
    _registry.check(current_version(conn))
    applied: list[int] = []
    for step in _registry.up_to(target):
        try:
            with conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
                # Re-checked under the lock: another opener may have just applied it.
                if current_version(conn) >= step.version:
                    continue
                step.apply(conn)
                conn.execute(record_sql("%s"), record_params(step))
        except psycopg.OperationalError:
            raise  # the server went away: the caller reports it as unavailable
        except psycopg.Error as exc:
            said = exc.diag.message_primary or type(exc).__name__
            raise failed(step, said, "the database was left at the previous version") from None
        applied.append(step.version)
    return applied

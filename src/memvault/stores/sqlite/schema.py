"""Recorded schema migrations of the SQLite store.

Each migration is a plain function registered with ``@migration(version, name)``.
``apply_migrations`` runs the missing ones in order, each inside its own
``BEGIN IMMEDIATE`` transaction together with the row that records it, so a
crash or a concurrent opener can never leave a half-applied schema.

Why one file of about 660 lines: it is the ordered list of every migration since the
first, each a short function beside its version number; the order is the file's order,
and a migration is never edited once released, so the file only grows at the end.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

from ...text import cjk_runs, has_cjk, tokenize
from ..rows import format_time
from ..sql.co_mentions import fold_stored
from ..sql.migrations import TABLE_SQL, VERSION_SQL, Registry, failed, record_params, record_sql

_registry: Registry[Callable[[sqlite3.Connection], None]] = Registry()
migration = _registry.migration
MIGRATIONS = _registry.steps


def _run(conn: sqlite3.Connection, script: str) -> None:
    # executescript() would COMMIT behind our back, so run statements one by one,
    # splitting where sqlite3.complete_statement says a statement ends.
    statement = ""
    for line in script.splitlines(keepends=True):
        statement += line
        if sqlite3.complete_statement(statement):
            conn.execute(statement)
            statement = ""
    if statement.strip():
        conn.execute(statement)


@migration(1, "memories table, full-text index and sync triggers")
def _create_memories(conn: sqlite3.Connection) -> None:
    _run(
        conn,
        """
        CREATE TABLE memories (
            pk INTEGER PRIMARY KEY,
            id TEXT NOT NULL,
            user_id TEXT NOT NULL,
            agent_id TEXT,
            session_id TEXT,
            workspace_id TEXT,
            name TEXT NOT NULL DEFAULT '',
            content TEXT NOT NULL,
            description TEXT NOT NULL DEFAULT '',
            kind TEXT NOT NULL,
            mem_class TEXT NOT NULL,
            domain TEXT,
            category TEXT,
            confidence REAL,
            importance REAL NOT NULL,
            tier TEXT NOT NULL,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            last_accessed_at TEXT,
            access_count INTEGER NOT NULL DEFAULT 0,
            expires_at TEXT,
            status TEXT,
            sensitivity TEXT NOT NULL,
            metadata TEXT NOT NULL DEFAULT '{}',
            source TEXT NOT NULL,
            fts_scope TEXT NOT NULL,
            fts_head TEXT NOT NULL DEFAULT '',
            fts_body TEXT NOT NULL DEFAULT '',
            fts_extra TEXT NOT NULL DEFAULT '',
            UNIQUE (user_id, id)
        );
        CREATE INDEX memories_by_user ON memories (user_id, agent_id, created_at);
        CREATE INDEX memories_by_user_time ON memories (user_id, created_at, id);
        CREATE VIRTUAL TABLE memories_fts USING fts5 (
            scope, head, body, extra,
            content='memories', content_rowid='pk',
            tokenize='unicode61 remove_diacritics 2'
        );
        CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
            INSERT INTO memories_fts (rowid, scope, head, body, extra)
            VALUES (new.pk, new.fts_scope, new.fts_head, new.fts_body, new.fts_extra);
        END;
        CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
            INSERT INTO memories_fts (memories_fts, rowid, scope, head, body, extra)
            VALUES ('delete', old.pk, old.fts_scope, old.fts_head, old.fts_body, old.fts_extra);
        END;
        CREATE TRIGGER memories_fts_update
        AFTER UPDATE OF fts_scope, fts_head, fts_body, fts_extra ON memories BEGIN
            INSERT INTO memories_fts (memories_fts, rowid, scope, head, body, extra)
            VALUES ('delete', old.pk, old.fts_scope, old.fts_head, old.fts_body, old.fts_extra);
            INSERT INTO memories_fts (rowid, scope, head, body, extra)
            VALUES (new.pk, new.fts_scope, new.fts_head, new.fts_body, new.fts_extra);
        END;
        """,
    )


@migration(2, "embeddings table: one float32 vector per entry and model")
def _create_embeddings(conn: sqlite3.Connection) -> None:
    _run(
        conn,
        """
        CREATE TABLE embeddings (
            memory_pk INTEGER PRIMARY KEY REFERENCES memories (pk) ON DELETE CASCADE,
            model TEXT NOT NULL,
            dim INTEGER NOT NULL,
            vector BLOB NOT NULL
        );
        CREATE INDEX embeddings_by_model ON embeddings (model);
        """,
    )


@migration(3, "term statistics view of the full-text index")
def _create_vocab(conn: sqlite3.Connection) -> None:
    # Document frequency per term, read by keyword search to skip very common terms.
    conn.execute("CREATE VIRTUAL TABLE memories_vocab USING fts5vocab (memories_fts, 'row')")


@migration(4, "drop an entry's vector when its text changes")
def _drop_stale_vectors(conn: sqlite3.Connection) -> None:
    _run(
        conn,
        """
        CREATE TRIGGER memories_vector_stale
        AFTER UPDATE OF name, content, description, metadata ON memories BEGIN
            DELETE FROM embeddings WHERE memory_pk = new.pk;
        END;
        """,
    )


@migration(5, "drop an entry's vector only when its embedded text really changed")
def _drop_stale_vectors_when_changed(conn: sqlite3.Connection) -> None:
    # The store's UPDATE writes every column, so "UPDATE OF" alone fired on tier or
    # importance changes too and lost vectors that Vault.update never re-embeds.
    _run(
        conn,
        """
        DROP TRIGGER memories_vector_stale;
        CREATE TRIGGER memories_vector_stale
        AFTER UPDATE OF name, content, description, metadata ON memories
        WHEN old.name IS NOT new.name OR old.content IS NOT new.content
          OR old.description IS NOT new.description OR old.metadata IS NOT new.metadata
        BEGIN
            DELETE FROM embeddings WHERE memory_pk = new.pk;
        END;
        """,
    )


@migration(6, "encrypted originals, reveal state and the append-only audit log")
def _sensitive_data(conn: sqlite3.Connection) -> None:
    _run(
        conn,
        """
        CREATE TABLE originals (
            memory_pk INTEGER PRIMARY KEY REFERENCES memories (pk) ON DELETE CASCADE,
            sealed BLOB NOT NULL
        );
        CREATE TABLE reveal_state (
            user_id TEXT NOT NULL,
            entry_id TEXT NOT NULL,
            failures INTEGER NOT NULL DEFAULT 0,
            locked INTEGER NOT NULL DEFAULT 0,
            granted_until TEXT,
            PRIMARY KEY (user_id, entry_id)
        );
        CREATE TABLE reveal_secrets (
            user_id TEXT PRIMARY KEY,
            salt BLOB NOT NULL,
            digest BLOB NOT NULL
        );
        CREATE TABLE audit_log (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            at TEXT NOT NULL,
            user_id TEXT NOT NULL,
            entry_id TEXT,
            actor TEXT NOT NULL,
            action TEXT NOT NULL,
            outcome TEXT NOT NULL,
            detail TEXT NOT NULL DEFAULT ''
        );
        CREATE INDEX audit_by_user ON audit_log (user_id, seq);
        CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log BEGIN
            SELECT RAISE(ABORT, 'the audit log is append-only');
        END;
        CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log BEGIN
            SELECT RAISE(ABORT, 'the audit log is append-only');
        END;
        """,
    )


@migration(7, "a log of vector changes, so other processes catch up without reloading")
def _vector_log(conn: sqlite3.Connection) -> None:
    # Each row says "this entry's vectors changed"; a process holding vectors in memory
    # re-reads just those entries. AUTOINCREMENT: a pruned seq is never handed out again.
    _run(
        conn,
        """
        CREATE TABLE vector_log (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            user_id TEXT NOT NULL,
            entry_id TEXT NOT NULL
        );
        CREATE TRIGGER vector_log_put AFTER INSERT ON embeddings BEGIN
            INSERT INTO vector_log (user_id, entry_id)
            SELECT user_id, id FROM memories WHERE pk = new.memory_pk;
        END;
        CREATE TRIGGER vector_log_drop AFTER DELETE ON embeddings BEGIN
            INSERT INTO vector_log (user_id, entry_id)
            SELECT user_id, id FROM memories WHERE pk = old.memory_pk;
        END;
        CREATE TRIGGER vector_log_forget BEFORE DELETE ON memories
        WHEN EXISTS (SELECT 1 FROM embeddings WHERE memory_pk = old.pk) BEGIN
            INSERT INTO vector_log (user_id, entry_id) VALUES (old.user_id, old.id);
        END;
        """,
    )


@migration(8, "per-user reveal lock, grants bound to an entry version, audit erasure")
def _reveal_per_user(conn: sqlite3.Connection) -> None:
    # Wrong answers used to count per entry, so guessing across entries was unlimited.
    # A user with a locked entry stays locked (from now); grants (30 minutes at most)
    # are dropped rather than carried over without the entry version they were for.
    _run(
        conn,
        """
        CREATE TABLE reveal_users (
            user_id TEXT PRIMARY KEY,
            failures INTEGER NOT NULL DEFAULT 0,
            first_failure_at TEXT,
            locked_at TEXT
        );
        CREATE TABLE reveal_grants (
            user_id TEXT NOT NULL,
            entry_id TEXT NOT NULL,
            granted_until TEXT NOT NULL,
            version TEXT NOT NULL,
            PRIMARY KEY (user_id, entry_id)
        );
        CREATE TRIGGER reveal_grants_forget AFTER DELETE ON memories BEGIN
            DELETE FROM reveal_grants WHERE user_id = old.user_id AND entry_id = old.id;
        END;
        CREATE TABLE audit_erasing (user_id TEXT PRIMARY KEY);
        DROP TRIGGER audit_log_no_delete;
        CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
        WHEN old.user_id NOT IN (SELECT user_id FROM audit_erasing) BEGIN
            SELECT RAISE(ABORT, 'the audit log is append-only');
        END;
        """,
    )
    conn.execute(
        "INSERT INTO reveal_users (user_id, failures, locked_at) "
        "SELECT user_id, max(failures), ? FROM reveal_state WHERE locked GROUP BY user_id",
        (format_time(datetime.now(UTC)),),
    )
    conn.execute("DROP TABLE reveal_state")


@migration(9, "quarantine: entries held for review, and when a person approved one")
def _quarantine(conn: sqlite3.Connection) -> None:
    # Existing rows are clear (NULL). The partial index serves the review queue, which
    # lists only the few held entries of a user.
    _run(
        conn,
        """
        ALTER TABLE memories ADD COLUMN quarantine TEXT;
        ALTER TABLE memories ADD COLUMN approved_at TEXT;
        CREATE INDEX memories_quarantined ON memories (user_id, created_at)
        WHERE quarantine IS NOT NULL;
        """,
    )


# An entry's token count in its three full-text columns, as bm25.doc_length counts them.
_TOKENS = "(length({c}) - length(replace({c}, ' ', '')) + ({c} <> ''))"
_LENGTH = " + ".join(
    _TOKENS.format(c=f"{{row}}.{c}") for c in ("fts_head", "fts_body", "fts_extra")
)


@migration(10, "keyword statistics per user and agent, for BM25 within the caller's view")
def _keyword_stats(conn: sqlite3.Connection) -> None:
    # keyword_docs: each entry's owner, agent space ('' = shared) and length, in rows
    # narrow enough to look up fast for every candidate of a search. keyword_stats:
    # entries and tokens per (user, agent space), so a search knows its view's size and
    # average length without counting. memories_inst: where each term occurs (document,
    # column), from which a search takes term frequencies. Triggers keep the two tables.
    new, old = _LENGTH.format(row="new"), _LENGTH.format(row="old")
    add = f"""
            INSERT INTO keyword_docs (pk, user_id, agent, len)
            VALUES (new.pk, new.user_id, coalesce(new.agent_id, ''), {new});
            INSERT INTO keyword_stats (user_id, agent, entries, tokens)
            VALUES (new.user_id, coalesce(new.agent_id, ''), 1, {new})
            ON CONFLICT (user_id, agent) DO UPDATE
            SET entries = entries + 1, tokens = tokens + excluded.tokens;"""
    drop = f"""
            DELETE FROM keyword_docs WHERE pk = old.pk;
            UPDATE keyword_stats SET entries = entries - 1, tokens = tokens - ({old})
            WHERE user_id = old.user_id AND agent = coalesce(old.agent_id, '');
            DELETE FROM keyword_stats
            WHERE user_id = old.user_id AND agent = coalesce(old.agent_id, '') AND entries <= 0;"""
    _run(
        conn,
        f"""
        CREATE TABLE keyword_docs (
            pk INTEGER PRIMARY KEY,
            user_id TEXT NOT NULL,
            agent TEXT NOT NULL,
            len INTEGER NOT NULL
        );
        INSERT INTO keyword_docs (pk, user_id, agent, len)
        SELECT pk, user_id, coalesce(agent_id, ''), {_LENGTH.format(row="memories")}
        FROM memories;
        CREATE TABLE keyword_stats (
            user_id TEXT NOT NULL,
            agent TEXT NOT NULL,
            entries INTEGER NOT NULL,
            tokens INTEGER NOT NULL,
            PRIMARY KEY (user_id, agent)
        ) WITHOUT ROWID;
        INSERT INTO keyword_stats (user_id, agent, entries, tokens)
        SELECT user_id, agent, count(*), sum(len) FROM keyword_docs GROUP BY user_id, agent;
        CREATE TRIGGER keyword_stats_insert AFTER INSERT ON memories BEGIN{add}
        END;
        CREATE TRIGGER keyword_stats_delete AFTER DELETE ON memories BEGIN{drop}
        END;
        CREATE TRIGGER keyword_stats_update
        AFTER UPDATE OF user_id, agent_id, fts_head, fts_body, fts_extra ON memories
        WHEN old.user_id IS NOT new.user_id OR old.agent_id IS NOT new.agent_id
          OR old.fts_head IS NOT new.fts_head OR old.fts_body IS NOT new.fts_body
          OR old.fts_extra IS NOT new.fts_extra
        BEGIN{drop}{add}
        END;
        CREATE VIRTUAL TABLE memories_inst USING fts5vocab (memories_fts, 'instance');
        """,
    )


def _texts(value: Any) -> Iterator[str]:
    """The strings a metadata value holds, as the engine indexes them (numbers too)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, int | float) and not isinstance(value, bool):
        yield str(value)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _texts(v)
    elif isinstance(value, list):
        for v in value:
            yield from _texts(v)


def _with_bigrams(column: str, sources: Sequence[str]) -> str:
    """A full-text column written before CJK bigrams, as it is written with them.

    A column holds the tokens of some of the entry's texts, one after another; which
    ones depended on the configuration of the time, so each stretch is recognised by
    its tokens: where the old tokens of one of ``sources`` begin, they become that
    text's tokens now (the longest text first); failing that, the old tokens of one of
    their CJK runs become the run's tokens now; any other token stays. A text or run
    that gave no token at all (stop words only) cannot be found, and stays without.
    """
    tokens = column.split()
    if not tokens:
        return column
    pieces = [*sources, *(run for text in sources for run in cjk_runs(text))]
    found: dict[str, list[tuple[list[str], list[str]]]] = {}
    for text in dict.fromkeys(pieces):
        old = tokenize(text, bigrams=False)
        new = tokenize(text)
        if old and new != old:
            found.setdefault(old[0], []).append((old, new))
    for choices in found.values():
        choices.sort(key=lambda pair: -len(pair[0]))
    out: list[str] = []
    i = 0
    while i < len(tokens):
        for old, new in found.get(tokens[i], ()):
            if tokens[i : i + len(old)] == old:
                out += new
                i += len(old)
                break
        else:
            out.append(tokens[i])
            i += 1
    return " ".join(out)


@migration(11, "CJK character bigrams in the keyword documents")
def _cjk_bigrams(conn: sqlite3.Connection) -> None:
    # Entries indexed before held jieba's words only, so a query cut differently from
    # the document missed it ("看板" in "销售看板"). Their tokens are rebuilt from the
    # stored texts (the same redacted texts they were made from); the triggers of
    # migrations 1 and 10 bring the full-text index and keyword statistics along.
    todo = [
        pk
        for pk, head, body, extra in conn.execute(
            "SELECT pk, fts_head, fts_body, fts_extra FROM memories"
        )
        if has_cjk(head) or has_cjk(body) or has_cjk(extra)
    ]
    for start in range(0, len(todo), 500):
        chunk = todo[start : start + 500]
        marks = ", ".join("?" for _ in chunk)
        rows = conn.execute(
            "SELECT pk, name, description, content, category, metadata, fts_head, fts_body, "
            f"fts_extra FROM memories WHERE pk IN ({marks})",
            chunk,
        ).fetchall()
        for pk, name, description, content, category, metadata, *columns in rows:
            sources = [name, description, content, category or "", *_texts(json.loads(metadata))]
            sources = [text for text in sources if text]
            new = [_with_bigrams(column, sources) for column in columns]
            if new != columns:
                conn.execute(
                    "UPDATE memories SET fts_head = ?, fts_body = ?, fts_extra = ? WHERE pk = ?",
                    (*new, pk),
                )


@migration(12, "an index of each user's entries by session, for conversation-aware indexing")
def _sessions(conn: sqlite3.Connection) -> None:
    # Every write of a turn reads its session's turns (retrieval.conversation); without
    # this it would walk all of the user's entries.
    conn.execute(
        "CREATE INDEX memories_by_session ON memories (user_id, session_id, created_at, id) "
        "WHERE session_id IS NOT NULL"
    )


@migration(13, "the token ledger: one row per LLM call")
def _llm_usage(conn: sqlite3.Connection) -> None:
    _run(
        conn,
        """
        CREATE TABLE IF NOT EXISTS llm_usage (
            seq INTEGER PRIMARY KEY,
            user_id TEXT NOT NULL,
            at TEXT NOT NULL,
            agent_id TEXT,
            operation TEXT NOT NULL,
            model TEXT NOT NULL,
            tokens_in INTEGER NOT NULL,
            tokens_out INTEGER NOT NULL,
            seconds REAL NOT NULL,
            outcome TEXT NOT NULL
        );
        CREATE INDEX IF NOT EXISTS llm_usage_by_user ON llm_usage (user_id, at);
        CREATE INDEX IF NOT EXISTS llm_usage_by_time ON llm_usage (at);
        """,
    )


@migration(14, "source subject: who an entry is about or from")
def _source_subject(conn: sqlite3.Connection) -> None:
    # Existing rows name nobody (NULL): a subject is only ever what a write said.
    columns = {row[1] for row in conn.execute("PRAGMA table_info(memories)")}
    if "source_subject" not in columns:
        conn.execute("ALTER TABLE memories ADD COLUMN source_subject TEXT")


@migration(15, "validity of entries (supersession) and the versions table of their history")
def _history(conn: sqlite3.Connection) -> None:
    # Existing rows are current (NULL valid_to). A version row is the entry as it was
    # before one change; it goes with its entry (cascade), so deleting or erasing an
    # entry leaves no old text of it behind.
    _run(
        conn,
        """
        ALTER TABLE memories ADD COLUMN valid_from TEXT;
        ALTER TABLE memories ADD COLUMN valid_to TEXT;
        ALTER TABLE memories ADD COLUMN superseded_by TEXT;
        ALTER TABLE memories ADD COLUMN supersedes TEXT;
        CREATE TABLE memory_versions (
            user_id TEXT NOT NULL,
            entry_id TEXT NOT NULL,
            seq INTEGER NOT NULL,
            at TEXT NOT NULL,
            actor TEXT NOT NULL,
            action TEXT NOT NULL,
            changed TEXT NOT NULL,
            snapshot TEXT NOT NULL,
            PRIMARY KEY (user_id, entry_id, seq),
            FOREIGN KEY (user_id, entry_id) REFERENCES memories (user_id, id) ON DELETE CASCADE
        );
        """,
    )


@migration(16, "the entity graph: entities, their names, entry links and relations")
def _entity_graph(conn: sqlite3.Connection) -> None:
    # Links and relations go with their entry (ON DELETE CASCADE); what a view sees of
    # them is decided by joining the entry (stores.sql.graph).
    _run(
        conn,
        """
        CREATE TABLE graph_entities (
            user_id TEXT NOT NULL,
            entity_id TEXT NOT NULL,
            name TEXT NOT NULL,
            type TEXT NOT NULL,
            PRIMARY KEY (user_id, entity_id)
        );
        CREATE TABLE graph_names (
            user_id TEXT NOT NULL,
            name_key TEXT NOT NULL,
            entity_id TEXT NOT NULL,
            PRIMARY KEY (user_id, name_key)
        );
        CREATE INDEX graph_names_by_entity ON graph_names (user_id, entity_id);
        CREATE TABLE graph_links (
            user_id TEXT NOT NULL,
            entry_id TEXT NOT NULL,
            entity_id TEXT NOT NULL,
            PRIMARY KEY (user_id, entry_id, entity_id),
            FOREIGN KEY (user_id, entry_id) REFERENCES memories (user_id, id) ON DELETE CASCADE
        );
        CREATE INDEX graph_links_by_entity ON graph_links (user_id, entity_id);
        CREATE TABLE graph_relations (
            user_id TEXT NOT NULL,
            entry_id TEXT NOT NULL,
            source_id TEXT NOT NULL,
            target_id TEXT NOT NULL,
            rel_type TEXT NOT NULL,
            PRIMARY KEY (user_id, entry_id, source_id, target_id, rel_type),
            FOREIGN KEY (user_id, entry_id) REFERENCES memories (user_id, id) ON DELETE CASCADE
        );
        CREATE INDEX graph_relations_by_source ON graph_relations (user_id, source_id);
        CREATE INDEX graph_relations_by_target ON graph_relations (user_id, target_id);
        """,
    )


@migration(17, "profile documents: one JSON document per user and agent, with its revision")
def _profiles(conn: sqlite3.Connection) -> None:
    # agent_key '' is the user's own profile (stores.sql.profiles); the document is kept
    # as the text it was given. Re-runnable, like every step since the token ledger.
    _run(
        conn,
        """
        CREATE TABLE IF NOT EXISTS profiles (
            user_id TEXT NOT NULL,
            agent_key TEXT NOT NULL,
            document TEXT NOT NULL,
            revision INTEGER NOT NULL,
            updated_at TEXT NOT NULL,
            PRIMARY KEY (user_id, agent_key)
        );
        """,
    )


@migration(18, "the workspace: state cards and their revisions, tasks, sessions' workspaces")
def _workspace(conn: sqlite3.Connection) -> None:
    # The documents and diffs are JSON text the workspace package reads (stores.sql.
    # workspace); times are fixed-width UTC text. Re-runnable, like the step before.
    _run(
        conn,
        """
        CREATE TABLE IF NOT EXISTS workspace_sessions (
            user_id TEXT NOT NULL,
            session_id TEXT NOT NULL,
            workspace_id TEXT NOT NULL,
            linked_at TEXT NOT NULL,
            PRIMARY KEY (user_id, session_id)
        );
        CREATE TABLE IF NOT EXISTS cards (
            user_id TEXT NOT NULL,
            session_id TEXT NOT NULL,
            document TEXT NOT NULL,
            revision INTEGER NOT NULL,
            actor TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            PRIMARY KEY (user_id, session_id)
        );
        CREATE TABLE IF NOT EXISTS card_revisions (
            user_id TEXT NOT NULL,
            session_id TEXT NOT NULL,
            revision INTEGER NOT NULL,
            document TEXT NOT NULL,
            diff TEXT NOT NULL,
            actor TEXT NOT NULL,
            changed_at TEXT NOT NULL,
            PRIMARY KEY (user_id, session_id, revision)
        );
        CREATE TABLE IF NOT EXISTS tasks (
            user_id TEXT NOT NULL,
            task_id TEXT NOT NULL,
            workspace_id TEXT NOT NULL,
            session_id TEXT NOT NULL,
            title TEXT NOT NULL,
            notes TEXT NOT NULL,
            status TEXT NOT NULL,
            revision INTEGER NOT NULL,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            PRIMARY KEY (user_id, task_id)
        );
        CREATE INDEX IF NOT EXISTS tasks_by_workspace ON tasks (user_id, workspace_id);
        CREATE INDEX IF NOT EXISTS tasks_by_session ON tasks (user_id, session_id);
        """,
    )


@migration(19, "vault settings: what the whole vault records, such as its embedding model")
def _settings(conn: sqlite3.Connection) -> None:
    _run(
        conn,
        """
        CREATE TABLE IF NOT EXISTS vault_settings (
            name TEXT PRIMARY KEY,
            value TEXT NOT NULL
        );
        """,
    )


@migration(20, "co-mentions as places on the entry links, not relation rows")
def _co_mention_places(conn: sqlite3.Connection) -> None:
    # stores.graph_values, co-mentions as places: the stored mentioned_with rows become
    # two numbers per link.
    # Re-runnable, like the steps before: a column is added only when missing, and an
    # entry whose links have places is folded already.
    have = {r[1] for r in conn.execute("PRAGMA table_info(graph_links)")}
    for column in ("co_first", "co_last"):
        if column not in have:
            conn.execute(f"ALTER TABLE graph_links ADD COLUMN {column} INTEGER")
    fold_stored(
        lambda sql, args: conn.execute(sql, args).fetchall(),
        conn.executemany,
        "?",
    )


LATEST_VERSION = _registry.latest


def current_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute(VERSION_SQL).fetchone()[0])


def apply_migrations(conn: sqlite3.Connection, target: int | None = None) -> list[int]:
    """Bring the schema up to ``target`` (default: latest); returns the versions applied.

    ``conn`` must be in autocommit mode (``isolation_level=None``).
    """
    conn.execute(TABLE_SQL)
    _registry.check(current_version(conn))
    applied: list[int] = []
    for step in _registry.up_to(target):
        conn.execute("BEGIN IMMEDIATE")
        try:
            # Re-check inside the write lock: another process may have just applied it.
            if current_version(conn) >= step.version:
                conn.execute("COMMIT")
                continue
            step.apply(conn)
            conn.execute(record_sql("?"), record_params(step))
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            conn.execute("ROLLBACK")
            raise failed(step, str(exc), "the database was left at the previous version") from exc
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        applied.append(step.version)
    return applied

"""Recorded schema migrations of the MySQL / MariaDB store.

Each migration is a function registered with ``@migration(version, name)`` and
recorded in ``memvault_migrations``, as in the SQLite store. MySQL commits every
DDL statement on its own, so a migration cannot share one transaction with the row
that records it: instead every opener takes the server's named lock
``GET_LOCK('memvault_migrate:<db>')`` while it migrates, each migration's statements
are written so that running them again after a crash finishes the job
(``IF NOT EXISTS``), and the version row is written last.

Character sets: utf8mb4 everywhere. Ids and other exact values use a binary
collation without trailing-space padding (``utf8mb4_nopad_bin`` on MariaDB,
``utf8mb4_0900_bin`` on MySQL 8), so "a" and "a " or "A" are three different ids.
The three full-text columns keep the accent- and case-insensitive collation of the
FULLTEXT index that schemas before version 10 had over them; keyword search reads
``keyword_terms`` (version 9), which holds the engine's own index forms
(``stores.bm25.index_form``) in the exact collation.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from ...errors import MigrationError
from ..sql.co_mentions import fold_stored
from ..sql.migrations import VERSION_SQL, Registry, failed, record_params, record_sql
from ..values import SearchDoc
from .sql import INSERT_TERMS, TERM_CHARS, TERM_COLUMNS, term_rows

# A full-text collation both servers have (of the columns the old FULLTEXT index read).
FTS_COLLATION = "utf8mb4_unicode_520_ci"


# A step takes (cursor, the server's exact collation).
_registry: Registry[Callable[[Any, str], None]] = Registry()
migration = _registry.migration
MIGRATIONS = _registry.steps


def exact_collation(flavor: str) -> str:
    """The binary, no-pad utf8mb4 collation of the server ``flavor``."""
    return "utf8mb4_nopad_bin" if flavor == "mariadb" else "utf8mb4_0900_bin"


def _ids(collation: str) -> str:
    return f"VARCHAR(128) CHARACTER SET utf8mb4 COLLATE {collation}"


_TIME = "VARCHAR(32) CHARACTER SET ascii COLLATE ascii_bin"
_ENUM = "VARCHAR(32) CHARACTER SET ascii COLLATE ascii_bin"


@migration(1, "entries, vectors, originals, reveal state, audit and vector logs")
def _create(cur: Any, exact: str) -> None:
    ident = _ids(exact)
    text = f"MEDIUMTEXT CHARACTER SET utf8mb4 COLLATE {exact}"
    fts = f"MEDIUMTEXT CHARACTER SET utf8mb4 COLLATE {FTS_COLLATION}"
    table = f"ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE={exact}"
    statements = [
        # The key starts with user_id, so one user's rows sit together on disk (and a
        # later distribution by user finds every row's shard in its key). ``pk`` is the
        # order entries were stored in (ties in keyword search go to the first).
        f"""CREATE TABLE IF NOT EXISTS memories (
            pk BIGINT NOT NULL AUTO_INCREMENT,
            id {ident} NOT NULL,
            user_id {ident} NOT NULL,
            agent_id {ident} NULL,
            session_id {ident} NULL,
            workspace_id {ident} NULL,
            name {text} NOT NULL,
            content {text} NOT NULL,
            description {text} NOT NULL,
            kind {_ENUM} NOT NULL,
            mem_class {_ENUM} NOT NULL,
            domain {_ENUM} NULL,
            category {text} NULL,
            confidence DOUBLE NULL,
            importance DOUBLE NOT NULL,
            tier {_ENUM} NOT NULL,
            created_at {_TIME} NOT NULL,
            updated_at {_TIME} NOT NULL,
            last_accessed_at {_TIME} NULL,
            access_count BIGINT NOT NULL DEFAULT 0,
            expires_at {_TIME} NULL,
            status {_ENUM} NULL,
            sensitivity {_ENUM} NOT NULL,
            metadata LONGTEXT CHARACTER SET utf8mb4 COLLATE {exact} NOT NULL,
            source {_ENUM} NOT NULL,
            quarantine {text} NULL,
            approved_at {_TIME} NULL,
            fts_head {fts} NOT NULL,
            fts_body {fts} NOT NULL,
            fts_extra {fts} NOT NULL,
            kw_len INT NOT NULL,
            PRIMARY KEY (user_id, id),
            UNIQUE KEY memories_pk (pk),
            KEY memories_by_agent (user_id, agent_id, kw_len),
            KEY memories_by_time (user_id, created_at, id),
            KEY memories_by_session (user_id, session_id, created_at, id),
            FULLTEXT KEY memories_fts (fts_head, fts_body, fts_extra)
        ) {table}""",
        # One vector per entry (of the model that wrote it last), as in SQLite.
        f"""CREATE TABLE IF NOT EXISTS embeddings (
            user_id {ident} NOT NULL,
            entry_id {ident} NOT NULL,
            model VARCHAR(255) CHARACTER SET utf8mb4 COLLATE {exact} NOT NULL,
            dim INT NOT NULL,
            vector MEDIUMBLOB NOT NULL,
            PRIMARY KEY (user_id, entry_id),
            CONSTRAINT embeddings_entry FOREIGN KEY (user_id, entry_id)
                REFERENCES memories (user_id, id) ON DELETE CASCADE
        ) {table}""",
        f"""CREATE TABLE IF NOT EXISTS originals (
            user_id {ident} NOT NULL,
            entry_id {ident} NOT NULL,
            sealed MEDIUMBLOB NOT NULL,
            PRIMARY KEY (user_id, entry_id),
            CONSTRAINT originals_entry FOREIGN KEY (user_id, entry_id)
                REFERENCES memories (user_id, id) ON DELETE CASCADE
        ) {table}""",
        f"""CREATE TABLE IF NOT EXISTS reveal_users (
            user_id {ident} NOT NULL,
            failures INT NOT NULL DEFAULT 0,
            first_failure_at {_TIME} NULL,
            locked_at {_TIME} NULL,
            PRIMARY KEY (user_id)
        ) {table}""",
        f"""CREATE TABLE IF NOT EXISTS reveal_grants (
            user_id {ident} NOT NULL,
            entry_id {ident} NOT NULL,
            granted_until {_TIME} NOT NULL,
            version {_TIME} NOT NULL,
            PRIMARY KEY (user_id, entry_id)
        ) {table}""",
        f"""CREATE TABLE IF NOT EXISTS reveal_secrets (
            user_id {ident} NOT NULL,
            salt VARBINARY(255) NOT NULL,
            digest VARBINARY(255) NOT NULL,
            PRIMARY KEY (user_id)
        ) {table}""",
        # seq: AUTO_INCREMENT, persisted by InnoDB, so an erased user's numbers are
        # never handed out again.
        f"""CREATE TABLE IF NOT EXISTS audit_log (
            seq BIGINT NOT NULL AUTO_INCREMENT,
            at {_TIME} NOT NULL,
            user_id {ident} NOT NULL,
            entry_id {ident} NULL,
            actor {text} NOT NULL,
            action {text} NOT NULL,
            outcome {text} NOT NULL,
            detail {text} NOT NULL,
            PRIMARY KEY (seq),
            KEY audit_by_user (user_id, seq)
        ) {table}""",
        # The vector log: its seq is handed out under the row lock of vector_log_head,
        # so positions are in commit order (AUTO_INCREMENT values are not: a reader
        # could see seq 7 committed before 6 and skip 6 for good).
        f"""CREATE TABLE IF NOT EXISTS vector_log (
            seq BIGINT NOT NULL,
            user_id {ident} NOT NULL,
            entry_id {ident} NOT NULL,
            PRIMARY KEY (seq),
            KEY vector_log_by_user (user_id, seq)
        ) {table}""",
        f"""CREATE TABLE IF NOT EXISTS vector_log_head (
            id TINYINT NOT NULL,
            seq BIGINT NOT NULL,
            PRIMARY KEY (id)
        ) {table}""",
        "INSERT IGNORE INTO vector_log_head (id, seq) VALUES (1, 0)",
        # The audit log is append-only; only erasing a user (who names itself in the
        # session variable @memvault_erasing) may delete that user's records.
        "DROP TRIGGER IF EXISTS audit_log_no_update",
        """CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log FOR EACH ROW
            SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'the audit log is append-only'""",
        "DROP TRIGGER IF EXISTS audit_log_no_delete",
        """CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log FOR EACH ROW
            BEGIN
                IF @memvault_erasing IS NULL OR OLD.user_id <> @memvault_erasing THEN
                    SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'the audit log is append-only';
                END IF;
            END""",
    ]
    for statement in statements:
        cur.execute(statement)


@migration(2, "the token ledger: one row per LLM call")
def _llm_usage(cur: Any, exact: str) -> None:
    ident = _ids(exact)
    text = f"VARCHAR(255) CHARACTER SET utf8mb4 COLLATE {exact}"
    cur.execute(
        f"""CREATE TABLE IF NOT EXISTS llm_usage (
            seq BIGINT NOT NULL AUTO_INCREMENT,
            user_id {ident} NOT NULL,
            at {_TIME} NOT NULL,
            agent_id {ident} NULL,
            operation {text} NOT NULL,
            model {text} NOT NULL,
            tokens_in BIGINT NOT NULL,
            tokens_out BIGINT NOT NULL,
            seconds DOUBLE NOT NULL,
            outcome {_ENUM} NOT NULL,
            PRIMARY KEY (seq),
            KEY llm_usage_by_user (user_id, at),
            KEY llm_usage_by_time (at)
        ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE={exact}"""
    )


@migration(3, "source subject: who an entry is about or from")
def _source_subject(cur: Any, exact: str) -> None:
    # MySQL commits DDL at once, so a step cut short must be safe to run again: the
    # column is added only when it is not there yet. Existing rows name nobody (NULL).
    cur.execute(
        "SELECT COUNT(*) FROM information_schema.columns WHERE table_schema = DATABASE() "
        "AND table_name = 'memories' AND column_name = 'source_subject'"
    )
    if int(cur.fetchone()[0]) == 0:
        cur.execute(
            "ALTER TABLE memories ADD COLUMN source_subject "
            f"VARCHAR(255) CHARACTER SET utf8mb4 COLLATE {exact} NULL"
        )


def _has_column(cur: Any, table: str, column: str) -> bool:
    cur.execute(
        "SELECT count(*) FROM information_schema.columns "
        "WHERE table_schema = DATABASE() AND table_name = %s AND column_name = %s",
        (table, column),
    )
    return int(cur.fetchone()[0]) > 0


@migration(4, "validity of entries (supersession) and the versions table of their history")
def _history(cur: Any, exact: str) -> None:
    # Re-runnable step by step (MySQL commits each DDL statement): a column is added only
    # if missing. A version row is the entry as it was before one change; it goes with
    # its entry (cascade), so deleting or erasing an entry leaves no old text behind.
    ident = _ids(exact)
    text = f"MEDIUMTEXT CHARACTER SET utf8mb4 COLLATE {exact}"
    for column, kind in (
        ("valid_from", _TIME),
        ("valid_to", _TIME),
        ("superseded_by", ident),
        ("supersedes", ident),
    ):
        if not _has_column(cur, "memories", column):
            cur.execute(f"ALTER TABLE memories ADD COLUMN {column} {kind} NULL")
    cur.execute(
        f"""CREATE TABLE IF NOT EXISTS memory_versions (
            user_id {ident} NOT NULL,
            entry_id {ident} NOT NULL,
            seq INT NOT NULL,
            at {_TIME} NOT NULL,
            actor {text} NOT NULL,
            action {_ENUM} NOT NULL,
            changed {text} NOT NULL,
            snapshot LONGTEXT CHARACTER SET utf8mb4 COLLATE {exact} NOT NULL,
            PRIMARY KEY (user_id, entry_id, seq),
            CONSTRAINT memory_versions_entry FOREIGN KEY (user_id, entry_id)
                REFERENCES memories (user_id, id) ON DELETE CASCADE
        ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE={exact}"""
    )


@migration(5, "the entity graph: entities, their names, entry links and relations")
def _entity_graph(cur: Any, exact: str) -> None:
    # Links and relations go with their entry (ON DELETE CASCADE); what a view sees of
    # them is decided by joining the entry (stores.sql.graph). Keys start with user_id.
    ident = _ids(exact)
    key = f"VARCHAR(120) CHARACTER SET utf8mb4 COLLATE {exact}"
    kind = f"VARCHAR(64) CHARACTER SET utf8mb4 COLLATE {exact}"
    table = f"ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE={exact}"
    statements = [
        f"""CREATE TABLE IF NOT EXISTS graph_entities (
            user_id {ident} NOT NULL,
            entity_id {ident} NOT NULL,
            name VARCHAR(255) CHARACTER SET utf8mb4 COLLATE {exact} NOT NULL,
            type {kind} NOT NULL,
            PRIMARY KEY (user_id, entity_id)
        ) {table}""",
        f"""CREATE TABLE IF NOT EXISTS graph_names (
            user_id {ident} NOT NULL,
            name_key {key} NOT NULL,
            entity_id {ident} NOT NULL,
            PRIMARY KEY (user_id, name_key),
            KEY graph_names_by_entity (user_id, entity_id)
        ) {table}""",
        f"""CREATE TABLE IF NOT EXISTS graph_links (
            user_id {ident} NOT NULL,
            entry_id {ident} NOT NULL,
            entity_id {ident} NOT NULL,
            PRIMARY KEY (user_id, entry_id, entity_id),
            KEY graph_links_by_entity (user_id, entity_id),
            CONSTRAINT graph_links_entry FOREIGN KEY (user_id, entry_id)
                REFERENCES memories (user_id, id) ON DELETE CASCADE
        ) {table}""",
        f"""CREATE TABLE IF NOT EXISTS graph_relations (
            user_id {ident} NOT NULL,
            entry_id {ident} NOT NULL,
            source_id {ident} NOT NULL,
            target_id {ident} NOT NULL,
            rel_type {kind} NOT NULL,
            PRIMARY KEY (user_id, entry_id, source_id, target_id, rel_type),
            KEY graph_relations_by_source (user_id, source_id),
            KEY graph_relations_by_target (user_id, target_id),
            CONSTRAINT graph_relations_entry FOREIGN KEY (user_id, entry_id)
                REFERENCES memories (user_id, id) ON DELETE CASCADE
        ) {table}""",
    ]
    for statement in statements:
        cur.execute(statement)


@migration(6, "profile documents: one JSON document per user and agent, with its revision")
def _profiles(cur: Any, exact: str) -> None:
    # agent_key '' is the user's own profile (stores.sql.profiles). One statement, with
    # IF NOT EXISTS, so a step cut short is finished by running it again. MEDIUMTEXT
    # holds the largest document a store accepts (values.MAX_PROFILE_BYTES).
    ident = _ids(exact)
    cur.execute(
        f"""CREATE TABLE IF NOT EXISTS profiles (
            user_id {ident} NOT NULL,
            agent_key {ident} NOT NULL,
            document MEDIUMTEXT CHARACTER SET utf8mb4 COLLATE {exact} NOT NULL,
            revision INT NOT NULL,
            updated_at {_TIME} NOT NULL,
            PRIMARY KEY (user_id, agent_key)
        ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE={exact}"""
    )


@migration(7, "the workspace: state cards and their revisions, tasks, sessions' workspaces")
def _workspace(cur: Any, exact: str) -> None:
    # One CREATE ... IF NOT EXISTS per statement, so a step cut short is finished by
    # running it again. MEDIUMTEXT holds the largest card a store accepts
    # (workspace_values.MAX_CARD_DOCUMENT_BYTES); task text fits TEXT's 64 KiB.
    ident = _ids(exact)
    text = f"CHARACTER SET utf8mb4 COLLATE {exact} NOT NULL"
    tail = f"ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE={exact}"
    cur.execute(
        f"""CREATE TABLE IF NOT EXISTS workspace_sessions (
            user_id {ident} NOT NULL,
            session_id {ident} NOT NULL,
            workspace_id {ident} NOT NULL,
            linked_at {_TIME} NOT NULL,
            PRIMARY KEY (user_id, session_id)
        ) {tail}"""
    )
    cur.execute(
        f"""CREATE TABLE IF NOT EXISTS cards (
            user_id {ident} NOT NULL,
            session_id {ident} NOT NULL,
            document MEDIUMTEXT {text},
            revision INT NOT NULL,
            actor TEXT {text},
            updated_at {_TIME} NOT NULL,
            PRIMARY KEY (user_id, session_id)
        ) {tail}"""
    )
    cur.execute(
        f"""CREATE TABLE IF NOT EXISTS card_revisions (
            user_id {ident} NOT NULL,
            session_id {ident} NOT NULL,
            revision INT NOT NULL,
            document MEDIUMTEXT {text},
            diff MEDIUMTEXT {text},
            actor TEXT {text},
            changed_at {_TIME} NOT NULL,
            PRIMARY KEY (user_id, session_id, revision)
        ) {tail}"""
    )
    cur.execute(
        f"""CREATE TABLE IF NOT EXISTS tasks (
            user_id {ident} NOT NULL,
            task_id {ident} NOT NULL,
            workspace_id {ident} NOT NULL,
            session_id {ident} NOT NULL,
            title TEXT {text},
            notes TEXT {text},
            status {_ENUM} NOT NULL,
            revision INT NOT NULL,
            created_at {_TIME} NOT NULL,
            updated_at {_TIME} NOT NULL,
            PRIMARY KEY (user_id, task_id),
            KEY tasks_by_workspace (user_id, workspace_id),
            KEY tasks_by_session (user_id, session_id)
        ) {tail}"""
    )


@migration(8, "vault settings: what the whole vault records, such as its embedding model")
def _settings(cur: Any, exact: str) -> None:
    cur.execute(
        f"""CREATE TABLE IF NOT EXISTS vault_settings (
            name {_ids(exact)} NOT NULL PRIMARY KEY,
            value TEXT CHARACTER SET utf8mb4 COLLATE {exact} NOT NULL
        ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE={exact}"""
    )


TERMS_VERSION = 9


@migration(TERMS_VERSION, "keyword terms: each entry's distinct tokens and their counts")
def _keyword_terms(cur: Any, exact: str) -> None:
    # One row per (entry, distinct index-form token) with its counts in the three
    # columns, keyed by user and term: a term's document frequency in a view is a count
    # over one key range, and the server scores entries from the counts (mysql.keyword).
    # The rows go with their entry (ON DELETE CASCADE); an opener cut short in the
    # back-fill finishes it on the next run (INSERT IGNORE, page by page).
    ident = _ids(exact)
    cur.execute(
        f"""CREATE TABLE IF NOT EXISTS keyword_terms (
            user_id {ident} NOT NULL,
            term VARCHAR({TERM_CHARS}) CHARACTER SET utf8mb4 COLLATE {exact} NOT NULL,
            entry_id {ident} NOT NULL,
            agent {ident} NOT NULL,
            tf_head INT NOT NULL,
            tf_body INT NOT NULL,
            tf_extra INT NOT NULL,
            PRIMARY KEY (user_id, term, entry_id),
            KEY keyword_terms_by_entry (user_id, entry_id),
            CONSTRAINT keyword_terms_entry FOREIGN KEY (user_id, entry_id)
                REFERENCES memories (user_id, id) ON DELETE CASCADE
        ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE={exact}"""
    )
    for rows in _entry_pages(cur):
        terms: list[tuple[Any, ...]] = []
        for _, user_id, entry_id, agent_id, head, body, extra in rows:
            terms += term_rows(user_id, entry_id, agent_id, SearchDoc(head, body, extra))
        if terms:
            cur.executemany(INSERT_TERMS.replace("INSERT", "INSERT IGNORE", 1), terms)


def _entry_pages(cur: Any) -> Iterator[list[tuple[Any, ...]]]:
    """Every entry's key and index text, 500 at a time in ``pk`` order (the keyword
    migrations read them to write ``keyword_terms``)."""
    last = 0
    while True:
        cur.execute(
            "SELECT pk, user_id, id, agent_id, fts_head, fts_body, fts_extra "
            "FROM memories WHERE pk > %s ORDER BY pk LIMIT 500",
            (last,),
        )
        rows = list(cur.fetchall())
        if not rows:
            return
        last = int(rows[-1][0])
        yield rows


@migration(10, "no FULLTEXT index: keyword search reads keyword_terms alone")
def _drop_fulltext(cur: Any, exact: str) -> None:
    # Keyword search has ranked from keyword_terms since migration 9; the FULLTEXT index
    # only cost every write its tokenizing. Before it goes, every entry's terms are made
    # whole: a process opened before migration 9 (still running while another one
    # upgraded) wrote entries without terms, or changed their text without them. Each
    # page of entries is compared with the rows their text gives, and an entry whose
    # rows differ is indexed again. Re-runnable: an entry's rows are deleted and written
    # again, and the index is dropped only if it is still there.
    for rows in _entry_pages(cur):
        first, last = int(rows[0][0]), int(rows[-1][0])
        cur.execute(
            f"SELECT {', '.join(f't.{c}' for c in TERM_COLUMNS)} FROM memories m "
            "JOIN keyword_terms t ON t.user_id = m.user_id AND t.entry_id = m.id "
            "WHERE m.pk BETWEEN %s AND %s",
            (first, last),
        )
        held: dict[tuple[str, str], set[tuple[Any, ...]]] = {}
        for row in cur.fetchall():
            held.setdefault((row[0], row[2]), set()).add(tuple(row))
        for _, user_id, entry_id, agent_id, head, body, extra in rows:
            terms = term_rows(user_id, entry_id, agent_id, SearchDoc(head, body, extra))
            if set(terms) == held.get((user_id, entry_id), set()):
                continue
            cur.execute(
                "DELETE FROM keyword_terms WHERE user_id = %s AND entry_id = %s",
                (user_id, entry_id),
            )
            if terms:
                cur.executemany(INSERT_TERMS, terms)
    cur.execute(
        "SELECT count(*) FROM information_schema.statistics WHERE table_schema = DATABASE() "
        "AND table_name = 'memories' AND index_name = 'memories_fts'"
    )
    if int(cur.fetchone()[0]):
        cur.execute("ALTER TABLE memories DROP INDEX memories_fts")


@migration(11, "co-mentions as places on the entry links, not relation rows")
def _co_mention_places(cur: Any, exact: str) -> None:
    # stores.graph_values, co-mentions as places: the stored mentioned_with rows become
    # two numbers per link.
    # Re-runnable: the columns are added only if missing, and each page of entries is
    # folded in a transaction of its own, an entry with places being done already.
    for column in ("co_first", "co_last"):
        if not _has_column(cur, "graph_links", column):
            cur.execute(f"ALTER TABLE graph_links ADD COLUMN {column} SMALLINT NULL")

    def rows(sql: str, args: Sequence[Any]) -> list[Any]:
        cur.execute(sql, tuple(args))
        return list(cur.fetchall())

    @contextmanager
    def page() -> Iterator[None]:
        cur.execute("START TRANSACTION")
        try:
            yield
        except BaseException:
            cur.execute("ROLLBACK")
            raise
        cur.execute("COMMIT")

    fold_stored(rows, cur.executemany, "%s", page=page)


LATEST_VERSION = _registry.latest


def current_version(cur: Any) -> int:
    cur.execute(VERSION_SQL)
    return int(cur.fetchone()[0])


def apply_migrations(
    cur: Any, flavor: str, database: str, target: int | None = None, *, wait_s: int = 60
) -> list[int]:
    """Bring the schema up to ``target`` (default: latest); returns the versions applied.

    ``cur`` is a cursor of an autocommit connection. Concurrent openers queue on the
    server's named lock, and re-read the version once they hold it.
    """
    lock = f"memvault_migrate:{database}"[:64]
    cur.execute("SELECT GET_LOCK(%s, %s)", (lock, wait_s))
    if cur.fetchone()[0] != 1:
        raise MigrationError(
            f"another process has been migrating this database for over {wait_s} s: "
            "wait for it to finish, then open the store again"
        )
    try:
        cur.execute(
            "CREATE TABLE IF NOT EXISTS memvault_migrations ("
            " version INT NOT NULL PRIMARY KEY,"
            " name VARCHAR(255) NOT NULL,"
            " applied_at VARCHAR(40) NOT NULL"
            ") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4"
        )
        version = current_version(cur)
        _registry.check(version)
        applied: list[int] = []
        exact = exact_collation(flavor)
        for step in _registry.up_to(target):
            if step.version <= version:
                continue
            try:
                step.apply(cur, exact)
                cur.execute(record_sql("%s"), record_params(step))
            except MigrationError:
                raise
            except Exception as exc:
                raise failed(
                    step,
                    str(exc),
                    "open the store again to finish it (each step can be re-run), and check "
                    "that the user may CREATE, ALTER, INDEX and TRIGGER in this database",
                ) from exc
            applied.append(step.version)
        return applied
    finally:
        cur.execute("SELECT RELEASE_LOCK(%s)", (lock,))
        cur.fetchall()

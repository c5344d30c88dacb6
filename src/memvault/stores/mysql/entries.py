"""What entries need on MySQL / MariaDB beyond the shared SQL (``stores.sql.entries``):
the document length stored with each, and what triggers do on the other servers (a
changed entry's stale vector dropped, vectors logged as they go, grants deleted with
their entry); metadata values read from JSON."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ...fields import EMBEDDED
from ...model import MemoryEntry
from ..bm25 import doc_length
from ..sql.entries import SQLEntries
from ..sql.runner import Runner
from ..values import SearchDoc
from .dialect import MySQLBase
from .sql import INSERT_TERMS, log_vectors, term_rows, with_vectors


class MySQLEntries(MySQLBase, SQLEntries):
    """The entry half of the store."""

    def _index_columns(self) -> tuple[str, ...]:
        return ("fts_head", "fts_body", "fts_extra", "kw_len")

    def _index_values(self, entry: MemoryEntry, doc: SearchDoc) -> tuple[Any, ...]:
        return (doc.head, doc.body, doc.extra, doc_length(doc))

    def _changed(self, run: Runner, current: MemoryEntry, new: MemoryEntry) -> None:
        # What the embedder read changed: the stored vector is stale.
        if any(getattr(new, f) != getattr(current, f) for f in EMBEDDED) and with_vectors(
            run.raw, new.user_id, [new.id]
        ):
            run.run(
                "DELETE FROM embeddings WHERE user_id = %s AND entry_id = %s",
                (new.user_id, new.id),
            )
            log_vectors(run.raw, new.user_id, [new.id])

    def _indexed(
        self, run: Runner, items: Sequence[tuple[MemoryEntry, SearchDoc]], *, new: bool
    ) -> None:
        # keyword_terms: each entry's distinct tokens and their counts (mysql.keyword).
        if not self.term_table:
            return
        if not new:
            for entry, _ in items:
                run.run(
                    "DELETE FROM keyword_terms WHERE user_id = %s AND entry_id = %s",
                    (entry.user_id, entry.id),
                )
        rows = [r for e, d in items for r in term_rows(e.user_id, e.id, e.agent_id, d)]
        if rows:
            run.many(INSERT_TERMS, rows)

    def _drop(self, run: Runner, user_id: str, entry_ids: Sequence[str]) -> None:
        log_vectors(run.raw, user_id, with_vectors(run.raw, user_id, entry_ids))
        marks = run.dialect.marks(len(entry_ids))
        run.run(
            f"DELETE FROM reveal_grants WHERE user_id = %s AND entry_id IN ({marks})",
            (user_id, *entry_ids),
        )
        # embeddings and originals go with their entry (ON DELETE CASCADE).
        run.run(
            f"DELETE FROM memories WHERE user_id = %s AND id IN ({marks})", (user_id, *entry_ids)
        )

    def metadata_values(self, user_id: str, key: str, *, limit: int = 200) -> list[Any]:
        path = '$."' + key.replace('"', "").replace("\\", "") + '"'
        with self._read() as cur:
            cur.execute(
                "SELECT DISTINCT JSON_EXTRACT(metadata, %s) AS v FROM memories "
                "WHERE user_id = %s AND JSON_EXTRACT(metadata, %s) IS NOT NULL LIMIT %s",
                (path, user_id, path, int(limit)),
            )
            rows = cur.fetchall()
        out: list[Any] = []
        for (raw,) in rows:
            value = json.loads(raw) if isinstance(raw, str) else raw
            if isinstance(value, bool):
                value = int(value)  # as SQLite's json_extract answers
            elif isinstance(value, dict | list):
                value = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
            if value is not None:
                out.append(value)
        return list(dict.fromkeys(out))

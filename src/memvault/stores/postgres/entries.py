"""What entries need on PostgreSQL beyond the shared SQL (``stores.sql.entries``): the
keyword keys and term frequencies stored with each, a batch written by ``COPY``, and
metadata values read from JSON."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...model import MemoryEntry
from ..sql.entries import SQLEntries
from ..sql.runner import Runner
from ..values import SearchDoc
from .dialect import PostgresBase
from .sql import INDEX_COLUMNS, index_values


def array_literal(values: list[Any]) -> str:
    """``values`` (strings, or whole numbers) as a PostgreSQL array literal, each string
    quoted (a keyword key may hold a space) with its quotes and backslashes escaped."""
    if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return "{" + ",".join(map(str, values)) + "}"
    quoted = (str(v).replace("\\", "\\\\").replace('"', '\\"') for v in values)
    return "{" + ",".join(f'"{v}"' for v in quoted) + "}"


class PostgresEntries(PostgresBase, SQLEntries):
    """The entry half of the store."""

    def _index_columns(self) -> tuple[str, ...]:
        return INDEX_COLUMNS[self.term_frequencies]

    def _index_values(self, entry: MemoryEntry, doc: SearchDoc) -> tuple[Any, ...]:
        return index_values(entry, doc, self.term_frequencies)

    def _insert_rows(
        self, run: Runner, columns: Sequence[str], rows: list[tuple[Any, ...]]
    ) -> None:
        # COPY: one round trip for the batch instead of one statement per row. The
        # keyword arrays go as array literals written here: the driver's list dumper
        # (pure Python) took half of the batch's client time.
        with (
            run.raw.cursor() as cur,
            cur.copy(f"COPY memories ({', '.join(columns)}) FROM STDIN") as copy,
        ):
            for row in rows:
                copy.write_row([array_literal(v) if isinstance(v, list) else v for v in row])

    def metadata_values(self, user_id: str, key: str, *, limit: int = 200) -> list[Any]:
        # As SQLite's json_extract: scalars as they are, objects and arrays as JSON text.
        with self._read() as conn:
            rows = conn.execute(
                "SELECT DISTINCT CASE jsonb_typeof(v) "
                "  WHEN 'object' THEN v::text WHEN 'array' THEN v::text ELSE NULL END, v "
                "FROM (SELECT metadata::jsonb -> %s AS v FROM memories WHERE user_id = %s) t "
                "WHERE v IS NOT NULL AND jsonb_typeof(v) <> 'null' LIMIT %s",
                (key.replace('"', ""), user_id, limit),
            ).fetchall()
        return [text if text is not None else value for text, value in rows]

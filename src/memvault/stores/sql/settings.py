"""The vault's own settings (``protocols.VaultSettings``) on every SQL backend, written
once: one row per name in ``vault_settings``."""

from __future__ import annotations

from .runner import SQLBase


class SQLSettings(SQLBase):
    """Named values the whole vault records (its embedding model)."""

    def get_setting(self, name: str) -> str | None:
        mark = self.dialect.mark
        with self._reading("reading a vault setting") as run:
            row = run.one(f"SELECT value FROM vault_settings WHERE name = {mark}", (name,))
        return None if row is None else str(row[0])

    def put_setting(self, name: str, value: str, *, replace: bool) -> str:
        mark = self.dialect.mark
        with self._writing("recording a vault setting") as run:
            if replace:
                run.run(
                    self.dialect.upsert("vault_settings", ("name", "value"), ("name",)),
                    (name, value),
                )
                return value
            run.run(
                self.dialect.insert_skipping(
                    f"INTO vault_settings (name, value) VALUES ({mark}, {mark})"
                ),
                (name, value),
            )
            row = run.one(f"SELECT value FROM vault_settings WHERE name = {mark}", (name,))
        return value if row is None else str(row[0])

    def stored_vector_models(self) -> list[str]:
        with self._reading("reading the vector models") as run:
            rows = run.rows(
                "SELECT model, count(*) FROM embeddings GROUP BY model "
                "ORDER BY count(*) DESC, model"
            )
        return [str(r[0]) for r in rows]


__all__ = ["SQLSettings"]

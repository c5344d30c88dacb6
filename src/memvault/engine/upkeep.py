"""``Vault.maintain``: the tier moves of ``lifecycle.Maintenance``, then the compression
of old raw turns (``lifecycle.compress``), for one user or for every user."""

from __future__ import annotations

from dataclasses import replace

from ..errors import ValidationError
from ..lifecycle import Maintenance, MaintenanceReport
from ..lifecycle.compress import Compaction
from ..stores.protocols import Store
from ..validation import check_datetime, make_scope
from .derived import Derived


class Upkeep:
    """One maintenance pass: tiers first, then compression, then the vectors it drops."""

    def __init__(
        self, store: Store, maintenance: Maintenance, compaction: Compaction, derived: Derived
    ) -> None:
        self._store = store
        self._maintenance = maintenance
        self._compaction = compaction
        self._derived = derived

    def run(self, *, now: object, dry_run: object, user_id: object) -> MaintenanceReport:
        when = check_datetime(now, "now")
        users = None if user_id is None else [make_scope(user_id).user_id]
        if not isinstance(dry_run, bool):
            raise ValidationError("dry_run must be true or false", field="dry_run")
        report = self._maintenance.run(now=when, dry_run=dry_run, user_ids=users)
        names = users if users is not None else self._store.user_ids()
        made = self._compaction.run(now=report.now, dry_run=dry_run, user_ids=names)
        for user in {c.user_id for c in made if c.summary_id is not None}:
            # Linking a source changed its metadata, which drops its vector: embed it
            # again now when this vault has an embedder (else the back-fill does).
            self._derived.reindex(user, None)
        return replace(report, compressions=tuple(made))


__all__ = ["Upkeep"]

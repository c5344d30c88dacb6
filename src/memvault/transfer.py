"""Moving a user's memory in and out: JSONL export and import, and erasure.

An export line is ``MemoryEntry.to_dict()``; an import takes such lines (or dicts)
back, all or nothing, through the write path (validated, redacted, screened as a
batch), keeping ids and times. Erasure removes every trace of a user in one store
transaction and leaves one audit record saying it happened.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, Literal

from .errors import ConflictError, ImportFormatError, ValidationError
from .fields import RECORD_NAMES
from .model import MemoryEntry
from .stores.protocols import Store
from .stores.values import View
from .validation import check_records, make_scope, parse_json
from .write import Built, Derived, Draft, Writer

#: Fields an import record may carry: every key of ``MemoryEntry.to_dict()``, by the field
#: table. Those it marks ``Imported.DROP`` are ignored (the owner is the importer; an
#: approval is not imported); a held record stays held. Anything else is rejected so
#: typos surface.
IMPORT_FIELDS = RECORD_NAMES

#: Records an audit line: (user_id, entry_id, actor, action, outcome).
Audit = Callable[[str, str | None, str, str, str], object]


class Transfer:
    """Export, import and erase for ``Vault``."""

    def __init__(self, store: Store, writer: Writer, derived: Derived, audit: Audit) -> None:
        self.store = store
        self.writer = writer
        self.derived = derived
        self.audit = audit

    def export(self, view: View) -> Iterator[dict[str, Any]]:
        """Every entry in ``view`` as a JSON-ready dict, oldest first (JSONL lines)."""
        for entry in self.store.iter_entries(view):
            yield entry.to_dict()

    def import_(
        self,
        records: Iterable[Mapping[str, Any] | str],
        *,
        user_id: str,
        on_conflict: Literal["error", "skip"] = "error",
    ) -> list[MemoryEntry]:
        """Import exported records (dicts, or JSONL lines) into ``user_id``'s memory.

        All or nothing: a malformed record rejects the whole import. Records keep
        their ids and times but always become ``user_id``'s, whatever they say.
        With ``on_conflict="skip"`` ids the user already has are left alone.
        """
        scope = make_scope(user_id)
        check_records(records, "records")
        if on_conflict not in ("error", "skip"):
            raise ValidationError("on_conflict must be 'error' or 'skip'", field="on_conflict")
        built: list[Built] = []
        seen: set[str] = set()
        for lineno, raw in enumerate(records, start=1):
            if isinstance(raw, str) and not raw.strip():
                continue
            draft = _parse(raw, lineno)
            try:
                item = self.writer.build(draft, user_id=scope.user_id, batch=True)
            except ValidationError as exc:
                raise ImportFormatError(
                    f"line {lineno}: {exc}; nothing was imported", line=lineno
                ) from None
            if item.entry.id in seen:
                raise ImportFormatError(
                    f"line {lineno} repeats id {item.entry.id!r}: nothing was imported",
                    line=lineno,
                )
            seen.add(item.entry.id)
            built.append(item)
        owner = View(scope.user_id, all_agents=True)
        if on_conflict == "skip":
            built = [b for b in built if self.store.get(owner, b.entry.id) is None]
        else:
            clash = [b.entry.id for b in built if self.store.get(owner, b.entry.id) is not None]
            if clash:
                raise ConflictError(
                    f"{len(clash)} imported ids already exist for {scope.user_id!r} "
                    f"(first: {clash[0]!r}) and nothing was imported",
                    remedy="import.skip_existing",
                )
        return self.writer.insert(built)

    def erase_user(self, *, user_id: str, actor: str = "owner") -> int:
        """Erase every trace of a user from the store (entries, sealed originals, vectors,
        reveal secret and state, audit records, index tokens); returns the entry count.

        One audit record of the erasure itself (who, how many) is then written under
        the user id, so the erasure can be shown to have happened.
        """
        uid = make_scope(user_id).user_id
        ids = self.store.erase_user(uid)
        self.derived.removed(uid, ids)
        self.audit(uid, None, actor, "erase_user", f"ok: {len(ids)} entries")
        return len(ids)


def _parse(raw: Mapping[str, Any] | str, lineno: int) -> Draft:
    """One import line (a JSON text or an already-parsed dict) as a draft."""
    record: Any = raw
    if isinstance(raw, str):
        try:
            record = parse_json(raw, f"line {lineno}")
        except ValidationError as exc:
            raise ImportFormatError(
                f"{exc}: fix or remove it; nothing was imported", line=lineno
            ) from None
    if not isinstance(record, Mapping):
        raise ImportFormatError(
            f"line {lineno} is not a JSON object: each line must be one exported "
            "memory; nothing was imported",
            line=lineno,
        )
    unknown = set(record) - IMPORT_FIELDS
    if unknown:
        raise ImportFormatError(
            f"line {lineno} has unknown fields {sorted(unknown)}: nothing was imported",
            line=lineno,
        )
    return Draft.from_record(record)


__all__ = ["IMPORT_FIELDS", "Transfer"]

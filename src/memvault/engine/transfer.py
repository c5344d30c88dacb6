"""Moving a user's memory in and out: JSONL export and import, and erasure.

An export line is ``MemoryEntry.to_dict()``; an import takes such lines (or dicts)
back, all or nothing, through the write path (validated, redacted, screened as a
batch), keeping ids and times. Erasure removes every trace of a user in one store
transaction and leaves one audit record saying it happened.

The line format: a line without a ``record`` key (or with ``"record": "memory"``) is
a memory, exactly as exports have always written it, so old files import unchanged.
After the memories a whole-user export writes the workspace: one ``"record": "card"``
line per state card (with its whole revision history) and one ``"record": "task"``
line per task (``workspace.archive`` gives their fields). An import hands those lines
to an ``OtherRecords`` reader; any other ``record`` value is refused. Memories, cards
and tasks land in one store transaction: a bad line anywhere imports nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from ..errors import ConflictError, ImportFormatError, ValidationError
from ..fields import RECORD_NAMES
from ..model import MemoryEntry
from ..stores.protocols import Store
from ..stores.values import View
from ..validation import check_records, make_scope, parse_json
from .derived import Derived
from .write import Built, Draft, Writer

#: Fields an import record may carry: every key of ``MemoryEntry.to_dict()``, by the field
#: table. Those it marks ``Imported.DROP`` are ignored (the owner is the importer; an
#: approval is not imported); a held record stays held. Anything else is rejected so
#: typos surface.
IMPORT_FIELDS = RECORD_NAMES

#: Records an audit line: (user_id, entry_id, actor, action, outcome).
Audit = Callable[[str, str | None, str, str, str], object]

#: The ``record`` value of a memory line (the default when a line has none).
MEMORY = "memory"


class OtherRecords(Protocol):
    """What an import does with its lines that are not memories (the workspace's):
    ``read`` checks each as it comes (raising ``ImportFormatError`` with its line), and
    ``write`` checks them against the store and writes them, inside the import's
    transaction and before the memories, so a refusal there leaves nothing written."""

    @property
    def kinds(self) -> tuple[str, ...]:
        """The ``record`` values it reads."""
        ...

    def read(self, kind: str, record: Mapping[str, Any], line: int) -> None: ...

    def write(self, user_id: str, on_conflict: Literal["error", "skip"]) -> None: ...


@dataclass(frozen=True, slots=True)
class ImportReport:
    """What one import wrote: the memories (what ``import_`` returns), and how many
    state cards (with how many revisions) and tasks came with them."""

    memories: list[MemoryEntry]
    cards: int = 0
    card_revisions: int = 0
    tasks: int = 0


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
        others: OtherRecords | None = None,
    ) -> list[MemoryEntry]:
        """Import exported records (dicts, or JSONL lines) into ``user_id``'s memory.

        All or nothing: a malformed record rejects the whole import. Records keep
        their ids and times but always become ``user_id``'s, whatever they say.
        With ``on_conflict="skip"`` ids the user already has are left alone.
        ``others`` reads the lines whose ``record`` is one of its kinds (without it,
        only memory lines are taken) and writes them in the same transaction.
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
            record = _record(raw, lineno)
            kind = record.get("record", MEMORY)
            if kind != MEMORY:
                known = (MEMORY, *(others.kinds if others is not None else ()))
                if not isinstance(kind, str) or kind not in known:
                    raise ImportFormatError(
                        f"line {lineno} has record {kind!r}, not one of {', '.join(known)}: "
                        "nothing was imported",
                        line=lineno,
                    )
                assert others is not None
                others.read(kind, record, lineno)
                continue
            draft = _draft({k: v for k, v in record.items() if k != "record"}, lineno)
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
        # The derived state (vectors, caches) hears of the insert once it is committed:
        # not of a write that is then undone, and not before the embedding worker, on a
        # connection of its own, can read the new entries.
        with self.store.atomic():
            if others is not None:
                others.write(scope.user_id, on_conflict)
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


def _record(raw: Mapping[str, Any] | str, lineno: int) -> Mapping[str, Any]:
    """One import line (a JSON text or an already-parsed dict) as a JSON object."""
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
            "memory, card or task; nothing was imported",
            line=lineno,
        )
    return record


def _draft(record: Mapping[str, Any], lineno: int) -> Draft:
    """One memory line as a draft."""
    unknown = set(record) - IMPORT_FIELDS
    if unknown:
        raise ImportFormatError(
            f"line {lineno} has unknown fields {sorted(unknown)}: nothing was imported",
            line=lineno,
        )
    return Draft.from_record(record)


__all__ = ["IMPORT_FIELDS", "MEMORY", "ImportReport", "OtherRecords", "Transfer"]

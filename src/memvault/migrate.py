"""Copying a vault from one store to another (``memvault migrate-store``).

Everything goes through the store protocols, so any backend can be the source or the
target: entries with every field and the tokens they were indexed with, their vectors
(copied as they are, with the model name they carry), sealed originals, the reveal
challenge and the audit log. What is not copied: the reveal bookkeeping of the moment
(wrong answers, a lock, open grants; a grant ends with the challenge anyway, and no
protocol reads the rest without writing an audit record), and users that have audit
records but no entries.

The copy is checked before anything is written (an id the target holds with other
data refuses the whole run), written in batches that each commit whole (an entry never
lands without its vector or original), resumable (an entry the target already holds
as it is on the source is skipped, and so are the audit records already copied), and
verified at the end: per user, the entry count and a checksum over every entry's
fields, tokens, original and vectors must be the same on both sides. The source
should be quiet while it runs (stop the servers that write to it).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from .errors import ConflictError, StoreError, ValidationError
from .model import MemoryEntry
from .stores.protocols import Store
from .stores.values import AuditRecord, VectorItem, View
from .validation import make_scope

#: Called after each committed batch with (entries done, entries in all).
Progress = Callable[[int, int], object]

_AUDIT_PAGE = 1000


@dataclass(frozen=True, slots=True)
class UserCopy:
    """What the copy did for one user, and the checksum both stores agreed on."""

    user_id: str
    entries: int  # on the source (and, after the check, on the target)
    copied: int  # written by this run; the rest were there already
    vectors: int
    originals: int
    audit_copied: int
    checksum: str


@dataclass(frozen=True, slots=True)
class MigrationReport:
    """The outcome of ``migrate_store``; every user in it was verified."""

    users: list[UserCopy] = field(default_factory=list)

    @property
    def entries(self) -> int:
        return sum(u.entries for u in self.users)

    @property
    def copied(self) -> int:
        return sum(u.copied for u in self.users)

    def summary(self) -> str:
        """One line for a person: what moved and that it was verified."""
        users = len(self.users)
        return (
            f"migrated {users} user{'s' if users != 1 else ''}: {self.entries} entries "
            f"({self.copied} copied, {self.entries - self.copied} already there), "
            f"{sum(u.vectors for u in self.users)} vectors, "
            f"{sum(u.originals for u in self.users)} originals, "
            f"{sum(u.audit_copied for u in self.users)} audit records copied; "
            "verified: counts and checksums match"
        )


def migrate_store(
    source: Store,
    target: Store,
    *,
    user_id: str | None = None,
    batch: int = 200,
    progress: Progress | None = None,
) -> MigrationReport:
    """Copy every user's vault (or only ``user_id``'s) from ``source`` to ``target``.

    Safe to run again after an interruption: it finishes what is missing. Raises
    ``ConflictError`` before writing anything when the target holds one of the ids
    with other data, and ``StoreError`` when the stores disagree after the copy.
    """
    if source is target:
        raise ValidationError("the source and the target are the same store: name two stores")
    _check_batch(batch)
    if progress is not None and not callable(progress):
        raise ValidationError("progress must be a callable taking (done, total)")
    users = [make_scope(user_id).user_id] if user_id is not None else source.user_ids()
    totals = {uid: source.count(_owner(uid)) for uid in users}
    for uid in users:
        _refuse_conflicts(source, target, uid, batch)
    total = sum(totals.values())
    done = 0
    report: list[UserCopy] = []
    for uid in users:

        def step(n: int) -> None:
            nonlocal done
            done += n
            if progress is not None:
                progress(done, total)

        report.append(_copy_user(source, target, uid, batch, step))
    return MigrationReport(report)


def vault_checksum(store: Store, user_id: str, *, batch: int = 500) -> tuple[int, str]:
    """(entry count, sha256) of one user's vault: every entry's fields, its stored tokens,
    its sealed original and its vectors per model, in id order, whatever the backend."""
    _check_batch(batch)
    count, checksum, _ = _digest(store, make_scope(user_id).user_id, batch)
    return count, checksum


def _digest(store: Store, uid: str, batch: int) -> tuple[int, str, int]:
    """``vault_checksum``, and how many of the entries have a sealed original."""
    originals = 0
    vectors = {m: _vectors_by_id(store, uid, m) for m in store.vector_models(uid)}
    per_entry: dict[str, str] = {}
    for chunk in _batches(store.iter_entries(_owner(uid)), batch):
        docs = store.search_docs(uid, [e.id for e in chunk])
        for e in chunk:
            h = hashlib.sha256(_canonical(e))
            d = docs.get(e.id)
            h.update(json.dumps([d.head, d.body, d.extra] if d else None).encode())
            original = store.get_original(uid, e.id)
            originals += original is not None
            h.update(b"\x00none" if original is None else b"\x00original\x00" + original)
            for model in sorted(vectors):
                v = vectors[model].get(e.id)
                if v is not None:
                    h.update(b"\x00" + model.encode() + b"\x00" + _vector_bytes(v))
            per_entry[e.id] = h.hexdigest()
    total = hashlib.sha256()
    for entry_id in sorted(per_entry):
        total.update(f"{entry_id}\x00{per_entry[entry_id]}\n".encode())
    return len(per_entry), total.hexdigest(), originals


# -- one user ---------------------------------------------------------------------------


def _refuse_conflicts(source: Store, target: Store, uid: str, batch: int) -> None:
    owner = _owner(uid)
    for chunk in _batches(source.iter_entries(owner), batch):
        there = {e.id: e for e in target.get_many(owner, [e.id for e in chunk])}
        for e in chunk:
            if e.id in there and there[e.id] != e:
                raise ConflictError(
                    f"the target already holds memory {e.id!r} of user {uid!r} with other "
                    "data: migrate into an empty store (or erase that user there first); "
                    "nothing was written",
                    entry_id=e.id,
                    user_id=uid,
                )
    _audit_to_copy(source, target, uid)  # refuses a target whose audit log differs
    secret, have = source.reveal_secret(uid), target.reveal_secret(uid)
    if secret is not None and have is not None and have != secret:
        raise ConflictError(
            f"the target already holds another reveal challenge for user {uid!r}: "
            "migrate into an empty store (or erase that user there first); nothing was written",
            user_id=uid,
        )


def _copy_user(
    source: Store, target: Store, uid: str, batch: int, step: Callable[[int], None]
) -> UserCopy:
    owner = _owner(uid)
    vectors = {m: _vectors_by_id(source, uid, m) for m in source.vector_models(uid)}
    copied = originals_total = 0
    for chunk in _batches(source.iter_entries(owner), batch):
        there = {e.id for e in target.get_many(owner, [e.id for e in chunk])}
        fresh = [e for e in chunk if e.id not in there]
        if fresh:
            originals_total += _copy_entries(source, target, uid, fresh, vectors)
            copied += len(fresh)
        step(len(chunk))
    if (secret := source.reveal_secret(uid)) is not None and target.reveal_secret(uid) is None:
        target.set_reveal_secret(uid, *secret)
    audit = _audit_to_copy(source, target, uid)
    with target.atomic():
        for record in audit:
            target.append_audit(replace(record, seq=0))
    count, checksum, originals = _digest(source, uid, batch)
    target_count, target_checksum, _ = _digest(target, uid, batch)
    if (count, checksum) != (target_count, target_checksum):
        what = "entry counts" if count != target_count else "checksums"
        raise StoreError(
            f"after the copy the {what} of user {uid!r} differ (source {count} entries, "
            f"target {target_count}): the source changed during the run, or the target "
            "holds other entries of that user; stop the writers and run again"
        )
    if len(_all_audit(source, uid)) != len(_all_audit(target, uid)):
        raise StoreError(
            f"after the copy the audit logs of user {uid!r} differ in length: run again"
        )
    if source.reveal_secret(uid) != target.reveal_secret(uid):
        raise StoreError(f"after the copy the reveal challenge of user {uid!r} differs")
    return UserCopy(
        user_id=uid,
        entries=count,
        copied=copied,
        vectors=sum(len(v) for v in vectors.values()),
        originals=originals,
        audit_copied=len(audit),
        checksum=checksum,
    )


def _copy_entries(
    source: Store,
    target: Store,
    uid: str,
    fresh: Sequence[MemoryEntry],
    vectors: dict[str, dict[str, npt.NDArray[np.float32]]],
) -> int:
    """Write one batch in one transaction: entries, tokens, originals, vectors."""
    ids = [e.id for e in fresh]
    docs = source.search_docs(uid, ids)
    if len(docs) != len(ids):
        raise StoreError(
            f"entries of user {uid!r} vanished from the source during the copy: "
            "stop the writers and run again"
        )
    originals = {i: o for i in ids if (o := source.get_original(uid, i)) is not None}
    with target.atomic():
        target.insert([(e, docs[e.id]) for e in fresh], originals=originals or None)
        for model, by_id in vectors.items():
            items = [VectorItem(e.id, e.updated_at, by_id[e.id]) for e in fresh if e.id in by_id]
            if items and len(target.put_vectors(uid, model, items)) != len(items):
                raise StoreError(
                    f"the target did not take every {model!r} vector of user {uid!r}: "
                    "nothing of this batch was written; run again"
                )
    return len(originals)


def _audit_to_copy(source: Store, target: Store, uid: str) -> list[AuditRecord]:
    """The source's audit records the target lacks: those after the ones it already has,
    which must be the source's first ones (else the target's log is another's)."""
    mine, theirs = _all_audit(source, uid), _all_audit(target, uid)
    if [_audit_key(r) for r in theirs] != [_audit_key(r) for r in mine[: len(theirs)]]:
        raise ConflictError(
            f"the target's audit log of user {uid!r} is not a copy of the source's: "
            "migrate into an empty store (or erase that user there first); nothing was written",
            user_id=uid,
        )
    return mine[len(theirs) :]


# -- helpers ----------------------------------------------------------------------------


def _check_batch(batch: object) -> None:
    if isinstance(batch, bool) or not isinstance(batch, int) or batch < 1:
        raise ValidationError("batch must be a whole number of at least 1", field="batch")


def _owner(uid: str) -> View:
    return View(uid, all_agents=True)


def _batches(entries: Iterable[MemoryEntry], size: int) -> Iterator[list[MemoryEntry]]:
    chunk: list[MemoryEntry] = []
    for e in entries:
        chunk.append(e)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _vectors_by_id(store: Store, uid: str, model: str) -> dict[str, npt.NDArray[np.float32]]:
    stored = store.load_vectors(uid, model)
    return {i: stored.matrix[n] for n, i in enumerate(stored.ids)}


def _vector_bytes(v: npt.NDArray[np.float32]) -> bytes:
    return np.ascontiguousarray(v, dtype="<f4").tobytes()


def _canonical(e: MemoryEntry) -> bytes:
    return json.dumps(e.to_dict(), sort_keys=True, ensure_ascii=False).encode()


def _all_audit(store: Store, uid: str) -> list[AuditRecord]:
    out: list[AuditRecord] = []
    after = 0
    while page := store.audit_log(uid, limit=_AUDIT_PAGE, after=after):
        out.extend(page)
        after = page[-1].seq
    return out


def _audit_key(r: AuditRecord) -> tuple[Any, ...]:
    return (r.at, r.actor, r.action, r.outcome, r.entry_id, r.detail)


__all__ = ["MigrationReport", "Progress", "UserCopy", "migrate_store", "vault_checksum"]

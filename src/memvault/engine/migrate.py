"""Copying a vault from one store to another (``memvault migrate-store``).

Everything goes through the store protocols, so any backend can be the source or the
target: entries with every field and the tokens they were indexed with, their vectors,
sealed originals, the entries' earlier versions (their history), the reveal challenge,
the reveal bookkeeping of the user (wrong answers and a lock, so a move never lifts a
lock), the audit log, the entity graph (each entry's links and relations, its
entities' names, types and aliases), the user's profile documents (each one's text
and time; its revision starts again at 1 on the target) and their workspace (state
cards with every revision, tasks, the sessions' workspaces; ``stores.workspace_copy``).
Vectors are copied as they are, with the model name they carry; given the target's
``embedder``, only that model's vectors are copied and every entry without one is
embedded anew with it (the other models' vectors stay behind: the target would never
compare them). Not copied:
open reveal grants (a grant ends when the challenge is set anyway; reveal again), and
users that have audit records or profiles but no entries.

The copy is checked before anything is written (an id the target holds with other
data refuses the whole run), written in batches that each commit whole (an entry never
lands without its vector or original), resumable (an entry the target already holds
as it is on the source is skipped, and so are the audit records already copied), and
verified at the end: per user, the entry count and a checksum over every entry's
fields, tokens, original and vectors must be the same on both sides (when re-embedding,
over all but the vectors, and every entry must have a vector of the target's model),
and so must the reveal state. The source should be quiet while it runs (stop the
servers that write to it). Its reveal state is read inside a transaction that is rolled
back, as no protocol call reads it otherwise.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from ..embed.base import Embedder
from ..errors import ConflictError, StoreError, ValidationError
from ..model import MemoryEntry
from ..stores import workspace_copy
from ..stores.graph_values import Mention, RelationMention
from ..stores.protocols import EntityGraph, ProfileStore, RevealStore, Store, VectorStore
from ..stores.values import AuditRecord, RevealState, VectorItem, View
from ..stores.workspace_copy import WorkspaceCopy
from ..validation import make_scope
from .signing import SIGNERS, signing_setting
from .vector_space import MODEL_KEY

#: Called after each committed batch with (entries done, entries in all).
Progress = Callable[[int, int], object]

_AUDIT_PAGE = 1000


@dataclass(frozen=True, slots=True)
class UserCopy:
    """What the copy did for one user, and the checksum both stores agreed on."""

    user_id: str
    entries: int  # on the source (and, after the check, on the target)
    copied: int  # written by this run; the rest were there already
    vectors: int  # on the target after the copy
    originals: int
    audit_copied: int
    checksum: str
    embedded: int = 0  # vectors this run made with the target's model
    profiles: int = 0  # profile documents on the source (and, after the check, the target)
    workspace: WorkspaceCopy = field(default_factory=WorkspaceCopy)  # cards and tasks


@dataclass(frozen=True, slots=True)
class MigrationReport:
    """The outcome of ``migrate_store``; every user in it was verified."""

    users: list[UserCopy] = field(default_factory=list)
    model: str | None = None  # the target's model, when the copy re-embedded

    @property
    def entries(self) -> int:
        return sum(u.entries for u in self.users)

    @property
    def copied(self) -> int:
        return sum(u.copied for u in self.users)

    def summary(self) -> str:
        """One line for a person: what moved and that it was verified."""
        users = len(self.users)
        embedded = sum(u.embedded for u in self.users)
        anew = f" ({embedded} embedded anew with {self.model})" if self.model else ""
        documents = sum(u.profiles for u in self.users)
        profiles = f", {documents} profile document{'s' if documents != 1 else ''}"
        profiles = profiles if documents else ""
        cards = sum(u.workspace.cards for u in self.users)
        tasks = sum(u.workspace.tasks for u in self.users)
        if cards or tasks:
            profiles += f", {cards} state card{'s' if cards != 1 else ''}, {tasks} task"
            profiles += "s" if tasks != 1 else ""
        return (
            f"migrated {users} user{'s' if users != 1 else ''}: {self.entries} entries "
            f"({self.copied} copied, {self.entries - self.copied} already there), "
            f"{sum(u.vectors for u in self.users)} vectors{anew}, "
            f"{sum(u.originals for u in self.users)} originals, "
            f"{sum(u.audit_copied for u in self.users)} audit records copied"
            f"{profiles}; verified: counts and checksums match"
        )


def migrate_store(
    source: Store,
    target: Store,
    *,
    user_id: str | None = None,
    batch: int = 200,
    progress: Progress | None = None,
    embedder: Embedder | None = None,
    text_of: Callable[[MemoryEntry], str] | None = None,
) -> MigrationReport:
    """Copy every user's vault (or only ``user_id``'s) from ``source`` to ``target``.

    With ``embedder`` (the target's model) and ``text_of`` (what it embeds of an entry,
    ``Vault.embed_text``), vectors of other models are not copied: every entry without
    a vector of ``embedder.name`` is embedded anew. Without, every vector is copied.

    Safe to run again after an interruption: it finishes what is missing. Raises
    ``ConflictError`` before writing anything when the target holds one of the ids,
    the reveal challenge or the audit log with other data, and ``StoreError`` when the
    stores disagree after the copy.
    """
    if source is target:
        raise ValidationError("the source and the target are the same store: name two stores")
    _check_batch(batch)
    if progress is not None and not callable(progress):
        raise ValidationError("progress must be a callable taking (done, total)")
    reembed = _reembed(embedder, text_of)
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

        report.append(_copy_user(source, target, uid, batch, step, reembed))
    # The copy searches with the model its vectors are of: the target's embedder when
    # it re-embedded, else the source's record (engine.vector_space).
    model = reembed.model if reembed else source.get_setting(MODEL_KEY)
    if model is not None:
        target.put_setting(MODEL_KEY, model, replace=True)
    # Entries signed by an integration stay its own in the copy.
    for signer in SIGNERS:
        key = source.get_setting(signing_setting(signer))
        if key is not None:
            target.put_setting(signing_setting(signer), key, replace=True)
    return MigrationReport(report, model=reembed.model if reembed else None)


def vault_checksum(
    store: Store, user_id: str, *, batch: int = 500, models: Collection[str] | None = None
) -> tuple[int, str]:
    """(entry count, sha256) of one user's vault: every entry's fields, its stored tokens,
    its sealed original and its vectors per model (of ``models`` only, when given; ``()``
    leaves vectors out), in id order, whatever the backend."""
    _check_batch(batch)
    if models is not None and (
        isinstance(models, str) or not all(isinstance(m, str) for m in models)
    ):
        raise ValidationError("models must be a collection of model names", field="models")
    count, checksum, _ = _digest(store, make_scope(user_id).user_id, batch, models)
    return count, checksum


def _digest(
    store: Store, uid: str, batch: int, models: Collection[str] | None = None
) -> tuple[int, str, int]:
    """``vault_checksum`` (over the vectors of ``models`` only, when given), and how
    many of the entries have a sealed original."""
    originals = 0
    models = store.vector_models(uid) if models is None else models
    vectors = {m: _vectors_by_id(store, uid, m) for m in models}
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
    if not _audit_to_copy(source, target, uid) and _lock_state(source, uid) != _lock_state(
        target, uid
    ):
        # The state moves with the last audit record; with none left to copy it cannot.
        raise ConflictError(
            f"the target holds the audit log of user {uid!r} but another reveal state "
            "(wrong answers, a lock): erase that user there (memvault erase-user) and run "
            "again; nothing was written",
            user_id=uid,
        )
    workspace_copy.refuse(source, target, uid)
    theirs = _documents(target, uid)
    for agent_id, document in _documents(source, uid).items():
        if agent_id in theirs and theirs[agent_id] != document:
            whose = "the user's own" if agent_id is None else f"agent {agent_id!r}'s"
            raise ConflictError(
                f"the target already holds another profile document ({whose}) for user "
                f"{uid!r}: migrate into an empty store (or erase that user there first); "
                "nothing was written",
                user_id=uid,
                agent_id=agent_id,
            )


def _copy_user(
    source: Store,
    target: Store,
    uid: str,
    batch: int,
    step: Callable[[int], None],
    reembed: _Reembed | None,
) -> UserCopy:
    owner = _owner(uid)
    models = source.vector_models(uid)
    has: set[str] = set()  # entries holding a vector of the target's model there
    if reembed is not None:
        models = [m for m in models if m == reembed.model]  # the others stay behind
        has = set(target.load_vectors(uid, reembed.model).ids)
    vectors = {m: _vectors_by_id(source, uid, m) for m in models}
    own = vectors.get(reembed.model, {}) if reembed is not None else {}
    copied = embedded = 0
    for chunk in _batches(source.iter_entries(owner), batch):
        there = {e.id for e in target.get_many(owner, [e.id for e in chunk])}
        fresh = [e for e in chunk if e.id not in there]
        if fresh:
            _copy_entries(source, target, uid, fresh, vectors, reembed)
            copied += len(fresh)
        if reembed is not None:
            embedded += sum(e.id not in own for e in fresh)
            # Held already but without a vector of the model (copied by a run without it).
            lacking = [e for e in chunk if e.id in there and e.id not in has]
            if lacking:
                with target.atomic():
                    _put(target, uid, reembed.model, lacking, reembed.embed(lacking))
                embedded += len(lacking)
        step(len(chunk))
    if (secret := source.reveal_secret(uid)) is not None and target.reveal_secret(uid) is None:
        target.set_reveal_secret(uid, *secret)
    audit = _audit_to_copy(source, target, uid)
    if audit:
        state = _lock_state(source, uid)
        *before, last = [replace(record, seq=0) for record in audit]
        with target.atomic():
            for record in before:
                target.append_audit(record)
            # The last record goes in with the source's wrong answers and lock, which it
            # (or an earlier record) brought about.
            target.change_reveal(uid, None, lambda _: (state, last))
    profiles = _copy_profiles(source, target, uid)
    workspace = workspace_copy.copy(source, target, uid)
    count, checksum, originals = _verify(source, target, uid, batch, reembed)
    return UserCopy(
        user_id=uid,
        entries=count,
        copied=copied,
        vectors=(
            len(target.load_vectors(uid, reembed.model).ids)
            if reembed
            else sum(len(v) for v in vectors.values())
        ),
        originals=originals,
        audit_copied=len(audit),
        checksum=checksum,
        embedded=embedded,
        profiles=profiles,
        workspace=workspace,
    )


def _copy_profiles(source: ProfileStore, target: ProfileStore, uid: str) -> int:
    """The user's profile documents the target lacks, each at its first revision there
    with the source's time (a conflicting one was refused before anything was written);
    how many the source holds."""
    theirs = _documents(target, uid)
    mine = source.profiles(uid)
    for profile in mine:
        if profile.agent_id not in theirs:
            target.put_profile(
                uid, profile.agent_id, profile.document, revision=0, now=profile.updated_at
            )
    return len(mine)


def _documents(store: ProfileStore, uid: str) -> dict[str | None, str]:
    return {p.agent_id: p.document for p in store.profiles(uid)}


def _verify(
    source: Store, target: Store, uid: str, batch: int, reembed: _Reembed | None
) -> tuple[int, str, int]:
    """Both stores hold the same vault of ``uid`` now, or ``StoreError`` says what
    differs; returns the source's ``_digest``."""
    models = () if reembed else None  # re-embedded vectors differ by design: checked below
    count, checksum, originals = _digest(source, uid, batch, models)
    target_count, target_checksum, _ = _digest(target, uid, batch, models)
    if (count, checksum) != (target_count, target_checksum):
        what = "entry counts" if count != target_count else "checksums"
        raise StoreError(
            f"after the copy the {what} of user {uid!r} differ (source {count} entries, "
            f"target {target_count}): the source changed during the run, or the target "
            "holds other entries of that user; stop the writers and run again"
        )
    if reembed is not None:
        ids = {e.id for e in source.iter_entries(_owner(uid))}
        missing = ids - set(target.load_vectors(uid, reembed.model).ids)
        if missing:
            raise StoreError(
                f"after the copy {len(missing)} entries of user {uid!r} have no "
                f"{reembed.model!r} vector on the target (changed during the run?): run again"
            )
    if len(_all_audit(source, uid)) != len(_all_audit(target, uid)):
        raise StoreError(
            f"after the copy the audit logs of user {uid!r} differ in length: run again"
        )
    if source.reveal_secret(uid) != target.reveal_secret(uid):
        raise StoreError(f"after the copy the reveal challenge of user {uid!r} differs")
    if _documents(source, uid) != _documents(target, uid):
        raise StoreError(
            f"after the copy the profile documents of user {uid!r} differ: someone saved "
            "one on either side during the run; stop the writers and run again"
        )
    if not workspace_copy.same(source, target, uid):
        raise StoreError(
            f"after the copy the state cards or tasks of user {uid!r} differ: someone saved "
            "one on either side during the run; stop the writers and run again"
        )
    if _lock_state(source, uid) != _lock_state(target, uid):
        raise StoreError(
            f"after the copy the reveal state (wrong answers, lock) of user {uid!r} differs: "
            "someone tried a reveal on either side during the run; run again"
        )
    return count, checksum, originals


def _copy_entries(
    source: Store,
    target: Store,
    uid: str,
    fresh: Sequence[MemoryEntry],
    vectors: dict[str, dict[str, npt.NDArray[np.float32]]],
    reembed: _Reembed | None,
) -> None:
    """Write one batch in one transaction: entries, tokens, originals, versions, vectors (the
    missing ones of the target's model embedded first, outside the transaction)."""
    ids = [e.id for e in fresh]
    docs = source.search_docs(uid, ids)
    if len(docs) != len(ids):
        raise StoreError(
            f"entries of user {uid!r} vanished from the source during the copy: "
            "stop the writers and run again"
        )
    originals = {i: o for i in ids if (o := source.get_original(uid, i)) is not None}
    anew: list[MemoryEntry] = []
    if reembed is not None:
        anew = [e for e in fresh if e.id not in vectors.get(reembed.model, {})]
    made = reembed.embed(anew) if reembed is not None and anew else None
    with target.atomic():
        target.insert([(e, docs[e.id]) for e in fresh], originals=originals or None)
        for version in source.versions(uid, ids):  # their history, in order
            target.add_version(version)
        for model, by_id in vectors.items():
            kept = [e for e in fresh if e.id in by_id]
            if kept:
                _put(target, uid, model, kept, [by_id[e.id] for e in kept])
        if reembed is not None and made is not None:
            _put(target, uid, reembed.model, anew, made)
        _copy_graph(source, target, uid, ids)


def _copy_graph(source: EntityGraph, target: EntityGraph, uid: str, ids: Sequence[str]) -> None:
    """The entries' links and relations, with their entities' names, types and aliases
    (inside the batch's transaction)."""
    links, rels = source.entry_links(uid, ids)
    wanted = sorted({i for linked in links.values() for i in linked})
    if not wanted:
        return
    found = source.entities(_owner(uid), ids=wanted, limit=len(wanted))
    entities = {e.id: e for e in found if e.aliases}
    by_entry: dict[str, list[RelationMention]] = {}
    for entry_id, s, t, kind in rels:
        if s in entities and t in entities:
            rel = RelationMention(entities[s].aliases[0], entities[t].aliases[0], kind)
            by_entry.setdefault(entry_id, []).append(rel)
    for entry_id, linked in links.items():
        mentions = [
            Mention(entities[i].aliases[0], entities[i].name, entities[i].type, True)
            for i in linked
            if i in entities
        ]
        target.link_entities(uid, entry_id, mentions, by_entry.get(entry_id, []))
    placed = target.find_entities(uid, [e.aliases[0] for e in entities.values()])
    for e in entities.values():
        for alias in e.aliases[1:]:
            target.add_alias(uid, placed[e.aliases[0]], alias)


def _put(
    target: Store,
    uid: str,
    model: str,
    entries: Sequence[MemoryEntry],
    vectors: Sequence[npt.NDArray[np.float32]] | npt.NDArray[np.float32],
) -> None:
    items = [VectorItem(e.id, e.updated_at, v) for e, v in zip(entries, vectors, strict=True)]
    if len(target.put_vectors(uid, model, items)) != len(items):
        raise StoreError(
            f"the target did not take every {model!r} vector of user {uid!r}: "
            "nothing of this batch was written; run again"
        )


def _audit_to_copy(source: RevealStore, target: RevealStore, uid: str) -> list[AuditRecord]:
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


@dataclass(frozen=True, slots=True)
class _Reembed:
    """The target's model, and what it embeds of an entry."""

    embedder: Embedder
    text_of: Callable[[MemoryEntry], str]

    @property
    def model(self) -> str:
        return self.embedder.name

    def embed(self, entries: Sequence[MemoryEntry]) -> npt.NDArray[np.float32]:
        vectors = np.asarray(self.embedder.embed([self.text_of(e) for e in entries]))
        if vectors.shape != (len(entries), self.embedder.dim):
            raise StoreError(
                f"the embedder {self.model!r} returned vectors of shape {vectors.shape} for "
                f"{len(entries)} texts (expected {self.embedder.dim} numbers each): "
                "check the embedding configuration; nothing of this batch was written"
            )
        return vectors.astype(np.float32, copy=False)


def _reembed(
    embedder: Embedder | None, text_of: Callable[[MemoryEntry], str] | None
) -> _Reembed | None:
    if embedder is None:
        if text_of is not None:
            raise ValidationError("text_of is for re-embedding: pass the embedder too")
        return None
    if not all(hasattr(embedder, a) for a in ("name", "dim", "embed")):
        raise ValidationError("embedder must be an Embedder (name, dim, embed)")
    if not callable(text_of):
        raise ValidationError(
            "re-embedding needs text_of, what the model embeds of an entry (Vault.embed_text)"
        )
    return _Reembed(embedder, text_of)


class _Peek(Exception):
    """Carries the reveal state out of ``change_reveal``, whose transaction it rolls back."""

    def __init__(self, state: RevealState) -> None:
        super().__init__("read only")
        self.state = state


def _lock_state(store: RevealStore, uid: str) -> RevealState:
    """The user's wrong answers and lock (no grant), read without writing anything."""

    def peek(state: RevealState) -> tuple[RevealState, AuditRecord]:
        raise _Peek(state)

    try:
        store.change_reveal(uid, None, peek)
    except _Peek as read:
        return replace(read.state, granted_until=None, granted_version=None)
    raise StoreError("the store did not hand over the reveal state")  # pragma: no cover


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


def _vectors_by_id(store: VectorStore, uid: str, model: str) -> dict[str, npt.NDArray[np.float32]]:
    stored = store.load_vectors(uid, model)
    return {i: stored.matrix[n] for n, i in enumerate(stored.ids)}


def _vector_bytes(v: npt.NDArray[np.float32]) -> bytes:
    return np.ascontiguousarray(v, dtype="<f4").tobytes()


def _canonical(e: MemoryEntry) -> bytes:
    return json.dumps(e.to_dict(), sort_keys=True, ensure_ascii=False).encode()


def _all_audit(store: RevealStore, uid: str) -> list[AuditRecord]:
    out: list[AuditRecord] = []
    after = 0
    while page := store.audit_log(uid, limit=_AUDIT_PAGE, after=after):
        out.extend(page)
        after = page[-1].seq
    return out


def _audit_key(r: AuditRecord) -> tuple[Any, ...]:
    return (r.at, r.actor, r.action, r.outcome, r.entry_id, r.detail)


__all__ = ["MigrationReport", "Progress", "UserCopy", "migrate_store", "vault_checksum"]

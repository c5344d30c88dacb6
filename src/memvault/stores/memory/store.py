"""An in-memory ``Store`` for tests and throwaway vaults.

It implements the same contract as the SQL backends (scope, atomic writes,
BM25 keyword search) with plain dicts, so tests can exercise the engine
without touching internals. Data is lost when the object goes away.

Why one file of about 620 lines: ``MemoryStore`` answers the core of the store protocols
(entries, keyword search, versions, audit, profiles, settings) over the same few dicts under
one lock; split further, each part would reach into that private state. The graph, the
workspace and the statistics are already apart (the mixins it is built from).
"""

from __future__ import annotations

import copy
import dataclasses
import threading
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from datetime import datetime
from typing import Any

import numpy as np

from ...errors import ConflictError, NotFoundError
from ...fields import EMBEDDED
from ...model import EntryOrder, MemoryEntry
from ...results.stats import UserMemories
from ..bm25 import (
    bm25_idf,
    bm25_part,
    doc_length,
    index_form,
    is_phrase,
    phrase_counter,
    phrase_weight,
    query_forms,
)
from ..protocols import CommitHooks, TermPlanner
from ..values import (
    DEFAULT_WEIGHTS,
    NO_FILTER,
    AuditRecord,
    EntryFilter,
    KeywordWeights,
    Mutation,
    RevealChange,
    RevealState,
    SearchDoc,
    StoredProfile,
    StoredVectors,
    StoredVersion,
    UsageRecord,
    UsageRow,
    VectorChanges,
    VectorItem,
    View,
    check_put,
    page_of_users,
    stale_revision,
    sum_usage,
)
from .graph import MemoryGraph
from .stats import MemoryStats
from .workspace import MemoryWorkspace


def _count_phrases(
    terms: Sequence[str],
    docs: Sequence[tuple[MemoryEntry, SearchDoc]],
    columns: list[list[Counter[str]]],
) -> None:
    """Put each phrase term's occurrences in the column counters, as if it were a token."""
    phrases = [(t, phrase_counter(t)) for t in terms if is_phrase(t)]
    if not phrases:
        return
    for (_, d), counters in zip(docs, columns, strict=True):
        for text, counter in zip((d.head, d.body, d.extra), counters, strict=True):
            for term, count in phrases:
                found = count(text)
                if found:
                    counter[term] = found


def _own(entry: MemoryEntry) -> MemoryEntry:
    """A copy whose metadata is not shared with the caller (entries are frozen, dicts are not)."""
    return entry.replace(metadata=copy.deepcopy(entry.metadata))


class MemoryStore(MemoryGraph, MemoryWorkspace, MemoryStats):
    """A ``Store`` that lives in a Python dict, guarded by a lock."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._rows: dict[tuple[str, str], tuple[MemoryEntry, SearchDoc]] = {}
        self._vectors: dict[tuple[str, str], tuple[str, np.ndarray]] = {}
        self._originals: dict[tuple[str, str], bytes] = {}
        self._locks: dict[str, RevealState] = {}  # per user: failures and lock
        self._grants: dict[tuple[str, str], tuple[datetime, str]] = {}  # until, version
        self._secrets: dict[str, tuple[bytes, bytes]] = {}
        self._audit: list[AuditRecord] = []
        self._audit_seq = 0
        self._usage: list[UsageRecord] = []
        self._settings: dict[str, str] = {}
        self._profiles: dict[tuple[str, str | None], StoredProfile] = {}
        # Earlier versions per (user, entry), oldest first (``values.StoredVersion``).
        self._versions: dict[tuple[str, str], tuple[StoredVersion, ...]] = {}
        self._closed = False
        self._hooks = CommitHooks()  # what waits for this thread's commit
        self._graph_init()
        self._workspace_init()

    def atomic(self) -> AbstractContextManager[None]:
        """A nesting write transaction (``protocols.Transactional``): the lock is held
        throughout, so no other thread sees a half-done block, and each level keeps a
        copy of the tables to put back if an exception leaves it. The copies are
        shallow: stored entries, documents and vectors are never changed in place.
        """
        return self._hooks.around(self._atomic())

    def after_commit(self, hook: Callable[[], None]) -> None:
        """See ``protocols.Transactional.after_commit``."""
        self._hooks.after_commit(hook)

    @contextmanager
    def _atomic(self) -> Iterator[None]:
        with self._lock:
            self._check_open()
            saved = self._state()
            try:
                yield
            except BaseException:
                self._restore(saved)
                raise

    def _state(self) -> tuple[Any, ...]:
        return (
            dict(self._rows),
            dict(self._vectors),
            dict(self._originals),
            dict(self._locks),
            dict(self._grants),
            dict(self._secrets),
            list(self._audit),
            self._audit_seq,
            list(self._usage),
            dict(self._settings),
            dict(self._versions),
            dict(self._profiles),
            self._graph_state(),
            self._workspace_state(),
        )

    def _restore(self, saved: tuple[Any, ...]) -> None:
        (
            self._rows,
            self._vectors,
            self._originals,
            self._locks,
            self._grants,
            self._secrets,
            self._audit,
            self._audit_seq,
            self._usage,
            self._settings,
            self._versions,
            self._profiles,
            graph,
            workspace,
        ) = saved
        self._graph_restore(graph)
        self._workspace_restore(workspace)

    def _check_open(self) -> None:
        if self._closed:
            from ...errors import StoreError

            raise StoreError("store is closed: open a new Vault")

    def insert(
        self,
        items: Sequence[tuple[MemoryEntry, SearchDoc]],
        *,
        originals: Mapping[str, bytes] | None = None,
    ) -> None:
        with self._lock:
            self._check_open()
            keys = [(e.user_id, e.id) for e, _ in items]
            if len(set(keys)) != len(keys) or any(k in self._rows for k in keys):
                raise ConflictError(
                    "an entry with one of these ids already exists for this user: "
                    "omit the id to get a new one, or update the existing entry"
                )
            for key, (entry, doc) in zip(keys, items, strict=True):
                self._rows[key] = (_own(entry), doc)
                if originals and entry.id in originals:
                    self._originals[key] = bytes(originals[entry.id])

    def get(self, view: View, entry_id: str) -> MemoryEntry | None:
        with self._lock:
            self._check_open()
            row = self._rows.get((view.user_id, entry_id))
        return _own(row[0]) if row is not None and view.sees(row[0]) else None

    def update(
        self, view: View, entry_id: str, mutate: Mutation, *, original: Any = ...
    ) -> MemoryEntry:
        with self._lock:
            self._check_open()
            current = self.get(view, entry_id)
            if current is None:
                raise NotFoundError(
                    f"no memory {entry_id!r} for user {view.user_id!r}: "
                    "list or search to find valid ids",
                    entry_id=entry_id,
                    user_id=view.user_id,
                )
            new, doc = mutate(current)
            if new.id != entry_id or new.user_id != view.user_id:
                raise ValueError("update may not change an entry's id or owner")
            self._rows[(view.user_id, entry_id)] = (_own(new), doc)
            if original is not ...:
                self._originals.pop((view.user_id, entry_id), None)
                if original is not None:
                    self._originals[(view.user_id, entry_id)] = bytes(original)
            if any(getattr(new, f) != getattr(current, f) for f in EMBEDDED):
                # What the embedder read changed: the vector is stale (as the SQL trigger does).
                self._vectors.pop((view.user_id, entry_id), None)
            return new

    def delete(self, view: View, entry_ids: Sequence[str]) -> list[str]:
        with self._lock:
            self._check_open()
            deleted = [i for i in dict.fromkeys(entry_ids) if self.get(view, i) is not None]
            for i in deleted:
                del self._rows[(view.user_id, i)]
                self._vectors.pop((view.user_id, i), None)
                self._originals.pop((view.user_id, i), None)
                self._grants.pop((view.user_id, i), None)
                self._versions.pop((view.user_id, i), None)
            self._graph_drop(view.user_id, deleted)
        return deleted

    def _visible(self, view: View, flt: EntryFilter) -> list[tuple[MemoryEntry, SearchDoc]]:
        with self._lock:
            self._check_open()
            return [(e, d) for e, d in self._rows.values() if view.sees(e) and flt.matches(e)]

    def list_entries(
        self,
        view: View,
        flt: EntryFilter = NO_FILTER,
        *,
        limit: int = 100,
        offset: int = 0,
        order: EntryOrder = EntryOrder.NEWEST,
    ) -> list[MemoryEntry]:
        rows = sorted(
            (e for e, _ in self._visible(view, flt)),
            key=order.sort_key,
            reverse=order is not EntryOrder.OLDEST,
        )
        return [_own(e) for e in rows[offset : offset + limit]]

    def iter_entries(self, view: View, flt: EntryFilter = NO_FILTER) -> Iterator[MemoryEntry]:
        for entry in sorted(
            (e for e, _ in self._visible(view, flt)), key=lambda e: (e.created_at, e.id)
        ):
            yield _own(entry)

    def count(self, view: View, flt: EntryFilter = NO_FILTER) -> int:
        return len(self._visible(view, flt))

    def keyword_search(
        self,
        view: View,
        terms: Sequence[str],
        *,
        flt: EntryFilter = NO_FILTER,
        limit: int = 10,
        weights: KeywordWeights = DEFAULT_WEIGHTS,
        planner: TermPlanner | None = None,
    ) -> list[tuple[MemoryEntry, float]]:
        """Okapi BM25 with per-column weights, over the view's own statistics (``bm25_part``)."""
        terms = query_forms(terms)
        if not terms:
            return []
        everything = self._visible(view, NO_FILTER)  # the view's statistics
        if not everything:
            return []
        columns = [
            [Counter(index_form(t) for t in text.split()) for text in (d.head, d.body, d.extra)]
            for _, d in everything
        ]
        _count_phrases(terms, everything, columns)
        lengths = [doc_length(d) for _, d in everything]
        n = len(everything)
        avg = (sum(lengths) / n) or 1.0
        wanted = [i for i, (e, _) in enumerate(everything) if flt.matches(e)]
        for_planning = flt.timeless()
        col_weights = (weights.head, weights.body, weights.extra)

        def has(i: int, term: str) -> bool:
            return any(col.get(term) for col in columns[i])

        def df(term: str) -> int:
            return sum(1 for i in range(n) if has(i, term))

        # Which terms are common is counted among the filtered entries, as in SQLite,
        # whose full-text index cannot see expiry: so, as there, expired ones count.
        planned = [i for i, (e, _) in enumerate(everything) if for_planning.matches(e)]

        # As in SQLite, the share rule counts the whole view, not just the filtered part.
        cutoff = planner.cutoff_for(n) if planner is not None else 0

        def is_common(term: str) -> bool:
            return cutoff > 0 and sum(1 for i in planned if has(i, term)) > cutoff

        ranked: list[tuple[int, float]] = []
        groups = planner.plan(terms, is_common) if planner is not None else [(" OR ", terms)]
        for g, (joiner, group) in enumerate(groups):
            idfs = {t: bm25_idf(n, df(t)) for t in group}
            for t in filter(is_phrase, group):
                idfs[t] *= phrase_weight(t, weights)
            scored: list[tuple[int, float]] = []
            for i in wanted:
                found = [t for t in group if has(i, t)]
                if not found or (joiner == " AND " and len(found) < len(group)):
                    continue
                score = 0.0
                for term in found:  # in query order, as SQLite adds them up
                    freq = sum(
                        w * col.get(term, 0) for w, col in zip(col_weights, columns[i], strict=True)
                    )
                    score += bm25_part(idfs[term], freq, lengths[i], avg)
                if score > 0:
                    scored.append((i, score))
            ranked = sorted(scored, key=lambda p: (-p[1], p[0]))  # ties: stored first
            if ranked or g == len(groups) - 1:
                break
        return [(_own(everything[i][0]), score) for i, score in ranked[:limit]]

    def get_many(self, view: View, entry_ids: Sequence[str]) -> list[MemoryEntry]:
        found = (self.get(view, i) for i in dict.fromkeys(entry_ids))
        return [e for e in found if e is not None]

    def touch(self, user_id: str, entry_ids: Sequence[str], at: datetime) -> None:
        with self._lock:
            self._check_open()
            for entry_id in dict.fromkeys(entry_ids):
                row = self._rows.get((user_id, entry_id))
                if row is None:
                    continue
                entry, doc = row
                last = entry.last_accessed_at
                seen = at if last is None or last < at else last
                touched = entry.replace(last_accessed_at=seen, access_count=entry.access_count + 1)
                self._rows[(user_id, entry_id)] = (_own(touched), doc)

    def user_ids(self) -> list[str]:
        with self._lock:
            self._check_open()
            return sorted({uid for uid, _ in self._rows})

    def user_counts(self, *, limit: int = 100, offset: int = 0) -> list[UserMemories]:
        with self._lock:
            self._check_open()
            return page_of_users(((uid, 1) for uid, _ in self._rows), limit=limit, offset=offset)

    def search_docs(self, user_id: str, entry_ids: Sequence[str]) -> dict[str, SearchDoc]:
        with self._lock:
            self._check_open()
            rows = (self._rows.get((user_id, i)) for i in entry_ids)
            return {row[0].id: row[1] for row in rows if row is not None}

    def metadata_values(self, user_id: str, key: str, *, limit: int = 200) -> list[Any]:
        with self._lock:
            self._check_open()
            values = [
                e.metadata[key]
                for (uid, _), (e, _) in self._rows.items()
                if uid == user_id and e.metadata.get(key) is not None
            ]
        return list(dict.fromkeys(v for v in values if isinstance(v, str | int | float)))[:limit]

    def put_vectors(self, user_id: str, model: str, items: Sequence[VectorItem]) -> list[str]:
        written: list[str] = []
        with self._lock:
            self._check_open()
            for item in items:
                row = self._rows.get((user_id, item.entry_id))
                if row is not None and row[0].updated_at == item.updated_at:
                    vector = np.array(item.vector, dtype=np.float32)
                    self._vectors[(user_id, item.entry_id)] = (model, vector)
                    written.append(item.entry_id)
        return written

    def load_vectors(self, user_id: str, model: str) -> StoredVectors:
        with self._lock:
            self._check_open()
            pairs = [
                (self._rows[key][0], vec)
                for key, (name, vec) in self._vectors.items()
                if key[0] == user_id and name == model
            ]
        if not pairs:
            return StoredVectors([], [], np.zeros((0, 0), dtype=np.float32))
        return StoredVectors(
            [e.id for e, _ in pairs],
            [e.agent_id for e, _ in pairs],
            np.stack([v for _, v in pairs]),
        )

    def missing_vectors(
        self, model: str, *, limit: int = 256, after: tuple[str, str] | None = None
    ) -> list[MemoryEntry]:
        after = after or ("", "")
        with self._lock:
            self._check_open()
            keys = sorted(
                k for k in self._rows if k > after and self._vectors.get(k, ("",))[0] != model
            )
            return [_own(self._rows[k][0]) for k in keys[:limit]]

    def vector_models(self, user_id: str) -> list[str]:
        with self._lock:
            self._check_open()
            return sorted({name for (uid, _), (name, _) in self._vectors.items() if uid == user_id})

    def vector_changes(self, user_id: str, model: str, since: int) -> VectorChanges | None:
        return None  # no log kept: nothing outside this object writes to it anyway

    def change_counter(self) -> int:
        return 0  # nothing outside this object can write to it

    def get_original(self, user_id: str, entry_id: str) -> bytes | None:
        with self._lock:
            self._check_open()
            return self._originals.get((user_id, entry_id))

    def change_reveal(
        self, user_id: str, entry_id: str | None, change: RevealChange
    ) -> RevealState:
        with self._lock:
            self._check_open()
            user = self._locks.get(user_id, RevealState())
            grant = self._grants.get((user_id, entry_id)) if entry_id is not None else None
            current = dataclasses.replace(
                user,
                granted_until=grant[0] if grant else None,
                granted_version=grant[1] if grant else None,
            )
            new, record = change(current)
            self._locks[user_id] = RevealState(new.failures, new.first_failure_at, new.locked_at)
            if entry_id is not None:
                if new.granted_until is None or new.granted_version is None:
                    self._grants.pop((user_id, entry_id), None)
                else:
                    self._grants[(user_id, entry_id)] = (new.granted_until, new.granted_version)
            self.append_audit(record)
            return new

    def append_audit(self, record: AuditRecord) -> None:
        with self._lock:
            self._check_open()
            self._audit_seq += 1  # never reused, even after an erase
            self._audit.append(dataclasses.replace(record, seq=self._audit_seq))

    def audit_log(
        self, user_id: str, *, entry_id: str | None = None, limit: int = 100, after: int = 0
    ) -> list[AuditRecord]:
        with self._lock:
            self._check_open()
            rows = [
                r
                for r in self._audit
                if r.user_id == user_id
                and r.seq > after
                and (entry_id is None or r.entry_id == entry_id)
            ]
        return rows[:limit]

    def reveal_secret(self, user_id: str) -> tuple[bytes, bytes] | None:
        with self._lock:
            self._check_open()
            return self._secrets.get(user_id)

    def set_reveal_secret(self, user_id: str, salt: bytes, digest: bytes) -> None:
        with self._lock:
            self._check_open()
            self._secrets[user_id] = (salt, digest)
            for key in [k for k in self._grants if k[0] == user_id]:
                del self._grants[key]

    def erase_user(self, user_id: str) -> list[str]:
        with self._lock:
            self._check_open()
            ids = sorted(i for u, i in self._rows if u == user_id)
            tables = (self._rows, self._vectors, self._originals, self._grants, self._versions)
            for table in tables:
                for key in [k for k in table if k[0] == user_id]:
                    del table[key]
            self._secrets.pop(user_id, None)
            self._locks.pop(user_id, None)
            self._audit = [r for r in self._audit if r.user_id != user_id]
            self._usage = [r for r in self._usage if r.user_id != user_id]
            self._profiles = {k: p for k, p in self._profiles.items() if k[0] != user_id}
            self._graph_drop_user(user_id)
            self._workspace_drop_user(user_id)
        return ids

    # -- profile documents ----------------------------------------------------------

    def get_profile(self, user_id: str, agent_id: str | None) -> StoredProfile | None:
        with self._lock:
            self._check_open()
            return self._profiles.get((user_id, agent_id))

    def put_profile(
        self,
        user_id: str,
        agent_id: str | None,
        document: str,
        *,
        revision: int,
        now: datetime,
    ) -> StoredProfile:
        check_put(agent_id, document, revision, now)
        with self._lock:
            self._check_open()
            current = self._profiles.get((user_id, agent_id))
            stored = current.revision if current is not None else 0
            if stored != revision:
                raise stale_revision(stored, revision)
            saved = StoredProfile(user_id, agent_id, document, revision + 1, now)
            self._profiles[(user_id, agent_id)] = saved
            return saved

    def delete_profile(self, user_id: str, agent_id: str | None) -> bool:
        with self._lock:
            self._check_open()
            return self._profiles.pop((user_id, agent_id), None) is not None

    def profiles(self, user_id: str) -> list[StoredProfile]:
        with self._lock:
            self._check_open()
            mine = [p for (u, _), p in self._profiles.items() if u == user_id]
        return sorted(mine, key=lambda p: (p.agent_id is not None, p.agent_id or ""))

    # -- the vault's settings ---------------------------------------------------------

    def get_setting(self, name: str) -> str | None:
        with self._lock:
            self._check_open()
            return self._settings.get(name)

    def put_setting(self, name: str, value: str, *, replace: bool) -> str:
        with self._lock:
            self._check_open()
            if replace or name not in self._settings:
                self._settings[name] = value
            return self._settings[name]

    def stored_vector_models(self) -> list[str]:
        with self._lock:
            self._check_open()
            counts = Counter(model for model, _ in self._vectors.values())
        return [m for m, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]

    # -- the token ledger -----------------------------------------------------------

    def record_usage(self, record: UsageRecord) -> None:
        with self._lock:
            self._check_open()
            self._usage.append(record)

    def usage(
        self, user_id: str | None, since: datetime, until: datetime | None = None
    ) -> list[UsageRow]:
        with self._lock:
            self._check_open()
            return sum_usage(
                r
                for r in self._usage
                if (user_id is None or r.user_id == user_id)
                and r.at >= since
                and (until is None or r.at < until)
            )

    def usage_records(self, user_id: str, *, limit: int = 100) -> list[UsageRecord]:
        with self._lock:
            self._check_open()
            mine = [r for r in self._usage if r.user_id == user_id]
        return sorted(mine, key=lambda r: r.at, reverse=True)[:limit]

    def add_version(self, version: StoredVersion) -> None:
        with self._lock:
            self._check_open()
            key = (version.user_id, version.entry_id)
            if key not in self._rows:
                raise NotFoundError(
                    f"no memory {version.entry_id!r} for user {version.user_id!r} to "
                    "keep a version of",
                    entry_id=version.entry_id,
                    user_id=version.user_id,
                )
            kept = self._versions.get(key, ())
            stored = dataclasses.replace(version, entry=_own(version.entry), seq=len(kept) + 1)
            self._versions[key] = (*kept, stored)

    def versions(self, user_id: str, entry_ids: Sequence[str]) -> list[StoredVersion]:
        with self._lock:
            self._check_open()
            return [
                dataclasses.replace(v, entry=_own(v.entry))
                for entry_id in sorted(set(entry_ids))
                for v in self._versions.get((user_id, entry_id), ())
            ]

    def health(self) -> dict[str, Any]:
        with self._lock:
            self._check_open()
            return {"backend": "memory", "entries": len(self._rows)}

    def close(self) -> None:
        with self._lock:
            self._closed = True


__all__ = ["MemoryStore"]

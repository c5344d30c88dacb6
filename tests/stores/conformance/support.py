"""Helpers every conformance module shares: entries, their index documents, and
shorthands for the calls the tests make over and over."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import numpy.typing as npt

from memvault import Kind, MemoryEntry, Store
from memvault.stores.values import AuditRecord, EntryFilter, RevealState, SearchDoc, View
from memvault.text import index_text

T0 = datetime(2026, 1, 1, tzinfo=UTC)

OWNER = View("alice", all_agents=True)
SHARED = View("alice")


def entry(
    entry_id: str,
    content: str,
    *,
    user: str = "alice",
    seconds: float = 0,
    **fields: Any,
) -> MemoryEntry:
    at = T0 + timedelta(seconds=seconds)
    return MemoryEntry(
        id=entry_id, user_id=user, content=content, created_at=at, updated_at=at, **fields
    )


def doc(e: MemoryEntry) -> SearchDoc:
    return SearchDoc(head=index_text(e.name, e.description), body=index_text(e.content))


def put(store: Store, *entries: MemoryEntry) -> list[MemoryEntry]:
    store.insert([(e, doc(e)) for e in entries])
    return list(entries)


def ids(entries: Sequence[MemoryEntry]) -> list[str]:
    return [e.id for e in entries]


def hit_ids(store: Store, view: View, *words: str, **kwargs: Any) -> list[str]:
    terms = [t for w in words for t in index_text(w).split()]
    return [e.id for e, _ in store.keyword_search(view, terms, **kwargs)]


# -- vectors

MODEL = "test-model"


def vec(*values: float) -> npt.NDArray[np.float32]:
    return np.array(values, dtype=np.float32)


def stored(store: Store, user: str = "alice", model: str = MODEL) -> dict[str, Any]:
    vectors = store.load_vectors(user, model)
    assert vectors.matrix.shape[0] == len(vectors.ids)
    return {
        i: (agent, tuple(float(x) for x in row))
        for i, agent, row in zip(vectors.ids, vectors.agent_ids, vectors.matrix, strict=True)
    }


# -- keyword statistics of one user's data

ISOLATION_QUERIES: list[tuple[str, EntryFilter]] = [
    ("zebra", EntryFilter()),
    ("zebra apple", EntryFilter()),
    ("apple pie recipe", EntryFilter()),
    ("lisbon trip coffee", EntryFilter()),
    ("coffee", EntryFilter(kind=Kind.PROJECT)),
    ("zebra lisbon", EntryFilter(session_id="s1")),
]


def alice_data() -> list[MemoryEntry]:
    words = ["zebra", "apple", "pie", "recipe", "lisbon", "trip", "coffee", "notes"]
    words += ["garden", "river", "piano", "stone", "cloud", "ember", "frost", "maple", "quill"]
    out = []
    for i in range(24):
        picked = " ".join(words[(i * k) % len(words)] for k in range(1, 2 + i % 5))
        out.append(
            entry(
                f"a{i}",
                f"{picked} entry {i}" + " filler" * (i % 4),
                seconds=i,
                name="zebra" if i % 7 == 0 else "",
                agent_id=("a1" if i % 3 == 1 else "a2" if i % 3 == 2 else None),
                kind=Kind.PROJECT if i % 2 else Kind.USER,
                session_id="s1" if i % 4 == 0 else None,
            )
        )
    # Two entries that score exactly alike: their order is the order they were stored.
    out += [
        entry("twin1", "lisbon coffee", seconds=90),
        entry("twin2", "lisbon coffee", seconds=91),
    ]
    return out


def scores_of(store: Store, views: Sequence[View]) -> list[list[tuple[str, float]]]:
    out = []
    for view in views:
        for query, flt in ISOLATION_QUERIES:
            terms = index_text(query).split()
            ranked = store.keyword_search(view, terms, flt=flt, limit=50)
            out.append([(e.id, score) for e, score in ranked])
    return out


# -- reveal state


def audit_row(user: str, action: str, entry_id: str | None = None) -> AuditRecord:
    return AuditRecord(T0, user, "tester", action, "ok", entry_id)


def put_state(new: RevealState, user: str = "alice", entry_id: str | None = None) -> Any:
    return lambda _old: (new, audit_row(user, "test", entry_id))


def read_state(store: Store, user: str, entry_id: str | None) -> RevealState:
    seen: list[RevealState] = []

    def look(state: RevealState) -> tuple[RevealState, AuditRecord]:
        seen.append(state)
        return state, audit_row(user, "look", entry_id)

    store.change_reveal(user, entry_id, look)
    return seen[0]

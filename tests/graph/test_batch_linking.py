"""A batch stores what its messages store one by one (issue 29 item 5).

``add_many`` does the graph's work once per batch (one lookup of the names a user
already has for all of its entries, the keys each entry adds remembered for those
after it), so a batch and the same messages written one at a time must leave the same
entity graph, the same keyword documents and statistics and the same entries, on
every backend. Two users of one vault get the same realistic sample (English and
Chinese chat lines with names, long answers with code, names written in lower case
once they are known, sessions whose turns are each other's context): one in batches,
one message by message.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from memvault import Vault
from memvault.stores.values import View
from memvault.text import index_text

from .test_extraction_pinned import sample

SERVER_BACKENDS = True  # the graph and keyword SQL differ by backend: run them all

# The sample's long composites, its hand-written cases, and every tenth line between.
_LINES = sample()
_PICKED = _LINES[:-16:10] + _LINES[-16:]
_QUERIES = [
    "Caroline",
    "lisbon zeus",
    "ClickHouse PostgreSQL",
    "北京 出差",
    "项目 星河",
    "清华大学",
]


def _records() -> list[dict[str, Any]]:
    return [
        {
            "content": text,
            "metadata": {"speaker": speaker, "n": n},
            "session_id": f"s{n // 12}",
        }
        for n, (speaker, text) in enumerate(_PICKED)
    ]


def _what_is_stored(vault: Vault, user: str) -> dict[str, Any]:
    """The user's entries, keyword documents, scores and graph, keyed by the sample's
    numbers and the entities' names (ids and times differ between two users)."""
    store = vault.store
    view = View(user, all_agents=True)
    entries = {e.metadata["n"]: e for e in store.list_entries(view, limit=1000)}
    number = {e.id: n for n, e in entries.items()}
    fields = ("name", "content", "description", "domain", "sensitivity", "quarantine", "kind")
    fields += ("workspace_id",)
    kept = {n: [getattr(e, f) for f in fields] for n, e in sorted(entries.items())}
    docs = store.search_docs(user, list(number))
    scores = []
    for query in _QUERIES:
        ranked = store.keyword_search(view, index_text(query).split(), limit=50)
        scores.append([(number[e.id], round(score, 9)) for e, score in ranked])
    entities = store.entities(view, limit=10_000)
    name = {x.id: (x.name, x.type) for x in entities}
    links, relations = store.entry_links(user, list(number))
    return {
        "entries": kept,
        "docs": {number[i]: d for i, d in docs.items()},
        "scores": scores,
        "entities": sorted((x.name, x.type, x.entries, sorted(x.aliases)) for x in entities),
        "links": {number[i]: sorted(name[x] for x in ids) for i, ids in links.items()},
        "relations": sorted((number[i], name[s], name[t], kind) for i, s, t, kind in relations),
    }


def test_a_batch_stores_what_its_messages_store_one_by_one(vault: Vault) -> None:
    records = _records()
    for user in ("batch", "single"):  # their turns take the workspace of their session
        for session, workspace in (("s1", "w1"), ("s3", "w3")):
            vault.store.link_session(user, session, workspace, now=datetime.now(UTC))
    for start in range(0, len(records), 25):
        vault.add_many(records[start : start + 25], user_id="batch")
    for record in records:
        vault.add_many([record], user_id="single")

    batch, single = _what_is_stored(vault, "batch"), _what_is_stored(vault, "single")
    assert len(batch["entries"]) == len(records)
    assert sum(fields[-1] == "w1" for fields in batch["entries"].values()) == 12
    # The sample names things, some in lower case only once they are known.
    assert len(batch["entities"]) > 50 and len(batch["relations"]) > 50
    for part in ("entries", "docs", "scores", "entities", "links", "relations"):
        assert batch[part] == single[part], part

"""Tier preference inside each channel (issue 16 item 2): a year of archived
near-duplicates never takes every candidate slot of a channel, so the one active entry
is still recalled within the limit, by keyword and by meaning; an archived entry that
is the only match is still found. Real SQLite files, the hashing embedder (exact)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memvault import Vault, load_config
from memvault.embed import HashingEmbedder
from memvault.model import MemoryEntry

LIMIT = 5
STALE = 60  # more than the 50 candidates each channel contributes


def _vault(tmp_path: Path, *, prefer: bool, name: str) -> Vault:
    config = load_config(
        environ={},
        home=tmp_path / name,
        embedding={"background": False},
        retrieval={"tier_preference": prefer, "min_similarity": 0.0},
    )
    return Vault(tmp_path / f"{name}.db", config=config, embedder=HashingEmbedder())


def _fill(v: Vault) -> MemoryEntry:
    """``STALE`` archived notes and a few cold ones, all nearer to the query than the
    one active entry, which is written last."""
    for i in range(STALE):
        e = v.add(f"Alice drives a red car to work, note {i}", user_id="alice")
        v.update(e.id, user_id="alice", tier="archive")
    for i in range(3):
        e = v.add(f"Alice drives a red car to work, cold note {i}", user_id="alice")
        v.update(e.id, user_id="alice", tier="cold")
    v.add("Bob walks to the office", user_id="alice")
    return v.add("Alice drives a red car to work every day now", user_id="alice")


@pytest.fixture(params=[True, False], ids=["preferred", "plain"])
def filled(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Vault, str, bool]]:
    v = _vault(tmp_path, prefer=request.param, name="pref" if request.param else "plain")
    active = _fill(v)
    yield v, active.id, request.param
    v.close()


def test_the_active_entry_is_found_within_the_limit_on_every_channel(
    filled: tuple[Vault, str, bool],
) -> None:
    v, active, prefer = filled
    why = v.explain("Alice drives a red car to work", user_id="alice", limit=LIMIT)
    ranks = next((c.channels for c in why.candidates if c.entry.id == active), {})
    if not prefer:  # what the preference is for: without it the channels never see it
        assert ranks == {}
        return
    assert set(ranks) == {"keyword", "vector"}
    assert ranks["keyword"].rank <= LIMIT and ranks["vector"].rank <= LIMIT
    hits = v.search("Alice drives a red car to work", user_id="alice", limit=LIMIT)
    assert hits[0].entry.id == active
    # Among the demoted ones of similar relevance, cold comes before archive.
    tiers = [h.entry.tier.value for h in hits]
    assert tiers[: 1 + 3] == ["active", "cold", "cold", "cold"]


def test_a_tier_filter_still_gets_that_tier(filled: tuple[Vault, str, bool]) -> None:
    v, active, _ = filled
    hits = v.search("red car", user_id="alice", limit=LIMIT, tier="archive")
    assert len(hits) == LIMIT and {h.entry.tier.value for h in hits} == {"archive"}
    assert active not in {h.entry.id for h in v.search("red car", user_id="alice", tier="cold")}


def test_an_archived_only_match_is_still_found(tmp_path: Path) -> None:
    v = _vault(tmp_path, prefer=True, name="only")
    with v:
        for i in range(60):
            v.add(f"an unrelated active note about gardening {i}", user_id="alice")
        old = v.add("the passport number is kept in the blue folder", user_id="alice")
        v.update(old.id, user_id="alice", tier="archive")
        hits = v.search("where is the passport kept", user_id="alice", limit=LIMIT)
        assert hits[0].entry.id == old.id
        why = v.explain("where is the passport kept", user_id="alice", limit=LIMIT)
        assert why.candidates[0].channels["keyword"].rank == 1


def test_a_demoted_entry_that_matches_far_better_keeps_its_place(tmp_path: Path) -> None:
    v = _vault(tmp_path, prefer=True, name="far")
    with v:
        cold = v.add("Mel painted a sunrise over the harbour in watercolours", user_id="alice")
        v.update(cold.id, user_id="alice", tier="cold")
        weak = v.add(
            "a long note that mentions a harbour once among many other words about "
            "the weather, trains, groceries, errands, plans and the week ahead",
            user_id="alice",
        )
        why = v.explain("Mel sunrise harbour watercolours", user_id="alice", limit=LIMIT)
        ranks = {c.entry.id: c.channels["keyword"].rank for c in why.candidates}
        assert ranks[cold.id] == 1 and ranks[weak.id] == 2

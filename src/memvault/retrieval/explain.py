"""``Vault.explain``'s answer: why each candidate of a search ranked where it did.

An :class:`Explanation` is the search's own computation (``retrieval.recall``) kept
as data — every candidate's rank and raw score per channel, the fused score, each
boost factor, the final score and order — plus what ``Vault.context`` would do with
the candidate: inject it, show a placeholder (the scan flags it now and no person
approved it), leave it out as held for review, as not relevant, or as withheld by the
screen of the block (the model screen, or an instruction split across memories) — and
the relevance gate's reading of the query (``retrieval.relevance``).
"""

from __future__ import annotations

from collections.abc import Mapping

from ..results.recall import CandidateTrace, ChannelScore, ContextUse, Explanation
from ..security.quarantine import injectable
from .recall import Recall, Recalled, Search
from .relevance import Relevance


def explanation(
    recalled: Recalled,
    *,
    text: str,
    limit: int,
    relevance: Relevance,
    withheld: Mapping[str, str] | None = None,
) -> Explanation:
    """The explanation of a recall run; ``relevance`` is ``context()``'s gate, and
    ``withheld`` why each memory the block's screen left out was (``Recall.screened``)."""
    withheld = withheld or {}
    gate = relevance.gate(text, recalled.vector, [c.sources for c in recalled.candidates])
    terms = recalled.query.terms
    traces = []
    for rank, c in enumerate(recalled.candidates, start=1):
        word = relevance.matched(c, terms)
        is_relevant, why = gate.evidence(c.sources, word)
        clean = injectable(c.entry)
        use: ContextUse
        if c.entry.quarantine is not None:
            use = "held"
        elif not is_relevant:
            use = "not relevant"
        elif c.entry.id in withheld:
            use = "withheld"
        else:
            use = "injected" if clean else "placeholder"
        traces.append(
            CandidateTrace(
                rank=rank,
                entry=c.entry,
                channels=c.channels,
                fused=c.fused,
                importance=c.importance,
                recency=c.recency,
                tier=c.tier,
                person=c.person,
                score=c.score,
                returned=rank <= limit,
                relevant=is_relevant,
                injectable=clean,
                context=use,
                evidence=why,
                word_match=word,
                fusion_rank=c.fusion_rank,
                rerank=c.rerank,
                features=c.features,
                withheld=withheld.get(c.entry.id) if use == "withheld" else None,
            )
        )
    return Explanation(
        query=text,
        terms=recalled.query.terms,
        person=recalled.query.person,
        channels=recalled.channels,
        depth=recalled.depth,
        limit=limit,
        now=recalled.now,
        candidates=tuple(traces),
        expired=tuple(recalled.expired),
        gate=gate,
        phrases=recalled.query.phrases,
        stage=recalled.stage,
        stage_note=recalled.stage_note,
    )


def explain(recall: Recall, search: Search, relevance: Relevance) -> Explanation:
    """``search``'s own computation as data: the run ``Recall.hits`` makes, kept whole,
    read by ``relevance`` (``context()``'s gate)."""
    recalled = recall.run(search)
    _, withheld = recall.screened(search.view, relevance.select(recalled, search.limit))
    return explanation(
        recalled, text=search.text, limit=search.limit, relevance=relevance, withheld=withheld
    )


__all__ = [
    "ChannelScore",
    "explain",
    "explanation",
]

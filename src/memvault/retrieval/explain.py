"""``Vault.explain``'s answer: why each candidate of a search ranked where it did.

An :class:`Explanation` is the search's own computation (``retrieval.recall``) kept
as data — every candidate's rank and raw score per channel, the fused score, each
boost factor, the final score and order — plus what ``Vault.context`` would do with
the candidate: inject it, show a placeholder (the scan flags it now and no person
approved it), leave it out as held for review, or leave it out as not relevant — and
the relevance gate's reading of the query (``retrieval.relevance``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from ..model import Hit, MemoryEntry
from ..security.quarantine import injectable
from .recall import ChannelScore, Recall, Recalled, Search
from .relevance import Gate, Relevance

#: What ``context()`` does with a candidate among its hits (before the token budget).
ContextUse = Literal["injected", "placeholder", "held", "not relevant"]


@dataclass(frozen=True, slots=True)
class CandidateTrace:
    """One candidate: ``score = fused * importance * recency * tier * person``, or, when
    the second stage ran (``Explanation.stage == "rerank"``), ``score`` the model's logit
    plus ``log(importance * recency * tier)``, squashed to (0, 1), ``rerank`` being
    the learned model's score over ``features``; ``fusion_rank`` is its place in the fused
    order before that.

    ``rank`` is the final order (from 1); ``returned`` is whether ``search`` with the
    same arguments returns it (its rank is within the limit).
    """

    rank: int
    entry: MemoryEntry
    channels: dict[str, ChannelScore]
    fused: float
    importance: float
    recency: float
    tier: float
    person: float
    score: float
    returned: bool
    relevant: bool
    injectable: bool
    context: ContextUse
    evidence: str | None = None  # why it is relevant: "keyword", "meaning" or None
    word_match: bool = False  # the keyword channel found it through a word of its own text
    fusion_rank: int = 0
    rerank: float | None = None
    features: dict[str, float] | None = None

    @property
    def sources(self) -> dict[str, float]:
        """Each channel's raw score, as ``Hit.sources`` carries it."""
        return {name: found.score for name, found in self.channels.items()}

    def to_dict(self) -> dict[str, Any]:
        return {
            "rank": self.rank,
            "id": self.entry.id,
            "channels": {
                name: {"rank": found.rank, "score": found.score}
                for name, found in self.channels.items()
            },
            "fused": self.fused,
            "fusion_rank": self.fusion_rank,
            "rerank": self.rerank,
            "features": None if self.features is None else dict(self.features),
            "boosts": {
                "importance": self.importance,
                "recency": self.recency,
                "tier": self.tier,
                "person": self.person,
            },
            "score": self.score,
            "returned": self.returned,
            "relevant": self.relevant,
            "evidence": self.evidence,
            "word_match": self.word_match,
            "injectable": self.injectable,
            "quarantine": self.entry.quarantine,
            "context": self.context,
            "entry": self.entry.to_dict(),
        }


@dataclass(frozen=True, slots=True)
class Explanation:
    """The trace of one search: its query as the channels saw it, and every candidate."""

    query: str
    terms: tuple[str, ...]  # the keyword channel's terms
    person: str | None  # the one known person the query names (boosted)
    channels: tuple[str, ...]  # the channels that ran, in order
    depth: int  # how many candidates each channel could contribute
    limit: int
    now: datetime  # the clock reading recency and expiry were computed at
    candidates: tuple[CandidateTrace, ...]  # best first, all of them (not just ``limit``)
    expired: tuple[str, ...]  # ids a channel found but expiry left out
    gate: Gate | None = None  # how context() judged the query (``retrieval.relevance``)
    phrases: tuple[str, ...] = ()  # the keyword channel's phrases (CJK runs as bigrams)
    stage: str = "fusion"  # what set the final order: "fusion" or "rerank" (the second stage)
    stage_note: str = ""  # why the configured second stage did not run, if it did not

    @property
    def hits(self) -> list[Hit]:
        """Exactly what ``search`` returns for the same arguments."""
        return [Hit(c.entry, c.score, c.sources) for c in self.candidates if c.returned]

    def to_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "terms": list(self.terms),
            "phrases": list(self.phrases),
            "person": self.person,
            "channels": list(self.channels),
            "depth": self.depth,
            "limit": self.limit,
            "now": self.now.isoformat(),
            "candidates": [c.to_dict() for c in self.candidates],
            "expired": list(self.expired),
            "stage": self.stage,
            "stage_note": self.stage_note,
            "gate": None
            if self.gate is None
            else {
                "by_meaning": self.gate.by_meaning,
                "best": self.gate.best,
                "background": self.gate.background,
                "margin": self.gate.margin,
            },
        }

    def format(self, rows: int | None = None, *, width: int = 32) -> str:
        """A readable table of the first ``rows`` candidates (default: the returned ones)."""
        shown = self.candidates[: self.limit if rows is None else rows]
        reranked = self.stage == "rerank"
        head = ["#", *self.channels, "fused", "×imp", "×rec", "×tier", "×person"]
        head += ["fusion#", "rerank"] if reranked else ["score"]
        table = [[*head, "context", "content"]]
        for c in shown:
            ranks = [
                f"#{c.channels[n].rank} {c.channels[n].score:.3g}" if n in c.channels else "-"
                for n in self.channels
            ]
            factors = [f"{f:.3f}" for f in (c.importance, c.recency, c.tier, c.person)]
            text = " ".join(c.entry.content.split())
            text = text if len(text) <= width else text[: width - 1] + "…"
            tail = [f"#{c.fusion_rank}", f"{c.score:.4f}"] if reranked else [f"{c.score:.5f}"]
            table.append([str(c.rank), *ranks, f"{c.fused:.5f}", *factors, *tail, c.context, text])
        sizes = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
        lines = [
            f"query {self.query!r} -> terms {' '.join(self.terms) or '-'}"
            + (", phrases " + ", ".join(map(repr, self.phrases)) if self.phrases else "")
            + (f", person {self.person!r}" if self.person else "")
            + (", order: learned rerank over the fused candidates" if reranked else "")
        ]
        if self.stage_note:
            lines.append(self.stage_note)
        gate = self.gate
        if gate is not None and gate.margin is not None:
            lines.append(
                f"relevance: best cosine {gate.best:.3f} - background {gate.background:.3f} "
                f"= margin {gate.margin:+.3f}"
            )
        elif gate is not None:
            lines.append("relevance: by keyword evidence only")
        lines += [
            "  ".join(cell.ljust(size) for cell, size in zip(row, sizes, strict=True)).rstrip()
            for row in table
        ]
        more = len(self.candidates) - len(shown)
        if more > 0:
            lines.append(f"... {more} more candidates (format(rows=N) shows them)")
        if self.expired:
            lines.append(f"{len(self.expired)} expired candidates left out")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.format()


def explanation(recalled: Recalled, *, text: str, limit: int, relevance: Relevance) -> Explanation:
    """The explanation of a recall run; ``relevance`` is ``context()``'s gate."""
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
        else:
            use = "injected" if clean else "placeholder"
        traces.append(
            CandidateTrace(
                rank,
                c.entry,
                c.channels,
                c.fused,
                c.importance,
                c.recency,
                c.tier,
                c.person,
                c.score,
                rank <= limit,
                is_relevant,
                clean,
                use,
                why,
                word,
                c.fusion_rank,
                c.rerank,
                c.features,
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
    return explanation(recalled, text=search.text, limit=search.limit, relevance=relevance)


__all__ = [
    "CandidateTrace",
    "ChannelScore",
    "ContextUse",
    "Explanation",
    "explain",
    "explanation",
]

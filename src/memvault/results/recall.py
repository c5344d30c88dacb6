"""A search's computation as data: ``Vault.explain``'s trace of every candidate (its rank
and raw score per channel, the fused score, the boosts, what ``context`` does with it)
and the relevance gate's reading of the query, with the gate's settings per model."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from ..model import Hit, MemoryEntry


@dataclass(frozen=True, slots=True)
class ChannelScore:
    """Where one channel put a candidate: its rank (from 1) and the channel's raw score
    (BM25 for ``keyword``, cosine similarity for ``vector``, summed entity weights for
    ``graph``)."""

    rank: int
    score: float


@dataclass(frozen=True, slots=True)
class Calibration:
    """The gate's three settings, as measured for one model (``bench/paraphrase.py --sweep``).

    Each model has its own scale of cosines (MiniLM puts unrelated texts near 0.1,
    multilingual-e5 near 0.75), so a margin or floor that suits one is meaningless for
    another: a setting left unset in ``context`` takes the model's own value.
    """

    margin: float
    band: float
    min_similarity: float


#: Measured settings by model name (the first part of an embedder's identity). A model
#: not listed (an API embedder) gets MiniLM's, the scale of most sentence models.
CALIBRATIONS: dict[str, Calibration] = {
    "all-MiniLM-L6-v2": Calibration(margin=-0.06, band=0.3, min_similarity=0.2),
    # The default: English is MiniLM itself, and e5's cosines reach the gate mapped onto
    # MiniLM's scale (``embed.bilingual``), so MiniLM's settings hold for both languages
    # (bench/paraphrase.py, 2026-12-06: English 0.883 / 0.900, Chinese 0.933 / 0.833).
    "bilingual-minilm-e5": Calibration(margin=-0.06, band=0.3, min_similarity=0.2),
    # e5's cosines sit high and close together: a smaller margin and a tight band. Its
    # floor changes nothing measured (its cosines are above 0.6), kept for symmetry.
    "multilingual-e5-small": Calibration(margin=-0.02, band=0.1, min_similarity=0.2),
}


DEFAULT_CALIBRATION = CALIBRATIONS["all-MiniLM-L6-v2"]


@dataclass(frozen=True, slots=True)
class Gate:
    """How one query was judged: by meaning (``margin`` set) or by keywords alone.

    ``best`` is the best cosine among the candidates, ``background`` the query's best
    cosine to :data:`BACKGROUND`, ``margin`` their difference; all None when the
    query was not judged by meaning (no embedder, or a script the model does not read).
    """

    best: float | None
    background: float | None
    margin: float | None
    settings: Calibration

    @property
    def by_meaning(self) -> bool:
        return self.margin is not None

    def evidence(self, sources: dict[str, float], keyword_match: bool) -> tuple[bool, str | None]:
        """Whether a hit is relevant, and why: ``"keyword"``, ``"meaning"`` or None."""
        cc = self.settings
        if self.margin is not None and self.margin < cc.margin:
            return False, None  # the query is nearer to everyday requests than to this vault
        if keyword_match:
            return True, "keyword"
        sim = sources.get("vector")
        if (
            sim is not None
            and self.best is not None
            and sim >= cc.min_similarity
            and sim >= self.best - cc.band
        ):
            return True, "meaning"
        return False, None


#: What ``context()`` does with a candidate among its hits (before the token budget).
ContextUse = Literal["injected", "placeholder", "held", "not relevant", "withheld"]


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
    withheld: str | None = None  # why the block's screen left it out ("withheld")

    @property
    def sources(self) -> dict[str, float]:
        """Each channel's raw score, as ``Hit.sources`` carries it."""
        return {name: found.score for name, found in self.channels.items()}

    @property
    def shown(self) -> bool:
        """Whether ``context()`` shows it (its text, or the placeholder of a flagged one)."""
        return self.context in ("injected", "placeholder")

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
            "withheld": self.withheld,
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


__all__ = [
    "CALIBRATIONS",
    "DEFAULT_CALIBRATION",
    "Calibration",
    "CandidateTrace",
    "ChannelScore",
    "ContextUse",
    "Explanation",
    "Gate",
]

"""Which profile facts go into the prompt (seed 001 §2.6, §3.6).

A profile gathers facts for as long as the user talks to the agent; injecting all of
them would crowd the prompt and bury the few that matter. So before a model call the
facts are ranked against the last three turns of the conversation:

    score = TF-IDF cosine similarity × 0.6 + confidence × 0.4

and the best 15 are rendered, as many as fit a token budget. A fact the conversation
does not touch can still come in on its confidence alone, as the seed intends: what is
known for sure about a person is often worth saying.

The TF-IDF is written here, over the project's own search tokens (:mod:`memvault.text`:
Snowball-stemmed English words, jieba words plus character bigrams for Chinese and
Japanese), rather than taken from scikit-learn. scikit-learn's vectoriser splits on a
Latin word pattern, so a Chinese sentence is one "word" to it and two Chinese texts
about the same thing share nothing; it is also a large dependency for some fifty lines
of arithmetic. The arithmetic is scikit-learn's default: raw term counts, smoothed idf
``ln((1 + n) / (1 + df)) + 1`` over the facts and the conversation together, and
vectors scaled to unit length, so the cosine is a dot product.

Ties are broken the same way every time: higher confidence, then the newer fact, then
the fact id.
"""

from __future__ import annotations

import functools
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from ..errors import ValidationError
from ..render import build_memory_context_block, count_tokens
from ..results.profile import Fact
from ..security.pii import redact
from ..security.scan import scan
from ..text import tokenize
from .messages import filter_messages

#: How many facts are injected at most (seed 001 §2.6).
DEFAULT_TOP_K = 15
#: How many of the latest turns the facts are matched against.
DEFAULT_TURNS = 3
SIMILARITY_WEIGHT = 0.6
CONFIDENCE_WEIGHT = 0.4
#: Token budget of the rendered block: 15 facts of about 20 tokens (seed 001 §2.6)
#: with room for the block's tags and note.
DEFAULT_MAX_TOKENS = 500

FACTS_HEADER = "Facts known about the user, most relevant first:"
PROFILE_HEADER = "The user's profile, summarised from earlier conversations:"
#: Extra tokens the profile's summaries may take beside the facts' budget.
DEFAULT_SUMMARY_TOKENS = 400
#: How each summary of a profile is labelled in the prompt, in prompt order.
SUMMARY_LABELS: tuple[tuple[str, str], ...] = (
    ("workContext", "Work context"),
    ("personalContext", "Personal context"),
    ("topOfMind", "Top of mind"),
    ("recentMonths", "Recent months"),
    ("earlierContext", "Earlier context"),
    ("longTermBackground", "Long-term background"),
)

_OLDEST = datetime.min.replace(tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class ScoredFact:
    """A fact with its score and the similarity that went into it."""

    fact: Fact
    score: float
    similarity: float


def recent_text(conversation: str | Sequence[Any], turns: int = DEFAULT_TURNS) -> str:
    """The text of the last ``turns`` turns of ``conversation``.

    ``conversation`` is a plain string (taken whole), or a list of chat messages in any
    shape :func:`~memvault.profile.messages.filter_messages` accepts; only the messages
    it keeps count. A turn is a user message and the answers after it; answers before
    the first user message make a turn of their own.
    """
    if isinstance(conversation, str):
        return conversation
    _check_count(turns, "turns", minimum=1)
    grouped: list[list[str]] = []
    for message in filter_messages(conversation):
        if message.role == "user" or not grouped:
            grouped.append([])
        grouped[-1].append(message.content)
    return "\n".join(text for turn in grouped[-turns:] for text in turn)


def _vector(counts: Iterable[tuple[str, int]], idf: Mapping[str, float]) -> dict[str, float]:
    """Unit-length TF-IDF weights of a text's term counts; empty when there are none."""
    weights = {term: count * idf[term] for term, count in counts}
    norm = math.sqrt(sum(w * w for w in weights.values()))
    if norm == 0.0:
        return {}
    return {term: w / norm for term, w in weights.items()}


@functools.lru_cache(maxsize=16384)
def _terms(text: str) -> tuple[tuple[str, int], ...]:
    """The term counts of ``text``. Kept, since the same facts are ranked again before
    every model call and tokenizing them was most of a selection's time."""
    return tuple(Counter(tokenize(text)).items())


def similarities(texts: Sequence[str], query: str) -> list[float]:
    """The TF-IDF cosine similarity of each of ``texts`` with ``query``, each in [0, 1].

    The idf is fitted on ``texts`` and ``query`` together, as the seed does.
    """
    documents = [_terms(text) for text in texts]
    query_terms = tuple(Counter(tokenize(query)).items())
    frequency: Counter[str] = Counter()
    for terms in [*documents, query_terms]:
        frequency.update(term for term, _count in terms)
    n = len(documents) + 1
    idf = {term: math.log((1 + n) / (1 + df)) + 1.0 for term, df in frequency.items()}
    q = _vector(query_terms, idf)
    out = []
    for terms in documents:
        if not q or not any(term in q for term, _count in terms):
            out.append(0.0)
            continue
        d = _vector(terms, idf)
        # Rounded so that the same overlap scores the same whatever order the terms
        # were summed in; then clamped against the last bit of float error.
        dot = sum(w * q[t] for t, w in d.items() if t in q)
        out.append(min(1.0, max(0.0, round(dot, 12))))
    return out


def select_facts(
    facts: Sequence[Fact],
    conversation: str | Sequence[Any],
    *,
    top_k: int = DEFAULT_TOP_K,
    turns: int = DEFAULT_TURNS,
    similarity_weight: float = SIMILARITY_WEIGHT,
    confidence_weight: float = CONFIDENCE_WEIGHT,
) -> list[ScoredFact]:
    """The ``top_k`` facts most worth injecting for ``conversation``, best first.

    ``conversation``: the chat messages (their last ``turns`` turns count) or a plain
    query text (see :func:`recent_text`). Each fact scores its similarity with that
    text × ``similarity_weight`` + its confidence × ``confidence_weight``.
    """
    _check_count(top_k, "top_k", minimum=0)
    _check_count(turns, "turns", minimum=1)
    check_weights(similarity_weight, confidence_weight)
    if (
        isinstance(facts, str | bytes)
        or not isinstance(facts, Sequence)
        or not all(isinstance(f, Fact) for f in facts)
    ):
        raise ValidationError(
            "facts must be a list of profile facts (memvault.results.profile.Fact)",
            field="facts",
        )
    if not facts or top_k == 0:
        return []
    text = recent_text(conversation, turns)
    sims = similarities([f.content for f in facts], text)
    scored = [
        ScoredFact(f, sim * similarity_weight + f.confidence * confidence_weight, sim)
        for f, sim in zip(facts, sims, strict=True)
    ]
    scored.sort(key=_order)
    return scored[:top_k]


def _order(item: ScoredFact) -> tuple[float, float, float, str]:
    fact = item.fact
    when = fact.updated_at or fact.created_at or _OLDEST
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return (-round(item.score, 12), -fact.confidence, -when.timestamp(), fact.id)


def fact_line(fact: Fact) -> str:
    """One fact as the prompt shows it; a fact the threat scan flags is withheld, and
    personal data and secrets in the others are replaced by placeholders."""
    threat = scan(fact.content)
    if threat is not None:
        return (
            f"- [BLOCKED: {threat.pattern_id} — fact {fact.id} was withheld by the security scan]"
        )
    text = " ".join(redact(fact.content).text.split())
    return f"- {text} ({fact.category}, confidence {fact.confidence:.2f})"


def summary_line(label: str, summary: str) -> str:
    """One profile summary as the prompt shows it, screened like a fact (``fact_line``)."""
    threat = scan(summary)
    if threat is not None:
        return f"- {label}: [BLOCKED: {threat.pattern_id} — withheld by the security scan]"
    return f"- {label}: {' '.join(redact(summary).text.split())}"


def _cut(line: str, max_tokens: int) -> str:
    """``line`` cut at a word so it counts at most ``max_tokens`` (with "…" when cut)."""
    if count_tokens(line) <= max_tokens:
        return line
    words = line.split(" ")
    low, high = 0, len(words)
    while low < high:  # the most words that still fit with the ellipsis
        middle = (low + high + 1) // 2
        if count_tokens(" ".join(words[:middle]) + " …") <= max_tokens:
            low = middle
        else:
            high = middle - 1
    return " ".join(words[:low]) + " …" if low else ""


def render_facts(
    facts: Sequence[ScoredFact | Fact],
    *,
    max_tokens: int = DEFAULT_MAX_TOKENS,
    summaries: Sequence[tuple[str, str]] = (),
    summary_tokens: int = DEFAULT_SUMMARY_TOKENS,
) -> str:
    """The facts, in the order given, in one ``<memory-context>`` block that fits
    ``max_tokens`` (counted as :func:`memvault.render.count_tokens` counts); a fact
    that does not fit is left out and a shorter later one may still go in. "" when
    there is nothing to show.

    ``summaries`` are the profile's ``(label, text)`` summaries (seed 001: the user
    context and history, which V1 injects beside the facts); non-empty ones come first,
    under their own header, in at most ``summary_tokens`` more (a long one is cut)."""
    _check_count(max_tokens, "max_tokens", minimum=1)
    _check_count(summary_tokens, "summary_tokens", minimum=1)
    head: list[str] = []
    used = 0
    for label, text in summaries:
        if not text.strip():
            continue
        line = _cut(summary_line(label, text), summary_tokens - used - 1)
        if line:
            head.append(line)
            used += count_tokens(line) + 1
    if head:
        head.insert(0, PROFILE_HEADER)
        used += count_tokens(PROFILE_HEADER) + 1
    budget = max_tokens + used
    lines: list[str] = []
    for item in facts:
        line = fact_line(item.fact if isinstance(item, ScoredFact) else item)
        candidate = build_memory_context_block("\n".join([*head, FACTS_HEADER, *lines, line]))
        if count_tokens(candidate) <= budget:
            lines.append(line)
    if not lines and not head:
        return ""
    body = [*head, *([FACTS_HEADER, *lines] if lines else [])]
    return build_memory_context_block("\n".join(body))


def check_weights(similarity_weight: float, confidence_weight: float) -> None:
    """``ValidationError`` unless both weights are finite numbers of at least 0."""
    for value, name in (
        (similarity_weight, "similarity_weight"),
        (confidence_weight, "confidence_weight"),
    ):
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not (math.isfinite(value) and value >= 0)
        ):
            raise ValidationError(
                f"{name} must be a number of at least 0, got {value!r}", field=name
            )


def _check_count(value: object, name: str, *, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValidationError(
            f"{name} must be a whole number of at least {minimum}, got {value!r}", field=name
        )


__all__ = [
    "CONFIDENCE_WEIGHT",
    "DEFAULT_MAX_TOKENS",
    "DEFAULT_SUMMARY_TOKENS",
    "DEFAULT_TOP_K",
    "DEFAULT_TURNS",
    "FACTS_HEADER",
    "PROFILE_HEADER",
    "SIMILARITY_WEIGHT",
    "SUMMARY_LABELS",
    "ScoredFact",
    "check_weights",
    "fact_line",
    "recent_text",
    "render_facts",
    "select_facts",
    "similarities",
    "summary_line",
]

"""Turning the model's answer into a change of the profile (seed 001 §3.4, seed 000 §9.1).

``plan`` reads an ``ExtractionReply`` against the profiles as they stand and decides,
fact by fact, in order of confidence:

* below ``fact_confidence_threshold`` → dropped (counted);
* flagged by the security scan → refused (a profile is replayed into prompts);
* ``reinforces`` a known fact, or is a near-duplicate of one (word overlap at least
  ``duplicate_similarity``) → the known fact is reinforced: its confidence rises, the
  new source is added, no copy is made (unless it cites only messages the fact was
  already learnt from: the same conversation read again proves nothing new);
* ``replaces`` a known fact → a correction: the new fact takes the old one's place and
  names it in ``replaces`` (the vault keeps the old one in its history);
* a near-duplicate of a fact added in this same answer → merged into it;
* otherwise added, at most ``max_facts_per_extraction`` per run (the rest counted).

Facts of the categories about the person (``USER_CATEGORIES``) and the section
summaries go to the user's own profile; the other categories go to the profile of the
agent the conversation was with (the user's own when there was none). The result is
a ``Delta`` per profile: what to set, add, reinforce and remove, which ``Delta.apply``
applies to whatever revision is current when it is saved — so a plan made before a
slow model call is never written over a change saved meanwhile.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from ..config import ExtractionConfig
from ..results.profile import USER_CATEGORIES, Fact, FactSource, Profile
from ..security.scan import scan
from ..text import tokenize
from .extract import ExtractionReply, NewFact
from .messages import ConversationMessage

#: How much one reinforcement raises a fact's confidence (capped at 1).
REINFORCE_STEP = 0.05
#: Sources kept per fact (the oldest go first).
MAX_SOURCES = 20

_NOT_WORD = re.compile(r"[\W_]+")


def _normal(text: str) -> str:
    return _NOT_WORD.sub("", text.casefold())


def similarity(a: str, b: str) -> float:
    """Word overlap of two facts (Jaccard over search tokens; 1.0 for the same text
    up to case, spacing and punctuation)."""
    if _normal(a) == _normal(b):
        return 1.0
    ta, tb = set(tokenize(a)), set(tokenize(b))
    if not ta or not tb:
        return 0.0
    return len(ta & tb) / len(ta | tb)


def new_fact_id() -> str:
    return "fact_" + secrets.token_hex(6)


@dataclass
class Delta:
    """One profile's share of a plan (see the module docstring)."""

    sections: dict[str, str] = field(default_factory=dict)
    added: list[Fact] = field(default_factory=list)
    reinforced: dict[str, tuple[float, FactSource]] = field(default_factory=dict)
    removed: set[str] = field(default_factory=set)
    at: datetime | None = None

    def __bool__(self) -> bool:
        return bool(self.sections or self.added or self.reinforced or self.removed)

    def apply(self, profile: Profile) -> Profile:
        """``profile`` with this change (facts already there are not added twice)."""
        for name, summary in self.sections.items():
            section = profile.section(name)
            section.summary = summary
            section.updated_at = self.at
        facts: list[Fact] = []
        for fact in profile.facts:
            if fact.id in self.removed:
                continue
            if fact.id in self.reinforced:
                confidence, source = self.reinforced[fact.id]
                fact.confidence = max(fact.confidence, confidence)
                fact.reinforced += 1
                fact.updated_at = self.at
                fact.sources = _with_source(fact.sources, source)
            facts.append(fact)
        known = {f.id for f in facts}
        facts.extend(f for f in self.added if f.id not in known)
        profile.facts = facts
        return profile


@dataclass
class Plan:
    """What one extraction changes, per profile (key: agent id, None = the user's own),
    and what it left out."""

    deltas: dict[str | None, Delta]
    corrected: dict[str, str] = field(default_factory=dict)  # old fact id -> new fact id
    dropped_low_confidence: list[str] = field(default_factory=list)
    dropped_over_limit: list[str] = field(default_factory=list)
    merged: int = 0
    refused: list[tuple[str, str]] = field(default_factory=list)  # text, pattern id
    unknown_ids: list[str] = field(default_factory=list)

    def delta(self, key: str | None) -> Delta:
        return self.deltas.setdefault(key, Delta())


def _source(
    fact: NewFact,
    shown: Mapping[int, ConversationMessage],
    thread_id: str | None,
    session_id: str | None,
    now: datetime,
) -> FactSource:
    cited = [shown[i] for i in dict.fromkeys(fact.messages) if i in shown]
    if not cited:  # the model named no message (or none it was shown): the person's turns
        cited = [m for m in shown.values() if m.role == "user"][-3:]
    return FactSource(
        thread_id=thread_id,
        session_id=session_id,
        message_ids=[m.message_id for m in cited if m.message_id],
        message_indexes=[m.index for m in cited],
        at=now,
    )


def plan(
    profiles: Mapping[str | None, Profile],
    reply: ExtractionReply,
    messages: Sequence[ConversationMessage],
    settings: ExtractionConfig,
    *,
    agent_id: str | None,
    now: datetime,
    thread_id: str | None = None,
    session_id: str | None = None,
    make_id: Callable[[], str] = new_fact_id,
) -> Plan:
    """The change an answer makes (see the module docstring). ``profiles`` holds the
    user's own profile under None and, with an agent, the agent's under its id."""
    result = Plan(deltas={})
    user_doc = profiles[None]
    for name, update in reply.sections().items():
        summary = update.summary.strip()
        if not update.should_update or not summary or summary == user_doc.section(name).summary:
            continue
        threat = scan(summary)
        if threat is not None:
            result.refused.append((summary, threat.pattern_id))
            continue
        result.delta(None).sections[name] = summary[:4000]
        result.delta(None).at = now

    owner: dict[str, str | None] = {}
    known: dict[str, Fact] = {}
    for key, doc in profiles.items():
        for fact in doc.facts:
            owner[fact.id] = key
            known[fact.id] = fact
    shown = {m.index: m for m in messages}
    added: list[tuple[Fact, str | None]] = []
    removed: set[str] = set()

    candidates = sorted(reply.new_facts, key=lambda f: -f.confidence)
    for candidate in candidates:
        content = " ".join(candidate.content.split())
        if not content:
            continue
        if candidate.confidence < settings.fact_confidence_threshold:
            result.dropped_low_confidence.append(content)
            continue
        threat = scan(content)
        if threat is not None:
            result.refused.append((content, threat.pattern_id))
            continue
        source = _source(candidate, shown, thread_id, session_id, now)
        target = _reinforced(candidate, content, known, removed, settings)
        if target is not None:
            if settings.reinforcement_detection and not _seen(target, source):
                delta = result.delta(owner[target.id])
                before = delta.reinforced.get(target.id, (target.confidence, source))[0]
                confidence = min(1.0, max(before, candidate.confidence) + REINFORCE_STEP)
                delta.reinforced[target.id] = (confidence, source)
                delta.at = now
            else:
                result.merged += 1
            continue
        twin = next(
            (
                f
                for f, _ in added
                if similarity(f.content, content) >= settings.duplicate_similarity
            ),
            None,
        )
        if twin is not None:
            twin.sources = _with_source(twin.sources, source)
            result.merged += 1
            continue
        replaced = None
        if settings.correction_detection and candidate.replaces:
            replaced = known.get(candidate.replaces)
            if replaced is None:
                result.unknown_ids.append(candidate.replaces)
            elif replaced.id in removed:
                replaced = None
        if len(added) >= settings.max_facts_per_extraction:
            result.dropped_over_limit.append(content)
            continue
        key = None if candidate.category in USER_CATEGORIES or agent_id is None else agent_id
        fact = Fact(
            id=make_id(),
            content=content[:2000],
            category=candidate.category,  # one of CATEGORIES: NewFact checks it
            confidence=candidate.confidence,
            created_at=now,
            updated_at=now,
            replaces=replaced.id if replaced is not None else None,
            sources=[source],
        )
        added.append((fact, key))
        if replaced is not None:
            removed.add(replaced.id)
            result.corrected[replaced.id] = fact.id
    for fact, key in added:
        delta = result.delta(key)
        delta.added.append(fact)
        delta.at = now
    for fact_id in reply.facts_to_remove:
        if fact_id in known and fact_id not in removed:
            removed.add(fact_id)
        elif fact_id not in known:
            result.unknown_ids.append(fact_id)
    for fact_id in removed:
        delta = result.delta(owner[fact_id])
        delta.removed.add(fact_id)
        delta.reinforced.pop(fact_id, None)
        delta.at = now
    result.deltas = {k: d for k, d in result.deltas.items() if d}
    return result


def _with_source(sources: list[FactSource], source: FactSource) -> list[FactSource]:
    """``sources`` and ``source`` (unless it cites the same messages as one of them)."""
    key = (source.thread_id, tuple(source.message_indexes))
    if any((s.thread_id, tuple(s.message_indexes)) == key for s in sources):
        return sources
    return [*sources, source][-MAX_SOURCES:]


def _seen(fact: Fact, source: FactSource) -> bool:
    """Whether ``source`` cites only messages ``fact`` was already learnt from: the same
    conversation read again (handed over whole on every turn) is not a reinforcement."""
    if not source.message_indexes:
        return False
    cited = {(source.thread_id, i) for i in source.message_indexes}
    before = {(s.thread_id, i) for s in fact.sources for i in s.message_indexes}
    return cited <= before


def _reinforced(
    candidate: NewFact,
    content: str,
    known: Mapping[str, Fact],
    removed: Iterable[str],
    settings: ExtractionConfig,
) -> Fact | None:
    """The known fact this candidate says again, if any (named by the model, or a
    near-duplicate); a fact it corrects is not one it repeats."""
    gone = set(removed)
    if candidate.reinforces and candidate.reinforces in known and candidate.reinforces not in gone:
        return known[candidate.reinforces]
    best: Fact | None = None
    best_score = 0.0
    for fact in known.values():
        if fact.id in gone or fact.id == candidate.replaces:
            continue
        score = similarity(fact.content, content)
        if score >= settings.duplicate_similarity and score > best_score:
            best, best_score = fact, score
    return best


__all__ = ["MAX_SOURCES", "REINFORCE_STEP", "Delta", "Plan", "new_fact_id", "plan", "similarity"]

"""Quarantine: what the write path does with a scan verdict, and what may reach a prompt.

The threat scan (``security.scan.assess``) answers block, quarantine or allow. Two
small rules sit on top of it, kept here so every surface applies the same ones:

* :func:`write_verdict` — the write policy. A ``block`` is refused, except where
  refusing would lose data the user never typed as a memory: raw conversation
  archives (``mem_class=source_archive`` or ``source=turn``, what the agent layer's
  ``sync_turn`` writes) and records of a batch (``add_many``, import), which are
  all-or-nothing for invalid input but must not fail because one message looked
  like an instruction. Those are held (quarantined) instead.
* :func:`injectable` — the render rule. A held entry never goes into anything a
  model reads; an entry stored clear is scanned again at render time (the rules
  improve after it was stored), and only a person's approval of its current text
  lets a flagged entry through.

Model-facing renderers show :func:`placeholder` (``[QUARANTINED: <id>]``) or leave
the entry out; the owner still sees held entries, with their reason, in list, get
and search.
"""

from __future__ import annotations

from ..model import MemClass, MemoryEntry, Source
from .protect import strings_in
from .scan import Assessment, Verdict, assess

#: The model-facing stand-in for an entry that is held for review.
PLACEHOLDER = "[QUARANTINED: {id}]"
#: The stand-in for one a listing withholds from a model (``vault.model_view``).
WITHHELD = "[WITHHELD: {id}]"

# Reason recorded when a verdict carries no finding (a scanner that quarantines by score).
_UNSPECIFIED = "review"


def is_archive(mem_class: MemClass, source: Source) -> bool:
    """Whether an entry is a raw conversation record rather than a stated memory."""
    return mem_class is MemClass.SOURCE_ARCHIVE or source is Source.TURN


def write_verdict(
    assessment: Assessment, *, mem_class: MemClass, source: Source, batch: bool = False
) -> Verdict:
    """The verdict the write path acts on: archives and batch records are held, not refused."""
    if assessment.verdict is Verdict.BLOCK and (batch or is_archive(mem_class, source)):
        return Verdict.QUARANTINE
    return assessment.verdict


def reason(assessment: Assessment) -> str:
    """What a held entry records as its quarantine: the pattern ids that matched."""
    ids = dict.fromkeys(t.pattern_id for t in assessment.threats)
    return ",".join(ids) or _UNSPECIFIED


def screened_text(entry: MemoryEntry) -> str:
    """Every free-text field of an entry that could reach a prompt, as one text to assess."""
    parts = [entry.name, entry.description, entry.content, entry.category or ""]
    return "\n".join(p for p in (*parts, *strings_in(entry.metadata)) if p)


def injectable(entry: MemoryEntry) -> bool:
    """Whether ``entry`` may be shown to a model: not held, and approved or scanning clean."""
    if entry.quarantine is not None:
        return False
    if entry.approved_at is not None:
        return True
    return assess(screened_text(entry)).verdict is Verdict.ALLOW


def placeholder(entry: MemoryEntry) -> str:
    """``[QUARANTINED: <id>]``: what a model sees instead of a withheld entry."""
    return PLACEHOLDER.format(id=entry.id)


def withheld(entry: MemoryEntry) -> str:
    """``[WITHHELD: <id>]``: what a model sees instead of a memory a listing withholds
    (``vault.model_view``: with another memory it forms an instruction, or the model
    screen flags it); the entry itself is not held, its owner sees it as stored."""
    return WITHHELD.format(id=entry.id)


__all__ = [
    "PLACEHOLDER",
    "WITHHELD",
    "injectable",
    "is_archive",
    "placeholder",
    "reason",
    "screened_text",
    "withheld",
    "write_verdict",
]

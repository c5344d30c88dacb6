"""The scan's value types: verdicts, findings (:class:`Threat`) and rules (:class:`Pattern`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum


class Verdict(StrEnum):
    """What the write path does with a text: refuse it, hold it for review, or keep it."""

    BLOCK = "block"
    QUARANTINE = "quarantine"
    ALLOW = "allow"


# Strongest first: the order findings are reported in.
_RANK = {Verdict.BLOCK: 0, Verdict.QUARANTINE: 1, Verdict.ALLOW: 2}


def rank(verdict: Verdict) -> int:
    """Sort key that puts the strongest verdict first."""
    return _RANK[verdict]


@dataclass(frozen=True, slots=True)
class Threat:
    """One finding: the rule's stable id, its category, what it means, and the verdict it implies.

    ``verdict`` is :attr:`Verdict.BLOCK` for high-confidence findings and
    :attr:`Verdict.QUARANTINE` for borderline ones; it is never ``ALLOW``.
    """

    pattern_id: str
    category: str
    description: str
    verdict: Verdict = Verdict.BLOCK


@dataclass(frozen=True, slots=True)
class Pattern:
    """A named rule: a case-insensitive regex searched in one view of the text.

    ``lang`` is a BCP-47-ish tag (``en``, ``zh``, ``ja`` ...; ``*`` for rules made
    of commands and file names). Rules of Latin-script languages are matched
    against the confusable skeleton; the others against the NFKC text, where
    their own letters survive.
    """

    id: str
    category: str
    description: str
    regex: re.Pattern[str]
    # Lower-case literals of which every match contains at least one: a cheap
    # substring test that skips the regex on most chat (about 5x faster).
    triggers: tuple[str, ...]
    verdict: Verdict = Verdict.BLOCK
    lang: str = "en"
    # Spans blanked out before the regex runs: uses of the same words that are known
    # to be benign (a secret variable in an ``Authorization`` header).
    mask: re.Pattern[str] | None = None
    # The triggers as one alternation: one C-level scan instead of one per trigger.
    _trigger: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        alternation = "|".join(re.escape(t) for t in self.triggers)
        object.__setattr__(self, "_trigger", re.compile(alternation or r"(?!)"))

    def search(self, normalized: str) -> bool:
        """Whether the regex finds a match (after masking), without the pre-filter."""
        if self.mask is not None:
            normalized = self.mask.sub(lambda m: " " * len(m.group(0)), normalized)
        return self.regex.search(normalized) is not None

    def matches(self, normalized: str, lowered: str) -> bool:
        """Whether the rule fires; ``lowered`` is ``normalized.lower()``."""
        if self._trigger.search(lowered) is None:
            return False
        return self.search(normalized)

    def threat(self, where: str = "") -> Threat:
        """The finding this rule reports; ``where`` names a hidden layer it was found in."""
        description = f"{self.description} ({where})" if where else self.description
        return Threat(self.id, self.category, description, self.verdict)


@dataclass(frozen=True, slots=True)
class Assessment:
    """The scan's decision on one text and the findings behind it (strongest first)."""

    verdict: Verdict
    threats: tuple[Threat, ...] = ()

    @property
    def threat(self) -> Threat | None:
        return self.threats[0] if self.threats else None


CATEGORIES = (
    "invisible",
    "injection",
    "role_hijack",
    "deception",
    "exfiltration",
    "secret_file",
    "ssh_backdoor",
    "agent_config",
    "hardcoded_secret",
    "obfuscation",
    "semantic",
)

"""The full rule table: English, generated per-language, structural and shared file-name rules."""

from __future__ import annotations

import re

from .lexicons import EDIT_VERBS, LEXICONS
from .model import Pattern, Verdict
from .normalize import fold
from .rules_en import _AGENT_CONFIG_FILE, PATTERNS_EN
from .rules_i18n import rules_for
from .rules_structure import PATTERNS_STRUCTURE


def _edit_verbs() -> str:
    words = sorted({fold(w) for w in EDIT_VERBS}, key=lambda w: (-len(w), w))  # fixed ties
    return "(?:" + "|".join(re.escape(w) for w in words) + ")"


_GAP = r"[^\n。！？]{0,40}?"
_SHARED: tuple[Pattern, ...] = (
    Pattern(
        id="edit_agent_config_i18n",
        category="agent_config",
        description=(
            "a verb of changing a file, in any supported language, "
            "next to an agent instruction file"
        ),
        regex=re.compile(
            f"{_edit_verbs()}{_GAP}{_AGENT_CONFIG_FILE}|{_AGENT_CONFIG_FILE}{_GAP}{_edit_verbs()}",
            re.IGNORECASE,
        ),
        triggers=(
            ".md",
            "cursor",
            "windsurfrules",
            "clinerules",
            ".claude",
            ".mcp.json",
            "aider.conf",
            "system",
        ),
        verdict=Verdict.QUARANTINE,
        lang="*",
    ),
    Pattern(
        id="ssh_authorized_keys_i18n",
        category="ssh_backdoor",
        description=(
            "a verb of adding or writing, in any supported language, next to authorized_keys"
        ),
        regex=re.compile(
            f"{_edit_verbs()}{_GAP}authorized_keys|authorized_keys{_GAP}{_edit_verbs()}",
            re.IGNORECASE,
        ),
        triggers=("authorized_keys",),
        verdict=Verdict.QUARANTINE,
        lang="*",
    ),
)


def _build() -> tuple[Pattern, ...]:
    out = list(PATTERNS_EN)
    taken = {p.id for p in out}
    for lexicon in LEXICONS:
        for pattern in rules_for(lexicon):
            if pattern.id not in taken:  # a hand-written rule of the same id wins
                out.append(pattern)
                taken.add(pattern.id)
    out.extend(PATTERNS_STRUCTURE)
    out.extend(_SHARED)
    return tuple(out)


PATTERNS: tuple[Pattern, ...] = _build()
"""Every text rule, in the order :func:`~memvault.security.scan.scan` tries them."""

LATIN_PATTERNS = tuple(p for p in PATTERNS if p.lang == "en")
NATIVE_PATTERNS = tuple(p for p in PATTERNS if p.lang != "en")

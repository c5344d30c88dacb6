"""The seed's own shapes the general scan leaves to context, for the builtin files.

Seed 000 §12.1 scans what the ``memory`` tool writes into USER.md / MEMORY.md with
Hermes' regexes, which treat any ``cat .env`` as reading a secret file. The general
scan (:func:`~memvault.security.scan.scan`) lets a runbook note such as "cat .env to
check DATABASE_URL" through (issue 11: such notes belong in the vault and its
prompts). The builtin files are the seed's memory tool, shown in every system prompt
of every session, so they use :func:`scan_strict`: the general scan plus the rules
here.
"""

from __future__ import annotations

import re

from .engine import scan
from .model import Pattern, Threat, Verdict
from .normalize import normalize
from .rules_en import _ARG, _READ_CMD

STRICT_PATTERNS: tuple[Pattern, ...] = (
    Pattern(
        id="read_env_file",
        category="secret_file",
        description="shell command printing a .env file (seed 000 §12.1)",
        regex=re.compile(
            _READ_CMD + rf"\s+(?:{_ARG}\s+){{0,4}}?[\"']?[\w~$%{{}}:./\\-]*?(?<![\w-])\.env"
            r"(?:\.(?:local|prod|production|dev|development|staging|test))?(?![\w-]|\.\w)",
            re.IGNORECASE,
        ),
        triggers=(".env",),
        verdict=Verdict.BLOCK,
        lang="*",
    ),
)


def scan_strict(text: str) -> Threat | None:
    """The first finding of the general scan in ``text``, else of the strict rules."""
    found = scan(text)
    if found is not None or not text:
        return found
    skeleton = normalize(text)
    lowered = skeleton.lower()
    for pattern in STRICT_PATTERNS:
        if pattern.matches(skeleton, lowered):
            return pattern.threat()
    return None


__all__ = ["STRICT_PATTERNS", "scan_strict"]

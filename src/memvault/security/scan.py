"""Threat scan of text that may reach a system prompt (placeholder, being replaced).

Interface (stable): ``scan(text) -> Threat | None`` returns the first threat found,
``scan_all(text) -> list[Threat]`` all of them.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

INVISIBLE = frozenset(
    "\u200b\u200c\u200d\u2060\u2062\u2063\u2064\ufeff\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)


@dataclass(frozen=True, slots=True)
class Threat:
    pattern_id: str
    category: str
    description: str


_PATTERNS = [
    (
        "prompt_injection",
        "injection",
        re.compile(r"ignore\s+(all\s+)?(previous|prior|above)\s+instructions", re.I),
    ),
]


def scan_all(text: str) -> list[Threat]:
    found = [
        Threat("invisible_unicode", "invisible", "invisible or bidirectional control character")
        for ch in text[:1]
        if any(c in INVISIBLE for c in text)
    ]
    normalized = unicodedata.normalize("NFKC", text)
    found += [Threat(pid, cat, pid) for pid, cat, rx in _PATTERNS if rx.search(normalized)]
    return found


def scan(text: str) -> Threat | None:
    threats = scan_all(text)
    return threats[0] if threats else None

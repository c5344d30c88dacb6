"""E-mail addresses (ASCII, as written in chat: ``name@example.com``).

The local part is the usual dot-atom (letters, digits and ``._%+-``, no leading,
trailing or doubled dot); the domain has at least two labels and a top-level
label of two or more letters. Retina-style asset names such as ``icon@2x.png``
share that shape, so a top-level "domain" that is a common file extension is
not reported.
"""

from __future__ import annotations

import re

from .base import Finding, finding

KIND = "email"

_EMAIL = re.compile(
    r"(?<![A-Za-z0-9._%+-])"
    r"(?P<local>[A-Za-z0-9%+_-]+(?:\.[A-Za-z0-9%+_-]+)*)"
    r"@(?P<domain>(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+"
    r"(?P<tld>[A-Za-z]{2,24}))"
    r"(?![A-Za-z0-9_-])(?!\.[A-Za-z0-9])"
)
_FILE_EXTENSIONS = frozenset(
    "png jpg jpeg gif svg webp bmp ico tif tiff pdf js ts css map json txt md html".split()
)


class EmailDetector:
    """Addresses of the form ``local@domain.tld``."""

    kind = KIND

    def detect(self, text: str) -> list[Finding]:
        if "@" not in text:  # what every address has; a long text mostly has none
            return []
        return [
            finding(KIND, text, match.start(), match.end())
            for match in _EMAIL.finditer(text)
            if match.group("tld").lower() not in _FILE_EXTENSIONS
        ]

"""Chinese resident identity card numbers (居民身份证号码, GB 11643).

Eighteen characters: a six-digit area code, the birth date as ``YYYYMMDD``, a
three-digit sequence number and an ISO 7064 MOD 11-2 check character (``0``-``9``
or ``X``). ``stdnum.cn.ric`` checks the check character, that the date exists
and that the area code was assigned in the birth year; on top of that the
birth date must fall between 1900 and today. The old 15-digit format has no
check character and is not detected: on free text it cannot be told apart
from any other 15-digit number.
"""

from __future__ import annotations

import datetime
import re

from .base import Finding, finding

KIND = "cn_id"

_CANDIDATE = re.compile(r"(?=[1-9])(?<![0-9A-Za-z_])[1-9][0-9]{16}[0-9Xx](?![0-9A-Za-z_])")
_EARLIEST = datetime.date(1900, 1, 1)


def is_cn_id(candidate: str) -> bool:
    """Whether ``candidate`` (18 characters, no separators) is a valid resident id."""
    number = candidate.upper()
    if len(number) != 18 or not number.isascii():
        return False
    from stdnum.cn import ric  # its area table loads with the first candidate

    try:
        if not ric.is_valid(number):
            return False
        born = ric.get_birth_date(number)
    # Besides its own ValidationError, stdnum 2.2 raises KeyError for an area
    # code whose entry in its table has no county (313402052812152902).
    except Exception:
        return False
    return _EARLIEST <= born <= datetime.date.today()


class ChineseIdDetector:
    """18-character resident ids with a valid check character, birth date and area."""

    kind = KIND

    def detect(self, text: str) -> list[Finding]:
        return [
            finding(KIND, text, match.start(), match.end())
            for match in _CANDIDATE.finditer(text)
            if is_cn_id(match.group())
        ]

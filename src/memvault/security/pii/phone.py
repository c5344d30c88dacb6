"""Telephone numbers: Chinese mobiles and international numbers in E.164 form.

Two shapes are looked for, and each candidate must be a valid number according
to ``phonenumbers`` (right length and an allocated range for its country):

* a Chinese mobile, ``1[3-9]`` and nine more digits, optionally after ``+86``,
  ``0086`` or ``86``, written as one run or as 3-4-4 groups with spaces or dashes;
* an international number, ``+`` and a country code then the subscriber number,
  optionally grouped by single spaces or dashes (``+1 415-555-2671``).

What is deliberately not a phone:

* a run of digits that continues on either side: the 11 digits inside a card
  number, a resident id or a ``20231105123045`` timestamp are never a match;
* anything without a ``+`` that is not a Chinese mobile (``4155552671``), since
  bare national numbers look exactly like order numbers, amounts and ids;
* an extension (``ext. 1234``, ``x1234``) or a short code;
* a number introduced as an order, tracking or reference number.
"""

from __future__ import annotations

import re

from .base import Finding, finding, introduces_reference

KIND = "phone"

_EDGE_LEFT = r"(?<![0-9A-Za-z_+])(?<![0-9][ .,/:-])"
_EDGE_RIGHT = r"(?![0-9A-Za-z_])(?![ .,/:-]?[0-9])"
# A mobile number may be glued to the word before it ("tel13812345678"); its shape (11
# digits, 1[3-9] first) is specific enough.
# Each pattern opens with a look at the character a match can start with: the
# look-behinds and alternatives then run only there (the same matches, faster).
_CN_MOBILE = re.compile(
    r"(?=[+081])(?<![0-9_+])(?<![0-9][ .,/:-])"
    + r"(?:(?:\+|00)?86[ -]?)?"
    + r"(?:1[3-9][0-9]{9}|1[3-9][0-9](?P<s>[ -])[0-9]{4}(?P=s)[0-9]{4})"
    + _EDGE_RIGHT
)
_INTERNATIONAL = re.compile(
    r"(?=\+)(?<![0-9A-Za-z_+])\+[1-9][0-9]{0,3}(?:[ -]?\(?[0-9]{1,4}\)?){1,5}" + _EDGE_RIGHT
)


def is_phone(candidate: str, region: str | None) -> bool:
    """Whether ``phonenumbers`` accepts ``candidate`` as a valid number."""
    import phonenumbers  # its metadata tables load on the first candidate, not with the engine

    try:
        number = phonenumbers.parse(candidate, region)
    except phonenumbers.NumberParseException:
        return False
    return phonenumbers.is_valid_number(number)


class PhoneDetector:
    """Valid Chinese mobile numbers and ``+``-prefixed international numbers."""

    kind = KIND

    def detect(self, text: str) -> list[Finding]:
        found: list[Finding] = []
        taken: list[tuple[int, int]] = []
        for pattern, region in ((_INTERNATIONAL, None), (_CN_MOBILE, "CN")):
            for match in pattern.finditer(text):
                start, end = match.span()
                if any(start < t_end and t_start < end for t_start, t_end in taken):
                    continue
                if introduces_reference(text, start):
                    continue
                if not is_phone(match.group(), region):
                    continue
                taken.append((start, end))
                found.append(finding(KIND, text, start, end))
        return found

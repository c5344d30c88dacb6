"""Payment card numbers: 13 to 19 digits that pass the Luhn check.

A candidate is written either as one run of digits or in the groups printed on
cards (4-4-4-4, 4-4-4-4-3, 4-6-5, 4-6-4), separated consistently by spaces or
dashes. It is reported only when all of these hold:

* the digits pass the Luhn check (``stdnum.luhn``);
* they are not one digit repeated (``8888 8888 8888 8888`` passes Luhn);
* the first digits are an issuer prefix in use (:func:`plausible_issuer`); this
  alone rules out timestamps such as ``20231105123045`` and millisecond epochs;
* the text just before does not call it an order, tracking or reference number.

One random digit string in ten passes Luhn, so the last two checks carry most
of the precision on free text.
"""

from __future__ import annotations

import re

from .base import Finding, finding, introduces_reference

KIND = "bank_card"

# Neither edge may continue a word, a number or a dotted/dashed code, and a
# leading ``+`` makes it a phone number (a full
# stop that ends the sentence is fine). A grouped number may not continue a
# longer run of groups either, while a plain run may be followed by, say, an
# expiry date after a space.
_LEFT = r"(?<![0-9A-Za-z_+])(?<![0-9][.,/:-])"
_RIGHT = r"(?![0-9A-Za-z_])(?![.,/:-][0-9])"
# A plain run may be glued to the word before it ("card4111111111111111"): people write
# that, and the Luhn check and the issuer prefixes keep ids and hashes out.
_GLUED_LEFT = r"(?<![0-9_+])(?<![0-9][.,/:-])"
# The look ahead first: the look-behinds run only where a digit starts a match.
_CANDIDATE = re.compile(
    r"(?=[0-9])(?:"
    + _GLUED_LEFT
    + r"[0-9]{13,19}"
    + r"|"
    + _LEFT
    + r"(?<![0-9] )[0-9]{4}(?P<a>[ -])[0-9]{4}(?P=a)[0-9]{4}(?P=a)[0-9]{1,4}"
    + r"(?:(?P=a)[0-9]{1,3})?(?!(?P=a)[0-9])"
    + r"|(?<![0-9] )[0-9]{4}(?P<b>[ -])[0-9]{6}(?P=b)[0-9]{4,5}(?!(?P=b)[0-9])"
    + r")"
    + _RIGHT
)

# (first digits, allowed lengths) of issuer ranges in current use.
_RANGES: tuple[tuple[range, int, frozenset[int]], ...] = (
    (range(4, 5), 1, frozenset({13, 16, 19})),  # Visa
    (range(51, 56), 2, frozenset({16})),  # Mastercard
    (range(2221, 2721), 4, frozenset({16})),  # Mastercard 2-series
    (range(34, 35), 2, frozenset({15})),  # American Express
    (range(37, 38), 2, frozenset({15})),
    (range(300, 306), 3, frozenset(range(14, 20))),  # Diners Club
    (range(36, 37), 2, frozenset(range(14, 20))),
    (range(38, 40), 2, frozenset(range(16, 20))),
    (range(3528, 3590), 4, frozenset(range(16, 20))),  # JCB
    (range(62, 63), 2, frozenset(range(16, 20))),  # China UnionPay
    (range(60, 61), 2, frozenset(range(16, 20))),  # Discover, RuPay
    (range(64, 66), 2, frozenset(range(16, 20))),
    (range(50, 51), 2, frozenset(range(13, 20))),  # Maestro
    (range(56, 59), 2, frozenset(range(13, 20))),
    (range(63, 64), 2, frozenset(range(13, 20))),
    (range(67, 68), 2, frozenset(range(13, 20))),
)


def plausible_issuer(digits: str) -> bool:
    """Whether ``digits`` starts with an issuer prefix that issues cards of its length."""
    for prefixes, width, lengths in _RANGES:
        if len(digits) in lengths and int(digits[:width]) in prefixes:
            return True
    return False


def is_card_number(digits: str) -> bool:
    """The checks on a separator-free candidate (length, repetition, issuer, Luhn)."""
    from stdnum import luhn  # loaded with the first candidate, not with the engine

    return (
        13 <= len(digits) <= 19
        and digits.isascii()
        and digits.isdigit()
        and len(set(digits)) > 1
        and plausible_issuer(digits)
        and luhn.is_valid(digits)
    )


class BankCardDetector:
    """Luhn-valid card numbers with a known issuer prefix."""

    kind = KIND

    def detect(self, text: str) -> list[Finding]:
        found: list[Finding] = []
        for match in _CANDIDATE.finditer(text):
            digits = re.sub(r"[ -]", "", match.group())
            if not is_card_number(digits):
                continue
            if introduces_reference(text, match.start()):
                continue
            found.append(finding(KIND, text, match.start(), match.end()))
        return found

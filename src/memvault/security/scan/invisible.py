"""Characters that render as nothing: which uses are writing, which are hiding.

Checked on the raw text, before any normalisation strips them. Legitimate uses
are allowed, everything else is a finding:

* a zero-width joiner between two emoji (family and profession emoji);
* a zero-width (non-)joiner between two letters of a script that spells words
  with them (Persian, Urdu, the Indic scripts);
* a zero-width space between letters of a script written without spaces
  (Thai, Lao, Khmer, Myanmar, Tibetan), where it marks word breaks;
* bidi embeddings and isolates (RLE, LRE, PDF, RLI, LRI, FSI, PDI) in a text that
  contains right-to-left letters;
* a byte-order mark at the very start;
* one variation selector after a character, and emoji tag sequences (flags).

Tag characters (U+E0020-U+E007E) that are not part of a flag spell invisible
ASCII, and a run of variation selectors can carry arbitrary bytes (one per
selector). Both are decoded so that the hidden text is scanned too
(:func:`hidden_texts`).
"""

from __future__ import annotations

import re
import unicodedata

from .model import Threat, Verdict

INVISIBLE_PATTERN_ID = "invisible_unicode"
TAG_PATTERN_ID = "invisible_tag_characters"
VARIATION_PATTERN_ID = "variation_selector_payload"

# Zero-width characters, word joiner, invisible operators, BOM, bidi controls.
INVISIBLE = frozenset(
    "\u200b\u200c\u200d\u2060\u2062\u2063\u2064\ufeff"
    "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)

# The same characters as one class: a search skips the others at C speed without
# making a string of each, as a set's ``isdisjoint`` of a text does.
_ANY_INVISIBLE = re.compile("[" + "".join(sorted(INVISIBLE)) + "]")
# Tag characters and everything above them (what ``max(text)`` asked before).
_FROM_TAGS = re.compile("[\U000e0000-\U0010ffff]")

_ZWSP = "\u200b"
_ZWJ = "\u200d"
_ZWNJ = "\u200c"
_BOM = "\ufeff"
_EMBEDDINGS = frozenset("\u202a\u202b\u202c\u2066\u2067\u2068\u2069")
_JOINING_SCRIPTS = frozenset(
    "ARABIC SYRIAC NKO MONGOLIAN DEVANAGARI BENGALI GURMUKHI GUJARATI ORIYA TAMIL "
    "TELUGU KANNADA MALAYALAM SINHALA TIBETAN MYANMAR KHMER".split()
)
_UNSPACED_SCRIPTS = frozenset("THAI LAO KHMER MYANMAR TIBETAN JAVANESE BALINESE".split())
_RTL_LETTER = re.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]")
_EMOJI_TAG_SEQUENCE = re.compile(
    "\U0001f3f4[\U000e0030-\U000e0039\U000e0061-\U000e007a]{1,7}\U000e007f"
)
_TAG_RUN = re.compile("[\U000e0000-\U000e007f]+")
_SELECTOR = "\ufe00-\ufe0f\U000e0100-\U000e01ef"
_SELECTOR_RUN = re.compile(f"[{_SELECTOR}]{{2,}}")
# A run this long is an encoding, not typography.
_PAYLOAD_RUN = 4


def _script(ch: str) -> str:
    return unicodedata.name(ch, "").split(" ", 1)[0]


def _is_pictographic(ch: str) -> bool:
    """Rough test for an emoji code point (or a modifier that belongs to one)."""
    cp = ord(ch)
    return (
        0x1F000 <= cp <= 0x1FAFF
        or 0x2600 <= cp <= 0x27BF
        or 0x2B00 <= cp <= 0x2BFF
        or cp in (0xFE0F, 0x20E3)
    )


def _letter_of(ch: str, scripts: frozenset[str]) -> bool:
    return unicodedata.category(ch).startswith(("L", "M")) and _script(ch) in scripts


def _allowed(text: str, i: int, has_rtl: bool) -> bool:
    """Whether the invisible character at ``text[i]`` is part of ordinary writing."""
    ch = text[i]
    before = text[i - 1] if i > 0 else " "
    after = text[i + 1] if i + 1 < len(text) else " "
    if ch == _BOM and i == 0:
        return True
    if ch in _EMBEDDINGS and has_rtl:
        return True
    if (
        ch == _ZWSP
        and _letter_of(before, _UNSPACED_SCRIPTS)
        and (_letter_of(after, _UNSPACED_SCRIPTS) or after.isspace() or after == " ")
    ):
        return True
    if ch == _ZWJ and _is_pictographic(before) and _is_pictographic(after):
        return True
    if ch in (_ZWJ, _ZWNJ) and i > 0 and _letter_of(before, _JOINING_SCRIPTS):
        if _letter_of(after, _JOINING_SCRIPTS):
            return True
        # Older Malayalam spells a word-final chillu as consonant, virama, ZWJ.
        if (
            ch == _ZWJ
            and "VIRAMA" in unicodedata.name(before, "")
            and (after.isspace() or unicodedata.category(after).startswith("P"))
        ):
            return True
    return False


def strip_invisible(text: str) -> str:
    """``text`` without the invisible characters :func:`invisible_threats` flags; their
    legitimate uses (emoji and script joiners, bidi marks in right-to-left text, a
    leading BOM) stay."""
    if _ANY_INVISIBLE.search(text) is None:
        return text
    has_rtl = _RTL_LETTER.search(text) is not None
    return "".join(
        ch for i, ch in enumerate(text) if ch not in INVISIBLE or _allowed(text, i, has_rtl)
    )


def invisible_threats(text: str) -> list[Threat]:
    """Findings about hidden characters in the raw ``text`` (at most one per kind)."""
    found: list[Threat] = []
    if _ANY_INVISIBLE.search(text) is not None:  # one pass at C speed
        has_rtl = _RTL_LETTER.search(text) is not None
        for i, ch in enumerate(text):
            if ch in INVISIBLE and not _allowed(text, i, has_rtl):
                name = unicodedata.name(ch, "control character")
                found.append(
                    Threat(
                        INVISIBLE_PATTERN_ID,
                        "invisible",
                        f"invisible or bidirectional control character U+{ord(ch):04X} {name} "
                        f"at offset {i}",
                        Verdict.QUARANTINE,
                    )
                )
                break
    if _hidden_tag_text(text) is not None:
        found.append(
            Threat(
                TAG_PATTERN_ID,
                "invisible",
                "Unicode tag characters, which spell invisible ASCII text",
                Verdict.BLOCK,
            )
        )
    longest = max((len(m.group(0)) for m in _SELECTOR_RUN.finditer(text)), default=0)
    if longest:
        found.append(
            Threat(
                VARIATION_PATTERN_ID,
                "invisible",
                f"a run of {longest} variation selectors, which can carry hidden bytes",
                Verdict.BLOCK if longest >= _PAYLOAD_RUN else Verdict.QUARANTINE,
            )
        )
    return found


def _hidden_tag_text(text: str) -> str | None:
    if _FROM_TAGS.search(text) is None:
        return None
    rest = _EMOJI_TAG_SEQUENCE.sub("", text)
    runs = _TAG_RUN.findall(rest)
    if not runs:
        return None
    return " ".join(
        "".join(chr(ord(c) - 0xE0000) for c in run if ord(c) >= 0xE0020) for run in runs
    )


def _selector_bytes(run: str) -> bytes:
    out = bytearray()
    for c in run:
        cp = ord(c)
        out.append(cp - 0xFE00 if cp <= 0xFE0F else cp - 0xE0100 + 16)
    return bytes(out)


def hidden_texts(text: str) -> list[tuple[str, str]]:
    """Text smuggled in tag characters or variation selectors, as ``(where, text)`` pairs."""
    out: list[tuple[str, str]] = []
    tags = _hidden_tag_text(text)
    if tags and tags.strip():
        out.append(("tag characters", tags))
    for match in _SELECTOR_RUN.finditer(text):
        if len(match.group(0)) >= _PAYLOAD_RUN:
            decoded = _selector_bytes(match.group(0)).decode("utf-8", "ignore")
            if decoded.strip():
                out.append(("variation selectors", decoded))
    return out

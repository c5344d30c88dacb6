"""Threat scan of text that may end up inside a system prompt.

Memory entries are replayed to the model on every turn, so a stored sentence
such as "ignore all previous instructions" or ``curl -d $API_KEY ...`` acts as a
standing prompt injection. Every write runs the text through :func:`assess`,
which answers with one of three verdicts:

``block``
    a high-confidence finding; the write path refuses the text with a
    ``SecurityError`` naming ``Threat.pattern_id``.
``quarantine``
    a borderline finding (or any finding in a raw conversation archive); the
    text is stored and searchable but never injected into a prompt until a
    person approves it.
``allow``
    nothing found.

Attackers disguise text, so one regex list is not enough. The pipeline, and
why each step is there:

1. **Hidden characters, on the raw text** (:mod:`.invisible`). Zero-width and
   bidi controls are findings unless used the way a script needs them (Thai word
   breaks, Persian joiners, RLE in Hebrew, a leading BOM). Tag characters and
   runs of variation selectors are decoded: they can spell a whole invisible
   instruction, which is then scanned like any other text.
2. **Views** (:mod:`.normalize`). The skeleton (NFKC plus the TR39 confusable
   table) defeats fullwidth, mathematical and Cyrillic/Greek look-alikes; the
   deobfuscated view joins ``i g n o r e``, ``ig-nore`` and ``1gn0re``; the
   native view keeps each script's own letters, folds traditional Chinese and
   Arabic spelling variants, and joins spaced-out CJK.
3. **Rules as data** (:mod:`.rules_en`, :mod:`.lexicons`). English rules (and
   the command- and file-name rules) read the skeleton views; rules generated
   from per-language word lists (zh, ja, ko, es, ru, ar, fa, hi) read the native
   view. Each carries a verdict: most block, borderline shapes quarantine. A
   substring pre-filter (``Pattern.triggers``) skips most regexes on most chat;
   one pass finds the triggers of a whole table (:mod:`.gate`), and a regex also
   waits for the strings it cannot match without (:mod:`.literals`).
4. **Hidden layers** (:mod:`.decode`). Base64 and URL-encoded runs and the
   rot13 reading of the text are decoded and scanned again (rot13 hits only
   quarantine); HTML and markdown comments that give an AI orders quarantine.
5. **Meaning, when an embedder is configured** (:mod:`.semantic`). A text the
   rules pass is compared, whole and sentence by sentence, with a bank of
   injection exemplars; a close match quarantines (similarity alone never
   blocks).

``tests/security/test_scan.py`` and ``tests/security/test_scan_*.py`` pair every rule with
benign look-alikes, ``tests/scan_corpus/`` holds the attack and benign corpora,
and ``bench/scan_eval.py`` / ``bench/scan_fp.py`` measure caught and
false-positive rates.

Interface (stable): ``assess(text, *, semantic=None) -> Assessment``;
``scan(text) -> Threat | None`` and ``scan_all(text) -> list[Threat]`` report
findings of either level.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .engine import COMMENT_PATTERN_ID, assess, scan, scan_all
from .invisible import (
    INVISIBLE,
    INVISIBLE_PATTERN_ID,
    TAG_PATTERN_ID,
    VARIATION_PATTERN_ID,
)
from .model import CATEGORIES, Assessment, Pattern, Threat, Verdict
from .normalize import deobfuscate, normalize
from .semantic import SEMANTIC_PATTERN_ID, SemanticScreen

if TYPE_CHECKING:
    from .patterns import PATTERNS


def __getattr__(name: str) -> object:
    """``PATTERNS``, compiled when first asked for (see ``engine._rules``)."""
    if name == "PATTERNS":
        from .patterns import PATTERNS

        return PATTERNS
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "CATEGORIES",
    "COMMENT_PATTERN_ID",
    "INVISIBLE",
    "INVISIBLE_PATTERN_ID",
    "PATTERNS",
    "SEMANTIC_PATTERN_ID",
    "TAG_PATTERN_ID",
    "VARIATION_PATTERN_ID",
    "Assessment",
    "Pattern",
    "SemanticScreen",
    "Threat",
    "Verdict",
    "assess",
    "deobfuscate",
    "normalize",
    "scan",
    "scan_all",
]

"""Running the rules over every view and hidden layer of a text, and the verdict."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from functools import cache
from typing import TYPE_CHECKING

from .decode import comments, layers
from .gate import Gate
from .invisible import hidden_texts, invisible_threats
from .model import Assessment, Threat, Verdict, rank
from .normalize import deobfuscate, native, normalize
from .quoting import is_quoted_report, unquoted

if TYPE_CHECKING:
    from .semantic import SemanticScreen

# Decoded layers are scanned again, but a layer inside a layer inside the text is
# as deep as it goes: enough for base64-in-a-comment, bounded for hostile input.
_MAX_DEPTH = 2

COMMENT_PATTERN_ID = "hidden_comment_instruction"
# A comment body that speaks to an AI: the author hid an order from the reader.
_ADDRESSES_AI = re.compile(
    r"\b(?:assistant|ai|agent|model|llm|claude|gpt|chatgpt|copilot|bot)\b[^\n]{0,80}?"
    r"\b(?:must|should|shall|always|never|do\s+not|don'?t|ignore|instead|secretly|silently"
    r"|remember|from\s+now\s+on|reply|respond|say|tell|send)\b"
    r"|\b(?:when|if)\s+(?:an?\s+|the\s+)?(?:ai|assistant|agent|model|llm)\b"
    r"|\byou\s+(?:must|should|shall|will|are\s+to|need\s+to)\b"
    r"|(?:助手|模型|ai|人工智能|アシスタント|에이전트)[^\n]{0,20}?(?:必须|应该|务必|总是|不要|始终|必ず|하세요|해야)"
    r"|你(?:必须|应该|务必|要始终|不要)",
    re.IGNORECASE,
)


@cache
def _rules() -> tuple[Gate, Gate]:
    """The Latin-script and the native-script rules, compiled on the first scan: a
    command that only reads (``memvault list``) never pays for a thousand regexes."""
    from .patterns import LATIN_PATTERNS, NATIVE_PATTERNS

    return Gate.of(LATIN_PATTERNS), Gate.of(NATIVE_PATTERNS)


def _rule_threats(text: str, *, latin_only: bool = False) -> Iterator[Threat]:
    # Each rule runs where one of its triggers occurs (Pattern.matches); the gate finds
    # those rules for a whole table in one pass over the text, and runs their regexes.
    latin_rules, native_rules = _rules()
    skeleton = normalize(text)
    hit: set[str] = set()
    for pattern in latin_rules.matching(skeleton):
        hit.add(pattern.id)
        yield pattern.threat()
    if latin_only:
        return
    plain = deobfuscate(skeleton)
    if plain != skeleton:
        for pattern in latin_rules.matching(plain, skip=hit):
            yield pattern.threat("written with spacing, separators or leetspeak")
    view = native(text)
    for pattern in native_rules.matching(view):
        yield pattern.threat()


def _inside(threats: Iterable[Threat], where: str, cap: Verdict | None = None) -> Iterator[Threat]:
    for t in threats:
        verdict = cap if cap is not None and rank(t.verdict) < rank(cap) else t.verdict
        yield Threat(t.pattern_id, t.category, f"{t.description} (hidden in {where})", verdict)


def _threats(text: str, depth: int = 0) -> Iterator[Threat]:
    yield from invisible_threats(text)
    yield from _rule_threats(text)
    for where, hidden in hidden_texts(text):
        yield from _inside(_threats(hidden, _MAX_DEPTH), where)
    for body in comments(text):
        if _ADDRESSES_AI.search(normalize(body)):
            yield Threat(
                COMMENT_PATTERN_ID,
                "obfuscation",
                "an HTML or markdown comment (hidden when rendered) that gives an AI orders",
                Verdict.QUARANTINE,
            )
            break
    if depth >= _MAX_DEPTH:
        return
    for name, decoded in layers(text):
        if name == "rot13":
            # rot13 of ordinary text is noise, so a hit is likely but not certain.
            found = _rule_threats(decoded, latin_only=True)
            yield from _inside(found, name, cap=Verdict.QUARANTINE)
        else:
            yield from _inside(_threats(decoded, depth + 1), name)


def _dedupe(threats: Iterable[Threat]) -> list[Threat]:
    """One finding per pattern id, in first-seen order, keeping the strongest verdict."""
    out: dict[str, Threat] = {}
    for t in threats:
        known = out.get(t.pattern_id)
        if known is None or rank(t.verdict) < rank(known.verdict):
            out[t.pattern_id] = t
    return list(out.values())


def scan_all(text: str) -> list[Threat]:
    """Every finding in ``text`` (block or quarantine level), one per pattern id."""
    if not text:
        return []
    return _dedupe(_threats(text))


def scan(text: str) -> Threat | None:
    """The first finding in ``text``, or ``None`` when nothing was found."""
    found = scan_all(text)
    return found[0] if found else None


def _quoted_report(text: str, threats: list[Threat]) -> bool:
    """Whether every finding is a quotation in a report about an attack (see
    :mod:`.quoting`); a finding from a hidden layer never is."""
    surface = {t.pattern_id for t in _rule_threats(text)}
    if any(t.pattern_id not in surface for t in threats):
        return False
    return is_quoted_report(text, threats, scan_all(unquoted(text)))


def assess(text: str, *, semantic: SemanticScreen | None = None) -> Assessment:
    """The verdict on ``text``: ``block``, ``quarantine`` or ``allow``, with the findings.

    A text whose findings are all quotations inside a report of an attack is kept
    (:mod:`.quoting`). ``semantic`` adds the similarity check of
    :class:`~.semantic.SemanticScreen`; it only runs when the rules found nothing, and
    can only quarantine.
    """
    threats = scan_all(text)
    if threats and _quoted_report(text, threats):
        return Assessment(Verdict.ALLOW, ())
    if not threats and semantic is not None and text:
        finding = semantic.check(text)
        if finding is not None:
            threats = [finding]
    if not threats:
        return Assessment(Verdict.ALLOW, ())
    ordered = tuple(sorted(threats, key=lambda t: rank(t.verdict)))
    return Assessment(ordered[0].verdict, ordered)

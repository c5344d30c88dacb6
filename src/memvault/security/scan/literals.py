"""Literals a regex cannot match without: a cheap, exact test that a rule cannot fire.

A rule's regex is costly to run over a long text, and most texts cannot match it
because a word it needs is missing ("your" in "show me your system prompt"). Reading
the regex's parsed form gives such needs as clauses: each clause is a set of
lower-case strings one of which every match contains. When a text's lower-cased form
misses every string of some clause, the regex cannot match it, so skipping the regex
there never changes what the rule finds.

The reading is conservative: anything it does not follow (classes of many
characters, back references, negative lookarounds, optional parts) requires nothing.
Only characters whose lower case is certain are used: ASCII ones and those without
case (CJK, kana, hangul, digits, punctuation). A text holding one of the few other
characters a case-insensitive regex equates with an ASCII letter (:data:`CASE_TWINS`)
is not tested at all.
"""

from __future__ import annotations

import hashlib
import json
import re
import re._constants as sre  # type: ignore[import-not-found]
import re._parser as sre_parse  # type: ignore[import-not-found]
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

#: Characters outside ASCII that ``re.IGNORECASE`` matches with an ASCII letter
#: while their own ``lower()`` is not that letter's: long s, Kelvin sign, dotted and
#: dotless i (a test checks the list against the ``re`` module).
CASE_TWINS = "\u017f\u212a\u0130\u0131"
_TWINS = re.compile(f"[{CASE_TWINS}]")

# Bounds that keep the reading small: strings per exact set, and a string's length.
_MAX_SET = 24


@dataclass(frozen=True, slots=True)
class _Info:
    """What matches of one node are: ``exact`` (every match is one of these lower-case
    strings) when known, and ``clauses`` every match satisfies."""

    exact: frozenset[str] | None
    clauses: tuple[frozenset[str], ...] = ()


_NOTHING = _Info(None)
_EMPTY = _Info(frozenset({""}))


def _plain(code: int) -> bool:
    char = chr(code)
    return char.isascii() or (char.lower() == char and char.upper() == char)


def _literal(code: int) -> _Info:
    return _Info(frozenset({chr(code).lower()})) if _plain(code) else _NOTHING


def _in(items: list[tuple[Any, Any]]) -> _Info:
    chars: set[str] = set()
    for op, arg in items:
        if op is not sre.LITERAL or not _plain(arg):
            return _NOTHING  # a range, a category, a negation: not followed
        chars.add(chr(arg).lower())
    return _Info(frozenset(chars)) if 0 < len(chars) <= _MAX_SET else _NOTHING


def _clauses(info: _Info) -> tuple[frozenset[str], ...]:
    """All ``info`` says as clauses (its exact set is one when it never matches "")."""
    if info.exact is not None and "" not in info.exact:
        return (info.exact, *info.clauses)
    return info.clauses


def _best(info: _Info) -> frozenset[str] | None:
    """The one clause of ``info`` most worth testing: its shortest string longest."""
    options = _clauses(info)
    if not options:
        return None
    return max(options, key=lambda c: (min(len(s) for s in c), -len(c)))


def _sequence(items: Iterable[tuple[Any, Any]]) -> _Info:
    clauses: list[frozenset[str]] = []
    run: frozenset[str] | None = frozenset({""})  # the exact strings of the run so far
    whole = True  # every part exact and joined: the sequence is exact too

    def close() -> None:
        if run is not None and "" not in run:
            clauses.append(run)

    for item in items:
        info = _node(item)
        clauses.extend(info.clauses)
        if info.exact is None:
            close()
            run, whole = frozenset({""}), False
            continue
        assert run is not None
        if len(run) * len(info.exact) <= _MAX_SET:
            run = frozenset(a + b for a in run for b in info.exact)
        else:
            close()
            run, whole = info.exact, False
    if whole:
        return _Info(run, tuple(clauses))
    close()
    return _Info(None, tuple(clauses))


def _branch(alternatives: list[Any]) -> _Info:
    infos = [_sequence(a) for a in alternatives]
    if all(i.exact is not None for i in infos):
        union = frozenset(s for i in infos for s in i.exact or ())
        if len(union) <= _MAX_SET:
            return _Info(union)
    picked = [_best(i) for i in infos]
    if any(p is None for p in picked):
        return _NOTHING  # one way to match needs nothing
    return _Info(None, (frozenset(s for p in picked for s in p or ()),))


def _node(item: tuple[Any, Any]) -> _Info:
    op, arg = item
    if op is sre.LITERAL:
        return _literal(arg)
    if op is sre.AT:
        return _EMPTY  # \b, ^, $: match nothing but the empty string
    if op is sre.IN:
        return _in(arg)
    if op is sre.SUBPATTERN:
        return _sequence(arg[3])
    if op is sre.ATOMIC_GROUP:
        return _sequence(arg)
    if op is sre.BRANCH:
        return _branch(arg[1])
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
        low, high, body = arg
        if low == 0:
            return _NOTHING
        inner = _sequence(body)
        if low == high == 1:
            return inner
        return _Info(None, _clauses(inner))
    if op is sre.ASSERT:
        _direction, body = arg  # ahead or behind, its match is in the text
        return _Info(frozenset({""}), _clauses(_sequence(body)))
    return _NOTHING  # any character, categories, negations, back references


def required(regex: re.Pattern[str]) -> tuple[frozenset[str], ...]:
    """Clauses of lower-case strings: every match of ``regex`` holds a string of each."""
    parsed = sre_parse.parse(regex.pattern, regex.flags)
    seen: dict[frozenset[str], None] = {}
    for clause in _clauses(_sequence(parsed)):
        if all(clause):  # an empty string is in every text: no test
            seen.setdefault(clause, None)
    return tuple(seen)


# -- where a match can begin ---------------------------------------------------------

# A match's opening as ``(string, whole)`` pairs: every match begins with one of the
# strings; ``whole`` says the string is all the node matched (what follows it in the
# regex follows it in the text), so the next node's openings extend it.
_Openings = frozenset[tuple[str, bool]]
_UNKNOWN: _Openings = frozenset({("", False)})
_ZERO_WIDTH: _Openings = frozenset({("", True)})
# More openings than this cost more to look for than the regex's own search.
_MAX_OPENINGS = 48


def _opening_sequence(items: Iterable[tuple[Any, Any]]) -> _Openings:
    out: _Openings = _ZERO_WIDTH
    for item in items:
        if not any(whole for _, whole in out):
            break
        follow = _opening(item)
        grown = frozenset(
            pair
            for start, whole in out
            for pair in (((start + s, w) for s, w in follow) if whole else ((start, False),))
        )
        if len(grown) > _MAX_OPENINGS:
            return frozenset((start, False) for start, _ in out)
        out = grown
    return out


def _opening(item: tuple[Any, Any]) -> _Openings:
    op, arg = item
    if op is sre.LITERAL:
        return frozenset({(chr(arg).lower(), True)}) if _plain(arg) else _UNKNOWN
    if op in (sre.AT, sre.ASSERT, sre.ASSERT_NOT):
        return _ZERO_WIDTH  # \b, ^, look-arounds: they consume nothing
    if op is sre.IN:
        chars = _in(arg).exact
        return _UNKNOWN if chars is None else frozenset((c, True) for c in chars)
    if op is sre.SUBPATTERN:
        return _opening_sequence(arg[3])
    if op is sre.ATOMIC_GROUP:
        return _opening_sequence(arg)
    if op is sre.BRANCH:
        union = frozenset(pair for alternative in arg[1] for pair in _opening_sequence(alternative))
        return union if len(union) <= _MAX_OPENINGS else _UNKNOWN
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
        low, high, body = arg
        inner = _opening_sequence(body)
        if not (low == high == 1):
            inner = frozenset((s, False) for s, _ in inner)  # another round may follow
        return inner | _ZERO_WIDTH if low == 0 else inner
    return _UNKNOWN


def openings(regex: re.Pattern[str]) -> frozenset[str] | None:
    """Lower-case strings one of which every match of ``regex`` begins with, or None
    when the reading finds none that every match needs. Where none of them occurs in
    a text's lower case (:func:`twin_free` text of the same length), no match can
    begin, so the regex only needs trying where one does."""
    parsed = sre_parse.parse(regex.pattern, regex.flags)
    found = {start for start, _ in _opening_sequence(parsed)}
    if not found or "" in found:
        return None
    # A string that begins with another adds no place to try.
    return frozenset(s for s in found if not any(s != t and s.startswith(t) for t in found))


# -- read ahead of time ----------------------------------------------------------------

#: What :func:`required` and :func:`openings` find in the scan's own regexes, computed
#: ahead of time by ``bench/scan_literals.py`` and shipped: reading the regexes again
#: was most of the first scan's cost in every new process (each ``memvault add``).
#: Keyed by a hash of each regex's flags and text, so a changed rule is read afresh.
SHIPPED = Path(__file__).with_name("literals.json")

Reading = tuple[tuple[frozenset[str], ...], frozenset[str] | None]


def key(regex: re.Pattern[str]) -> str:
    """The shipped file's key of ``regex``."""
    return hashlib.sha256(f"{regex.flags}\0{regex.pattern}".encode()).hexdigest()[:24]


@lru_cache(maxsize=1)
def _shipped() -> dict[str, Any]:
    try:
        data = json.loads(SHIPPED.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def reading(regex: re.Pattern[str]) -> Reading:
    """``(required(regex), openings(regex))``: shipped where the file holds this regex,
    read from it otherwise."""
    found = _shipped().get(key(regex))
    if found is None:
        return required(regex), openings(regex)
    needs, starts = found
    return (
        tuple(frozenset(clause) for clause in needs),
        None if starts is None else frozenset(starts),
    )


def written(regex: re.Pattern[str]) -> list[Any]:
    """The shipped file's entry for ``regex`` (what :func:`reading` turns back)."""
    starts = openings(regex)
    return [
        [sorted(clause) for clause in required(regex)],
        None if starts is None else sorted(starts),
    ]


def twin_free(text: str) -> bool:
    """Whether clauses may be tested on the lower case of ``text``, the text a regex
    runs on: it holds none of the :data:`CASE_TWINS`."""
    return _TWINS.search(text) is None


__all__ = ["CASE_TWINS", "openings", "required", "twin_free"]

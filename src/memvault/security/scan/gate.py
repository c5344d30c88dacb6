"""Which rules of a table can fire on a text: triggers found in one pass, then needs.

Each rule (:class:`~.model.Pattern`) runs its regex only where one of its trigger
literals occurs in the lower-cased text. Asking that rule by rule meant one search of
the whole text per rule, over a hundred per view of a chat line. Here one regex, a
trie of every trigger of the table, finds at each position of the text the longest
trigger starting there; the triggers starting there are exactly that one and those of
its prefixes that are triggers too. So the set of triggers present, and with it the
rules to run, is the same as the per-rule searches give, in one pass. Triggers with a
character outside ASCII have a trie of their own, run only on texts that have such
characters (a trie of hundreds of CJK words costs more to run than to skip).

A rule that passes runs its regex only when the text also holds what the regex cannot
match without (:mod:`.literals`), which skips most of the regex runs over long texts
and cannot change a finding.

A regex that runs is tried, on a long text, only where a match can begin
(:meth:`Gate.matching`): Python's ``re`` has no fast skip for a case-insensitive
pattern, so its search starts a match attempt at every character of the text, which
on a few kilobytes costs far more than finding the few words every match of the rule
opens with (``literals.openings``) and trying there. A search finds a match exactly
when a match begins at one of its positions, so the finding is the same.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .literals import reading, twin_free

if TYPE_CHECKING:
    from .model import Pattern


def _trie_regex(words: Sequence[str]) -> str:
    """A regex matching, where any of ``words`` starts, the longest one starting there."""
    trie: dict[str, dict] = {}  # type: ignore[type-arg]
    for word in words:
        node = trie
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}  # a word ends here

    def pattern(node: dict) -> str:  # type: ignore[type-arg]
        ends = "" in node
        branches = [re.escape(c) + pattern(child) for c, child in sorted(node.items()) if c]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        # Children start with distinct characters, so at most one can go on; a greedy
        # optional tail prefers it, which makes the match the longest word.
        return f"(?:{body})?" if ends else body

    return pattern(trie)


@dataclass(frozen=True, slots=True)
class Gate:
    """The rules of one table (in order) and the pass that says which may fire."""

    rules: tuple[Pattern, ...]
    _ascii: re.Pattern[str]  # the triggers all in ASCII
    _other: re.Pattern[str]  # the others
    # For each trigger: the indexes of the rules it (or a trigger it starts with) opens.
    _opens: dict[str, frozenset[int]]
    _always: frozenset[int]
    # For each rule: clauses of strings its matches hold one of each (``required``).
    _needs: tuple[tuple[frozenset[str], ...], ...]
    # For each rule: strings one of which every match begins with (None: unknown).
    _openings: tuple[tuple[str, ...] | None, ...]

    @classmethod
    def of(cls, rules: Sequence[Pattern]) -> Gate:
        by_trigger: dict[str, set[int]] = {}
        always: set[int] = set()  # an empty trigger occurs in every text
        for i, rule in enumerate(rules):
            for trigger in rule.triggers:
                if trigger:
                    by_trigger.setdefault(trigger, set()).add(i)
                else:
                    always.add(i)
        words = sorted(by_trigger)
        opens = {
            word: frozenset(
                i for other in words if word.startswith(other) for i in by_trigger[other]
            )
            for word in words
        }
        ascii_words = [w for w in words if w.isascii()]
        other_words = [w for w in words if not w.isascii()]
        # A masked rule runs on a text with spans blanked out, which could make a
        # string it needs (one with a space) appear: it keeps its triggers only.
        read = [None if rule.mask is not None else reading(rule.regex) for rule in rules]
        needs = tuple(() if r is None else _ordered(r[0]) for r in read)
        # A masked rule's regex runs on another text than the view: it is searched whole.
        starts = tuple(None if r is None else _sorted(r[1]) for r in read)
        return cls(
            rules=tuple(rules),
            _ascii=_finder(ascii_words),
            _other=_finder(other_words),
            _opens=opens,
            _always=frozenset(always),
            _needs=needs,
            _openings=starts,
        )

    def candidates(self, text: str) -> list[Pattern]:
        """The rules, in table order, that may match ``text`` (the view their regexes
        run on): one of their triggers occurs in its lower case, and so does a string
        of each clause their regex needs."""
        lowered = text.lower()
        return [self.rules[i] for i in self._candidates(text, lowered, twin_free(text))]

    def _candidates(self, text: str, lowered: str, plain: bool) -> list[int]:
        """``candidates`` as indexes; ``plain``: ``text`` is :func:`twin_free`."""
        found = set(self._ascii.findall(lowered))
        if not lowered.isascii():
            found.update(self._other.findall(lowered))
        if not found and not self._always:
            return []
        opened: set[int] = set(self._always)
        for word in found:
            opened |= self._opens[word]
        if not plain:
            return sorted(opened)
        return [
            i
            for i in sorted(opened)
            if all(any(s in lowered for s in clause) for clause in self._needs[i])
        ]

    def matching(self, text: str, skip: Collection[str] = ()) -> Iterator[Pattern]:
        """The rules, in table order, whose regex finds a match in ``text`` (the
        ``candidates`` whose ``Pattern.search`` is true), but those whose id is in
        ``skip``."""
        lowered = text.lower()
        plain = twin_free(text)
        # Where the lower case keeps every character in its place (one character for
        # one, none a case twin), a match can only begin where an opening occurs in it.
        placed = plain and len(lowered) == len(text) and len(text) >= _LONG
        for i in self._candidates(text, lowered, plain):
            rule = self.rules[i]
            if rule.id in skip:
                continue
            starts = self._openings[i]
            if placed and starts is not None:
                found = _search_from(rule.regex, text, lowered, starts)
            else:
                found = rule.search(text)
            if found:
                yield rule


def _finder(words: Sequence[str]) -> re.Pattern[str]:
    """Finds, at every position where one of ``words`` starts, the longest one there (a
    first look at the next character skips most positions cheaply)."""
    if not words:
        return re.compile(r"(?!)")
    first = "".join(sorted({re.escape(w[0]) for w in words}))
    return re.compile(f"(?=[{first}])(?=({_trie_regex(words)}))")


# Below this many characters the whole search costs about as little as looking for the
# openings; and where the openings occur at more than one place in this many, the
# attempts at each cost more than the search.
_LONG = 256
_DENSITY = 16


def _search_from(regex: re.Pattern[str], text: str, lowered: str, starts: Sequence[str]) -> bool:
    """Whether ``regex`` finds a match in ``text``, trying only where one of ``starts``
    occurs in ``lowered`` (its lower case, character for character)."""
    places: set[int] = set()
    most = len(text) // _DENSITY
    for start in starts:
        at = lowered.find(start)
        while at >= 0:
            places.add(at)
            at = lowered.find(start, at + 1)
        if len(places) > most:
            return regex.search(text) is not None
    match = regex.match
    return any(match(text, at) is not None for at in places)


def _sorted(found: frozenset[str] | None) -> tuple[str, ...] | None:
    return None if found is None else tuple(sorted(found))


def _ordered(clauses: tuple[frozenset[str], ...]) -> tuple[frozenset[str], ...]:
    """The clauses most likely to fail first: those whose strings are longest and fewest."""
    return tuple(sorted(clauses, key=lambda c: (-min(len(s) for s in c), len(c))))


__all__ = ["Gate"]

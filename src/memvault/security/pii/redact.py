"""Running every detector over a text and replacing what they find with placeholders.

``detect_all(text)`` asks each registered detector, then settles overlaps: of
two findings that share any character, the one with the higher sensitivity
wins, then the longer one, then the one whose detector was registered first
(so a resident id that also passes the Luhn check is reported as ``cn_id``).
Once a value is found, every other copy of it in the text is reported too.

``redact(text)`` replaces each finding with ``[<kind>#<n>]``. Numbers count per
kind in order of appearance and the same value always gets the same
placeholder, so "call 13812345678 ... 13812345678 again" stays readable as
"call [phone#1] ... [phone#1] again". ``Redaction.originals`` maps each
placeholder back to its value: it is the only copy of the sensitive text, so
callers store it encrypted (or not at all) and never log it.

Redaction is idempotent. Text inside an existing placeholder is never reported,
and numbering continues after the highest placeholder of a kind already present,
so redacting a redacted text changes nothing and a new value never reuses an old
placeholder. Offsets are ``str`` indices (code points): a replacement can never cut
a CJK or any other multi-byte character.

The level of each kind comes from :data:`~.base.DEFAULT_LEVELS` (email and phone
are sensitive, bank cards and resident ids protected, API keys, private keys and
passwords secret); pass ``levels=`` to change it. A kind missing from the
mapping keeps the level its detector gave it.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from ...model import Sensitivity
from .base import DEFAULT_LEVELS, Detector, Finding, level_rank
from .registry import Registry, default_registry

#: Matches a placeholder written by :func:`redact`.
PLACEHOLDER = re.compile(r"\[(?P<kind>[a-z][a-z0-9_]*)#(?P<number>[0-9]+)\]")


@dataclass(frozen=True, slots=True)
class Redaction:
    """The outcome of :func:`redact`.

    ``text`` is safe to store and show; ``findings`` point into the *original*
    text; ``sensitivity`` is the highest level among the findings (``normal``
    when there are none); ``originals`` maps each placeholder to the value it
    replaced and is left out of ``repr``.
    """

    text: str
    findings: tuple[Finding, ...]
    sensitivity: Sensitivity
    originals: dict[str, str] = field(repr=False)

    @property
    def changed(self) -> bool:
        return bool(self.findings)

    def restore(self) -> str:
        """The original text, rebuilt from ``text`` and ``originals``."""
        return PLACEHOLDER.sub(lambda m: self.originals.get(m.group(), m.group()), self.text)


def _run(detector: Detector, text: str) -> list[Finding]:
    found = detector.detect(text)
    # Drop anything malformed rather than corrupt the text around it.
    return [
        f for f in found if 0 <= f.start < f.end <= len(text) and text[f.start : f.end] == f.text
    ]


def detect_all(
    text: str,
    *,
    levels: Mapping[str, Sensitivity] | None = None,
    registry: Registry | None = None,
) -> list[Finding]:
    """Non-overlapping findings of every registered detector, in text order.

    ``levels`` overrides the sensitivity of a kind; ``registry`` defaults to the
    process-wide one (built-in detectors plus any added with ``register``).
    """
    mapping = DEFAULT_LEVELS if levels is None else levels
    chosen = registry.detectors() if registry is not None else default_registry().detectors()
    reserved = [m.span() for m in PLACEHOLDER.finditer(text)]
    candidates: list[tuple[int, Finding]] = []
    for order, detector in enumerate(chosen):
        for found in _run(detector, text):
            if any(found.start < end and start < found.end for start, end in reserved):
                continue
            level = mapping.get(found.kind, found.sensitivity)
            if level != found.sensitivity:
                found = dataclasses.replace(found, sensitivity=level)
            candidates.append((order, found))

    candidates.sort(key=lambda c: (-level_rank(c[1].sensitivity), -len(c[1]), c[0], c[1].start))
    kept: list[Finding] = []
    for _, found in candidates:
        if not any(found.overlaps(other) for other in kept):
            kept.append(found)
    kept.extend(_repeats(text, kept, reserved))
    kept.sort(key=lambda f: f.start)
    return kept


def _repeats(text: str, kept: list[Finding], reserved: list[tuple[int, int]]) -> list[Finding]:
    """Further copies of found values that no detector reported on their own.

    A value is only recognised where its context allows ("订单号 13812345678" is
    not a phone), but once it is known to be sensitive every copy of it is.
    """
    taken = [(f.start, f.end) for f in kept] + reserved
    extra: list[Finding] = []
    for found in sorted({f.text: f for f in kept}.values(), key=len, reverse=True):
        at = text.find(found.text)
        while at != -1:
            end = at + len(found.text)
            if not any(at < t_end and t_start < end for t_start, t_end in taken):
                extra.append(dataclasses.replace(found, start=at, end=end))
                taken.append((at, end))
            at = text.find(found.text, at + 1)
    return extra


def redact(
    text: str,
    *,
    levels: Mapping[str, Sensitivity] | None = None,
    registry: Registry | None = None,
) -> Redaction:
    """Replace every finding in ``text`` with a typed, numbered placeholder.

    The result is checked once more: a detector can see a value it missed before
    because its neighbour became a placeholder (a number glued to a longer one, say).
    Such values are added and the text redacted again until nothing new appears,
    which is what makes ``redact`` idempotent for any registered detector.
    """
    findings = detect_all(text, levels=levels, registry=registry)
    if not findings:
        return Redaction(text, (), Sensitivity.NORMAL, {})

    floor: dict[str, int] = {}
    for existing in PLACEHOLDER.finditer(text):
        kind, number = existing.group("kind"), int(existing.group("number"))
        floor[kind] = max(floor.get(kind, 0), number)

    while True:
        redacted, originals, offsets = _substitute(text, findings, floor)
        missed = detect_all(redacted, levels=levels, registry=registry)
        if not missed:
            break
        findings = sorted(
            [*findings, *(_map_back(f, offsets, text) for f in missed)], key=lambda f: f.start
        )

    level = max((f.sensitivity for f in findings), key=level_rank)
    return Redaction(redacted, tuple(findings), level, originals)


def _substitute(
    text: str, findings: list[Finding], floor: dict[str, int]
) -> tuple[str, dict[str, str], list[tuple[int, int]]]:
    """The redacted text, its placeholder map, and (end in output, growth) per placeholder."""
    counters = dict(floor)
    assigned: dict[tuple[str, str], str] = {}
    originals: dict[str, str] = {}
    offsets: list[tuple[int, int]] = []
    pieces: list[str] = []
    cursor = 0
    size = 0
    for found in findings:
        key = (found.kind, found.text)
        placeholder = assigned.get(key)
        if placeholder is None:
            counters[found.kind] = counters.get(found.kind, 0) + 1
            placeholder = f"[{found.kind}#{counters[found.kind]}]"
            assigned[key] = placeholder
            originals[placeholder] = found.text
        gap = text[cursor : found.start]
        pieces += [gap, placeholder]
        size += len(gap) + len(placeholder)
        offsets.append((size, len(placeholder) - len(found)))
        cursor = found.end
    pieces.append(text[cursor:])
    return "".join(pieces), originals, offsets


def _map_back(found: Finding, offsets: list[tuple[int, int]], text: str) -> Finding:
    """``found`` (in redacted text, outside every placeholder) moved onto ``text``."""
    shift = sum(growth for end, growth in offsets if end <= found.start)
    start, end = found.start - shift, found.end - shift
    return dataclasses.replace(found, start=start, end=end, text=text[start:end])

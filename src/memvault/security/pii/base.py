"""The pieces every sensitive-data detector shares: ``Finding``, ``Detector``, the levels.

A detector looks at plain text and reports spans; it never changes the text.
Spans are ``str`` indices (code points), so a span can never cut a CJK or other
multi-byte character in half. :mod:`memvault.security.pii.redact` combines the
findings of all registered detectors and replaces them with placeholders.

Detectors import this module; it imports none of them. Which detectors run is the
business of :mod:`memvault.security.pii.registry`, one level up.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Protocol, runtime_checkable

from ...model import Sensitivity

#: The protection level of each built-in kind. Contact details identify a person
#: but are shared often (sensitive); government ids and card numbers enable fraud
#: (protected); anything that grants access on its own is a secret.
DEFAULT_LEVELS: Mapping[str, Sensitivity] = MappingProxyType(
    {
        "email": Sensitivity.SENSITIVE,
        "phone": Sensitivity.SENSITIVE,
        "bank_card": Sensitivity.PROTECTED,
        "cn_id": Sensitivity.PROTECTED,
        "api_key": Sensitivity.SECRET,
        "private_key": Sensitivity.SECRET,
        "password": Sensitivity.SECRET,
    }
)

#: Sensitivity levels from least to most protected, for comparisons.
LEVEL_ORDER: tuple[Sensitivity, ...] = (
    Sensitivity.NORMAL,
    Sensitivity.SENSITIVE,
    Sensitivity.PROTECTED,
    Sensitivity.SECRET,
)


def level_rank(level: Sensitivity) -> int:
    """Position of ``level`` in :data:`LEVEL_ORDER` (higher is more protected)."""
    return LEVEL_ORDER.index(level)


@dataclass(frozen=True, slots=True)
class Finding:
    """One span of ``text[start:end]`` that a detector recognised as ``kind``.

    ``text`` is the sensitive value itself, so it is left out of ``repr`` to keep
    it out of logs and tracebacks.
    """

    kind: str
    start: int
    end: int
    text: str = field(repr=False)
    sensitivity: Sensitivity

    def __len__(self) -> int:
        return self.end - self.start

    def overlaps(self, other: Finding) -> bool:
        return self.start < other.end and other.start < self.end


def finding(kind: str, text: str, start: int, end: int) -> Finding:
    """A finding over ``text[start:end]`` at the default level of ``kind``."""
    return Finding(kind, start, end, text[start:end], DEFAULT_LEVELS.get(kind, Sensitivity.SECRET))


@runtime_checkable
class Detector(Protocol):
    """Finds one kind of sensitive value in text.

    ``detect`` returns findings in any order, may return overlapping ones, and
    must not raise on any input.
    """

    kind: str

    def detect(self, text: str) -> list[Finding]: ...


def context_before(text: str, start: int, window: int) -> str:
    """Up to ``window`` characters before ``start``, lower-cased, for keyword checks."""
    return text[max(0, start - window) : start].lower()


# "order no.", "tracking number:", "订单号：", "快递单号" and the like, right before a number.
_REFERENCE_CUE = re.compile(
    r"(?:(?<![a-z])(?:order|tracking|invoice|ref|reference|ticket|booking|transaction|"
    r"serial|confirmation|parcel|shipment|qq)(?:\s*(?:number|no\.?|num|id|code|#))?"
    r"|(?:订单|单号|运单|快递|流水|编号|工单|发票|序列号|批号|qq)[号码]?)"
    r"[\s:：#=是为]{0,4}$"
)


def introduces_reference(text: str, start: int) -> bool:
    """Whether the words just before ``start`` call what follows an order/tracking/ref number."""
    return _REFERENCE_CUE.search(context_before(text, start, 28)) is not None

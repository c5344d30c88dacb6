"""The budget allocator: a preset's contract and the model's window in, tokens per part out.

A pure function (:func:`allocate`), so the same inputs always give the same report. The
rules, in order:

1. **The budget** is the profile's ``max_tokens``, never over ``window_share`` of the
   model's context window, never over the window itself (the hard cap).
2. **What a component asks for** is what it wants (its text's size, or a size the caller
   measured), capped by its own ``max_tokens``. A component the preset does not list gets
   nothing (``not_in_preset``).
3. **Minimums first**: in priority order, each component is reserved ``min_tokens`` (or
   less, when it asks for less). When the budget cannot hold every minimum, the most
   important components keep theirs and the report says ``minimums_fit = False``.
4. **Give-back**: what is left (the budget less the reservations, which includes what
   components did not need of their minimum) is handed out in priority order, each
   component up to what it asks for. A lower priority gets more than its minimum only
   when every higher one has all it asked for.

Every token is accounted for: ``sum(granted) + unused == budget``, and ``unused`` is
above zero only when every component got all it asked for.

Tokens are counted with :func:`memvault.render.count_tokens`, the estimate the recall
block is packed in; :func:`fit_text` cuts a plain text to a grant.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ..errors import ValidationError
from ..render import count_tokens
from .presets import COMPONENTS, Preset

Cut = Literal["max_tokens", "budget", "below_minimum", "not_in_preset"]
MAX_WINDOW = 100_000_000


@dataclass(frozen=True, slots=True)
class Grant:
    """What one component asked for and got.

    ``wanted``: its full size; ``asked``: that capped by its ``max_tokens``; ``granted``:
    its tokens; ``cut``: ``wanted - granted``; ``reason``: why it got less than it
    wanted (None when it got all of it): its own ``max_tokens``, the ``budget`` ran out
    after its minimum, it did not get even its minimum (``below_minimum``), or the
    preset does not include it (``not_in_preset``).
    """

    component: str
    priority: int | None
    min_tokens: int
    wanted: int
    asked: int
    granted: int
    reason: Cut | None

    @property
    def cut(self) -> int:
        return self.wanted - self.granted

    def to_dict(self) -> dict[str, Any]:
        return {
            "component": self.component,
            "priority": self.priority,
            "min_tokens": self.min_tokens,
            "wanted": self.wanted,
            "asked": self.asked,
            "granted": self.granted,
            "cut": self.cut,
            "reason": self.reason,
        }


@dataclass(frozen=True, slots=True)
class Allocation:
    """The allocator's report: the budget it worked in and every component's grant
    (the preset's in priority order, then the ones it does not include)."""

    preset: str
    window: int
    budget: int
    grants: tuple[Grant, ...]
    minimums_fit: bool

    @property
    def used(self) -> int:
        return sum(g.granted for g in self.grants)

    @property
    def unused(self) -> int:
        return self.budget - self.used

    def granted(self, component: str) -> int:
        """The tokens ``component`` got (0 when it is not part of the report)."""
        return next((g.granted for g in self.grants if g.component == component), 0)

    def grant(self, component: str) -> Grant | None:
        return next((g for g in self.grants if g.component == component), None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "preset": self.preset,
            "window": self.window,
            "budget": self.budget,
            "used": self.used,
            "unused": self.unused,
            "minimums_fit": self.minimums_fit,
            "grants": [g.to_dict() for g in self.grants],
        }


def check_window(window: object) -> int:
    """A model's context window in tokens, or ``ValidationError``."""
    if isinstance(window, bool) or not isinstance(window, int) or not 1 <= window <= MAX_WINDOW:
        raise ValidationError(
            f"window must be the model's context window in tokens, an integer from 1 to "
            f"{MAX_WINDOW}",
            field="window",
        )
    return window


def _check_wanted(wanted: object) -> dict[str, int]:
    if not isinstance(wanted, Mapping):
        raise ValidationError("wanted must map component names to token counts", field="wanted")
    checked: dict[str, int] = {}
    for name, size in wanted.items():
        if name not in COMPONENTS:
            raise ValidationError(
                f"unknown component {name!r}: the components are {', '.join(COMPONENTS)}",
                field="wanted",
            )
        if isinstance(size, bool) or not isinstance(size, int) or size < 0:
            raise ValidationError(
                f"wanted[{name!r}] must be a token count, an integer >= 0", field="wanted"
            )
        checked[name] = size
    return checked


def allocate(preset: Preset, *, window: int, wanted: Mapping[str, int]) -> Allocation:
    """Tokens per component for ``preset`` in a model with ``window`` tokens of context.

    ``wanted`` maps component names to the tokens each would take at full size
    (:func:`measure` turns texts into that); a component not named wants nothing.
    """
    if not isinstance(preset, Preset):
        raise ValidationError("preset must be a Preset (see get_preset)", field="preset")
    cap = check_window(window)
    sizes = _check_wanted(wanted)
    budget = preset.budget_profile.budget(cap)
    order = preset.ordered()
    asked = [
        min(sizes.get(c.component, 0), c.max_tokens if c.max_tokens is not None else MAX_WINDOW)
        for c in order
    ]
    floors = [min(a, c.min_tokens) for a, c in zip(asked, order, strict=True)]
    left = budget
    granted: list[int] = []
    for floor in floors:
        take = min(floor, left)
        granted.append(take)
        left -= take
    for i, want in enumerate(asked):
        take = min(want - granted[i], left)
        granted[i] += take
        left -= take
    grants: list[Grant] = []
    for c, want, floor, got in zip(order, asked, floors, granted, strict=True):
        full = sizes.get(c.component, 0)
        reason: Cut | None = None
        if got < floor:
            reason = "below_minimum"
        elif got < want:
            reason = "budget"
        elif got < full:
            reason = "max_tokens"
        grants.append(
            Grant(
                component=c.component,
                priority=c.priority,
                min_tokens=c.min_tokens,
                wanted=full,
                asked=want,
                granted=got,
                reason=reason,
            )
        )
    for name in COMPONENTS:
        if name in sizes and not preset.includes(name):
            size = sizes[name]
            grants.append(
                Grant(
                    component=name,
                    priority=None,
                    min_tokens=0,
                    wanted=size,
                    asked=0,
                    granted=0,
                    reason="not_in_preset" if size else None,
                )
            )
    return Allocation(
        preset=preset.name,
        window=cap,
        budget=budget,
        grants=tuple(grants),
        minimums_fit=sum(floors) <= budget,
    )


def measure(texts: Mapping[str, str]) -> dict[str, int]:
    """Each text's size in tokens (``count_tokens``), as ``allocate`` takes them."""
    return {name: count_tokens(text) for name, text in texts.items()}


CUT_MARK = "[… cut to fit the prompt budget]"


def fit_text(text: str, tokens: int) -> str:
    """``text`` within ``tokens``: whole, or its first lines that fit and a note that the
    rest was cut; "" when not even one line and the note fit."""
    if count_tokens(text) <= tokens:
        return text
    mark = count_tokens(CUT_MARK)
    kept: list[str] = []
    used = mark
    for line in text.splitlines():
        cost = count_tokens(line)
        if used + cost > tokens:
            break
        kept.append(line)
        used += cost
    while kept and not kept[-1].strip():
        kept.pop()
    if not kept:
        return ""
    return "\n".join([*kept, CUT_MARK])


__all__ = [
    "CUT_MARK",
    "Allocation",
    "Cut",
    "Grant",
    "allocate",
    "check_window",
    "fit_text",
    "measure",
]

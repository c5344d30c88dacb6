"""The filter words of every read: one vocabulary from the surfaces down to the store.

``Vault.search`` / ``explain`` / ``context`` / ``list`` / ``count`` and the HTTP
client's calls of the same names take their filters as ``**filters: Unpack[...]`` of
the typed dictionaries below, so a type checker checks each word and its value, and a
filter added here reaches every read at once. The engine reads them in
``engine.views``; the gateway passes a request's filters on as these words.

:func:`takes` gives such a function its whole keyword signature at run time (what
``inspect.signature``, ``help`` and the client's mirror tests read) and refuses a word
it does not take with the ``TypeError`` Python gives for any unknown keyword.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any, Literal, TypedDict, TypeVar, cast

from ..model import DecisionStatus, Domain, Kind, MemClass, Sensitivity, Tier

RecallScope = Literal["session", "workspace", "global"]


class Filters(TypedDict, total=False):
    """Which entries, by their classification (None, or left out: any)."""

    kind: Kind | str | None
    mem_class: MemClass | str | None
    domain: Domain | str | None
    tier: Tier | str | None
    sensitivity: Sensitivity | str | None
    status: DecisionStatus | str | None
    source_subject: str | None


class AsOf(TypedDict, total=False):
    """When: the entries current at ``as_of`` (None: now), or every version too."""

    as_of: datetime | str | None
    include_superseded: bool


class Recalled(Filters, AsOf, total=False):
    """The filters of a recall over HTTP (``Client.search``, ``explain``, ``context``)."""


class Listed(Filters, AsOf, total=False):
    """The filters of a listing over HTTP (``Client.list``, ``count``): also the session,
    the workspace and the creation range (``created_after`` inclusive, ``created_before``
    not)."""

    session_id: str | None
    workspace_id: str | None
    created_after: datetime | str | None
    created_before: datetime | str | None


class Placed(TypedDict, total=False):
    """Where a recall looks: ``scope`` (``"session"``: ``session_id``'s entries;
    ``"workspace"``: ``workspace_id``'s; ``"global"``: all the call may see)."""

    scope: RecallScope
    session_id: str | None
    workspace_id: str | None


class Scoped(Recalled, Placed, total=False):
    """``Vault.context``'s filters: a recall's, narrowed by its place."""


class Hinted(Placed, total=False):
    """``Vault.context_hits``: the place and the domain (the workspace's allocator)."""

    domain: Domain | str | None


class Searched(Scoped, total=False):
    """``Vault.search`` / ``explain``: also ``quarantined`` (False: only clear entries)."""

    quarantined: bool | None


class Sought(Searched, total=False):
    """``Vault.search``: also ``for_model`` (True: the hits a model may be shown, read as
    a prompt block is read, ``Recall.screened``: what the block's screen withholds, the
    model screen's flags and instructions split across memories, is left out)."""

    for_model: bool


class Browsed(Listed, total=False):
    """``Vault.list`` / ``count``: also ``quarantined`` (True: only held entries)."""

    quarantined: bool | None


#: The defaults of the words that have one other than None.
DEFAULTS: dict[str, object] = {
    "include_superseded": False,
    "scope": "global",
    "for_model": False,
}

F = TypeVar("F", bound=Callable[..., Any])


def takes(words: type, defaults: Mapping[str, object] = DEFAULTS) -> Callable[[F], F]:
    """Spell out the words of ``words`` (a TypedDict) as keyword parameters of the
    decorated function's run-time signature, in place of its ``**filters``; the
    function is called with every word, a word left out at its default (``defaults``,
    else None)."""

    def spell(fn: F) -> F:
        own = inspect.signature(fn)
        kept = [p for p in own.parameters.values() if p.kind is not p.VAR_KEYWORD]
        spelled = [
            inspect.Parameter(
                name,
                inspect.Parameter.KEYWORD_ONLY,
                default=defaults.get(name),
                annotation=getattr(hint, "__forward_arg__", hint),
            )
            for name, hint in words.__annotations__.items()
        ]
        signature = own.replace(parameters=[*kept, *spelled])

        @functools.wraps(fn)
        def checked(*args: Any, **kwargs: Any) -> Any:
            try:
                bound = signature.bind(*args, **kwargs)
            except TypeError as exc:
                raise TypeError(f"{fn.__name__}() {exc}") from None
            bound.apply_defaults()
            return fn(*bound.args, **bound.kwargs)

        checked.__signature__ = signature  # type: ignore[attr-defined]
        return cast(F, checked)

    return spell


__all__ = [
    "DEFAULTS",
    "AsOf",
    "Browsed",
    "Filters",
    "Hinted",
    "Listed",
    "Placed",
    "RecallScope",
    "Recalled",
    "Scoped",
    "Searched",
    "Sought",
    "takes",
]

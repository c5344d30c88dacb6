"""Browsing the caller's entries: ``Vault.list``, ``count`` and ``stats``.

A listing is the owner's view (``views.owner_view``) narrowed by the words of
``results.filters.Browsed``: the classification, the creation range, and the moment
(``as_of``: the entries current then, each in the version it had, from ``history``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import datetime

from ..errors import ValidationError
from ..lifecycle.history import validity_filter
from ..model import EntryOrder, MemoryEntry
from ..results.stats import Stats
from ..stores.protocols import Store
from ..stores.stats import make_stats, window_start
from ..stores.values import NO_FILTER, EntryFilter, View
from ..validation import check_bool, check_datetime, check_limit, check_offset
from .history import HistoryService
from .views import entry_filter


def check_sort(value: object) -> EntryOrder:
    """The listing order a caller names, or a ``ValidationError`` naming the choices."""
    for order in EntryOrder:
        if value == order.value:
            return order
    choices = ", ".join(o.value for o in EntryOrder)
    raise ValidationError(f"sort must be one of {choices}", field="sort")


def created_range(flt: EntryFilter, after: object, before: object) -> EntryFilter:
    """``flt`` narrowed to the entries created in ``[after, before)``, both checked."""
    start = check_datetime(after, "created_after", optional=True)
    end = check_datetime(before, "created_before", optional=True)
    if start is not None and end is not None and start >= end:
        raise ValidationError(
            "created_after must be earlier than created_before: swap them or widen the range",
            field="created_after",
        )
    return replace(flt, created_after=start, created_before=end)


class Listing:
    """The caller's entries, filtered and paged, and how many there are."""

    def __init__(
        self,
        store: Store,
        history: HistoryService,
        clock: Callable[[], datetime],
        embedder: str | None,
    ) -> None:
        self._embedder = embedder  # the model whose vectors ``stats`` counts as pending
        self._store = store
        self._history = history
        self._clock = clock

    def _filter(self, words: Mapping[str, object]) -> tuple[EntryFilter, datetime | None]:
        flt = entry_filter(words)
        flt = created_range(flt, words.get("created_after"), words.get("created_before"))
        return flt, check_datetime(words.get("as_of"), "as_of", optional=True)

    def _valid(self, flt: EntryFilter, when: datetime | None, wide: object) -> EntryFilter:
        wide = check_bool(wide, "include_superseded")
        return validity_filter(flt, now=self._clock(), as_of=when, include_superseded=wide)

    def entries(
        self,
        view: View,
        words: Mapping[str, object],
        *,
        limit: object,
        offset: object,
        sort: object,
    ) -> list[MemoryEntry]:
        """One page of ``view``'s entries the words name, in ``sort``'s order."""
        flt, when = self._filter(words)
        order = check_sort(sort)
        flt = self._valid(flt, when, words.get("include_superseded", False))
        found = self._store.list_entries(
            view,
            flt,
            limit=check_limit(limit, maximum=1000),
            offset=check_offset(offset),
            order=order,
        )
        return found if when is None else self._history.as_of(view.user_id, found, when)

    def count(self, view: View, words: Mapping[str, object]) -> int:
        """How many entries ``entries`` would give without a limit."""
        flt, when = self._filter(words)
        flt = self._valid(flt, when, words.get("include_superseded", False))
        if when is None:
            return self._store.count(view, flt)
        return len(
            self._history.as_of(view.user_id, list(self._store.iter_entries(view, flt)), when)
        )

    def stats(self, view: View, days: object) -> Stats:
        """``view``'s current entries at a glance (``Vault.stats``): each number one
        aggregate query in the store."""
        embedder = self._embedder
        span = check_limit(days, "days", maximum=366)
        now = self._clock()
        current = validity_filter(NO_FILTER, now=now, as_of=None, include_superseded=False)
        tally = self._store.tally(view, current)
        activity = self._store.daily_activity(view, window_start(now, span))
        pending = 0 if embedder is None else self._store.count_unembedded(view, embedder)
        return make_stats(
            user_id=view.user_id,
            agent_id=view.agent_id,
            now=now,
            days=span,
            tally=tally,
            activity=activity,
            embedder=embedder,
            pending=pending,
        )


__all__ = ["Listing", "check_sort", "created_range"]

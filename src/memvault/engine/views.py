"""What a call names, checked: whose entries it may see (a ``View``) and which of them
(an ``EntryFilter``), and the error for an entry that is not there.

The scope rules of every engine call:

* every call names a ``user_id``; nothing ever crosses to another user;
* management calls (get, update, delete, list, count, export, the review queue) with
  ``agent_id=None`` act as the owner and see all of the user's entries; with an agent
  id they see the user's shared entries plus that agent's private ones
  (:func:`owner_view`);
* recall (search, explain, context) is for an agent context: with ``agent_id=None``
  it sees the user's shared entries, with an agent id the shared ones plus that
  agent's (:func:`recall_view`).

Recall can be narrowed further by a **scope** (seed 004: session / workspace / global,
:func:`recall_scope`): ``global`` (the default) is the whole recall view, ``session`` only
the entries of the caller's session, ``workspace`` only those of its workspace.

The store enforces the view on every read and write; this module only turns what a
caller passed into one, validated.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, get_args

from ..errors import NotFoundError, ValidationError
from ..fields import BY_NAME
from ..model import MemoryEntry
from ..results.filters import Filters, RecallScope
from ..retrieval.recall import Recall, Search
from ..stores.protocols import EntryStore
from ..stores.values import EQUAL_FIELDS, EntryFilter, View
from ..validation import check_bool, check_datetime, check_entry_id, check_filter, make_scope
from ..validation import check_optional_ident as _ident


def owner_view(user_id: object, agent_id: object = None) -> View:
    """A management call's view: the owner's (every entry of the user) without an agent."""
    scope = make_scope(user_id, agent_id)
    return View(scope.user_id, scope.agent_id, all_agents=scope.agent_id is None)


def recall_view(user_id: object, agent_id: object = None) -> View:
    """Recall's view: the user's shared entries, plus the agent's private ones."""
    scope = make_scope(user_id, agent_id)
    return View(scope.user_id, scope.agent_id)


SCOPES: tuple[str, ...] = get_args(RecallScope)
#: The words that say where: a listing filters on them, a recall's scope picks one.
PLACE = ("session_id", "workspace_id")


def recall_scope(
    scope: object, session_id: object = None, workspace_id: object = None
) -> tuple[str | None, str | None]:
    """The ``(session_id, workspace_id)`` a recall in ``scope`` is filtered on (None: any).

    ``session_id`` and ``workspace_id`` say where the caller is; the scope picks which of
    them narrows the recall, and the one it picks must be given.
    """
    if scope not in SCOPES:
        raise ValidationError(
            f"scope must be one of {', '.join(SCOPES)}, got {scope!r}", field="scope"
        )
    session = _ident(session_id, "session_id")
    workspace = _ident(workspace_id, "workspace_id")
    if scope == "session":
        if session is None:
            raise ValidationError(
                "scope 'session' needs the session: pass session_id (or use scope 'global')",
                field="session_id",
            )
        return session, None
    if scope == "workspace":
        if workspace is None:
            raise ValidationError(
                "scope 'workspace' needs the workspace: pass workspace_id (or use scope 'global')",
                field="workspace_id",
            )
        return None, workspace
    return None, None


def entry_filter(words: Mapping[str, object], *, session: bool = True) -> EntryFilter:
    """The classification filter the filter words name (``results.filters``; None or
    left out: any), each word checked. ``session``: whether ``session_id`` filters
    (a listing's) or only says where the caller is (a recall's, see ``recall_search``)."""
    quarantined = words.get("quarantined")
    if quarantined is not None and not isinstance(quarantined, bool):
        raise ValidationError("quarantined must be true, false or omitted", field="quarantined")
    # Each word named like an entry field is checked by that field's rule (``fields``):
    # the classification words of ``Filters`` and, for a listing, the place.
    named = [n for n in EQUAL_FIELDS if n in Filters.__optional_keys__ or (session and n in PLACE)]
    checked: dict[str, Any] = {n: check_filter(BY_NAME[n], words.get(n)) for n in named}
    return EntryFilter(quarantined=quarantined, **checked)


def recall_search(
    recall: Recall,
    query: object,
    view: View,
    limit: object,
    words: Mapping[str, object],
) -> Search:
    """A recall's checked search in ``view`` (the caller's recall view), narrowed by the
    filter words and by their ``scope`` (which alone picks the session or workspace)."""
    flt = entry_filter(words, session=False)
    scope = words.get("scope", "global")
    session, workspace = recall_scope(scope, words.get("session_id"), words.get("workspace_id"))
    flt = replace(flt, session_id=session, workspace_id=workspace)
    when = check_datetime(words.get("as_of"), "as_of", optional=True)
    wide = check_bool(words.get("include_superseded", False), "include_superseded")
    shown = check_bool(words.get("for_model", False), "for_model")
    return recall.ask(query, view, limit, flt, as_of=when, include_superseded=wide, for_model=shown)


def not_found(entry_id: str, user_id: str) -> NotFoundError:
    """The error for an id that is not one of the caller's entries, saying what to do."""
    return NotFoundError(
        f"no memory {entry_id!r} for user {user_id!r}: list or search to find valid ids",
        entry_id=entry_id,
        user_id=user_id,
    )


def read_entry(store: EntryStore, view: View, entry_id: object) -> MemoryEntry:
    """One entry inside ``view``, or ``NotFoundError``."""
    checked = check_entry_id(entry_id)
    entry = store.get(view, checked)
    if entry is None:
        raise not_found(checked, view.user_id)
    return entry


__all__ = [
    "SCOPES",
    "RecallScope",
    "entry_filter",
    "not_found",
    "owner_view",
    "read_entry",
    "recall_scope",
    "recall_search",
    "recall_view",
]

"""Every route the clients call, once: the signature a caller sees, and the ``Call`` it
becomes. ``Client`` and ``AsyncClient`` expose each of these as a method of the same
name and signature (``clients.py``), so the two cannot drift apart.

The signatures mirror ``Vault``'s (same names, same keyword arguments, same defaults),
with ``user_id`` optional: None takes the client's default user, and with neither the
key's own user acts (a user key may only name its own user; an admin key must name one).
Identifiers are checked here with the library's own rules, before anything is sent;
everything else the server checks, and its 422 comes back as the same ``ValidationError``.
The reads behind an overview, the entity graph, the workspace's sessions and the users
list are in ``browse``, built the same way.

Why one file of about 800 lines: each route is a signature and the ``Call`` it builds,
side by side, and the file is the one list of them that ``clients.py`` turns into both
clients' methods and that the mirror tests compare with ``Vault``; split by resource it
would become several such lists to keep in step.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from enum import Enum
from typing import Any, Literal, Unpack
from urllib.parse import quote

import httpx

from ..errors import ValidationError
from ..model import (
    DecisionStatus,
    Domain,
    EntryOrder,
    Hit,
    Kind,
    MemClass,
    MemoryEntry,
    Tier,
)
from ..results.external import ExternalHit
from ..results.filters import Listed, Recalled, takes
from ..results.history import Version
from ..results.profile import Profile, Remembered, parse_profile
from ..results.recall import Explanation
from ..validation import check_entry_id, check_optional_ident
from . import decode
from .exchange import Call
from .models import MemoryConfig, MemoryEntries, MemoryOverview, Target

NDJSON = "application/x-ndjson"


def _wire(value: Any) -> Any:
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, datetime):
        return value.isoformat()
    return value


def _fields(**values: Any) -> dict[str, Any]:
    """The values that are set, as JSON or query values (None: not sent)."""
    return {k: _wire(v) for k, v in values.items() if v is not None}


def _id(entry_id: str) -> str:
    return quote(check_entry_id(entry_id), safe="")


def _user(user_id: str | None) -> str | None:
    return check_optional_ident(user_id, "user_id")


def _agent(agent_id: str | None) -> str | None:
    return check_optional_ident(agent_id, "agent_id")


def _target(target: str) -> str:
    if target not in ("user", "memory"):
        raise ValidationError(
            f"target must be 'user' (USER.md) or 'memory' (MEMORY.md), not {target!r}",
            field="target",
        )
    return target


def _index(index: int) -> int:
    if isinstance(index, bool) or not isinstance(index, int) or index < 0:
        raise ValidationError(
            f"index must be a whole number >= 0 (as listed), not {index!r}", field="index"
        )
    return index


def _entry(r: httpx.Response, _: str | None) -> MemoryEntry:
    return decode.entry(r.json())


def _nothing(r: httpx.Response, _: str | None) -> None:
    return None


# -- the Vault API ------------------------------------------------------------------------


def add(
    content: str,
    *,
    user_id: str | None = None,
    agent_id: str | None = None,
    kind: Kind | str = Kind.USER,
    name: str | None = None,
    description: str | None = None,
    metadata: Mapping[str, Any] | None = None,
    session_id: str | None = None,
    mem_class: MemClass | str = MemClass.SEMANTIC,
    domain: Domain | str | None = None,
    category: str | None = None,
    importance: float = 0.5,
    status: DecisionStatus | str | None = None,
    source_subject: str | None = None,
    supersedes: str | None = None,
) -> Call[MemoryEntry]:
    """Store one memory and return it as stored (``POST /v1/memories``)."""
    body = _fields(
        content=content,
        agent_id=_agent(agent_id),
        kind=kind,
        name=name,
        description=description,
        metadata=None if metadata is None else dict(metadata),
        session_id=session_id,
        mem_class=mem_class,
        domain=domain,
        category=category,
        importance=importance,
        status=status,
        source_subject=source_subject,
        supersedes=supersedes,
    )
    return Call("POST", "/v1/memories", _entry, json=body, user_id=_user(user_id), user_in="body")


def add_many(
    records: Iterable[Mapping[str, Any]],
    *,
    user_id: str | None = None,
    agent_id: str | None = None,
) -> Call[list[MemoryEntry]]:
    """Store many memories in one transaction, all or none (``POST /v1/memories/batch``).
    Each record takes the keyword arguments of ``add`` (``content`` required)."""
    if isinstance(records, str | bytes | Mapping) or not isinstance(records, Iterable):
        raise ValidationError("records must be a list of objects, one per memory", field="records")
    rows = []
    for i, record in enumerate(records):
        if not isinstance(record, Mapping):
            raise ValidationError(f"record {i} is not an object", field="records", index=i)
        rows.append({k: _wire(v) for k, v in record.items()})

    def items(r: httpx.Response, _: str | None) -> list[MemoryEntry]:
        return [decode.entry(e) for e in r.json()["items"]]

    body = _fields(records=rows, agent_id=_agent(agent_id))
    return Call(
        "POST", "/v1/memories/batch", items, json=body, user_id=_user(user_id), user_in="body"
    )


def get(
    entry_id: str, *, user_id: str | None = None, agent_id: str | None = None
) -> Call[MemoryEntry]:
    """One memory by id; ``NotFoundError`` if it is not the caller's."""
    params = _fields(agent_id=_agent(agent_id))
    return Call(
        "GET", f"/v1/memories/{_id(entry_id)}", _entry, params=params, user_id=_user(user_id)
    )


def update(
    entry_id: str,
    *,
    user_id: str | None = None,
    agent_id: str | None = None,
    content: str | None = None,
    name: str | None = None,
    description: str | None = None,
    kind: Kind | str | None = None,
    metadata: Mapping[str, Any] | None = None,
    mem_class: MemClass | str | None = None,
    domain: Domain | str | None = None,
    category: str | None = None,
    importance: float | None = None,
    tier: Tier | str | None = None,
    source_subject: str | None = None,
) -> Call[MemoryEntry]:
    """Change the given fields of one memory (None: keep); returns the new entry."""
    body = _fields(
        agent_id=_agent(agent_id),
        content=content,
        name=name,
        description=description,
        kind=kind,
        metadata=None if metadata is None else dict(metadata),
        mem_class=mem_class,
        domain=domain,
        category=category,
        importance=importance,
        tier=tier,
        source_subject=source_subject,
    )
    path = f"/v1/memories/{_id(entry_id)}"
    return Call("PATCH", path, _entry, json=body, user_id=_user(user_id), user_in="body")


def delete(entry_id: str, *, user_id: str | None = None, agent_id: str | None = None) -> Call[None]:
    """Delete one memory; ``NotFoundError`` if it is not the caller's."""
    params = _fields(agent_id=_agent(agent_id))
    path = f"/v1/memories/{_id(entry_id)}"
    return Call("DELETE", path, _nothing, params=params, user_id=_user(user_id))


#: The most ids one ``POST /v1/memories/delete`` takes.
MAX_BULK_DELETE = 1000


def delete_many(
    entry_ids: Iterable[str], *, user_id: str | None = None, agent_id: str | None = None
) -> Call[list[str]]:
    """Delete several of the caller's memories in one request (at most 1000 ids);
    returns the ids deleted. An id that is not the caller's is left out of the answer,
    exactly like one that never existed."""
    if isinstance(entry_ids, str | bytes | Mapping) or not isinstance(entry_ids, Iterable):
        raise ValidationError("entry_ids must be a list of memory ids", field="entry_ids")
    ids = list(dict.fromkeys(check_entry_id(i) for i in entry_ids))
    if not 1 <= len(ids) <= MAX_BULK_DELETE:
        raise ValidationError(
            f"entry_ids holds {len(ids)} ids: send 1 to {MAX_BULK_DELETE} in one call",
            field="entry_ids",
        )

    def deleted(r: httpx.Response, _: str | None) -> list[str]:
        return [str(i) for i in r.json()["deleted"]]

    body = _fields(ids=ids, agent_id=_agent(agent_id))
    return Call(
        "POST", "/v1/memories/delete", deleted, json=body, user_id=_user(user_id), user_in="body"
    )


def _listing(agent_id: str | None, filters: Mapping[str, object], **page: int) -> dict[str, Any]:
    return _fields(agent_id=_agent(agent_id), **filters, **page)


@takes(Listed)
def list_entries(
    *,
    user_id: str | None = None,
    agent_id: str | None = None,
    limit: int = 100,
    offset: int = 0,
    sort: EntryOrder | str = EntryOrder.NEWEST,
    **filters: Unpack[Listed],
) -> Call[list[MemoryEntry]]:
    """The caller's memories, filtered and paged (at most 100 a page): newest first, or
    as ``sort`` says (``"oldest"``; ``"updated"``: last changed first). ``created_after``
    / ``created_before`` (a datetime or ISO 8601; a bare date is midnight UTC) keep those
    created at or after / strictly before that moment."""
    params = _listing(agent_id, filters, limit=limit, offset=offset)
    params["sort"] = _wire(sort)

    def items(r: httpx.Response, _: str | None) -> list[MemoryEntry]:
        return [decode.entry(e) for e in r.json()["items"]]

    return Call("GET", "/v1/memories", items, params=params, user_id=_user(user_id))


@takes(Listed)
def count(
    *, user_id: str | None = None, agent_id: str | None = None, **filters: Unpack[Listed]
) -> Call[int]:
    """How many memories ``list`` would give without a limit (the same filters and
    date range), so a pager can say how many pages there are."""
    params = _listing(agent_id, filters, limit=1, offset=0)

    def total(r: httpx.Response, _: str | None) -> int:
        return int(r.json()["total"])

    return Call("GET", "/v1/memories", total, params=params, user_id=_user(user_id))


def _recall_body(
    query: str, agent_id: str | None, filters: Mapping[str, object], **sizes: int | None
) -> dict[str, Any]:
    return _fields(query=query, agent_id=_agent(agent_id), **filters, **sizes)


@takes(Recalled)
def search(
    query: str,
    *,
    user_id: str | None = None,
    agent_id: str | None = None,
    limit: int = 5,
    **filters: Unpack[Recalled],
) -> Call[list[Hit]]:
    """Memories relevant to ``query``, best first (at most 50)."""
    body = _recall_body(query, agent_id, filters, limit=limit)

    def hits(r: httpx.Response, _: str | None) -> list[Hit]:
        return [decode.hit(h) for h in r.json()["results"]]

    return Call(
        "POST", "/v1/memories/search", hits, json=body, user_id=_user(user_id), user_in="body"
    )


@takes(Recalled)
def explain(
    query: str,
    *,
    user_id: str | None = None,
    agent_id: str | None = None,
    limit: int = 5,
    **filters: Unpack[Recalled],
) -> Call[Explanation]:
    """``search``'s computation as data: ranks and scores per channel, boosts, order,
    and what ``context`` would do with each candidate."""
    body = _recall_body(query, agent_id, filters, limit=limit)

    def explanation(r: httpx.Response, _: str | None) -> Explanation:
        return decode.explanation(r.json())

    path = "/v1/memories/explain"
    return Call("POST", path, explanation, json=body, user_id=_user(user_id), user_in="body")


@takes(Recalled)
def context(
    query: str,
    *,
    user_id: str | None = None,
    agent_id: str | None = None,
    max_tokens: int | None = None,
    limit: int | None = None,
    **filters: Unpack[Recalled],
) -> Call[str]:
    """The recalled-memory block for a system prompt, or "" when nothing is relevant."""
    body = _recall_body(query, agent_id, filters, max_tokens=max_tokens, limit=limit)

    def block(r: httpx.Response, _: str | None) -> str:
        text = r.json()["context"]
        if not isinstance(text, str):
            raise TypeError("context is not text")
        return text

    path = "/v1/memories/context"
    return Call("POST", path, block, json=body, user_id=_user(user_id), user_in="body")


def export(
    *, user_id: str | None = None, agent_id: str | None = None
) -> Call[list[dict[str, Any]]]:
    """The caller's export as JSON-ready dicts: every memory, oldest first, then (without
    ``agent_id``) one ``"record": "card"`` dict per state card and one ``"record": "task"``
    per task — the records ``import_`` and ``Vault.import_`` take back."""

    def records(r: httpx.Response, _: str | None) -> list[dict[str, Any]]:
        return [json.loads(line) for line in r.text.splitlines() if line.strip()]

    params = _fields(agent_id=_agent(agent_id))
    return Call("GET", "/v1/memories/export", records, params=params, user_id=_user(user_id))


def import_(
    records: Iterable[Mapping[str, Any] | str],
    *,
    user_id: str | None = None,
    agent_id: str | None = None,
    on_conflict: Literal["error", "skip"] = "error",
) -> Call[list[str]]:
    """Import exported records (dicts or JSON lines), all or nothing, keeping ids and
    times; returns the ids imported. ``agent_id`` picks that agent's store."""
    if isinstance(records, str | bytes | Mapping) or not isinstance(records, Iterable):
        raise ValidationError("records must be a list of exported records", field="records")
    if on_conflict not in ("error", "skip"):
        raise ValidationError("on_conflict must be 'error' or 'skip'", field="on_conflict")
    lines = []
    for i, record in enumerate(records):
        if isinstance(record, str):
            lines.append(record.rstrip("\n"))
        elif isinstance(record, Mapping):
            lines.append(json.dumps(dict(record), ensure_ascii=False, default=_wire))
        else:
            raise ValidationError(
                f"record {i} is neither an object nor a JSON line", field="records", index=i
            )

    def ids(r: httpx.Response, _: str | None) -> list[str]:
        return [str(i) for i in r.json()["ids"]]

    params = _fields(agent_id=_agent(agent_id), on_conflict=on_conflict)
    content = "".join(line + "\n" for line in lines).encode("utf-8")
    return Call(
        "POST",
        "/v1/memories/import",
        ids,
        params=params,
        content=content,
        content_type=NDJSON,
        user_id=_user(user_id),
    )


def remember(
    messages: Sequence[Mapping[str, Any]],
    *,
    user_id: str | None = None,
    agent_id: str | None = None,
    session_id: str | None = None,
    thread_id: str | None = None,
    wait: bool = False,
) -> Call[Remembered]:
    """Hand over a conversation's messages (OpenAI or LangChain message dicts) and let
    the server work out what to keep."""
    if isinstance(messages, str | bytes | Mapping) or not isinstance(messages, Sequence):
        raise ValidationError("messages must be a list of message objects", field="messages")
    body = _fields(
        messages=[dict(m) if isinstance(m, Mapping) else m for m in messages],
        agent_id=_agent(agent_id),
        session_id=session_id,
        thread_id=thread_id,
        wait=wait,
    )
    agent = body.get("agent_id")

    def done(r: httpx.Response, user: str | None) -> Remembered:
        return decode.remembered(r.json(), user, agent)

    path = "/v1/memories/remember"
    return Call("POST", path, done, json=body, user_id=_user(user_id), user_in="body")


def history(
    entry_id: str, *, user_id: str | None = None, agent_id: str | None = None
) -> Call[list[Version]]:
    """Every period in which the fact was current, oldest first."""

    def versions(r: httpx.Response, _: str | None) -> list[Version]:
        return [decode.version(v) for v in r.json()["versions"]]

    params = _fields(agent_id=_agent(agent_id))
    path = f"/v1/memories/{_id(entry_id)}/history"
    return Call("GET", path, versions, params=params, user_id=_user(user_id))


def undo(
    entry_id: str, *, user_id: str | None = None, agent_id: str | None = None
) -> Call[MemoryEntry]:
    """Put the previous state of the fact back; returns the entry current after it."""
    body = _fields(agent_id=_agent(agent_id))
    path = f"/v1/memories/{_id(entry_id)}/undo"
    return Call("POST", path, _entry, json=body, user_id=_user(user_id), user_in="body")


def decide(
    entry_id: str,
    status: DecisionStatus | str,
    *,
    user_id: str | None = None,
    agent_id: str | None = None,
    reason: str = "",
) -> Call[MemoryEntry]:
    """Move a decision along its lifecycle; ``ValidationError`` names the legal moves."""
    body = _fields(status=status, reason=reason, agent_id=_agent(agent_id))
    path = f"/v1/memories/{_id(entry_id)}/decision"
    return Call("POST", path, _entry, json=body, user_id=_user(user_id), user_in="body")


def profile(*, user_id: str | None = None, agent_id: str | None = None) -> Call[Profile]:
    """The structured profile learnt from conversations (empty when nothing was)."""

    def document(r: httpx.Response, _: str | None) -> Profile:
        return parse_profile(r.json(), origin="the server's profile")

    params = _fields(agent_id=_agent(agent_id))
    return Call("GET", "/v1/profile", document, params=params, user_id=_user(user_id))


def save_profile(
    profile: Profile | Mapping[str, Any],
    *,
    user_id: str | None = None,
    agent_id: str | None = None,
) -> Call[Profile]:
    """Replace the profile whole; returns it as saved."""
    if isinstance(profile, Profile):
        sent = profile.model_dump(mode="json", by_alias=True)
    elif isinstance(profile, Mapping):
        sent = dict(profile)
    else:
        raise ValidationError("profile must be a Profile or its JSON object", field="profile")

    def saved(r: httpx.Response, _: str | None) -> Profile:
        return parse_profile(r.json(), origin="the server's profile")

    params = _fields(agent_id=_agent(agent_id))
    return Call("PUT", "/v1/profile", saved, params=params, json=sent, user_id=_user(user_id))


def erase_user(*, user_id: str) -> Call[int]:
    """Erase every trace of a user; returns how many memories went."""
    user = check_optional_ident(user_id, "user_id")
    if user is None:
        raise ValidationError("erase_user needs the user_id to erase", field="user_id")

    def deleted(r: httpx.Response, _: str | None) -> int:
        return int(r.json()["deleted"])

    return Call("DELETE", f"/v1/users/{quote(user, safe='')}", deleted, user_in="none")


def health() -> Call[dict[str, Any]]:
    """``GET /healthz``: ``{"status", "version"}``; needs no key."""

    def answer(r: httpx.Response, _: str | None) -> dict[str, Any]:
        return dict(r.json())

    return Call("GET", "/healthz", answer, user_in="none")


# -- /api/memory/v2: DeerFlow's client methods (seed 000, section 0.5) --------------------

V2 = "/api/memory/v2"


def get_memory(*, user_id: str | None = None, agent_id: str | None = None) -> Call[MemoryOverview]:
    """USER.md and MEMORY.md, the external provider's status, usage and times."""

    def overview(r: httpx.Response, _: str | None) -> MemoryOverview:
        return MemoryOverview.model_validate(r.json())

    params = _fields(agent_id=_agent(agent_id))
    return Call("GET", V2, overview, params=params, user_id=_user(user_id))


def _entries(r: httpx.Response, _: str | None) -> MemoryEntries:
    return MemoryEntries.model_validate(r.json())


def add_memory_entry(
    target: Target, content: str, *, user_id: str | None = None, agent_id: str | None = None
) -> Call[MemoryEntries]:
    """Append an entry to USER.md (``"user"``) or MEMORY.md (``"memory"``)."""
    params = _fields(agent_id=_agent(agent_id))
    body = {"target": _target(target), "content": content}
    return Call("POST", f"{V2}/entries", _entries, params=params, json=body, user_id=_user(user_id))


def replace_memory_entry(
    target: Target,
    index: int,
    content: str,
    *,
    expected: str | None = None,
    user_id: str | None = None,
    agent_id: str | None = None,
) -> Call[MemoryEntries]:
    """Replace the entry at ``index`` (0-based, as listed); with ``expected``, only if it
    still reads so (``ConflictError`` otherwise)."""
    params = _fields(agent_id=_agent(agent_id))
    body = _fields(content=content, expected=expected)
    path = f"{V2}/entries/{_target(target)}/{_index(index)}"
    return Call("PUT", path, _entries, params=params, json=body, user_id=_user(user_id))


def remove_memory_entry(
    target: Target,
    index: int,
    *,
    expected: str | None = None,
    user_id: str | None = None,
    agent_id: str | None = None,
) -> Call[MemoryEntries]:
    """Remove the entry at ``index``; with ``expected``, only if it still reads so."""
    params = _fields(agent_id=_agent(agent_id), expected=expected)
    path = f"{V2}/entries/{_target(target)}/{_index(index)}"
    return Call("DELETE", path, _entries, params=params, user_id=_user(user_id))


def _config(r: httpx.Response, _: str | None) -> MemoryConfig:
    return MemoryConfig.model_validate(r.json())


def get_memory_config(*, user_id: str | None = None) -> Call[MemoryConfig]:
    """Every memory setting with its value and the layer it comes from."""
    return Call("GET", f"{V2}/config", _config, user_id=_user(user_id))


def update_memory_config(
    changes: Mapping[str, Any], *, user_id: str | None = None
) -> Call[MemoryConfig]:
    """Override user-writable settings (dotted names), all or nothing."""
    if not isinstance(changes, Mapping):
        raise ValidationError("changes must map dotted field names to values", field="changes")
    return Call("PATCH", f"{V2}/config", _config, json=dict(changes), user_id=_user(user_id))


def search_memory(
    query: str,
    *,
    limit: int | None = None,
    user_id: str | None = None,
    agent_id: str | None = None,
) -> Call[list[ExternalHit]]:
    """Recall through the server's external memory provider (``limit`` None: the
    agent's prefetch size)."""

    def hits(r: httpx.Response, _: str | None) -> list[ExternalHit]:
        return [decode.external_hit(h) for h in r.json()["results"]]

    params = _fields(agent_id=_agent(agent_id))
    body = _fields(query=query, limit=limit)
    return Call("POST", f"{V2}/search", hits, params=params, json=body, user_id=_user(user_id))


__all__ = [
    "add",
    "add_many",
    "add_memory_entry",
    "context",
    "count",
    "decide",
    "delete",
    "delete_many",
    "erase_user",
    "explain",
    "export",
    "get",
    "get_memory",
    "get_memory_config",
    "health",
    "history",
    "import_",
    "list_entries",
    "profile",
    "remember",
    "remove_memory_entry",
    "replace_memory_entry",
    "save_profile",
    "search",
    "search_memory",
    "undo",
    "update",
    "update_memory_config",
]

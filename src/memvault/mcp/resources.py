"""The MCP resources of one user: what there is to read, reading it, and what a tool changed.

SDK-free (the server in :mod:`.server` turns these values into MCP types). Every URI is
read in the scope of the server's user (and agent), exactly as the tools act:

* ``memvault://files/USER.md`` and ``memvault://files/MEMORY.md`` — the builtin files of
  the ``memory`` tool, as the model may see them (an entry the scan flags is shown as its
  placeholder), entries joined by the files' own ``§`` lines; ``text/markdown``;
* ``memvault://memories/{id}`` — one memory as the library renders it
  (``MemoryEntry.to_dict``: sensitive text as stored, redacted); an entry withheld from
  models (held for review, or flagged by the scan now and never approved) reads with its
  text, name, description and metadata replaced by ``[QUARANTINED: <id>]`` and its
  ``quarantine`` reason, and is listed without text: an MCP host hands resources to a
  model. One ``vault.model_view`` withholds (it forms an instruction with another memory,
  or the model screen flags it) reads as ``[WITHHELD: <id>]`` with ``withheld``, the
  reason, and is listed without text too. ``application/json``. A template, and every
  memory of the user is listed too, a page at a time;
* ``memvault://graph`` — the reference knowledge graph of :mod:`.graph` (its JSON shape);
* ``memvault://entities`` — the vault's entity graph (``Vault.entities``), and
  ``memvault://entities/{name}`` one entity with its relations (``Vault.entity``).

Another user's memory id, or an entity only another user's memories name, reads exactly
like an id nobody has: the same ``NotFoundError`` text, naming only the URI.

:func:`tool_change` says which resources a tool call changed, from the tool's name, its
arguments and its JSON answer; :meth:`UserResources.stamps` fingerprints watched memories
so a change no answer names (a graph tool rewriting an entity's entry) is found too.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import quote, unquote

from ..agent.files import ENTRY_DELIMITER
from ..agent.provider import WriteTarget
from ..agent.providers.builtin import BuiltinFileProvider
from ..agent.tools.workspace import card_view, task_view
from ..errors import NotFoundError, UnsupportedOperationError, ValidationError
from ..model import MemoryEntry
from ..results.graph import entity_dict
from ..security.quarantine import injectable, placeholder, withheld
from ..validation import check_ident
from ..vault import Vault
from .graph import KnowledgeGraph

SCHEME = "memvault://"
FILES_PREFIX = "memvault://files/"
MEMORY_PREFIX = "memvault://memories/"
GRAPH_URI = "memvault://graph"
ENTITIES_URI = "memvault://entities"
ENTITY_PREFIX = "memvault://entities/"
CARD_PREFIX = "memvault://cards/"
BOARD_PREFIX = "memvault://boards/"
MEMORY_TEMPLATE = "memvault://memories/{id}"
ENTITY_TEMPLATE = "memvault://entities/{name}"
CARD_TEMPLATE = "memvault://cards/{session_id}"
#: Stands in a ``Change`` for "some board changed" until the workspace is known.
TASKS_CHANGED = "memvault://boards/"
BOARD_TEMPLATE = "memvault://boards/{workspace_id}"

JSON = "application/json"
MARKDOWN = "text/markdown"

#: The builtin files by resource name, with their ``memory`` tool target.
FILES: dict[str, WriteTarget] = {"USER.md": "user", "MEMORY.md": "memory"}
FILE_URIS: dict[str, str] = {target: FILES_PREFIX + name for name, target in FILES.items()}

#: Memories listed per ``resources/list`` page (the fixed resources come on the first).
PAGE_SIZE = 50
#: How many entities ``memvault://entities`` holds (the most named first).
ENTITY_LIMIT = 1000
_MAX_CURSOR = 10_000_000

_FORMS = (
    "memvault://files/USER.md, memvault://files/MEMORY.md, memvault://memories/{id}, "
    "memvault://graph, memvault://entities, memvault://entities/{name}, "
    "memvault://cards/{session_id} or memvault://boards/{workspace_id}"
)

# Tools that only read: they never change a resource.
READ_ONLY_TOOLS = frozenset(
    {"memory_recall", "memory_list", "read_graph", "search_nodes", "open_nodes"}
)


@dataclass(frozen=True, slots=True)
class ResourceInfo:
    """One listed resource (or, with a ``{...}`` URI, a template)."""

    uri: str
    name: str
    title: str
    description: str
    mime_type: str


@dataclass(frozen=True, slots=True)
class ResourcePage:
    """One page of ``resources/list``; ``next_cursor`` is None on the last."""

    resources: list[ResourceInfo]
    next_cursor: str | None


@dataclass(frozen=True, slots=True)
class ResourceText:
    """What reading a resource gives."""

    uri: str
    mime_type: str
    text: str


@dataclass(frozen=True, slots=True)
class Change:
    """What a tool call changed: whether the list of resources did, and which resources."""

    list_changed: bool = False
    uris: frozenset[str] = field(default_factory=frozenset)

    def __or__(self, other: Change) -> Change:
        return Change(self.list_changed or other.list_changed, self.uris | other.uris)

    def __bool__(self) -> bool:
        return self.list_changed or bool(self.uris)


NO_CHANGE = Change()


def memory_uri(entry_id: str) -> str:
    return MEMORY_PREFIX + entry_id


def entity_uri(name: str) -> str:
    return ENTITY_PREFIX + quote(name, safe="")


def _not_found(uri: str) -> NotFoundError:
    # One text for a missing id and another user's: nothing in it tells them apart.
    return NotFoundError(
        f"no resource {uri!r} for this user: list the resources (resources/list) for the "
        "URIs there are"
    )


def _malformed(uri: str, why: str) -> ValidationError:
    return ValidationError(f"{why} in resource URI {uri!r}; the URIs are {_FORMS}", field="uri")


def check_uri(uri: object) -> str:
    """``uri`` when it has one of the resource forms (whether or not it exists), else
    ``ValidationError``."""
    if not isinstance(uri, str) or not uri.startswith(SCHEME):
        raise _malformed(str(uri), "not a memvault:// URI")
    if uri in (GRAPH_URI, ENTITIES_URI):
        return uri
    if uri.startswith(FILES_PREFIX):
        if uri[len(FILES_PREFIX) :] not in FILES:
            raise _malformed(uri, "no such file (USER.md or MEMORY.md)")
        return uri
    if uri.startswith(MEMORY_PREFIX):
        try:
            check_ident(uri[len(MEMORY_PREFIX) :], "id")
        except ValidationError:
            raise _malformed(uri, "not a memory id") from None
        return uri
    if uri.startswith(ENTITY_PREFIX):
        if not unquote(uri[len(ENTITY_PREFIX) :]).strip():
            raise _malformed(uri, "no entity name")
        return uri
    for prefix, what in ((CARD_PREFIX, "session id"), (BOARD_PREFIX, "workspace id")):
        if uri.startswith(prefix):
            try:
                check_ident(uri[len(prefix) :], what.replace(" ", "_"))
            except ValidationError:
                raise _malformed(uri, f"not a {what}") from None
            return uri
    raise _malformed(uri, "unknown resource kind")


def card_uri(session_id: str) -> str:
    return CARD_PREFIX + session_id


def board_uri(workspace_id: str) -> str:
    return BOARD_PREFIX + workspace_id


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2)


def _title(entry: MemoryEntry, why: Mapping[str, str]) -> str:
    # Neither listing nor reading shows any text of a withheld entry.
    if entry.id in why:
        return f"[{entry.kind.value}] {'withheld' if injectable(entry) else 'held for review'}"
    label = entry.name or entry.description or entry.content
    label = " ".join(label.split())
    return f"[{entry.kind.value}] {label[:80]}"


def _model_view(entry: MemoryEntry, why: Mapping[str, str]) -> dict[str, Any]:
    """``entry.to_dict()``, or for a withheld entry its record without any of its text."""
    record = entry.to_dict()
    if not injectable(entry):
        record.update(content=placeholder(entry), name=None, description=None, metadata={})
    elif entry.id in why:
        record.update(content=withheld(entry), name=None, description=None, metadata={})
        record["withheld"] = why[entry.id]
    return record


class UserResources:
    """The resources of one user (and agent) of a vault. Synchronous; raises memvault errors."""

    def __init__(
        self,
        vault: Vault,
        *,
        user_id: str,
        agent_id: str | None,
        files: BuiltinFileProvider,
        graph: KnowledgeGraph,
    ) -> None:
        self.vault = vault
        self.user_id = user_id
        self.agent_id = agent_id
        self.files = files
        self.graph = graph

    # -- listing ------------------------------------------------------------------------

    def fixed(self) -> list[ResourceInfo]:
        """The resources every user has, whatever is stored."""
        return [
            ResourceInfo(
                FILE_URIS["user"],
                "USER.md",
                "USER.md: who the user is",
                "The short profile the memory tool keeps (target 'user').",
                MARKDOWN,
            ),
            ResourceInfo(
                FILE_URIS["memory"],
                "MEMORY.md",
                "MEMORY.md: the assistant's notes",
                "The assistant's own notes the memory tool keeps (target 'memory').",
                MARKDOWN,
            ),
            ResourceInfo(
                GRAPH_URI,
                "knowledge graph",
                "Knowledge graph",
                "Entities, observations and relations of the knowledge-graph tools.",
                JSON,
            ),
            ResourceInfo(
                ENTITIES_URI,
                "entities",
                "Entity graph",
                "The entities this user's memories name, most named first.",
                JSON,
            ),
        ]

    def templates(self) -> list[ResourceInfo]:
        return [
            ResourceInfo(
                MEMORY_TEMPLATE,
                "memory",
                "One memory",
                "One saved memory by its id, as JSON (memory_list gives the ids).",
                JSON,
            ),
            ResourceInfo(
                ENTITY_TEMPLATE,
                "entity",
                "One entity",
                "One entity of the entity graph by any of its names (URL-encoded), with "
                "its relations and the ids of the memories naming it.",
                JSON,
            ),
            ResourceInfo(
                CARD_TEMPLATE,
                "state card",
                "A conversation's state card",
                "The current state of one conversation (goal, progress, decisions, open "
                "questions, next step) at its latest revision.",
                JSON,
            ),
            ResourceInfo(
                BOARD_TEMPLATE,
                "task board",
                "A workspace's task board",
                "The tasks of one workspace with their status and conversation.",
                JSON,
            ),
        ]

    def page(self, cursor: str | None, size: int = PAGE_SIZE) -> ResourcePage:
        """The fixed resources, then the user's memories newest first, ``size`` a page."""
        offset = self._offset(cursor)
        entries = self.vault.list(
            user_id=self.user_id, agent_id=self.agent_id, limit=size + 1, offset=offset
        )
        why = self._withheld(entries[:size])
        listed = [
            ResourceInfo(
                memory_uri(e.id),
                e.id if e.id in why else e.name or e.id,
                _title(e, why),
                f"memory {e.id}",
                JSON,
            )
            for e in entries[:size]
        ]
        if cursor is None:
            listed = self.fixed() + listed
        more = len(entries) > size
        return ResourcePage(listed, str(offset + size) if more else None)

    @staticmethod
    def _offset(cursor: str | None) -> int:
        if cursor is None:
            return 0
        if not cursor.isdigit() or int(cursor) > _MAX_CURSOR:
            raise ValidationError(
                f"cursor {cursor[:40]!r} is not one this server gave: send the nextCursor of "
                "the previous page, or none for the first",
                field="cursor",
            )
        return int(cursor)

    # -- reading ------------------------------------------------------------------------

    def read(self, uri: str) -> ResourceText:
        """The resource at ``uri``; ``ValidationError`` when malformed, ``NotFoundError``
        when this user has none there."""
        check_uri(uri)
        if uri.startswith(FILES_PREFIX):
            target = FILES[uri[len(FILES_PREFIX) :]]
            text = ENTRY_DELIMITER.join(self.files.display_entries(target))
            return ResourceText(uri, MARKDOWN, text)
        if uri == GRAPH_URI:
            return ResourceText(uri, JSON, _dump(self.graph.read_graph().to_json()))
        if uri == ENTITIES_URI:
            return ResourceText(uri, JSON, _dump({"entities": self._entities()}))
        if uri.startswith(MEMORY_PREFIX):
            entry = self._entry(uri)
            if entry is None:
                raise _not_found(uri)
            return ResourceText(uri, JSON, _dump(_model_view(entry, self._withheld([entry]))))
        if uri.startswith(CARD_PREFIX):
            card = self.vault.workspace.card(
                user_id=self.user_id, session_id=uri[len(CARD_PREFIX) :]
            )
            if card.revision == 0:
                raise _not_found(uri)  # never saved, or another user's: the same answer
            return ResourceText(uri, JSON, _dump(card_view(card)))
        if uri.startswith(BOARD_PREFIX):
            workspace = uri[len(BOARD_PREFIX) :]
            tasks = self.vault.workspace.tasks(user_id=self.user_id, workspace_id=workspace)
            if not tasks:
                raise _not_found(uri)
            body = {"workspace_id": workspace, "tasks": [task_view(t) for t in tasks]}
            return ResourceText(uri, JSON, _dump(body))
        name = unquote(uri[len(ENTITY_PREFIX) :])
        try:
            detail = self.vault.entities.get(name, user_id=self.user_id, agent_id=self.agent_id)
        except (NotFoundError, ValidationError, UnsupportedOperationError):
            raise _not_found(uri) from None
        # The names (aliases are their folded forms, or screened when added).
        named = [detail.entity.name, *(n for r in detail.relations for n in (r.source, r.target))]
        why = self._withheld_names(named)
        if detail.entity.name in why:
            raise _not_found(uri)  # a name a model may not read: as if there were none
        kept = tuple(r for r in detail.relations if not {r.source, r.target} & why.keys())
        return ResourceText(uri, JSON, _dump(replace(detail, relations=kept).to_dict()))

    def _withheld(self, entries: list[MemoryEntry]) -> dict[str, str]:
        """Which of ``entries`` a model may not be shown, and why (``vault.model_view``)."""
        return self.vault.model_view.withheld(entries, user_id=self.user_id, agent_id=self.agent_id)

    def _entities(self) -> list[dict[str, Any]]:
        try:
            found = self.vault.entities.list(
                user_id=self.user_id, agent_id=self.agent_id, limit=ENTITY_LIMIT
            )
        except UnsupportedOperationError:
            return []  # a store without the entity graph: there is nothing to show
        why = self._withheld_names([e.name for e in found])
        return [entity_dict(e) for e in found if e.name not in why]

    def _withheld_names(self, names: list[str]) -> dict[str, str]:
        return self.vault.model_view.withheld_names(
            names, user_id=self.user_id, agent_id=self.agent_id
        )

    def _entry(self, uri: str) -> MemoryEntry | None:
        try:
            return self.vault.get(
                uri[len(MEMORY_PREFIX) :], user_id=self.user_id, agent_id=self.agent_id
            )
        except (NotFoundError, ValidationError):
            return None

    # -- noticing changes ---------------------------------------------------------------

    def before(self, tool: str, watched: Iterable[str]) -> Snapshot:
        """Stamps to take before running ``tool``: the listing, and the watched memories."""
        return _before(self, tool, watched)

    def after(
        self, snapshot: Snapshot, arguments: Mapping[str, Any], answer_text: str, failed: bool
    ) -> Change:
        """What the call ``snapshot`` was taken for changed: the resources its answer names,
        whether the listing moved, and the watched memories whose stamp moved."""
        return _after(self, snapshot, arguments, answer_text, failed)

    def list_stamp(self) -> tuple[int, str | None]:
        """What changes when a memory is added or removed: the count and the newest id."""
        newest = self.vault.list(user_id=self.user_id, agent_id=self.agent_id, limit=1)
        count = self.vault.count(user_id=self.user_id, agent_id=self.agent_id)
        return count, newest[0].id if newest else None

    def stamps(self, uris: Iterable[str]) -> dict[str, str | None]:
        """A fingerprint of each watched memory URI (None: not there), to compare after a call.

        Recall bookkeeping (access count and time) is left out: reading is no change.
        """
        out: dict[str, str | None] = {}
        for uri in uris:
            if not uri.startswith(MEMORY_PREFIX):
                continue
            entry = self._entry(uri)
            if entry is None:
                out[uri] = None
                continue
            record = entry.to_dict()
            record.pop("access_count", None)
            record.pop("last_accessed_at", None)
            blob = json.dumps(record, sort_keys=True, default=str).encode()
            out[uri] = hashlib.sha256(blob).hexdigest()
        return out


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The stamps taken before a tool call (:meth:`UserResources.before`)."""

    tool: str
    listing: tuple[int, str | None] | None = None
    memories: dict[str, str | None] = field(default_factory=dict)


def _before(resources: UserResources, tool: str, watched: Iterable[str]) -> Snapshot:
    if tool in READ_ONLY_TOOLS:
        return Snapshot(tool)
    return Snapshot(tool, resources.list_stamp(), resources.stamps(watched))


def _after(
    resources: UserResources,
    snapshot: Snapshot,
    arguments: Mapping[str, Any],
    answer_text: str,
    failed: bool,
) -> Change:
    change = tool_change(snapshot.tool, arguments, answer_text, failed)
    session = arguments.get("session_id")
    if snapshot.tool == "task_board" and change and isinstance(session, str):
        # the board of the workspace the conversation belongs to
        workspace = resources.vault.workspace.session_workspace(
            user_id=resources.user_id, session_id=session
        )
        if workspace is not None:
            change = change | Change(False, frozenset({board_uri(workspace)}))
    change = Change(change.list_changed, frozenset(u for u in change.uris if u != TASKS_CHANGED))
    if snapshot.listing is None:
        return change
    listed = resources.list_stamp() != snapshot.listing
    now = resources.stamps(snapshot.memories)
    moved = frozenset(u for u, stamp in snapshot.memories.items() if now.get(u) != stamp)
    return change | Change(listed, moved)


def _ids(answer: Mapping[str, Any]) -> set[str]:
    ids: set[str] = set()
    for key in ("memory", "decision"):
        value = answer.get(key)
        if isinstance(value, Mapping) and isinstance(value.get("id"), str):
            ids.add(value["id"])
    if isinstance(answer.get("id"), str):
        ids.add(answer["id"])
    return ids


def _workspace_change(name: str, arguments: Mapping[str, Any]) -> Change:
    """A card tool's update changed its conversation's card; a board tool's create or update
    changed its workspace's board (resolved by the caller, which can ask the vault)."""
    if arguments.get("action") not in ("update", "create"):
        return NO_CHANGE
    session = arguments.get("session_id")
    if name == "state_card" and isinstance(session, str):
        return Change(False, frozenset({card_uri(session)}))
    return Change(False, frozenset({TASKS_CHANGED}))


def tool_change(name: str, arguments: Mapping[str, Any], answer_text: str, failed: bool) -> Change:
    """The resources a finished tool call changed, as far as its name and answer tell.

    A failed call or a read-only tool changed nothing. The ``memory`` tool changed the file
    it targets. Every other tool wrote memories: the ids its answer (or arguments) name,
    and the two graphs, which any saved text may add entities or relations to. Whether the
    list changed is measured by the caller (:meth:`UserResources.list_stamp`).
    """
    if failed or name in READ_ONLY_TOOLS:
        return NO_CHANGE
    if name == "memory":
        uri = FILE_URIS.get(str(arguments.get("target")))
        return Change(False, frozenset({uri})) if uri else NO_CHANGE
    if name in ("state_card", "task_board"):
        return _workspace_change(name, arguments)
    try:
        answer = json.loads(answer_text)
    except ValueError:
        answer = {}
    if not isinstance(answer, Mapping):
        answer = {}
    ids = _ids(answer)
    if isinstance(arguments.get("id"), str) and name in ("memory_save", "memory_delete"):
        ids.add(arguments["id"])
    if name == "memory_decision" and answer.get("action") not in ("proposed", "moved"):
        return NO_CHANGE  # history only reads
    return Change(False, frozenset({GRAPH_URI, ENTITIES_URI, *map(memory_uri, ids)}))


__all__ = [
    "BOARD_TEMPLATE",
    "CARD_TEMPLATE",
    "ENTITIES_URI",
    "ENTITY_TEMPLATE",
    "FILE_URIS",
    "GRAPH_URI",
    "MEMORY_TEMPLATE",
    "NO_CHANGE",
    "PAGE_SIZE",
    "Change",
    "ResourceInfo",
    "ResourcePage",
    "ResourceText",
    "Snapshot",
    "UserResources",
    "board_uri",
    "card_uri",
    "check_uri",
    "entity_uri",
    "memory_uri",
    "tool_change",
]

"""``VaultSession``: the OpenAI Agents SDK's ``Session`` protocol over a memvault ``Vault``.

``agents.Runner.run(agent, input, session=VaultSession(...))`` reads the
conversation so far from the session before a run and adds the run's new items
after it. Here each item is one vault entry of the user (and agent):

* it is a **turn** of the session (``session_id``: the SDK session id when it is a
  valid memvault id, else a stable id derived from it; ``metadata.turn_index``: its
  position), archived like ``Vault.remember`` archives turns (``mem_class
  source_archive``, ``source turn``), so the engine indexes it with its
  neighbouring turns and ``Vault.search`` / ``Vault.context`` recall it;
* its **content** is the text of a user or assistant message (what a search
  should find), or, for any other item (tool calls, their outputs, reasoning), a
  short line naming it, stored at lower importance;
* the **item itself** is kept as JSON in ``metadata["openai_agents"]["item"]`` and
  given back unchanged by ``get_items`` and ``pop_item``. Like everything memvault
  stores, personal data and secrets in it are replaced by placeholders (the
  originals sealed, ``Vault.reveal``), so an item holding such data comes back
  redacted.

What ``get_items`` replays goes straight into the model's input, so it replays only
entries this integration wrote: their ids are signed with the vault's own key
(``vault.admin.signing_key``), which an HTTP client or an import line, free to set
any id and metadata, does not have. It never replays a ``system`` or ``developer``
item, nor an item the threat scan holds for review (kept, like every quarantined
entry, until a person approves it; ``clear_session`` deletes it). One the scan
blocks outright is not stored (the run goes on; a warning is logged), since a
session must not break the agent. The SDK calls these methods on its event loop:
the vault's work runs in a thread.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
import threading
from typing import Any

from ..errors import SecurityError, ValidationError
from ..lifecycle.turns import TURN_IMPORTANCE, archived_turn
from ..model import MemoryEntry
from ..validation import make_scope, thread_session
from ..vault import Vault

logger = logging.getLogger(__name__)

METADATA_KEY = "openai_agents"
ID_PREFIX = "oa-"
_PAGE = 1000
MAX_SESSION_ID_CHARS = 512


class VaultSession:
    """One conversation of ``user_id`` (and ``agent_id``) kept in ``vault``.

    Implements ``agents.memory.Session`` (``get_items``, ``add_items``,
    ``pop_item``, ``clear_session``); sessions of different users, agents or
    session ids never see each other's items.
    """

    session_settings: Any = None

    def __init__(
        self, session_id: str, vault: Vault, *, user_id: str, agent_id: str | None = None
    ) -> None:
        if not isinstance(session_id, str) or not session_id.strip():
            raise ValidationError("session_id must be a non-empty string", field="session_id")
        if len(session_id) > MAX_SESSION_ID_CHARS:
            raise ValidationError(
                f"session_id is longer than {MAX_SESSION_ID_CHARS} characters",
                field="session_id",
            )
        if not isinstance(vault, Vault):
            raise ValidationError("vault must be a memvault Vault", field="vault")
        scope = make_scope(user_id, agent_id)
        self.session_id = session_id
        self.vault = vault
        self.user_id = scope.user_id
        self.agent_id = scope.agent_id
        self.memvault_session = thread_session(session_id) or session_id
        self._key = vault.admin.signing_key("openai-agents")
        self._lock = threading.Lock()

    # -- the protocol ------------------------------------------------------------------

    async def get_items(self, limit: int | None = None) -> list[Any]:
        """The items in order; with ``limit``, the latest ``limit`` of them."""
        if limit is not None and (
            isinstance(limit, bool) or not isinstance(limit, int) or limit < 0
        ):
            raise ValidationError(
                "limit must be None (all items) or an integer >= 0", field="limit"
            )
        return await asyncio.to_thread(self.items, limit)

    async def add_items(self, items: list[Any]) -> None:
        """Append ``items`` (JSON-ready dicts, as the SDK passes them)."""
        if not isinstance(items, list):
            raise ValidationError("items must be a list of item dicts", field="items")
        await asyncio.to_thread(self.add, items)

    async def pop_item(self) -> Any | None:
        """Remove and return the latest item, or None when the session is empty."""
        return await asyncio.to_thread(self.pop)

    async def clear_session(self) -> None:
        """Delete every item of this session."""
        await asyncio.to_thread(self.clear)

    # -- the same, synchronous -------------------------------------------------------------

    def items(self, limit: int | None = None) -> list[Any]:
        entries = [e for e in self._entries() if _replayable(e)]
        if limit is not None:
            entries = entries[-limit:] if limit else []
        return [_item_of(entry) for entry in entries]

    def add(self, items: list[Any]) -> None:
        checked = [_check_item(item, number) for number, item in enumerate(items)]
        with self._lock:
            entries = self._entries()
            position = _position(entries[-1]) + 1 if entries else 0
            for item in checked:
                try:
                    self._store(item, position)
                except SecurityError as exc:
                    logger.warning("an item of session %r was not stored: %s", self.session_id, exc)
                    continue
                position += 1

    def pop(self) -> Any | None:
        with self._lock:
            entries = [e for e in self._entries() if _replayable(e)]
            if not entries:
                return None
            last = entries[-1]
            self.vault.delete(last.id, user_id=self.user_id, agent_id=self.agent_id)
            return _item_of(last)

    def clear(self) -> None:
        with self._lock:
            ids = [entry.id for entry in self._entries()]
            if ids:
                self.vault.delete_many(ids, user_id=self.user_id, agent_id=self.agent_id)

    # -- internals ---------------------------------------------------------------------------

    def entry_id(self, position: int) -> str:
        """The id of the item at ``position``, signed with the vault's key."""
        address = json.dumps([self.agent_id, self.session_id, position], ensure_ascii=False)
        signed = hmac.new(self._key, address.encode("utf-8"), hashlib.sha256)
        return ID_PREFIX + signed.hexdigest()

    def _entries(self) -> list[MemoryEntry]:
        """This session's item entries in order."""
        found: list[MemoryEntry] = []
        offset = 0
        while True:
            page = self.vault.list(
                user_id=self.user_id,
                agent_id=self.agent_id,
                session_id=self.memvault_session,
                limit=_PAGE,
                offset=offset,
            )
            for entry in page:
                marker = entry.metadata.get(METADATA_KEY)
                if (
                    isinstance(marker, dict)
                    and marker.get("session") == self.session_id
                    and entry.agent_id == self.agent_id
                    and "item" in marker
                    # Written by this integration: a look-alike lacks the signed id.
                    and hmac.compare_digest(entry.id, self.entry_id(_position(entry)))
                ):
                    found.append(entry)
            if len(page) < _PAGE:
                break
            offset += _PAGE
        return sorted(found, key=_position)

    def _store(self, item: dict[str, Any], position: int) -> None:
        role, text = _message_text(item)
        searchable = bool(text.strip())
        if not searchable:
            text = _describe(item)
        self.vault.add(
            text,
            user_id=self.user_id,
            agent_id=self.agent_id,
            session_id=self.memvault_session,
            metadata={
                "turn_index": position,
                "thread_id": self.session_id,
                METADATA_KEY: {"session": self.session_id, "position": position, "item": item},
            },
            id=self.entry_id(position),
            # A turn with no text to find (a tool call, an image) weighs less still.
            **archived_turn(role, importance=TURN_IMPORTANCE if searchable else 0.1),
        )


def _position(entry: MemoryEntry) -> int:
    marker = entry.metadata.get(METADATA_KEY)
    value = marker.get("position") if isinstance(marker, dict) else None
    return value if isinstance(value, int) else -1


def _replayable(entry: MemoryEntry) -> bool:
    """Whether the item may go back into the model's input: not held for review, and not
    in a role whose text the model obeys as its own instructions."""
    if entry.quarantine is not None:
        return False
    item = entry.metadata[METADATA_KEY]["item"]
    return not (isinstance(item, dict) and item.get("role") in ("system", "developer"))


def _item_of(entry: MemoryEntry) -> Any:
    marker = entry.metadata[METADATA_KEY]
    return marker["item"]


def _check_item(item: object, number: int) -> dict[str, Any]:
    if not isinstance(item, dict):
        raise ValidationError(
            f"item {number} is a {type(item).__name__}: the SDK's items are dicts",
            field="items",
        )
    try:
        json.dumps(item, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ValidationError(
            f"item {number} is not JSON data ({exc}): pass the items as the SDK gives them",
            field="items",
        ) from None
    return item


def _message_text(item: dict[str, Any]) -> tuple[str, str]:
    """The role and text of a user or assistant message item; ("", "") for others."""
    role = item.get("role")
    kind = item.get("type", "message")
    if kind != "message" or role not in ("user", "assistant"):
        return "", ""
    content = item.get("content")
    if isinstance(content, str):
        return role, content
    parts: list[str] = []
    if isinstance(content, list):
        for part in content:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                parts.append(part["text"])
    return role, "\n".join(parts)


def _describe(item: dict[str, Any]) -> str:
    kind = item.get("type") or item.get("role") or "item"
    name = item.get("name")
    return f"[{kind}{' ' + name if isinstance(name, str) else ''}]"


__all__ = ["METADATA_KEY", "VaultSession"]

"""The ``MemoryProvider`` contract every memory backend implements (seed 003).

A provider is one memory backend behind a fixed lifecycle, orchestrated by
``MemoryManager``: ``initialize`` once, ``system_prompt_block`` for the static
prompt text, ``prefetch`` before each model call (fast: cached results only),
``queue_prefetch`` to warm the next turn, ``sync_turn`` after each turn
(non-blocking), ``get_tool_schemas`` / ``handle_tool_call`` for model tools,
``shutdown`` to flush and close. Two optional hooks: ``on_session_switch``
when the thread changes, ``on_memory_write`` when the builtin store is written
(so an external provider can mirror it).

The public signatures keep the seed's keyword arguments so providers written
for it plug in unchanged; inside the package they become typed objects
(``SessionContext``, ``SessionSwitch``, ``MemoryWrite``).
"""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..validation import check_ident, check_optional_ident

logger = logging.getLogger(__name__)

WriteAction = Literal["add", "replace", "remove"]
WriteTarget = Literal["memory", "user"]


@dataclass(frozen=True, slots=True)
class SessionContext:
    """What ``initialize`` receives, validated: who, which agent, which thread, where."""

    user_id: str
    base_dir: Path
    agent_id: str | None = None
    thread_id: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_kwargs(
        cls,
        *,
        user_id: str,
        base_dir: str | Path,
        agent_id: str | None = None,
        thread_id: str | None = None,
        **extra: Any,
    ) -> SessionContext:
        return cls(
            user_id=check_ident(user_id, "user_id"),
            base_dir=Path(base_dir),
            agent_id=check_optional_ident(agent_id, "agent_id"),
            thread_id=thread_id or None,
            extra=dict(extra),
        )


@dataclass(frozen=True, slots=True)
class SessionSwitch:
    """A thread change: a new or resumed thread (``reset``), a branch, or a compaction."""

    new_thread_id: str
    parent_thread_id: str = ""
    reset: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class MemoryWrite:
    """A write to the builtin store, as told to external providers."""

    action: WriteAction
    target: WriteTarget
    content: str
    metadata: dict[str, Any] = field(default_factory=dict)


class MemoryProvider(ABC):
    """The interface of a memory backend (builtin files, the vault, Hindsight, ...)."""

    # -- identity ---------------------------------------------------------------

    @property
    @abstractmethod
    def name(self) -> str:
        """A short identifier such as ``"builtin"`` or ``"hindsight"``."""

    # -- lifecycle --------------------------------------------------------------

    @abstractmethod
    def is_available(self) -> bool:
        """Whether this provider is configured and its dependencies present.

        Called at agent start-up; checks configuration only, never the network.
        """

    @abstractmethod
    def initialize(
        self,
        *,
        user_id: str,
        agent_id: str | None = None,
        thread_id: str | None = None,
        base_dir: str,
        **kwargs: Any,
    ) -> None:
        """Open connections, create banks, load files. ``agent_id=None`` is the global agent."""

    def shutdown(self) -> None:  # noqa: B027 - optional hook, default no-op
        """Flush queues and close connections. Default: nothing to do."""

    # -- prompt -----------------------------------------------------------------

    def system_prompt_block(self) -> str:
        """Static text for the system prompt (e.g. a frozen snapshot); "" adds nothing."""
        return ""

    # -- recall and retain ------------------------------------------------------

    def prefetch(self, query: str, *, thread_id: str = "") -> str:
        """Context recalled for ``query`` (usually the latest user message); "" for none.

        Runs before every model call, so it must be fast: slow recall belongs in a
        background thread started by ``queue_prefetch``, and this returns its result.
        """
        return ""

    def queue_prefetch(self, query: str, *, thread_id: str = "") -> None:  # noqa: B027
        """Warm up recall for the next turn in the background. Default: no-op."""

    def sync_turn(  # noqa: B027 - optional hook, default no-op
        self,
        user_content: str,
        assistant_content: str,
        *,
        thread_id: str = "",
        turn_index: int | None = None,
    ) -> None:
        """Persist a finished turn without blocking the caller. Default: no-op.

        ``turn_index`` counts turns of the conversation from 1 (computed by the
        orchestrator from the history, since providers may be rebuilt every turn);
        providers that write every N turns use it instead of a counter of their own.
        """

    # -- tools --------------------------------------------------------------------

    @abstractmethod
    def get_tool_schemas(self) -> list[dict[str, Any]]:
        """Tool schemas in OpenAI function format (``name``, ``description``, ``parameters``).

        An empty list makes the provider context-only (no tools for the model).
        """

    def handle_tool_call(self, tool_name: str, args: dict[str, Any], **kwargs: Any) -> str:
        """Run one tool call and return a JSON string for the model.

        The manager only routes here the names this provider declared.
        """
        raise NotImplementedError(f"provider {self.name} does not handle tool {tool_name}")

    # -- optional hooks -------------------------------------------------------------

    def on_session_switch(  # noqa: B027 - optional hook, default no-op
        self,
        new_thread_id: str,
        *,
        parent_thread_id: str = "",
        reset: bool = False,
        **kwargs: Any,
    ) -> None:
        """The thread changed (new/switched thread with ``reset=True``, a branch, or a
        continuation after compaction): refresh per-session state. Default: no-op."""

    def on_memory_write(  # noqa: B027 - optional hook, default no-op
        self,
        action: str,
        target: str,
        content: str,
        metadata: dict[str, Any] | None = None,
    ) -> None:
        """The builtin store was written (``action`` add/replace/remove on ``target``
        memory/user); an external provider may mirror it. Default: no-op."""


__all__ = ["MemoryProvider", "MemoryWrite", "SessionContext", "SessionSwitch"]

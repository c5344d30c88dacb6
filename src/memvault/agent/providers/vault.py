"""``VaultProvider``: the vault as the external memory provider (seed 002).

Before each model call it recalls the memories relevant to the latest user
message (hybrid retrieval, default 5) and renders them as ``[type] name`` +
content inside ``<memory-context>``; nothing relevant means nothing injected.
After each turn it keeps the raw exchange as a ``source_archive`` entry (every
N turns, by ``turn_index``), with the thread as its session, so each archived turn
is also found by the words of the turns around it. Its tools are ``memory_save``
and ``memory_recall``.

Given ``AgentVaults`` instead of one vault, it follows the agent's own settings when
``initialize`` names the agent (``memvault agents set``): the agent's store, its prefetch
limit, and whether memory is on at all; with memory off it injects nothing, archives
nothing and its tools answer that memory is off.
"""

from __future__ import annotations

import logging
from typing import Any

from ...errors import MemvaultError
from ...lifecycle.turns import archived_turn
from ...validation import thread_session
from ...vault import Vault
from ..provider import MemoryProvider, SessionContext
from ..stores import AgentVaults, memory_off
from ..tools.vault import TOOL_SCHEMAS, VaultTools, fail
from ..tools.workspace import WORKSPACE_TOOL_SCHEMAS, WorkspaceTools

log = logging.getLogger(__name__)

SYSTEM_PROMPT_BLOCK = """\
## Long-term memory
You can remember things across conversations. Use memory_save to store what will
matter later and memory_recall to look up what was saved before; memories that
look relevant to the latest message are also shown to you automatically.

Kinds of memory:
- user: who the user is (role, preferences, habits)
- project: what a piece of work is about (progress, decisions, constraints)
- feedback: how the user corrected or confirmed the way you work
- reference: where outside resources live (links, documents)

When to save:
- the user tells you about themselves, their preferences or habits -> user
- you learn about a project's state, a decision or a constraint -> project
- the user corrects or confirms how you behave -> feedback
- an outside resource is mentioned -> reference
Update an existing memory instead of saving a near-duplicate, and save only what
will still be useful in a future conversation."""


class VaultProvider(MemoryProvider):
    """Hybrid recall and the seed-002 tools over a ``Vault`` (or each agent's own, from
    ``AgentVaults``). ``prefetch_limit`` None is the agent's setting (5 by default)."""

    def __init__(
        self,
        vault: Vault | AgentVaults,
        *,
        prefetch_limit: int | None = None,
        archive_turns: bool = True,
        archive_every: int = 1,
        workspace_tools: bool = False,
        card_tokens: int = 300,
    ) -> None:
        if (prefetch_limit is not None and prefetch_limit < 1) or archive_every < 1:
            raise ValueError("prefetch_limit and archive_every must be at least 1")
        if isinstance(card_tokens, bool) or not isinstance(card_tokens, int) or card_tokens < 0:
            raise ValueError("card_tokens must be a whole number of at least 0")
        self._agents = vault if isinstance(vault, AgentVaults) else None
        self.vault = vault.default if isinstance(vault, AgentVaults) else vault
        self._limit = prefetch_limit
        self.prefetch_limit = prefetch_limit or 5
        self.enabled = True
        self.archive_turns = archive_turns
        self.archive_every = archive_every
        self.session: SessionContext | None = None
        self._tools: VaultTools | None = None
        # The state card and task board tools (seed 004), for hosts that opt in; the
        # conversation is the thread, the workspace the ``workspace_id`` initialize gets.
        self.workspace_tools = workspace_tools
        self.card_tokens = card_tokens
        self._workspace: WorkspaceTools | None = None

    @property
    def name(self) -> str:
        return "vault"

    def is_available(self) -> bool:
        return True

    def initialize(
        self,
        *,
        user_id: str,
        agent_id: str | None = None,
        thread_id: str | None = None,
        base_dir: str,
        **kwargs: Any,
    ) -> None:
        self.session = SessionContext.from_kwargs(
            user_id=user_id, agent_id=agent_id, thread_id=thread_id, base_dir=base_dir, **kwargs
        )
        if self._agents is not None:
            memory = self._agents.memory(agent_id)
            self.vault = memory.vault
            self.enabled = memory.enabled
            self.prefetch_limit = self._limit or memory.prefetch_limit
        self._tools = VaultTools(self.vault, user_id=user_id, agent_id=agent_id)
        workspace = kwargs.get("workspace_id")
        # Cards and tasks are the user's, not an agent's: they live in the default store,
        # where the HTTP routes and the panel read them, whichever store the agent has.
        self._workspace = WorkspaceTools(
            self._agents.default if self._agents is not None else self.vault,
            user_id=self.session.user_id,
            session_id=thread_session(thread_id or ""),
            workspace_id=workspace if isinstance(workspace, str) and workspace else None,
        )
        if self.vault.embedder is not None:
            # Load the model now: prefetch runs under the manager's timeout every turn.
            try:
                self.vault.embedder.embed(["warm up"])
            except MemvaultError as exc:
                log.warning("vault: embedder unavailable, recall is keyword-only: %s", exc)

    def _require(self) -> SessionContext:
        if self.session is None:
            raise MemvaultError("VaultProvider is not initialized: call initialize() first")
        return self.session

    def system_prompt_block(self) -> str:
        return SYSTEM_PROMPT_BLOCK if self.enabled else ""

    def prefetch(self, query: str, *, thread_id: str = "") -> str:
        session = self._require()
        if not self.enabled or not query or not query.strip():
            return ""
        recalled = self.vault.context(
            query, user_id=session.user_id, agent_id=session.agent_id, limit=self.prefetch_limit
        )
        card = self._card_text(thread_id)
        return "\n\n".join(part for part in (card, recalled) if part)

    def _card_text(self, thread_id: str) -> str:
        """The conversation's state card, on top of the block (seed 004), when the host
        opted into the workspace tools and the card has been written."""
        if not self.workspace_tools or self._workspace is None or self.card_tokens == 0:
            return ""
        session_id = thread_session(thread_id) if thread_id else self._workspace.session_id
        if not session_id:
            return ""
        store = self._agents.default if self._agents is not None else self.vault
        assert self.session is not None
        return store.workspace.card_text(
            user_id=self.session.user_id, session_id=session_id, max_tokens=self.card_tokens
        )

    def sync_turn(
        self,
        user_content: str,
        assistant_content: str,
        *,
        thread_id: str = "",
        turn_index: int | None = None,
    ) -> None:
        session = self._require()
        if not self.enabled or not self.archive_turns:
            return
        if turn_index is not None and turn_index % self.archive_every != 0:
            return
        text = f"User: {user_content.strip()}\nAssistant: {assistant_content.strip()}"
        thread = thread_id or session.thread_id or ""
        metadata: dict[str, Any] = {"thread_id": thread}
        if turn_index is not None:
            metadata["turn_index"] = turn_index
        try:
            self.vault.add(
                text,
                user_id=session.user_id,
                agent_id=session.agent_id,
                session_id=thread_session(thread),
                metadata=metadata,
                # The pair is the user's turn with its answer: about the user, unless the
                # assistant spoke alone.
                **archived_turn("user" if user_content.strip() else "assistant"),
            )
        except MemvaultError as exc:  # a turn that cannot be archived must not break the agent
            log.warning("vault: turn not archived: %s", exc)

    def get_tool_schemas(self) -> list[dict[str, Any]]:
        extra = WORKSPACE_TOOL_SCHEMAS if self.workspace_tools else []
        return [dict(schema) for schema in (*TOOL_SCHEMAS, *extra)]

    def on_session_switch(
        self,
        new_thread_id: str,
        *,
        parent_thread_id: str = "",
        reset: bool = False,
        **kwargs: Any,
    ) -> None:
        """A new or resumed thread (``reset``) is another conversation: the card and
        board tools follow it. A branch or a compaction keeps the card it started from."""
        if self._workspace is not None and new_thread_id and reset:
            self._workspace.session_id = thread_session(new_thread_id)

    def handle_tool_call(self, tool_name: str, args: dict[str, Any], **kwargs: Any) -> str:
        session = self._require()
        assert self._tools is not None
        if not self.enabled:
            return fail(memory_off(str(session.agent_id)))
        if self.workspace_tools and tool_name in ("state_card", "task_board"):
            assert self._workspace is not None
            return self._workspace.call(tool_name, args)
        return self._tools.call(tool_name, args)


__all__ = ["SYSTEM_PROMPT_BLOCK", "VaultProvider", "thread_session"]

"""``MemvaultMiddleware``: a ``MemoryManager`` as LangChain v1 agent middleware (seed 000).

Add it to ``create_agent(..., middleware=[MemvaultMiddleware(manager)])`` and the
agent gets, without any other change:

* the providers' static prompt text (the builtin's frozen USER.md / MEMORY.md
  snapshot and the vault's instructions), appended to the system prompt of every
  model request;
* recall for the latest user message (``prefetch_all``), put into that one model
  request through ``wrap_model_call``, either at the end of the system message or
  as an extra user-role message just before the user's message. The request is
  changed with ``request.override``, never the graph state, so recalled text is
  not checkpointed, not streamed back as history and does not pile up turn after
  turn (seed 000 §0 item 2, which replaces the ``before_model`` plan of
  Appendix B.1);
* a thread change (``configurable.thread_id`` differs from the previous run's)
  reported to every provider with ``on_session_switch_all``, with the previous thread
  as ``parent_thread_id`` (Appendix B.1) and ``reset`` as the table of seed 000 §8
  says: True for a new thread (no conversation before the latest user message) or a
  thread this middleware already ran on (the user went back to it), False for a
  thread first seen with a conversation in it (a LangGraph branch, or the
  continuation after compaction), so the frozen snapshot stays and Hindsight keeps
  the turns it has not retained yet;
* each finished run handed to ``sync_all`` (which queues it and returns at once),
  with ``turn_index`` = the number of user messages in the conversation;
* the providers' tools (``memory``, ``memory_save``, ``memory_recall``) as
  LangChain tools on the middleware's ``tools`` attribute; each one calls
  ``manager.handle_tool_call`` and returns its JSON string to the model;
* with ``vault=`` given, learning from each finished run (seed 001, seed 000 §6): the
  whole conversation goes to ``vault.remember``, which archives each new message once
  and, with an LLM configured, extracts facts after a quiet period; the facts learnt
  also go into the user's USER.md and the agent's MEMORY.md (``agent.providers.learned_files``).
  ``learn`` switches it: None follows the user's ``background_extraction.enabled``
  setting (off unless the user or the admin turned it on), True / False force it.

Build it from config with ``MemvaultMiddleware.from_config(store, user_id, agent_id,
vault=...)``: the manager is then ``agent.assembly.build_manager``'s, which applies the
user's switches (``injection.enabled``, ``include_builtin``, ``include_hindsight``,
``max_tokens``, the Hindsight mode and budget) on every model call, so a change in the
panel reaches the agent on its next call. A hand-built ``MemoryManager`` injects what
its providers give, whatever the settings say.

The builtin provider's ``prefetch`` returns the same frozen snapshot its
``system_prompt_block`` does; since the snapshot is already in the system prompt,
recall asks the manager for the other providers only (``include_builtin=False``),
so the model sees it once.

This is the only module of memvault that imports LangChain (the LangGraph store
lives in ``integrations.langgraph``).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, Literal

from langchain.agents.middleware import AgentMiddleware, AgentState, ModelRequest, ModelResponse
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, SystemMessage
from langchain_core.tools import BaseTool, StructuredTool
from langgraph.config import get_config
from langgraph.runtime import Runtime

from ..agent.assembly import ConfiguredManager, build_manager
from ..agent.config import MemoryConfig, MemoryConfigStore
from ..agent.manager import DEFAULT_PREFETCH_TIMEOUT, MemoryManager
from ..agent.providers.builtin import BuiltinFileProvider
from ..agent.providers.learned_files import FilesMirror
from ..agent.stores import AgentVaults
from ..errors import ConfigError, MemvaultError
from ..fences import retag
from ..render import build_memory_context_block
from ..results.profile import Remembered
from ..vault import Vault

logger = logging.getLogger(__name__)

#: How many thread ids a middleware remembers to tell a return to a thread from a branch.
SEEN_THREADS = 1024

InjectionRole = Literal["system", "user"]
INJECTION_ROLES: tuple[InjectionRole, ...] = ("system", "user")


class MemvaultMiddleware(AgentMiddleware):
    """Recall, prompt injection, session switches, turn sync and memory tools for an agent.

    ``manager`` must already hold its providers (the builtin and at most one
    external), since the tools are built from them here; call
    ``manager.initialize_all`` before the first run and ``manager.shutdown_all``
    when the agent stops. ``injection`` says where recalled text goes: ``"system"``
    (end of the system message) or ``"user"`` (a separate user-role message before
    the latest user message, for models that weigh system text less or when the
    system prompt must stay byte-identical for prompt caching). ``recall=False``
    keeps the static prompt text and the tools but recalls nothing.
    """

    def __init__(
        self,
        manager: MemoryManager,
        *,
        injection: InjectionRole = "system",
        recall: bool = True,
        vault: Vault | None = None,
        learn: bool | None = None,
    ) -> None:
        super().__init__()
        if learn is not None and not isinstance(learn, bool):
            raise ConfigError("learn must be True, False or None", field="learn")
        self.vault = vault
        self.learn = learn
        self._mirror_stop: Callable[[], None] | None = None
        if injection not in INJECTION_ROLES:
            raise ConfigError(
                f"injection must be one of {', '.join(INJECTION_ROLES)}, got {injection!r}",
                field="injection",
            )
        self.manager = manager
        self.injection: InjectionRole = injection
        self.recall = recall
        self.tools: Sequence[BaseTool] = memory_tools(manager)
        context = manager.context
        self._thread_id: str | None = context.thread_id if context is not None else None
        self._thread_lock = threading.Lock()
        self._seen_threads: OrderedDict[str, None] = OrderedDict()
        if self._thread_id:
            self._remember_thread(self._thread_id)

    @classmethod
    def from_config(
        cls,
        config: MemoryConfigStore | MemoryConfig,
        user_id: str,
        agent_id: str | None = None,
        *,
        vault: Vault | AgentVaults | None = None,
        base_dir: str | Path | None = None,
        thread_id: str | None = None,
        injection: InjectionRole = "system",
        recall: bool = True,
        learn: bool | None = None,
        prefetch_timeout: float = DEFAULT_PREFETCH_TIMEOUT,
    ) -> MemvaultMiddleware:
        """The middleware over the manager ``config`` describes for this user and agent
        (``build_manager``, initialized); ``vault`` is also the one learning writes to
        when it is a single ``Vault``. Call ``manager.shutdown_all`` when the agent stops."""
        manager = build_manager(
            config,
            user_id,
            agent_id,
            vault=vault,
            base_dir=base_dir,
            thread_id=thread_id,
            prefetch_timeout=prefetch_timeout,
        )
        learner = vault if isinstance(vault, Vault) else None
        return cls(manager, injection=injection, recall=recall, vault=learner, learn=learn)

    # -- before the run: thread changes ---------------------------------------------

    def before_agent(self, state: AgentState[Any], runtime: Runtime[Any]) -> dict[str, Any] | None:
        self.note_thread(current_thread_id(runtime), state.get("messages", []))
        return None

    async def abefore_agent(
        self, state: AgentState[Any], runtime: Runtime[Any]
    ) -> dict[str, Any] | None:
        # A switch makes providers reload files: keep that off the event loop.
        messages = state.get("messages", [])
        await asyncio.to_thread(self.note_thread, current_thread_id(runtime), messages)
        return None

    def note_thread(self, thread_id: str, messages: Sequence[AnyMessage] = ()) -> bool:
        """Record the thread of this run; tell the providers when it is a different one.

        Returns whether a switch was reported. The first thread seen is the one the
        manager was initialized with (if any), so the first run on it is no switch.
        A run without a thread id (an agent with no checkpointer) changes nothing.
        ``messages`` is the run's conversation; what ``reset`` is made of it is in the
        module docstring.
        """
        if not thread_id:
            return False
        with self._thread_lock:
            previous, self._thread_id = self._thread_id, thread_id
            returning = thread_id in self._seen_threads
            self._remember_thread(thread_id)
        if previous is None or previous == thread_id:
            return False
        reset = returning or not _has_history(messages)
        logger.info(
            "thread changed from %r to %r (%s)",
            previous,
            thread_id,
            "new memory session" if reset else "branch or continuation",
        )
        self.manager.on_session_switch_all(thread_id, parent_thread_id=previous, reset=reset)
        return True

    def _remember_thread(self, thread_id: str) -> None:
        """Note ``thread_id`` as run on (bounded: the oldest are forgotten first)."""
        self._seen_threads[thread_id] = None
        self._seen_threads.move_to_end(thread_id)
        while len(self._seen_threads) > SEEN_THREADS:
            self._seen_threads.popitem(last=False)

    # -- each model call: prompt text and recall ---------------------------------------

    def wrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], ModelResponse[Any]],
    ) -> Any:
        return handler(self.prepare_request(request, current_thread_id(request.runtime)))

    async def awrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> Any:
        thread_id = current_thread_id(request.runtime)
        # Recall may wait up to the manager's prefetch timeout: not on the event loop.
        prepared = await asyncio.to_thread(self.prepare_request, request, thread_id)
        return await handler(prepared)

    def prepare_request(self, request: ModelRequest[Any], thread_id: str = "") -> ModelRequest[Any]:
        """The request the model should see: ``request`` plus memory, state untouched.

        The inspectable half of ``wrap_model_call``: a test or a debugging session
        can call it to see exactly what memory a model call would get.
        """
        static = self.manager.system_prompt_blocks()
        recalled = self.recall_block(request.messages, thread_id) if self.recall else ""
        system_parts = [static]
        messages = list(request.messages)
        if recalled and self.injection == "system":
            system_parts.append(recalled)
        elif recalled:
            at = _latest_human_index(messages)
            if at is not None:
                messages.insert(at, HumanMessage(content=recalled))
        system_text = "\n\n".join(part for part in system_parts if part)
        overrides: dict[str, Any] = {}
        if system_text:
            overrides["system_message"] = _extend_system(request.system_message, system_text)
        if len(messages) != len(request.messages):
            overrides["messages"] = messages
        return request.override(**overrides) if overrides else request

    def recall_block(self, messages: Sequence[AnyMessage], thread_id: str = "") -> str:
        """The ``<memory-context>`` block recalled for the latest user message, or ""."""
        at = _latest_human_index(messages)
        if at is None:
            return ""
        query = _text(messages[at])
        if not query.strip():
            return ""
        recalled = self.manager.prefetch_all(query, thread_id=thread_id, include_builtin=False)
        if not recalled.strip():
            return ""
        # The vault wraps its own recall; a provider that returns bare text gets wrapped
        # here, so whatever reaches the model is marked as recalled background. The
        # manager names the tag (``injection.context_tag``).
        tag = self.manager.context_tag
        if f"<{tag}>" in recalled:
            return recalled
        return retag(build_memory_context_block(recalled), tag)

    # -- after the run: retention --------------------------------------------------------

    def after_agent(self, state: AgentState[Any], runtime: Runtime[Any]) -> dict[str, Any] | None:
        messages = state.get("messages", [])
        thread_id = current_thread_id(runtime)
        self.sync_run(messages, thread_id)
        self.learn_run(messages, thread_id)
        return None

    async def aafter_agent(
        self, state: AgentState[Any], runtime: Runtime[Any]
    ) -> dict[str, Any] | None:
        messages = state.get("messages", [])
        thread_id = current_thread_id(runtime)
        self.sync_run(messages, thread_id)  # only queues
        # Archiving writes to the store: keep it off the event loop.
        await asyncio.to_thread(self.learn_run, messages, thread_id)
        return None

    def learning(self) -> bool:
        """Whether finished runs are handed to ``vault.remember`` now."""
        context = self.manager.context
        if self.vault is None or context is None:
            return False
        if self.learn is not None:
            return self.learn
        if isinstance(self.manager, ConfiguredManager):  # its settings include config.yaml
            return self.manager.current_settings().background_extraction.enabled
        store = MemoryConfigStore(context.base_dir)
        return store.get_effective_memory_config(
            context.user_id
        ).config.background_extraction.enabled

    def learn_run(self, messages: Sequence[Any], thread_id: str = "") -> Remembered | None:
        """Hand the conversation to ``vault.remember`` (see the module docstring); None
        when learning is off or the run has no thread to file it under. A failure is
        logged, never raised: memory must not break the agent."""
        context = self.manager.context
        if not self.learning() or context is None or self.vault is None:
            return None
        thread = thread_id or context.thread_id or ""
        if not thread:
            logger.info("run not learnt from: it has no thread id (give the agent a checkpointer)")
            return None
        self._mirror_once(context.user_id, context.agent_id)
        try:
            return self.vault.remember(
                list(messages), user_id=context.user_id, agent_id=context.agent_id, thread_id=thread
            )
        except MemvaultError as exc:
            logger.warning("run not learnt from: %s", exc)
            return None

    def _mirror_once(self, user_id: str, agent_id: str | None) -> None:
        if self._mirror_stop is not None or self.vault is None:
            return
        builtin = self.manager.builtin
        if not isinstance(builtin, BuiltinFileProvider):
            return
        mine = (user_id, agent_id)
        self._mirror_stop = self.vault.learning.on_learned(
            FilesMirror(lambda u, a: builtin if (u, a) == mine else None)
        )

    def sync_run(self, messages: Sequence[AnyMessage], thread_id: str = "") -> bool:
        """Queue the run's last exchange for ``sync_all``; ``False`` when there is none.

        The exchange is the latest user message and the last assistant message after
        it that has text (the final answer, not a tool-call step).
        """
        at = _latest_human_index(messages)
        if at is None:
            return False
        answer = next(
            (
                _text(m)
                for m in reversed(messages[at + 1 :])
                if isinstance(m, AIMessage) and _text(m).strip()
            ),
            None,
        )
        if answer is None:
            return False
        turn_index = sum(isinstance(m, HumanMessage) for m in messages)
        self.manager.sync_all(
            _text(messages[at]), answer, thread_id=thread_id, turn_index=turn_index
        )
        return True


# -- tools -----------------------------------------------------------------------------


def memory_tools(manager: MemoryManager) -> list[BaseTool]:
    """One LangChain tool per schema the manager's providers declare.

    The schema's JSON ``parameters`` are given to the model as they are; the
    arguments come back unvalidated to ``manager.handle_tool_call``, which answers
    bad ones with a JSON error the model can act on.
    """
    tools: list[BaseTool] = []
    for schema in manager.get_tool_schemas():
        function = schema.get("function")
        spec: dict[str, Any] = function if isinstance(function, dict) else schema
        name = spec["name"]
        tools.append(
            StructuredTool.from_function(
                func=_tool_runner(manager, name),
                name=name,
                description=spec.get("description") or name,
                args_schema=spec.get("parameters") or {"type": "object", "properties": {}},
                infer_schema=False,
            )
        )
    return tools


def _tool_runner(manager: MemoryManager, name: str) -> Callable[..., str]:
    def run(**arguments: Any) -> str:
        return manager.handle_tool_call(name, arguments)

    run.__name__ = name
    return run


# -- helpers ---------------------------------------------------------------------------


def current_thread_id(runtime: Runtime[Any] | None = None) -> str:
    """The ``thread_id`` of the running graph, or "" when it has none.

    Read from the run's config (``configurable.thread_id``), which is there with
    or without a checkpointer; the runtime's execution info is the fallback.
    """
    try:
        configurable = get_config().get("configurable") or {}
    except RuntimeError:  # not inside a graph run
        configurable = {}
    value = configurable.get("thread_id")
    if value is None and runtime is not None:
        info = getattr(runtime, "execution_info", None)
        value = getattr(info, "thread_id", None)
    return "" if value is None else str(value)


def _text(message: AnyMessage) -> str:
    return str(message.text)


def _has_history(messages: Sequence[AnyMessage]) -> bool:
    """Whether a conversation was under way before its latest user message (system
    messages do not count)."""
    at = _latest_human_index(messages)
    end = len(messages) if at is None else at
    return any(not isinstance(m, SystemMessage) for m in messages[:end])


def _latest_human_index(messages: Sequence[AnyMessage]) -> int | None:
    for index in range(len(messages) - 1, -1, -1):
        if isinstance(messages[index], HumanMessage):
            return index
    return None


def _extend_system(message: SystemMessage | None, text: str) -> SystemMessage:
    """A copy of ``message`` with ``text`` appended (a new message when there is none)."""
    if message is None:
        return SystemMessage(content=text)
    content = message.content
    if isinstance(content, str):
        joined = f"{content.rstrip()}\n\n{text}" if content.strip() else text
        return message.model_copy(update={"content": joined})
    return message.model_copy(update={"content": [*content, {"type": "text", "text": text}]})


__all__ = ["INJECTION_ROLES", "MemvaultMiddleware", "current_thread_id", "memory_tools"]

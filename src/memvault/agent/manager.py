"""``MemoryManager``: runs the builtin provider and at most one external one as a unit
(plus companions: context providers over memvault's own data, such as the profile facts).

The agent talks to one object; the manager fans each lifecycle call out to its
providers in a fixed order (the builtin first) and keeps one promise throughout:
an external provider's failure never reaches the agent's turn. It is logged as a
warning and that provider is left out of the call.

What goes where:

* prompt text: ``system_prompt_blocks`` (static) and ``prefetch_all`` (per turn)
  join each provider's non-empty text in provider order. An external prefetch
  runs on a daemon thread and is dropped if it misses ``prefetch_timeout``.
* retention: ``sync_all`` puts the finished turn on a queue and returns at once;
  one background worker hands every turn to every provider, in order.
  ``flush`` waits for the queue; ``shutdown_all`` drains it before closing.
* tools: each provider's schemas are indexed by tool name when it is
  registered; ``handle_tool_call`` routes a call to the provider that declared
  the name. This method is the model-facing edge, so it answers errors with a
  JSON string the model can act on instead of raising.
* hooks: ``on_memory_write`` (a builtin write) goes to externals only, since the
  builtin made the write itself; ``on_session_switch_all`` goes to everyone.

Configuration mistakes (a second external, a tool name two providers declare)
are caught at registration and raise ``ConfigError``. A provider added with
``companion=True`` (``agent.providers.facts.FactsProvider``) does not count against the
one-external limit: it is not a second memory backend but another view of memvault's
own store, and otherwise it is called like an external (after the builtin, under the
prefetch timeout, its failures kept from the turn).

Why one file of about 630 lines: ``MemoryManager`` is one class whose calls share the
same state (the provider list, the tool index, the prefetch threads and the sync queue's
worker); its promise that a provider's failure never reaches the turn is kept by that
shared machinery, which a split would have to expose between modules.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import json
import logging
import re
import threading
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from ..errors import ConfigError, MemvaultError
from ..fences import DEFAULT_TAG, retag
from ..render import join_provider_blocks
from ..security.pii import redact
from ..validation import check_optional_ident
from .provider import MemoryProvider, MemoryWrite, SessionContext
from .providers.builtin import BuiltinFileProvider

logger = logging.getLogger(__name__)

_TAG = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")

#: Seconds ``prefetch_all`` waits for an external provider before going on without it.
DEFAULT_PREFETCH_TIMEOUT = 2.0


@dataclass(frozen=True, slots=True)
class _Turn:
    """One finished turn waiting for the sync worker."""

    user_content: str
    assistant_content: str
    thread_id: str
    turn_index: int | None


def _tool_name(schema: dict[str, Any]) -> str | None:
    """The name in a schema, flat (``{"name": ...}``) or wrapped (``{"function": {...}}``)."""
    name = schema.get("name")
    if name is None and isinstance(schema.get("function"), dict):
        name = schema["function"].get("name")
    return name if isinstance(name, str) and name else None


def _tool_error(message: str) -> str:
    """The JSON a model receives when its tool call could not be carried out."""
    return json.dumps({"success": False, "error": message}, ensure_ascii=False)


class MemoryManager:
    """Orchestrates the builtin provider plus at most one external provider.

    ``builtin`` is registered first and stays first. Further providers join
    through ``add_provider``. Call ``initialize_all`` once the user is known,
    and ``shutdown_all`` (or leave the ``with`` block) when the agent stops.
    """

    def __init__(
        self,
        builtin: MemoryProvider,
        *,
        prefetch_timeout: float = DEFAULT_PREFETCH_TIMEOUT,
        redact_egress: bool = True,
        context_tag: str = DEFAULT_TAG,
    ) -> None:
        """``redact_egress``: what leaves for external providers (turns, mirrored
        writes) has personal data and secrets replaced by placeholders first.
        ``context_tag`` (seed 000 §9.1 ``injection.context_tag``) names the tag around
        every recalled block ``prefetch_all`` returns, whichever provider wrote it."""
        if prefetch_timeout <= 0:
            raise ConfigError(
                f"prefetch_timeout must be a positive number of seconds, got {prefetch_timeout!r}",
                field="prefetch_timeout",
            )
        if not isinstance(context_tag, str) or not _TAG.fullmatch(context_tag):
            raise ConfigError(
                f"context_tag must be a tag name (a letter, then letters, digits, '-' or "
                f"'_'), got {context_tag!r}",
                field="context_tag",
            )
        self.prefetch_timeout = prefetch_timeout
        self.redact_egress = redact_egress
        self.context_tag = context_tag
        self.context: SessionContext | None = None

        self._lock = threading.Lock()
        self._builtin = builtin
        self._providers: list[MemoryProvider] = []
        self._companions: list[MemoryProvider] = []
        self._schemas: list[dict[str, Any]] = []
        self._tool_owner: dict[str, MemoryProvider] = {}

        # The sync queue: turns in arrival order, a count of turns not yet fully
        # synced (queued or in progress), one worker, and a closed flag.
        self._sync_cond = threading.Condition()
        self._sync_queue: deque[_Turn] = deque()
        self._sync_pending = 0
        self._sync_closed = False
        self._worker: threading.Thread | None = None
        self._shut_down = False

        self._register(builtin, list(builtin.get_tool_schemas()))
        if isinstance(builtin, BuiltinFileProvider):
            # Builtin writes (the model's memory tool) reach the external providers.
            builtin.add_write_listener(self._mirror_write)

    # -- registration -------------------------------------------------------------

    @property
    def providers(self) -> list[MemoryProvider]:
        """The active providers, the builtin first (a copy)."""
        with self._lock:
            return list(self._providers)

    @property
    def builtin(self) -> MemoryProvider:
        return self._builtin

    @property
    def externals(self) -> list[MemoryProvider]:
        """The active providers other than the builtin."""
        return [p for p in self.providers if p is not self._builtin]

    def add_provider(self, provider: MemoryProvider, *, companion: bool = False) -> bool:
        """Register an external provider; return whether it became active.

        A provider that reports itself unavailable (or fails to say) is skipped
        with a log line and ``False`` is returned. ``ConfigError`` is raised when
        an external provider is already registered, or when the new provider
        declares a tool name that an active provider already owns. A
        ``companion`` (see the module docstring) may join beside the external one.
        """
        name = self._provider_name(provider)
        try:
            available = provider.is_available()
        except Exception:
            logger.warning(
                "memory provider %r failed its availability check; skipping it",
                name,
                exc_info=True,
            )
            return False
        if not available:
            logger.info("memory provider %r is not available; skipping it", name)
            return False
        try:
            schemas = list(provider.get_tool_schemas())
        except Exception:
            logger.warning(
                "memory provider %r failed to list its tools; skipping it", name, exc_info=True
            )
            return False
        self._register(provider, schemas, companion=companion)
        logger.info("memory provider %r registered", name)
        return True

    def _register(
        self, provider: MemoryProvider, schemas: list[dict[str, Any]], *, companion: bool = False
    ) -> None:
        name = self._provider_name(provider)
        with self._lock:
            if self._shut_down:
                raise ConfigError(
                    f"cannot register memory provider {name!r}: the manager is shut down"
                )
            if provider in self._providers:
                raise ConfigError(f"memory provider {name!r} is already registered")
            externals = [
                p for p in self._providers if p is not self._builtin and p not in self._companions
            ]
            if provider is not self._builtin and externals and not companion:
                raise ConfigError(
                    f"cannot register memory provider {name!r}: external provider "
                    f"{self._provider_name(externals[0])!r} is already active, and only "
                    "one external provider is supported next to the builtin",
                    provider=name,
                )
            if any(self._provider_name(p) == name for p in self._providers):
                raise ConfigError(
                    f"a memory provider named {name!r} is already registered; "
                    "provider names must be unique",
                    provider=name,
                )
            owned: dict[str, MemoryProvider] = {}
            for schema in schemas:
                tool = _tool_name(schema)
                if tool is None:
                    raise ConfigError(
                        f"memory provider {name!r} declares a tool schema without a name: "
                        f"{schema!r}",
                        provider=name,
                    )
                owner = self._tool_owner.get(tool)
                if owner is not None or tool in owned:
                    other = self._provider_name(owner) if owner is not None else name
                    raise ConfigError(
                        f"memory provider {name!r} declares tool {tool!r}, which provider "
                        f"{other!r} already declares; tool names must be unique across "
                        "providers",
                        provider=name,
                        tool=tool,
                    )
                owned[tool] = provider
            self._providers.append(provider)
            if companion:
                self._companions.append(provider)
            self._schemas.extend(schemas)
            self._tool_owner.update(owned)

    def _drop(self, provider: MemoryProvider) -> None:
        """Take a provider (never the builtin) out of every call, tools included."""
        with self._lock:
            if provider not in self._providers:
                return
            self._providers.remove(provider)
            self._companions = [c for c in self._companions if c is not provider]
            dropped = {t for t, owner in self._tool_owner.items() if owner is provider}
            self._tool_owner = {t: o for t, o in self._tool_owner.items() if o is not provider}
            self._schemas = [s for s in self._schemas if _tool_name(s) not in dropped]

    @staticmethod
    def _provider_name(provider: MemoryProvider) -> str:
        try:
            return str(provider.name)
        except Exception:
            return type(provider).__name__

    # -- lifecycle ----------------------------------------------------------------

    def initialize_all(
        self,
        *,
        user_id: str,
        agent_id: str | None = None,
        thread_id: str | None = None,
        base_dir: str,
        **kwargs: Any,
    ) -> SessionContext:
        """Validate the session and initialize every provider with it.

        A bad ``user_id``/``agent_id`` raises ``ValidationError`` before any
        provider is touched, and a builtin failure propagates: there is no memory
        without it. An external that fails is logged and dropped for the rest of
        the session, so it does not fail every later turn as well.
        """
        context = SessionContext.from_kwargs(
            user_id=user_id, agent_id=agent_id, thread_id=thread_id, base_dir=base_dir, **kwargs
        )
        self.context = context
        arguments: dict[str, Any] = {
            "user_id": context.user_id,
            "agent_id": context.agent_id,
            "thread_id": context.thread_id,
            "base_dir": str(context.base_dir),
            **context.extra,
        }
        self._builtin.initialize(**arguments)
        for provider in self.externals:
            try:
                provider.initialize(**arguments)
            except Exception:
                logger.warning(
                    "memory provider %r failed to initialize; continuing without it",
                    self._provider_name(provider),
                    exc_info=True,
                )
                self._drop(provider)
        return context

    def shutdown_all(self, timeout: float | None = None) -> None:
        """Sync every queued turn, then shut each provider down. Safe to call twice.

        ``timeout`` bounds the wait for the sync queue; turns still queued when it
        runs out are logged as lost. ``None`` waits for all of them.
        """
        with self._lock:
            if self._shut_down:
                return
            self._shut_down = True
        with self._sync_cond:
            self._sync_closed = True
        if not self.flush(timeout):
            with self._sync_cond:
                lost = len(self._sync_queue)
                self._sync_queue.clear()
                self._sync_pending -= lost
            logger.warning(
                "memory sync queue did not drain within %ss; %d turn(s) were not synced",
                timeout,
                lost,
            )
        with self._sync_cond:
            self._sync_cond.notify_all()  # wake the idle worker so it sees the closed flag
            worker = self._worker
        if worker is not None and worker is not threading.current_thread():
            worker.join(timeout)
        for provider in self.providers:
            self._quietly(provider, "shutdown", provider.shutdown)

    def __enter__(self) -> MemoryManager:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.shutdown_all()

    # -- prompt -------------------------------------------------------------------

    def system_prompt_blocks(self) -> str:
        """Every provider's static prompt text, non-empty blocks joined by a blank line."""
        blocks = [
            self._quietly(provider, "system_prompt_block", provider.system_prompt_block)
            for provider in self.providers
        ]
        return _join(blocks)

    # -- recall -------------------------------------------------------------------

    def prefetch_all(self, query: str, *, thread_id: str = "", include_builtin: bool = True) -> str:
        """Recalled context for ``query`` from every provider, joined in provider order.

        The builtin's prefetch is its frozen snapshot, the same text as its system
        prompt block: a caller that already injects ``system_prompt_blocks()`` passes
        ``include_builtin=False`` so the snapshot is not in the prompt twice.

        The builtin runs inline (its prefetch reads a snapshot in memory). Each
        external runs on its own daemon thread; one that errors or has not
        answered within ``prefetch_timeout`` seconds is left out with a warning.
        A provider that hangs keeps only its own thread, never the turn.
        """
        blocks: list[str | None] = []
        for provider in self.providers:
            if provider is self._builtin and not include_builtin:
                continue
            call = _bind_prefetch(provider, query, thread_id)
            if provider is self._builtin:
                blocks.append(self._quietly(provider, "prefetch", call))
            else:
                block = self._with_timeout(provider, call)
                blocks.append(retag(block, self.context_tag) if isinstance(block, str) else block)
        return _join(blocks)

    def queue_prefetch_all(self, query: str, *, thread_id: str = "") -> None:
        """Ask every provider to start recalling for the next turn in the background."""
        self._each(
            self.providers,
            "queue_prefetch",
            lambda p: p.queue_prefetch(query, thread_id=thread_id),
        )

    def _with_timeout(self, provider: MemoryProvider, call: Callable[[], str]) -> str | None:
        name = self._provider_name(provider)
        outcome: dict[str, Any] = {}

        def run() -> None:
            try:
                outcome["value"] = call()
            except BaseException as exc:  # reported by the waiting thread
                outcome["error"] = exc

        thread = threading.Thread(target=run, name=f"memvault-prefetch-{name}", daemon=True)
        thread.start()
        thread.join(self.prefetch_timeout)
        if thread.is_alive():
            logger.warning(
                "memory provider %r did not answer prefetch within %ss; skipping it this turn",
                name,
                self.prefetch_timeout,
            )
            return None
        if "error" in outcome:
            error = outcome["error"]
            logger.warning(
                "memory provider %r failed in prefetch; skipping it this turn: %s",
                name,
                error,
                exc_info=(type(error), error, error.__traceback__),
            )
            return None
        return outcome.get("value")

    # -- retention ----------------------------------------------------------------

    def sync_all(
        self,
        user_content: str,
        assistant_content: str,
        *,
        thread_id: str = "",
        turn_index: int | None = None,
    ) -> None:
        """Queue a finished turn for every provider's ``sync_turn`` and return at once.

        A single worker thread processes turns in the order they were queued and,
        for each turn, providers in provider order. After ``shutdown_all`` the turn
        is dropped with a warning, since the providers are closed.
        """
        turn = _Turn(user_content, assistant_content, thread_id, turn_index)
        with self._sync_cond:
            if self._sync_closed:
                logger.warning("memory manager is shut down; turn %s was not synced", turn_index)
                return
            self._sync_queue.append(turn)
            self._sync_pending += 1
            if self._worker is None:
                self._worker = threading.Thread(
                    target=self._sync_loop, name="memvault-sync", daemon=True
                )
                self._worker.start()
            self._sync_cond.notify_all()

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until every queued turn has been synced; ``False`` if ``timeout`` ran out.

        Called from inside a provider's ``sync_turn`` (the worker thread itself) it
        cannot wait for its own turn and returns ``False`` at once.
        """
        if threading.current_thread() is self._worker:
            return False
        with self._sync_cond:
            return self._sync_cond.wait_for(lambda: self._sync_pending == 0, timeout)

    def _sync_loop(self) -> None:
        while True:
            with self._sync_cond:
                self._sync_cond.wait_for(lambda: self._sync_queue or self._sync_closed)
                if not self._sync_queue:
                    return  # closed and empty
                turn = self._sync_queue.popleft()
            try:
                self._sync_one(turn)
            finally:
                with self._sync_cond:
                    self._sync_pending -= 1
                    self._sync_cond.notify_all()

    def _egress(self, provider: MemoryProvider, text: str) -> str:
        """Text as an external provider may see it (the builtin is local and gets it as is)."""
        if not self.redact_egress or provider is self._builtin or not text:
            return text
        return redact(text).text

    def _sync_one(self, turn: _Turn) -> None:
        def call(p: MemoryProvider) -> None:
            extra = {"turn_index": turn.turn_index} if _takes_turn_index(p) else {}
            p.sync_turn(
                self._egress(p, turn.user_content),
                self._egress(p, turn.assistant_content),
                thread_id=turn.thread_id,
                **extra,
            )

        self._each(self.providers, "sync_turn", call)

    # -- tools --------------------------------------------------------------------

    def get_tool_schemas(self) -> list[dict[str, Any]]:
        """Every active provider's tool schemas, as the providers declared them."""
        with self._lock:
            return list(self._schemas)

    def tool_names(self) -> list[str]:
        """The names of every routable tool, in provider order."""
        with self._lock:
            return list(self._tool_owner)

    def has_tool(self, name: str) -> bool:
        with self._lock:
            return name in self._tool_owner

    def handle_tool_call(self, name: str, args: dict[str, Any] | str | None, **kwargs: Any) -> str:
        """Run a model's tool call on the provider that declared ``name``.

        Always returns a JSON string. ``args`` may be a dict or the raw JSON text
        from the model. An unknown tool, arguments that are not a JSON object, or
        a provider exception come back as ``{"success": false, "error": ...}``
        saying what to do next, instead of an exception in the agent's turn.
        """
        with self._lock:
            provider = self._tool_owner.get(name)
            known = list(self._tool_owner)
        if provider is None:
            listed = ", ".join(known) if known else "none"
            return _tool_error(f"unknown tool {name!r}; the memory tools available are: {listed}")
        parsed = _parse_args(name, args)
        if isinstance(parsed, str):
            return parsed
        try:
            result = provider.handle_tool_call(name, parsed, **kwargs)
        except MemvaultError as exc:
            logger.info("memory tool %r rejected the call: %s", name, exc)
            return _tool_error(f"tool {name!r} failed: {exc}")
        except Exception as exc:
            logger.warning(
                "memory provider %r raised in tool %r",
                self._provider_name(provider),
                name,
                exc_info=True,
            )
            return _tool_error(f"tool {name!r} failed: {type(exc).__name__}: {exc}")
        if isinstance(result, str):
            return result
        # The contract asks for a JSON string; accept a plain value rather than fail the turn.
        return json.dumps(result, ensure_ascii=False, default=str)

    # -- hooks --------------------------------------------------------------------

    def on_memory_write(
        self,
        action: str,
        target: str,
        content: str,
        metadata: dict[str, Any] | None = None,
    ) -> None:
        """Tell the external providers about a write the builtin store just made (a
        replace names the entry it replaced in ``metadata['old_text']``; it is redacted
        like the content, so a mirror finds the copy it made of it)."""

        def forward(p: MemoryProvider) -> None:
            extra = dict(metadata) if metadata is not None else None
            if extra is not None and isinstance(extra.get("old_text"), str):
                extra["old_text"] = self._egress(p, extra["old_text"])
            p.on_memory_write(action, target, self._egress(p, content), extra)

        self._each(self.externals, "on_memory_write", forward)

    def _mirror_write(self, write: MemoryWrite) -> None:
        self.on_memory_write(write.action, write.target, write.content, write.metadata)

    def on_session_switch_all(
        self,
        new_thread_id: str,
        *,
        parent_thread_id: str = "",
        reset: bool = False,
        **kwargs: Any,
    ) -> None:
        """Tell every provider the thread changed (new, resumed, branched or compacted).

        An ``agent_id`` keyword moves the session to that agent (seed 000 §8: the builtin
        switches MEMORY.md, Hindsight its work bank); it is validated before any provider
        hears of it, and ``context`` follows the switch."""
        context = self.context
        if context is not None:
            agent_id = context.agent_id
            if "agent_id" in kwargs:
                agent_id = check_optional_ident(kwargs["agent_id"], "agent_id")
            self.context = dataclasses.replace(
                context, thread_id=new_thread_id or None, agent_id=agent_id
            )
        self._each(
            self.providers,
            "on_session_switch",
            lambda p: p.on_session_switch(
                new_thread_id, parent_thread_id=parent_thread_id, reset=reset, **kwargs
            ),
        )

    # -- helpers ------------------------------------------------------------------

    def _each(
        self,
        providers: Iterable[MemoryProvider],
        hook: str,
        call: Callable[[MemoryProvider], object],
    ) -> None:
        """``call(provider)`` for each provider in turn, each one quietly (``_quietly``)."""
        for provider in providers:
            self._quietly(provider, hook, functools.partial(call, provider))

    def _quietly(self, provider: MemoryProvider, hook: str, call: Callable[[], Any]) -> Any:
        """Run one provider hook; log an exception as a warning and return ``None``."""
        try:
            return call()
        except Exception:
            logger.warning(
                "memory provider %r failed in %s; continuing without it",
                self._provider_name(provider),
                hook,
                exc_info=True,
            )
            return None


def _takes_turn_index(provider: MemoryProvider) -> bool:
    """Whether ``provider.sync_turn`` accepts ``turn_index`` (seed 003) or is written to
    seed 000 §4.1's ``sync_turn(user, assistant, *, thread_id="")``, which does not: such
    a provider gets the turn without it instead of failing on it."""
    try:
        parameters = inspect.signature(provider.sync_turn).parameters.values()
    except (TypeError, ValueError):  # no signature to read (a C callable): assume seed 003
        return True
    return any(
        p.name == "turn_index" or p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters
    )


def _bind_prefetch(provider: MemoryProvider, query: str, thread_id: str) -> Callable[[], str]:
    return lambda: provider.prefetch(query, thread_id=thread_id)


def _join(blocks: Iterable[object]) -> str:
    """The text blocks (None for a provider that gave nothing), joined as render.py does."""
    return join_provider_blocks([("", b) for b in blocks if isinstance(b, str)])


def _parse_args(name: str, args: dict[str, Any] | str | None) -> dict[str, Any] | str:
    """Tool arguments as a dict, or the JSON error to return to the model."""
    if args is None:
        return {}
    if isinstance(args, dict):
        return args
    if isinstance(args, str):
        if not args.strip():
            return {}
        try:
            value = json.loads(args)
        except json.JSONDecodeError as exc:
            return _tool_error(
                f"the arguments for tool {name!r} are not valid JSON ({exc.msg} at "
                f"position {exc.pos}); send a JSON object matching the tool's parameters"
            )
        except (ValueError, RecursionError):  # numbers too long, nesting too deep
            return _tool_error(
                f"the arguments for tool {name!r} are not usable JSON; send a flat JSON object"
            )
        if isinstance(value, dict):
            return value
        args = value
    return _tool_error(
        f"the arguments for tool {name!r} must be a JSON object, got {type(args).__name__}; "
        "send a JSON object matching the tool's parameters"
    )


__all__ = ["DEFAULT_PREFETCH_TIMEOUT", "MemoryManager"]

"""Assembly from config (seed 000 §3, §9): the ``MemoryManager`` a memory config describes.

:func:`build_manager` reads one user's effective settings (defaults < config.yaml < the
admin's global overrides < the user's own, ``MemoryConfigStore``) and builds what they
name: the builtin USER.md / MEMORY.md provider with the configured limits and screen,
plus the external provider ``memory.provider`` selects (``vault``: memvault's engine,
``hindsight``: a Hindsight server, ``builtin``: none). ``memory.enabled: false`` or
``builtin.enabled: false`` put a silent provider in the builtin's place (no text, no
tools).

The manager it returns (:class:`ConfiguredManager`) reads the user's settings again on
every model call, so a switch changed in the panel or through ``PATCH
/api/memory/v2/config`` reaches the agent on its next call, without a rebuild:

* ``injection.enabled: false`` injects no memory at all (the static text that only
  describes a provider's tools stays, since the tools stay);
* ``injection.include_builtin: false`` leaves the USER.md / MEMORY.md snapshot out;
* ``injection.include_hindsight: false`` leaves the external provider's recall out (the
  seed's only external is Hindsight; here the key covers whichever one is configured,
  and companions such as the profile facts);
* ``injection.max_tokens`` caps the memory of one call, snapshot first
  (:mod:`memvault.agent.injection`);
* ``hindsight.memory_mode``, ``recall_budget`` and ``bank_mission`` reach the Hindsight
  provider (``HindsightProvider.use_settings``). Which tools exist is fixed when the
  manager is built, since an agent's tool list is (LangChain binds it at
  ``create_agent``): a change of ``memory_mode`` changes injection at once and the tools
  from the next build.

A settings file that cannot be read (a hand edit gone wrong) does not break the agent:
the last settings read are kept and the problem is logged.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import ConfigError, MemvaultError
from ..render import count_tokens, join_provider_blocks
from ..vault import Vault
from .config.layers import MemoryConfigStore
from .config.settings import MemoryConfig
from .injection import fit_recall, fit_snapshot
from .manager import DEFAULT_PREFETCH_TIMEOUT, MemoryManager
from .provider import MemoryProvider, SessionContext
from .providers.builtin import BuiltinFileProvider
from .providers.hindsight import HindsightProvider
from .providers.vault import VaultProvider
from .stores import AgentVaults

logger = logging.getLogger(__name__)


class MemoryOff(MemoryProvider):
    """The builtin's stand-in when memory (or the builtin files) is switched off in
    config.yaml: it injects nothing and offers no tools."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        self.session: SessionContext | None = None

    @property
    def name(self) -> str:
        return "builtin"

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

    def get_tool_schemas(self) -> list[dict[str, Any]]:
        return []


class ConfiguredManager(MemoryManager):
    """A ``MemoryManager`` that applies one user's injection settings on every call.

    ``settings`` returns the user's effective config now (it is called once per
    ``system_prompt_blocks`` / ``prefetch_all``); ``initial`` is the config the manager
    was built from, kept as the fallback when ``settings`` fails.
    """

    def __init__(
        self,
        builtin: MemoryProvider,
        *,
        settings: Callable[[], MemoryConfig],
        initial: MemoryConfig,
        prefetch_timeout: float = DEFAULT_PREFETCH_TIMEOUT,
        redact_egress: bool = True,
        context_tag: str | None = None,
    ) -> None:
        super().__init__(
            builtin,
            prefetch_timeout=prefetch_timeout,
            redact_egress=redact_egress,
            context_tag=context_tag or initial.injection.context_tag,
        )
        self._settings = settings
        self._last = initial
        self._settings_lock = threading.Lock()

    def current_settings(self) -> MemoryConfig:
        """The user's settings now, pushed to the providers that follow them."""
        try:
            config = self._settings()
        except MemvaultError as exc:
            logger.warning("memory settings unreadable, keeping the previous ones: %s", exc)
            config = self._last
        with self._settings_lock:
            self._last = config
        for provider in self.externals:
            if isinstance(provider, HindsightProvider):
                provider.use_settings(config)
        return config

    def _snapshot(self, config: MemoryConfig) -> str:
        """The builtin's snapshot as these settings inject it ("" when they leave it out)."""
        injection = config.injection
        if not (injection.enabled and injection.include_builtin):
            return ""
        builtin = self.builtin
        text = self._quietly(builtin, "system_prompt_block", builtin.system_prompt_block)
        return fit_snapshot(text, injection.max_tokens) if isinstance(text, str) else ""

    def system_prompt_blocks(self) -> str:
        """The snapshot (as the settings allow) and the other providers' static text."""
        config = self.current_settings()
        blocks: list[tuple[str, str]] = [("builtin", self._snapshot(config))]
        for provider in self.externals:
            text = self._quietly(provider, "system_prompt_block", provider.system_prompt_block)
            if isinstance(text, str):
                blocks.append((self._provider_name(provider), text))
        return join_provider_blocks(blocks)

    def prefetch_all(self, query: str, *, thread_id: str = "", include_builtin: bool = True) -> str:
        """Recall as the user's settings allow, within ``injection.max_tokens``.

        The snapshot counts against the cap even when the caller leaves it out here
        (``include_builtin=False``: it is already in the system prompt).
        """
        config = self.current_settings()
        injection = config.injection
        if include_builtin:  # the builtin's prefetch also marks a new turn: always call it
            builtin = self.builtin
            self._quietly(builtin, "prefetch", lambda: builtin.prefetch(query, thread_id=thread_id))
        if not injection.enabled:
            return ""
        snapshot = self._snapshot(config)
        room = injection.max_tokens - (count_tokens(snapshot) if snapshot else 0)
        recalled = ""
        if injection.include_hindsight and room > 0 and self.externals:
            recalled = super().prefetch_all(query, thread_id=thread_id, include_builtin=False)
            recalled = fit_recall(recalled, room)
        shown = snapshot if include_builtin else ""
        return join_provider_blocks([("builtin", shown), ("recall", recalled)])


def build_manager(
    config: MemoryConfigStore | MemoryConfig,
    user_id: str,
    agent_id: str | None = None,
    *,
    vault: Vault | AgentVaults | None = None,
    base_dir: str | Path | None = None,
    thread_id: str | None = None,
    initialize: bool = True,
    prefetch_timeout: float = DEFAULT_PREFETCH_TIMEOUT,
    **session: Any,
) -> ConfiguredManager:
    """The manager ``config`` describes for ``user_id`` / ``agent_id``, initialized.

    ``config`` is the layered store (the user's overrides apply, and are read again on
    every call) or one fixed ``MemoryConfig``. ``vault`` is where memories live when
    ``memory.provider`` is ``vault`` (required then). ``base_dir`` holds the users'
    files (default: the store's directory). ``initialize=False`` leaves
    ``initialize_all`` to the caller; ``session`` (e.g. ``workspace_id``) goes to it.
    """
    if isinstance(config, MemoryConfigStore):
        store = config
        home = Path(base_dir) if base_dir is not None else store.base_dir
        effective = store.get_effective_memory_config(user_id).config

        def settings() -> MemoryConfig:
            return store.get_effective_memory_config(user_id).config
    elif isinstance(config, MemoryConfig):
        if base_dir is None:
            raise ConfigError("pass base_dir= (where the users' memory files live)")
        home, effective = Path(base_dir), config

        def settings() -> MemoryConfig:
            return config
    else:
        raise ConfigError(
            f"config must be a MemoryConfigStore or a MemoryConfig, got {type(config).__name__}"
        )
    manager = ConfiguredManager(
        _builtin_for(effective),
        settings=settings,
        initial=effective,
        prefetch_timeout=prefetch_timeout,
    )
    if effective.enabled:
        external = _external_for(effective, vault)
        if external is not None:
            manager.add_provider(external)
    if initialize:
        manager.initialize_all(
            user_id=user_id, agent_id=agent_id, thread_id=thread_id, base_dir=str(home), **session
        )
    return manager


def _builtin_for(config: MemoryConfig) -> MemoryProvider:
    if not config.enabled:
        return MemoryOff("memory.enabled is false in config.yaml")
    if not config.builtin.enabled:
        return MemoryOff("builtin.enabled is false in config.yaml")
    return BuiltinFileProvider(
        user_char_limit=config.builtin.user_char_limit,
        memory_char_limit=config.builtin.memory_char_limit,
        scan_writes=config.security.scan_content,
        block_invisible=config.security.block_invisible_unicode,
    )


def _external_for(config: MemoryConfig, vault: Vault | AgentVaults | None) -> MemoryProvider | None:
    if config.provider == "builtin":
        return None
    if config.provider == "hindsight":
        if config.hindsight.mode == "local_embedded":
            logger.warning(
                "hindsight.mode is local_embedded, but memvault runs no Hindsight inside the "
                "process: it connects to hindsight.api_url (%s); start the server there",
                config.hindsight.api_url,
            )
        return HindsightProvider(config)
    if vault is None:
        raise ConfigError(
            "memory.provider is 'vault': pass vault= (the Vault the agent's memories live "
            "in), or set memory.provider to 'builtin' or 'hindsight' in config.yaml",
            field="memory.provider",
        )
    return VaultProvider(vault)


__all__ = ["ConfiguredManager", "MemoryOff", "build_manager"]

"""``Gateway``: what the routers share — the vault (and each agent's own, when the
admin gave it one: ``agents``), the keys, the config store, the builtin memory files of
each (user, agent), the external memory ``memory.provider`` selects (with the bank
naming), and the chat model when one is set.

It holds no HTTP types; routers get it through ``deps.gateway``.
"""

from __future__ import annotations

import shutil
import threading
from dataclasses import InitVar, dataclass, field, replace
from pathlib import Path

from ..agent.config import MemoryConfigStore
from ..agent.external import BankNaming, Banks, ExternalMemory, MirroringMemory
from ..agent.external.factory import make_external_memory
from ..agent.provider import MemoryWrite
from ..agent.providers.builtin import BuiltinFileProvider
from ..agent.providers.learned_files import FilesMirror
from ..agent.stores import AgentVaults
from ..lru import DEFAULT_MAXSIZE, LRUCache
from ..security.pii import redact
from ..vault import Vault
from .keys import KeyStore


@dataclass
class ServerSettings:
    """Knobs of the HTTP layer (the engine's live in ``VaultConfig``)."""

    max_body_bytes: int = 2 * 1024 * 1024
    cors_origins: tuple[str, ...] = ()
    yaml_path: Path | None = None
    # (user, agent) pairs whose memory files (and MCP tools) stay loaded; the least
    # recently used go first and are re-read from disk when they come back.
    agent_cache_size: int = DEFAULT_MAXSIZE
    # Run the tier transitions every lifecycle.schedule_minutes (``memvault serve`` does).
    run_maintenance: bool = False


@dataclass
class RecallStats:
    last_hits: int | None = None


@dataclass
class Gateway:
    """``external_memory``, when given, replaces the external memory that
    ``memory.provider`` selects (tests; an app that brings its own)."""

    vault: Vault
    keys: KeyStore | None
    settings: ServerSettings
    external_memory: InitVar[ExternalMemory | None] = None
    config_store: MemoryConfigStore = field(init=False)
    agents: AgentVaults = field(init=False)
    external: ExternalMemory = field(init=False)
    bank_naming: BankNaming = field(init=False)
    files_mirror: FilesMirror = field(init=False)
    _builtin: LRUCache[tuple[str, str | None], BuiltinFileProvider] = field(init=False)
    _recall: LRUCache[str, RecallStats] = field(init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False)
    _owns_external: bool = field(default=False, init=False)

    def __post_init__(self, external_memory: ExternalMemory | None) -> None:
        self.config_store = MemoryConfigStore(self.home, yaml_path=self.settings.yaml_path)
        admin = self.config_store.admin_config()
        self.bank_naming = BankNaming.from_config(admin)
        self.agents = AgentVaults(self.vault)
        self._owns_external = external_memory is None
        self.external = (
            external_memory
            if external_memory is not None
            else make_external_memory(admin, vault=self.agents)
        )
        self._builtin = LRUCache(self.settings.agent_cache_size)
        self._recall = LRUCache(max(self.settings.agent_cache_size, 1024))
        # Facts learnt from remembered conversations also go into USER.md / MEMORY.md.
        self.files_mirror = FilesMirror(self._files_of)
        self.agents.on_open(lambda vault: vault.learning.on_learned(self.files_mirror))

    def _files_of(self, user_id: str, agent_id: str | None) -> BuiltinFileProvider | None:
        """The files extracted facts are mirrored into (None: the user switched them off)."""
        if not self.config_store.get_effective_memory_config(user_id).config.builtin.enabled:
            return None
        return self.builtin(user_id, agent_id)

    @property
    def home(self) -> Path:
        return self.vault.config.home

    @property
    def auth(self) -> bool:
        return self.keys is not None

    def vault_for(self, agent_id: str | None) -> Vault:
        """The vault that holds ``agent_id``'s memories: its own store's, or the default."""
        return self.agents.vault_for(agent_id)

    def builtin(self, user_id: str, agent_id: str | None) -> BuiltinFileProvider:
        """The USER.md / MEMORY.md provider of one (user, agent), initialized once."""
        key = (user_id, agent_id)
        provider = self._builtin.get(key)
        if provider is not None:
            return provider
        config = self.config_store.get_effective_memory_config(user_id).config
        provider = BuiltinFileProvider(
            user_char_limit=config.builtin.user_char_limit,
            memory_char_limit=config.builtin.memory_char_limit,
            scan_writes=config.security.scan_content,
            block_invisible=config.security.block_invisible_unicode,
        )
        provider.initialize(user_id=user_id, agent_id=agent_id, base_dir=str(self.home))
        if isinstance(self.external, MirroringMemory):
            mirror, banks = self.external, self.banks(user_id, agent_id)

            def copy(write: MemoryWrite) -> None:
                # what leaves for the external memory is redacted, as MemoryManager does
                old = write.metadata.get("old_text")
                metadata = dict(write.metadata)
                if isinstance(old, str):
                    metadata["old_text"] = redact(old).text
                content = redact(write.content).text
                mirror.mirror_write(replace(write, content=content, metadata=metadata), banks)

            provider.add_write_listener(copy)
        return self._builtin.setdefault(key, provider)

    def banks(self, user_id: str, agent_id: str | None) -> Banks:
        """The banks of ``user_id`` as ``agent_id`` sees them (an agent-less request sees
        the work bank of the external memory's default agent, if it has one)."""
        if agent_id is None and isinstance(self.external, MirroringMemory):
            agent_id = self.external.default_agent
        return self.bank_naming.banks(user_id, agent_id)

    def note_recall(self, user_id: str, hits: int) -> None:
        self._recall.get_or_create(user_id, RecallStats).last_hits = hits

    def last_recall(self, user_id: str) -> int | None:
        stats = self._recall.get(user_id)
        return stats.last_hits if stats else None

    def erase_user(self, user_id: str, *, actor: str = "local") -> int:
        """Every trace of a user: entries, reveal secret and state, audit records and
        index tokens (``Vault.erase_user``, in every agent's store too), the memory files
        and the config overrides."""
        deleted = self.agents.erase_user(user_id=user_id, actor=actor)
        user_dir = self.config_store.user_overrides_path(user_id).parent
        shutil.rmtree(user_dir, ignore_errors=True)
        self._builtin.discard_where(lambda key: key[0] == user_id)
        self._recall.discard_where(lambda key: key == user_id)
        return deleted

    def close(self) -> None:
        """Close the external memory if this gateway built it (one passed in belongs to the
        caller; an external memory need not have ``close``), and the agents' own vaults."""
        if self._owns_external:
            close = getattr(self.external, "close", None)
            if callable(close):
                close()
        self.agents.close()


__all__ = ["Gateway", "ServerSettings"]

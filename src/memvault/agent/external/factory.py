"""``make_external_memory``: the external memory that ``memory.provider`` names.

* ``vault`` (the default): ``VaultExternalMemory`` over the given vault;
* ``builtin``: ``NoExternalMemory``, i.e. none; status says so, operations answer 501;
* ``hindsight``: ``HindsightExternalMemory`` over the configured server (the
  ``memvault[hindsight]`` extra; ``ConfigError`` naming it when the client is missing).

The choice is made once, from the admin's settings (defaults and config.yaml; no runtime
override may change the provider), by whoever serves the routes.
"""

from __future__ import annotations

from collections.abc import Callable

from ...errors import ConfigError
from ...llm import Chat
from ...vault import Vault
from ..config.settings import MemoryConfig
from ..stores import AgentVaults
from .protocol import ExternalMemory, NoExternalMemory
from .vault import VaultExternalMemory


def make_external_memory(
    config: MemoryConfig, *, vault: Vault | AgentVaults, llm: Callable[[], Chat] | None = None
) -> ExternalMemory:
    """The external memory for ``config.provider``; ``llm`` is the chat client factory
    a provider that reflects through memvault's model uses."""
    if config.provider == "vault":
        return VaultExternalMemory(vault, llm=llm)
    if config.provider == "builtin":
        return NoExternalMemory()
    if config.provider == "hindsight":
        from .hindsight import HindsightExternalMemory  # needs the optional extra

        return HindsightExternalMemory(config)
    raise ConfigError(
        f"memory.provider is {config.provider!r}, but this memvault has no adapter for it "
        "yet; set memory.provider in config.yaml to 'vault' (memvault's own engine, the "
        "default) or 'builtin' (no external provider)",
        field="memory.provider",
    )


__all__ = ["make_external_memory"]

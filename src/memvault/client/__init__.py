"""A typed HTTP client of the memvault server, blocking (``Client``) and asyncio
(``AsyncClient``) over one implementation.

The methods mirror ``Vault`` (``add``, ``add_many``, ``get``, ``update``, ``delete``,
``delete_many``, ``list``, ``count``, ``search``, ``context``, ``explain``, ``export``,
``import_``, ``remember``, ``history``, ``undo``, ``decide``, ``profile``,
``save_profile``, ``erase_user``, ``stats``, ``entities``, ``entity``,
``entity_memories``, ``entity_graph``, ``workspace_sessions``; for admin keys ``users``
and ``user_total``) plus the ``/api/memory/v2`` routes under the names DeerFlow's client
gives them (seed 000, section 0.5: ``get_memory``, ``add_memory_entry``,
``replace_memory_entry``, ``remove_memory_entry``, ``get_memory_config``,
``search_memory``; and ``update_memory_config``). They return the library's objects
(``MemoryEntry``, ``Hit``, ``Explanation``, ``Version``, ``Remembered``, ``Profile``,
``ExternalHit``, ``Stats``, ``EntityDetail``, ``EntityGraphView``, ``UserMemories``,
``WorkspaceSession``; the v2 answers as the models of ``memvault.client.models``) and
raise the library's errors: the class the server raised, with its message.

httpx is a core dependency (``import memvault`` loads it already, for the LLM and
embedding clients), so this package needs no extra. It is deliberately not re-exported
from ``memvault``: the package root is the library's surface, and a client of a remote
server is one import away (``from memvault.client import Client``).
"""

from __future__ import annotations

from .clients import DEFAULT_URL, AsyncClient, Client
from .exchange import RetryPolicy
from .models import (
    ConfigField,
    FileUsage,
    MemoryConfig,
    MemoryEntries,
    MemoryOverview,
    ProviderStatus,
)

__all__ = [
    "DEFAULT_URL",
    "AsyncClient",
    "Client",
    "ConfigField",
    "FileUsage",
    "MemoryConfig",
    "MemoryEntries",
    "MemoryOverview",
    "ProviderStatus",
    "RetryPolicy",
]

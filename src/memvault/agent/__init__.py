"""The agent layer: memory providers, the manager that orchestrates them, and model tools.

Where things are:

* ``provider`` and ``manager``: the contract (seed 003's ``MemoryProvider``) and the
  ``MemoryManager`` that runs the builtin provider, at most one external one and companions;
* ``providers/``: the builtin USER.md / MEMORY.md files, the vault, the profile facts,
  Hindsight;
* ``external/``: the external-memory protocol behind ``/api/memory/v2`` and its
  implementations (the vault, Hindsight) with the factory that picks one;
* ``tools/``: the model-facing tools (``memory``, ``memory_save`` / ``memory_recall``,
  ``state_card`` / ``task_board``);
* ``config/``: the layered ``MemoryConfig`` and the configuration reference;
* ``stores``: one store per agent (``agents.json``) and the vaults opened for them;
* ``session_block``: the injected block of a session, fitted to the model's window;
* ``migrate_v1/``: DeerFlow V1 ``memory.json`` files moved to V2's places.

Nothing is re-exported here: importing a surface's one module loads only what it needs.
"""

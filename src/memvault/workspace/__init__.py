"""The deepmemory workspace (seed 004): per-session state cards, per-workspace task
boards, and their prompt text. Services over ``stores.WorkspaceStore``; ``Vault``
exposes them, the surfaces (tools, MCP, HTTP) adapt them."""

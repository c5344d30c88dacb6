"""The deepmemory workspace (seed 004): per-session state cards, per-workspace task
boards and their prompt text, and the presets with their budget contracts and the
allocator that fits a session's injected parts into the model's window. Services over
``stores.WorkspaceStore`` (cards, board) or pure (presets, allocator); ``Vault`` exposes
them, ``agent.session_block`` builds the block, the surfaces adapt them."""

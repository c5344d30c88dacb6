"""The deepmemory workspace (seed 004): what a session injects and how it is budgeted."""

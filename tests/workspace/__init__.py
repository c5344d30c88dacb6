"""Tests of ``memvault.workspace``: cards, the board, sessions, the budget allocator."""

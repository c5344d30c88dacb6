"""Tests of ``memvault.cli``: the command groups in process, one real process per group."""

"""Tests of ``memvault.agent``: providers, the manager, tools, config and V1 migration."""

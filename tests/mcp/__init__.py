"""Tests of ``memvault.mcp``, driven by the SDK's own client."""

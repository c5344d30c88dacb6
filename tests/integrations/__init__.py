"""Tests of ``memvault.integrations`` under the real frameworks."""

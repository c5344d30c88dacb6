"""Tests of ``memvault.lifecycle``: tiers, history, decisions, domains, compression."""

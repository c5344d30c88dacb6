"""Tests of ``memvault.graph``: entity extraction, links and their surfaces."""

"""Tests of ``memvault.server``: the gateway's routes on a real server on loopback."""

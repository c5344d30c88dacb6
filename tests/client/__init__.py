"""Tests of ``memvault.client`` against a real gateway on loopback."""

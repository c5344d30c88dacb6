"""Throw-away database servers on loopback for the tests (one module per server)."""

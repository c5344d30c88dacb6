"""Throw-away database servers on 127.0.0.1 for the server-store tests."""

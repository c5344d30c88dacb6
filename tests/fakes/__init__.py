"""Loopback servers that speak real wire protocols of services tests cannot reach."""

"""Adapters that plug memvault into agent frameworks; each imports its framework itself."""

"""Tests of ``memvault.profile``: intake, extraction and fact selection."""

"""Tests of ``memvault.security``: the scan, PII, protection, quarantine, scrubber."""

"""Tests of ``memvault.stores``: the conformance suite and what each backend adds."""

"""Tests of ``memvault.embed``: the embedders, the batcher and the background worker."""

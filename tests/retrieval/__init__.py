"""Tests of ``memvault.retrieval``: channels, fusion, rerank, explain, relevance."""

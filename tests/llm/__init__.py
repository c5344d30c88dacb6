"""Tests of ``memvault.llm``: the chat client and the token ledger."""

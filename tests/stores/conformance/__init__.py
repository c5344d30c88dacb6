"""The store contract, one module per protocol, run on every backend in
``conftest.STORE_BACKENDS``.

These tests talk to a store directly (no ``Vault``), building entries and their
``SearchDoc`` by hand, so they pin down what any new backend has to do: add one
``(id, factory)`` pair to ``STORE_BACKENDS`` and all of them run on it.
"""

"""Tests of ``memvault.engine``: the services behind the ``Vault`` facade."""

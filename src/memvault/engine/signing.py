"""Signing keys: one secret per integration, kept in the vault's settings.

An integration that replays what it stored straight into a model's input (the OpenAI
Agents session) must tell its own entries from look-alikes, and any writer can make a
look-alike: an HTTP client or an import line sets ids and metadata freely. Signing the
ids with a key that never leaves the store (exports hold entries, not settings) makes
the difference. A store migration carries the keys (``engine.migrate``).
"""

from __future__ import annotations

import secrets

from ..errors import ValidationError
from ..stores.protocols import VaultSettings

#: The integrations that sign what they store.
SIGNERS = ("openai-agents",)


def signing_setting(name: str) -> str:
    """The vault setting that holds the signing key called ``name``."""
    return f"signing-key:{name}"


def signing_key(store: VaultSettings, name: str) -> bytes:
    """The 256-bit key called ``name``, made by the first process that asks and the same
    for every process and backend after it."""
    if name not in SIGNERS:
        raise ValidationError(f"unknown signer {name!r}: one of {', '.join(SIGNERS)}")
    value = store.put_setting(signing_setting(name), secrets.token_hex(32), replace=False)
    return bytes.fromhex(value)


__all__ = ["SIGNERS", "signing_key", "signing_setting"]

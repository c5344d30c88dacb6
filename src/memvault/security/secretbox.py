"""Encryption at rest for the originals of redacted memories.

Fernet (AES-128-CBC + HMAC-SHA256, from the ``cryptography`` package) with one
key per vault: given in configuration, or read from a key file that is created
on first use with mode 0600. Creation takes the file's lock and checks again under
it, so two processes starting at once end up with the same key, and the key is
written atomically (:mod:`memvault.atomic`), so a crash never leaves a half-written
key that would make every sealed original unreadable.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..atomic import PRIVATE_MODE, LockTimeout, file_lock, replace_file
from ..errors import ConfigError, StoreError

if TYPE_CHECKING:
    from cryptography.fernet import Fernet


def load_or_create_key(path: Path) -> bytes:
    """The key in ``path``; a new one written there (0600) if the file does not exist."""
    path = path.expanduser()
    if not path.exists():
        try:
            with file_lock(path):
                if not path.exists():  # else another process won the race: use its key
                    from cryptography.fernet import Fernet

                    key = Fernet.generate_key()
                    replace_file(path, key, mode=PRIVATE_MODE)
                    return key
        except LockTimeout:
            raise ConfigError(
                f"key file {path} is locked by another process; retry", path=str(path)
            ) from None
    key = path.read_bytes().strip()
    if path.stat().st_mode & 0o077:
        raise ConfigError(
            f"key file {path} is readable by other users: chmod 600 {path}", path=str(path)
        )
    return key


class SecretBox:
    """Encrypts and decrypts small payloads with one Fernet key."""

    def __init__(self, key: bytes | str) -> None:
        # cryptography loads when a box is made: a process that seals nothing never pays.
        from cryptography.fernet import Fernet

        try:
            self._fernet: Fernet = Fernet(key)
        except (ValueError, TypeError) as exc:
            raise ConfigError(
                f"invalid encryption key ({exc}): use a key from Fernet.generate_key() "
                "(32 url-safe base64-encoded bytes)"
            ) from None

    def seal(self, data: bytes) -> bytes:
        return self._fernet.encrypt(data)

    def open(self, token: bytes) -> bytes:
        from cryptography.fernet import InvalidToken

        try:
            return self._fernet.decrypt(token)
        except InvalidToken:
            raise StoreError(
                "an encrypted original cannot be decrypted with this key: was the key "
                "file replaced? restore the key the data was written with"
            ) from None


__all__ = ["SecretBox", "load_or_create_key"]

"""Sensitive-data protection on the write path, and the authorised reveal (seed 004).

On write, personal data and secrets in an entry's name, description and content
are replaced by typed placeholders (``[bank_card#1]``) before anything is
stored, indexed or embedded; the original text is kept apart, encrypted. Seeing
it again needs the user's reveal secret: a right answer grants a reveal for a
limited time, wrong answers count, and after too many the entry is locked.
Every attempt, grant, reveal and unlock is written to the append-only audit log.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from ..config import SensitiveConfig
from ..model import Sensitivity
from .pii import redact
from .secretbox import SecretBox, load_or_create_key

_ORDER = list(Sensitivity)
_SCRYPT = {"n": 2**14, "r": 8, "p": 1, "dklen": 32}


def higher(a: Sensitivity, b: Sensitivity) -> Sensitivity:
    return a if _ORDER.index(a) >= _ORDER.index(b) else b


@dataclass(frozen=True, slots=True)
class Protected:
    """Redacted fields, the sensitivity found, and the sealed originals (None if clean)."""

    fields: dict[str, str]
    sensitivity: Sensitivity
    sealed: bytes | None
    kinds: tuple[str, ...]


class Protector:
    """Redacts on write and seals originals; the key is loaded on first need."""

    def __init__(self, config: SensitiveConfig, home: Path) -> None:
        self.config = config
        self.home = home
        self._box: SecretBox | None = None

    @property
    def box(self) -> SecretBox:
        if self._box is None:
            key = self.config.key or load_or_create_key(
                self.config.key_file or self.home / "secret.key"
            )
            self._box = SecretBox(key)
        return self._box

    def protect(self, **fields: str) -> Protected:
        """Redact every given field; seal the originals of those that changed."""
        if not self.config.enabled:
            return Protected(dict(fields), Sensitivity.NORMAL, None, ())
        out: dict[str, str] = {}
        originals: dict[str, str] = {}
        level = Sensitivity.NORMAL
        kinds: list[str] = []
        for name, text in fields.items():
            if not text:
                out[name] = text
                continue
            result = redact(text)
            out[name] = result.text
            if result.findings:
                originals[name] = text
                level = higher(level, result.sensitivity)
                kinds.extend(f.kind for f in result.findings)
        sealed = self.seal_fields(originals) if originals else None
        return Protected(out, level, sealed, tuple(dict.fromkeys(kinds)))

    def seal_fields(self, originals: dict[str, str]) -> bytes:
        return self.box.seal(json.dumps(originals, ensure_ascii=False).encode("utf-8"))

    def unseal(self, sealed: bytes) -> dict[str, str]:
        data: dict[str, str] = json.loads(self.box.open(sealed).decode("utf-8"))
        return data


def hash_secret(secret: str, salt: bytes | None = None) -> tuple[bytes, bytes]:
    """(salt, scrypt digest) of a reveal secret; never stored in plain text."""
    salt = os.urandom(16) if salt is None else salt
    return salt, hashlib.scrypt(secret.encode("utf-8"), salt=salt, **_SCRYPT)


def check_secret(secret: str, salt: bytes, digest: bytes) -> bool:
    return hmac.compare_digest(hash_secret(secret, salt)[1], digest)


def grant_until(now: datetime, config: SensitiveConfig) -> datetime:
    return now + timedelta(minutes=config.reveal_minutes)


Clock = Callable[[], datetime]

__all__ = [
    "Clock",
    "Protected",
    "Protector",
    "check_secret",
    "grant_until",
    "hash_secret",
    "higher",
]

"""Sensitive-data protection on the write path, and the authorised reveal (seed 004).

On write, personal data and secrets in an entry's name, description, content,
category and metadata (every string inside it, keys included) are replaced by typed placeholders
(``[bank_card#1]``) before anything is stored, indexed or embedded; the original
text is kept apart, encrypted. Seeing it again needs the user's reveal secret: a
right answer grants a reveal for a limited time, wrong answers count, and after
too many the entry is locked.
Every attempt, grant, reveal and unlock is written to the append-only audit log.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from ..config import SensitiveConfig
from ..errors import ValidationError
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

    fields: dict[str, Any]
    sensitivity: Sensitivity
    sealed: bytes | None
    kinds: tuple[str, ...]


class Protector:
    """Redacts on write and seals originals; the key is loaded on first need."""

    def __init__(self, config: SensitiveConfig, home: Path) -> None:
        self.config = config
        self.home = home
        self._box: SecretBox | None = None
        # Metadata paths that address an entry (say, a LangGraph namespace and key):
        # redacting them would lose the item, so they are kept as written.
        self._plain = frozenset(tuple(p.split(".")) for p in config.plain_metadata)

    @property
    def box(self) -> SecretBox:
        if self._box is None:
            key = self.config.key or load_or_create_key(
                self.config.key_file or self.home / "secret.key"
            )
            self._box = SecretBox(key)
        return self._box

    def protect(self, **fields: Any) -> Protected:
        """Redact every given field (text, or JSON-like metadata); seal the originals of
        those that changed."""
        if not self.config.enabled:
            return Protected(dict(fields), Sensitivity.NORMAL, None, ())
        out: dict[str, Any] = {}
        originals: dict[str, Any] = {}
        level = Sensitivity.NORMAL
        kinds: list[str] = []
        for name, value in fields.items():
            if not value:
                out[name] = value
                continue
            findings = _Findings()
            skip = self._plain if name == "metadata" else frozenset()
            out[name] = map_strings(value, findings.clean, skip=skip, keys=name == "metadata")
            if findings.kinds:
                originals[name] = value
                level = higher(level, findings.level)
                kinds.extend(findings.kinds)
        sealed = self.seal_fields(originals) if originals else None
        return Protected(out, level, sealed, tuple(dict.fromkeys(kinds)))

    def seal_fields(self, originals: Mapping[str, Any]) -> bytes:
        return self.box.seal(json.dumps(originals, ensure_ascii=False).encode("utf-8"))

    def unseal(self, sealed: bytes) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.box.open(sealed).decode("utf-8"))
        return data


class _Findings:
    """Redacts strings one by one, remembering what it found in all of them."""

    def __init__(self) -> None:
        self.kinds: list[str] = []
        self.level = Sensitivity.NORMAL

    def clean(self, text: str) -> str:
        result = redact(text)
        if result.findings:
            self.kinds.extend(f.kind for f in result.findings)
            self.level = higher(self.level, result.sensitivity)
        return result.text


def map_strings(
    value: Any,
    fn: Callable[[str], str],
    *,
    skip: frozenset[tuple[str, ...]] = frozenset(),
    path: tuple[str, ...] = (),
    keys: bool = False,
) -> Any:
    """``value`` with ``fn`` applied to every string in it (dict values, list items, and
    dict keys when ``keys``), except under the dict-key paths in ``skip``.

    A key is changed only where the result cannot clash: two keys of one mapping that
    would become equal raise ``ValidationError``.
    """
    if path and path in skip:
        return value
    if isinstance(value, str):
        return fn(value)
    if isinstance(value, Mapping):
        out: dict[Any, Any] = {}
        for k, v in value.items():
            new_key = k
            if keys and isinstance(k, str) and (*path, k) not in skip:
                new_key = fn(k)
                if new_key != k and (new_key in value or new_key in out):
                    raise ValidationError(
                        f"metadata key {new_key!r} would appear twice once sensitive data in "
                        "keys is redacted: keep card numbers, ids and secrets out of "
                        "metadata keys (put them in values)",
                        field="metadata",
                    )
            out[new_key] = map_strings(v, fn, skip=skip, path=(*path, str(k)), keys=keys)
        return out
    if isinstance(value, list | tuple):
        return [map_strings(v, fn, skip=skip, path=path, keys=keys) for v in value]
    return value


def strings_in(value: Any) -> list[str]:
    """Every string inside a JSON-like value, keys included, for the threat scan."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return [s for k, v in value.items() for s in (str(k), *strings_in(v))]
    if isinstance(value, list | tuple):
        return [s for v in value for s in strings_in(v)]
    return []


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

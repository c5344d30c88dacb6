"""API keys: ``<home>/keys.json``, holding hashes only.

A key looks like ``mv_<id>_<secret>``. The id finds the record; the secret is
checked against ``sha256(salt || secret)`` with a per-key random salt, compared in
constant time. The secret is 256 random bits, so a fast hash is enough (slow
hashes such as scrypt protect guessable passwords, and would cost every request
tens of milliseconds). The plain key is returned once, by ``create``.

Each key is bound to one ``user_id``, or is an admin key (``user_id`` None), which
may act for any user and manage keys. A user key may also carry the review scope
(``review``): it may release its user's memories that the threat scan held. A plain
user key may not, since an agent host holds its user's key, and a poisoned turn must
not be released by the agent it was meant to steer. Revoked keys stay listed, marked
revoked.

Writes take ``keys.json.lock`` and replace the file atomically (temp file, fsync,
``os.replace``). Readers reload the file when its modification time changes, so a
key revoked from the CLI stops working in a running server at its next request.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..atomic import LockTimeout, file_lock, replace_file
from ..errors import ConfigError, NotFoundError, ValidationError
from ..validation import check_ident

KEYS_FILE = "keys.json"
PREFIX = "mv_"
_LOCK_TIMEOUT = 10.0


@dataclass(frozen=True, slots=True)
class KeyRecord:
    """One stored key, without its secret."""

    id: str
    user_id: str | None
    label: str
    created_at: str
    salt: str
    hash: str
    revoked: bool = False
    review: bool = False  # may approve held memories (keys.json written before: False)

    @property
    def admin(self) -> bool:
        return self.user_id is None

    def public(self) -> dict[str, Any]:
        """What listing shows: everything but the salt and hash."""
        return {
            "id": self.id,
            "user_id": self.user_id,
            "admin": self.admin,
            "label": self.label,
            "created_at": self.created_at,
            "revoked": self.revoked,
            "review": self.review or self.admin,
        }


@dataclass(frozen=True, slots=True)
class Principal:
    """Who a request acts as: a user's key, or an admin (who may name any user)."""

    key_id: str | None
    user_id: str | None
    review: bool = False

    @property
    def admin(self) -> bool:
        return self.user_id is None

    @property
    def reviewer(self) -> bool:
        """May approve memories the threat scan held: an admin, or a review-scoped key."""
        return self.admin or self.review


LOCAL_ADMIN = Principal(key_id=None, user_id=None)
"""The caller when authentication is off (loopback only): acts as an admin."""


def _digest(salt: str, secret: str) -> str:
    return hashlib.sha256(bytes.fromhex(salt) + secret.encode("utf-8")).hexdigest()


class KeyStore:
    """The key records under one data directory."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._cache: tuple[int, dict[str, KeyRecord]] | None = None
        self._cache_lock = threading.Lock()

    @classmethod
    def in_home(cls, home: Path) -> KeyStore:
        return cls(Path(home) / KEYS_FILE)

    # -- reading -------------------------------------------------------------------

    def _load(self) -> dict[str, KeyRecord]:
        try:
            stamp = self.path.stat().st_mtime_ns
        except FileNotFoundError:
            return {}
        with self._cache_lock:
            if self._cache is not None and self._cache[0] == stamp:
                return self._cache[1]
            records = self._read()
            self._cache = (stamp, records)
            return records

    def _read(self) -> dict[str, KeyRecord]:
        try:
            document = json.loads(self.path.read_text(encoding="utf-8"))
            return {item["id"]: KeyRecord(**item) for item in document["keys"]}
        except FileNotFoundError:
            return {}
        except (OSError, ValueError, KeyError, TypeError, RecursionError) as exc:
            raise ConfigError(
                f"{self.path} is unreadable or malformed ({exc}); restore it from a backup, or "
                "delete it and create new keys with `memvault keys create`"
            ) from None

    def list(self) -> list[KeyRecord]:
        """Every key, oldest first; keys made in the same second in the order they were
        made (the file keeps that order)."""
        return sorted(self._load().values(), key=lambda r: r.created_at)

    def is_empty(self) -> bool:
        return not self._load()

    def authenticate(self, token: str) -> Principal | None:
        """The principal of a presented key, or None when it is unknown, wrong or revoked."""
        if not token.startswith(PREFIX):
            return None
        key_id, sep, secret = token[len(PREFIX) :].partition("_")
        if not sep or not secret:
            return None
        record = self._load().get(key_id)
        if record is None or record.revoked:
            return None
        if not hmac.compare_digest(_digest(record.salt, secret), record.hash):
            return None
        return Principal(key_id=record.id, user_id=record.user_id, review=record.review)

    # -- writing -------------------------------------------------------------------

    def create(
        self, *, user_id: str | None, label: str = "", review: bool = False
    ) -> tuple[KeyRecord, str]:
        """A new key for ``user_id`` (None = admin; ``review``: may approve held memories);
        returns the record and the plain key."""
        if user_id is not None:
            check_ident(user_id, "user_id")
        if not isinstance(label, str) or len(label) > 200:
            raise ValidationError("label must be a string of at most 200 characters")
        if not isinstance(review, bool):
            raise ValidationError("review must be true or false", field="review")
        with self._locked() as records:
            return self._mint(records, user_id, label, review=review)

    @staticmethod
    def _mint(
        records: dict[str, KeyRecord], user_id: str | None, label: str, *, review: bool = False
    ) -> tuple[KeyRecord, str]:
        secret = secrets.token_urlsafe(32)
        salt = secrets.token_hex(16)
        key_id = secrets.token_hex(6)
        while key_id in records:
            key_id = secrets.token_hex(6)
        record = KeyRecord(
            id=key_id,
            user_id=user_id,
            label=label,
            created_at=datetime.now(UTC).isoformat(timespec="seconds"),
            salt=salt,
            hash=_digest(salt, secret),
            review=review and user_id is not None,
        )
        records[key_id] = record
        return record, f"{PREFIX}{key_id}_{secret}"

    def revoke(self, key_id: str) -> KeyRecord:
        """Mark a key revoked (kept for the record); NotFoundError for an unknown id."""
        with self._locked() as records:
            record = records.get(key_id)
            if record is None:
                raise NotFoundError(
                    f"no key {key_id!r}: `memvault keys list` shows the ids", key_id=key_id
                )
            record = replace(record, revoked=True)
            records[key_id] = record
        return record

    def has_admin(self) -> bool:
        """Whether a usable (not revoked) admin key exists: without one nobody can manage
        keys over HTTP, so ``memvault serve`` says how to create one at every start."""
        return any(r.admin and not r.revoked for r in self.list())

    def ensure_admin(self, *, label: str = "first admin") -> str | None:
        """On a fresh data directory (no keys at all) create an admin key and return it;
        None when keys already exist."""
        with self._locked() as records:
            if records:
                return None
            return self._mint(records, None, label)[1]

    @contextmanager
    def _locked(self) -> Iterator[dict[str, KeyRecord]]:
        """Hold the lock, yield the records to change, then write them atomically."""
        try:
            with file_lock(self.path, timeout=_LOCK_TIMEOUT):
                records = self._read()
                before = dict(records)
                yield records
                if records != before:
                    self._write(records)
        except LockTimeout:
            raise ConfigError(f"{self.path} is locked by another writer; retry") from None

    def _write(self, records: dict[str, KeyRecord]) -> None:
        document = {"keys": [asdict(r) for r in records.values()]}  # in the order made
        text = json.dumps(document, indent=2) + "\n"
        replace_file(self.path, text, mode=0o600)
        with self._cache_lock:
            self._cache = None


__all__ = ["KEYS_FILE", "LOCAL_ADMIN", "KeyRecord", "KeyStore", "Principal"]

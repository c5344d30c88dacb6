"""Memory settings for the agent layer, merged from five layers (seed 000 §9, seed 004).
The models and their field tables are in :mod:`.settings`; this module reads, merges and
writes the layers.

The layers, lowest priority first:

1. ``default``  the defaults declared on ``MemoryConfig``;
2. ``yaml``     the ``memory:`` section of the admin's ``config.yaml``, read once when the
                ``MemoryConfigStore`` is built (a change needs a restart). ``$NAME`` and
                ``${NAME}`` in its strings are replaced from the environment;
3. ``global``   ``<base>/memory_user_overrides.json``, admin-wide runtime overrides;
4. ``user``     ``<base>/users/{user_id}/memory_config.json``, one user's overrides;
5. ``session``  ``<base>/users/{user_id}/sessions/{session_id}/memory_config.json``, the
                overrides of one conversation of that user (seed 004's session-level
                config), read only when a session is named.

The session layer lives beside the user's file, in the user's directory: it has the same
format, lock and atomic writes, it is erased with the user, and it needs no schema change
in any store. ``injection.preset`` (which preset builds the injected block,
:mod:`memvault.workspace.presets`) and ``injection.scope`` (which memories recall may
bring in: the session's, the workspace's or all) are settings like the others, so a user
can choose a default and a session its own.

The JSON layers may only hold the fields in ``USER_WRITABLE_FIELDS``. A key outside
that list is an error, both when it is written and when it is found on disk: dropping it
silently would let a user believe a setting is active when it is not. The JSON files are
nested like the YAML (``{"injection": {"enabled": false}}``); the API names fields in
dotted form (``"injection.enabled"``). Environment references are expanded in the YAML
only: the JSON layers are written by users, and expanding there would let a user read a
server secret back through ``to_dict()``.

Writes take a lock file next to the JSON file, read it, change one key, check that the
merged result is still a valid ``MemoryConfig`` and replace the file atomically
(:mod:`memvault.atomic`: temp file, fsync, ``os.replace``), so concurrent writers never
lose each other's keys and a reader never sees half a file.

Errors: a bad argument from the caller (unknown or non-writable field, wrong value, bad
user id) raises ``ValidationError`` and writes nothing; a malformed file on disk raises
``ConfigError`` naming the file and what to fix.

``background_extraction`` (seed 000 §9.1): ``enabled`` is the per-user switch, whether the
agent integrations hand every finished conversation to ``Vault.remember``; the seed's
tuning keys (quiet period, model, confidence threshold, ...) are accepted as written and
are the engine's ``extraction`` settings (:mod:`.seed_keys` hands them over).
``security.*`` and every other key of the seed's file are accepted too (see
:class:`.settings.SecuritySection` for what the security switches do).

Secrets (``hindsight.api_key``) are held as ``SecretStr`` and masked in ``to_dict()``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import SecretStr
from pydantic import ValidationError as PydanticValidationError

from ...atomic import PRIVATE_MODE, LockTimeout, file_lock, replace_file
from ...config import expand_env
from ...errors import ConfigError, ValidationError
from ...validation import check_ident
from .settings import (
    LEAF_FIELDS,
    RETIRED_FIELDS,
    SECRET_FIELDS,
    SECTIONS,
    USER_WRITABLE_FIELDS,
    WRITABLE_ADAPTERS,
    MemoryConfig,
    retired_reason,
)

FieldSource = Literal["default", "yaml", "global", "user", "session"]

GLOBAL_OVERRIDES_FILE = "memory_user_overrides.json"
USER_CONFIG_FILE = "memory_config.json"
SESSIONS_DIR = "sessions"
YAML_SECTION = "memory"
LOCK_TIMEOUT_SECONDS = 10.0
MASK = "***"


@dataclass(frozen=True, slots=True)
class EffectiveConfig:
    """The merged config of one user and, for every field, the layer its value came from."""

    user_id: str | None
    config: MemoryConfig
    sources: dict[str, FieldSource]
    session_id: str | None = None

    def to_dict(self) -> dict[str, dict[str, Any]]:
        """``{field: {"value", "source", "user_writable"}}`` for every field, JSON-ready.

        Secrets are masked: ``"***"`` plus the last four characters when the secret is
        at least 12 characters long, just ``"***"`` when shorter (four characters of a
        short key give too much of it away), ``None`` when unset.
        """
        values = _flatten_model(self.config)
        return {
            field: {
                "value": _mask(values[field]) if field in SECRET_FIELDS else values[field],
                "source": self.sources[field],
                "user_writable": field in USER_WRITABLE_FIELDS,
            }
            for field in LEAF_FIELDS
        }


def _mask(value: Any) -> str | None:
    if value is None:
        return None
    secret = value.get_secret_value() if isinstance(value, SecretStr) else str(value)
    return MASK + secret[-4:] if len(secret) >= 12 else MASK


def _flatten_model(config: MemoryConfig) -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for field in LEAF_FIELDS:
        value: Any = config
        for part in field.split("."):
            value = getattr(value, part)
        flat[field] = value
    return flat


def _unflatten(flat: Mapping[str, Any]) -> dict[str, Any]:
    nested: dict[str, Any] = {}
    for field, value in flat.items():
        *sections, name = field.split(".")
        target = nested
        for section in sections:
            target = target.setdefault(section, {})
        target[name] = value
    return nested


def _problems(exc: PydanticValidationError) -> str:
    return "; ".join(
        f"{'.'.join(str(p) for p in err['loc']) or 'value'}: {err['msg']}" for err in exc.errors()
    )


def _writable_list() -> str:
    return ", ".join(USER_WRITABLE_FIELDS)


def _flatten_document(data: Mapping[str, Any], origin: str) -> dict[str, Any]:
    """Nested settings to ``{dotted: value}``; unknown and retired keys are errors."""
    flat: dict[str, Any] = {}

    def walk(node: Mapping[str, Any], prefix: str) -> None:
        for key, value in node.items():
            if not isinstance(key, str) or "." in key:
                raise ConfigError(
                    f"{origin}: key {key!r} is not a setting name; nest settings by section, "
                    'e.g. {"injection": {"enabled": false}}',
                    field=str(key),
                )
            dotted = f"{prefix}{key}"
            if dotted in RETIRED_FIELDS:
                raise ConfigError(
                    f"{origin}: '{dotted}' is no longer a setting ({RETIRED_FIELDS[dotted]}); "
                    "delete it",
                    field=dotted,
                )
            if dotted in SECTIONS:
                if value is None:
                    continue
                if not isinstance(value, Mapping):
                    raise ConfigError(
                        f"{origin}: '{dotted}' must be a mapping of settings, "
                        f"got {type(value).__name__}",
                        field=dotted,
                    )
                walk(value, f"{dotted}.")
            elif dotted in LEAF_FIELDS:
                flat[dotted] = value
            else:
                raise ConfigError(
                    f"{origin}: unknown setting '{dotted}'; known settings: "
                    f"{', '.join(LEAF_FIELDS)}",
                    field=dotted,
                )

    walk(data, "")
    return flat


def _expand_strings(flat: dict[str, Any], environ: Mapping[str, str] | None, origin: str) -> None:
    for field, value in flat.items():
        if isinstance(value, str):
            try:
                flat[field] = expand_env(value, environ)
            except ConfigError as exc:
                raise ConfigError(f"{origin}: {field}: {exc}", field=field) from None


def load_yaml_settings(path: Path, environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The ``memory:`` section of a config.yaml as ``{dotted: value}``, env references expanded.

    A file without a ``memory:`` section contributes nothing. The values are validated as a
    whole ``MemoryConfig``, so a bad value is reported against this file.
    """
    try:
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(
            f"config file {path} does not exist: create it or pass no yaml_path"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read config file {path}: {exc}") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path} is not valid YAML; fix the syntax: {exc}") from None
    if document is None:
        return {}
    if not isinstance(document, Mapping):
        raise ConfigError(
            f"{path} must be a YAML mapping with a '{YAML_SECTION}:' section, "
            f"got {type(document).__name__}"
        )
    section = document.get(YAML_SECTION)
    if section is None:
        return {}
    origin = f"{path} ({YAML_SECTION}:)"
    if not isinstance(section, Mapping):
        raise ConfigError(f"{origin} must be a mapping of settings, got {type(section).__name__}")
    flat = _flatten_document(section, origin)
    _expand_strings(flat, environ, origin)
    try:
        MemoryConfig.model_validate(_unflatten(flat))
    except PydanticValidationError as exc:
        raise ConfigError(f"{origin}: invalid settings: {_problems(exc)}") from None
    return flat


def _read_overrides(path: Path) -> dict[str, Any]:
    """A JSON overrides file as ``{dotted: value}``; a missing or blank file is empty."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read overrides file {path}: {exc}") from None
    if not text.strip():
        return {}
    example = '{"injection": {"enabled": false}}'
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{path} is not valid JSON ({exc}); fix it or delete the file to drop its overrides"
        ) from None
    if not isinstance(document, Mapping):
        raise ConfigError(f"{path} must hold a JSON object such as {example}")
    flat = _flatten_document(document, str(path))
    for field, value in flat.items():
        if field not in USER_WRITABLE_FIELDS:
            raise ConfigError(
                f"{path}: '{field}' cannot be overridden at run time; remove it from this "
                f"file and set it in config.yaml. Overridable: {_writable_list()}",
                field=field,
            )
        try:
            flat[field] = WRITABLE_ADAPTERS[field].validate_python(value, strict=True)
        except PydanticValidationError as exc:
            raise ConfigError(
                f"{path}: invalid value for '{field}': {_problems(exc)}", field=field
            ) from None
    return flat


def _write_atomically(path: Path, flat: Mapping[str, Any]) -> None:
    """Replace the override file (the caller holds its lock); it stays private (0600)."""
    text = json.dumps(_unflatten(flat), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    replace_file(path, text, mode=PRIVATE_MODE)


class MemoryConfigStore:
    """Reads and writes the layered memory config under one data directory.

    ``base_dir`` holds the JSON override files; ``yaml_path`` is the admin's config.yaml
    (None: no YAML layer); ``environ`` replaces the process environment when expanding
    ``$NAME`` references (tests pass a dict). The YAML is read here, once.
    """

    def __init__(
        self,
        base_dir: Path,
        *,
        yaml_path: Path | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        self.base_dir = Path(base_dir)
        self.yaml_path = yaml_path
        self._yaml = {} if yaml_path is None else load_yaml_settings(Path(yaml_path), environ)

    @property
    def global_overrides_path(self) -> Path:
        return self.base_dir / GLOBAL_OVERRIDES_FILE

    def user_overrides_path(self, user_id: str) -> Path:
        return self.base_dir / "users" / check_ident(user_id, "user_id") / USER_CONFIG_FILE

    def yaml_settings(self) -> dict[str, Any]:
        """The YAML layer as ``{dotted: value}`` (secrets included; do not serve it)."""
        return dict(self._yaml)

    def global_overrides(self) -> dict[str, Any]:
        """The admin-wide overrides on disk, as ``{dotted: value}``."""
        return _read_overrides(self.global_overrides_path)

    def user_overrides(self, user_id: str) -> dict[str, Any]:
        """One user's overrides on disk, as ``{dotted: value}``."""
        return _read_overrides(self.user_overrides_path(user_id))

    def admin_config(self) -> MemoryConfig:
        """Defaults < YAML only: what holds for every user. The settings no runtime layer
        may change (the provider, its endpoint, the bank templates) are read from here."""
        return self._merge(None, {}, {}).config

    def get_effective_memory_config(
        self, user_id: str, session_id: str | None = None
    ) -> EffectiveConfig:
        """Defaults < YAML < global overrides < this user's overrides (< that session's, when
        ``session_id`` is given), with each field's source."""
        path = self.user_overrides_path(user_id)
        session = {} if session_id is None else self.session_overrides(user_id, session_id)
        effective = self._merge(user_id, self.global_overrides(), _read_overrides(path), session)
        return replace(effective, session_id=session_id)

    # -- the session layer ------------------------------------------------------------

    def session_overrides_path(self, user_id: str, session_id: str) -> Path:
        user_dir = self.user_overrides_path(user_id).parent
        return user_dir / SESSIONS_DIR / check_ident(session_id, "session_id") / USER_CONFIG_FILE

    def session_overrides(self, user_id: str, session_id: str) -> dict[str, Any]:
        """One session's overrides on disk, as ``{dotted: value}``."""
        return _read_overrides(self.session_overrides_path(user_id, session_id))

    def set_session_overrides(
        self, user_id: str, session_id: str, changes: Mapping[str, Any]
    ) -> EffectiveConfig:
        """Store overridable fields for one session, all or nothing; returns the session's
        new effective config. Each field and value is checked before anything is written."""
        path = self.session_overrides_path(user_id, session_id)
        if not isinstance(changes, Mapping) or not changes:
            raise ValidationError(
                'nothing to set: send at least one field, e.g. {"injection.preset": "task"}',
                field="settings",
            )
        canonical = {field: self._check_write(field, value) for field, value in changes.items()}
        with _locked(path):
            updated = {**_read_overrides(path), **canonical}
            user_path = self.user_overrides_path(user_id)
            self._merge(user_id, self.global_overrides(), _read_overrides(user_path), updated)
            _write_atomically(path, updated)
        return self.get_effective_memory_config(user_id, session_id)

    def reset_session(
        self, user_id: str, session_id: str, fields: Sequence[str] | None = None
    ) -> EffectiveConfig:
        """Drop a session's overrides of ``fields`` (None: all of them); the user's layer
        shows through again. Fields the session has not overridden are a no-op."""
        path = self.session_overrides_path(user_id, session_id)
        names = None if fields is None else [self._check_field(f) for f in fields]
        if path.exists():
            with _locked(path):
                current = _read_overrides(path)
                kept = {} if names is None else {k: v for k, v in current.items() if k not in names}
                if kept != current:
                    _write_atomically(path, kept)
        return self.get_effective_memory_config(user_id, session_id)

    def set_user_override(self, user_id: str, field: str, value: Any) -> EffectiveConfig:
        """Store one overridable field for one user; returns the user's new effective config."""
        path = self.user_overrides_path(user_id)
        canonical = self._check_write(field, value)
        with _locked(path):
            current = _read_overrides(path)
            updated = {**current, field: canonical}
            effective = self._merge(user_id, self.global_overrides(), updated)
            _write_atomically(path, updated)
        return effective

    def clear_user_override(self, user_id: str, field: str) -> EffectiveConfig:
        """Drop one user's override of ``field`` (a no-op when unset); the next layer shows."""
        path = self.user_overrides_path(user_id)
        self._check_field(field)
        if not path.exists():
            return self.get_effective_memory_config(user_id)
        with _locked(path):
            current = _read_overrides(path)
            if field in current:
                del current[field]
                _write_atomically(path, current)
        return self._merge(user_id, self.global_overrides(), current)

    def set_global_override(self, field: str, value: Any) -> None:
        """Store one overridable field for every user who has not overridden it."""
        path = self.global_overrides_path
        canonical = self._check_write(field, value)
        with _locked(path):
            updated = {**_read_overrides(path), field: canonical}
            self._merge(None, updated, {})
            _write_atomically(path, updated)

    def clear_global_override(self, field: str) -> None:
        """Drop the admin-wide override of ``field`` (a no-op when unset)."""
        path = self.global_overrides_path
        self._check_field(field)
        if not path.exists():
            return
        with _locked(path):
            current = _read_overrides(path)
            if field in current:
                del current[field]
                _write_atomically(path, current)

    def _merge(
        self,
        user_id: str | None,
        global_flat: Mapping[str, Any],
        user_flat: Mapping[str, Any],
        session_flat: Mapping[str, Any] | None = None,
    ) -> EffectiveConfig:
        sources: dict[str, FieldSource] = dict.fromkeys(LEAF_FIELDS, "default")
        merged: dict[str, Any] = {}
        layers: tuple[tuple[FieldSource, Mapping[str, Any]], ...] = (
            ("yaml", self._yaml),
            ("global", global_flat),
            ("user", user_flat),
            ("session", session_flat or {}),
        )
        for source, flat in layers:
            merged.update(flat)
            sources.update(dict.fromkeys(flat, source))
        try:
            config = MemoryConfig.model_validate(_unflatten(merged))
        except PydanticValidationError as exc:
            # Each layer was validated on its own; this only fires if a cross-field rule
            # is added later, and the message still names the fields involved.
            raise ConfigError(f"the merged memory config is invalid: {_problems(exc)}") from None
        return EffectiveConfig(user_id=user_id, config=config, sources=sources)

    @staticmethod
    def _check_field(field: object) -> str:
        retired = retired_reason(field) if isinstance(field, str) else None
        if retired is not None:
            raise ValidationError(f"'{field}' is no longer a setting: {retired}", field=field)
        if not isinstance(field, str) or field not in USER_WRITABLE_FIELDS:
            known = "" if field in LEAF_FIELDS else "unknown setting; "
            raise ValidationError(
                f"'{field}' cannot be overridden at run time ({known}admin settings live in "
                f"config.yaml). Overridable fields: {_writable_list()}",
                field=str(field),
            )
        return field

    def _check_write(self, field: object, value: Any) -> Any:
        """The value as it will be stored, or ValidationError saying what to send instead."""
        name = self._check_field(field)
        try:
            checked = WRITABLE_ADAPTERS[name].validate_python(value, strict=True)
        except PydanticValidationError as exc:
            raise ValidationError(
                f"invalid value {value!r} for '{name}': {_problems(exc)}", field=name
            ) from None
        return checked


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Hold the lock file beside ``path``; a timeout becomes a ConfigError naming the file."""
    try:
        with file_lock(path, timeout=LOCK_TIMEOUT_SECONDS):
            yield
    except LockTimeout:
        raise ConfigError(
            f"{path} has been locked by another writer for over {LOCK_TIMEOUT_SECONDS:g}s; retry"
        ) from None


__all__ = [
    "GLOBAL_OVERRIDES_FILE",
    "LOCK_TIMEOUT_SECONDS",
    "MASK",
    "SESSIONS_DIR",
    "USER_CONFIG_FILE",
    "YAML_SECTION",
    "EffectiveConfig",
    "FieldSource",
    "MemoryConfigStore",
    "load_yaml_settings",
]

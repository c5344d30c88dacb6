"""Memory settings for the agent layer, merged from five layers (seed 000 §9, seed 004).

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

``background_extraction`` (seed 000 §9.1) holds one switch here, ``enabled``: whether the
agent integrations hand every finished conversation to ``Vault.remember`` to be learnt from.
How extraction runs (quiet period, model, confidence threshold, facts per run, corrections,
reinforcements) is the engine's ``extraction`` section, one setting for every surface; the
seed's keys for those are reported as moved. ``security.streaming_scrubber`` configured a
scrubber that was never built; it is reported as retired rather than accepted and ignored.

Secrets (``hindsight.api_key``) are held as ``SecretStr`` and masked in ``to_dict()``.
"""

from __future__ import annotations

import json
import string
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, SecretStr, TypeAdapter, field_validator
from pydantic import ValidationError as PydanticValidationError

from ...atomic import PRIVATE_MODE, LockTimeout, file_lock, replace_file
from ...config import expand_env
from ...errors import ConfigError, ValidationError
from ...validation import check_ident

FieldSource = Literal["default", "yaml", "global", "user", "session"]

GLOBAL_OVERRIDES_FILE = "memory_user_overrides.json"
USER_CONFIG_FILE = "memory_config.json"
SESSIONS_DIR = "sessions"
YAML_SECTION = "memory"
LOCK_TIMEOUT_SECONDS = 10.0
MASK = "***"

USER_WRITABLE_FIELDS: tuple[str, ...] = (
    "background_extraction.enabled",
    "hindsight.bank_mission",
    "hindsight.memory_mode",
    "hindsight.recall_budget",
    "injection.enabled",
    "injection.include_builtin",
    "injection.include_hindsight",
    "injection.max_tokens",
    "injection.preset",
    "injection.scope",
)
"""Fields a user (or the admin, globally) may change at run time without a restart.

Everything else is fixed by config.yaml: the provider choice, the Hindsight endpoint and
key, the bank templates (changing them strands stored memories), the builtin character
limits (they shape the cached prompt prefix) and the security switches.
"""

_MOVED_TO_ENGINE = (
    "debounce_seconds",
    "model_name",
    "fact_confidence_threshold",
    "max_facts_per_extraction",
    "correction_detection",
    "reinforcement_detection",
)

RETIRED_FIELDS: dict[str, str] = {
    **{
        f"background_extraction.{key}": f"moved to the engine: set extraction.{key} in "
        "memvault's configuration (VaultConfig.extraction)"
        for key in _MOVED_TO_ENGINE
    },
    "security.streaming_scrubber": "the streaming scrubber was never built; recalled memory "
    "is injected per model call and never reaches the stream",
}


def _retired_reason(dotted: str) -> str | None:
    """Why ``dotted`` (or the section it belongs to) was removed, or None if it was not."""
    parts = dotted.split(".")
    for end in range(1, len(parts) + 1):
        reason = RETIRED_FIELDS.get(".".join(parts[:end]))
        if reason is not None:
            return reason
    return None


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class BuiltinSection(_Section):
    """The local USER.md / MEMORY.md store, which is always present."""

    enabled: bool = Field(True, description="load and inject the local memory files")
    memory_char_limit: int = Field(2200, ge=1, description="character quota of MEMORY.md")
    user_char_limit: int = Field(1375, ge=1, description="character quota of USER.md")
    deduplicate_on_load: bool = Field(True, description="drop repeated entries when loading")


class HindsightSection(_Section):
    """The external Hindsight service: where it is, which banks, how recall and retain work."""

    mode: Literal["cloud", "local_embedded", "local_external"] = Field(
        "local_external", description="how Hindsight is reached"
    )
    api_url: str = Field("http://localhost:8765", description="Hindsight HTTP endpoint")
    api_key: SecretStr | None = Field(
        None, description="Hindsight API key; usually $HINDSIGHT_API_KEY in config.yaml"
    )
    bank_id_template: str = Field(
        "deerflow-user-{user_id}", description="bank of facts about the user, per user"
    )
    work_bank_id_template: str = Field(
        "deerflow-work-{user_id}-{agent_id}",
        description="bank of working notes, per user and agent",
    )
    memory_mode: Literal["context", "tools", "hybrid"] = Field(
        "context",
        description="context = recall is injected, tools = the model calls recall tools, "
        "hybrid = both",
    )
    bank_mission: str = Field(
        "", max_length=4000, description="guidance that shapes how Hindsight reflects"
    )
    bank_retain_mission: str = Field(
        "", max_length=4000, description="guidance that shapes what Hindsight retains"
    )
    recall_budget: Literal["low", "mid", "high"] = Field("mid", description="recall depth")
    recall_max_tokens: int = Field(4096, ge=1, description="token cap of one recall")
    recall_max_input_chars: int = Field(800, ge=1, description="query characters sent to recall")
    auto_recall: bool = Field(True, description="recall before every model call")
    auto_retain: bool = Field(True, description="retain every finished turn")
    retain_async: bool = Field(True, description="retain in the background")
    retain_every_n_turns: int = Field(1, ge=1, description="retain once per this many turns")
    retain_user_prefix: str = Field("User", description="speaker label of user messages")
    retain_assistant_prefix: str = Field(
        "Assistant", description="speaker label of assistant messages"
    )
    timeout_seconds: float = Field(
        10.0,
        gt=0,
        le=300,
        description="bound of every call to the server; past it, recall "
        "injects nothing and a retain is queued again",
    )
    retain_queue_size: int = Field(
        256,
        ge=1,
        le=100_000,
        description="turns waiting for a background retain; when "
        "full the oldest is dropped (and counted in the log)",
    )
    env: str = Field(
        "",
        max_length=32,
        pattern=r"^[A-Za-z0-9_-]*$",
        description="fills an {env} placeholder of the bank templates (dev, staging, prod) "
        "so environments never share banks; empty drops the placeholder",
    )

    @field_validator("api_url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise ValueError("must start with http:// or https://")
        return value.rstrip("/")

    @field_validator("api_key", mode="before")
    @classmethod
    def _empty_key_is_none(cls, value: object) -> object:
        # An exported-but-empty HINDSIGHT_API_KEY means "no key", not the key "".
        return None if value == "" else value

    @field_validator("bank_id_template")
    @classmethod
    def _user_bank(cls, value: str) -> str:
        return _check_template(value, required={"user_id"})

    @field_validator("work_bank_id_template")
    @classmethod
    def _work_bank(cls, value: str) -> str:
        return _check_template(value, required={"user_id", "agent_id"})


def _check_template(value: str, required: set[str]) -> str:
    """A bank template without ``{user_id}`` would put every user in the same bank."""
    try:
        names = {name for _, name, _, _ in string.Formatter().parse(value) if name is not None}
    except ValueError as exc:
        raise ValueError(f"is not a valid template ({exc})") from None
    # ``{thread_id}`` (a bank per thread) and ``{env}`` (a deployment suffix, seed 000
    # section 17) are optional; they resolve to "" where the caller has none.
    unknown = names - {"user_id", "agent_id", "thread_id", "env"}
    if unknown:
        raise ValueError(
            f"uses unknown placeholders {sorted(unknown)}; use {{user_id}}, {{agent_id}}, "
            "{thread_id} or {env}"
        )
    missing = required - names
    if missing:
        needed = ", ".join(f"{{{name}}}" for name in sorted(required))
        raise ValueError(f"must contain {needed} so that banks stay separate")
    return value


class InjectionSection(_Section):
    """What the memory block added to the system prompt contains."""

    enabled: bool = Field(True, description="inject memory into the system prompt")
    max_tokens: int = Field(2000, ge=1, description="token budget of the injected block")
    include_builtin: bool = Field(True, description="include the local memory files")
    include_hindsight: bool = Field(True, description="include Hindsight recall")
    context_tag: str = Field(
        "memory-context",
        pattern=r"^[A-Za-z][A-Za-z0-9_-]*$",
        description="tag name that wraps recalled memory",
    )
    # The names of memvault.workspace.presets.PRESET_NAMES and views.SCOPES (a test
    # keeps them equal).
    preset: Literal["task", "daily", "blank"] = Field(
        "daily",
        description="the preset whose budget contract builds the injected block: task, "
        "daily or blank (nothing injected)",
    )
    scope: Literal["session", "workspace", "global"] = Field(
        "global",
        description="which memories recall injects: the session's, the workspace's or all",
    )


class BackgroundExtractionSection(_Section):
    """Learning from finished conversations in the agent integrations (seed 000 §9.1)."""

    enabled: bool = Field(
        False,
        description="hand every finished conversation to Vault.remember, which archives it "
        "and, with an LLM configured, extracts facts after a quiet period (how: the engine's "
        "extraction settings)",
    )


class SecuritySection(_Section):
    """Scans applied to memory content; admin-only so a user cannot turn them off."""

    scan_content: bool = Field(True, description="block injection and exfiltration patterns")
    block_invisible_unicode: bool = Field(True, description="block invisible Unicode characters")


class MemoryConfig(BaseModel):
    """The ``memory:`` section of config.yaml: every agent-memory setting, validated."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    enabled: bool = Field(True, description="master switch of the memory subsystem")
    # The seed offers 'builtin' | 'hindsight' and defaults to Hindsight, its only external
    # provider; memvault's own engine is one too ('vault'), and the default, since it needs
    # no service running beside it.
    provider: Literal["builtin", "vault", "hindsight"] = Field(
        "vault",
        description="external provider behind /api/memory/v2 search, reflect and bank "
        "clearing: 'vault' (memvault's engine), 'hindsight', or 'builtin' for none "
        "(the builtin files are always on)",
    )
    builtin: BuiltinSection = Field(default_factory=BuiltinSection)
    hindsight: HindsightSection = Field(default_factory=HindsightSection)
    injection: InjectionSection = Field(default_factory=InjectionSection)
    background_extraction: BackgroundExtractionSection = Field(
        default_factory=BackgroundExtractionSection
    )
    security: SecuritySection = Field(default_factory=SecuritySection)


def _leaf_fields(model: type[BaseModel], prefix: str = "") -> Iterator[str]:
    for name, info in model.model_fields.items():
        annotation = info.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            yield from _leaf_fields(annotation, f"{prefix}{name}.")
        else:
            yield f"{prefix}{name}"


LEAF_FIELDS: tuple[str, ...] = tuple(_leaf_fields(MemoryConfig))
"""Every setting in dotted form, in declaration order."""

_SECTIONS = frozenset(field.rsplit(".", 1)[0] for field in LEAF_FIELDS if "." in field)
_SECRET_FIELDS = frozenset({"hindsight.api_key"})


def _writable_adapter(dotted: str) -> TypeAdapter[Any]:
    section, name = dotted.split(".")
    section_model = MemoryConfig.model_fields[section].annotation
    assert isinstance(section_model, type) and issubclass(section_model, BaseModel)
    info = section_model.model_fields[name]
    # The field's type with its constraints, built at run time (so typed as Any).
    field_type: Any = Annotated[info.annotation, info]
    return TypeAdapter(field_type)


# Override values are checked strictly (no "3000" for an int, no 1 for a bool): they come
# from JSON, which has real types, and a PATCH that sends the wrong type should say so.
_WRITABLE_ADAPTERS = {dotted: _writable_adapter(dotted) for dotted in USER_WRITABLE_FIELDS}


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
                "value": _mask(values[field]) if field in _SECRET_FIELDS else values[field],
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
            if dotted in _SECTIONS:
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
            flat[field] = _WRITABLE_ADAPTERS[field].validate_python(value, strict=True)
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
        retired = _retired_reason(field) if isinstance(field, str) else None
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
            checked = _WRITABLE_ADAPTERS[name].validate_python(value, strict=True)
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
    "LEAF_FIELDS",
    "RETIRED_FIELDS",
    "SESSIONS_DIR",
    "USER_CONFIG_FILE",
    "USER_WRITABLE_FIELDS",
    "BuiltinSection",
    "EffectiveConfig",
    "FieldSource",
    "HindsightSection",
    "InjectionSection",
    "MemoryConfig",
    "MemoryConfigStore",
    "SecuritySection",
    "load_yaml_settings",
]

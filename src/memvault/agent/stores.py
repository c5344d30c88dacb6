"""One store per agent, when an agent's owner asks for it (seed 002, section 8.1).

Seed 002 lets the admin pick, for each agent, where its memory lives (MySQL or a local
SQLite file), whether memory is on at all, and how many memories the prefetch injects.
memvault keeps that choice in ``<home>/agents.json``: one record per agent that differs
from the defaults, written by ``memvault agents set`` or ``PUT /v1/agents/{agent_id}``
(admin only), read by every surface that serves an agent.

An agent without a record uses the default store (``VaultConfig.store``), with memory on
and a prefetch of 5. An agent whose record names a store is *an island*: every read and
write made as that agent goes to that store, which holds the agent's private memories
and whatever user-wide memories were written through it. The user-wide memories of the
default store are not mixed into its recall: scores from two stores with different
statistics cannot be compared fairly, and the seed isolates memory per (agent, user).
Requests that name no agent are served by the default store.

Writes take the file's lock, read it, change one record, and replace it atomically
(:mod:`memvault.atomic`), so two admins never lose each other's change; readers reload it
when its modification time changes, so a running server follows ``memvault agents set``
at its next request. Store URLs may hold a password: the file is private (0600) and
``AgentSettings.public()`` shows the URL without it.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic import ValidationError as PydanticValidationError

from ..atomic import PRIVATE_MODE, LockTimeout, file_lock, replace_file
from ..errors import ConfigError, NotFoundError, ValidationError
from ..lifecycle import MaintenanceReport
from ..results.stats import UserMemories
from ..stores.factory import check_location, shown_location, sqlite_file
from ..stores.values import page_of_users
from ..validation import check_ident, check_limit, check_offset, shown
from ..vault import Vault
from .netaclaw.settings import from_seed

AGENTS_FILE = "agents.json"
LOCK_TIMEOUT_SECONDS = 10.0
DEFAULT_PREFETCH_LIMIT = 5
FIELDS: tuple[str, ...] = ("enabled", "store", "prefetch_limit")


class AgentSettings(BaseModel):
    """One agent's memory settings; the defaults are what an agent without a record gets."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    enabled: bool = Field(True, description="memory on for this agent (prefetch, tools, archive)")
    store: str | None = Field(
        None,
        description="where the agent's memories live: a store URL or an absolute SQLite path; "
        "None is the default store",
    )
    prefetch_limit: int = Field(
        DEFAULT_PREFETCH_LIMIT, ge=1, le=100, description="memories injected before each call"
    )

    @field_validator("store")
    @classmethod
    def _store(cls, value: str | None) -> str | None:
        if value is None:
            return None
        try:
            location = check_location(value)
        except ConfigError as exc:
            raise ValueError(exc.message) from None
        if location == ":memory:" or location.lower().startswith("memory:"):
            raise ValueError("an agent's memories must outlive the process: name a file or a URL")
        if "://" not in location and not os.path.isabs(location):
            raise ValueError(f"{location!r} is a relative path: give an absolute SQLite path")
        return location

    def public(self) -> dict[str, Any]:
        """The settings as they may be shown: the store URL without its password."""
        return {
            "enabled": self.enabled,
            "store": None if self.store is None else shown_location(self.store),
            "prefetch_limit": self.prefetch_limit,
        }


DEFAULTS = AgentSettings()


def _problems(exc: PydanticValidationError) -> str:
    return "; ".join(
        f"{'.'.join(str(p) for p in err['loc']) or 'value'}: {err['msg']}" for err in exc.errors()
    )


class AgentRegistry:
    """The per-agent records of one data directory (``<home>/agents.json``)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._cache: tuple[int, dict[str, AgentSettings]] | None = None
        self._lock = threading.Lock()

    @classmethod
    def in_home(cls, home: Path) -> AgentRegistry:
        return cls(Path(home) / AGENTS_FILE)

    # -- reading ---------------------------------------------------------------------

    def _load(self) -> dict[str, AgentSettings]:
        try:
            stamp = self.path.stat().st_mtime_ns
        except FileNotFoundError:
            return {}
        with self._lock:
            if self._cache is not None and self._cache[0] == stamp:
                return self._cache[1]
            records = self._read()
            self._cache = (stamp, records)
            return records

    def _read(self) -> dict[str, AgentSettings]:
        try:
            document = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError, RecursionError) as exc:
            raise self._malformed(str(exc)) from None
        agents = document.get("agents") if isinstance(document, dict) else None
        if not isinstance(agents, dict):
            raise self._malformed('expected {"agents": {"<agent id>": {...}}}')
        records: dict[str, AgentSettings] = {}
        for agent_id, raw in agents.items():
            try:
                check_ident(agent_id, "agent id")
                if isinstance(raw, Mapping):  # a record may use NetaClaw's keys (seed 002)
                    raw = from_seed(raw, home=self.path.parent)
                records[agent_id] = AgentSettings.model_validate(raw)
            except ValidationError as exc:
                raise self._malformed(exc.message) from None
            except PydanticValidationError as exc:
                raise self._malformed(f"agent {agent_id}: {_problems(exc)}") from None
        return records

    def _malformed(self, why: str) -> ConfigError:
        return ConfigError(
            f"{self.path} is malformed ({why}); fix it by hand, restore it from a backup, or "
            "delete it (every agent then uses the default store)"
        )

    def get(self, agent_id: str | None) -> AgentSettings:
        """The agent's settings; the defaults for None or an agent without a record."""
        if agent_id is None:
            return DEFAULTS
        return self._load().get(check_ident(agent_id, "agent_id"), DEFAULTS)

    def has(self, agent_id: str) -> bool:
        return check_ident(agent_id, "agent_id") in self._load()

    def all(self) -> dict[str, AgentSettings]:
        """Every agent with a record, sorted by id."""
        return dict(sorted(self._load().items()))

    # -- writing ---------------------------------------------------------------------

    def preview(self, agent_id: str, **changes: Any) -> AgentSettings:
        """What ``set`` would store, without writing: ``ValidationError`` for an unknown
        field or a bad value."""
        agent_id = check_ident(agent_id, "agent_id")
        return _changed(self.get(agent_id), from_seed(changes, home=self.path.parent))

    def set(self, agent_id: str, **changes: Any) -> AgentSettings:
        """Change some of the agent's fields (the rest keep their value); returns the new
        settings. ``ValidationError`` (nothing written) for an unknown field or a bad value."""
        agent_id = check_ident(agent_id, "agent_id")
        with self._locked():
            records = self._read()
            updated = _changed(
                records.get(agent_id, DEFAULTS), from_seed(changes, home=self.path.parent)
            )
            records[agent_id] = updated
            self._write(records)
        return updated

    def remove(self, agent_id: str) -> None:
        """Forget the agent's record (it falls back to the defaults); the memories in its
        store are not touched. ``NotFoundError`` when it has none."""
        agent_id = check_ident(agent_id, "agent_id")
        with self._locked():
            records = self._read()
            if agent_id not in records:
                raise NotFoundError(
                    f"agent {agent_id} has no settings of its own (it uses the defaults)",
                    field="agent_id",
                )
            del records[agent_id]
            self._write(records)

    @contextmanager
    def _locked(self) -> Iterator[None]:
        try:
            with file_lock(self.path, timeout=LOCK_TIMEOUT_SECONDS):
                yield
        except LockTimeout:
            raise ConfigError(
                f"{self.path} is locked by another writer for over {LOCK_TIMEOUT_SECONDS:g} s; "
                f"retry, or remove {self.path.name}.lock if no memvault process is running"
            ) from None

    def _write(self, records: Mapping[str, AgentSettings]) -> None:
        document = {
            "agents": {k: v.model_dump() for k, v in sorted(records.items())},
        }
        replace_file(
            self.path, json.dumps(document, indent=2, ensure_ascii=False) + "\n", mode=PRIVATE_MODE
        )
        with self._lock:
            self._cache = None


def _changed(current: AgentSettings, changes: Mapping[str, Any]) -> AgentSettings:
    unknown = sorted(set(changes) - set(FIELDS))
    if unknown:
        raise ValidationError(
            f"unknown agent setting {shown(unknown[0])}: use {', '.join(FIELDS)}",
            field=unknown[0],
        )
    try:
        return AgentSettings.model_validate({**current.model_dump(), **changes})
    except PydanticValidationError as exc:
        err = exc.errors()[0]
        name = str(err["loc"][0]) if err["loc"] else "value"
        message = err["msg"].removeprefix("Value error, ")
        raise ValidationError(f"{name}: {message}", field=name) from None


def _identity(location: str | os.PathLike[str]) -> str:
    """One name per database: an SQLite file named as a path or as a ``sqlite:///`` URL
    is one file."""
    file = sqlite_file(location)
    return f"sqlite:{file.resolve()}" if file is not None else os.fspath(location)


def memory_off(agent_id: str) -> str:
    """What a tool or a client is told when an agent's memory is turned off."""
    return (
        f"long-term memory is off for agent {agent_id}: nothing was saved or recalled; carry "
        "on without it (an admin turns it on with memvault agents set)"
    )


@dataclass(frozen=True, slots=True)
class AgentMemory:
    """What one agent gets: its vault (the default one or its own) and its settings."""

    agent_id: str | None
    vault: Vault
    settings: AgentSettings

    @property
    def enabled(self) -> bool:
        return self.settings.enabled

    @property
    def prefetch_limit(self) -> int:
        return self.settings.prefetch_limit


class AgentVaults:
    """The default vault plus one vault per distinct store the registry names.

    Each further vault is opened on first use with the default vault's configuration
    (same home, secret key, retrieval settings) and its embedder object, so the model is
    loaded once; ``close`` closes those it opened, never the default one (that belongs to
    the caller). Two agents naming the same store share one vault. A store that cannot
    be opened raises the store's own error (``StoreUnavailableError`` while a server is
    down), and is tried again on the next call.
    """

    def __init__(self, default: Vault, registry: AgentRegistry | None = None) -> None:
        self.default = default
        self.registry = registry or AgentRegistry.in_home(default.config.home)
        self._default_key = _identity(default.config.store)
        self._opened: dict[str, Vault] = {}
        self._lock = threading.Lock()
        self._closed = False
        self._on_open: list[Callable[[Vault], object]] = []

    def on_open(self, callback: Callable[[Vault], object]) -> None:
        """Call ``callback`` with every vault these agents use: the default and each
        opened so far now, each opened later when it opens (to subscribe to it)."""
        with self._lock:
            self._on_open.append(callback)
            current = [self.default, *self._opened.values()]
        for vault in current:
            callback(vault)

    def settings(self, agent_id: str | None) -> AgentSettings:
        return self.registry.get(agent_id)

    def configure(self, agent_id: str, **changes: Any) -> AgentSettings:
        """Validate, then open a newly named store (creating its schema), then write the
        record: a store that cannot be opened raises its error and changes nothing."""
        updated = self.registry.preview(agent_id, **changes)
        if updated.store is not None:
            self._vault_of(updated.store)
        return self.registry.set(agent_id, **changes)

    def memory(self, agent_id: str | None) -> AgentMemory:
        settings = self.registry.get(agent_id)
        return AgentMemory(agent_id, self._vault_of(settings.store), settings)

    def vault_for(self, agent_id: str | None) -> Vault:
        """The vault that holds ``agent_id``'s memories (the default one for None)."""
        return self._vault_of(self.registry.get(agent_id).store)

    def _vault_of(self, store: str | None) -> Vault:
        if store is None:
            return self.default
        key = _identity(store)
        if key == self._default_key:
            return self.default
        with self._lock:
            if self._closed:
                raise ConfigError("these agent vaults are closed: open a new AgentVaults")
            vault = self._opened.get(key)
            if vault is None:
                config = self.default.config.model_copy(update={"store_url": store})
                vault = Vault(config=config, embedder=self.default.embedder)
                self._opened[key] = vault
                for callback in self._on_open:
                    callback(vault)
            return vault

    def vaults(self) -> Iterator[Vault]:
        """The default vault, then one per distinct store the registry names (opening
        them): for operations that must reach every store, such as erasing a user."""
        yield self.default
        seen = {self._default_key}
        for settings in self.registry.all().values():
            if settings.store is not None and _identity(settings.store) not in seen:
                seen.add(_identity(settings.store))
                yield self._vault_of(settings.store)

    def maintain(
        self,
        *,
        now: datetime | str | None = None,
        dry_run: bool = False,
        user_id: str | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> MaintenanceReport:
        """``Vault.maintain`` in every store, as one report (``users`` and ``scanned``
        summed over the stores; a user with memories in two stores counts twice).
        ``progress(done, total)`` is told after each store."""
        vaults = list(self.vaults())
        reports = []
        for done, vault in enumerate(vaults, start=1):
            reports.append(vault.maintain(now=now, dry_run=dry_run, user_id=user_id))
            if progress is not None:
                progress(done, len(vaults))
        first = reports[0]
        return MaintenanceReport(
            now=first.now,
            dry_run=first.dry_run,
            users=sum(r.users for r in reports),
            scanned=sum(r.scanned for r in reports),
            moves=tuple(m for r in reports for m in r.moves),
            compressions=tuple(c for r in reports for c in r.compressions),
        )

    def users(self, *, limit: int = 100, offset: int = 0) -> list[UserMemories]:
        """``vault.admin.users`` over every store: a user's count is summed over the stores
        holding their memories. Each store gives its first ``offset + limit`` users,
        which hold every user of the merged page (a user's place in one store is never
        after its place among all)."""
        limit, offset = check_limit(limit, maximum=1000), check_offset(offset)
        vaults = list(self.vaults())
        if len(vaults) == 1:
            return vaults[0].admin.users(limit=limit, offset=offset)
        counts = (
            (row.user_id, row.memories)
            for vault in vaults
            for row in vault.store.user_counts(limit=offset + limit, offset=0)
        )
        return page_of_users(counts, limit=limit, offset=offset)

    def user_total(self) -> int:
        """How many distinct users have memories in any of the stores."""
        return len({user for vault in self.vaults() for user in vault.store.user_ids()})

    def erase_user(self, *, user_id: str, actor: str = "owner") -> int:
        """``Vault.erase_user`` in every store; returns the entries deleted in all."""
        return sum(v.erase_user(user_id=user_id, actor=actor) for v in self.vaults())

    def close(self) -> None:
        with self._lock:
            opened, self._opened = list(self._opened.values()), {}
            self._closed = True
        for vault in opened:
            vault.close()

    def __enter__(self) -> AgentVaults:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def resolve_store(value: str) -> str:
    """A store as typed on the CLI: a relative SQLite path (or ``~``) is made absolute
    against the current directory, since the registry is read by processes started
    elsewhere; URLs are kept as written."""
    if "://" in value or value in ("", ":memory:"):
        return value
    return str(Path(value).expanduser().resolve())


__all__ = [
    "AGENTS_FILE",
    "DEFAULTS",
    "AgentMemory",
    "AgentRegistry",
    "AgentSettings",
    "AgentVaults",
    "resolve_store",
]

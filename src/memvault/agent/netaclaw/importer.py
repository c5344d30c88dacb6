"""``import_netaclaw``: the memories of a NetaClaw database moved into memvault (seed 002).

Each row becomes one entry of its user, private to its agent: ``type`` is the entry's
kind, ``name``, ``content``, ``description`` and ``metadata`` are kept, and so are the
creation and change times. The row's id is kept too, as the entry id's text (``42`` ->
``"42"``), so a ``memory_save`` call that names the memory by its NetaClaw number
(``{"action": "update", "id": 42}``) still reaches it. Where NetaClaw had an id space per
database and memvault has one per user, two databases can hold the same number for one
user (an agent on SQLite and another on MySQL): the second is then refused before
anything is written, and ``id_prefix`` imports it under ids of its own (``mysql-42``).
The origin (system, backend, row id and creation time) is kept in the entry's metadata as
``imported_from``; it is how a second run knows a row it imported before.

Why it works as it does:

* Rows are written through ``Vault.import_``: the write path every memory takes, so each
  is validated, its personal data redacted (originals sealed) and its text screened by
  the security scan (a row the scan flags is held for review, as in any import, and
  reported); nothing is read into a prompt unscreened.
* Rows go to the store of their agent (given ``AgentVaults``): an agent given a store of its
  own (``memvault agents set``) finds them there, as NetaClaw's per-agent backend did.
* Idempotent: a row whose entry is already there (same id, same origin) is left alone,
  so a second run writes nothing and says so; an id held by another memory is a clash
  and stops the run before its first write.
* Agent names and user ids that are not memvault identifiers (spaces, CJK) are refused
  with their list unless ``agent_ids`` / ``user_ids`` map them, so no entry lands under
  a name nobody chose.
* All or nothing per (store, user): each user's rows are one transaction; a run stopped
  in the middle is resumed by running it again.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ...errors import ConflictError, ValidationError
from ...model import Kind, Source
from ...stores.values import View
from ...validation import IDENT_RE, check_entry_id
from ...vault import Vault
from .rows import Backend, NetaclawRow

#: The metadata key that records where an imported entry came from.
ORIGIN_KEY = "imported_from"
SYSTEM = "netaclaw"
KINDS = frozenset(k.value for k in Kind)


class AgentRouting(Protocol):
    """Which vault holds an agent's memories: ``agent.stores.AgentVaults`` (named by its
    shape, as ``agent.stores`` reads this package's settings module)."""

    @property
    def default(self) -> Vault: ...

    def vault_for(self, agent_id: str | None) -> Vault: ...


@dataclass(frozen=True, slots=True)
class UserCount:
    """What the import did (or would do) for one user."""

    user_id: str
    imported: int = 0
    unchanged: int = 0
    held: int = 0
    agents: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "user_id": self.user_id,
            "imported": self.imported,
            "unchanged": self.unchanged,
            "held_for_review": self.held,
            "agents": list(self.agents),
        }


@dataclass(frozen=True, slots=True)
class NetaclawReport:
    """The import's counts: rows read, then per user what was (or would be) written."""

    backend: Backend
    rows: int
    dry_run: bool
    users: tuple[UserCount, ...] = field(default=())

    @property
    def imported(self) -> int:
        return sum(u.imported for u in self.users)

    @property
    def unchanged(self) -> int:
        return sum(u.unchanged for u in self.users)

    @property
    def held(self) -> int:
        return sum(u.held for u in self.users)

    def to_dict(self) -> dict[str, Any]:
        return {
            "backend": self.backend,
            "rows": self.rows,
            "dry_run": self.dry_run,
            "imported": self.imported,
            "unchanged": self.unchanged,
            "held_for_review": self.held,
            "users": [u.to_dict() for u in self.users],
        }

    def lines(self) -> list[str]:
        verb = "would import" if self.dry_run else "imported"
        out = [
            f"user {u.user_id}: {verb} {u.imported}, already there {u.unchanged}"
            + (f", held for review {u.held}" if u.held else "")
            + f" (agents: {', '.join(u.agents)})"
            for u in self.users
        ]
        held = f", {self.held} held for review (memvault review)" if self.held else ""
        out.append(
            f"NetaClaw {self.backend}: {self.rows} rows; {verb} {self.imported} memories, "
            f"{self.unchanged} already there{held}"
        )
        return out


def import_netaclaw(
    rows: Sequence[NetaclawRow],
    vaults: AgentRouting | Vault,
    *,
    backend: Backend,
    dry_run: bool = False,
    id_prefix: str = "",
    agent_ids: Mapping[str, str] | None = None,
    user_ids: Mapping[str, str] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> NetaclawReport:
    """Import NetaClaw ``rows`` (``rows.read_rows``) into ``vaults``; see the module doc.

    ``agent_ids`` / ``user_ids`` rename agents and users (NetaClaw name -> memvault id);
    ``dry_run`` checks everything and counts, writing nothing."""
    agents = None if isinstance(vaults, Vault) else vaults
    default = vaults if isinstance(vaults, Vault) else vaults.default
    prefix = _prefix(id_prefix)
    records = [_record(r, backend, prefix, agent_ids or {}, user_ids or {}) for r in rows]
    _check_names(records)
    # (vault, user) -> records, in row order; the vault is the agent's.
    groups: dict[tuple[int, str], tuple[Vault, list[dict[str, Any]]]] = {}
    for record in records:
        vault = agents.vault_for(record["agent_id"]) if agents is not None else default
        key = (id(vault), record["_user"])
        groups.setdefault(key, (vault, []))[1].append(record)
    # Every clash is found before the first write.
    fresh: dict[tuple[int, str], list[dict[str, Any]]] = {}
    for key, (vault, group) in groups.items():
        fresh[key] = _fresh(vault, key[1], group)
    counts: dict[str, UserCount] = {}
    done = 0
    for key, (vault, group) in groups.items():
        user = key[1]
        todo = fresh[key]
        held = 0
        if todo and not dry_run:
            written = vault.import_([_strip(r) for r in todo], user_id=user, on_conflict="error")
            held = sum(1 for e in written if e.quarantine is not None)
        before = counts.get(user, UserCount(user))
        names = sorted({*before.agents, *(str(r["agent_id"]) for r in group)})
        counts[user] = UserCount(
            user,
            imported=before.imported + len(todo),
            unchanged=before.unchanged + len(group) - len(todo),
            held=before.held + held,
            agents=tuple(names),
        )
        done += len(group)
        if progress is not None:
            progress(done, len(records))
    return NetaclawReport(
        backend=backend,
        rows=len(rows),
        dry_run=dry_run,
        users=tuple(counts[u] for u in sorted(counts)),
    )


def _prefix(value: str) -> str:
    if not isinstance(value, str):
        raise ValidationError("id_prefix must be text", field="id_prefix")
    if value:
        check_entry_id(value + "0")
    return value


def _record(
    row: NetaclawRow,
    backend: Backend,
    prefix: str,
    agent_ids: Mapping[str, str],
    user_ids: Mapping[str, str],
) -> dict[str, Any]:
    if row.type not in KINDS:
        raise ValidationError(
            f"row id {row.id} has type {row.type!r}: NetaClaw's types are "
            f"{', '.join(sorted(KINDS))}; fix the row first",
            field="type",
        )
    # The row's creation time tells it from the row of the same number in another
    # database (a moved file is still the same database).
    created = row.created_at.isoformat() if row.created_at is not None else None
    origin = {"system": SYSTEM, "backend": backend, "id": row.id, "created_at": created}
    record: dict[str, Any] = {
        "id": f"{prefix}{row.id}",
        "_user": user_ids.get(row.user_id, row.user_id),
        "_row": row.id,
        "agent_id": agent_ids.get(row.agent_name, row.agent_name),
        "kind": row.type,
        "name": row.name,
        "content": row.content,
        "description": row.description,
        "metadata": {**(row.metadata or {}), ORIGIN_KEY: origin},
        "source": Source.MIGRATION.value,
    }
    if created is not None:
        record["created_at"] = created
    if row.updated_at is not None:
        record["updated_at"] = row.updated_at.isoformat()
    return record


def _valid(name: str) -> bool:
    return bool(IDENT_RE.fullmatch(name)) and ".." not in name


def _check_names(records: Sequence[dict[str, Any]]) -> None:
    """Refuse (before any write) agent names and user ids memvault cannot use as ids."""
    agents = sorted({r["agent_id"] for r in records if not _valid(r["agent_id"])})
    users = sorted({r["_user"] for r in records if not _valid(r["_user"])})
    if agents or users:
        named = [f"agents {agents}"] if agents else []
        named += [f"users {users}"] if users else []
        raise ValidationError(
            f"{' and '.join(named)} are not memvault ids (letters, digits, '_', '.', '@' "
            "and '-'); nothing was imported",
            remedy="netaclaw.rename",
            field="agent_id" if agents else "user_id",
        )


def _fresh(vault: Vault, user: str, group: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records of ``group`` not imported yet; ``ConflictError`` for an id that another
    memory of the user holds."""
    owner = View(user, all_agents=True)
    todo = []
    for record in group:
        existing = vault.store.get(owner, record["id"])
        if existing is None:
            todo.append(record)
            continue
        if existing.metadata.get(ORIGIN_KEY) != record["metadata"][ORIGIN_KEY]:
            raise ConflictError(
                f"user {user} already has a memory with id {record['id']!r} that did not "
                f"come from this NetaClaw row ({record['_row']}), and nothing was imported",
                remedy="netaclaw.id_prefix",
            )
    return todo


def _strip(record: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if not k.startswith("_")}


__all__ = ["ORIGIN_KEY", "AgentRouting", "NetaclawReport", "UserCount", "import_netaclaw"]

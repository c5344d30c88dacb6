"""``migrate_v1``: DeerFlow memory V1 files (``memory.json``) moved to V2's places
(seed 000, section 13).

Where V1 kept everything in one JSON document per user (and per agent), V2 splits it by
who reads it. For one file the mapping (section 13.2) is:

* ``user.workContext`` / ``personalContext`` / ``topOfMind`` -> one USER.md entry each,
  labelled ``[Work context] …``, ``[Personal context] …``, ``[Top of mind] …``;
* ``history.*`` -> the external provider's user bank (labelled ``[Recent months] …``
  and so on), or the vault's shared user memory when there is no external provider or
  ``skip_external`` is set;
* ``facts[]`` of the user's categories (preference, personal_info, identity) -> USER.md
  and the vault's shared user memory (and the external user bank);
* ``facts[]`` of the work categories (knowledge, context, behavior, goal) -> the agent's
  MEMORY.md and the vault as that agent's private memory (and its external work bank).
  The user-level file belongs to agent ``default`` (the seed's ``agent=default``); a
  file under ``agents/{agent_id}/`` to that agent.

Why it looks as it does:

* The files are written through ``BuiltinFileProvider``, so a migrated entry gets the
  locking, dedupe, character limit, PII redaction and security scan of any other write.
  Entries go in the order above, facts by confidence (highest first), so what fits is
  what matters most; what does not fit, or is refused by the scan, is reported per file
  and written to the vault instead, so nothing is lost.
* Vault entries get ids derived from the file, the V1 field and the text, and are
  imported with ``on_conflict="skip"``: a second run finds them and writes nothing. The
  import is all or nothing and validates every record first, and it runs before the
  files are touched, so a file the vault refuses leaves everything as it was.
* A file is read and checked whole before its first write; a broken one is reported
  with its path and what is wrong, and the next file still migrates.
* The original becomes ``memory.json.bak`` only once every write of the file succeeded,
  and an existing ``.bak`` is never overwritten (the original then stays in place).

The external-memory protocol (``agent.external``) has no write operation, so an external
provider that can take the history implements ``RetainingMemory`` as well. memvault's own
engine (``VaultExternalMemory``) is the vault itself: its banks are the vault's scopes,
so its writes are the vault writes above, made once.

Why one file of about 740 lines: the migration is one procedure read top to bottom
(find, read, plan, write the files, import, back up), and its steps share the per-file
plan and context; its results are apart in ``report``.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

from ...errors import (
    CharLimitError,
    MemvaultError,
    NotFoundError,
    SecurityError,
    UpstreamError,
    ValidationError,
)
from ...model import Kind, Source
from ...results.profile import (
    HISTORY_SECTIONS,
    USER_CATEGORIES,
    USER_SECTIONS,
    Fact,
    Profile,
    parse_profile,
)
from ...security.pii import redact
from ...security.scan import scan
from ...validation import check_ident
from ...vault import Vault
from ..config.layers import MemoryConfigStore
from ..external.protocol import Bank, BankNaming, ExternalMemory, NoExternalMemory
from ..external.vault import VaultExternalMemory
from ..files import MEMORY_CHAR_LIMIT, USER_CHAR_LIMIT, Edit, check_entry, joined_length
from ..provider import WriteTarget
from ..providers.builtin import BuiltinFileProvider, redact_edit
from ..stores import AgentVaults
from .report import (
    Action,
    FileReport,
    MigrationReport,
    Outcome,
    Overflow,
    Target,
)

V1_FILE_NAME = "memory.json"
BACKUP_NAME = "memory.json.bak"
#: The agent whose notes the user-level file's work facts become (seed 000 §13.2).
DEFAULT_AGENT = "default"

SECTION_LABELS: dict[str, str] = {
    "workContext": "Work context",
    "personalContext": "Personal context",
    "topOfMind": "Top of mind",
    "recentMonths": "Recent months",
    "earlierContext": "Earlier context",
    "longTermBackground": "Long-term background",
}
# Keys V1 wrote that the profile document has no field for: accepted, kept in metadata.
_V1_TOP_KEYS = ("lastUpdated",)
_V1_FACT_KEYS = ("source",)

ExternalMode = Literal["vault", "retain", "none", "skipped"]


@runtime_checkable
class RetainingMemory(Protocol):
    """An external memory that can also store a text in a bank (Hindsight's *retain*).

    ``key`` is stable across runs of the migration: a provider that upserts by it keeps a
    second run from adding a copy. Returns False when ``key`` was already there.
    """

    def retain(self, text: str, *, bank: Bank, key: str, metadata: Mapping[str, Any]) -> bool: ...


@dataclass(frozen=True, slots=True)
class V1File:
    """One ``memory.json`` and whose it is (``agent_id`` None: the user-level file)."""

    path: Path
    user_id: str
    agent_id: str | None = None

    @property
    def notes_agent(self) -> str:
        """The agent whose MEMORY.md and private memory get this file's work facts."""
        return self.agent_id or DEFAULT_AGENT

    @property
    def backup(self) -> Path:
        return self.path.with_name(BACKUP_NAME)


# -- finding and reading V1 files -----------------------------------------------------------


def find_v1_files(home: Path, *, user_id: str | None = None) -> list[V1File]:
    """The V1 files under ``<home>/users``: every user's, or ``user_id``'s (its user-level
    file and its agents' files). ``NotFoundError`` when ``user_id`` has none."""
    users = Path(home) / "users"
    if user_id is not None:
        user = check_ident(user_id, "user_id")
        found = _user_files(users / user, user)
        if not found:
            path = users / user / V1_FILE_NAME
            done = (users / user / BACKUP_NAME).exists()
            raise NotFoundError(
                f"no V1 memory file for user {user!r}: {path} does not exist"
                + (f" ({BACKUP_NAME} is there: it was migrated already)" if done else ""),
                user_id=user,
                path=str(path),
            )
        return found
    if not users.is_dir():
        return []
    found = []
    for user_dir in sorted(p for p in users.iterdir() if p.is_dir()):
        found.extend(_user_files(user_dir, user_dir.name))
    return found


def _user_files(user_dir: Path, user_id: str) -> list[V1File]:
    found = []
    if (user_dir / V1_FILE_NAME).is_file():
        found.append(V1File(user_dir / V1_FILE_NAME, user_id))
    agents = user_dir / "agents"
    if agents.is_dir():
        for agent_dir in sorted(p for p in agents.iterdir() if p.is_dir()):
            if (agent_dir / V1_FILE_NAME).is_file():
                found.append(V1File(agent_dir / V1_FILE_NAME, user_id, agent_dir.name))
    return found


def read_v1(path: Path) -> tuple[Profile, dict[str, Any]]:
    """The profile in a V1 file and the V1-only values (``lastUpdated``, each fact's
    ``source``), or ``ValidationError`` naming the file and what is wrong."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise _bad(path, "it is not UTF-8 text") from None
    except OSError as exc:
        raise _bad(path, f"it cannot be read ({exc.strerror})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _bad(
            path, f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from None
    if not isinstance(data, dict):
        raise _bad(path, f"the top level is a JSON {type(data).__name__}, not an object")
    extras: dict[str, Any] = {key: data.pop(key) for key in _V1_TOP_KEYS if key in data}
    facts = data.get("facts")
    if isinstance(facts, list):
        sources: dict[int, Any] = {}
        for index, fact in enumerate(facts):
            if isinstance(fact, dict):
                fact = dict(fact)
                for key in _V1_FACT_KEYS:
                    if key in fact:
                        sources[index] = fact.pop(key)
                facts[index] = fact
        extras["fact_sources"] = sources
    try:
        profile = parse_profile(data, origin=str(path))
    except ValidationError as exc:
        why = exc.message.removeprefix(f"{path} is not a valid profile document: ")
        raise _bad(path, why) from None
    seen: set[str] = set()
    for fact in profile.facts:
        if fact.id in seen:
            raise _bad(path, f"facts: the id {fact.id!r} is used twice")
        seen.add(fact.id)
    return profile, extras


def _bad(path: Path, why: str) -> ValidationError:
    return ValidationError(
        f"{path} is not a V1 memory file: {why}; fix or move it and run again "
        "(nothing was written for it)",
        field="path",
        path=str(path),
    )


# -- planning -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Item:
    """One V1 value and where it goes."""

    source: str
    text: str
    file: WriteTarget | None  # USER.md ("user"), MEMORY.md ("memory") or no file
    agent_id: str | None  # the vault scope: None shared, else that agent's
    to_vault: bool  # always (facts) — else only when the file cannot take it
    to_external: bool  # the external bank of ``agent_id``'s scope
    record: dict[str, Any]


def _entry_id(v1: V1File, source: str, text: str) -> str:
    seed = "\x1f".join(("memvault-v1", v1.user_id, v1.agent_id or "", source, text))
    return "v1" + hashlib.sha256(seed.encode("utf-8")).hexdigest()[:30]


def _record(
    v1: V1File, home: Path, source: str, text: str, agent_id: str | None, **fields: Any
) -> dict[str, Any]:
    metadata = {"v1_file": _shown(v1.path, home), "v1_field": source, **fields.pop("metadata")}
    record = {
        "id": _entry_id(v1, source, text),
        "content": text,
        "agent_id": agent_id,
        "source": Source.MIGRATION.value,
        "metadata": metadata,
        **fields,
    }
    return {k: v for k, v in record.items() if v is not None}


def _shown(path: Path, home: Path) -> str:
    try:
        return str(path.relative_to(home))
    except ValueError:
        return str(path)


def _plan_items(profile: Profile, extras: Mapping[str, Any], v1: V1File, home: Path) -> list[_Item]:
    """Every value of ``profile`` as an item, in writing order; ``ValidationError`` when a
    text cannot be a file entry (checked here, before anything is written)."""
    items: list[_Item] = []
    for name in USER_SECTIONS:
        section = profile.section(name)
        if not section.summary.strip():
            continue
        text = check_entry(f"[{SECTION_LABELS[name]}] {section.summary.strip()}", f"user.{name}")
        record = _record(
            v1,
            home,
            f"user.{name}",
            text,
            None,
            kind=Kind.USER.value,
            created_at=_iso(section.updated_at),
            metadata={"v1_section": name},
        )
        items.append(
            _Item(
                source=f"user.{name}",
                text=text,
                file="user",
                agent_id=None,
                to_vault=False,
                to_external=False,
                record=record,
            )
        )
    for name in HISTORY_SECTIONS:
        section = profile.section(name)
        if not section.summary.strip():
            continue
        text = check_entry(f"[{SECTION_LABELS[name]}] {section.summary.strip()}", f"history.{name}")
        record = _record(
            v1,
            home,
            f"history.{name}",
            text,
            None,
            kind=Kind.USER.value,
            created_at=_iso(section.updated_at),
            metadata={"v1_section": name},
        )
        items.append(
            _Item(
                source=f"history.{name}",
                text=text,
                file=None,
                agent_id=None,
                to_vault=False,
                to_external=True,
                record=record,
            )
        )
    sources = extras.get("fact_sources", {})
    indexed = sorted(enumerate(profile.facts), key=lambda pair: -pair[1].confidence)
    for index, fact in indexed:
        items.append(_fact_item(v1, home, index, fact, sources.get(index)))
    return items


def _fact_item(v1: V1File, home: Path, index: int, fact: Fact, origin: Any) -> _Item:
    source = f"facts[{fact.id}]"
    text = check_entry(fact.content, f"facts[{index}].content")
    shared = fact.category in USER_CATEGORIES
    agent_id = None if shared else v1.notes_agent
    metadata: dict[str, Any] = {"v1_id": fact.id, "v1_category": fact.category}
    if origin is not None:
        metadata["v1_source"] = origin
    record = _record(
        v1,
        home,
        source,
        text,
        agent_id,
        kind=(Kind.USER if shared else Kind.PROJECT).value,
        category=fact.category,
        confidence=fact.confidence,
        importance=fact.confidence,
        created_at=_iso(fact.created_at),
        metadata=metadata,
    )
    return _Item(
        source=source,
        text=text,
        file="user" if shared else "memory",
        agent_id=agent_id,
        to_vault=True,
        to_external=True,
        record=record,
    )


def _iso(value: Any) -> str | None:
    return None if value is None else value.isoformat()


# -- running ------------------------------------------------------------------------------


@dataclass(slots=True)
class _Context:
    home: Path
    vaults: AgentVaults | None
    external: ExternalMemory | None
    mode: ExternalMode
    naming: BankNaming
    config_store: MemoryConfigStore | None
    dry_run: bool
    # A dry run writes nothing, so what earlier files of the run would have added to a
    # memory file is kept here for the files after them (a user's file, then its agents').
    simulated: dict[Path, list[str]] = field(default_factory=dict)


def migrate_v1(
    home: str | Path,
    *,
    vaults: Vault | AgentVaults | None,
    user_id: str | None = None,
    external: ExternalMemory | None = None,
    skip_external: bool = False,
    dry_run: bool = False,
    config_store: MemoryConfigStore | None = None,
    bank_naming: BankNaming | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> MigrationReport:
    """Migrate the V1 files under ``<home>/users`` (``user_id``'s only, or everyone's).

    ``vaults`` is where the vault writes go (an agent with its own store gets its private
    memories there); None is accepted for a dry run only (then no duplicate check in
    the vault). ``external`` is the configured external memory (None or
    ``NoExternalMemory``: none); ``skip_external`` writes nothing to it and sends the
    history to the vault. ``config_store`` gives each user's character limits (the
    defaults otherwise). ``progress(done, total)`` is called after each file.

    A file that fails is reported in its ``FileReport.error`` and the others still run;
    ``MigrationReport.ok`` tells whether all went through.
    """
    if not isinstance(home, str | Path) or not str(home):
        raise ValidationError("home must be a directory path", field="home")
    for name, flag in (("dry_run", dry_run), ("skip_external", skip_external)):
        if not isinstance(flag, bool):
            raise ValidationError(f"{name} must be true or false", field=name)
    if vaults is not None and not isinstance(vaults, Vault | AgentVaults):
        raise ValidationError("vaults must be a Vault or AgentVaults", field="vaults")
    root = Path(home)
    if vaults is None and not dry_run:
        raise ValidationError("a vault is needed to migrate (only a dry run may go without)")
    every = AgentVaults(vaults) if isinstance(vaults, Vault) else vaults
    context = _Context(
        home=root,
        vaults=every,
        external=external,
        mode=_external_mode(external, skip_external),
        naming=bank_naming or BankNaming(),
        config_store=config_store,
        dry_run=dry_run,
    )
    files = find_v1_files(root, user_id=user_id)
    reports = []
    try:
        for done, v1 in enumerate(files, start=1):
            reports.append(_migrate_file(v1, context))
            if progress is not None:
                progress(done, len(files))
    finally:
        if every is not None and every is not vaults:  # opened here: close what it opened
            every.close()
    return MigrationReport(tuple(reports), dry_run)


def _external_mode(external: ExternalMemory | None, skip: bool) -> ExternalMode:
    if skip:
        return "skipped"
    if external is None or isinstance(external, NoExternalMemory):
        return "none"
    if isinstance(external, VaultExternalMemory):
        return "vault"
    if isinstance(external, RetainingMemory):
        return "retain"
    raise MemvaultError(
        f"the external memory {external.name!r} cannot be written to by the migration; "
        "run it with --skip-external (the history then goes to the vault)"
    )


def _migrate_file(v1: V1File, context: _Context) -> FileReport:
    """One file: read and plan it whole, then vault, files, external, and the rename."""
    report = FileReport(v1.path, v1.user_id, v1.agent_id)
    try:
        profile, extras = read_v1(v1.path)
        items = _plan_items(profile, extras, v1, context.home)
        provider = _provider(v1, context)
        _run(v1, items, provider, context, report, profile)
    except MemvaultError as exc:
        report.error = exc.message
        # Only the planned actions of a file that failed before writing are dropped;
        # what was written stays listed, so the report says what happened.
        report.actions = [a for a in report.actions if a.outcome != "planned"]
    return report


def _provider(v1: V1File, context: _Context) -> BuiltinFileProvider:
    user_limit, memory_limit = USER_CHAR_LIMIT, MEMORY_CHAR_LIMIT
    if context.config_store is not None:
        builtin = context.config_store.get_effective_memory_config(v1.user_id).config.builtin
        user_limit, memory_limit = builtin.user_char_limit, builtin.memory_char_limit
    provider = BuiltinFileProvider(user_char_limit=user_limit, memory_char_limit=memory_limit)
    provider.initialize(user_id=v1.user_id, agent_id=v1.notes_agent, base_dir=str(context.home))
    return provider


def _file_plan(
    provider: BuiltinFileProvider, items: Sequence[_Item], context: _Context
) -> dict[int, Outcome]:
    """What each file item would do against the files as they are now (in a dry run: as
    the run's earlier files would have left them): the same redaction, scan, dedupe and
    limit the provider applies, simulated in order."""
    entries: dict[WriteTarget, list[str]] = {}
    for target, path in provider.paths.items():
        if context.dry_run:
            entries[target] = context.simulated.setdefault(path, provider.entries(target))
        else:
            entries[target] = provider.entries(target)
    limits = {t: provider.usage_of(t).limit for t in entries}
    outcome: dict[int, Outcome] = {}
    for index, item in enumerate(items):
        if item.file is None:
            continue
        text = redact_edit(Edit.add(item.text)).content
        current = entries[item.file]
        if scan(text) is not None:
            outcome[index] = "blocked"
        elif text in current:
            outcome[index] = "duplicate"
        elif joined_length([*current, text]) > limits[item.file]:
            outcome[index] = "did_not_fit"
        else:
            current.append(text)
            outcome[index] = "planned"
    return outcome


def _run(
    v1: V1File,
    items: Sequence[_Item],
    provider: BuiltinFileProvider,
    context: _Context,
    report: FileReport,
    profile: Profile,
) -> None:
    paths = provider.paths
    planned = _file_plan(provider, items, context)
    external_takes = context.mode == "retain"

    def vault_bound(index: int, item: _Item, file_outcome: Outcome | None) -> bool:
        if item.to_vault:
            return True
        if item.file is None:  # the history: the vault when no external takes it
            return not external_takes
        return file_outcome in ("did_not_fit", "blocked")

    vault_items = [item for i, item in enumerate(items) if vault_bound(i, item, planned.get(i))]
    existing = _existing(vault_items, v1, context)

    if context.dry_run:
        for index, item in enumerate(items):
            if index in planned:
                report.actions.append(_file_action(item, paths, planned[index], context.home))
        for item in vault_items:
            seen: Outcome = "duplicate" if item.record["id"] in existing else "planned"
            report.actions.append(_vault_action(item, v1, context, seen))
        for item in _external_items(items, context):
            report.actions.append(_external_action(item, v1, context, "planned"))
        _save_profile(v1, profile, items, context, report)
        _check_backup(v1, report, dry_run=True)
        return

    # 1. The vault: validated whole, then written in one transaction per store.
    _import(vault_items, v1, context, existing, report)
    # 2. The files, entry by entry under their locks; a late refusal goes to the vault.
    late: list[_Item] = []
    for index, item in enumerate(items):
        if index not in planned or item.file is None:
            continue
        try:
            result = provider.edit(item.file, [Edit.add(item.text)])
        except CharLimitError:
            outcome: Outcome = "did_not_fit"
        except SecurityError:
            outcome = "blocked"
        else:
            outcome = "written" if result.changed else "duplicate"
        if outcome in ("did_not_fit", "blocked") and item not in vault_items:
            late.append(item)
        report.actions.append(_file_action(item, paths, outcome, context.home))
    if late:
        _import(late, v1, context, _existing(late, v1, context), report)
    # 2b. The V1 document itself, as the user's profile (what extraction keeps updating).
    _save_profile(v1, profile, items, context, report)
    # 3. The external memory (when it is not the vault itself).
    if context.mode == "retain":
        assert isinstance(context.external, RetainingMemory)
        for item in _external_items(items, context):
            bank = _bank(item, v1, context)
            try:
                stored = context.external.retain(
                    item.text, bank=bank, key=item.record["id"], metadata=item.record["metadata"]
                )
            except MemvaultError:
                raise
            except Exception as exc:  # a third-party client's own error: this file failed
                raise UpstreamError(
                    f"{context.external.name} refused {item.source} for bank {bank.id}: {exc}; "
                    "run again once it answers (what is written is found, not doubled)"
                ) from exc
            report.actions.append(
                _external_action(item, v1, context, "written" if stored else "duplicate")
            )
    # 4. Done with this file: keep the original as the backup.
    _check_backup(v1, report, dry_run=False)


def _save_profile(
    v1: V1File, document: Profile, items: Sequence[_Item], context: _Context, report: FileReport
) -> None:
    """Merge the V1 document into the stored profile of its user and agent: sections the
    profile leaves empty, facts it does not hold yet (by id, linked to their migrated
    vault entries). A profile that already holds it all is left alone (run twice: no
    change)."""
    vault = context.vaults.vault_for(v1.agent_id) if context.vaults is not None else None
    entry_of = {
        item.record["metadata"]["v1_id"]: item.record["id"]
        for item in items
        if item.to_vault and "v1_id" in item.record["metadata"]
    }
    where = f"profile ({v1.user_id}, {'own' if v1.agent_id is None else 'agent ' + v1.agent_id})"

    def merge(stored: Profile) -> tuple[Profile, int]:
        # Text the scan flags stays out of the profile, which models read: a flagged
        # fact went to the vault to be held for review, and the profile door would
        # refuse the whole document for it. What is kept, that door redacts.
        added = 0
        for name in USER_SECTIONS + HISTORY_SECTIONS:
            mine, theirs = stored.section(name), document.section(name)
            if not mine.summary and theirs.summary and scan(theirs.summary) is None:
                mine.summary, mine.updated_at = theirs.summary, theirs.updated_at
                added += 1
        known = {f.id for f in stored.facts}
        for fact in document.facts:
            if fact.id not in known and scan(fact.content) is None:
                stored.facts.append(fact.model_copy(update={"entry_id": entry_of.get(fact.id)}))
                added += 1
        return stored, added

    if vault is None:
        count = merge(Profile())[1]
        outcome: Outcome = "planned"
    else:
        current = vault.profile(user_id=v1.user_id, agent_id=v1.agent_id)
        merged, count = merge(current)
        if count and not context.dry_run:
            vault.save_profile(merged, user_id=v1.user_id, agent_id=v1.agent_id)
        outcome = "planned" if context.dry_run else ("written" if count else "duplicate")
    if count or outcome == "duplicate":
        detail = f"{count} sections and facts" if count else "already there"
        report.actions.append(
            Action("document", "profile", where, "the V1 document", outcome, detail)
        )


def _external_items(items: Iterable[_Item], context: _Context) -> list[_Item]:
    if context.mode != "retain":
        return []
    return [item for item in items if item.to_external]


def _bank(item: _Item, v1: V1File, context: _Context) -> Bank:
    if item.agent_id is None:
        return context.naming.user_bank(v1.user_id)
    return context.naming.work_bank(v1.user_id, item.agent_id)


def _vault_of(context: _Context, agent_id: str | None) -> Vault | None:
    return None if context.vaults is None else context.vaults.vault_for(agent_id)


def _existing(items: Sequence[_Item], v1: V1File, context: _Context) -> set[str]:
    """The ids of ``items`` the vault already holds (a run before this one wrote them)."""
    found = set()
    for item in items:
        vault = _vault_of(context, item.agent_id)
        if vault is None:
            continue
        try:
            vault.get(item.record["id"], user_id=v1.user_id, agent_id=item.agent_id)
        except NotFoundError:
            continue
        found.add(item.record["id"])
    return found


def _import(
    items: Sequence[_Item], v1: V1File, context: _Context, existing: set[str], report: FileReport
) -> None:
    groups: dict[int, tuple[Vault, list[_Item]]] = {}
    for item in items:
        vault = _vault_of(context, item.agent_id)
        assert vault is not None  # checked by migrate_v1: only a dry run has no vault
        groups.setdefault(id(vault), (vault, []))[1].append(item)
    for vault, group in groups.values():
        fresh = [item.record for item in group if item.record["id"] not in existing]
        if fresh:
            vault.import_(fresh, user_id=v1.user_id, on_conflict="skip")
        for item in group:
            outcome: Outcome = "duplicate" if item.record["id"] in existing else "written"
            report.actions.append(_vault_action(item, v1, context, outcome))


def _file_action(
    item: _Item, paths: Mapping[WriteTarget, Path], outcome: Outcome, home: Path
) -> Action:
    assert item.file is not None
    target: Target = "USER.md" if item.file == "user" else "MEMORY.md"
    detail = ""
    if outcome == "did_not_fit":
        detail = "over the file's character limit: kept in the vault"
    elif outcome == "blocked":
        detail = "refused by the security scan: kept in the vault, which screens it too"
    where = _shown(paths[item.file], home)
    return Action(item.source, target, where, _redacted(item.text), outcome, detail)


def _vault_action(item: _Item, v1: V1File, context: _Context, outcome: Outcome) -> Action:
    scope = "shared" if item.agent_id is None else f"agent {item.agent_id}"
    where = f"vault ({v1.user_id}, {scope})"
    detail = ""
    if context.mode == "vault" and item.to_external:
        detail = f"= external bank {_bank(item, v1, context).id}"
    return Action(item.source, "vault", where, _redacted(item.text), outcome, detail)


def _external_action(item: _Item, v1: V1File, context: _Context, outcome: Outcome) -> Action:
    name = context.external.name if context.external is not None else "external"
    where = f"{name} bank {_bank(item, v1, context).id}"
    return Action(item.source, "external", where, _redacted(item.text), outcome)


def _redacted(text: str) -> str:
    """The text as a report may print it: personal data and secrets as placeholders, as
    the files and the vault's clear text hold them."""
    return redact(text).text


def _check_backup(v1: V1File, report: FileReport, *, dry_run: bool) -> None:
    """Rename the original to ``memory.json.bak`` unless one is there already."""
    backup = v1.backup
    if backup.exists():
        report.notes.append(
            f"{backup.name} exists already: {v1.path.name} is left in place, "
            "the old backup is not overwritten"
        )
        return
    if dry_run:
        report.notes.append(f"{v1.path.name} would be renamed {backup.name}")
        return
    try:
        os.link(v1.path, backup)  # fails if the backup appeared meanwhile: never clobbers
        os.unlink(v1.path)
    except FileExistsError:
        report.notes.append(f"{backup.name} appeared meanwhile: {v1.path.name} is left in place")
        return
    except OSError as exc:
        raise MemvaultError(
            f"everything was migrated, but {v1.path} could not be renamed {backup.name} "
            f"({exc.strerror}): rename it by hand",
            path=str(v1.path),
        ) from None
    report.backup = backup


__all__ = [
    "BACKUP_NAME",
    "DEFAULT_AGENT",
    "SECTION_LABELS",
    "V1_FILE_NAME",
    "Action",
    "FileReport",
    "MigrationReport",
    "Overflow",
    "RetainingMemory",
    "V1File",
    "find_v1_files",
    "migrate_v1",
    "read_v1",
]

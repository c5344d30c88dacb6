"""Memories in and out: ``export`` / ``import`` (JSON lines) and the copies between
stores and formats, ``migrate-store`` and ``migrate-v1``."""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import typer

from ..atomic import replacing
from ..errors import ValidationError
from ..validation import check_ident
from .shared import Agent, AsJson, User, _counted, _echo_json, _progress, _state, read_stdin


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
            kind = str(record.get("record", "memory"))
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
        lines = read_stdin("the JSON lines").splitlines()
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

    from ..embed.factory import make_embedder
    from ..engine.migrate import migrate_store as copy_vault
    from ..stores import open_store, sqlite_file

    if source.strip() == target.strip():
        raise ValidationError("--from and --to name the same store: name two stores")
    path = sqlite_file(source)
    if path is not None and not path.is_file():  # opening it would create an empty one
        raise ValidationError(f"--from: there is no SQLite file {path}: check the path")
    config = _state(ctx).config()
    embedder = None if keep_vectors else make_embedder(config.embedding)
    text_of = None
    if embedder is not None:
        from ..engine.derived import embed_text

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
            "--skip-hindsight",  # seed 000 §13.3's name
            help="write nothing to the external provider (the history goes to the vault)",
        ),
    ] = False,
    as_json: AsJson = False,
) -> None:
    """Move DeerFlow memory V1 files (<home>/users/U/memory.json) into USER.md, MEMORY.md,
    the vault and the external provider; each original is kept as memory.json.bak."""
    from rich.console import Console

    from ..agent.config import MemoryConfigStore
    from ..agent.external.factory import make_external_memory
    from ..agent.migrate_v1 import find_v1_files
    from ..agent.migrate_v1 import migrate_v1 as run_migration
    from ..agent.stores import AgentVaults
    from ..vault import Vault

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

"""``memvault import-from``: the memory of another system moved in, one command per system.

``import-from netaclaw`` reads a NetaClaw memory database (SQLite or MySQL, seed 002).
``memvault import`` takes memvault's own JSONL exports and ``migrate-v1`` DeerFlow's V1
files; this group is for databases memvault does not write itself."""

from __future__ import annotations

from typing import Annotated

import typer

from ..errors import ValidationError
from .shared import AsJson, _echo_json, _progress, _state

import_from_app = typer.Typer(
    help="Move another memory system's data in: netaclaw (its SQLite or MySQL database)."
)

Renames = Annotated[
    list[str] | None,
    typer.Option(
        "--agent-id",
        help="NAME=ID: import NetaClaw agent NAME as memvault agent ID (repeat for each)",
    ),
]
UserRenames = Annotated[
    list[str] | None,
    typer.Option(
        "--user-id", help="NAME=ID: import NetaClaw user NAME as memvault user ID (repeatable)"
    ),
]


def _pairs(values: list[str] | None, flag: str) -> dict[str, str]:
    pairs: dict[str, str] = {}
    for value in values or []:
        name, sep, ident = value.partition("=")
        if not sep or not name or not ident:
            raise ValidationError(f"{flag} {value!r}: write NAME=ID")
        pairs[name] = ident
    return pairs


@import_from_app.command("netaclaw")
def import_netaclaw(
    ctx: typer.Context,
    source: Annotated[
        str,
        typer.Argument(
            help="NetaClaw's SQLite file (memory.db) or its MySQL database as "
            "mysql://user:password@host/database"
        ),
    ],
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="check and count everything, write nothing")
    ] = False,
    id_prefix: Annotated[
        str,
        typer.Option(
            "--id-prefix",
            help="keep each row's number after this text (for a second NetaClaw database)",
        ),
    ] = "",
    agent_id: Renames = None,
    user_id: UserRenames = None,
    as_json: AsJson = False,
) -> None:
    """Import NetaClaw's memories (the SQLite `memory` table or MySQL `netaclaw_memory`):
    each row becomes its user's memory, private to its agent, with its id, type, times and
    metadata; a second run writes nothing new."""
    from contextlib import ExitStack

    from rich.console import Console

    from ..agent.netaclaw.importer import import_netaclaw as run_import
    from ..agent.netaclaw.rows import read_rows
    from ..agent.stores import AgentVaults

    agents, users = _pairs(agent_id, "--agent-id"), _pairs(user_id, "--user-id")
    backend, rows = read_rows(source)
    with ExitStack() as stack, _progress(Console(stderr=True)) as bar:
        # As `memvault import`: the vectors are made now (a dry run needs none).
        vault = stack.enter_context(_state(ctx).vault(model="no" if dry_run else "yes"))
        vaults = stack.enter_context(AgentVaults(vault))
        task = bar.add_task("importing", total=len(rows))
        report = run_import(
            rows,
            vaults,
            backend=backend,
            dry_run=dry_run,
            id_prefix=id_prefix,
            agent_ids=agents,
            user_ids=users,
            progress=lambda n, total: bar.update(task, completed=n, total=total),
        )
    if as_json:
        _echo_json(report.to_dict())
    else:
        for line in report.lines():
            typer.echo(line)

"""``memvault quarantine``: the memories the threat scan held back, for review."""

from __future__ import annotations

from typing import Annotated

import typer

from .shared import AsJson, User, _echo_json, _line, _state

quarantine_app = typer.Typer(help="Review memories the threat scan held back from prompts.")


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

"""A memory's past: decisions moved along their lifecycle (``decide``,
``decision-history``) and versions of a fact (``history``, ``undo``)."""

from __future__ import annotations

from typing import Annotated

import typer

from .shared import Agent, AsJson, User, _echo_json, _line, _state


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

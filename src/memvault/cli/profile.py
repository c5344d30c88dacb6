"""The V1 structured profile: ``remember`` hands over a conversation, ``profile``
shows what was learnt."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from ..errors import ValidationError
from .shared import Agent, AsJson, User, _echo_json, _state, read_stdin


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
        text = (
            read_stdin("the messages")
            if source == "-"
            else Path(source).read_text(encoding="utf-8")
        )
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
    from ..results.profile import HISTORY_SECTIONS, USER_SECTIONS

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

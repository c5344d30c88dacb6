"""The protected originals and the user's right to be forgotten: ``set-secret``,
``unlock``, ``reveal``, ``audit`` and ``erase``."""

from __future__ import annotations

import shutil
from typing import Annotated

import typer

from ..errors import AuthorizationError, ValidationError
from .shared import AsJson, User, _echo_json, _state, read_stdin


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
    if current:
        old, secret = read_stdin("the current secret, then the new one", lines=2).split("\n")
    else:
        old, secret = None, read_stdin("the secret", lines=1)
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


def unlock(ctx: typer.Context, user: User) -> None:
    """Lift a user's reveal lock (after too many wrong answers), audited."""
    with _state(ctx).vault() as vault:
        vault.reveal.unlock(user_id=user, actor="cli")
    typer.echo("reveal unlocked")


def erase(
    ctx: typer.Context,
    user: User,
    yes: Annotated[bool, typer.Option("--yes", help="confirm: this cannot be undone")] = False,
) -> None:
    """Erase a user: memories (in every agent's store too), reveal secret and state, audit
    records, memory files, settings."""
    if not yes:
        raise ValidationError(f"erasing {user!r} cannot be undone: add --yes to confirm")
    from ..agent.config import MemoryConfigStore
    from ..agent.stores import AgentVaults
    from ..vault import Vault

    config = _state(ctx).config()
    with Vault(config=config, embedder=None) as vault, AgentVaults(vault) as every:
        deleted = every.erase_user(user_id=user, actor="cli")
    user_dir = MemoryConfigStore(config.home).user_overrides_path(user).parent
    shutil.rmtree(user_dir, ignore_errors=True)
    typer.echo(f"erased {user}: {deleted} memories")


def reveal(
    ctx: typer.Context,
    entry_id: Annotated[str, typer.Argument(metavar="ID", help="the memory id")],
    user: User,
    as_json: AsJson = False,
) -> None:
    """Show a memory's original text: answers the reveal challenge (secret on stdin), audited."""
    secret = read_stdin("the secret", lines=1)
    with _state(ctx).vault() as vault:
        vault.reveal.authorize(entry_id, user_id=user, secret=secret, actor="cli")
        entry = vault.reveal.entry(entry_id, user_id=user, actor="cli")
    if as_json:
        _echo_json(entry.to_dict())
    else:
        typer.echo(entry.content)


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

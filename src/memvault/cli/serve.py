"""The servers the command starts, ``serve`` (HTTP) and ``mcp`` (stdio), and the
HTTP API's keys (``memvault keys``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from ..errors import MemvaultError, ValidationError
from .shared import Agent, AsJson, User, _echo_json, _state


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
        from ..server.app import PANEL_PATH, bind_listener, check_bind, run
        from ..server.keys import KeyStore
        from ..server.state import ServerSettings
    except ImportError as exc:
        raise MemvaultError(
            f"the HTTP server needs the 'server' extra ({exc.name} is missing): "
            "pip install 'memvault[server]'"
        ) from None
    config = _state(ctx).config()
    check_bind(host, auth=not no_auth)
    if config_file is not None and not config_file.is_file():
        raise ValidationError(f"--config {config_file}: no such file; pass your config.yaml")
    if config_file is not None:
        # The seed's memory.background_extraction.* tuning keys are the engine's extraction.
        from ..agent.config.layers import load_yaml_settings
        from ..agent.config.seed_keys import with_seed_extraction

        config = with_seed_extraction(config, load_yaml_settings(config_file))
    # The port first: the first admin key is shown once, so a start that cannot listen
    # must fail before creating it.
    listener = bind_listener(host, port)
    port = int(listener.getsockname()[1])  # --port 0: the one the system chose
    if not no_auth:
        keys = KeyStore.in_home(config.home)
        secret = keys.ensure_admin()
        if secret is not None:
            typer.echo(
                f"created the first admin key (shown only now; store it safely):\n  {secret}\n"
                f"panel: http://{host}:{port}{PANEL_PATH}\n"
                "more keys: memvault keys create --user USER_ID"
            )
        elif not keys.has_admin():
            typer.echo(
                "no admin key: the panel's admin screens and /v1/keys need one; create it "
                "with `memvault keys create --admin` (printed once)",
                err=True,
            )
    settings = ServerSettings(
        cors_origins=tuple(cors_origin or ()), run_maintenance=True, yaml_path=config_file
    )
    run(
        config,
        host=host,
        port=port,
        auth=not no_auth,
        settings=settings,
        workers=workers,
        listener=listener,
    )


def mcp(
    ctx: typer.Context,
    user: User,
    agent: Agent = None,
) -> None:
    """Serve one user's memory as an MCP server on stdin/stdout."""
    try:
        from ..mcp import run_stdio
    except ImportError as exc:
        raise MemvaultError(
            f"the MCP server needs the 'mcp' extra ({exc.name} is missing): "
            "pip install 'memvault[mcp]'"
        ) from None
    config = _state(ctx).routed(agent)
    if agent is not None:
        from ..agent.stores import AgentRegistry, memory_off

        if not AgentRegistry.in_home(config.home).get(agent).enabled:
            raise MemvaultError(memory_off(agent))
    from ..vault import Vault

    with Vault(config=config) as vault:
        run_stdio(vault, user_id=user, agent_id=agent, base_dir=config.home)


keys_app = typer.Typer(help="Manage the HTTP API's keys (stored hashed in <home>/keys.json).")


def _key_store(ctx: typer.Context) -> Any:
    from ..server.keys import KeyStore

    return KeyStore.in_home(_state(ctx).config().home)


@keys_app.command("create")
def keys_create(
    ctx: typer.Context,
    user: Annotated[
        str | None, typer.Option("--user", "-u", help="the user the key acts for")
    ] = None,
    admin: Annotated[bool, typer.Option("--admin", help="an admin key (any user, keys)")] = False,
    label: Annotated[str, typer.Option(help="a note to recognise the key by")] = "",
    review: Annotated[
        bool, typer.Option("--review", help="a user key that may approve held memories")
    ] = False,
) -> None:
    """Create a key and print it (the only time it is shown)."""
    if (user is None) == (not admin):
        raise ValidationError("pass either --user USER_ID or --admin")
    if review and admin:
        raise ValidationError("--review is for user keys: an admin key already approves")
    record, secret = _key_store(ctx).create(user_id=user, label=label, review=review)
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
        if r["review"] and not r["admin"]:
            owner += " review"
        state = "  REVOKED" if r["revoked"] else ""
        typer.echo(f"{r['id']}  {owner}  {r['created_at']}  {r['label']}{state}")


@keys_app.command("revoke")
def keys_revoke(
    ctx: typer.Context, key_id: Annotated[str, typer.Argument(metavar="ID", help="the key id")]
) -> None:
    """Revoke a key; a running server refuses it from its next request."""
    _key_store(ctx).revoke(key_id)
    typer.echo(f"revoked {key_id}")

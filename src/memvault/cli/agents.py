"""``memvault agents``: each agent's memory settings (on/off, its own store, prefetch)."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from ..errors import ValidationError
from .shared import AsJson, _echo_json, _state

agents_app = typer.Typer(
    help="Each agent's memory settings: on/off, its own store, prefetch size (<home>/agents.json)."
)
AgentArg = Annotated[str, typer.Argument(metavar="AGENT", help="the agent id")]


def _agent_line(agent_id: str, public: dict[str, Any]) -> str:
    state = "on" if public["enabled"] else "OFF"
    store = public["store"] or "default store"
    return f"{agent_id}  memory {state}  store: {store}  prefetch: {public['prefetch_limit']}"


@agents_app.command("list")
def agents_list(ctx: typer.Context, as_json: AsJson = False) -> None:
    """Agents with settings of their own (every other agent gets the defaults)."""
    from ..agent.stores import AgentRegistry

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
    from ..agent.stores import AgentRegistry

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
    from ..agent.stores import AgentVaults, resolve_store
    from ..vault import Vault

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
    from ..agent.stores import AgentRegistry

    AgentRegistry.in_home(_state(ctx).config().home).remove(agent)
    typer.echo(f"{agent} uses the defaults again")

"""``memvault entities``: the entity graph the memories name."""

from __future__ import annotations

from typing import Annotated

import typer

from .shared import Agent, AsJson, User, _echo_json, _state

entities_app = typer.Typer(help="The entity graph: who and what the memories name.")


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
    from ..results.graph import entity_dict

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
    from ..stores.graph_values import MENTIONED_WITH

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

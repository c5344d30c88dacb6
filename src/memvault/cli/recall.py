"""What the agent would get: ``context`` prints the block ``Vault.context`` renders for a
query (the relevance gate, the token budget and the fence included), ``explain`` the same
search as data (``Vault.explain``: each candidate's channels, boosts, score and what
``context`` does with it)."""

from __future__ import annotations

from typing import Annotated

import typer

from .shared import (
    Agent,
    AsJson,
    ClassFilter,
    DomainFilter,
    KindFilter,
    SubjectFilter,
    User,
    _echo_json,
    _state,
)

Query = Annotated[str, typer.Argument(help="the query, as the agent would send it")]


def context(
    ctx: typer.Context,
    query: Query,
    user: User,
    agent: Agent = None,
    max_tokens: Annotated[
        int | None, typer.Option("--max-tokens", help="the token budget (default: the config's)")
    ] = None,
    limit: Annotated[
        int | None, typer.Option(help="how many hits to consider (default: the config's)")
    ] = None,
    kind: KindFilter = None,
    domain: DomainFilter = None,
    mem_class: ClassFilter = None,
    subject: SubjectFilter = None,
    as_json: AsJson = False,
) -> None:
    """Show the memory block the agent would get for a query (nothing when nothing is
    relevant)."""
    with _state(ctx).vault(model="yes", agent=agent, query=query) as vault:
        block = vault.context(
            query,
            user_id=user,
            agent_id=agent,
            max_tokens=max_tokens,
            limit=limit,
            kind=kind,
            domain=domain,
            mem_class=mem_class,
            source_subject=subject,
        )
    if as_json:
        _echo_json({"context": block})
    elif block:
        typer.echo(block)
    else:
        typer.echo("nothing relevant: the agent would get no memory block for this query")


def explain(
    ctx: typer.Context,
    query: Query,
    user: User,
    agent: Agent = None,
    limit: Annotated[int, typer.Option(help="how many results search would return")] = 5,
    rows: Annotated[
        int | None, typer.Option(help="how many candidates to show (default: --limit)")
    ] = None,
    kind: KindFilter = None,
    domain: DomainFilter = None,
    mem_class: ClassFilter = None,
    subject: SubjectFilter = None,
    as_json: AsJson = False,
) -> None:
    """Show why each memory ranked where it did, and what context() does with it."""
    with _state(ctx).vault(model="yes", agent=agent, query=query) as vault:
        explanation = vault.explain(
            query,
            user_id=user,
            agent_id=agent,
            limit=limit,
            kind=kind,
            domain=domain,
            mem_class=mem_class,
            source_subject=subject,
        )
    if as_json:
        _echo_json(explanation.to_dict())
    else:
        typer.echo(explanation.format(rows))

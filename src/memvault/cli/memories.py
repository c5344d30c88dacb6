"""One memory at a time: ``add``, ``search``, ``get``, ``list``, ``update``, ``delete``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..errors import NotFoundError, ValidationError
from ..model import Hit, MemoryEntry
from .shared import (
    Agent,
    AsJson,
    AsOf,
    ClassFilter,
    DomainFilter,
    KindFilter,
    SensitivityFilter,
    StatusFilter,
    SubjectFilter,
    TierFilter,
    User,
    WithSuperseded,
    _echo_json,
    _line,
    _metadata,
    _State,
    _state,
    read_stdin,
)


def add(
    ctx: typer.Context,
    user: User,
    content: Annotated[
        str | None, typer.Argument(help="the text to remember; - reads it from stdin")
    ] = None,
    file: Annotated[
        Path | None,
        typer.Option("--file", "-f", help="read the text from this file (UTF-8)"),
    ] = None,
    agent: Agent = None,
    kind: Annotated[str, typer.Option(help="user | project | feedback | reference")] = "user",
    name: Annotated[str | None, typer.Option(help="a short title")] = None,
    description: Annotated[str | None, typer.Option(help="one line used for relevance")] = None,
    metadata: Annotated[str | None, typer.Option(help="a JSON object")] = None,
    mem_class: Annotated[
        str,
        typer.Option(
            "--class",
            help="semantic (stable fact) | short_term (day-to-day, ages in 7 days) | process "
            "(task detail, 15 days) | source_archive | compressed_archive",
        ),
    ] = "semantic",
    subject: Annotated[
        str | None,
        typer.Option("--subject", help="who it is about or from: user | assistant | a name"),
    ] = None,
    supersedes: Annotated[
        str | None,
        typer.Option(help="the id of the memory this one replaces (kept in its history)"),
    ] = None,
    as_json: AsJson = False,
) -> None:
    """Remember something: the text as an argument, from stdin (``-``) or a file."""
    text = _text_to_add(content, file)
    state = _state(ctx)
    with state.vault(model="quick", agent=agent, writing=text) as vault:
        entry = vault.add(
            text,
            user_id=user,
            agent_id=agent,
            kind=kind,
            name=name,
            description=description,
            metadata=_metadata(metadata),
            mem_class=mem_class,
            source="cli",
            source_subject=subject,
            supersedes=supersedes,
        )
    if as_json:
        _echo_json(entry.to_dict())
    else:
        typer.echo(f"added {entry.id}" + (f" (replaces {supersedes})" if supersedes else ""))
        _say_notes(entry)
    _say_deferred(state)


def _text_to_add(content: str | None, file: Path | None) -> str:
    """The text ``add`` stores: the argument, stdin for ``-``, or the file's text."""
    if file is not None:
        if content is not None:
            raise ValidationError("CONTENT: give the text or --file, not both", field="content")
        try:
            return file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            why = exc.strerror if isinstance(exc, OSError) else "it is not UTF-8 text"
            raise ValidationError(
                f"--file: cannot read {file} ({why}): pass a readable UTF-8 text file"
            ) from None
    if content is None:
        raise ValidationError(
            "CONTENT: give the text to remember, - to read it from stdin, or --file PATH",
            field="content",
        )
    if content == "-":
        return read_stdin("the text to remember")
    return content


def _say_notes(entry: MemoryEntry) -> None:
    """What the write did beyond storing the text: held for review, redacted."""
    from ..security.notes import write_notes  # the engine's words load with a command

    for note in write_notes(entry):
        hint = "; see `memvault quarantine list`" if note.startswith("held") else ""
        typer.echo(f"  {note}{hint}")


def _say_deferred(state: _State) -> None:
    if state.deferred:
        typer.echo(
            "its vector is left to the back-fill (the configured embedder is not a local "
            "model that starts quickly): it is findable by keyword now, by meaning once "
            "`memvault reindex` or a running server has embedded it",
            err=True,
        )


def search(
    ctx: typer.Context,
    query: Annotated[str, typer.Argument(help="what to look for")],
    user: User,
    agent: Agent = None,
    limit: Annotated[int, typer.Option(help="how many results")] = 5,
    kind: KindFilter = None,
    domain: DomainFilter = None,
    mem_class: ClassFilter = None,
    tier: TierFilter = None,
    sensitivity: SensitivityFilter = None,
    status: StatusFilter = None,
    subject: SubjectFilter = None,
    as_of: AsOf = None,
    include_superseded: WithSuperseded = False,
    as_json: AsJson = False,
) -> None:
    """Find the memories most relevant to a query."""
    with _state(ctx).vault(model="yes", agent=agent, query=query) as vault:
        hits: list[Hit] = vault.search(
            query,
            user_id=user,
            agent_id=agent,
            limit=limit,
            kind=kind,
            domain=domain,
            mem_class=mem_class,
            tier=tier,
            sensitivity=sensitivity,
            status=status,
            source_subject=subject,
            as_of=as_of,
            include_superseded=include_superseded,
        )
    if as_json:
        _echo_json([h.to_dict() for h in hits])
        return
    if not hits:
        typer.echo("no matching memories")
    for rank, hit in enumerate(hits, start=1):
        typer.echo(f"{rank:>2}. {_line(hit.entry)}")


def get(
    ctx: typer.Context,
    entry_id: Annotated[str, typer.Argument(metavar="ID", help="the memory id")],
    user: User,
    agent: Agent = None,
    as_json: AsJson = False,
) -> None:
    """Show one memory."""
    with _state(ctx).vault(agent=agent) as vault:
        entry = vault.get(entry_id, user_id=user, agent_id=agent)
    if as_json:
        _echo_json(entry.to_dict())
        return
    for key, value in entry.to_dict().items():
        if value not in (None, "", {}):
            typer.echo(f"{key}: {value}")


def list_(
    ctx: typer.Context,
    user: User,
    agent: Agent = None,
    kind: KindFilter = None,
    domain: DomainFilter = None,
    mem_class: ClassFilter = None,
    tier: TierFilter = None,
    sensitivity: SensitivityFilter = None,
    status: StatusFilter = None,
    subject: SubjectFilter = None,
    limit: Annotated[int, typer.Option(help="page size")] = 20,
    offset: Annotated[int, typer.Option(help="skip this many")] = 0,
    as_of: AsOf = None,
    include_superseded: WithSuperseded = False,
    sort: Annotated[
        str, typer.Option("--sort", help="newest | oldest | updated (last changed first)")
    ] = "newest",
    created_after: Annotated[
        str | None,
        typer.Option("--created-after", help="ISO 8601 date or time: created then or later"),
    ] = None,
    created_before: Annotated[
        str | None,
        typer.Option("--created-before", help="ISO 8601 date or time: created before it"),
    ] = None,
    as_json: AsJson = False,
) -> None:
    """List memories, newest first (or as --sort says)."""
    with _state(ctx).vault(agent=agent) as vault:
        entries = vault.list(
            user_id=user,
            agent_id=agent,
            kind=kind,
            domain=domain,
            mem_class=mem_class,
            tier=tier,
            sensitivity=sensitivity,
            status=status,
            source_subject=subject,
            limit=limit,
            offset=offset,
            as_of=as_of,
            include_superseded=include_superseded,
            sort=sort,
            created_after=created_after,
            created_before=created_before,
        )
    if as_json:
        _echo_json([e.to_dict() for e in entries])
        return
    if not entries:
        typer.echo("no memories")
    for entry in entries:
        typer.echo(_line(entry))


def update(
    ctx: typer.Context,
    entry_id: Annotated[str, typer.Argument(metavar="ID", help="the memory id")],
    user: User,
    agent: Agent = None,
    content: Annotated[str | None, typer.Option(help="new text")] = None,
    name: Annotated[str | None, typer.Option(help="new title")] = None,
    description: Annotated[str | None, typer.Option(help="new description")] = None,
    kind: Annotated[str | None, typer.Option(help="new kind")] = None,
    metadata: Annotated[str | None, typer.Option(help="new metadata (JSON object)")] = None,
    as_json: AsJson = False,
) -> None:
    """Change a memory."""
    state = _state(ctx)
    with state.vault(model="quick", agent=agent, writing=content) as vault:
        entry = vault.update(
            entry_id,
            user_id=user,
            agent_id=agent,
            content=content,
            name=name,
            description=description,
            kind=kind,
            metadata=_metadata(metadata),
        )
    if as_json:
        _echo_json(entry.to_dict())
    else:
        typer.echo(f"updated {entry.id}")
        _say_notes(entry)
    _say_deferred(state)


def delete(
    ctx: typer.Context,
    entry_ids: Annotated[
        list[str], typer.Argument(metavar="ID", help="the memory ids (one or more)")
    ],
    user: User,
    agent: Agent = None,
) -> None:
    """Forget one memory or several (in one transaction)."""
    wanted = list(dict.fromkeys(entry_ids))
    with _state(ctx).vault(agent=agent) as vault:
        if len(wanted) == 1:
            vault.delete(wanted[0], user_id=user, agent_id=agent)
            deleted = wanted
        else:
            deleted = vault.delete_many(wanted, user_id=user, agent_id=agent)
    gone = set(deleted)
    for entry_id in (i for i in wanted if i in gone):
        typer.echo(f"deleted {entry_id}")
    missing = [i for i in wanted if i not in gone]
    if missing:
        others = " (the others were)" if deleted else ""
        raise NotFoundError(
            f"not memories of user {user!r}, so not deleted: {', '.join(missing)}{others}; "
            "list them with `memvault list`",
            field="id",
        )
